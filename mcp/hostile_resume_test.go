package mcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/warden-mcp/warden/mcp"
)

// TestHostileLastEventID: a legacy GET stream with any Last-Event-ID -
// malformed, out of range, naming a stream that does not exist - opens as
// a stream (nothing to replay) and the session goes on serving.
func TestHostileLastEventID(t *testing.T) {
	fx := newPeerFixture(t)
	ts := httptest.NewServer(mcp.NewHTTPHandler(fx.srv, nil))
	t.Cleanup(ts.Close)
	sid := openLegacySession(t, http.DefaultClient, ts.URL+"/mcp")

	for _, id := range []string{
		"garbage", "-", "1-", "-1", "1-2-3", "99999-0", "0-0",
		"18446744073709551615-18446744073709551615", "18446744073709551616-1",
		strings.Repeat("9", 40) + "-1", "１-２",
	} {
		t.Run(id, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			get, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/mcp", nil)
			get.Header.Set("Accept", "text/event-stream")
			get.Header.Set("Mcp-Session-Id", sid)
			get.Header["Last-Event-Id"] = []string{id}
			gresp, err := http.DefaultClient.Do(get)
			if err != nil {
				t.Fatalf("GET: %v", err)
			}
			if gresp.StatusCode != 200 || !strings.HasPrefix(gresp.Header.Get("Content-Type"), "text/event-stream") {
				t.Errorf("status %d, content type %q", gresp.StatusCode, gresp.Header.Get("Content-Type"))
			}
			cancel()
			gresp.Body.Close()

			ping, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"ping"}`))
			ping.Header.Set("Content-Type", "application/json")
			ping.Header.Set("Mcp-Session-Id", sid)
			presp, err := http.DefaultClient.Do(ping)
			if err != nil {
				t.Fatal(err)
			}
			presp.Body.Close()
			if presp.StatusCode != 200 {
				t.Errorf("ping after the GET: %d", presp.StatusCode)
			}
		})
	}
}
