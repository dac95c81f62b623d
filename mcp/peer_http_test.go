package mcp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/tool"
)

// TestPeerLegacyGETStreamHeadersPrompt is the regression test for a bug
// the official Go SDK found: a legacy session's GET stream withheld its
// response headers until the first keep-alive comment (15 s), and the
// SDK's Connect waits for those headers, so every legacy HTTP connection
// took 15 s to open.
func TestPeerLegacyGETStreamHeadersPrompt(t *testing.T) {
	fx := newPeerFixture(t)
	ts := httptest.NewServer(mcp.NewHTTPHandler(fx.srv, &mcp.HTTPOptions{KeepAlive: time.Hour}))
	t.Cleanup(ts.Close)

	sid := openLegacySession(t, http.DefaultClient, ts.URL+"/mcp")

	// The keep-alive is an hour away: headers that waited for it would
	// miss the deadline by far.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	get, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/mcp", nil)
	get.Header.Set("Accept", "text/event-stream")
	get.Header.Set("Mcp-Session-Id", sid)
	get.Header.Set("MCP-Protocol-Version", "2025-11-25")
	gresp, err := http.DefaultClient.Do(get)
	if err != nil {
		t.Fatalf("GET stream headers did not arrive within 20 s (keep-alive is 1 h): %v", err)
	}
	defer gresp.Body.Close()
	if gresp.StatusCode != 200 || !strings.HasPrefix(gresp.Header.Get("Content-Type"), "text/event-stream") {
		t.Errorf("GET stream: status %d, content type %q", gresp.StatusCode, gresp.Header.Get("Content-Type"))
	}
}

// TestPeerLegacyGETStreamKeepAlive: a legacy GET stream carries keep-alive
// comments and ends cleanly when the client leaves. Under -race this is
// the regression test for the keep-alive goroutine reading the sink's
// stop channel while finish cleared it.
func TestPeerLegacyGETStreamKeepAlive(t *testing.T) {
	fx := newPeerFixture(t)
	ts := httptest.NewServer(mcp.NewHTTPHandler(fx.srv, &mcp.HTTPOptions{KeepAlive: 5 * time.Millisecond}))
	t.Cleanup(ts.Close)
	sid := openLegacySession(t, http.DefaultClient, ts.URL+"/mcp")

	for range 5 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		get, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/mcp", nil)
		get.Header.Set("Accept", "text/event-stream")
		get.Header.Set("Mcp-Session-Id", sid)
		gresp, err := http.DefaultClient.Do(get)
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		buf := make([]byte, 0, 256)
		chunk := make([]byte, 64)
		for strings.Count(string(buf), ":\n\n") < 2 {
			n, err := gresp.Body.Read(chunk)
			buf = append(buf, chunk[:n]...)
			if err != nil {
				t.Fatalf("stream ended before two keep-alives: %v, got %q", err, buf)
			}
		}
		cancel()
		gresp.Body.Close()
	}
}

// TestPeerLegacyGETStreamHandover: when a client opens a new standalone
// GET stream before its old one has gone (a reconnect), the end of the old
// stream must not silence the new one.
func TestPeerLegacyGETStreamHandover(t *testing.T) {
	fx := newPeerFixture(t)
	h := mcp.NewHTTPHandler(fx.srv, nil)
	gotDone := make(chan struct{}, 2) // a GET stream's handler returned
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		if r.Method == "GET" {
			gotDone <- struct{}{}
		}
	}))
	t.Cleanup(ts.Close)
	sid := openLegacySession(t, http.DefaultClient, ts.URL+"/mcp")
	open := func(ctx context.Context) *http.Response {
		t.Helper()
		get, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/mcp", nil)
		get.Header.Set("Accept", "text/event-stream")
		get.Header.Set("Mcp-Session-Id", sid)
		r, err := http.DefaultClient.Do(get)
		if err != nil || r.StatusCode != 200 {
			t.Fatalf("GET: %v %v", err, r)
		}
		return r
	}
	oldCtx, closeOld := context.WithCancel(context.Background())
	old := open(oldCtx)
	newCtx, closeNew := context.WithTimeout(context.Background(), 10*time.Second)
	defer closeNew()
	fresh := open(newCtx)
	defer fresh.Body.Close()
	closeOld()
	old.Body.Close()
	select { // the server has let the old stream go
	case <-gotDone:
	case <-time.After(10 * time.Second):
		t.Fatal("the old GET stream's handler did not return")
	}

	got := make(chan string, 1)
	go func() {
		buf := make([]byte, 0, 1024)
		chunk := make([]byte, 256)
		for {
			n, err := fresh.Body.Read(chunk)
			buf = append(buf, chunk[:n]...)
			if strings.Contains(string(buf), "notifications/tools/list_changed") {
				got <- string(buf)
				return
			}
			if err != nil {
				got <- ""
				return
			}
		}
	}()
	tool.Add(fx.reg, peerDef("peer_handover", "Registered after the handover."),
		func(ctx context.Context, c *tool.Call, _ peerNone) (string, error) { return "", nil })
	select {
	case s := <-got:
		if s == "" {
			t.Error("the new stream ended without the list_changed notification")
		}
	case <-time.After(3 * time.Second):
		t.Error("the new GET stream did not receive list_changed after the old one closed")
	}
}

// TestPeerLegacyGETStreamLiveOnHeaders: once a legacy GET stream's
// headers have arrived, the stream receives the session's notifications.
// A client may act the moment it sees them (go-sdk's Connect returns), so
// a notification right after must not be lost to a stream not yet
// registered.
func TestPeerLegacyGETStreamLiveOnHeaders(t *testing.T) {
	fx := newPeerFixture(t)
	ts := httptest.NewServer(mcp.NewHTTPHandler(fx.srv, nil))
	t.Cleanup(ts.Close)
	post := func(sid, body string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	for i := range 40 {
		sid := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`).Header.Get("Mcp-Session-Id")
		post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		get, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/mcp", nil)
		get.Header.Set("Accept", "text/event-stream")
		get.Header.Set("Mcp-Session-Id", sid)
		gresp, err := http.DefaultClient.Do(get)
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		name := fmt.Sprintf("peer_live_%d", i)
		tool.Add(fx.reg, peerDef(name, "Registered as soon as the stream's headers arrived."),
			func(ctx context.Context, c *tool.Call, _ peerNone) (string, error) { return "", nil })
		got := make(chan bool, 1)
		go func() {
			buf := make([]byte, 0, 1024)
			chunk := make([]byte, 256)
			for {
				n, err := gresp.Body.Read(chunk)
				buf = append(buf, chunk[:n]...)
				if strings.Contains(string(buf), "notifications/tools/list_changed") {
					got <- true
					return
				}
				if err != nil {
					got <- false
					return
				}
			}
		}()
		select {
		case ok := <-got:
			if !ok {
				t.Fatalf("round %d: the stream ended without list_changed", i)
			}
		case <-time.After(10 * time.Second):
			cancel()
			t.Fatalf("round %d: list_changed sent right after the headers was lost", i)
		}
		cancel()
		gresp.Body.Close()
	}
}
