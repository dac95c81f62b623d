package tool

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/warden-mcp/warden/internal/jsonwalk"
)

// RawHandler is the untyped form every tool is reduced to. args are the raw
// JSON arguments of the call (never nil: an absent argument object is {}).
// Most authors use Add instead and never see this type.
type RawHandler func(ctx context.Context, call *Call, args json.RawMessage) (*Result, error)

// NewRaw builds a tool from an explicit input schema (a JSON Schema object
// with "type":"object") and a handler that receives the raw arguments,
// already validated against that schema. As for typed tools, null for a
// parameter the schema does not require means absent: such members are
// removed before validation and never reach the handler. Set
// def.OutputSchema to publish an output schema. A view-scoped raw tool gets
// the reserved view parameter added to its schema; its handler receives
// the view member with the other arguments and finds the view itself
// through Call.View.
func NewRaw(def Def, inputSchema json.RawMessage, h RawHandler) (*Tool, error) {
	if h == nil {
		return nil, fmt.Errorf("tool %s: nil handler", def.Name)
	}
	if err := def.check(); err != nil {
		return nil, err
	}
	v, err := compileRawSchema(inputSchema, def.Scope == ViewScoped)
	if err != nil {
		return nil, fmt.Errorf("tool %s: input schema: %w", def.Name, err)
	}
	if p := def.Catalog.TargetParam; p != "" && v.props[p] != "string" {
		return nil, fmt.Errorf("tool %s: target parameter %q is not a string parameter of the tool", def.Name, p)
	}
	t := &Tool{Def: def, inputSchema: v.published, headers: v.headers}
	if def.OutputSchema != nil {
		if t.outputSchema, err = rawOutputSchema(def.OutputSchema); err != nil {
			return nil, fmt.Errorf("tool %s: output schema: %w", def.Name, err)
		}
	}
	t.handler = func(ctx context.Context, call *Call, args json.RawMessage) (*Result, error) {
		if len(args) == 0 || jsonwalk.IsNull(args) {
			args = json.RawMessage("{}")
		}
		args, err := v.dropNullOptionals(args)
		if err != nil {
			return nil, &Error{Code: CodeInvalidParams, Message: "arguments must be a JSON object"}
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
func AddRaw(r *Registry, def Def, inputSchema json.RawMessage, h RawHandler) *Tool {
	t, err := NewRaw(def, inputSchema, h)
	if err != nil {
		panic(err)
	}
	r.MustRegister(t)
	return t
}
