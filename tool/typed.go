package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/warden-mcp/warden/internal/jsonwalk"
	"log/slog"
	"reflect"
	"runtime/debug"
)

// Func is a typed tool handler. In is the arguments struct (struct{} for a
// tool without arguments), checked and defaulted before the call. Out is
// the result:
//   - a struct (or pointer to one) becomes structured content, with its
//     JSON also given as text, and its schema is published as the tool's
//     output schema;
//   - a string becomes one text block;
//   - a *Result is returned as it is.
//
// Return a *Error for a failure the model should see; any other error, or a
// panic, becomes internal_error and its cause goes only to the log.
type Func[In, Out any] func(ctx context.Context, call *Call, in In) (Out, error)

// New builds a typed tool without registering it.
func New[In, Out any](def Def, fn Func[In, Out]) (*Tool, error) {
	if fn == nil {
		return nil, fmt.Errorf("tool %s: nil handler", def.Name)
	}
	if err := def.check(); err != nil {
		return nil, err
	}
	inT := reflect.TypeFor[In]()
	root, err := deriveObject(inT)
	if err != nil {
		return nil, fmt.Errorf("tool %s: %w", def.Name, err)
	}
	t := &Tool{Def: def, inputSchema: schemaOf(root)}
	for _, f := range root.fields {
		if f.header != "" {
			t.headers = append(t.headers, HeaderParam{Arg: f.name, Header: f.header, Kind: headerKind(f.node.kind)})
		}
	}
	outT := reflect.TypeFor[Out]()
	passthrough := outT == reflect.TypeFor[*Result]()
	isString := outT.Kind() == reflect.String
	if !passthrough && !isString {
		os, ok, err := outputSchemaOf(outT)
		if err != nil {
			return nil, fmt.Errorf("tool %s: output: %w", def.Name, err)
		}
		if ok {
			t.outputSchema = os
		}
	}
	hasOut := t.outputSchema != nil
	t.handler = func(ctx context.Context, call *Call, args json.RawMessage) (*Result, error) {
		var in In
		env := decodeEnv{eval: call.eval(ctx)}
		if perr := decodeArgs(root, args, reflect.ValueOf(&in).Elem(), &env); perr != nil {
			code := perr.Code
			if code == "" {
				code = CodeInvalidParams
			}
			return nil, &Error{Code: code, Message: perr.Message}
		}
		out, err := fn(ctx, call, in)
		if err != nil {
			return nil, err
		}
		switch v := any(out).(type) {
		case *Result:
			if v == nil {
				return nil, errors.New("handler returned a nil result")
			}
			return v, nil
		case string:
			return &Result{Content: []Content{Text(v)}}, nil
		}
		if isString { // a named string type
			return &Result{Content: []Content{Text(reflect.ValueOf(out).String())}}, nil
		}
		b, err := json.Marshal(out)
		if err != nil {
			return nil, fmt.Errorf("result cannot be serialized: %w", err)
		}
		if hasOut && (len(b) == 0 || b[0] != '{') {
			return nil, errors.New("result is not a JSON object")
		}
		return &Result{Content: []Content{Text(string(b))}, Structured: b}, nil
	}
	if err := t.buildListing(); err != nil {
		return nil, err
	}
	return t, nil
}

// Add builds a typed tool and registers it, panicking on a bad definition:
// registration is eager, so mistakes surface at start-up.
func Add[In, Out any](r *Registry, def Def, fn Func[In, Out]) *Tool {
	t, err := New(def, fn)
	if err != nil {
		panic(err)
	}
	r.MustRegister(t)
	return t
}

// NewRaw builds a tool from an explicit input schema (a JSON Schema object
// with "type":"object") and a handler that receives the raw arguments,
// already validated against that schema.
func NewRaw(def Def, inputSchema json.RawMessage, h Handler) (*Tool, error) {
	if h == nil {
		return nil, fmt.Errorf("tool %s: nil handler", def.Name)
	}
	if err := def.check(); err != nil {
		return nil, err
	}
	v, err := compileRawSchema(inputSchema)
	if err != nil {
		return nil, fmt.Errorf("tool %s: input schema: %w", def.Name, err)
	}
	t := &Tool{Def: def, inputSchema: v.published, headers: v.headers}
	t.handler = func(ctx context.Context, call *Call, args json.RawMessage) (*Result, error) {
		if len(args) == 0 || jsonwalk.IsNull(args) {
			args = json.RawMessage("{}")
		}
		if msg := v.validate(args); msg != "" {
			return nil, &Error{Code: CodeInvalidParams, Message: msg}
		}
		return h(ctx, call, args)
	}
	if err := t.buildListing(); err != nil {
		return nil, err
	}
	return t, nil
}

