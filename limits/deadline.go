package limits

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Deadlines that tell a slow store from one that is down.
//
// A fixed deadline per store call cannot: on a loaded host, or with many
// calls queued for a connection, a healthy store takes longer than any
// deadline short enough to notice an outage quickly, and the limiter
// would refuse calls that a moment's wait would have admitted. So a call
// is refused as unavailable only when the store has gone quiet: neither
// it nor any other store call of the Limiter has been answered for the
// quiet period (Config.TransportTimeout, Config.ScanTimeout). While the
// store keeps answering, a call waits its turn, up to a bound that holds
// however busy the store is (Config.TransportMaxWait, Config.ScanMaxWait).
// A store that is down answers nothing, so its calls are refused after
// the quiet period, as before; a slow one only delays them.
//
// The quiet period also scales with the host: a healthy store that has
// just gone 130 ms without answering anything (a WAL checkpoint on a
// loaded disk) may do so again. So the quiet period is at least
// slowFactor times the longest recent stall, which halves every
// slowHalfLife, and never more than the longest wait. A stall is learnt
// from an answer that took long, and from the silence that made a call
// give up once the store answers again: that refusal was a store being
// slow, and the next silence as long is waited out. A silence longer
// than the longest wait was an outage, and is not learnt: after it, an
// outage is still noticed after the quiet period.
//
// Only answers count: a call that fails is not progress. Time here is the
// process's real clock (time.Now), never Config.Now, which dates
// decisions and may be a test's fixed clock.

// errStoreQuiet and errWaitBound are the causes run cancels a store call
// with.
var (
	errStoreQuiet = errors.New("the store answered nothing for the quiet period")
	errWaitBound  = errors.New("the call waited its longest wait")
)

// How the quiet period follows the store's recent slowness.
const (
	slowFactor   = 2
	slowHalfLife = time.Minute
)

// storeWatch records when the store last answered a call, and how slow
// it has lately been.
type storeWatch struct {
	last   atomic.Int64 // time.Now().UnixNano() of the last answer
	slow   atomic.Int64 // the longest recent stall, ns
	slowAt atomic.Int64 // when slow was set, UnixNano
	// gaveUp is when the silence began that the last call to give up on
	// the store waited through (UnixNano), until the next answer.
	gaveUp atomic.Int64
	log    burstLog
}

// answered records an answer at now to a call that took took. A
// silence longer than longest (the longest any call waits) was an
// outage, not a stall to wait out next time, and is not learnt.
func (w *storeWatch) answered(now time.Time, took, longest time.Duration) {
	w.last.Store(now.UnixNano())
	if since := w.gaveUp.Swap(0); since != 0 {
		if stall := now.Sub(time.Unix(0, since)); stall <= longest {
			took = max(took, stall)
		}
	}
	if took > w.recentSlow(now) { // a race may keep the smaller: it only shortens a wait
		w.slow.Store(int64(took))
		w.slowAt.Store(now.UnixNano())
	}
}

// recentSlow is the slowest recent answer's latency, halved for every
// slowHalfLife since.
func (w *storeWatch) recentSlow(now time.Time) time.Duration {
	halvings := now.Sub(time.Unix(0, w.slowAt.Load())) / slowHalfLife
	if halvings >= 63 || halvings < 0 {
		return 0
	}
	return time.Duration(w.slow.Load() >> halvings)
}

// quiet is the quiet period a call starting at now gets under d.
func (w *storeWatch) quiet(now time.Time, d deadline) time.Duration {
	return min(max(d.quiet, slowFactor*w.recentSlow(now)), d.max)
}

// storeOp names a store call in logs.
type storeOp string

const (
	opTakeRate        storeOp = "TakeRate"
	opAdmitScan       storeOp = "AdmitScan"
	opCancelAdmission storeOp = "CancelAdmission"
	opRenewLease      storeOp = "RenewLease"
	opReleaseLease    storeOp = "ReleaseLease"
	opRefundScan      storeOp = "RefundScan"
	opReadUsage       storeOp = "ReadUsage"
	opAppendAudit     storeOp = "AppendAudit"
)

// deadline is one kind of call's pair of bounds.
type deadline struct{ quiet, max time.Duration }

func (l *Limiter) transportDeadline() deadline {
	return deadline{l.cfg.TransportTimeout, l.cfg.TransportMaxWait}
}

func (l *Limiter) scanDeadline() deadline { return deadline{l.cfg.ScanTimeout, l.cfg.ScanMaxWait} }

// readDeadline bounds a read that decides nothing (warden_status's usage):
// the quiet period exists to refuse a control quickly when the store may
// be down, but a status read refused on a loaded machine only hides the
// answer the caller asked for, so it waits for the store up to the
// longest bound and no less.
func (l *Limiter) readDeadline() deadline { return deadline{l.cfg.ScanMaxWait, l.cfg.ScanMaxWait} }

// run calls fn under d. fn's context ends when the store has been quiet
// for the quiet period (d.quiet, or more after slow answers; measured from
// the later of the call's start and the last answer to any call), or when
// d.max has passed since the start. An
// answer is fn returning nil or a store-level answer such as
// ErrStoreLeaseLost; each one pushes every waiting call's quiet deadline
// back. A failure is reported to the burst log with code, unless the
// caller's own context ended (a client leaving is not a store fault).
func (l *Limiter) run(ctx context.Context, op storeOp, code Code, d deadline, fn func(context.Context) error) error {
	return l.runSince(ctx, time.Now(), op, code, d, fn)
}

