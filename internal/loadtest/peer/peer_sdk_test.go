package peer_test

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/warden-mcp/warden/internal/mcpfixture"
	"github.com/warden-mcp/warden/internal/repotest"
	"io"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/warden-mcp/warden/mcp"
)

// These tests drive Warden's engine with the official Go SDK's client, the
// peer most Go users will meet, over stdio pipes, the real binary and
// streamable HTTP, in both protocol eras.

// peerEra is one way the official client can open a connection.
type peerEra struct {
	name string
	// version is what the client asks for: 2026-07-28 makes it probe
	// server/discover and stay stateless; 2025-11-25 makes it run the
	// initialize handshake.
	version string
}

var peerEras = []peerEra{
	{name: "legacy", version: "2025-11-25"},
	{name: "modern", version: mcp.VersionModern},
}

// olderEras are the earlier legacy revisions the client can still ask
// for; the server must negotiate each as asked.
var olderEras = []peerEra{
	{name: "legacy-2025-06-18", version: "2025-06-18"},
	{name: "legacy-2025-03-26", version: "2025-03-26"},
	{name: "legacy-2024-11-05", version: "2024-11-05"},
}

// collector gathers what a client's handlers receive, on whatever
// goroutine they run, and lets a test wait for a count of it.
type collector[T any] struct {
	mu   sync.Mutex
	got  []T
	more chan struct{} // signalled on each add
}

func (c *collector[T]) add(v T) {
	c.mu.Lock()
	c.got = append(c.got, v)
	ch := c.moreLocked()
	c.mu.Unlock()
	select {
	case ch <- struct{}{}:
	default:
	}
}

func (c *collector[T]) moreLocked() chan struct{} {
	if c.more == nil {
		c.more = make(chan struct{}, 1)
	}
	return c.more
}

// waitFor returns what has arrived once there are at least n, or when
// d has passed.
func (c *collector[T]) waitFor(n int, d time.Duration) []T {
	deadline := time.After(d)
	for {
		c.mu.Lock()
		got, more := slices.Clone(c.got), c.moreLocked()
		c.mu.Unlock()
		if len(got) >= n {
			return got
		}
		select {
		case <-more:
		case <-deadline:
			return got
		}
	}
}

// peerProgress collects the progress notifications a client receives.
type peerProgress struct {
	c collector[progressNote]
}

type progressNote struct {
	progress float64
	token    any
}

func (p *peerProgress) handler(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
	p.c.add(progressNote{r.Params.Progress, r.Params.ProgressToken})
}

// waitFor returns the progress values and tokens received once there are
// at least n, or after d.
func (p *peerProgress) waitFor(n int, d time.Duration) ([]float64, []any) {
	var got []float64
	var toks []any
	for _, x := range p.c.waitFor(n, d) {
		got = append(got, x.progress)
		toks = append(toks, x.token)
	}
	return got, toks
}

func newPeerClient(prog *peerProgress) *sdk.Client {
	return sdk.NewClient(&sdk.Implementation{Name: "go-sdk-peer", Version: "1.8.0"}, &sdk.ClientOptions{
		ProgressNotificationHandler: prog.handler,
		ElicitationHandler: func(_ context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
	})
}

func connectPeer(t *testing.T, tr sdk.Transport, era peerEra, prog *peerProgress) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := newPeerClient(prog).Connect(ctx, tr, &sdk.ClientSessionOptions{ProtocolVersion: era.version})
	if err != nil {
		t.Fatalf("connect (%s): %v", era.name, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	if got := cs.InitializeResult().ProtocolVersion; got != era.version {
		t.Fatalf("negotiated version %q, want %q", got, era.version)
	}
	if si := cs.InitializeResult().ServerInfo; si == nil || si.Name == "" {
		t.Errorf("serverInfo missing from the %s handshake: %+v", era.name, si)
	}
	return cs
}

// stdioPipeTransport serves fx over a pair of pipes with ServeStdio and
// returns the client's end.
func stdioPipeTransport(t *testing.T, fx *mcpfixture.Fixture) sdk.Transport {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		err := fx.Srv.ServeStdio(ctx, inR, outW, nil)
		_ = outW.Close()
		done <- err
	}()
	t.Cleanup(func() {
		_ = inW.Close()
		select {
		case err := <-done:
			if err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("ServeStdio: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("ServeStdio did not return after stdin closed")
		}
		cancel()
	})
	return &sdk.IOTransport{Reader: outR, Writer: inW}
}

func httpTransport(t *testing.T, fx *mcpfixture.Fixture) sdk.Transport {
	t.Helper()
	ts := httptest.NewServer(mcp.NewHTTPHandler(fx.Srv, nil))
	t.Cleanup(ts.Close)
	return &sdk.StreamableClientTransport{Endpoint: ts.URL + "/mcp", MaxRetries: -1}
}

func TestPeerGoSDK(t *testing.T) {
	transports := []struct {
		name string
		make func(*testing.T, *mcpfixture.Fixture) sdk.Transport
	}{
		{"stdio", stdioPipeTransport},
		{"http", httpTransport},
	}
	for _, tr := range transports {
		for _, era := range append(slices.Clone(peerEras), olderEras...) {
			t.Run(tr.name+"/"+era.name, func(t *testing.T) {
				fx := mcpfixture.New(t)
				prog := &peerProgress{}
				cs := connectPeer(t, tr.make(t, fx), era, prog)
				peerCheckList(t, cs)
				peerCheckCall(t, cs)
				peerCheckToolError(t, cs)
				peerCheckUnknownTool(t, cs)
				peerCheckProgress(t, cs, prog)
				peerCheckInput(t, cs)
				peerCheckCancel(t, cs, fx)
				// The connection still serves after a cancelled call.
				peerCheckCall(t, cs)
			})
		}
	}
}

func peerCheckList(t *testing.T, cs *sdk.ClientSession) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		if tl.Description == "" {
			t.Errorf("tool %s listed without a description", tl.Name)
		}
	}
	want := []string{"peer_ask", "peer_block", "peer_echo", "peer_fail", "peer_progress", "peer_slow"}
	slices.Sort(names)
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("tools/list names (-want +got):\n%s", diff)
	}
}

