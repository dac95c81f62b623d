package redact

import (
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/warden-mcp/warden/errcode"
	"github.com/warden-mcp/warden/tool"
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

func TestKinds(t *testing.T) {
	for _, k := range Kinds() {
		if !KnownKind(k) {
			t.Errorf("KnownKind(%q) = false", k)
		}
	}
	for _, k := range []string{"", "Secret", "password", "token"} {
		if KnownKind(k) {
			t.Errorf("KnownKind(%q) = true", k)
		}
	}
	if len(Kinds()) != 11 {
		t.Errorf("Kinds() = %v", Kinds())
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
	{KindSecret, "api_key", "sk_live_abc", "[REDACTED:secret]", "[REDACTED:secret]"},
	{KindCredential, "password", "hunter2", "[REDACTED:credential]", "[REDACTED:credential]"},
	{KindCredential, "password", "", "=", "="},
	{KindSecret, "token", "[REDACTED:secret]", "=", "="},
	{KindCookie, "sid", "3f9a1c2b", "[REDACTED:cookie]", "[REDACTED:cookie]"},
	// Unknown kinds fail closed.
	{"bogus", "x", "value", "[REDACTED:secret]", "[REDACTED:secret]"},
	// Plain is left to the text pass.
	{KindPlain, "detail", "ghp_XIxB7KMNdAr3zqWtQqhE94qglHqOzn1D1stg", "=", "="},

	// Headers: sensitive names lose their values; the rest survive.
	{KindHeader, "Authorization", "Bearer eyJhbGciOiJIUzI1NiJ9.e30.x", "Bearer [REDACTED:credential]", "Bearer [REDACTED:credential]"},
	{KindHeader, "authorization", "Basic YWxhZGRpbjpvcGVuc2VzYW1l", "Basic [REDACTED:credential]", "Basic [REDACTED:credential]"},
	{KindHeader, "Authorization", "AWS4-HMAC-SHA256 Credential=AKIA/20240101/us-east-1/s3/aws4_request, Signature=abc", "AWS4-HMAC-SHA256 [REDACTED:credential]", "AWS4-HMAC-SHA256 [REDACTED:credential]"},
	{KindHeader, "Authorization", "3f9a1c2b7d00e1f2", "[REDACTED:credential]", "[REDACTED:credential]"},
	{KindHeader, "Authorization", "Bearer", "=", "="},
	{KindHeader, "Proxy-Authorization", "Digest username=\"a\", response=\"b\"", "Digest [REDACTED:credential]", "Digest [REDACTED:credential]"},
	{KindHeader, "Cookie", "sid=abc; theme=dark", "sid=[REDACTED:cookie]; theme=[REDACTED:cookie]", "sid=[REDACTED:cookie]; theme=[REDACTED:cookie]"},
	{KindHeader, "Cookie", "opaque", "[REDACTED:cookie]", "[REDACTED:cookie]"},
	{KindHeader, "Set-Cookie", "sid=abc; Path=/; Secure; HttpOnly; SameSite=Lax", "sid=[REDACTED:cookie]; Path=/; Secure; HttpOnly; SameSite=Lax", "sid=[REDACTED:cookie]; Path=/; Secure; HttpOnly; SameSite=Lax"},
	{KindHeader, "Set-Cookie", "sid=abc; Domain=.example.com; Expires=Wed, 21 Oct 2015 07:28:00 GMT, b=2; Path=/",
		"sid=[REDACTED:cookie]; Domain=.example.com; Expires=Wed, 21 Oct 2015 07:28:00 GMT, b=[REDACTED:cookie]; Path=/", "~"},
	{KindHeader, "Set-Cookie", "sid=; Max-Age=0", "=", "="},
	{KindHeader, "X-Api-Key", "a8f5f167f44f4964e6c998dee827110c", HeaderMarker, HeaderMarker},
	{KindHeader, "X-Auth-Token", "t", HeaderMarker, HeaderMarker},
	{KindHeader, "X-Amz-Security-Token", "FQoGZXIvYXdzE", HeaderMarker, HeaderMarker},
	{KindHeader, "X-Hub-Signature-256", "sha256=abc", HeaderMarker, HeaderMarker},
	{KindHeader, "X-Session-Id", "abc", HeaderMarker, HeaderMarker},
	{KindHeader, "X-CSRF-Token", "abc", HeaderMarker, HeaderMarker},
	{KindHeader, "Private-Token", "glpat-abc", HeaderMarker, HeaderMarker},
	{KindHeader, "DPoP", "eyJ0eXAiOiJkcG9wK2p3dCJ9", HeaderMarker, HeaderMarker},
	{KindHeader, "X-Client-Password", "abc", HeaderMarker, HeaderMarker},
	{KindHeader, "Content-Type", "application/json; charset=utf-8", "=", "="},
	{KindHeader, "Server", "nginx/1.25.3", "=", "="},
	{KindHeader, "Strict-Transport-Security", "max-age=31536000; includeSubDomains", "=", "="},
	{KindHeader, "Content-Security-Policy", "default-src 'self'; script-src 'nonce-abc'", "=", "="},
	{KindHeader, "ETag", `W/"33a64df551425fcc55e4d42a148795d9f25f89d4"`, "=", "="},
	{KindHeader, "WWW-Authenticate", `Bearer realm="api", error="invalid_token"`, "=", "="},
	{KindHeader, "Access-Control-Allow-Credentials", "true", "=", "="},
	{KindHeader, "Access-Control-Allow-Headers", "Authorization, X-Api-Key", "=", "="},
	{KindHeader, "Public-Key-Pins", `pin-sha256="abc"; max-age=5184000`, "=", "="},
	{KindHeader, "Keep-Alive", "timeout=5", "=", "="},
	{KindHeader, "Location", "https://app.example.com/cb?code=abc&state=xyz", "https://app.example.com/cb?code=REDACTED&state=REDACTED", "~"},
	{KindHeader, "Referer", "https://example.com/", "=", "~"},
	{KindHeader, "Origin", "null", "=", "="},
	{KindHeader, ":path", "/search?q=secret", "/search?q=REDACTED", "/search?q=REDACTED"},
	{KindHeader, "Host", "example.com:8443", "=", "~"},
	{KindHeader, "Host", "localhost:8080", "=", "="},
	{KindHeader, "X-Forwarded-For", "10.0.0.1, 203.0.113.7", "=", "~"},
	{KindHeader, "X-Forwarded-For", "127.0.0.1", "=", "="},
	{KindHeader, "Forwarded", `for=192.0.2.60;proto=http;by=203.0.113.43`, "=", "~"},

	// URLs: userinfo, query values and fragments go; the rest is kept byte for byte.
	{KindURL, "url", "https://alice:pw@example.com:8443/a/b?token=abc&page=2&debug#frag",
		"https://example.com:8443/a/b?token=REDACTED&page=REDACTED&debug#REDACTED", "~"},
	{KindURL, "url", "https://example.com/a%20b/c", "=", "~"},
	{KindURL, "url", "https://user@example.com/", "https://example.com/", "~"},
	{KindURL, "url", "postgres://app:s3cret@db.internal:5432/app?sslmode=require", "postgres://db.internal:5432/app?sslmode=REDACTED", "~"},
	{KindURL, "url", "/relative/path?a=1&b=", "/relative/path?a=REDACTED&b=", "/relative/path?a=REDACTED&b="},
	{KindURL, "url", "/p?3f9a1c2b7d00e1f2&x", "/p?REDACTED&x", "/p?REDACTED&x"},
	{KindURL, "url", "https://example.com/#", "=", "~"},
	{KindURL, "url", "http://[::1]:8080/x?q", "=", "="},
	{KindURL, "url", "http://localhost/", "=", "="},
	{KindURL, "url", "not a url at all", "=", "="},
	{KindURL, "url", "https://example.com/?a=REDACTED#REDACTED", "=", "~"},

	// Identities: kept in Balanced, pseudonymized in Strict.
	{KindHost, "host", "api.example.com", "=", "~"},
	{KindHost, "host", "localhost", "=", "="},
	{KindIP, "ip", "10.0.0.5", "=", "~"},
	{KindIP, "ip", "127.0.0.1", "=", "="},
	{KindIP, "ip", "::", "=", "="},
	{KindEmail, "email", "alice@example.com", "=", "~"},
	{KindPath, "path", "/home/alice/acme/report.pdf", "=", "~"},
	{KindPath, "path", "/", "=", "="},
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
		{KindHost, "api.example.com", "host-HEX12.invalid"},
		{KindHost, "API.Example.COM.", "host-HEX12.invalid"}, // case and trailing dot do not matter
		{KindHost, "api.example.com:8443", "host-HEX12.invalid:8443"},
		{KindHost, "*.api.example.com", "*.host-HEX12.invalid"},
		{KindHost, "10.0.0.5", "ip4-HEX12.private.invalid"},
		{KindIP, "10.0.0.5", "ip4-HEX12.private.invalid"},
		{KindIP, "::ffff:10.0.0.5", "ip4-HEX12.private.invalid"},
		{KindIP, "10.0.0.5:22", "ip4-HEX12.private.invalid:22"},
		{KindIP, "169.254.169.254", "ip4-HEX12.linklocal.invalid"},
		{KindIP, "100.64.1.1", "ip4-HEX12.private.invalid"},
		{KindIP, "8.8.8.8", "ip4-HEX12.public.invalid"},
		{KindIP, "fd00::1", "ip6-HEX12.private.invalid"},
		{KindIP, "[fe80::1%eth0]:80", "ip6-HEX12.linklocal.invalid:80"},
		{KindIP, "224.0.0.1", "ip4-HEX12.other.invalid"},
		{KindEmail, "alice@example.com", "user-HEX12@host-HEX12.invalid"},
		{KindEmail, "Alice <Alice@Example.com>", "user-HEX12@host-HEX12.invalid"},
		{KindEmail, "not-an-address", "user-HEX12@unknown.invalid"},
		{KindPath, "/home/alice/acme/report.pdf", "/path-HEX12.pdf"},
		{KindPath, `C:\Users\alice\fw.bin`, `C:\path-HEX12.bin`},
		{KindPath, `\\fileserver\share\x.docx`, `\\path-HEX12.docx`},
		{KindPath, "/home/alice/", "/path-HEX12/"},
		{KindPath, "src/main.go", "path-HEX12.go"},
		{KindPath, "~/.ssh/id_rsa", "~/path-HEX12"},
		{KindURL, "https://u:p@api.example.com:8443/v1?k=v#f", "https://host-HEX12.invalid:8443/v1?k=REDACTED#REDACTED"},
		{KindURL, "http://10.0.0.5/admin", "http://ip4-HEX12.private.invalid/admin"},
		{KindURL, "http://[fd00::1]:8080/", "http://ip6-HEX12.private.invalid:8080/"},
		{KindURL, "file:///home/alice/x.txt", "file:///path-HEX12.txt"},
		{KindURL, "mailto:alice@example.com?subject=hi", "mailto:user-HEX12@host-HEX12.invalid?subject=REDACTED"},
	} {
		got := r.Field(c.kind, "", c.value)
		if !shapeMatch(c.want, got) {
			t.Errorf("Strict Field(%s, %q) = %q, want the shape %q", c.kind, c.value, got, c.want)
		}
		if c.kind == KindURL {
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
		{KindHost, "api.example.com"}, {KindIP, "10.0.0.5"}, {KindIP, "2001:db8::1"},
		{KindEmail, "alice@example.com"}, {KindPath, "/etc/shadow"},
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
	host := a.Field(KindHost, "", "api.example.com")
	if got := a.Field(KindURL, "", "https://API.example.com/x"); !strings.HasPrefix(got, "https://"+host+"/") {
		t.Errorf("the URL's host %q is not the host pseudonym %q", got, host)
	}
	if got := a.Field(KindHeader, "Host", "api.example.com"); got != host {
		t.Errorf("the Host header %q is not the host pseudonym %q", got, host)
	}
	if email := a.Field(KindEmail, "", "bob@api.example.com"); !strings.HasSuffix(email, "@"+host) {
		t.Errorf("the e-mail domain of %q is not the host pseudonym %q", email, host)
	}
	if got := a.Field(KindHost, "", "*.api.example.com"); got != "*."+host {
		t.Errorf("the wildcard %q is not \"*.\" and the host pseudonym %q", got, host)
	}
	if a.Field(KindHost, "", "a.example.com") == a.Field(KindHost, "", "b.example.com") {
		t.Error("two hosts share a pseudonym")
	}
	if a.Field(KindEmail, "", "alice@example.com") == a.Field(KindEmail, "", "bob@example.com") {
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
		r.Field(KindURL, "url", "https://app.example.com/api/v1/users/42")
		r.Field(KindHeader, "Server", "nginx")
		r.Field(KindHost, "host", "example.com")
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

// The SDK's privacy kinds and the redactor's are one list: a kind the SDK
// accepts that the redactor did not know would pass through unredacted.
func TestKindsMatchTheSDK(t *testing.T) {
	if got, want := Kinds(), tool.PrivacyKinds(); !slices.Equal(slices.Sorted(slices.Values(got)), want) {
		t.Errorf("redact kinds %v, SDK kinds %v", got, want)
	}
}
