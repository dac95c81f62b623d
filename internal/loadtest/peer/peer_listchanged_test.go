package peer_test

import (
	"context"
	"github.com/warden-mcp/warden/internal/mcpfixture"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/tool"
)

// TestPeerGoSDKDefaultsToModern: with no session options, go-sdk v1.8.0
// probes server/discover and stays on the 2026-07-28 revision.
func TestPeerGoSDKDefaultsToModern(t *testing.T) {
	for _, tr := range []struct {
		name string
		make func(*testing.T, *mcpfixture.Fixture) sdk.Transport
	}{{"stdio", stdioPipeTransport}, {"http", httpTransport}} {
		t.Run(tr.name, func(t *testing.T) {
			fx := mcpfixture.New(t)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			cs, err := newPeerClient(&peerProgress{}).Connect(ctx, tr.make(t, fx), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if v := cs.InitializeResult().ProtocolVersion; v != mcp.VersionModern {
				t.Errorf("default connection negotiated %q, want %q", v, mcp.VersionModern)
			}
		})
	}
}

// TestPeerGoSDKToolListChanged: a client with a ToolListChangedHandler
// hears about a tool registered after it connected: on the 2026-07-28
// revision through subscriptions/listen, on legacy sessions through the
// session's own notifications (stdout, or the HTTP GET stream).
func TestPeerGoSDKToolListChanged(t *testing.T) {
	for _, tr := range []struct {
		name string
		make func(*testing.T, *mcpfixture.Fixture) sdk.Transport
	}{{"stdio", stdioPipeTransport}, {"http", httpTransport}} {
		for _, era := range peerEras {
			t.Run(tr.name+"/"+era.name, func(t *testing.T) {
				fx := mcpfixture.New(t)
				changed := make(chan struct{}, 8)
				client := sdk.NewClient(&sdk.Implementation{Name: "go-sdk-peer", Version: "1.8.0"}, &sdk.ClientOptions{
					ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { changed <- struct{}{} },
				})
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				cs, err := client.Connect(ctx, tr.make(t, fx), &sdk.ClientSessionOptions{ProtocolVersion: era.version})
				if err != nil {
					t.Fatal(err)
				}
				defer cs.Close()
				// The listen stream (modern) or GET stream (legacy HTTP)
				// opens asynchronously; poll by re-registering until a
				// notification arrives.
				deadline := time.After(10 * time.Second)
				for i := 0; ; i++ {
					name := "peer_late_" + string(rune('a'+i%26))
					if i >= 26 {
						t.Fatal("ran out of tool names")
					}
					tool.Add(fx.Reg, mcpfixture.Def(name, "Registered after the client connected."),
						func(ctx context.Context, c *tool.Call, _ mcpfixture.None) (string, error) { return "late", nil })
					select {
					case <-changed:
					case <-time.After(300 * time.Millisecond):
						continue
					case <-deadline:
						t.Fatal("no tools/list_changed notification within 10 s")
					}
					break
				}
				res, err := cs.ListTools(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				found := false
				for _, tl := range res.Tools {
					found = found || tl.Name == "peer_late_a"
				}
				if !found {
					t.Error("the new tool is not listed after the notification")
				}
			})
		}
	}
}
