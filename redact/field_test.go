package redact

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/warden-mcp/warden/errcode"
	"github.com/warden-mcp/warden/privacy"
)

var testKey = []byte("test-pseudonym-key-0123456789")

func newTest(t testing.TB, mode Mode) *Redactor {
	t.Helper()
	r, err := New(&Options{Mode: mode, PseudonymKey: testKey})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestParseMode(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Mode
		ok   bool
	}{
		{"", Balanced, true},
		{"balanced", Balanced, true},
		{" Strict ", Strict, true},
		{"OFF", Off, true},
		{"none", "", false},
		{"paranoid", "", false},
	} {
		got, err := ParseMode(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseMode(%q) = %q, %v", c.in, got, err)
		}
		if err != nil {
			if errcode.CodeOf(err) != CodeInvalidMode || !strings.Contains(err.Error(), "strict, balanced or off") {
				t.Errorf("ParseMode(%q) error %q does not name the modes", c.in, err)
			}
		}
	}
}

func TestNewOptions(t *testing.T) {
	if r, err := New(nil); err != nil || r.Mode() != Balanced {
		t.Fatalf("New(nil) = %v, %v; want Balanced", r, err)
	}
	for _, o := range []*Options{
		{Mode: Strict},
		{Mode: Strict, PseudonymKey: []byte("short")},
		{Mode: "loose"},
	} {
		if _, err := New(o); !errors.Is(err, errcode.New(CodeInvalidOptions, "")) {
			t.Errorf("New(%+v) = %v, want %s", o, err, CodeInvalidOptions)
		}
	}
	if _, err := New(&Options{Mode: Balanced}); err != nil {
		t.Errorf("Balanced needs no key: %v", err)
	}
}

// fieldCase is one value of one kind, and what Balanced and Strict make of
// it. A want of "=" means unchanged; strict "~" means "a pseudonym", checked
// by shape in TestFieldStrictPseudonyms.
type fieldCase struct {
	kind, name, value string
	balanced, strict  string
}

