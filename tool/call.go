package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
)

// Input request methods a tool may ask the client for.
const (
	MethodElicit    = "elicitation/create"
	MethodSample    = "sampling/createMessage"
	MethodListRoots = "roots/list"
)

// InputRequest is a question for the client: an elicitation, a sampling
// request or a roots listing. Build one with Elicit, Sample or ListRoots.
type InputRequest struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

// Elicit asks the user for a form of values described by schema (a flat
// object schema). Never ask for passwords or tokens this way.
func Elicit(message string, schema json.RawMessage) InputRequest {
	p, _ := json.Marshal(struct {
		Mode            string          `json:"mode"`
		Message         string          `json:"message"`
		RequestedSchema json.RawMessage `json:"requestedSchema"`
	}{"form", message, schema})
	return InputRequest{Method: MethodElicit, Params: p}
}

// SamplingMessage is one message of a sampling request.
type SamplingMessage struct {
	Role    string  `json:"role"`
	Content Content `json:"content"`
}

// Sample asks the client's model for a completion.
func Sample(maxTokens int, messages ...SamplingMessage) InputRequest {
	p, _ := json.Marshal(struct {
		Messages  []SamplingMessage `json:"messages"`
		MaxTokens int               `json:"maxTokens"`
	}{messages, maxTokens})
	return InputRequest{Method: MethodSample, Params: p}
}

// ListRoots asks the client for its roots.
func ListRoots() InputRequest {
	return InputRequest{Method: MethodListRoots, Params: json.RawMessage(`{}`)}
}

// capabilityOf names the client capability an input method needs.
func capabilityOf(method string) string {
	switch method {
	case MethodElicit:
		return "elicitation"
	case MethodSample:
		return "sampling"
	case MethodListRoots:
		return "roots"
	}
	return ""
}

// ErrInputRequired is returned by Call.Input when the client must answer
// before the handler can go on. Return it (or an error wrapping it) from
// the handler: the server turns it into an input request and runs the
// handler again, from the start, once the answers arrive.
var ErrInputRequired = errors.New("input required")

// ProtocolError fails a call at the protocol level: the client gets a
// JSON-RPC error (or a failed task) instead of a tool result. Tool errors
// the model can act on belong in *Error; use this only for requests that
// cannot be served at all.
type ProtocolError struct {
	Code    int
	Message string
}

func (e *ProtocolError) Error() string { return e.Message }

// MissingCapabilityError says the call needs a capability the client did
// not declare. The server answers it with the protocol's
// missing-capability error.
type MissingCapabilityError struct{ Capability string }

func (e *MissingCapabilityError) Error() string {
	return "client lacks the " + e.Capability + " capability"
}

// Call is a handler's view of the call in progress. It lives as long as
// the handler: once the handler returns, the call is over, and a goroutine
// the handler left behind finds its context cancelled, no view, and its
// progress, logs, warnings and questions dropped.
type Call struct {
	t    *Tool  // nil for a prompt or a resource read
	name string // the tool's, prompt's or resource's name
	env  CallEnv
	// args are the arguments as sent; wellFormed says they are valid
	// JSON, members holds their top-level members once split.
	args       json.RawMessage
	wellFormed bool
	argsOnce   sync.Once
	members    []Argument
	view       View // resolved before the handler runs (view-scoped tools)

	mu sync.Mutex
	// What the server's stages set (chain.go).
	caller    Caller
	hasCaller bool
	resolve   ViewResolver
	admit     func(ctx context.Context) (context.Context, error)
	approve   func(ctx context.Context) error
	redact    Redactor

	ended    bool
	warnings []Warning
	pending  map[string]InputRequest
	state    []byte
	stateSet bool
	last     float64
	sent     bool
	begun    bool
	// shift moves the handler's progress past the notifications sent
	// while the call waited for admission (ReportWaiting).
	shift float64
}

// ToolName is the name of the tool (or the prompt or resource) being
// served.
func (c *Call) ToolName() string { return c.name }

// View returns the target a view-scoped tool acts on: the view the call
// named, the session's active view, or the caller's only open view. Global
// tools have none, and no call has one after its handler returned.
func (c *Call) View() (View, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended || c.view == nil {
		return nil, false
	}
	return c.view, true
}

// Warn attaches a warning to the result. Warnings after the handler
// returned are dropped.
func (c *Call) Warn(code, message string) {
	c.mu.Lock()
	if !c.ended {
		c.warnings = append(c.warnings, Warning{Code: code, Message: message})
	}
	c.mu.Unlock()
}

// Progress reports progress to a client that asked for it. Progress must
// grow; a value not above the last one is dropped.
func (c *Call) Progress(progress, total float64, message string) {
	if c.env.Progress == nil {
		return
	}
	c.mu.Lock()
	progress += c.shift
	if total > 0 {
		total += c.shift
	}
	if c.ended || (c.sent && progress <= c.last) {
		c.mu.Unlock()
		return
	}
	c.last, c.sent = progress, true
	c.mu.Unlock()
	c.env.Progress(progress, total, message)
}

// Log sends a log message to a client that asked for messages at level or
// below. Levels: debug, info, notice, warning, error, critical, alert,
// emergency. Never log a secret.
func (c *Call) Log(level string, data any) {
	if c.env.Log != nil && !c.isEnded() {
		c.env.Log(level, c.name, data)
	}
}

// Session returns an opaque key of the legacy session this call belongs
// to, for tools that keep state per session (an active view, say). It is
// "" on the stateless protocol, where each call stands alone.
func (c *Call) Session() string { return c.env.Session }

