package tool

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/warden-mcp/warden/internal/jsonwalk"
)

// This file is the call path a server builds around every tool call: one
// Call, parsed once, handed down a chain of Middleware to Invoke. Tool
// authors need none of it.

// Handler serves one parsed call and says how it ended. Invoke is the
// innermost one; a Middleware wraps another.
type Handler func(ctx context.Context, c *Call) Outcome

// Middleware wraps a Handler: it may look at the call, decide, refuse it
// with its own error result (ErrorResult) without calling next, set what
// later stages read (SetCaller, SetAdmission, SetRedactor,
// SetViewResolver), and see or change the outcome next returns.
type Middleware func(next Handler) Handler

// Chain returns h wrapped in mw, mw[0] outermost: Chain(h, a, b) runs a,
// then b, then h.
func Chain(h Handler, mw ...Middleware) Handler {
	for i := len(mw) - 1; i >= 0; i-- {
		if mw[i] != nil {
			h = mw[i](h)
		}
	}
	return h
}

// NewCall parses a call of t once, for every stage of the chain: the
// arguments are checked to be well-formed JSON here and split into members
// at the first stage that asks for one. args may be nil (no arguments).
func NewCall(t *Tool, args json.RawMessage, env CallEnv) *Call {
	c := &Call{t: t, name: t.Name, args: args, env: env}
	c.wellFormed = len(args) == 0 || json.Valid(args)
	return c
}

// Tool returns the tool being called; nil for a prompt or a resource read.
func (c *Call) Tool() *Tool { return c.t }

// Arguments returns the call's arguments as the client sent them (nil
// when it sent none). Read them, never change them.
func (c *Call) Arguments() json.RawMessage { return c.args }

// Argument is one top-level member of a call's arguments.
type Argument struct {
	Name  string
	Value json.RawMessage
}

// ArgumentList returns the top-level members of the arguments, in the
// order the client sent them; nil when the arguments are not a JSON
// object. The arguments are walked once, at the first call.
func (c *Call) ArgumentList() []Argument {
	c.argsOnce.Do(c.splitArgs)
	return c.members
}

// Argument returns the value of the top-level argument name (the last one,
// if the client repeated it; the decoder refuses that call later).
func (c *Call) Argument(name string) (json.RawMessage, bool) {
	ms := c.ArgumentList()
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i].Name == name {
			return ms[i].Value, true
		}
	}
	return nil, false
}

// StringArgument returns a top-level string argument; false when it is
// absent or not a string.
func (c *Call) StringArgument(name string) (string, bool) {
	v, ok := c.Argument(name)
	if !ok || jsonwalk.Kind(v) != "string" {
		return "", false
	}
	return jsonwalk.Unquote(v)
}

// Target returns the network target of the call: the argument the tool's
// Catalog.TargetParam names, when the tool has one and the call gives it
// as a string.
func (c *Call) Target() (string, bool) {
	if c.t == nil || c.t.Catalog.TargetParam == "" {
		return "", false
	}
	return c.StringArgument(c.t.Catalog.TargetParam)
}

func (c *Call) splitArgs() {
	if !c.wellFormed || len(c.args) == 0 || jsonwalk.Kind(c.args) != "object" {
		return
	}
	ms := []Argument{}
	_ = jsonwalk.EachMember(c.args, func(k, v []byte) error {
		name, _ := jsonwalk.Unquote(k)
		ms = append(ms, Argument{Name: name, Value: v})
		return nil
	})
	c.members = ms
}

// viewHandle reads the view argument of a call: "" when it is absent or
// null.
func (c *Call) viewHandle() (string, error) {
	handle := ""
	for _, m := range c.ArgumentList() {
		if m.Name != ViewParam || jsonwalk.IsNull(m.Value) {
			continue
		}
		s, ok := jsonwalk.Unquote(m.Value)
		if jsonwalk.Kind(m.Value) != "string" || !ok {
			return "", errors.New(`parameter "view" must be a string`)
		}
		if s == "" || len(s) > maxViewHandle {
			return "", errors.New(`parameter "view" must be a view handle`)
		}
		handle = s
	}
	return handle, nil
}

// Modern reports whether the call came on the stateless revision (false in
// a legacy session).
func (c *Call) Modern() bool { return c.env.Modern }

