package safehttp

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestControlHook checks the dial-time policy as a table, without sockets.
func TestControlHook(t *testing.T) {
	c := New(&Options{AllowAddrPorts: []netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:8080")}})
	tests := []struct {
		network, addr string
		want          Code // "" = allowed
	}{
		{"tcp4", "93.184.215.14:80", ""},
		{"tcp4", "93.184.215.14:443", ""},
		{"tcp6", "[2606:4700:4700::1111]:443", ""},
		{"tcp4", "127.0.0.1:8080", ""}, // allowlisted pair
		{"tcp4", "127.0.0.1:80", CodeBlockedIP},
		{"tcp4", "127.0.0.2:8080", CodeBlockedPort},
		{"tcp4", "93.184.215.14:8080", CodeBlockedPort},
		{"tcp4", "169.254.169.254:80", CodeBlockedIP},
		{"tcp4", "10.0.0.1:443", CodeBlockedIP},
		{"tcp4", "168.63.129.16:80", CodeBlockedIP},
		{"tcp6", "[::1]:80", CodeBlockedIP},
		{"tcp6", "[::ffff:127.0.0.1]:80", CodeBlockedIP},
		{"tcp6", "[::ffff:127.0.0.1]:8080", CodeBlockedPort}, // the allowlist is exact
		{"tcp6", "[64:ff9b::a9fe:a9fe]:80", CodeBlockedIP},
		{"tcp6", "[fe80::1%lo]:80", CodeBlockedIP},
		{"udp4", "93.184.215.14:80", CodeScanFailed},
		{"tcp", "93.184.215.14:80", CodeScanFailed},
		{"tcp4", "not-an-address:80", CodeBlockedIP},
	}
	for _, tt := range tests {
		err := c.control(context.Background(), tt.network, tt.addr, nil)
		if got := ErrorCode(err); got != tt.want {
			t.Errorf("control(%s, %s) = %v, want %q", tt.network, tt.addr, err, tt.want)
		}
		var b *BlockedError
		if err != nil && errors.As(err, &b) && !b.AtDial {
			t.Errorf("control(%s): BlockedError.AtDial = false", tt.addr)
		}
	}
}

// TestControlHookBackstop simulates a pinning bug: addresses that never
// passed validation are handed to the dialer. The control hook must refuse
// them before connect, so the listener behind them sees nothing.
func TestControlHookBackstop(t *testing.T) {
	victim := newCountingListener(t, "127.0.0.2:0")
	port := victim.addrPort().Port()
	// Allow the victim's port on another address, so the port rule alone
	// does not decide.
	c, dials := newTestClient(&Options{AllowAddrPorts: []netip.AddrPort{netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), port)}})
	_, err := c.dialPinned(context.Background(), "tcp", []netip.Addr{victim.addrPort().Addr()}, port, nil)
	var b *BlockedError
	if ErrorCode(err) != CodeBlockedPort || !errors.As(err, &b) || !b.AtDial || b.Addr != victim.addrPort().Addr() {
		t.Errorf("dialPinned to unvalidated address: %v (%#v)", err, b)
	}
	// A host name dialled through the raw dialer is checked after
	// resolution, on the address actually dialled.
	c2, dials2 := newTestClient(nil)
	_, err = c2.dialer.DialContext(context.Background(), "tcp", fmt.Sprintf("localhost:%d", port))
	if code := ErrorCode(err); code != CodeBlockedPort && code != CodeBlockedIP {
		t.Errorf("raw dial of localhost: %v", err)
	}
	if n := victim.accepts.Load(); n != 0 {
		t.Errorf("victim accepted %d connections", n)
	}
	if d := append(dials.list(), dials2.list()...); len(d) != 0 {
		t.Errorf("dials let through: %v", d)
	}
}

// TestRebindingPinned (I15/I16): the resolver answers an allowed address
// first and a blocked one afterwards. The fetch looks the name up once per
// hop and dials the first answer only; the second hop's fresh lookup gets
// the blocked answer and is refused.
func TestRebindingPinned(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/again" {
			http.Redirect(w, r, "/", http.StatusFound)
			return
		}
		io.WriteString(w, "pinned")
	}))
	defer srv.Close()
	ap := serverAddrPort(t, srv)
	victim := newCountingListener(t, fmt.Sprintf("127.0.0.2:%d", ap.Port()))
	res := newFakeResolver().set("rebind.example.com", "127.0.0.1", "127.0.0.2")
	c, dials := newTestClient(&Options{AllowAddrPorts: []netip.AddrPort{ap}, Resolver: res})
	u := fmt.Sprintf("http://rebind.example.com:%d/", ap.Port())

	resp, err := c.Get(context.Background(), u, nil)
	if err != nil || string(resp.Body) != "pinned" {
		t.Fatalf("first fetch: %v", err)
	}
	if n := res.count("rebind.example.com"); n != 1 {
		t.Errorf("%d lookups for one hop, want 1", n)
	}
	// The redirect is a new hop: a new lookup, now answering 127.0.0.2.
	_, err = c.Get(context.Background(), u+"again", nil)
	var b *BlockedError
	if ErrorCode(err) != CodeBlockedPort || !errors.As(err, &b) || b.Addr.String() != "127.0.0.2" {
		t.Errorf("rebound hop: %v", err)
	}
	if n := victim.accepts.Load(); n != 0 {
		t.Errorf("rebinding target accepted %d connections", n)
	}
	for _, d := range dials.list() {
		if d != ap {
			t.Errorf("dialled %v", d)
		}
	}
}

