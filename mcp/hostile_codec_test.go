package mcp_test

import (
	"strings"
	"testing"

	"github.com/warden-mcp/warden/mcp"
)

// TestHostileEscapedMemberNames: JSON lets a member name be written with
// escapes ("m\u0065thod", or "/" as "\/", which some encoders emit by
// default). Such a name is the same member as its plain spelling: it is
// understood, and a repeat in another spelling is a duplicate, so the
// server never reads a different member than a standard parser would.
func TestHostileEscapedMemberNames(t *testing.T) {
	cases := []struct {
		name   string
		msg    string
		method string
		code   int
	}{
		{"escaped method", `{"jsonrpc":"2.0","id":1,"m\u0065thod":"tools/list"}`, "tools/list", 0},
		{"escaped jsonrpc", `{"j\u0073onrpc":"2.0","id":1,"method":"ping"}`, "ping", 0},
		{"method twice, one escaped", `{"jsonrpc":"2.0","id":1,"method":"tools/list","m\u0065thod":"tools/call"}`, "", mcp.CodeInvalidRequest},
		{"id twice, one escaped", `{"jsonrpc":"2.0","id":1,"\u0069d":2,"method":"ping"}`, "", mcp.CodeInvalidRequest},
		{"case is not an escape", `{"jsonrpc":"2.0","id":1,"method":"ping","METHOD":"tools/call"}`, "ping", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := mcp.ParseMessage([]byte(tc.msg))
			code := 0
			if err != nil {
				code = err.Code
			}
			if code != tc.code {
				t.Fatalf("code %d, want %d (%v)", code, tc.code, err)
			}
			if err == nil && m.Method != tc.method {
				t.Errorf("method %q, want %q", m.Method, tc.method)
			}
		})
	}
}

// TestHostileEscapedMeta: over HTTP, a request whose _meta and params
// names escape "/" (as PHP's json_encode does by default) is served, and
// _meta members given twice are refused with 400 / -32602.
func TestHostileEscapedMeta(t *testing.T) {
	fx := newPeerFixture(t)
	ts, _ := hostileServer(t, fx)
	escMeta := `"_meta":{"io.modelcontextprotocol\/protocolVersion":"2026-07-28","io.modelcontextprotocol\/clientCapabilities":{"elicitation":{}}}`
	list := modernHeaders("tools/list")
	call := with(modernHeaders("tools/call"), "Mcp-Name", "peer_echo")
	cases := []struct {
		name   string
		h      map[string][]string
		body   string
		status int
		code   int
	}{
		{"escaped slashes", list, `{"jsonrpc":"2.0","id":1,"method":"tools\/list","params":{` + escMeta + `}}`, 200, 0},
		{"escaped params name", call, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + escMeta + `,"n\u0061me":"peer_echo","arguments":{"text":"x"}}}`, 200, 0},
		{"name twice, one escaped", call, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + escMeta + `,"name":"peer_echo","n\u0061me":"peer_fail"}}`, 400, mcp.CodeInvalidParams},
		{"version twice", list, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, 400, mcp.CodeInvalidParams},
		{"version twice, one escaped", list, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol\/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`, 400, mcp.CodeInvalidParams},
		{"capabilities twice", list, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientCapabilities":{"sampling":{}}}}}`, 400, mcp.CodeInvalidParams},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, body, code := send(t, ts, post(tc.h, tc.body))
			if status != tc.status || code != tc.code {
				t.Errorf("got %d / %d, want %d / %d; body %s", status, code, tc.status, tc.code, trunc(body))
			}
			if tc.status == 200 && !strings.Contains(string(body), `"result"`) {
				t.Errorf("no result: %s", trunc(body))
			}
		})
	}
}
