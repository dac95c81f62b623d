package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
)

// Func is a typed tool handler. In is the arguments struct (struct{} for a
// tool without arguments), checked and defaulted before the call. Out is
// the result:
//   - a struct (or pointer to one) becomes structured content, with its
//     JSON also given as text, and its schema is published as the tool's
//     output schema;
//   - a string becomes one text block (an empty string, a block with
//     "text":"");
//   - a *Result is returned as it is, completed as Result describes.
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
	if def.OutputSchema != nil {
		return nil, fmt.Errorf("tool %s: typed tools derive their output schema; Def.OutputSchema is for raw tools", def.Name)
	}
	root, err := deriveObject(reflect.TypeFor[In]())
	if err != nil {
		return nil, fmt.Errorf("tool %s: %w", def.Name, err)
	}
	if def.Scope == ViewScoped {
		if err := reserveViewParam(root); err != nil {
			return nil, fmt.Errorf("tool %s: %w", def.Name, err)
		}
	}
	if p := def.Catalog.TargetParam; p != "" {
		if f, ok := root.byName[p]; !ok || f.node.kind != kString || f.reserved {
			return nil, fmt.Errorf("tool %s: target parameter %q is not a string parameter of the tool", def.Name, p)
		}
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
	var outNode *node
	if !passthrough && !isString {
		os, n, err := outputSchemaOf(outT)
		if err != nil {
			return nil, fmt.Errorf("tool %s: output: %w", def.Name, err)
		}
		if n != nil {
			t.outputSchema, outNode = os, n
		}
	}
	redacts := outNode != nil && outNode.redacts()
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
		var v any = out
		if redacts {
			if fn := call.stages().redact; fn != nil {
				v = redactOutput(outNode, out, fn)
			}
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("result cannot be serialized: %w", err)
		}
		if hasOut && (len(b) == 0 || b[0] != '{') {
			return nil, errors.New("result is not a JSON object")
		}
		return &Result{Content: []Content{Text(string(b))}, Structured: b, built: true}, nil
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

func headerKind(k kind) string {
	switch k {
	case kInt, kUint:
		return "integer"
	case kBool:
		return "boolean"
	}
	return "string"
}