var fieldCases = []fieldCase{
	// Secrets and credentials: a fixed marker; empty stays empty.
	{privacy.Secret, "api_key", "sk_live_abc", "[REDACTED:secret]", "[REDACTED:secret]"},
	{privacy.Credential, "password", "hunter2", "[REDACTED:credential]", "[REDACTED:credential]"},
	{privacy.Credential, "password", "", "=", "="},
	{privacy.Secret, "token", "[REDACTED:secret]", "=", "="},
	{privacy.Cookie, "sid", "3f9a1c2b", "[REDACTED:cookie]", "[REDACTED:cookie]"},
	// Unknown kinds fail closed.
	{"bogus", "x", "value", "[REDACTED:secret]", "[REDACTED:secret]"},
	// Plain is left to the text pass.
	{privacy.Plain, "detail", "ghp_XIxB7KMNdAr3zqWtQqhE94qglHqOzn1D1stg", "=", "="},

	// Headers: sensitive names lose their values; the rest survive.
	{privacy.Header, "Authorization", "Bearer eyJhbGciOiJIUzI1NiJ9.e30.x", "Bearer [REDACTED:credential]", "Bearer [REDACTED:credential]"},
	{privacy.Header, "authorization", "Basic YWxhZGRpbjpvcGVuc2VzYW1l", "Basic [REDACTED:credential]", "Basic [REDACTED:credential]"},
	{privacy.Header, "Authorization", "AWS4-HMAC-SHA256 Credential=AKIA/20240101/us-east-1/s3/aws4_request, Signature=abc", "AWS4-HMAC-SHA256 [REDACTED:credential]", "AWS4-HMAC-SHA256 [REDACTED:credential]"},
	{privacy.Header, "Authorization", "3f9a1c2b7d00e1f2", "[REDACTED:credential]", "[REDACTED:credential]"},
	{privacy.Header, "Authorization", "Bearer", "=", "="},
	{privacy.Header, "Proxy-Authorization", "Digest username=\"a\", response=\"b\"", "Digest [REDACTED:credential]", "Digest [REDACTED:credential]"},
	{privacy.Header, "Cookie", "sid=abc; theme=dark", "sid=[REDACTED:cookie]; theme=[REDACTED:cookie]", "sid=[REDACTED:cookie]; theme=[REDACTED:cookie]"},
	{privacy.Header, "Cookie", "opaque", "[REDACTED:cookie]", "[REDACTED:cookie]"},
	{privacy.Header, "Set-Cookie", "sid=abc; Path=/; Secure; HttpOnly; SameSite=Lax", "sid=[REDACTED:cookie]; Path=/; Secure; HttpOnly; SameSite=Lax", "sid=[REDACTED:cookie]; Path=/; Secure; HttpOnly; SameSite=Lax"},
	{privacy.Header, "Set-Cookie", "sid=abc; Domain=.example.com; Expires=Wed, 21 Oct 2015 07:28:00 GMT, b=2; Path=/",
		"sid=[REDACTED:cookie]; Domain=.example.com; Expires=Wed, 21 Oct 2015 07:28:00 GMT, b=[REDACTED:cookie]; Path=/", "~"},
	{privacy.Header, "Set-Cookie", "sid=; Max-Age=0", "=", "="},
	{privacy.Header, "X-Api-Key", "a8f5f167f44f4964e6c998dee827110c", HeaderMarker, HeaderMarker},
	{privacy.Header, "X-Auth-Token", "t", HeaderMarker, HeaderMarker},
	{privacy.Header, "X-Amz-Security-Token", "FQoGZXIvYXdzE", HeaderMarker, HeaderMarker},
	{privacy.Header, "X-Hub-Signature-256", "sha256=abc", HeaderMarker, HeaderMarker},
	{privacy.Header, "X-Session-Id", "abc", HeaderMarker, HeaderMarker},
	{privacy.Header, "X-CSRF-Token", "abc", HeaderMarker, HeaderMarker},
	{privacy.Header, "Private-Token", "glpat-abc", HeaderMarker, HeaderMarker},
	{privacy.Header, "DPoP", "eyJ0eXAiOiJkcG9wK2p3dCJ9", HeaderMarker, HeaderMarker},
	{privacy.Header, "X-Client-Password", "abc", HeaderMarker, HeaderMarker},
	{privacy.Header, "Content-Type", "application/json; charset=utf-8", "=", "="},
	{privacy.Header, "Server", "nginx/1.25.3", "=", "="},
	{privacy.Header, "Strict-Transport-Security", "max-age=31536000; includeSubDomains", "=", "="},
	{privacy.Header, "Content-Security-Policy", "default-src 'self'; script-src 'nonce-abc'", "=", "="},
	{privacy.Header, "ETag", `W/"33a64df551425fcc55e4d42a148795d9f25f89d4"`, "=", "="},
	{privacy.Header, "WWW-Authenticate", `Bearer realm="api", error="invalid_token"`, "=", "="},
	{privacy.Header, "Access-Control-Allow-Credentials", "true", "=", "="},
	{privacy.Header, "Access-Control-Allow-Headers", "Authorization, X-Api-Key", "=", "="},
	{privacy.Header, "Public-Key-Pins", `pin-sha256="abc"; max-age=5184000`, "=", "="},
	{privacy.Header, "Keep-Alive", "timeout=5", "=", "="},
	{privacy.Header, "Location", "https://app.example.com/cb?code=abc&state=xyz", "https://app.example.com/cb?code=REDACTED&state=REDACTED", "~"},
	{privacy.Header, "Referer", "https://example.com/", "=", "~"},
	{privacy.Header, "Origin", "null", "=", "="},
	{privacy.Header, ":path", "/search?q=secret", "/search?q=REDACTED", "/search?q=REDACTED"},
	{privacy.Header, "Host", "example.com:8443", "=", "~"},
	{privacy.Header, "Host", "localhost:8080", "=", "="},
	{privacy.Header, "X-Forwarded-For", "10.0.0.1, 203.0.113.7", "=", "~"},
	{privacy.Header, "X-Forwarded-For", "127.0.0.1", "=", "="},
	{privacy.Header, "Forwarded", `for=192.0.2.60;proto=http;by=203.0.113.43`, "=", "~"},

	// URLs: userinfo, query values and fragments go; the rest is kept byte for byte.
	{privacy.URL, "url", "https://alice:pw@example.com:8443/a/b?token=abc&page=2&debug#frag",
		"https://example.com:8443/a/b?token=REDACTED&page=REDACTED&debug#REDACTED", "~"},
	{privacy.URL, "url", "https://example.com/a%20b/c", "=", "~"},
	{privacy.URL, "url", "https://user@example.com/", "https://example.com/", "~"},
	{privacy.URL, "url", "postgres://app:s3cret@db.internal:5432/app?sslmode=require", "postgres://db.internal:5432/app?sslmode=REDACTED", "~"},
	{privacy.URL, "url", "/relative/path?a=1&b=", "/relative/path?a=REDACTED&b=", "/relative/path?a=REDACTED&b="},
	{privacy.URL, "url", "/p?3f9a1c2b7d00e1f2&x", "/p?REDACTED&x", "/p?REDACTED&x"},
	{privacy.URL, "url", "https://example.com/#", "=", "~"},
	{privacy.URL, "url", "http://[::1]:8080/x?q", "=", "="},
	{privacy.URL, "url", "http://localhost/", "=", "="},
	{privacy.URL, "url", "not a url at all", "=", "="},
	{privacy.URL, "url", "https://example.com/?a=REDACTED#REDACTED", "=", "~"},

	// Identities: kept in Balanced, pseudonymized in Strict.
	{privacy.Host, "host", "api.example.com", "=", "~"},
	{privacy.Host, "host", "localhost", "=", "="},
	{privacy.IP, "ip", "10.0.0.5", "=", "~"},
	{privacy.IP, "ip", "127.0.0.1", "=", "="},
	{privacy.IP, "ip", "::", "=", "="},
	{privacy.Email, "email", "alice@example.com", "=", "~"},
	{privacy.Path, "path", "/home/alice/acme/report.pdf", "=", "~"},
	{privacy.Path, "path", "/", "=", "="},
}