// AddRaw builds a raw tool and registers it, panicking on a bad definition.
func AddRaw(r *Registry, def Def, inputSchema json.RawMessage, h Handler) *Tool {
	t, err := NewRaw(def, inputSchema, h)
	if err != nil {
		panic(err)
	}
	r.MustRegister(t)
	return t
}

func headerKind(k kind) string {
	switch k {
	case kInt, kUint:
		return "integer"
	case kBool:
		return "boolean"
	}
	return "string"
}

// invoke runs the handler and shapes whatever comes back into the result a
// client sees. Nothing a handler does - error, panic, bad output - escapes
// as anything but a well-formed result.
func (t *Tool) invoke(ctx context.Context, call *Call, args json.RawMessage) (res *Result) {
	if call == nil {
		call = NewCall(t.Name, CallEnv{})
	}
	defer func() {
		if p := recover(); p != nil {
			call.Logger().LogAttrs(ctx, slog.LevelError, "tool panicked",
				slog.String("tool", t.Name), slog.String("panic", fmt.Sprint(p)),
				slog.String("stack", string(debug.Stack())))
			res = errorResult(internalError(), t.outputSchema != nil)
		}
	}()
	if len(args) > 0 && !json.Valid(args) {
		return errorResult(&Error{Code: CodeInvalidParams, Message: "arguments must be a JSON object"}, t.outputSchema != nil)
	}
	r, err := t.handler(ctx, call, args)
	if err != nil {
		return t.shapeError(ctx, call, err)
	}
	if r == nil {
		call.Logger().LogAttrs(ctx, slog.LevelError, "tool returned no result", slog.String("tool", t.Name))
		return errorResult(internalError(), t.outputSchema != nil)
	}
	if t.Catalog.ConsumesQuota && !r.IsError && !call.hasBegun() {
		// A quota tool that did its work without being admitted would
		// be a free scan: refuse the result rather than return it.
		call.Logger().LogAttrs(ctx, slog.LevelError, "tool consumes quota but never called Call.Begin", slog.String("tool", t.Name))
		return errorResult(internalError(), t.outputSchema != nil)
	}
	addWarnings(r, call.takeWarnings())
	return r
}

func internalError() *Error {
	return &Error{Code: CodeInternal, Message: "the tool failed; the server log has the cause"}
}

// Interrupt is a result-shaped signal from a handler that the protocol
// layer, not the client, must handle: input required or a missing client
// capability.
type Interrupt struct {
	// Err is ErrInputRequired, a *MissingCapabilityError or a
	// *ProtocolError.
	Err error
	// Pending are the unanswered input requests, and State the handler
	// state to carry, when Err is ErrInputRequired. The server fills
	// them from the Call.
	Pending map[string]InputRequest
	State   []byte
}

// ErrorResult shapes a tool error as the result a client of t receives.
// Servers and hooks use it to refuse a call in the tool's own format.
func ErrorResult(t *Tool, e *Error) *Result {
	return errorResult(e, t.outputSchema != nil)
}

func (t *Tool) shapeError(ctx context.Context, call *Call, err error) *Result {
	if errors.Is(err, ErrInputRequired) {
		return &Result{Interrupt: &Interrupt{Err: ErrInputRequired}}
	}
	var mc *MissingCapabilityError
	if errors.As(err, &mc) {
		return &Result{Interrupt: &Interrupt{Err: mc}}
	}
	var pe *ProtocolError
	if errors.As(err, &pe) {
		return &Result{Interrupt: &Interrupt{Err: pe}}
	}
	if te, ok := asToolError(err); ok {
		if te.Cause != nil {
			call.Logger().LogAttrs(ctx, slog.LevelWarn, "tool error",
				slog.String("tool", t.Name), slog.String("code", te.Code), slog.String("cause", te.Cause.Error()))
		}
		r := errorResult(te, t.outputSchema != nil)
		addWarnings(r, call.takeWarnings())
		return r
	}
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return errorResult(&Error{Code: CodeCancelled, Message: "the call was cancelled"}, t.outputSchema != nil)
	}
	call.Logger().LogAttrs(ctx, slog.LevelError, "tool failed",
		slog.String("tool", t.Name), slog.String("cause", err.Error()))
	return errorResult(internalError(), t.outputSchema != nil)
}
