// Package kit is the Go kit for Warden plugins: a tool is a typed handler
// and a struct of arguments, as with the SDK (tool.Add), compiled to
// WebAssembly (GOOS=wasip1 GOARCH=wasm, -buildmode=c-shared) and loaded
// by a running Warden from its plugin directory.
//
//	type echoArgs struct {
//		Text string `json:"text" desc:"The text to return."`
//	}
//	type echoResult struct {
//		Text string `json:"text"`
//	}
//
//	func init() {
//		kit.Add("mine_echo", func(c *kit.Call, in echoArgs) (echoResult, error) {
//			return echoResult{Text: in.Text}, nil
//		})
//	}
//
//	func main() {}
//
// Register tools in init: a c-shared module runs its package
// initialisers when Warden instantiates it, never main. The input and
// output schemas come from the types exactly as the SDK derives them;
// `warden plugin build` writes them into the manifest, where the rest of
// each tool's definition (title, description, annotations, trust, scope,
// capabilities) is written by hand. Everything else a handler reaches
// goes through Call: the active view, annotations, HTTP, logs and
// progress, as the operator granted them.
package kit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/warden-mcp/warden/tool"
)

// Error is a failure the model should see: a stable snake_case code and
// a short message. A handler returns it; any other error becomes
// plugin_failed with the error's text.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Call is one tool call as the handler sees it: the host functions.
type Call struct{}

type entry struct {
	name string
	run  func(c *Call, args []byte) (any, error)
	in   json.RawMessage
	out  json.RawMessage
}

var tools = map[string]*entry{}

// Add registers a tool: name is the manifest's name for it, fn its
// handler. In is the arguments struct, Out the result (a struct, which
// becomes structured content, or a string). The host has checked the
// arguments against the schema derived from In and filled in its
// top-level defaults before the plugin runs; the kit decodes them with
// encoding/json. Add panics on a name used twice or types the SDK cannot
// derive a schema from.
func Add[In, Out any](name string, fn func(c *Call, in In) (Out, error)) {
	if _, dup := tools[name]; dup {
		panic("kit: tool " + name + " added twice")
	}
	t, err := tool.New(tool.Def{Name: name, Description: name,
		Catalog: tool.Catalog{Category: "plugin", Trust: tool.TrustConfirm}},
		func(context.Context, *tool.Call, In) (Out, error) { var zero Out; return zero, nil })
	if err != nil {
		panic("kit: " + err.Error())
	}
	tools[name] = &entry{
		name: name,
		in:   t.InputSchema(),
		out:  withoutWarnings(t.OutputSchema()),
		run: func(c *Call, args []byte) (any, error) {
			var in In
			if err := json.Unmarshal(args, &in); err != nil {
				return nil, &Error{Code: "invalid_params", Message: "the arguments do not fit the tool's type"}
			}
			return fn(c, in)
		},
	}
}

// withoutWarnings drops the SDK's reserved warnings member from a derived
// output schema: the host declares it again for every plugin tool.
func withoutWarnings(schema json.RawMessage) json.RawMessage {
	if schema == nil {
		return nil
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(schema, &obj) != nil {
		return schema
	}
	var props map[string]json.RawMessage
	if json.Unmarshal(obj["properties"], &props) != nil {
		return schema
	}
	delete(props, "warnings")
	obj["properties"], _ = json.Marshal(props)
	out, _ := json.Marshal(obj)
	return out
}

// Describe returns the tools' schemas as `warden plugin build` writes
// them into the manifest: [{"name", "input_schema", "output_schema"}].
func Describe() []byte {
	type desc struct {
		Name   string          `json:"name"`
		Input  json.RawMessage `json:"input_schema"`
		Output json.RawMessage `json:"output_schema,omitempty"`
	}
	names := make([]string, 0, len(tools))
	for n := range tools {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]desc, 0, len(names))
	for _, n := range names {
		out = append(out, desc{Name: n, Input: tools[n].in, Output: tools[n].out})
	}
	b, _ := json.Marshal(out)
	return b
}

// Dispatch runs the tool name with the JSON arguments and returns the
// answer the host reads: {"result": ...} or {"error": {...}}. The
// WebAssembly export calls it; tests may too.
func Dispatch(name string, args []byte) []byte {
	t, ok := tools[name]
	if !ok {
		return answerErr("unknown_tool", "this plugin has no tool "+name)
	}
	var (
		out any
		err error
	)
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panic: %v", r)
			}
		}()
		out, err = t.run(&Call{}, args)
	}()
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return answerErr(e.Code, e.Message)
		}
		return answerErr("plugin_failed", err.Error())
	}
	b, err := json.Marshal(out)
	if err != nil {
		return answerErr("plugin_failed", "the result cannot be encoded as JSON")
	}
	return append(append([]byte(`{"result":`), b...), '}')
}

func answerErr(code, msg string) []byte {
	b, _ := json.Marshal(map[string]any{"error": Error{Code: code, Message: msg}})
	return b
}

// host calls the host function op with req (marshalled to JSON) and
// decodes its answer into out (nil: ignore it).
func (c *Call) host(op string, req, out any) error {
	raw, err := json.Marshal(req)
	if err != nil {
		return err
	}
	reply, err := hostCall(op, raw)
	if err != nil {
		return err
	}
	var r struct {
		OK    json.RawMessage `json:"ok"`
		Error *Error          `json:"error"`
	}
	if err := json.Unmarshal(reply, &r); err != nil {
		return &Error{Code: "bad_host_reply", Message: "the host's reply is not JSON"}
	}
	if r.Error != nil {
		return r.Error
	}
	if out != nil && len(r.OK) > 0 {
		return json.Unmarshal(r.OK, out)
	}
	return nil
}

// Log sends a log message to the client (capability log). Levels: debug,
// info, notice, warning, error, critical, alert, emergency.
func (c *Call) Log(level, message string) error {
	return c.host("log", map[string]string{"level": level, "message": message}, nil)
}

// Warn attaches a warning to the result (capability log).
func (c *Call) Warn(code, message string) error {
	return c.host("warn", map[string]string{"code": code, "message": message}, nil)
}

// Progress reports progress (capability progress).
func (c *Call) Progress(progress, total float64, message string) error {
	return c.host("progress", map[string]any{"progress": progress, "total": total, "message": message}, nil)
}

// Cancelled reports whether the call was cancelled or ran out of time:
// a long loop checks it and returns.
func (c *Call) Cancelled() bool {
	var r struct {
		Cancelled bool `json:"cancelled"`
	}
	if err := c.host("cancelled", struct{}{}, &r); err != nil {
		return true
	}
	return r.Cancelled
}

// View reads the active view (capability view): op is a bininspect_
// tool's name without the prefix (functions, strings, sections,
// symbols, memory_read, disassemble, eval, ...), req its arguments, out
// receives its structured result.
func (c *Call) View(op string, req, out any) error { return c.host("view."+op, req, out) }

// Annotate writes to the active view (capability annotate): op is
// comment_set, comment_delete or symbol_rename.
func (c *Call) Annotate(op string, req, out any) error { return c.host("annotate."+op, req, out) }

// HTTP sends one request through Warden's SSRF-safe client within the
// tool scope (capability http): req and out are http_request's
// arguments and result.
func (c *Call) HTTP(req, out any) error { return c.host("http.request", req, out) }