func TestField(t *testing.T) {
	for _, mode := range []Mode{Balanced, Strict} {
		r := newTest(t, mode)
		for _, c := range fieldCases {
			want := c.balanced
			if mode == Strict {
				want = c.strict
			}
			got := r.Field(c.kind, c.name, c.value)
			switch want {
			case "=":
				want = c.value
			case "~":
				if got == c.value {
					t.Errorf("%s Field(%s, %q, %q) kept the value", mode, c.kind, c.name, c.value)
				}
				continue
			}
			if got != want {
				t.Errorf("%s Field(%s, %q, %q)\n got %q\nwant %q", mode, c.kind, c.name, c.value, got, want)
			}
		}
	}
}

// Redacting redacted output changes nothing.
func TestFieldIdempotent(t *testing.T) {
	for _, mode := range []Mode{Balanced, Strict} {
		r := newTest(t, mode)
		for _, c := range fieldCases {
			once := r.Field(c.kind, c.name, c.value)
			if twice := r.Field(c.kind, c.name, once); twice != once {
				t.Errorf("%s Field(%s, %q) not idempotent: %q -> %q -> %q", mode, c.kind, c.name, c.value, once, twice)
			}
		}
	}
}

func TestFieldOffChangesNothing(t *testing.T) {
	r := newTest(t, Off)
	for _, c := range fieldCases {
		if got := r.Field(c.kind, c.name, c.value); got != c.value {
			t.Errorf("Off Field(%s, %q, %q) = %q", c.kind, c.name, c.value, got)
		}
	}
}