func peerCheckCall(t *testing.T, cs *sdk.ClientSession) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "peer_echo", Arguments: map[string]any{"text": "héllo"}})
	if err != nil {
		t.Fatalf("tools/call peer_echo: %v", err)
	}
	if res.IsError {
		t.Fatalf("peer_echo returned an error result: %+v", res.Content)
	}
	want := map[string]any{"text": "héllo", "length": float64(len("héllo"))}
	if diff := cmp.Diff(want, res.StructuredContent); diff != "" {
		t.Errorf("peer_echo structured content (-want +got):\n%s", diff)
	}
	if len(res.Content) != 1 {
		t.Fatalf("peer_echo content: %d blocks, want 1", len(res.Content))
	}
	tc, ok := res.Content[0].(*sdk.TextContent)
	if !ok {
		t.Fatalf("peer_echo content is %T, want text", res.Content[0])
	}
	var echoed map[string]any
	if err := json.Unmarshal([]byte(tc.Text), &echoed); err != nil || !cmp.Equal(want, echoed) {
		t.Errorf("peer_echo text block %q does not carry the structured content", tc.Text)
	}
}

func peerCheckToolError(t *testing.T, cs *sdk.ClientSession) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "peer_fail"})
	if err != nil {
		t.Fatalf("tools/call peer_fail: a tool error must be a result, got protocol error %v", err)
	}
	if !res.IsError {
		t.Fatal("peer_fail: isError is false")
	}
	want := map[string]any{
		"errorCode":    "demo_failure",
		"errorMessage": "the demonstration failed",
		"details":      map[string]any{"attempt": float64(1)},
	}
	if diff := cmp.Diff(want, res.StructuredContent); diff != "" {
		t.Errorf("peer_fail structured content (-want +got):\n%s", diff)
	}
	// Invalid arguments are a tool error too, naming the parameter. A
	// tool with an output schema carries the error as text only, since
	// {errorCode, ...} would not match its schema.
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "peer_echo", Arguments: map[string]any{"text": 42}})
	if err != nil {
		t.Fatalf("tools/call peer_echo with a bad argument: %v", err)
	}
	if !res.IsError || res.StructuredContent != nil || len(res.Content) != 1 {
		t.Fatalf("bad argument: isError=%v structured=%v content=%d, want one text block", res.IsError, res.StructuredContent, len(res.Content))
	}
	if tc, ok := res.Content[0].(*sdk.TextContent); !ok || !strings.HasPrefix(tc.Text, "invalid_params: ") || !strings.Contains(tc.Text, "text") {
		t.Errorf("bad argument text %+v, want invalid_params naming the parameter", res.Content[0])
	}
}

func peerCheckUnknownTool(t *testing.T, cs *sdk.ClientSession) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "peer_nope"})
	if err == nil {
		t.Fatal("unknown tool: no error")
	}
	if !containsCode(err, mcp.CodeInvalidParams) {
		t.Errorf("unknown tool: %v, want a -32602 protocol error", err)
	}
}

// containsCode reports whether err carries a JSON-RPC error with code.
func containsCode(err error, code int) bool {
	var we *jsonrpc.Error
	return errors.As(err, &we) && int(we.Code) == code
}

func peerCheckProgress(t *testing.T, cs *sdk.ClientSession, prog *peerProgress) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p := &sdk.CallToolParams{Name: "peer_progress"}
	p.SetProgressToken("tok-1")
	res, err := cs.CallTool(ctx, p)
	if err != nil || res.IsError {
		t.Fatalf("tools/call peer_progress: %v %+v", err, res)
	}
	// Notifications precede the response on the wire, but the client
	// may hand them to its handler on another goroutine.
	got, toks := prog.waitFor(3, 5*time.Second)
	if diff := cmp.Diff([]float64{0, 50, 100}, got); diff != "" {
		t.Errorf("progress values (-want +got):\n%s", diff)
	}
	for _, tok := range toks {
		if tok != "tok-1" {
			t.Errorf("progress token %v, want tok-1", tok)
		}
	}
}

