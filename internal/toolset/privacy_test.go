package toolset

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/limits"
	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/policy"
	"github.com/warden-mcp/warden/redact"
	"github.com/warden-mcp/warden/store/sqlite"
	"github.com/warden-mcp/warden/tool"
)

// privacyServer serves reg with both privacy passes of mode (strict,
// balanced or off): the typed field pass through mcp.Options.Redactor and
// the result pass through the policy hook, as Warden's wiring does. It
// returns a function that calls a tool on the stateless revision and
// gives back the response bytes a client reads.
func privacyServer(t *testing.T, reg *tool.Registry, mode string) func(name, args string) []byte {
	t.Helper()
	stage, err := redact.NewStage(&redact.StageOptions{Mode: redact.Mode(mode), PseudonymKey: []byte("0123456789abcdef0123456789abcdef")})
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(context.Background(), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	lim, err := limits.New(st, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctl := &policy.Controls{Limiter: lim, Local: policy.LocalPrincipal()}
	srv := mcp.NewServer(reg, &mcp.Options{Middleware: append(ctl.Middleware(), stage.Middleware())})
	t.Cleanup(srv.Close)
	return func(name, args string) []byte {
		msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{
			"name": name, "arguments": json.RawMessage(args),
			"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": map[string]any{}},
		}})
		return srv.ServeMessage(auth.WithPrincipal(context.Background(), *policy.LocalPrincipal()), msg, nil)
	}
}

// servers returns a caller per privacy mode over one registry.
func servers(t *testing.T, reg *tool.Registry) map[string]func(name, args string) []byte {
	return map[string]func(name, args string) []byte{
		"off": privacyServer(t, reg, "off"), "balanced": privacyServer(t, reg, "balanced"), "strict": privacyServer(t, reg, "strict"),
	}
}

// structured returns the structured content of a response, failing the
// test on an error result.
func structured(t *testing.T, resp []byte) json.RawMessage {
	t.Helper()
	var r struct {
		Result struct {
			StructuredContent json.RawMessage `json:"structuredContent"`
			IsError           bool            `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal(resp, &r); err != nil || r.Result.IsError || r.Result.StructuredContent == nil {
		t.Fatalf("not a result: %v %.600s", err, resp)
	}
	return r.Result.StructuredContent
}

// errorCode returns the error code of a response's error result ("" for
// none).
func errorCode(resp []byte) string {
	var r struct {
		Result struct {
			IsError           bool `json:"isError"`
			StructuredContent struct {
				ErrorCode string `json:"errorCode"`
			} `json:"structuredContent"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if json.Unmarshal(resp, &r) != nil || !r.Result.IsError {
		return ""
	}
	if c := r.Result.StructuredContent.ErrorCode; c != "" {
		return c
	}
	if len(r.Result.Content) > 0 {
		s := r.Result.Content[0].Text
		for i := 0; i < len(s); i++ {
			if s[i] == ':' {
				return s[:i]
			}
		}
	}
	return ""
}
