package peer_test

import (
	"context"
	"github.com/warden-mcp/warden/internal/mcpfixture"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/tool"
)

// TestPeerGoSDKResumeKeepsPushStream: resuming a call's stream with GET
// and Last-Event-ID must not take over, or end, the session's standalone
// GET stream: list_changed notifications still reach the client after a
// resumed call.
func TestPeerGoSDKResumeKeepsPushStream(t *testing.T) {
	fx := mcpfixture.New(t)
	tool.Add(fx.Reg, mcpfixture.Def("peer_poll", "Closes its stream, then answers."),
		func(ctx context.Context, c *tool.Call, _ mcpfixture.None) (string, error) {
			c.CloseStream()
			select {
			case <-time.After(100 * time.Millisecond):
			case <-ctx.Done():
				return "", ctx.Err()
			}
			return "polled", nil
		})
	changed := make(chan struct{}, 8)
	client := sdk.NewClient(&sdk.Implementation{Name: "go-sdk-peer", Version: "1.8.0"}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { changed <- struct{}{} },
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	h := mcp.NewHTTPHandler(fx.Srv, nil)
	resumedDone := make(chan struct{}, 8) // a resumed GET's handler returned
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		if r.Method == "GET" && r.Header.Get("Last-Event-ID") != "" {
			resumedDone <- struct{}{}
		}
	}))
	t.Cleanup(ts.Close)
	tr := &sdk.StreamableClientTransport{Endpoint: ts.URL + "/mcp"}
	cs, err := client.Connect(ctx, tr, &sdk.ClientSessionOptions{ProtocolVersion: peerEras[0].version})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	register := func(name string) bool {
		tool.Add(fx.Reg, mcpfixture.Def(name, "Registered late."),
			func(ctx context.Context, c *tool.Call, _ mcpfixture.None) (string, error) { return name, nil })
		select {
		case <-changed:
			return true
		case <-time.After(2 * time.Second):
			return false
		}
	}
	// The standalone stream opens during Connect; make sure it delivers.
	if !register("peer_before") {
		t.Fatal("no list_changed before the resumed call")
	}
	for i := range 3 {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "peer_poll"})
		if err != nil || res.IsError {
			t.Fatalf("call %d: %v %+v", i, err, res)
		}
	}
	// Each call closed its stream, and the client resumed it with GET;
	// the server ends such a stream with the call's result.
	for i := range 3 {
		select {
		case <-resumedDone:
		case <-time.After(10 * time.Second):
			t.Fatalf("resumed stream %d did not end", i)
		}
	}
	if !register("peer_after") {
		t.Error("no list_changed after resumed calls: the session's GET stream lost its notifications")
	}
}
