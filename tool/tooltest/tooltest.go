// Package tooltest is the harness tool authors run over their own
// registries. Check holds every tool to the rules Warden's built-ins meet:
// valid names, descriptions, derivable and closed schemas that keep to
// the subset every MCP client accepts (one type per schema or an anyOf of
// them, widely read keywords only; see checkPortable), all four
// annotation hints, a trust decision, bad arguments mapped to error
// results, and cancellation honoured. Invoke calls a tool in process and
// returns exactly what an MCP client would read.
//
//	func TestMyTools(t *testing.T) {
//		reg := tool.NewRegistry()
//		mytools.Register(reg)
//		tooltest.Check(t, reg, &tooltest.Options{
//			Samples: map[string][]string{"my_tool": {`{"path":"a.txt"}`}},
//		})
//	}
package tooltest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/tool"
)

// Options tune Check. The zero value checks everything that needs no
// sample input.
type Options struct {
	// Samples are valid argument objects per tool name. Each is invoked;
	// its structured content must match the output schema, and a
	// cancelled call with it must return promptly.
	Samples map[string][]string
	// CancelWithin bounds how long a cancelled call may take to return.
	// Zero: 2 seconds.
	CancelWithin time.Duration
	// ResolveView gives view-scoped tools their view, so that their
	// arguments are checked past the view (which the server resolves
	// first). Nil: a view-scoped tool is only checked to refuse a call
	// without a view with no_active_binary_view, as an error result.
	ResolveView tool.ViewResolver
	// RequirePrivacy checks that every string a typed result can carry
	// has a privacy kind (the privacy struct tag, published as
	// x-warden-privacy), plain included, so that a server's privacy mode
	// knows what each one holds. Warden's own tools meet it.
	RequirePrivacy bool
	// AllowUnportableSchemas lets schemas outside the subset every MCP
	// client accepts pass: a raw schema that needs oneOf or $defs, for
	// clients known to read them. Zero: every input and output schema
	// must keep to it (one type per schema, or an anyOf of schemas of one
	// type each; widely read keywords only; see checkPortable), as
	// Warden's own tools do.
	AllowUnportableSchemas bool
}

// Reply is what a client receives for one tools/call.
type Reply struct {
	// Raw is the whole JSON-RPC response.
	Raw json.RawMessage
	// Result is the decoded CallToolResult, when the call had one.
	Result *CallResult
	// Error is the JSON-RPC error, when the call failed at the protocol
	// level.
	Error *mcp.WireError
	// Notifications are the progress and log messages sent before the
	// response, in order.
	Notifications []json.RawMessage
}

// CallResult is the client's view of a tool result.
type CallResult struct {
	Content           []tool.Content  `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
	ResultType        string          `json:"resultType"`
}

// ErrorCode returns the code of an error result ("" when not an error):
// from the structured content when present, else from the text prefix.
func (r *CallResult) ErrorCode() string {
	if r == nil || !r.IsError {
		return ""
	}
	var sc struct {
		Code string `json:"errorCode"`
	}
	if json.Unmarshal(r.StructuredContent, &sc) == nil && sc.Code != "" {
		return sc.Code
	}
	if len(r.Content) > 0 {
		code, _, _ := strings.Cut(r.Content[0].Text, ":")
		return code
	}
	return ""
}

// InvokeOptions tune Invoke. The zero value declares no client
// capabilities, asks for progress and logs, and uses no view.
type InvokeOptions struct {
	// Capabilities is the client capabilities object; nil means {}.
	Capabilities json.RawMessage
	// ServerOptions configure the in-process server (a view resolver,
	// say); nil uses defaults.
	ServerOptions *mcp.Options
}

// Invoke calls a tool of reg through an in-process MCP server, as a
// 2026-07-28 client would, and returns what that client reads. args is a
// JSON object, or "" for none.
func Invoke(ctx context.Context, reg *tool.Registry, name, args string, opts *InvokeOptions) (*Reply, error) {
	var o InvokeOptions
	if opts != nil {
		o = *opts
	}
	srv := mcp.NewServer(reg, o.ServerOptions)
	defer srv.Close()
	caps := o.Capabilities
	if caps == nil {
		caps = json.RawMessage(`{}`)
	}
	params := map[string]any{
		"name": name,
		"_meta": map[string]any{
			"io.modelcontextprotocol/protocolVersion":    mcp.VersionModern,
			"io.modelcontextprotocol/clientCapabilities": caps,
			"io.modelcontextprotocol/logLevel":           "debug",
			"progressToken":                              "tooltest",
		},
	}
	if args != "" {
		params["arguments"] = json.RawMessage(args)
	}
	msg, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
	if err != nil {
		return nil, err
	}
	rep := &Reply{}
	var mu sync.Mutex
	sink := mcp.SinkFunc(func(b []byte) error {
		mu.Lock()
		rep.Notifications = append(rep.Notifications, append(json.RawMessage(nil), b...))
		mu.Unlock()
		return nil
	})
	raw := srv.ServeMessage(ctx, msg, sink)
	if raw == nil {
		return nil, ctx.Err()
	}
	rep.Raw = raw
	var env struct {
		Result *CallResult    `json:"result"`
		Error  *mcp.WireError `json:"error"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		return nil, fmt.Errorf("tooltest: the server's response is not JSON: %w", err)
	}
	rep.Result, rep.Error = env.Result, env.Error
	return rep, nil
}