func TestFieldStrictPseudonyms(t *testing.T) {
	r := newTest(t, Strict)
	for _, c := range []struct{ kind, value, want string }{
		{privacy.Host, "api.example.com", "host-HEX12.invalid"},
		{privacy.Host, "API.Example.COM.", "host-HEX12.invalid"}, // case and trailing dot do not matter
		{privacy.Host, "api.example.com:8443", "host-HEX12.invalid:8443"},
		{privacy.Host, "*.api.example.com", "*.host-HEX12.invalid"},
		{privacy.Host, "10.0.0.5", "ip4-HEX12.private.invalid"},
		{privacy.IP, "10.0.0.5", "ip4-HEX12.private.invalid"},
		{privacy.IP, "::ffff:10.0.0.5", "ip4-HEX12.private.invalid"},
		{privacy.IP, "10.0.0.5:22", "ip4-HEX12.private.invalid:22"},
		{privacy.IP, "169.254.169.254", "ip4-HEX12.linklocal.invalid"},
		{privacy.IP, "100.64.1.1", "ip4-HEX12.private.invalid"},
		{privacy.IP, "8.8.8.8", "ip4-HEX12.public.invalid"},
		{privacy.IP, "fd00::1", "ip6-HEX12.private.invalid"},
		{privacy.IP, "[fe80::1%eth0]:80", "ip6-HEX12.linklocal.invalid:80"},
		{privacy.IP, "224.0.0.1", "ip4-HEX12.other.invalid"},
		{privacy.Email, "alice@example.com", "user-HEX12@host-HEX12.invalid"},
		{privacy.Email, "Alice <Alice@Example.com>", "user-HEX12@host-HEX12.invalid"},
		{privacy.Email, "not-an-address", "user-HEX12@unknown.invalid"},
		{privacy.Path, "/home/alice/acme/report.pdf", "/path-HEX12.pdf"},
		{privacy.Path, `C:\Users\alice\fw.bin`, `C:\path-HEX12.bin`},
		{privacy.Path, `\\fileserver\share\x.docx`, `\\path-HEX12.docx`},
		{privacy.Path, "/home/alice/", "/path-HEX12/"},
		{privacy.Path, "src/main.go", "path-HEX12.go"},
		{privacy.Path, "~/.ssh/id_rsa", "~/path-HEX12"},
		{privacy.URL, "https://u:p@api.example.com:8443/v1?k=v#f", "https://host-HEX12.invalid:8443/v1?k=REDACTED#REDACTED"},
		{privacy.URL, "http://10.0.0.5/admin", "http://ip4-HEX12.private.invalid/admin"},
		{privacy.URL, "http://[fd00::1]:8080/", "http://ip6-HEX12.private.invalid:8080/"},
		{privacy.URL, "file:///home/alice/x.txt", "file:///path-HEX12.txt"},
		{privacy.URL, "mailto:alice@example.com?subject=hi", "mailto:user-HEX12@host-HEX12.invalid?subject=REDACTED"},
	} {
		got := r.Field(c.kind, "", c.value)
		if !shapeMatch(c.want, got) {
			t.Errorf("Strict Field(%s, %q) = %q, want the shape %q", c.kind, c.value, got, c.want)
		}
		if c.kind == privacy.URL {
			if _, err := url.Parse(got); err != nil {
				t.Errorf("Strict Field(url, %q) = %q does not parse: %v", c.value, got, err)
			}
		}
	}
}

// shapeMatch matches got against want, where each HEX12 in want stands for
// 12 lower-case hex digits: the tokens themselves are TestPseudonymsStable's
// business.
func shapeMatch(want, got string) bool {
	for want != "" {
		if strings.HasPrefix(want, "HEX12") {
			if len(got) < 12 || !isPseudoLabel("x"+got[:12], "x") {
				return false
			}
			want, got = want[5:], got[12:]
			continue
		}
		if got == "" || want[0] != got[0] {
			return false
		}
		want, got = want[1:], got[1:]
	}
	return got == ""
}