func (c *Call) isEnded() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ended
}

// end closes the call when its handler returns.
func (c *Call) end() {
	c.mu.Lock()
	c.ended = true
	c.mu.Unlock()
}

// Logger returns the server-side logger for causes that must not reach the
// client.
func (c *Call) Logger() *slog.Logger {
	if c.env.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return c.env.Logger
}

// Supports reports whether the client declared a capability for this
// request ("elicitation", "sampling", "roots").
func (c *Call) Supports(capability string) bool {
	return c.env.Supports != nil && c.env.Supports(capability)
}

// Input asks the client every request in reqs and returns the answers by
// key. Keys are the handler's own names; they must be stable across rounds.
//
// On a legacy session the server sends the requests and waits. On the
// stateless protocol it cannot wait: Input returns ErrInputRequired, the
// handler returns it, the client answers, and the handler runs again from
// the start, this time getting the answers. Write handlers so the part
// before Input is cheap and has no side effects.
//
// A request whose capability the client did not declare fails with a
// *MissingCapabilityError; check Supports first to offer an alternative.
func (c *Call) Input(ctx context.Context, reqs map[string]InputRequest) (map[string]json.RawMessage, error) {
	for _, k := range slices.Sorted(maps.Keys(reqs)) {
		capName := capabilityOf(reqs[k].Method)
		if capName == "" {
			return nil, fmt.Errorf("input %q: unknown method %q", k, reqs[k].Method)
		}
		if !c.Supports(capName) {
			return nil, &MissingCapabilityError{Capability: capName}
		}
	}
	if c.env.Input == nil || c.isEnded() {
		return nil, &Error{Code: "input_unavailable", Message: "this call cannot ask the client for input"}
	}
	answers, err := c.env.Input(ctx, reqs)
	if errors.Is(err, ErrInputRequired) {
		c.mu.Lock()
		if c.pending == nil {
			c.pending = map[string]InputRequest{}
		}
		for k, r := range reqs {
			if _, ok := answers[k]; !ok {
				c.pending[k] = r
			}
		}
		c.mu.Unlock()
	}
	return answers, err
}

// Detach turns the call into a task when the tool supports tasks and the
// client declared the tasks extension: the client is answered at once with
// a task id and polls for the result while the handler runs on. It returns
// false, and the call goes on as an ordinary one, otherwise. Call it once
// the quick checks and any questions to the client are done: input asked
// before Detach is a round trip of the call itself, input asked after it
// parks the task until the client answers.
func (c *Call) Detach() bool {
	return c.env.Detach != nil && c.env.Detach()
}

// Begin marks the start of the call's work, after the handler's own
// checks. A tool whose catalog says it consumes quota must call it before
// doing the work: on a hosted server this is where the call is admitted
// (concurrency slots, the scan rate and the monthly allowance) and charged,
// so a call refused by validation is never charged. The returned context
// ends if the admission is lost (an abandoned slot reclaimed); run the work
// under it. A refusal is a *Error with the limit's code (quota_exceeded,
// too_many_concurrent_scans, ...): return it. For a tool whose catalog
// says ApproveAtBegin, Begin first asks a person's approval (set by the
// server's approval stage with SetApproval); its refusal or question is
// returned the same way. Later calls to Begin do nothing.
func (c *Call) Begin(ctx context.Context) (context.Context, error) {
	c.mu.Lock()
	if c.begun {
		c.mu.Unlock()
		return ctx, nil
	}
	admit, approve := c.admit, c.approve
	c.mu.Unlock()
	if approve != nil {
		// A person's approval first: a call waiting for one holds no
		// slot and is not charged.
		if err := approve(ctx); err != nil {
			return ctx, err
		}
	}
	if admit != nil {
		var err error
		if ctx, err = admit(context.WithValue(ctx, admittingKey{}, c)); err != nil {
			return ctx, err // not admitted: the work must not run
		}
	}
	c.mu.Lock()
	c.begun = true
	c.mu.Unlock()
	return ctx, nil
}

type admittingKey struct{}

func (c *Call) hasBegun() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.begun
}

// CloseStream ends the call's response stream early, where the client can
// resume it (legacy HTTP sessions, which number their events): the client
// reconnects and reads the rest, the result included, while the call runs
// on. A long call uses it so as not to hold a connection open. It reports
// whether the stream was closed; elsewhere it does nothing.
func (c *Call) CloseStream() bool {
	return c.env.CloseStream != nil && c.env.CloseStream()
}

// State returns handler state saved with SetState in an earlier input
// round, or nil.
func (c *Call) State() []byte { return c.env.State }

// SetState saves handler state to carry into the next input round. The
// server protects it against tampering; keep it small.
func (c *Call) SetState(b []byte) {
	c.mu.Lock()
	c.state, c.stateSet = append([]byte(nil), b...), true
	c.mu.Unlock()
}

// pendingInput returns the input requests still unanswered after the
// handler returned ErrInputRequired, and the state to carry.
func (c *Call) pendingInput() (map[string]InputRequest, []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.env.State
	if c.stateSet {
		st = c.state
	}
	return c.pending, st
}

func (c *Call) takeWarnings() []Warning {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := c.warnings
	c.warnings = nil
	return w
}

func (c *Call) eval(ctx context.Context) func(string, bool, uint64) (uint64, error) {
	if c.env.Eval != nil {
		return c.env.Eval
	}
	return viewEvaluator(ctx, c.view)
}