// Client is the client's self-declared name, "" when it gave none. Never
// use it for an access decision.
func (c *Call) Client() string { return c.env.Client }

// CorrelationID is the request's correlation id, "" when there is none.
func (c *Call) CorrelationID() string { return c.env.CorrelationID }

// Caller is who a call runs for, as the server's entitlement stage
// established it.
type Caller struct {
	// Credential is the stable id of the credential (a token's, a
	// registered client's, the local user's).
	Credential string
	// Tenant is the caller's tenant.
	Tenant string
	// Key is the key the caller's limits, input rounds and tasks are kept
	// under (issuer, tenant and credential together).
	Key string
}

// SetCaller records who the call runs for. The entitlement stage calls it
// once the caller is known.
func (c *Call) SetCaller(who Caller) {
	c.mu.Lock()
	c.caller, c.hasCaller = who, true
	c.mu.Unlock()
}

// Caller returns who the call runs for, and false before the entitlement
// stage (or on a server without one).
func (c *Call) Caller() (Caller, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.caller, c.hasCaller
}

// ViewResolver finds the view a call to a view-scoped tool acts on, from
// the call's view argument (handle; "" when absent), before the arguments
// are decoded. It returns the view and any warnings (implicit_view, say),
// or a *Error the client reads (no_active_binary_view with the open
// handles in its details).
type ViewResolver func(ctx context.Context, c *Call, handle string) (View, []Warning, error)

// SetViewResolver sets how the call finds its view. Without one a
// view-scoped tool answers no_active_binary_view.
func (c *Call) SetViewResolver(r ViewResolver) {
	c.mu.Lock()
	c.resolve = r
	c.mu.Unlock()
}

// ResolveViews is the Middleware that gives every view-scoped call the
// resolver r: a server whose views are all one family's passes it in its
// chain.
func ResolveViews(r ViewResolver) Middleware {
	return func(next Handler) Handler {
		return func(ctx context.Context, c *Call) Outcome {
			if c.t != nil && c.t.Scope == ViewScoped {
				c.SetViewResolver(r)
			}
			return next(ctx, c)
		}
	}
}

// SetAdmission sets what Call.Begin runs: on a hosted server it takes a
// scan slot and charges quota. It returns the context the work runs under,
// or the refusal. Without one Begin admits everything.
func (c *Call) SetAdmission(admit func(ctx context.Context) (context.Context, error)) {
	c.mu.Lock()
	c.admit = admit
	c.mu.Unlock()
}

// SetApproval sets what Call.Begin asks before admission, for a tool
// whose catalog says ApproveAtBegin: nil lets the call go on, an error
// (a refusal, or ErrInputRequired for a question the client must answer)
// is returned by Begin and the handler returns it.
func (c *Call) SetApproval(approve func(ctx context.Context) error) {
	c.mu.Lock()
	c.approve = approve
	c.mu.Unlock()
}

// SetRedactor sets the privacy stage's typed pass: fn is applied to each
// string of a typed result whose field is tagged with a privacy kind,
// before the result is marshalled. Nil changes nothing.
func (c *Call) SetRedactor(fn Redactor) {
	c.mu.Lock()
	c.redact = fn
	c.mu.Unlock()
}

// Settle hands release to the transport, to run once it knows how the
// call's outcome was delivered; it reports whether the transport took it.
// When it did not, the caller runs release itself, now.
func (c *Call) Settle(release func()) bool {
	return c.env.Settle != nil && c.env.Settle(release)
}

// Fault returns why the call ended through no fault of its caller (the
// server ended its session, the transport could not keep its outcome), or
// nil when the caller is answerable for its outcome. Ask it when the
// call's work has ended: in an admission's release.
func (c *Call) Fault() error {
	if c.env.Fault == nil {
		return nil
	}
	return c.env.Fault()
}

// stages is what the server's stages set on a call, read once by Invoke.
type stages struct {
	resolve ViewResolver
	admit   func(ctx context.Context) (context.Context, error)
	redact  Redactor
}

func (c *Call) stages() stages {
	c.mu.Lock()
	defer c.mu.Unlock()
	return stages{resolve: c.resolve, admit: c.admit, redact: c.redact}
}
