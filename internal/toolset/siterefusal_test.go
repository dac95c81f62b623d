package toolset

import (
	"context"
	"net/netip"
	"strings"
	"testing"

	"github.com/warden-mcp/warden/safehttp"
	"github.com/warden-mcp/warden/tool/tooltest"
)

// Each refusal says what it refused and why, and a tool result never
// names an address that DNS returned.
func TestScanWebsiteRefusalsExplain(t *testing.T) {
	reg := registryWith(t, Deps{SafeHTTP: &safehttp.Options{Resolver: fixedResolver{
		"intranet.example.com.": netip.MustParseAddr("10.20.30.40"),
		"rebind.example.com.":   netip.MustParseAddr("127.0.0.53"),
	}}})
	for _, c := range []struct{ url, want string }{
		{"http://127.0.0.1/", "blocked_ip: the target's address is a loopback address; Warden's website scans never reach private, loopback, link-local or cloud-metadata addresses"},
		{"http://10.0.0.1/", "blocked_ip: the target's address is a private-network address"},
		{"http://169.254.169.254/", "blocked_ip: the target's address is a cloud-metadata endpoint"},
		{"http://intranet.example.com/", "blocked_ip: the target's address is a private-network address"},
		{"http://rebind.example.com/", "blocked_ip: the target's address is a loopback address"},
		{"http://localhost/", "blocked_hostname: localhost is a loopback name; Warden's website scans reach public host names only"},
		{"http://printer.local/", "blocked_hostname: printer.local is a special-use name that only resolves locally"},
		{"http://localhost:3000/", "blocked_port: port 3000 is not scanned; Warden's website scans reach ports 80 and 443 only"},
		{"example.com", "invalid_scheme: only http and https URLs are scanned; did you mean https://example.com?"},
		{"localhost:3000", "invalid_scheme: only http and https URLs are scanned; did you mean http://localhost:3000?"},
		{"ftp://example.com/", "invalid_scheme: only http and https URLs are allowed"},
	} {
		rep, err := tooltest.Invoke(context.Background(), reg, "microdefend_scan_website", `{"url":"`+c.url+`"}`, nil)
		if err != nil {
			t.Fatal(err)
		}
		text := rep.Result.Content[0].Text
		if !strings.HasPrefix(text, c.want) {
			t.Errorf("%s:\n got %q\nwant %q", c.url, text, c.want)
		}
		for _, leak := range []string{"10.20.30.40", "127.0.0.53"} {
			if strings.Contains(string(rep.Raw), leak) {
				t.Errorf("%s: the resolved address %s reached the result: %s", c.url, leak, rep.Raw)
			}
		}
	}
}

func TestSuggestURL(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"example.com", "https://example.com", true},
		{"example.com/login?x=1", "https://example.com/login?x=1", true},
		{"//example.com", "https://example.com", true},
		{"localhost:3000", "http://localhost:3000", true},
		{"localhost", "http://localhost", true},
		{"127.0.0.1:8080", "http://127.0.0.1:8080", true},
		{"192.168.1.5", "http://192.168.1.5", true},
		{"8.8.8.8", "https://8.8.8.8", true},
		{"ftp://example.com", "", false},
		{"hello", "", false},
		{"user@example.com", "", false},
		{"", "", false},
		{"a b.com", "", false},
		{strings.Repeat("a", 300) + ".com", "", false},
	} {
		got, ok := SuggestURL(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("SuggestURL(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}