// runSince is run for a call whose wait began at start, before fn could
// be called: a batch of audit records waits from when it opened, first
// for the commit before it, so its quiet period and its longest wait
// count from then.
func (l *Limiter) runSince(ctx context.Context, start time.Time, op storeOp, code Code, d deadline, fn func(context.Context) error) error {
	d.quiet = l.watch.quiet(start, d)
	cctx, cancel := context.WithCancelCause(ctx)
	defer cancel(context.Canceled)
	var mu sync.Mutex
	var t *time.Timer
	var done atomic.Bool
	check := func() {
		if done.Load() {
			return
		}
		now := time.Now()
		if now.Sub(start) >= d.max {
			cancel(errWaitBound)
			return
		}
		ref := max(start.UnixNano(), l.watch.last.Load())
		idle := now.Sub(time.Unix(0, ref))
		if idle >= d.quiet {
			l.watch.gaveUp.CompareAndSwap(0, ref)
			cancel(errStoreQuiet)
			return
		}
		mu.Lock()
		t.Reset(min(d.quiet-idle, d.max-now.Sub(start)))
		mu.Unlock()
	}
	mu.Lock()
	waited := time.Since(start) // a batch may have waited before fn could run
	t = time.AfterFunc(max(min(d.quiet, d.max)-waited, 0), check)
	mu.Unlock()
	err := fn(cctx)
	done.Store(true)
	mu.Lock()
	t.Stop()
	mu.Unlock()
	now := time.Now()
	if err == nil || errors.Is(err, ErrStoreLeaseLost) {
		l.watch.answered(now, now.Sub(start), max(l.cfg.TransportMaxWait, l.cfg.ScanMaxWait))
		l.watch.log.recovered(l.cfg.Logger, now)
		return err
	}
	if ctx.Err() == nil {
		cause := err
		if c := context.Cause(cctx); c == errStoreQuiet || c == errWaitBound {
			cause = errors.Join(c, err)
		}
		var quiet time.Duration
		if last := l.watch.last.Load(); last != 0 {
			quiet = now.Sub(time.Unix(0, last))
		}
		l.watch.log.failed(l.cfg.Logger, now, op, code, now.Sub(start), quiet, cause)
	}
	return err
}

// burstLogEvery is how often a failure that lasts is logged again, and
// burstGap how long without a failure ends a burst: a store that refuses
// now and then between answers is one burst, not a line per refusal.
const (
	burstLogEvery = time.Minute
	burstGap      = 10 * time.Second
)

// burstLog logs a run of store failures once: at warn when it starts,
// again at most every burstLogEvery with how many refusals it left
// unlogged, and at info once the store has answered for burstGap without
// a failure.
type burstLog struct {
	failing  atomic.Bool // fast path for answers
	mu       sync.Mutex
	since    time.Time // first failure of the burst
	lastFail time.Time
	logged   time.Time // last line written
	quiet    int       // failures since that line, not logged
	total    int       // failures in the burst
}

func (b *burstLog) failed(log *slog.Logger, now time.Time, op storeOp, code Code, waited, quiet time.Duration, cause error) {
	b.mu.Lock()
	first := !b.failing.Load() || now.Sub(b.lastFail) >= burstGap
	if first {
		b.failing.Store(true)
		b.since, b.total, b.quiet = now, 0, 0
	}
	b.lastFail = now
	b.total++
	if !first && now.Sub(b.logged) < burstLogEvery {
		b.quiet++
		b.mu.Unlock()
		return
	}
	unlogged := b.quiet
	b.logged, b.quiet = now, 0
	since := now.Sub(b.since)
	b.mu.Unlock()
	attrs := []slog.Attr{
		slog.String("store_call", string(op)),
		slog.String("code", string(code)),
		slog.Duration("waited", waited),
		slog.String("cause", cause.Error()),
	}
	if quiet > 0 {
		attrs = append(attrs, slog.Duration("since_last_answer", quiet))
	}
	msg := "a limit could not be evaluated, so the request was refused (fail closed)"
	if !first {
		msg = "limits still cannot always be evaluated; requests are being refused"
		attrs = append(attrs, slog.Duration("failing_for", since), slog.Int("refusals_not_logged", unlogged))
	}
	log.LogAttrs(context.Background(), slog.LevelWarn, msg, attrs...)
}

func (b *burstLog) recovered(log *slog.Logger, now time.Time) {
	if !b.failing.Load() {
		return
	}
	b.mu.Lock()
	if !b.failing.Load() || now.Sub(b.lastFail) < burstGap {
		b.mu.Unlock()
		return
	}
	b.failing.Store(false)
	total, lasted := b.total, b.lastFail.Sub(b.since)
	b.mu.Unlock()
	log.LogAttrs(context.Background(), slog.LevelInfo, "the limits' store answers again",
		slog.Int("refusals", total), slog.Duration("failing_for", lasted))
}
