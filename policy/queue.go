package policy

import (
	"context"
	"crypto/rand"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/warden-mcp/warden/limits"
	"github.com/warden-mcp/warden/tool"
)

// Queue makes a call that finds the scan slots taken wait for one, in
// line, instead of being refused: the local profile, where every call
// comes from one person and should run, only later. A hosted server has
// no queue: its refusals tell clients when to come back.
type Queue struct {
	// MaxWait bounds how long one call waits for a slot; past it the call
	// is refused with the code that held it back and retryAfterSeconds.
	// Zero: 10 minutes.
	MaxWait time.Duration
	// MaxWaiting bounds how many calls of one credential wait at once; a
	// call beyond it is refused at once. Zero: 32.
	MaxWaiting int
	// Poll is how often the first call in line asks the store again, for
	// slots freed by another process sharing it or by an expired lease.
	// Slots freed by this process wake the line at once. Zero: 1 s.
	Poll time.Duration
	// MaxStoreWait bounds how long the first call in line keeps asking a
	// store that cannot be evaluated (scan_slots_unavailable,
	// quota_unavailable): a store busy with another call's large write
	// answers within it, a broken one is then reported. Zero: 1 minute.
	MaxStoreWait time.Duration
}

// waitReportEvery is how often a waiting call tells its client it still
// waits: often enough to keep a client's request timeout from firing,
// seldom enough not to flood it.
const waitReportEvery = 5 * time.Second

// Queue defaults.
const (
	DefaultQueueMaxWait    = 10 * time.Minute
	DefaultQueueMaxWaiting = 32
	DefaultQueuePoll       = time.Second
	DefaultQueueStoreWait  = time.Minute
)

// queues reports whether a refusal is one that waiting in line cures:
// every slot taken, the same scan already running, or the store too busy
// to answer in time (a large open writing its analysis holds the embedded
// store for seconds). Waiting admits nothing: the call runs only once the
// limiter has said yes.
func queues(err error) bool {
	switch limits.CodeOf(err) {
	case limits.CodeTooManyConcurrentScans, limits.CodeScannerBusy, limits.CodeDuplicateScan,
		limits.CodeScanSlotsUnavailable, limits.CodeQuotaUnavailable:
		return true
	}
	return false
}

// beginScan asks the limiter once. An admission the store did not answer
// may be cancelled later (limits.Limiter.Settle) by the call id it
// carried, so a call that asks again after one asks under a new call id:
// the cancellation can then never reach the charge of the attempt that
// succeeds.
func (c *Controls) beginScan(ctx context.Context, req *limits.ScanRequest) (*limits.Scan, error) {
	start := time.Now()
	scan, err := c.Limiter.BeginScan(ctx, *req)
	c.observe().Decided(ctx, "scan_admission", time.Since(start))
	if limits.Unavailable(err) && req.Charge {
		req.CallID = rand.Text()
	}
	return scan, err
}

// line is the process's waiting calls: one FIFO per credential, and a
// signal closed whenever a slot or a place in line frees up.
type line struct {
	mu     sync.Mutex
	byCred map[string][]*waiter
	freed  chan struct{}
}

// waiter is one call in line. It has a field because pointers to
// zero-size values need not be distinct.
type waiter struct{ _ byte }

func (l *line) init() {
	if l.byCred == nil {
		l.byCred = map[string][]*waiter{}
		l.freed = make(chan struct{})
	}
}

// signal returns a channel closed at the next wake-up.
func (l *line) signal() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.init()
	return l.freed
}

// wake tells every waiting call that a slot or a place may have freed.
func (l *line) wake() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.init()
	close(l.freed)
	l.freed = make(chan struct{})
}

// waiting is how many calls of cred wait.
func (l *line) waiting(cred string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.byCred[cred])
}

// join puts a call at the end of cred's line, unless max already wait.
func (l *line) join(cred string, max int) (*waiter, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.init()
	if len(l.byCred[cred]) >= max {
		return nil, false
	}
	w := &waiter{}
	l.byCred[cred] = append(l.byCred[cred], w)
	return w, true
}

// ahead is how many calls wait before w.
func (l *line) ahead(cred string, w *waiter) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, x := range l.byCred[cred] {
		if x == w {
			return i
		}
	}
	return 0
}

