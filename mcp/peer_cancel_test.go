package mcp_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/warden-mcp/warden/mcp"
)

// TestPeerStdioCancelledCallSendsNothing: after notifications/cancelled,
// the handler's context ends and the server sends nothing more for that
// id (cancellation: "send nothing further for that id"), in both eras.
func TestPeerStdioCancelledCallSendsNothing(t *testing.T) {
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			fx := newPeerFixture(t)
			// One call at a time: the probe below runs only once the
			// cancelled call has finished, and with it anything it
			// would still write.
			s := startStdio(t, fx, &mcp.StdioOptions{MaxInFlight: 1})
			meta := modernMeta + ","
			if era == "legacy" {
				meta = ""
				s.write(t, `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`+"\n")
				if r := parseReply(t, s.next(t)); r.Error != nil {
					t.Fatalf("initialize: %+v", r.Error)
				}
				s.write(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
			}
			s.write(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{%s"name":"peer_block"}}`+"\n", meta))
			select {
			case <-fx.blockStarted:
			case <-time.After(10 * time.Second):
				t.Fatal("peer_block never started")
			}
			s.write(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow","reason":"user"}}`+"\n")
			select {
			case err := <-fx.blockDone:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("handler saw %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the handler never saw the cancellation")
			}
			probe := `{"jsonrpc":"2.0","id":"probe","method":"tools/list","params":{` + modernMeta + `}}`
			if era == "legacy" {
				probe = `{"jsonrpc":"2.0","id":"probe","method":"ping"}`
			}
			s.write(t, probe+"\n")
			r := parseReply(t, s.next(t))
			if string(r.ID) != `"probe"` {
				t.Errorf("the server answered the cancelled request (id %s) before the probe", r.ID)
			}
		})
	}
}
