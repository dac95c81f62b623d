package peer_test

import (
	"context"
	"fmt"
	"github.com/warden-mcp/warden/internal/mcpfixture"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/warden-mcp/warden/mcp"
)

// TestPeerGoSDKConcurrentClients: many official clients, of both eras, on
// one HTTP handler at once, each calling concurrently; every call gets its
// own answer. Run with -race, this is the engine's concurrency check
// against a real peer.
func TestPeerGoSDKConcurrentClients(t *testing.T) {
	const clients, calls = 12, 15
	fx := mcpfixture.New(t)
	ts := httptest.NewServer(mcp.NewHTTPHandler(fx.Srv, nil))
	t.Cleanup(ts.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	var wg sync.WaitGroup
	errs := make(chan error, clients*calls)
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			era := peerEras[c%len(peerEras)]
			prog := &peerProgress{}
			cs, err := newPeerClient(prog).Connect(ctx,
				&sdk.StreamableClientTransport{Endpoint: ts.URL + "/mcp", MaxRetries: -1},
				&sdk.ClientSessionOptions{ProtocolVersion: era.version})
			if err != nil {
				errs <- fmt.Errorf("client %d (%s): connect: %w", c, era.name, err)
				return
			}
			defer cs.Close()
			var inner sync.WaitGroup
			for i := range calls {
				inner.Add(1)
				go func() {
					defer inner.Done()
					text := fmt.Sprintf("client %d call %d", c, i)
					p := &sdk.CallToolParams{Name: "peer_echo", Arguments: map[string]any{"text": text}}
					if i%3 == 0 {
						p = &sdk.CallToolParams{Name: "peer_progress"}
						p.SetProgressToken(fmt.Sprintf("c%d-%d", c, i))
					}
					res, err := cs.CallTool(ctx, p)
					if err != nil {
						errs <- fmt.Errorf("client %d (%s) call %d: %w", c, era.name, i, err)
						return
					}
					if p.Name == "peer_echo" {
						sc, _ := res.StructuredContent.(map[string]any)
						if sc["text"] != text {
							errs <- fmt.Errorf("client %d call %d got %v, want its own text", c, i, res.StructuredContent)
						}
					}
				}()
			}
			inner.Wait()
			if _, err := cs.ListTools(ctx, nil); err != nil {
				errs <- fmt.Errorf("client %d (%s): list: %w", c, era.name, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
