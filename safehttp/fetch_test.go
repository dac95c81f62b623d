package safehttp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"
)

func serverAddrPort(t *testing.T, srv *httptest.Server) netip.AddrPort {
	t.Helper()
	return netip.MustParseAddrPort(srv.Listener.Addr().String())
}

func TestGetAllowedServer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Cookie") != "" {
			t.Errorf("unexpected cookie %q", r.Header.Get("Cookie"))
		}
		w.Header().Set("X-UA", r.UserAgent())
		w.Header().Set("Set-Cookie", "sess=1")
		fmt.Fprint(w, "hello")
	}))
	defer srv.Close()
	ap := serverAddrPort(t, srv)
	c, log := newTestClient(&Options{AllowAddrPorts: []netip.AddrPort{ap}, Resolver: newFakeResolver()})
	for i := 0; i < 2; i++ { // the second request must not carry the cookie
		resp, err := c.Get(context.Background(), srv.URL+"/x", nil)
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		if resp.Status != 200 || string(resp.Body) != "hello" || resp.Truncated {
			t.Errorf("got %d %q truncated=%v", resp.Status, resp.Body, resp.Truncated)
		}
		if got := resp.Header.Get("X-UA"); got != DefaultUserAgent {
			t.Errorf("User-Agent = %q", got)
		}
		if resp.RemoteAddr != ap {
			t.Errorf("RemoteAddr = %v, want %v", resp.RemoteAddr, ap)
		}
		if resp.FinalURL.String() != srv.URL+"/x" {
			t.Errorf("FinalURL = %v", resp.FinalURL)
		}
	}
	if got := log.list(); len(got) != 2 || got[0] != ap {
		t.Errorf("dials = %v, want two to %v", got, ap)
	}
}

// TestProductionClientRefusesLoopback: New(nil) must refuse a live loopback
// server, whichever way it is spelt, and never connect to it.
func TestProductionClientRefusesLoopback(t *testing.T) {
	cl := newCountingListener(t, "127.0.0.1:0")
	port := cl.addrPort().Port()
	c := New(nil)
	var dials dialLog
	c.testDialed = dials.record
	tests := []struct {
		url  string
		want Code
	}{
		{fmt.Sprintf("http://127.0.0.1:%d/", port), CodeBlockedPort},
		{fmt.Sprintf("http://2130706433:%d/", port), CodeBlockedPort},
		{fmt.Sprintf("http://localhost:%d/", port), CodeBlockedPort},
		{"http://127.0.0.1/", CodeBlockedIP},
		{"https://127.0.0.1/", CodeBlockedIP},
		{"http://[::1]/", CodeBlockedIP},
		{"http://0x7f.1/", CodeBlockedIP},
		{"http://localhost/", CodeBlockedHostname},
	}
	for _, tt := range tests {
		_, err := c.Get(context.Background(), tt.url, nil)
		if got := codeOf(err); got != tt.want {
			t.Errorf("Get(%s) = %v, want %s", tt.url, err, tt.want)
		}
		if _, err := c.DialContext(context.Background(), "tcp", strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(tt.url, "http://"), "https://"), "/")); err == nil {
			t.Errorf("DialContext(%s) succeeded", tt.url)
		}
	}
	if n := cl.accepts.Load(); n != 0 {
		t.Errorf("counting listener accepted %d connections", n)
	}
	if d := dials.list(); len(d) != 0 {
		t.Errorf("dials attempted: %v", d)
	}
}

