package mcp_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/warden-mcp/warden/mcp"
)

// callerFromHeader stands in for authentication: the caller is named by a
// test header, as the policy layer names it from the verified token.
func callerFromHeader(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c := r.Header.Get("X-Test-Caller"); c != "" {
			r = r.WithContext(mcp.WithCaller(r.Context(), c))
		}
		next.ServeHTTP(w, r)
	})
}

// stalledPost opens a connection and sends a POST whose body never
// arrives in full: its headers announce 100 bytes, 10 are sent.
func stalledPost(t *testing.T, addr, caller string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json\r\n"+
		"X-Test-Caller: %s\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\"", addr, caller)
	return c
}

// TestHostileStalledBodiesHoldNoSlot reproduces the lock-out of issue
// defect 2: three credentials open more stalled bodies than there are
// in-flight slots. Before the fix the slot was taken before the body was
// read, and everyone else got 503 until the read timed out. Now each
// caller's share bounds its stalled requests (the extra ones are refused
// at once), stalled bodies take no server-wide slot, and a fourth caller
// is served.
func TestHostileStalledBodiesHoldNoSlot(t *testing.T) {
	fx := newPeerFixture(t)
	ts := httptest.NewServer(mcp.NewHTTPHandler(fx.srv, &mcp.HTTPOptions{
		MaxInFlight: 4, // a share of 1 per caller
		Wrap:        callerFromHeader,
	}))
	t.Cleanup(ts.Close)
	addr := ts.Listener.Addr().String()
	for _, caller := range []string{"a", "b", "c"} {
		// Four stalled requests at once: one holds the caller's share
		// while its body stalls, the other three are refused at once.
		statuses := make(chan int, 4)
		for range 4 {
			c := stalledPost(t, addr, caller)
			go func() { statuses <- readStatusQuiet(c) }()
		}
		for range 3 {
			if got := <-statuses; got != http.StatusServiceUnavailable {
				t.Fatalf("caller %s, request beyond its share: %d, want 503", caller, got)
			}
		}
	}
	r := validList()
	r.header = with(r.header, "X-Test-Caller", "d")
	if status, body, code := send(t, ts, r); status != http.StatusOK || code != 0 {
		t.Fatalf("a fourth caller was locked out: %d %s", status, trunc(body))
	}
}

// readStatusQuiet reads the status of the response on c, 0 if none came.
func readStatusQuiet(c net.Conn) int {
	_ = c.SetReadDeadline(time.Now().Add(60 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestHostileBodyReadTimeout: a body that does not arrive within
// BodyReadTimeout is answered 408 and the connection closed; the server
// serves the next request.
func TestHostileBodyReadTimeout(t *testing.T) {
	fx := newPeerFixture(t)
	ts := httptest.NewServer(mcp.NewHTTPHandler(fx.srv, &mcp.HTTPOptions{BodyReadTimeout: 50 * time.Millisecond}))
	t.Cleanup(ts.Close)
	c := stalledPost(t, ts.Listener.Addr().String(), "")
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no response: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(body), `"request_timeout"`) {
		t.Fatalf("stalled body: %d %s, want 408 request_timeout", resp.StatusCode, body)
	}
	if status, body, code := send(t, ts, validList()); status != http.StatusOK || code != 0 {
		t.Fatalf("after a timed-out body: %d %s", status, trunc(body))
	}
}

// TestHostileSessionShare: one caller cannot take every legacy session;
// another caller still opens one.
func TestHostileSessionShare(t *testing.T) {
	fx := newPeerFixture(t)
	ts := httptest.NewServer(mcp.NewHTTPHandler(fx.srv, &mcp.HTTPOptions{MaxSessions: 16, Wrap: callerFromHeader}))
	t.Cleanup(ts.Close)
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`
	open := func(caller string) int {
		h := http.Header{"Content-Type": {"application/json"}, "X-Test-Caller": {caller}}
		status, _, _ := send(t, ts, post(h, init))
		return status
	}
	for i := range 2 { // 16/8
		if got := open("greedy"); got != http.StatusOK {
			t.Fatalf("session %d of the greedy caller: %d", i, got)
		}
	}
	if got := open("greedy"); got != http.StatusServiceUnavailable {
		t.Fatalf("session beyond the caller's share: %d, want 503", got)
	}
	if got := open("other"); got != http.StatusOK {
		t.Fatalf("another caller locked out of sessions: %d", got)
	}
}