func peerCheckInput(t *testing.T, cs *sdk.ClientSession) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// Legacy: the server sends elicitation/create and waits. Modern: it
	// returns an input_required result and the client retries.
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "peer_ask"})
	if err != nil {
		t.Fatalf("tools/call peer_ask: %v", err)
	}
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("peer_ask: %+v", res)
	}
	if tc, ok := res.Content[0].(*sdk.TextContent); !ok || tc.Text != "Hello, Ada!" {
		t.Errorf("peer_ask answered %+v, want Hello, Ada!", res.Content[0])
	}
}

func peerCheckCancel(t *testing.T, cs *sdk.ClientSession, fx *mcpfixture.Fixture) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	callErr := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "peer_block"})
		callErr <- err
	}()
	select {
	case <-fx.BlockStarted:
	case <-time.After(10 * time.Second):
		t.Fatal("peer_block never started")
	}
	cancel()
	select {
	case err := <-fx.BlockDone:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the handler saw %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the handler never saw its context end after the client cancelled")
	}
	select {
	case err := <-callErr:
		if err == nil {
			t.Error("a cancelled call returned no error to the client")
		}
	case <-time.After(10 * time.Second):
		t.Error("CallTool did not return after its context was cancelled")
	}
}

// TestPeerGoSDKBinary launches the real warden binary with the SDK's
// CommandTransport, in both eras.
func TestPeerGoSDKBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the warden binary")
	}
	bin := buildWarden(t)
	for _, era := range peerEras {
		t.Run(era.name, func(t *testing.T) {
			// A state directory of its own: limits and audit records of
			// the "local" principal live there, and must not carry over
			// from other runs.
			cmd := exec.Command(bin, "stdio", "--log-level", "error", "--state-dir", t.TempDir())
			prog := &peerProgress{}
			cs := connectPeer(t, &sdk.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, era, prog)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			res, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatalf("tools/list: %v", err)
			}
			listed := map[string]bool{}
			for _, tl := range res.Tools {
				listed[tl.Name] = true
				if tl.Description == "" || tl.InputSchema == nil {
					t.Errorf("tool %s lacks a description or an input schema", tl.Name)
				}
			}
			// An unknown tool is a protocol error, whatever is built in.
			if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "warden_no_such_tool"}); !containsCode(err, mcp.CodeInvalidParams) {
				t.Errorf("unknown tool: %v, want -32602", err)
			}
			if !listed["keysweep_scan_text"] {
				t.Fatalf("keysweep_scan_text is not listed (%d tools)", len(res.Tools))
			}
			p := &sdk.CallToolParams{Name: "keysweep_scan_text", Arguments: map[string]any{"text": "nothing to see here"}}
			p.SetProgressToken("scan-1")
			res2, err := cs.CallTool(ctx, p)
			if err != nil || res2.IsError {
				t.Fatalf("keysweep_scan_text: %v %+v", err, res2)
			}
			sc, _ := res2.StructuredContent.(map[string]any)
			if sc["status"] != "completed" || sc["text_length"] != float64(len("nothing to see here")) {
				t.Errorf("keysweep_scan_text structured content %v", res2.StructuredContent)
			}
			// The tool reports progress; the client must have seen it,
			// with our token, growing.
			got, toks := prog.waitFor(2, 5*time.Second)
			if len(got) < 2 || !slices.IsSorted(got) || got[0] == got[len(got)-1] {
				t.Errorf("progress from keysweep_scan_text: %v", got)
			}
			for _, tok := range toks {
				if tok != "scan-1" {
					t.Errorf("progress token %v, want scan-1", tok)
				}
			}
			res3, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "keysweep_scan_text", Arguments: map[string]any{"no_such_argument": true}})
			if err != nil {
				t.Fatalf("keysweep_scan_text with a bad argument: %v", err)
			}
			if !res3.IsError || toolErrorCode(res3) != "invalid_params" {
				t.Errorf("bad argument: isError=%v code=%q, want invalid_params", res3.IsError, toolErrorCode(res3))
			}
		})
	}
}

// buildWarden builds cmd/warden into a temporary directory.
func buildWarden(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "warden")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/warden")
	cmd.Dir = repotest.Root(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/warden: %v\n%s", err, out)
	}
	return bin
}

// toolErrorCode returns the code of an error result: from its structured
// content, or from its text ("code: message") when the tool has an output
// schema.
func toolErrorCode(res *sdk.CallToolResult) string {
	if sc, ok := res.StructuredContent.(map[string]any); ok {
		if c, ok := sc["errorCode"].(string); ok {
			return c
		}
	}
	if len(res.Content) > 0 {
		if tc, ok := res.Content[0].(*sdk.TextContent); ok {
			code, _, _ := strings.Cut(tc.Text, ":")
			return code
		}
	}
	return ""
}
