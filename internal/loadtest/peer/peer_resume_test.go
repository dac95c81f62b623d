package peer_test

import (
	"context"
	"github.com/warden-mcp/warden/internal/mcpfixture"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/tool"
)

// resumingHTTPTransport is httpTransport with the client's default
// reconnection policy, which resuming needs.
func resumingHTTPTransport(t *testing.T, fx *mcpfixture.Fixture) sdk.Transport {
	t.Helper()
	ts := httptest.NewServer(mcp.NewHTTPHandler(fx.Srv, nil))
	t.Cleanup(ts.Close)
	return &sdk.StreamableClientTransport{Endpoint: ts.URL + "/mcp"}
}

// TestPeerGoSDKResumedStream: a tool that closes its response stream
// early (Call.CloseStream) still reaches the official client: on a legacy
// HTTP session the client reconnects with Last-Event-ID and reads the rest
// of the stream, progress and result; elsewhere CloseStream does nothing
// and the call answers as usual.
func TestPeerGoSDKResumedStream(t *testing.T) {
	for _, tr := range []struct {
		name       string
		make       func(*testing.T, *mcpfixture.Fixture) sdk.Transport
		resumable  bool
		eraVersion string
	}{
		{"http/legacy", resumingHTTPTransport, true, peerEras[0].version},
		{"http/modern", resumingHTTPTransport, false, peerEras[1].version},
		{"stdio/legacy", stdioPipeTransport, false, peerEras[0].version},
	} {
		t.Run(tr.name, func(t *testing.T) {
			fx := mcpfixture.New(t)
			closed := make(chan bool, 1)
			tool.Add(fx.Reg, mcpfixture.Def("peer_poll", "Closes its stream, then answers."),
				func(ctx context.Context, c *tool.Call, _ mcpfixture.None) (string, error) {
					c.Progress(1, 3, "before")
					closed <- c.CloseStream()
					select {
					case <-time.After(100 * time.Millisecond):
					case <-ctx.Done():
						return "", ctx.Err()
					}
					c.Progress(2, 3, "after")
					return "polled", nil
				})
			prog := &peerProgress{}
			era := peerEra{name: tr.name, version: tr.eraVersion}
			cs := connectPeer(t, tr.make(t, fx), era, prog)
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			p := &sdk.CallToolParams{Name: "peer_poll"}
			p.SetProgressToken("poll")
			res, err := cs.CallTool(ctx, p)
			if err != nil {
				t.Fatalf("tools/call peer_poll: %v", err)
			}
			if got := <-closed; got != tr.resumable {
				t.Errorf("CloseStream reported %v, want %v", got, tr.resumable)
			}
			if res.IsError || len(res.Content) != 1 {
				t.Fatalf("peer_poll: %+v", res)
			}
			if tc, ok := res.Content[0].(*sdk.TextContent); !ok || tc.Text != "polled" {
				t.Errorf("peer_poll answered %+v", res.Content[0])
			}
			got, _ := prog.waitFor(2, 5*time.Second)
			if !slices.Equal(got, []float64{1, 2}) {
				t.Errorf("progress %v, want [1 2] (one before and one after the stream closed)", got)
			}
		})
	}
}