// TB is the part of testing.TB that Check reports through.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
}

var _ TB = testing.TB(nil)

// Check runs the author checks over every tool of reg, reporting each
// failure on t (a *testing.T in practice).
func Check(t TB, reg *tool.Registry, opts *Options) {
	t.Helper()
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.CancelWithin <= 0 {
		o.CancelWithin = 2 * time.Second
	}
	tools, _ := reg.Tools()
	if len(tools) == 0 {
		t.Errorf("tooltest: the registry has no tools")
	}
	for _, tl := range tools {
		checkDefinition(t, tl, !o.AllowUnportableSchemas)
		if o.RequirePrivacy {
			checkPrivacy(t, tl)
		}
		io := &InvokeOptions{ServerOptions: &mcp.Options{}}
		if o.ResolveView != nil {
			io.ServerOptions.Middleware = []tool.Middleware{tool.ResolveViews(o.ResolveView)}
		}
		if tl.Scope == tool.ViewScoped && o.ResolveView == nil {
			checkNeedsView(t, reg, tl)
		} else {
			checkBadArguments(t, reg, tl, io)
		}
		for _, args := range o.Samples[tl.Name] {
			checkSample(t, reg, tl, args, o.CancelWithin, io)
		}
	}
	for name := range o.Samples {
		if _, ok := reg.Lookup(name); !ok {
			t.Errorf("tooltest: samples given for %s, which is not registered", name)
		}
	}
}

func compile(schema []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refuseLoader{})
	if err := c.AddResource("urn:tooltest", doc); err != nil {
		return nil, err
	}
	return c.Compile("urn:tooltest")
}

type refuseLoader struct{}

func (refuseLoader) Load(string) (any, error) {
	return nil, fmt.Errorf("remote references are not loaded")
}

func checkDefinition(t TB, tl *tool.Tool, portable bool) {
	t.Helper()
	var l struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
		Annotations map[string]any  `json:"annotations"`
		Meta        map[string]struct {
			Trust string `json:"trust"`
		} `json:"_meta"`
	}
	if err := json.Unmarshal(tl.Listing(), &l); err != nil {
		t.Errorf("%s: listing is not JSON: %v", tl.Name, err)
		return
	}
	if strings.TrimSpace(l.Description) == "" {
		t.Errorf("%s: no description", tl.Name)
	}
	for _, h := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
		if _, ok := l.Annotations[h].(bool); !ok {
			t.Errorf("%s: annotation %s is not sent as a boolean", tl.Name, h)
		}
	}
	switch tool.Trust(l.Meta["dev.warden/catalog"].Trust) {
	case tool.TrustAuto, tool.TrustConfirm, tool.TrustConfirmEach:
	default:
		t.Errorf("%s: no trust decision in the catalog", tl.Name)
	}
	var root map[string]any
	if err := json.Unmarshal(l.InputSchema, &root); err != nil || root["type"] != "object" {
		t.Errorf("%s: input schema is not an object schema", tl.Name)
		return
	}
	if root["additionalProperties"] != false {
		t.Errorf("%s: input schema is not closed (additionalProperties: false)", tl.Name)
	}
	if _, err := compile(l.InputSchema); err != nil {
		t.Errorf("%s: input schema does not compile as JSON Schema 2020-12: %v", tl.Name, err)
	}
	if portable {
		checkPortable(t, tl.Name, "input schema", l.InputSchema)
	}
	if os := tl.OutputSchema(); os != nil {
		if _, err := compile(os); err != nil {
			t.Errorf("%s: output schema does not compile: %v", tl.Name, err)
		}
		if portable {
			checkPortable(t, tl.Name, "output schema", os)
		}
	}
}

