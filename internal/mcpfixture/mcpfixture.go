// Package mcpfixture is the in-process server that the protocol's peer,
// golden and hostile tests talk to, in package mcp's tests and in the
// benchmark module beside it (internal/loadtest), which drives it with the
// official Go SDK's client: a handful of tools whose behaviour each test can
// observe, and the two requests that open a legacy session.
package mcpfixture

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/tool"
)

// Fixture is the in-process server the peer, golden and hostile tests
// talk to: a handful of tools whose behaviour each test can observe.
type Fixture struct {
	Reg *tool.Registry
	Srv *mcp.Server
	// BlockStarted receives once per call of peer_block when it starts;
	// BlockDone receives the ctx error the handler observed when its
	// context ended.
	BlockStarted chan struct{}
	BlockDone    chan error
}

// EchoIn is peer_echo's input, EchoOut its output.
type EchoIn struct {
	Text string `json:"text" desc:"Text to echo" maxLength:"1000"`
}

type EchoOut struct {
	Text   string `json:"text"`
	Length int    `json:"length"`
}

// SlowIn is peer_slow's input.
type SlowIn struct {
	Millis int `json:"millis" default:"100" min:"0" max:"5000" desc:"How long to take"`
}

// None is the input of the tools that take no arguments.
type None struct{}

// Def is a read-only, idempotent test tool's definition.
func Def(name, desc string) tool.Def {
	return tool.Def{
		Name:        name,
		Description: desc,
		Annotations: tool.Annotations{ReadOnly: true, Idempotent: true},
		Catalog:     tool.Catalog{Category: "test", Trust: tool.TrustAuto},
	}
}

// StateKey makes requestState deterministic enough to replay: the key
// is fixed, and transcripts normalise the sealed token anyway.
var StateKey = []byte("0123456789abcdef0123456789abcdef")

// New registers the tools (peer_echo, peer_fail, peer_progress, peer_block,
// peer_slow, peer_ask) and serves them; the server closes with the test.
func New(t testing.TB) *Fixture {
	t.Helper()
	fx := &Fixture{
		Reg:          tool.NewRegistry(),
		BlockStarted: make(chan struct{}, 16),
		BlockDone:    make(chan error, 16),
	}
	tool.Add(fx.Reg, Def("peer_echo", "Echoes its text and its length."),
		func(ctx context.Context, c *tool.Call, in EchoIn) (EchoOut, error) {
			return EchoOut{Text: in.Text, Length: len(in.Text)}, nil
		})
	tool.Add(fx.Reg, Def("peer_fail", "Always fails with a typed error."),
		func(ctx context.Context, c *tool.Call, _ None) (string, error) {
			return "", &tool.Error{Code: "demo_failure", Message: "the demonstration failed", Details: map[string]any{"attempt": 1}}
		})
	tool.Add(fx.Reg, Def("peer_progress", "Reports progress three times, then answers."),
		func(ctx context.Context, c *tool.Call, _ None) (string, error) {
			for i, p := range []float64{0, 50, 100} {
				c.Progress(p, 100, "step "+string(rune('1'+i)))
			}
			return "progress done", nil
		})
	tool.Add(fx.Reg, Def("peer_block", "Blocks until its call is cancelled."),
		func(ctx context.Context, c *tool.Call, _ None) (string, error) {
			// Reports never block, so fuzzers may call it any number of
			// times; tests read at most a few.
			report := func(err error) {
				select {
				case fx.BlockDone <- err:
				default:
				}
			}
			select {
			case fx.BlockStarted <- struct{}{}:
			default:
			}
			select {
			case <-ctx.Done():
				report(ctx.Err())
				return "", ctx.Err()
			case <-time.After(30 * time.Second):
				report(errors.New("never cancelled"))
				return "not cancelled", nil
			}
		})
	tool.Add(fx.Reg, Def("peer_slow", "Answers after a delay."),
		func(ctx context.Context, c *tool.Call, in SlowIn) (string, error) {
			select {
			case <-time.After(time.Duration(in.Millis) * time.Millisecond):
				return "slept", nil
			case <-ctx.Done():
				return "", ctx.Err()
			}
		})
	tool.Add(fx.Reg, Def("peer_ask", "Asks the user's name, then greets them."),
		func(ctx context.Context, c *tool.Call, _ None) (string, error) {
			got, err := c.Input(ctx, map[string]tool.InputRequest{
				"name": tool.Elicit("What is your name?", json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)),
			})
			if err != nil {
				return "", err
			}
			var a struct {
				Action  string `json:"action"`
				Content struct {
					Name string `json:"name"`
				} `json:"content"`
			}
			if json.Unmarshal(got["name"], &a) != nil || a.Action != "accept" || a.Content.Name == "" {
				return "no name given", nil
			}
			return "Hello, " + a.Content.Name + "!", nil
		})
	fx.Srv = mcp.NewServer(fx.Reg, &mcp.Options{Name: "warden-test", Version: "0.0.0-test", StateKey: StateKey})
	t.Cleanup(fx.Srv.Close)
	return fx
}

// LegacyInit is a legacy client's initialize request.
const LegacyInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// PostLegacy POSTs one message to a legacy endpoint (sid "" for none) and
// returns the response with its body read.
func PostLegacy(t testing.TB, c *http.Client, url, sid, body string, header ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// OpenLegacySession initializes a legacy session at url and returns its
// id; extra header pairs go on both requests.
func OpenLegacySession(t testing.TB, c *http.Client, url string, header ...string) string {
	t.Helper()
	resp, body := PostLegacy(t, c, url, "", LegacyInit, header...)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || sid == "" {
		t.Fatalf("initialize: status %d, session %q: %.200s", resp.StatusCode, sid, body)
	}
	if resp, _ := PostLegacy(t, c, url, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, header...); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/initialized: status %d", resp.StatusCode)
	}
	return sid
}
