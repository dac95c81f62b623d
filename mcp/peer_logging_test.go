package mcp_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/warden-mcp/warden/tool"
)

// TestPeerGoSDKLogging: a tool's log messages reach the official client at
// and above the level it chose (logging/setLevel on legacy sessions, the
// request's _meta logLevel on 2026-07-28), and none reach it on the modern
// revision when the request did not ask.
func TestPeerGoSDKLogging(t *testing.T) {
	for _, tr := range []struct {
		name string
		make func(*testing.T, *peerFixture) sdk.Transport
	}{{"stdio", stdioPipeTransport}, {"http", httpTransport}} {
		for _, era := range peerEras {
			t.Run(tr.name+"/"+era.name, func(t *testing.T) {
				fx := newPeerFixture(t)
				tool.Add(fx.reg, peerDef("peer_log", "Logs at four levels."),
					func(ctx context.Context, c *tool.Call, _ peerNone) (string, error) {
						for _, l := range []string{"debug", "info", "warning", "error"} {
							c.Log(l, map[string]string{"at": l})
						}
						return "logged", nil
					})
				var mu sync.Mutex
				var levels []string
				client := sdk.NewClient(&sdk.Implementation{Name: "go-sdk-peer", Version: "1.8.0"}, &sdk.ClientOptions{
					LoggingMessageHandler: func(_ context.Context, r *sdk.LoggingMessageRequest) {
						mu.Lock()
						levels = append(levels, string(r.Params.Level))
						mu.Unlock()
					},
				})
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				cs, err := client.Connect(ctx, tr.make(t, fx), &sdk.ClientSessionOptions{ProtocolVersion: era.version})
				if err != nil {
					t.Fatal(err)
				}
				defer cs.Close()
				snapshot := func(want int) []string {
					deadline := time.Now().Add(2 * time.Second)
					for {
						mu.Lock()
						got := slices.Clone(levels)
						mu.Unlock()
						if len(got) >= want || time.Now().After(deadline) {
							return got
						}
						time.Sleep(10 * time.Millisecond)
					}
				}

				if era.name == "modern" {
					// Not asked: no messages at all.
					if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "peer_log"}); err != nil {
						t.Fatal(err)
					}
					time.Sleep(100 * time.Millisecond)
					if got := snapshot(0); len(got) != 0 {
						t.Errorf("log messages without a logLevel: %v", got)
					}
				}
				p := &sdk.CallToolParams{Name: "peer_log"}
				if era.name == "modern" {
					p.Meta = sdk.Meta{"io.modelcontextprotocol/logLevel": "warning"}
				} else if err := cs.SetLoggingLevel(ctx, &sdk.SetLoggingLevelParams{Level: "warning"}); err != nil {
					t.Fatal(err)
				}
				if _, err := cs.CallTool(ctx, p); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff([]string{"warning", "error"}, snapshot(2)); diff != "" {
					t.Errorf("levels received at warning (-want +got):\n%s", diff)
				}
			})
		}
	}
}
