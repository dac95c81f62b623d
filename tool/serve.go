package tool

import (
	"context"
	"encoding/json"
	"log/slog"
	"math"
)

// This file is the server side of the SDK: what a protocol engine (package
// mcp), the stages of its call path and harnesses use to list, call and refuse tools. Tool
// authors need none of it; everything they write against is elsewhere.

// CallEnv is what the protocol layer gives one call: who the client is and
// how to reach it. The zero value serves a call with no client: progress
// and logs are dropped and Call.Input fails. What the server's own stages
// decide (the caller, the view resolver, the admission, the privacy mode)
// is set on the Call by those stages, not here.
type CallEnv struct {
	// Session is the key of the legacy session the call belongs to; ""
	// on the stateless protocol. See Call.Session.
	Session string
	// Modern is true on the stateless revision, false in a legacy
	// session (and in harnesses).
	Modern bool
	// Client is the client's self-declared name (clientInfo.name), ""
	// when it gave none. Never use it for an access decision.
	Client string
	// CorrelationID is the request's correlation id, "" when the
	// transport gave none.
	CorrelationID string
	// Progress delivers a progress notification, or nil.
	Progress func(progress, total float64, message string)
	// Log delivers a log message at or above the client's level, or nil.
	Log func(level, logger string, data any)
	// Input asks the client; see Call.Input. Nil means no client to ask.
	Input func(ctx context.Context, reqs map[string]InputRequest) (map[string]json.RawMessage, error)
	// Supports reports whether the client declared a capability
	// ("elicitation", "sampling", "roots"). Nil means none.
	Supports func(capability string) bool
	// Eval evaluates address expressions; nil uses the view when it can,
	// else numbers only.
	Eval func(expr string, integer bool, base uint64) (uint64, error)
	// Logger receives causes that never reach the client. Nil discards.
	Logger *slog.Logger
	// State is the handler state carried from an earlier input round.
	State []byte
	// Detach turns the call into a task, if the client supports tasks
	// and the tool allows it; nil never detaches. See Call.Detach.
	Detach func() bool
	// CloseStream ends the call's response stream early where the
	// transport can resume it; nil cannot. See Call.CloseStream.
	CloseStream func() bool
	// Settle hands the transport a function to run once it knows how
	// the call's outcome was delivered (the release of an admission),
	// and reports whether it took it; nil (or false) runs it at once.
	// See Call.Settle.
	Settle func(release func()) bool
	// Fault reports why the call ended through no fault of its caller
	// (see Call.Fault); nil: never.
	Fault func() error
}

// Outcome is how one call ended: a result for the client, or an interrupt
// that the server must handle. Exactly one is set.
type Outcome struct {
	Result    *Result
	Interrupt *Interrupt
}

// Interrupt is a call that cannot finish without the protocol layer: the
// client must answer input requests, lacks a capability, or the request
// cannot be served at all.
type Interrupt struct {
	// Err is ErrInputRequired, a *MissingCapabilityError or a
	// *ProtocolError.
	Err error
	// Pending are the unanswered input requests, and State the handler
	// state to carry, when Err is ErrInputRequired.
	Pending map[string]InputRequest
	State   []byte
}

// Run runs one call of t with no stages around it: Invoke of a new Call.
// Harnesses and tests use it; a server builds the Call with NewCall and
// runs it through its middleware chain.
func Run(ctx context.Context, t *Tool, env CallEnv, args json.RawMessage) Outcome {
	return Invoke(ctx, NewCall(t, args, env))
}

// Invoke is the innermost Handler of every chain: the view resolved
// (view-scoped tools), the arguments decoded and checked, the handler run
// under panic recovery, and the result shaped exactly as a client receives
// it. When Invoke returns, the call has ended: its context is cancelled
// and its view gone.
func Invoke(ctx context.Context, c *Call) Outcome { return c.t.run(ctx, c) }

// Serve runs fn as one call named name (a prompt or a resource read) with
// the same Call a tool gets. It returns the interrupt when fn needs the
// protocol layer (input required, a missing capability), else fn's error.
// When Serve returns, the call has ended.
func Serve(ctx context.Context, name string, env CallEnv, fn func(ctx context.Context, call *Call) error) (*Interrupt, error) {
	call := &Call{name: name, env: env}
	ctx, cancel := context.WithCancelCause(ctx)
	defer func() {
		call.end()
		cancel(errCallEnded)
	}()
	err := fn(ctx, call)
	if it := interruptOf(call, err); it != nil {
		return it, nil
	}
	return nil, err
}

// ErrorResult shapes a tool error as the result a client of t receives.
// Servers and their stages use it to refuse a call in the tool's own format.
func ErrorResult(t *Tool, e *Error) *Result { return t.errorResult(e) }

// HeaderParam is an argument mirrored into an Mcp-Param-{Header} HTTP
// header (the "x-mcp-header" schema keyword).
type HeaderParam struct {
	Arg    string // argument name
	Header string // header suffix
	Kind   string // "string", "integer" or "boolean"
}

// HeaderParams lists the arguments the tool mirrors into headers.
func (t *Tool) HeaderParams() []HeaderParam { return t.headers }

// Listing returns the tool's tools/list entry as JSON.
func (t *Tool) Listing() json.RawMessage { return t.listing }

// ListJSON renders a page of tools/list entries as a JSON array, from the
// precomputed listing of each tool.
func ListJSON(tools []*Tool) []byte {
	n := 2
	for _, t := range tools {
		n += len(t.listing) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, '[')
	for i, t := range tools {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, t.listing...)
	}
	return append(b, ']')
}

// ReportWaiting sends a progress notification for a call that waits to be
// admitted: the admission function behind Call.Begin calls it with the
// context it was given while the call waits for a slot. Each report counts
// one step of progress with no known total; the handler's own progress
// after Begin is shifted past them, so the client sees one increasing
// sequence. Elsewhere, or when the client asked for no progress, it does
// nothing.
func ReportWaiting(ctx context.Context, message string) {
	c, ok := ctx.Value(admittingKey{}).(*Call)
	if !ok || c.env.Progress == nil {
		return
	}
	c.mu.Lock()
	var step float64
	if c.sent {
		step = math.Floor(c.last) + 1
	}
	c.last, c.sent, c.shift = step, true, step+1
	c.mu.Unlock()
	c.env.Progress(step, 0, message)
}