// leave takes w out of the line and wakes the others: the next one may
// now be first.
func (l *line) leave(cred string, w *waiter) {
	l.mu.Lock()
	ws := l.byCred[cred]
	for i, x := range ws {
		if x == w {
			ws = append(ws[:i:i], ws[i+1:]...)
			break
		}
	}
	if len(ws) == 0 {
		delete(l.byCred, cred)
	} else {
		l.byCred[cred] = ws
	}
	l.mu.Unlock()
	l.wake()
}

func (q *Queue) maxWait() time.Duration {
	if q.MaxWait > 0 {
		return q.MaxWait
	}
	return DefaultQueueMaxWait
}

func (q *Queue) maxWaiting() int {
	if q.MaxWaiting > 0 {
		return q.MaxWaiting
	}
	return DefaultQueueMaxWaiting
}

func (q *Queue) maxStoreWait() time.Duration {
	if q.MaxStoreWait > 0 {
		return q.MaxStoreWait
	}
	return DefaultQueueStoreWait
}

func (q *Queue) poll() time.Duration {
	if q.Poll > 0 {
		return q.Poll
	}
	return DefaultQueuePoll
}

// admitInLine takes a slot for req, waiting in line for it when the
// queue is on and the slots are taken (refused is the refusal that sent
// the call here, or nil when others already wait). The first call in
// line asks the store each time a slot frees in this process and every
// Poll; the wait reports progress, ends with ctx, and is refused past
// MaxWait or MaxWaiting with the refusal that held it back.
func (c *Controls) admitInLine(ctx context.Context, req limits.ScanRequest, refused error) (*limits.Scan, error) {
	q := c.Queue
	w, ok := c.line.join(req.Credential, q.maxWaiting())
	if !ok {
		if refused == nil {
			scan, err := c.beginScan(ctx, &req)
			if err == nil || !queues(err) {
				return scan, err
			}
			refused = err
		}
		return nil, withNote(refused, lineFull(q.maxWaiting()))
	}
	defer c.line.leave(req.Credential, w)
	start := time.Now()
	deadline := time.NewTimer(q.maxWait())
	defer deadline.Stop()
	tick := time.NewTicker(q.poll())
	defer tick.Stop()
	var reported time.Time
	report := func() {
		reported = time.Now()
		msg := "waiting for a scan slot"
		if limits.Unavailable(refused) {
			msg = "waiting for the store that keeps the scan slots to answer"
		}
		if n := c.line.ahead(req.Credential, w); n > 0 {
			msg += " behind " + strconv.Itoa(n) + " other call"
			if n > 1 {
				msg += "s"
			}
		}
		msg += " (" + time.Since(start).Round(time.Second).String() + " so far, at most " + q.maxWait().String() + ")"
		tool.ReportWaiting(ctx, msg)
	}
	report()
	var storeDown time.Time // since when the store has not been evaluated, while first in line
	for {
		freed := c.line.signal()
		if c.line.ahead(req.Credential, w) == 0 {
			scan, err := c.beginScan(ctx, &req)
			if err == nil || !queues(err) {
				return scan, err
			}
			refused = err
			switch {
			case !limits.Unavailable(err):
				storeDown = time.Time{}
			case storeDown.IsZero():
				storeDown = time.Now()
			case time.Since(storeDown) >= q.maxStoreWait():
				return nil, withNote(refused, "the store did not answer for "+q.maxStoreWait().String())
			}
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-deadline.C:
			if refused == nil { // never first in line: ask once, for the refusal
				scan, err := c.beginScan(ctx, &req)
				if err == nil || !queues(err) {
					return scan, err
				}
				refused = err
			}
			return nil, withNote(refused, "waited "+q.maxWait().String()+" for a slot")
		case <-tick.C:
			if time.Since(reported) >= waitReportEvery {
				report()
			}
		case <-freed:
		}
	}
}

// noted is a refusal with a sentence added to its public message.
type noted struct {
	err  error
	note string
}

func (n *noted) Error() string { return n.err.Error() + "; " + n.note }
func (n *noted) Unwrap() error { return n.err }

func withNote(err error, note string) error { return &noted{err, note} }

// noteOf returns the sentence withNote added, if any.
func noteOf(err error) string {
	var n *noted
	if errors.As(err, &n) {
		return n.note
	}
	return ""
}

func lineFull(n int) string {
	if n == 1 {
		return "the line of 1 waiting call is full"
	}
	return "the line of " + strconv.Itoa(n) + " waiting calls is full"
}
