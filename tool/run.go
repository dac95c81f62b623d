package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
)

// errCallEnded is the cause of a call's context once its handler has
// returned: a goroutine the handler left behind sees it as cancelled.
var errCallEnded = errors.New("the call has ended")

// run is the whole life of one call: the view resolved, the arguments
// checked, the handler run, and whatever comes back - a result, an error,
// a panic, bad output - shaped into the result a client receives, or into
// an interrupt the server handles. Nothing escapes as anything else.
func (t *Tool) run(ctx context.Context, call *Call) (out Outcome) {
	st := call.stages()
	ctx, cancel := context.WithCancelCause(ctx)
	defer func() {
		call.end()
		cancel(errCallEnded)
	}()
	defer func() {
		if p := recover(); p != nil {
			call.Logger().LogAttrs(ctx, slog.LevelError, "tool panicked",
				slog.String("tool", t.Name), slog.String("panic", fmt.Sprint(p)),
				slog.String("stack", string(debug.Stack())))
			out = Outcome{Result: t.errorResult(internalError())}
		}
	}()
	if !call.wellFormed {
		return Outcome{Result: t.errorResult(&Error{Code: CodeInvalidParams, Message: "arguments must be a JSON object"})}
	}
	if t.Scope == ViewScoped {
		resolve := st.resolve
		if resolve == nil {
			resolve = t.family.resolver()
		}
		if res := t.resolveView(ctx, call, resolve); res != nil {
			return Outcome{Result: res}
		}
	}
	r, err := t.handler(ctx, call, call.args)
	if err != nil {
		return t.shapeError(ctx, call, err)
	}
	if r == nil {
		call.Logger().LogAttrs(ctx, slog.LevelError, "tool returned no result", slog.String("tool", t.Name))
		return Outcome{Result: t.errorResult(internalError())}
	}
	if t.Catalog.ConsumesQuota && !r.IsError && !call.hasBegun() {
		// A quota tool that did its work without being admitted would
		// be a free scan: refuse the result rather than return it.
		call.Logger().LogAttrs(ctx, slog.LevelError, "tool consumes quota but never called Call.Begin", slog.String("tool", t.Name))
		return Outcome{Result: t.errorResult(internalError())}
	}
	if t.Catalog.ApproveAtBegin && !r.IsError && !call.hasBegun() {
		// Approval is asked at Begin: a result reached without it
		// was never approved.
		call.Logger().LogAttrs(ctx, slog.LevelError, "tool approves at Begin but never called Call.Begin", slog.String("tool", t.Name))
		return Outcome{Result: t.errorResult(internalError())}
	}
	res, err := complete(r, call.takeWarnings())
	if err != nil {
		call.Logger().LogAttrs(ctx, slog.LevelError, "tool result is not well-formed",
			slog.String("tool", t.Name), slog.String("cause", err.Error()))
		return Outcome{Result: t.errorResult(internalError())}
	}
	return Outcome{Result: res}
}

// resolveView finds the view a view-scoped call acts on, before its
// arguments are decoded (address parameters are evaluated against it). It
// returns the refusal, or nil when the call has its view.
func (t *Tool) resolveView(ctx context.Context, call *Call, resolve ViewResolver) *Result {
	handle, err := call.viewHandle()
	if err != nil {
		return t.errorResult(&Error{Code: CodeInvalidParams, Message: err.Error()})
	}
	if resolve == nil {
		return t.errorResult(&Error{Code: CodeNoActiveView, Message: noViewMessage})
	}
	v, warnings, err := resolve(ctx, call, handle)
	if err != nil {
		return t.shapeError(ctx, call, err).Result
	}
	if v == nil {
		return t.errorResult(&Error{Code: CodeNoActiveView, Message: noViewMessage})
	}
	call.view = v
	for _, w := range warnings {
		call.Warn(w.Code, w.Message)
	}
	return nil
}

// complete finishes a handler's result as Result documents: structured
// content checked and compacted, structured-only results given their text,
// empty text kept, warnings merged.
func complete(r *Result, warnings []Warning) (*Result, error) {
	if r.built {
		return r, addWarnings(r, warnings)
	}
	// A handler's own *Result may be shared (a cached answer, say):
	// complete a copy.
	res := *r
	res.Content = append([]Content(nil), r.Content...)
	if len(res.Structured) > 0 {
		if !json.Valid(res.Structured) {
			return nil, errors.New("structured content is not valid JSON")
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, res.Structured); err != nil {
			return nil, err
		}
		res.Structured = buf.Bytes()
		if len(res.Content) == 0 {
			res.Content = []Content{Text(buf.String())}
		}
	}
	if err := addWarnings(&res, warnings); err != nil {
		return nil, err
	}
	return &res, nil
}

func internalError() *Error {
	return &Error{Code: CodeInternal, Message: "the tool failed; the server log has the cause"}
}

func (t *Tool) errorResult(e *Error) *Result { return errorResult(e, t.outputSchema != nil) }

// interruptOf reports the errors the server, not the client, handles.
func interruptOf(call *Call, err error) *Interrupt {
	switch {
	case errors.Is(err, ErrInputRequired):
		it := &Interrupt{Err: ErrInputRequired}
		it.Pending, it.State = call.pendingInput()
		return it
	case errors.As(err, new(*MissingCapabilityError)), errors.As(err, new(*ProtocolError)):
		return &Interrupt{Err: err}
	}
	return nil
}

func (t *Tool) shapeError(ctx context.Context, call *Call, err error) Outcome {
	if it := interruptOf(call, err); it != nil {
		return Outcome{Interrupt: it}
	}
	if te, ok := asToolError(err); ok {
		if te.Cause != nil {
			call.Logger().LogAttrs(ctx, slog.LevelWarn, "tool error",
				slog.String("tool", t.Name), slog.String("code", te.Code), slog.String("cause", te.Cause.Error()))
		}
		r := t.errorResult(te)
		if err := addWarnings(r, call.takeWarnings()); err != nil {
			return Outcome{Result: t.errorResult(internalError())}
		}
		return Outcome{Result: r}
	}
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return Outcome{Result: t.errorResult(&Error{Code: CodeCancelled, Message: "the call was cancelled"})}
	}
	call.Logger().LogAttrs(ctx, slog.LevelError, "tool failed",
		slog.String("tool", t.Name), slog.String("cause", err.Error()))
	return Outcome{Result: t.errorResult(internalError())}
}

// noViewMessage is the SDK's refusal of a view-scoped call when no
// resolver found a view; a family's resolver says more (which tool opens
// one) with its own error.
const noViewMessage = "no view is open: open one first with the server's tool for it"
