package mcp

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/warden-mcp/warden/tool"
)

const testMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

type testView struct{}

func (testView) ViewName() string { return "t.bin" }

func scopedRegistry() *tool.Registry {
	reg := tool.NewRegistry()
	d := tool.Def{Name: "view_name", Description: "Names the active view.", Scope: tool.ViewScoped,
		Annotations: tool.Annotations{ReadOnly: true}, Catalog: tool.Catalog{Category: "binary", Trust: tool.TrustAuto}}
	tool.Add(reg, d, func(ctx context.Context, c *tool.Call, _ struct{}) (string, error) {
		v, _ := c.View()
		return v.ViewName(), nil // scoped: the server guarantees a view
	})
	return reg
}

func TestViewScopedTools(t *testing.T) {
	call := func(args string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"view_name","arguments":` + args + `,` + testMeta + `}}`
	}
	srv := NewServer(scopedRegistry(), nil)
	got := string(srv.ServeMessage(context.Background(), []byte(call(`{}`)), nil))
	if !strings.Contains(got, `"isError":true`) || !strings.Contains(got, `no_active_binary_view: `) {
		t.Errorf("without a resolver: %s", got)
	}
	type query struct{ tool, handle, session string }
	var seen []query
	resolve := func(ctx context.Context, c *tool.Call, handle string) (tool.View, []tool.Warning, error) {
		seen = append(seen, query{c.Tool().Name, handle, c.Session()})
		switch handle {
		case "":
			return testView{}, []tool.Warning{{Code: "implicit_view", Message: "used the only open view"}}, nil
		case "v1":
			return testView{}, nil, nil
		}
		return nil, nil, &tool.Error{Code: tool.CodeNoActiveView, Message: "no such view", Details: map[string]any{"views": []string{"v1"}}}
	}
	srv = NewServer(scopedRegistry(), &Options{Middleware: []tool.Middleware{tool.ResolveViews(resolve)}})
	got = string(srv.ServeMessage(context.Background(), []byte(call(`{}`)), nil))
	if !strings.Contains(got, `"text":"t.bin"`) || !strings.Contains(got, `implicit_view: used the only open view`) {
		t.Errorf("implicit view: %s", got)
	}
	got = string(srv.ServeMessage(context.Background(), []byte(call(`{"view":"v1"}`)), nil))
	if !strings.Contains(got, `"text":"t.bin"`) || strings.Contains(got, "implicit_view") {
		t.Errorf("named view: %s", got)
	}
	got = string(srv.ServeMessage(context.Background(), []byte(call(`{"view":"v9"}`)), nil))
	if !strings.Contains(got, `"errorCode":"no_active_binary_view"`) || !strings.Contains(got, `"details":{"views":["v1"]}`) {
		t.Errorf("unknown view: %s", got)
	}
	got = string(srv.ServeMessage(context.Background(), []byte(call(`{"view":7}`)), nil))
	if !strings.Contains(got, `invalid_params`) {
		t.Errorf("a non-string view: %s", got)
	}
	if len(seen) != 3 || seen[0].tool != "view_name" || seen[1].handle != "v1" || seen[0].session != "" {
		t.Errorf("resolver saw %+v", seen)
	}
}

func TestServeMessageErrors(t *testing.T) {
	srv := NewServer(scopedRegistry(), nil)
	cases := map[string]int{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`:                                                                                                                      CodeInvalidParams,
		`{"jsonrpc":"2.0","id":1,"method":"nope","params":{` + testMeta + `}}`:                                                                                                            CodeMethodNotFound,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"missing",` + testMeta + `}}`:                                                                                     CodeInvalidParams,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"view_name","arguments":[],` + testMeta + `}}`:                                                                    CodeInvalidParams,
		`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1999-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`: CodeUnsupportedVer,
		`[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]`:                                                                                                                                CodeInvalidRequest,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`:                                                                                                                            CodeInvalidRequest,
		`{not json`: CodeParseError,
	}
	for msg, code := range cases {
		var resp struct {
			ID    json.RawMessage `json:"id"`
			Error *WireError      `json:"error"`
		}
		out := srv.ServeMessage(context.Background(), []byte(msg), nil)
		if err := json.Unmarshal(out, &resp); err != nil || resp.Error == nil || resp.Error.Code != code {
			t.Errorf("%s: got %s, want code %d", msg, out, code)
		}
	}
}

// A legacy session answers only the caller that opened it, and one caller
// cannot hold more than its share of sessions.
func TestLegacySessionsBelongToTheirCaller(t *testing.T) {
	h := NewHTTPHandler(NewServer(scopedRegistry(), nil), nil)
	post := func(caller, sid, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", "/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req.WithContext(WithCaller(req.Context(), caller)))
		return rec
	}
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`
	sid := post("alice", "", initialize).Header().Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatal("no session")
	}
	const list = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	if rec := post("alice", sid, list); rec.Code != 200 {
		t.Errorf("owner: %d %s", rec.Code, rec.Body)
	}
	if rec := post("mallory", sid, list); rec.Code != 404 {
		t.Errorf("another caller: %d %s", rec.Code, rec.Body)
	}
	for i := 1; i < maxSessionsPerCaller; i++ {
		post("alice", "", initialize)
	}
	if rec := post("alice", "", initialize); rec.Code != 503 {
		t.Errorf("session %d for one caller: %d", maxSessionsPerCaller+1, rec.Code)
	}
	if rec := post("bob", "", initialize); rec.Code != 200 {
		t.Errorf("another caller's first session: %d", rec.Code)
	}
}