func tlsPool(srv *httptest.Server) *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	return pool
}

func TestHTTPSWithNameAndSNI(t *testing.T) {
	var sni string
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sni = r.TLS.ServerName
		io.WriteString(w, "secure")
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	defer srv.Close()
	ap := serverAddrPort(t, srv)
	res := newFakeResolver().set("www.example.com", "127.0.0.1")
	u := fmt.Sprintf("https://www.example.com:%d/", ap.Port())

	c, _ := newTestClient(&Options{AllowAddrPorts: []netip.AddrPort{ap}, Resolver: res, RootCAs: tlsPool(srv)})
	resp, err := c.Get(context.Background(), u, nil)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if resp.TLS == nil || sni != "www.example.com" || string(resp.Body) != "secure" {
		t.Errorf("TLS %v, SNI %q, body %q", resp.TLS != nil, sni, resp.Body)
	}
	if resp.Timings.Connect <= 0 || resp.Timings.TLS <= 0 || resp.Timings.Total <= 0 {
		t.Errorf("timings not measured: %+v", resp.Timings)
	}

	// Unknown CA: tls_failed, unless the caller grades posture and skips
	// verification.
	c2, _ := newTestClient(&Options{AllowAddrPorts: []netip.AddrPort{ap}, Resolver: res})
	if _, err := c2.Get(context.Background(), u, nil); ErrorCode(err) != CodeTLSFailed {
		t.Errorf("untrusted certificate: %v, want %s", err, CodeTLSFailed)
	}
	resp, err = c2.Get(context.Background(), u, &FetchOptions{InsecureSkipVerify: true})
	if err != nil || len(resp.TLS.PeerCertificates) == 0 {
		t.Errorf("InsecureSkipVerify: %v", err)
	}
}

func TestDialContext(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	ap := serverAddrPort(t, srv)
	res := newFakeResolver().set("www.example.com", "127.0.0.1").set("v6only.example.com", "2606:4700:4700::1111")
	c, dials := newTestClient(&Options{AllowAddrPorts: []netip.AddrPort{ap}, Resolver: res})

	for _, addr := range []string{ap.String(), fmt.Sprintf("www.example.com:%d", ap.Port())} {
		conn, err := c.DialContext(context.Background(), "tcp", addr)
		if err != nil {
			t.Fatalf("DialContext(%s): %v", addr, err)
		}
		tc := tls.Client(conn, &tls.Config{RootCAs: tlsPool(srv), ServerName: "example.com", MinVersion: tls.VersionTLS12})
		if err := tc.HandshakeContext(context.Background()); err != nil {
			t.Errorf("handshake over %s: %v", addr, err)
		}
		tc.Close()
	}
	tests := []struct {
		network, addr string
		want          Code
	}{
		{"udp", ap.String(), CodeInvalidTarget},
		{"tcp", "127.0.0.1", CodeInvalidTarget},
		{"tcp", "user@www.example.com:443", CodeInvalidTarget},
		{"tcp", "www.example.com/x:443", CodeInvalidTarget},
		{"tcp", "[fe80::1%lo]:443", CodeInvalidTarget},
		{"tcp", "localhost:443", CodeBlockedHostname},
		{"tcp", "[::1]:443", CodeBlockedIP},
		{"tcp", "2130706433:443", CodeBlockedIP},
		{"tcp", "169.254.169.254:80", CodeBlockedIP},
		{"tcp", "www.example.com:22", CodeBlockedPort},
		{"tcp", "127.0.0.2:" + fmt.Sprint(ap.Port()), CodeBlockedPort},
		{"tcp4", "v6only.example.com:443", CodeDNSResolutionFailed},
		{"tcp", "nx.example.com:443", CodeDNSResolutionFailed},
	}
	before := len(dials.list())
	for _, tt := range tests {
		_, err := c.DialContext(context.Background(), tt.network, tt.addr)
		if got := ErrorCode(err); got != tt.want {
			t.Errorf("DialContext(%s, %s) = %v, want %s", tt.network, tt.addr, err, tt.want)
		}
	}
	if d := dials.list(); len(d) != before {
		t.Errorf("refused dials reached the dialer: %v", d[before:])
	}
}