// checkPrivacy walks the output schema and reports every string without a
// privacy kind: the carrier inventory that keeps a new result field from
// bypassing the privacy mode.
func checkPrivacy(t TB, tl *tool.Tool) {
	t.Helper()
	os := tl.OutputSchema()
	if os == nil {
		return
	}
	var root map[string]any
	if err := json.Unmarshal(os, &root); err != nil {
		t.Errorf("%s: output schema is not JSON: %v", tl.Name, err)
		return
	}
	var walk func(path string, s map[string]any)
	walk = func(path string, s map[string]any) {
		if s == nil {
			return
		}
		if s["type"] == "string" || (s["type"] == nil && s["properties"] == nil && s["items"] == nil) {
			if _, ok := s["x-warden-privacy"].(string); !ok && path != "warnings[].code" && path != "warnings[].message" {
				t.Errorf("%s: result field %s carries no privacy kind (tag it `privacy:\"...\"`, or plain)", tl.Name, path)
			}
		}
		if props, ok := s["properties"].(map[string]any); ok {
			for name, p := range props {
				child, _ := p.(map[string]any)
				walk(join(path, name), child)
			}
		}
		if items, ok := s["items"].(map[string]any); ok {
			walk(path+"[]", items)
		}
		if ap, ok := s["additionalProperties"].(map[string]any); ok {
			walk(path+"{}", ap)
		}
	}
	walk("", root)
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// checkBadArguments: an undeclared parameter must give an error result
// (never a protocol error, never internal_error), and {} must not crash
// the handler.
func checkBadArguments(t TB, reg *tool.Registry, tl *tool.Tool, io *InvokeOptions) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rep, err := Invoke(ctx, reg, tl.Name, `{"tooltest_undeclared_parameter":true}`, io)
	switch {
	case err != nil:
		t.Errorf("%s: invoke: %v", tl.Name, err)
	case rep.Error != nil:
		t.Errorf("%s: an undeclared parameter gave a protocol error (%d %s); want an error result", tl.Name, rep.Error.Code, rep.Error.Message)
	case !rep.Result.IsError:
		t.Errorf("%s: an undeclared parameter was accepted", tl.Name)
	case rep.Result.ErrorCode() == tool.CodeInternal:
		t.Errorf("%s: an undeclared parameter gave internal_error", tl.Name)
	}
	rep, err = Invoke(ctx, reg, tl.Name, `{}`, io)
	if err == nil && rep.Result != nil && rep.Result.ErrorCode() == tool.CodeInternal {
		t.Errorf("%s: empty arguments crashed the handler (internal_error)", tl.Name)
	}
}

// checkNeedsView: without a view, a view-scoped tool is refused by the
// server with no_active_binary_view, as an error result.
func checkNeedsView(t TB, reg *tool.Registry, tl *tool.Tool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// A resolver that finds no view stands in for the family's own, which
	// may need what the harness does not give (a caller, a store).
	none := func(context.Context, *tool.Call, string) (tool.View, []tool.Warning, error) { return nil, nil, nil }
	io := &InvokeOptions{ServerOptions: &mcp.Options{Middleware: []tool.Middleware{tool.ResolveViews(none)}}}
	rep, err := Invoke(ctx, reg, tl.Name, `{}`, io)
	switch {
	case err != nil:
		t.Errorf("%s: invoke: %v", tl.Name, err)
	case rep.Error != nil:
		t.Errorf("%s: a call without a view gave a protocol error (%d %s); want an error result", tl.Name, rep.Error.Code, rep.Error.Message)
	case rep.Result.ErrorCode() != tool.CodeNoActiveView:
		t.Errorf("%s: a call without a view gave %q; want %s (pass Options.ResolveView to check its arguments)", tl.Name, rep.Result.ErrorCode(), tool.CodeNoActiveView)
	}
}

func checkSample(t TB, reg *tool.Registry, tl *tool.Tool, args string, within time.Duration, io *InvokeOptions) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep, err := Invoke(ctx, reg, tl.Name, args, io)
	if err != nil {
		t.Errorf("%s %s: %v", tl.Name, args, err)
		return
	}
	if rep.Error != nil {
		t.Errorf("%s %s: protocol error %d %s", tl.Name, args, rep.Error.Code, rep.Error.Message)
		return
	}
	if rep.Result.ErrorCode() == tool.CodeInternal {
		t.Errorf("%s %s: internal_error", tl.Name, args)
	}
	if os := tl.OutputSchema(); os != nil && !rep.Result.IsError {
		sch, err := compile(os)
		if err == nil {
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(rep.Result.StructuredContent))
			if err != nil {
				t.Errorf("%s %s: structured content is not JSON", tl.Name, args)
			} else if err := sch.Validate(inst); err != nil {
				t.Errorf("%s %s: structured content does not match the output schema: %v", tl.Name, args, err)
			}
		}
	}
	// Cancellation: a call whose context is already cancelled returns
	// promptly and never as a success that hides the cancellation badly.
	cctx, ccancel := context.WithCancel(context.Background())
	ccancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = Invoke(cctx, reg, tl.Name, args, io)
	}()
	select {
	case <-done:
	case <-time.After(within):
		t.Errorf("%s %s: a cancelled call did not return within %v", tl.Name, args, within)
	}
}