func TestPseudonymsStable(t *testing.T) {
	a := newTest(t, Strict)
	b := newTest(t, Strict)
	other, err := New(&Options{Mode: Strict, PseudonymKey: []byte("another-deployment-key")})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range [][2]string{
		{privacy.Host, "api.example.com"}, {privacy.IP, "10.0.0.5"}, {privacy.IP, "2001:db8::1"},
		{privacy.Email, "alice@example.com"}, {privacy.Path, "/etc/shadow"},
	} {
		x, y, z := a.Field(c[0], "", c[1]), b.Field(c[0], "", c[1]), other.Field(c[0], "", c[1])
		if x != y {
			t.Errorf("%s %q: %q and %q under one key", c[0], c[1], x, y)
		}
		if x == z {
			t.Errorf("%s %q: %q under two keys", c[0], c[1], x)
		}
	}
	// Equal hosts stay equal wherever they appear; different ones differ.
	host := a.Field(privacy.Host, "", "api.example.com")
	if got := a.Field(privacy.URL, "", "https://API.example.com/x"); !strings.HasPrefix(got, "https://"+host+"/") {
		t.Errorf("the URL's host %q is not the host pseudonym %q", got, host)
	}
	if got := a.Field(privacy.Header, "Host", "api.example.com"); got != host {
		t.Errorf("the Host header %q is not the host pseudonym %q", got, host)
	}
	if email := a.Field(privacy.Email, "", "bob@api.example.com"); !strings.HasSuffix(email, "@"+host) {
		t.Errorf("the e-mail domain of %q is not the host pseudonym %q", email, host)
	}
	if got := a.Field(privacy.Host, "", "*.api.example.com"); got != "*."+host {
		t.Errorf("the wildcard %q is not \"*.\" and the host pseudonym %q", got, host)
	}
	if a.Field(privacy.Host, "", "a.example.com") == a.Field(privacy.Host, "", "b.example.com") {
		t.Error("two hosts share a pseudonym")
	}
	if a.Field(privacy.Email, "", "alice@example.com") == a.Field(privacy.Email, "", "bob@example.com") {
		t.Error("two addresses share a pseudonym")
	}
}

func TestClassifyHeaderDoesNotAllocate(t *testing.T) {
	n := testing.AllocsPerRun(100, func() {
		classifyHeader("Strict-Transport-Security")
		classifyHeader("X-Api-Key")
	})
	if n != 0 {
		t.Errorf("classifyHeader allocates %v times", n)
	}
	r := newTest(t, Balanced)
	if n := testing.AllocsPerRun(100, func() {
		r.Field(privacy.URL, "url", "https://app.example.com/api/v1/users/42")
		r.Field(privacy.Header, "Server", "nginx")
		r.Field(privacy.Host, "host", "example.com")
	}); n != 0 {
		t.Errorf("Field allocates %v times for values it keeps", n)
	}
}

func TestRedactQueryKeepsKeys(t *testing.T) {
	got, ok := redactQuery("a=1&b=&c&d=x=y&&e=REDACTED")
	if diff := cmp.Diff("a=REDACTED&b=&c&d=REDACTED&&e=REDACTED", got); !ok || diff != "" {
		t.Errorf("redactQuery (-want +got):\n%s", diff)
	}
	if _, ok := redactQuery("a=&flag"); ok {
		t.Error("redactQuery changed a query with nothing to remove")
	}
}

func TestSplitHostPort(t *testing.T) {
	for _, c := range []struct {
		in, host, port string
		ok             bool
	}{
		{"example.com:443", "example.com", "443", true},
		{"[2001:db8::1]:8080", "2001:db8::1", "8080", true},
		{"10.0.0.1:22", "10.0.0.1", "22", true},
		{"example.com", "", "", false},
		{"2001:db8::1", "", "", false}, // a bare IPv6 address has no port
		{"::1", "", "", false},
		{"example.com:", "", "", false},
		{"example.com:http", "", "", false},
		{"[::1", "", "", false},
		{"a[b]:1", "", "", false},
	} {
		h, p, ok := splitHostPort(c.in)
		if h != c.host || p != c.port || ok != c.ok {
			t.Errorf("splitHostPort(%q) = %q, %q, %v", c.in, h, p, ok)
		}
	}
}

// Every kind of the vocabulary has its own case in Field: a kind added to
// package privacy without one would be treated as a secret (fail closed),
// so a harmless value of a non-secret kind must pass Balanced unchanged.
func TestFieldKnowsEveryKind(t *testing.T) {
	r, err := New(&Options{Mode: Balanced})
	if err != nil {
		t.Fatal(err)
	}
	secretLike := map[string]bool{privacy.Secret: true, privacy.Credential: true, privacy.Cookie: true}
	for _, k := range privacy.Kinds() {
		got := r.Field(k, "Content-Type", "example")
		if secretLike[k] != (got != "example") {
			t.Errorf("Field(%q, harmless value) = %q", k, got)
		}
	}
}