func TestHTTPClientRevalidates(t *testing.T) {
	victim := newCountingListener(t, "127.0.0.2:0")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	}))
	defer srv.Close()
	ap := serverAddrPort(t, srv)
	c, _ := newTestClient(&Options{AllowAddrPorts: []netip.AddrPort{ap}})
	hc := c.HTTPClient()
	if hc.Jar != nil {
		t.Error("HTTPClient has a cookie jar")
	}
	for to, want := range map[string]Code{
		"http://127.0.0.2/":                    CodeBlockedIP,
		"http://" + victim.addrPort().String(): CodeBlockedPort,
		"http://metadata.google.internal/":     CodeBlockedHostname,
	} {
		_, err := hc.Get(srv.URL + "/?to=" + urlQueryEscape(to))
		if got := ErrorCode(err); got != want {
			t.Errorf("redirect to %s: %v, want %s", to, err, want)
		}
	}
	// A redirect loop stops after MaxRedirects.
	loop := srv.URL + "/?to=" + urlQueryEscape(srv.URL+"/?to=/")
	if _, err := hc.Get(loop); ErrorCode(err) != CodeTooManyRedirects {
		t.Errorf("loop: %v, want %s", err, CodeTooManyRedirects)
	}
	if _, err := hc.Get("http://127.0.0.1/"); ErrorCode(err) != CodeBlockedIP {
		t.Errorf("direct: %v", err)
	}
	if n := victim.accepts.Load(); n != 0 {
		t.Errorf("victim accepted %d", n)
	}
}

// TestHTTPClientWithoutRedirects is the webscan wiring: a caller that
// follows redirects itself gets the 3xx, and its own next request is
// validated like any other. Methods that change state are refused.
func TestHTTPClientWithoutRedirects(t *testing.T) {
	victim := newCountingListener(t, "127.0.0.2:0")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
	}))
	defer srv.Close()
	c, dials := newTestClient(&Options{AllowAddrPorts: []netip.AddrPort{serverAddrPort(t, srv)}})
	hc := c.HTTPClient()
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	for _, method := range []string{http.MethodGet, http.MethodHead, http.MethodOptions} {
		req, _ := http.NewRequest(method, srv.URL+"/", nil)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusFound {
			t.Errorf("%s: status %d, want 302", method, resp.StatusCode)
		}
		next, err := resp.Request.URL.Parse(resp.Header.Get("Location"))
		if err != nil {
			t.Fatal(err)
		}
		req2, _ := http.NewRequest(method, next.String(), nil)
		if _, err := hc.Do(req2); ErrorCode(err) != CodeBlockedIP {
			t.Errorf("%s to %s: %v, want %s", method, next, err, CodeBlockedIP)
		}
	}
	for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, "PATCH", "CONNECT"} {
		req, _ := http.NewRequest(method, srv.URL+"/", strings.NewReader("x"))
		if _, err := hc.Do(req); ErrorCode(err) != CodeScanFailed {
			t.Errorf("%s: %v, want %s", method, err, CodeScanFailed)
		}
	}
	if _, err := hc.Get("http://" + victim.addrPort().String() + "/"); ErrorCode(err) != CodeBlockedPort {
		t.Errorf("direct to victim: %v", err)
	}
	if n := victim.accepts.Load(); n != 0 {
		t.Errorf("victim accepted %d", n)
	}
	for _, d := range dials.list() {
		if d != serverAddrPort(t, srv) {
			t.Errorf("dialled %v", d)
		}
	}
}

func TestFetchRequiresOwnTarget(t *testing.T) {
	c := New(nil)
	forged := &Target{Host: "127.0.0.1", Port: 80, Addrs: []netip.Addr{netip.MustParseAddr("127.0.0.1")}}
	if _, err := c.Fetch(context.Background(), forged, nil); ErrorCode(err) != CodeInvalidTarget {
		t.Errorf("forged target: %v", err)
	}
	other, _ := New(&Options{Resolver: newFakeResolver().set("example.com", "93.184.215.14")}).Validate(context.Background(), "http://example.com/")
	if _, err := c.Fetch(context.Background(), other, nil); ErrorCode(err) != CodeInvalidTarget {
		t.Errorf("other client's target: %v", err)
	}
	if _, err := c.Fetch(context.Background(), nil, nil); ErrorCode(err) != CodeInvalidTarget {
		t.Errorf("nil target: %v", err)
	}
}

