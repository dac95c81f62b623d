package toolset

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/warden-mcp/warden/errcode"
	"github.com/warden-mcp/warden/internal/jsonwalk"
	"github.com/warden-mcp/warden/plugin"
	"github.com/warden-mcp/warden/tool"
)

// PluginServices serves plugins' host functions with the built-in tools
// themselves: a view read is the bininspect_ tool of the same name run on
// the plugin call's view, an annotation the bininspect_ write, an HTTP
// request http_request (the SSRF-safe client, every hop checked against
// the tool scope). So a plugin reads and writes exactly what those tools
// would, with the same limits, the same privacy of raw bytes and the same
// per-tenant annotations, and no second implementation to drift.
//
// allowed says whether the caller may call a built-in tool (its switch,
// the unsafe switch, the caller's entitlement): a plugin reaches through
// a host function only what its caller could call directly. Nil refuses
// every host function that runs a built-in tool.
func PluginServices(reg *tool.Registry, allowed func(ctx context.Context, t *tool.Tool) bool) *plugin.Services {
	run := func(ctx context.Context, call *tool.Call, name string, req json.RawMessage, onView bool) (json.RawMessage, error) {
		t, ok := reg.Lookup(name)
		if !ok {
			return nil, errcode.New(plugin.CodeUnavailable, name+" is not served by this server")
		}
		if allowed == nil || !allowed(ctx, t) {
			return nil, errcode.New("forbidden", "the caller may not use "+name+", which this host function runs")
		}
		return runForPlugin(ctx, t, call, req, onView)
	}
	return &plugin.Services{
		View: func(ctx context.Context, call *tool.Call, op string, req json.RawMessage) (json.RawMessage, error) {
			return run(ctx, call, "bininspect_"+op, req, true)
		},
		Annotate: func(ctx context.Context, call *tool.Call, op string, req json.RawMessage) (json.RawMessage, error) {
			return run(ctx, call, "bininspect_"+op, req, true)
		},
		HTTP: func(ctx context.Context, call *tool.Call, req json.RawMessage) (json.RawMessage, error) {
			return run(ctx, call, "http_request", req, false)
		},
	}
}

// runForPlugin runs the built-in tool t for a plugin's call: on the
// call's view (onView), as the call's caller, its arguments checked as
// a client's would be. It returns the tool's structured result, or its
// error as the plugin should read it.
func runForPlugin(ctx context.Context, t *tool.Tool, call *tool.Call, req json.RawMessage, onView bool) (json.RawMessage, error) {
	name := t.Name
	args := req
	if onView {
		bv, err := boundOf(call)
		if err != nil {
			return nil, err
		}
		obj := map[string]json.RawMessage{}
		if jsonwalk.Kind(req) != "object" || json.Unmarshal(req, &obj) != nil {
			return nil, errcode.New(tool.CodeInvalidParams, "the request must be a JSON object")
		}
		if _, named := obj[tool.ViewParam]; named {
			return nil, errcode.New(tool.CodeInvalidParams, "a plugin reads the view its call acts on; leave out view")
		}
		obj[tool.ViewParam], _ = json.Marshal(bv.handle)
		if args, err = json.Marshal(obj); err != nil {
			return nil, err
		}
	}
	c := tool.NewCall(t, args, tool.CallEnv{Session: call.Session(), Logger: call.Logger(), CorrelationID: call.CorrelationID()})
	if who, ok := call.Caller(); ok {
		c.SetCaller(who)
	}
	out := tool.Invoke(ctx, c)
	if out.Result == nil {
		return nil, errcode.New("input_unavailable", name+" needs the client's input, which a plugin cannot give")
	}
	r := out.Result
	if r.IsError {
		msg := ""
		for _, b := range r.Content {
			msg += b.Text
		}
		msg = strings.TrimPrefix(msg, r.ErrorCode+": ")
		return nil, errcode.New(r.ErrorCode, msg)
	}
	if len(r.Structured) > 0 {
		return r.Structured, nil
	}
	return json.Marshal(map[string]any{"content": r.Content})
}
