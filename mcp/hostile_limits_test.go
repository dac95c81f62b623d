package mcp_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/warden-mcp/warden/mcp"
)

// TestHostileBusy: past MaxInFlight the handler answers 503 with
// Retry-After at once instead of queueing, and serves again when calls
// finish.
func TestHostileBusy(t *testing.T) {
	fx := newPeerFixture(t)
	h := mcp.NewHTTPHandler(fx.srv, &mcp.HTTPOptions{MaxInFlight: 2})
	served := make(chan struct{}, 8) // a request's handler returned, its slot free
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		served <- struct{}{}
	}))
	t.Cleanup(ts.Close)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	block := modernBody("1", "tools/call", `"name":"peer_block"`)
	done := make(chan struct{}, 2)
	for range 2 {
		go func() {
			defer func() { done <- struct{}{} }()
			req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/mcp", strings.NewReader(block))
			req.Header = with(modernHeaders("tools/call"), "Mcp-Name", "peer_block")
			if resp, err := ts.Client().Do(req); err == nil {
				resp.Body.Close()
			}
		}()
	}
	for range 2 {
		select {
		case <-fx.blockStarted:
		case <-time.After(10 * time.Second):
			t.Fatal("the blocking calls did not start")
		}
	}
	req, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(validListBody()))
	req.Header = modernHeaders("tools/list")
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "1" || !strings.Contains(string(body), `"data":{"retryAfterSeconds":1}`) {
		t.Errorf("third request: %d, Retry-After %q, %s; want 503 with Retry-After and retryAfterSeconds", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	<-served // the refused request
	cancel() // the clients leave; their calls end
	for range 2 {
		<-fx.blockDone
		<-done
		<-served
	}
	if status, body, code := send(t, ts, validList()); status != 200 || code != 0 {
		t.Fatalf("still refused after the calls ended: %d %s", status, trunc(body))
	}
}

func validListBody() string { return modernBody("1", "tools/list", "") }

// TestHostileSessionCap: legacy sessions are capped; past the cap
// initialize is refused with 503, and deleting a session makes room.
func TestHostileSessionCap(t *testing.T) {
	fx := newPeerFixture(t)
	ts := httptest.NewServer(mcp.NewHTTPHandler(fx.srv, &mcp.HTTPOptions{MaxSessions: 3}))
	t.Cleanup(ts.Close)
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`
	h := http.Header{"Content-Type": {"application/json"}}
	var sids []string
	for i := range 4 {
		req, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(init))
		req.Header = h.Clone()
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		switch {
		case i < 3 && resp.StatusCode == 200:
			sids = append(sids, resp.Header.Get("Mcp-Session-Id"))
		case i == 3 && resp.StatusCode == http.StatusServiceUnavailable:
			if !strings.Contains(string(body), `"data":{"retryAfterSeconds":5}`) || resp.Header.Get("Retry-After") != "5" {
				t.Errorf("session cap refusal without its retry hint: %s", body)
			}
		default:
			t.Fatalf("initialize %d: status %d", i, resp.StatusCode)
		}
	}
	del, _ := http.NewRequest("DELETE", ts.URL+"/mcp", nil)
	del.Header.Set("Mcp-Session-Id", sids[0])
	resp, err := ts.Client().Do(del)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %d", resp.StatusCode)
	}
	req, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(init))
	req.Header = h.Clone()
	resp, err = ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("initialize after DELETE: %d", resp.StatusCode)
	}
}