// TestRedirectsRevalidated: an allowed server redirecting to blocked targets
// is stopped at the redirect, and nothing reaches the blocked listener.
func TestRedirectsRevalidated(t *testing.T) {
	blocked := newCountingListener(t, "127.0.0.2:0")
	bport := blocked.addrPort().Port()
	var target string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		code := http.StatusFound
		if c := r.URL.Query().Get("code"); c != "" {
			fmt.Sscan(c, &code)
		}
		http.Redirect(w, r, r.URL.Query().Get("to"), code)
	}))
	defer srv.Close()
	_ = target
	ap := serverAddrPort(t, srv)
	res := newFakeResolver().
		set("private.example.com", "10.0.0.1").
		set("blocked.example.com", "127.0.0.2").
		set("meta.example.com", "169.254.169.254")
	// The allowlist names the allowed server and, to get past the port
	// rule, the blocked listener's port on the allowed address only.
	c, log := newTestClient(&Options{
		AllowAddrPorts: []netip.AddrPort{ap, netip.AddrPortFrom(ap.Addr(), bport)},
		Resolver:       res,
	})
	tests := []struct {
		to   string
		code string
		want Code
	}{
		{"http://127.0.0.2/", "", CodeBlockedIP},                                         // J01
		{fmt.Sprintf("http://127.0.0.2:%d/", bport), "", CodeBlockedPort},                // the listener itself
		{"http://[::ffff:169.254.169.254]/", "", CodeBlockedIP},                          // J02
		{"http://2130706433/", "", CodeBlockedIP},                                        // J03
		{"http://metadata.google.internal/computeMetadata/v1/", "", CodeBlockedHostname}, // J04
		{"//127.0.0.2/", "", CodeBlockedIP},                                              // J05
		{"file:///etc/passwd", "", CodeInvalidScheme},                                    // J06
		{"gopher://127.0.0.1:6379/_x", "", CodeInvalidScheme},                            // J06
		{"https://example.com:8443/", "", CodeBlockedPort},                               // J07
		{"http://user:pass@example.com/", "", CodeCredentialsInURL},                      // J08
		{"http://169.254.169.254/", "307", CodeBlockedIP},                                // J09
		{"http://169.254.169.254/", "308", CodeBlockedIP},                                // J09
		{"http://private.example.com/", "", CodeBlockedIP},                               // J11
		{fmt.Sprintf("http://blocked.example.com:%d/", bport), "301", CodeBlockedPort},
		{"http://meta.example.com/", "303", CodeBlockedIP},
		{"http://localhost/", "", CodeBlockedHostname},
		{"http://[fe80::1%25lo]/", "", CodeInvalidTarget},
	}
	for _, tt := range tests {
		t.Run(tt.to, func(t *testing.T) {
			u := srv.URL + "/?to=" + urlQueryEscape(tt.to) + "&code=" + tt.code
			_, err := c.Get(context.Background(), u, nil)
			if got := codeOf(err); got != tt.want {
				t.Fatalf("Get = %v, want %s", err, tt.want)
			}
			if e, ok := AsError(err); !ok || ErrorHop(err) != 1 || e.Details["hop"] != 1 {
				t.Errorf("error hop = %d (%+v), want 1", ErrorHop(err), e)
			}
		})
	}
	if n := blocked.accepts.Load(); n != 0 {
		t.Errorf("blocked listener accepted %d connections", n)
	}
	for _, d := range log.list() {
		if d != ap {
			t.Errorf("dialled %v; only %v is allowed", d, ap)
		}
	}
}

func urlQueryEscape(s string) string {
	r := strings.NewReplacer("%", "%25", "&", "%26", "?", "%3F", "#", "%23", "+", "%2B", " ", "%20")
	return r.Replace(s)
}