// An input round or a task started by one caller cannot be continued or
// read by another.
func TestRoundsAndTasksBelongToTheirCaller(t *testing.T) {
	reg := tool.NewRegistry()
	def := tool.Def{Name: "ask", Description: "Asks a name.", Annotations: tool.Annotations{ReadOnly: true}, Catalog: tool.Catalog{Category: "test", Trust: tool.TrustAuto}}
	tool.Add(reg, def, func(ctx context.Context, c *tool.Call, _ struct{}) (string, error) {
		got, err := c.Input(ctx, map[string]tool.InputRequest{"name": tool.Elicit("Name?", json.RawMessage(`{"type":"object","properties":{"n":{"type":"string"}}}`))})
		if err != nil {
			return "", err
		}
		return "hello " + string(got["name"]), nil
	})
	tdef := tool.Def{Name: "slow", Description: "Runs as a task.", Tasks: tool.TasksOptional, Annotations: tool.Annotations{ReadOnly: true}, Catalog: tool.Catalog{Category: "test", Trust: tool.TrustAuto}}
	tool.Add(reg, tdef, func(ctx context.Context, c *tool.Call, _ struct{}) (string, error) {
		c.Detach()
		<-ctx.Done()
		return "", ctx.Err()
	})
	srv := NewServer(reg, &Options{Tasks: true})
	defer srv.Close()
	const capsMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	call := func(caller, params string) map[string]any {
		msg := `{"jsonrpc":"2.0","id":1,"method":"` + params
		out := srv.ServeMessage(WithCaller(context.Background(), caller), []byte(msg), nil)
		var resp map[string]any
		if err := json.Unmarshal(out, &resp); err != nil {
			t.Fatalf("%s: %v", out, err)
		}
		return resp
	}
	first := call("alice", `tools/call","params":{"name":"ask",`+capsMeta+`}}`)
	res, _ := first["result"].(map[string]any)
	state, _ := res["requestState"].(string)
	if state == "" {
		t.Fatalf("no input round: %v", first)
	}
	retry := `tools/call","params":{"name":"ask","inputResponses":{"name":{"action":"accept","content":{"n":"x"}}},"requestState":"` + state + `",` + capsMeta + `}}`
	if r := call("mallory", retry); r["error"] == nil {
		t.Errorf("another caller finished alice's round: %v", r)
	}
	if r := call("alice", retry); r["error"] != nil {
		t.Errorf("alice's own retry: %v", r)
	}
	created := call("alice", `tools/call","params":{"name":"slow",`+capsMeta+`}}`)
	cres, _ := created["result"].(map[string]any)
	id, _ := cres["taskId"].(string)
	if id == "" {
		t.Fatalf("no task: %v", created)
	}
	get := `tasks/get","params":{"taskId":"` + id + `",` + capsMeta + `}}`
	if r := call("mallory", get); r["error"] == nil {
		t.Errorf("another caller read alice's task: %v", r)
	}
	if r := call("alice", get); r["error"] != nil {
		t.Errorf("alice's own task: %v", r)
	}
	cancel := `tasks/cancel","params":{"taskId":"` + id + `",` + capsMeta + `}}`
	if r := call("mallory", cancel); r["error"] == nil {
		t.Errorf("another caller cancelled alice's task: %v", r)
	}
	call("alice", cancel)
}
