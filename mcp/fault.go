package mcp

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// A call can end through no fault of its caller: the server ended the
// session it ran in, or the transport could not keep its outcome for the
// client to collect. The admission stage (a tool.Middleware) must not charge
// such a call. It learns of it by asking CallFault, with the context it
// was given, when the release function it returned is called: a transport
// that may only learn after the tool has returned (the legacy HTTP one,
// which keeps results for resumption) holds the release back until it
// knows.

// ErrServerFault is wrapped by every error CallFault reports.
var ErrServerFault = errors.New("the call failed through the server, not its caller")

// Faults the transports report.
var (
	errSessionEnded  = fmt.Errorf("%w: the server ended the session", ErrServerFault)
	errResultNotKept = fmt.Errorf("%w: the result was too large to keep for the client", ErrServerFault)
)

// errClientEnded is the cause of a call cut short by the client ending
// its session (DELETE): the caller's doing.
var errClientEnded = errors.New("the client ended the session")

// CallFault returns why a tool call ended through no fault of its caller,
// an error wrapping ErrServerFault, or nil when the caller is answerable
// for its outcome (including a call the caller cancelled or abandoned).
// ctx is the call's context or one derived from it; stages ask it through
// tool.Call.Fault. It is meant to be asked when the call's work has
// ended, in the admission's release function.
func CallFault(ctx context.Context) error {
	if l, ok := ctx.Value(ledgerKey{}).(*callLedger); ok {
		l.mu.Lock()
		f := l.fault
		l.mu.Unlock()
		if f != nil {
			return f
		}
	}
	if c := context.Cause(ctx); errors.Is(c, ErrServerFault) {
		return c
	}
	return nil
}

type ledgerKey struct{}

// callLedger settles a call once its transport knows how delivery went:
// it holds the admissions' release functions until then, and the fault,
// if delivery failed through the server.
type callLedger struct {
	mu       sync.Mutex
	settled  bool
	fault    error
	releases []func()
}

// withLedger returns a context whose calls' releases wait for settle.
func withLedger(ctx context.Context) (context.Context, *callLedger) {
	l := &callLedger{}
	return context.WithValue(ctx, ledgerKey{}, l), l
}

// holdRelease hands release to the call's ledger, if the transport keeps
// one and has not settled yet, and reports whether it did; otherwise the
// caller releases at once.
func holdRelease(ctx context.Context, release func()) bool {
	l, ok := ctx.Value(ledgerKey{}).(*callLedger)
	if !ok {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.settled {
		return false
	}
	l.releases = append(l.releases, release)
	return true
}

// settle records the delivery's fault (nil when the outcome was delivered
// or kept, or lost through the caller) and runs the held releases.
func (l *callLedger) settle(fault error) {
	l.mu.Lock()
	if l.settled {
		l.mu.Unlock()
		return
	}
	l.settled, l.fault = true, fault
	rs := l.releases
	l.releases = nil
	l.mu.Unlock()
	for _, r := range rs {
		r()
	}
}
