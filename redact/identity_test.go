package redact

import (
	"strings"
	"testing"

	"github.com/warden-mcp/warden/tool"
)

// Strict pseudonymizes the identities in free text as it does typed
// fields, and leaves alone what only looks like one: versions, Go
// package paths, C++ names, URL paths, MIME types, pseudonyms, markers.
func TestStrictFreeText(t *testing.T) {
	r := newTest(t, Strict)
	p := r.pseudo
	for _, c := range []struct{ in, want string }{
		{"mail alice@example.com now", "mail " + p.email("alice@example.com") + " now"},
		{"From: Alice <alice@corp.example.com>", "From: Alice <" + p.email("alice@corp.example.com") + ">"},
		{"connect to 10.0.0.5:8080.", "connect to " + p.hostPort("10.0.0.5") + ":8080."},
		{"net 192.168.1.0/24 via 8.8.8.8", "net " + p.host("192.168.1.0") + "/24 via " + p.host("8.8.8.8")},
		{"ip=203.0.113.7", "ip=" + p.host("203.0.113.7")},
		{"root@10.0.0.5 logged in", p.email("root@10.0.0.5") + " logged in"},
		{"v6 fe80::1%eth0 and [2001:db8::5]:443", "v6 " + p.host("fe80::1") + "%eth0 and [" + p.host("2001:db8::5") + "]:443"},
		{"see https://shop.example.com:8443/a?x=1#f", "see https://" + p.hostPort("shop.example.com:8443") + "/a?x=1#f"},
		{"https://u@intranet.corp/x", "https://u@" + p.host("intranet.corp") + "/x"},
		{"host db.internal is up", "host " + p.host("db.internal") + " is up"},
		{"visit www.example.org.", "visit " + p.host("www.example.org") + "."},
		{"cat /home/alice/notes.txt", "cat " + p.path("/home/alice/notes.txt")},
		{"at /Users/bob/src/main.go:12:3", "at " + p.path("/Users/bob/src/main.go") + ":12:3"},
		{`open C:\Users\alice\Desktop\fw.bin`, "open " + p.path(`C:\Users\alice\Desktop\fw.bin`)},
		{`share \\fileserver\finance\q3.xlsx`, "share " + p.path(`\\fileserver\finance\q3.xlsx`)},
		{"path=~/secrets/key.pem", "path=" + p.path("~/secrets/key.pem")},
		{"file:///home/alice/a.pdf", "file://" + p.path("/home/alice/a.pdf")},
	} {
		got, spans := r.Text(c.in)
		if got != c.want || len(spans) == 0 {
			t.Errorf("Text(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
		if again, _ := r.Text(got); again != got {
			t.Errorf("not idempotent: %q -> %q", got, again)
		}
		if bal, _ := newTest(t, Balanced).Text(c.in); bal != c.in {
			t.Errorf("balanced changed %q to %q", c.in, bal)
		}
	}
	for _, keep := range []string{
		"nginx/1.25.3", "go1.22.3", "v1.2.3.4", "Chrome 120.0.6099.109", "OID 1.3.6.1.4.1.311.21.7", "10.0.19041.1",
		"github.com/warden-mcp/warden/internal/toolset.(*Native).privacy", "golang.org/x/net@v0.25.0", "lodash@4.17.21",
		"image@sha256:9f86d081884c7d65", "text/html; charset=utf-8", "GET /api/v1/users HTTP/1.1", "?next=/admin",
		"CDC::Add", "std::vector<A::B>", "dead::beef", "12:34:56", "00:1a:2b:3c:4d:5e", "2026-12-02T06:58:08Z",
		"main.go", "README.md", "install.sh", "libc.so.6", "config/settings.json", "System.IO.File", "java.io.File",
		"os.Args", "e.g. this", "socket.Connect()", "user@localhost", "127.0.0.1:8080", "0.0.0.0", "::1", "localhost:3000",
		"host-3f9a1c2b7d00.invalid", "user-3f9a1c2b7d00@host-3f9a1c2b7d00.invalid", "ip4-85ae3f6e8f30.private.invalid",
		"/path-47cddea2c6cf.pdf", `C:\path-47cddea2c6cf.bin`, "[REDACTED:github_personal_access_token]", "token=REDACTED",
		"runtime.gcBgMarkWorker", "sub_401000", "0x401000", "Usage: tool [options]", "a.b.c", "x.id", "/admin/users",
	} {
		if got, spans := r.Text(keep); got != keep || spans != nil {
			t.Errorf("Text(%q) = %q, %v; want it kept", keep, got, spans)
		}
	}
}

// The Result pass pseudonymizes every string of a result in Strict:
// member names and values of untyped structured content, text blocks and
// warnings; and it leaves what Balanced leaves.
func TestStrictResultFreeText(t *testing.T) {
	r := newTest(t, Strict)
	res := typedResult(t, map[string]any{
		"notable":           []map[string]string{{"kind": "ip", "value": "10.20.30.40"}, {"kind": "email", "value": "ops@acme.example.com"}},
		"claims":            map[string]any{"email": "alice@example.com", "iss": "https://login.acme.com/"},
		"alice@example.com": "a key that is an address",
	})
	res.Warnings = []tool.Warning{{Code: "x", Message: "could not reach 10.1.2.3"}}
	out, rep, err := r.RedactResult(res)
	if err != nil {
		t.Fatal(err)
	}
	all := string(out.Structured) + out.Content[0].Text + out.Warnings[0].Message
	for _, leak := range []string{"10.20.30.40", "acme.example.com", "alice@example.com", "login.acme.com", "10.1.2.3"} {
		if strings.Contains(all, leak) {
			t.Errorf("%q left: %s", leak, all)
		}
	}
	if out.Content[0].Text != string(out.Structured) || rep.Pseudonyms < 5 || rep.Redactions != 0 {
		t.Errorf("text %q, report %+v", out.Content[0].Text, rep)
	}
	if again, _ := r.Result(out); again != out {
		t.Errorf("not idempotent")
	}
	if b, _ := newTest(t, Balanced).Result(res); b != res {
		t.Errorf("balanced changed the result")
	}
}

// Inputs the fuzzer found: each pass ends and is idempotent.
func TestStrictFreeTextEnds(t *testing.T) {
	r := newTest(t, Strict)
	for _, s := range []string{"/:", "a /: b", "x/:/:", "~:", `\:`, "C:/:", ":/", "C:\\:", "0000000000@10::",
		"0000000000@0000000.AA@0.AA", "0.0.0.1@0.AA", "10.0.0.0:00000112789A2BCX1"} {
		once, _ := r.Text(s)
		if twice, _ := r.Text(once); twice != once {
			t.Errorf("%q -> %q -> %q", s, once, twice)
		}
	}
}