func TestRedirectChainAndLimit(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscan(strings.TrimPrefix(r.URL.Path, "/"), &n)
		if n > 0 {
			http.Redirect(w, r, fmt.Sprintf("/%d", n-1), http.StatusMovedPermanently)
			return
		}
		fmt.Fprint(w, "done")
	}))
	defer srv.Close()
	c, _ := newTestClient(&Options{AllowAddrPorts: []netip.AddrPort{serverAddrPort(t, srv)}})
	resp, err := c.Get(context.Background(), srv.URL+"/3", nil)
	if err != nil {
		t.Fatalf("3 redirects: %v", err)
	}
	if string(resp.Body) != "done" || len(resp.Redirects) != 3 {
		t.Fatalf("body %q, %d hops", resp.Body, len(resp.Redirects))
	}
	if h := resp.Redirects[0]; h.URL != srv.URL+"/3" || h.Status != 301 || h.Location != "/2" {
		t.Errorf("hop 0 = %+v", h)
	}
	_, err = c.Get(context.Background(), srv.URL+"/4", nil) // J12
	if got := codeOf(err); got != CodeTooManyRedirects {
		t.Errorf("4 redirects: %v, want %s", err, CodeTooManyRedirects)
	}
	resp, err = c.Get(context.Background(), srv.URL+"/4", &FetchOptions{NoRedirects: true})
	if err != nil || resp.Status != 301 || len(resp.Redirects) != 0 {
		t.Errorf("NoRedirects: %v %+v", err, resp)
	}
	// J13: a Location longer than the URL cap.
	long := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "/"+strings.Repeat("a", MaxURLLength))
		w.WriteHeader(http.StatusFound)
	}))
	defer long.Close()
	c2, _ := newTestClient(&Options{AllowAddrPorts: []netip.AddrPort{serverAddrPort(t, long)}})
	if _, err := c2.Get(context.Background(), long.URL, nil); codeOf(err) != CodeURLTooLong {
		t.Errorf("long Location: %v", err)
	}
}

func TestBodyCap(t *testing.T) {
	big := strings.Repeat("x", MaxBodyBytes+1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, big)
	}))
	defer srv.Close()
	c, _ := newTestClient(&Options{AllowAddrPorts: []netip.AddrPort{serverAddrPort(t, srv)}})
	resp, err := c.Get(context.Background(), srv.URL, nil) // K04
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Body) != MaxBodyBytes || !resp.Truncated {
		t.Errorf("len %d truncated %v, want %d true", len(resp.Body), resp.Truncated, MaxBodyBytes)
	}
	resp, err = c.Get(context.Background(), srv.URL, &FetchOptions{MaxBodyBytes: 10})
	if err != nil || len(resp.Body) != 10 || !resp.Truncated {
		t.Errorf("per-fetch cap: %v len %d", err, len(resp.Body))
	}
	// HTTPClient fails loudly past the cap instead of truncating.
	hc := c.HTTPClient()
	r, err := hc.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, err := io.ReadAll(r.Body)
	if codeOf(err) != CodeResponseTooLarge || len(b) != MaxBodyBytes {
		t.Errorf("HTTPClient read: %d bytes, %v", len(b), err)
	}
}

func TestReadTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // K01: accept, never answer
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	c, _ := newTestClient(&Options{
		AllowAddrPorts: []netip.AddrPort{serverAddrPort(t, srv)},
		ReadTimeout:    100 * time.Millisecond,
	})
	start := time.Now()
	_, err := c.Get(context.Background(), srv.URL, nil)
	if codeOf(err) != CodeTimeout {
		t.Errorf("got %v, want %s", err, CodeTimeout)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestProxyEnvironmentIgnored(t *testing.T) {
	proxy := newCountingListener(t, "127.0.0.1:0")
	t.Setenv("HTTP_PROXY", "http://"+proxy.addrPort().String())
	t.Setenv("HTTPS_PROXY", "http://"+proxy.addrPort().String())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "direct") }))
	defer srv.Close()
	c, _ := newTestClient(&Options{AllowAddrPorts: []netip.AddrPort{serverAddrPort(t, srv)}})
	resp, err := c.Get(context.Background(), srv.URL, nil) // K06
	if err != nil || string(resp.Body) != "direct" {
		t.Fatalf("Get: %v", err)
	}
	if _, err := c.HTTPClient().Get(srv.URL); err != nil {
		t.Fatalf("HTTPClient: %v", err)
	}
	if n := proxy.accepts.Load(); n != 0 {
		t.Errorf("proxy saw %d connections", n)
	}
}