func TestFetchMethodsAndHeaders(t *testing.T) {
	type seen struct{ method, auth, extra, host string }
	var got []seen
	srvB := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, seen{r.Method, r.Header.Get("Authorization"), r.Header.Get("X-Extra"), r.Host})
	}))
	defer srvB.Close()
	bp := serverAddrPort(t, srvB).Port()
	srvA := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, seen{r.Method, r.Header.Get("Authorization"), r.Header.Get("X-Extra"), r.Host})
		if r.URL.Path == "/go" {
			http.Redirect(w, r, fmt.Sprintf("http://b.example.com:%d/", bp), http.StatusSeeOther)
		}
	}))
	defer srvA.Close()
	ap := serverAddrPort(t, srvA)
	res := newFakeResolver().set("a.example.com", "127.0.0.1").set("b.example.com", "127.0.0.1")
	c, _ := newTestClient(&Options{AllowAddrPorts: []netip.AddrPort{ap, serverAddrPort(t, srvB)}, Resolver: res})
	h := http.Header{"Authorization": {"Bearer x"}, "X-Extra": {"1"}, "Host": {"evil.example"}, "User-Agent": {"spoof"}}
	resp, err := c.Get(context.Background(), fmt.Sprintf("http://a.example.com:%d/go", ap.Port()), &FetchOptions{Method: http.MethodOptions, Header: h})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || len(resp.Redirects) != 1 {
		t.Fatalf("requests %+v, hops %+v", got, resp.Redirects)
	}
	if got[0].method != "OPTIONS" || got[0].auth != "Bearer x" || !strings.HasPrefix(got[0].host, "a.example.com") {
		t.Errorf("first request %+v", got[0])
	}
	if got[1].method != "GET" || got[1].auth != "" || got[1].extra != "1" {
		t.Errorf("after cross-host 303: %+v", got[1])
	}
	if _, err := c.Get(context.Background(), srvA.URL, &FetchOptions{Method: http.MethodPost}); ErrorCode(err) != CodeScanFailed {
		t.Errorf("POST: %v", err)
	}
}

func TestDeadlines(t *testing.T) {
	trickle := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for { // K03: one byte at a time, for ever
			if _, err := w.Write([]byte("x")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}))
	defer trickle.Close()
	c, _ := newTestClient(&Options{AllowAddrPorts: []netip.AddrPort{serverAddrPort(t, trickle)}, FetchTimeout: 300 * time.Millisecond})
	start := time.Now()
	if _, err := c.Get(context.Background(), trickle.URL, nil); ErrorCode(err) != CodeTimeout {
		t.Errorf("trickle: %v, want %s", err, CodeTimeout)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("fetch deadline took %v", d)
	}
	// The caller's own deadline applies too.
	c2, _ := newTestClient(&Options{AllowAddrPorts: []netip.AddrPort{serverAddrPort(t, trickle)}})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := c2.Get(ctx, trickle.URL, nil); ErrorCode(err) != CodeTimeout {
		t.Errorf("caller deadline: %v", err)
	}
}

// TestDialContextCallerDeadline: a deadline set by the caller of
// DialContext is not pushed back by the idle timeout of each read.
func TestDialContextCallerDeadline(t *testing.T) {
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu   sync.Mutex
		held []net.Conn // accepted and never written to
	)
	go func() {
		for {
			conn, err := silent.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, conn)
			mu.Unlock()
		}
	}()
	defer func() {
		silent.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, conn := range held {
			conn.Close()
		}
	}()
	ap := netip.MustParseAddrPort(silent.Addr().String())
	c, _ := newTestClient(&Options{AllowAddrPorts: []netip.AddrPort{ap}}) // read timeout: the 15 s default
	conn, err := c.DialContext(context.Background(), "tcp", ap.String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(100 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = conn.Read(make([]byte, 1))
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("Read = %v, want a timeout", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("caller deadline ignored: Read took %v", d)
	}
}

func TestGzipBombCapped(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(make([]byte, 8<<20)) // 8 MiB of zeros, ~8 KiB compressed
	zw.Close()
	bomb := buf.Bytes()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(bomb)
	}))
	defer srv.Close()
	c, _ := newTestClient(&Options{AllowAddrPorts: []netip.AddrPort{serverAddrPort(t, srv)}})
	resp, err := c.Get(context.Background(), srv.URL, nil) // K05
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Body) != MaxBodyBytes || !resp.Truncated {
		t.Errorf("decoded body %d bytes, truncated %v", len(resp.Body), resp.Truncated)
	}
}
