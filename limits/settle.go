package limits

import (
	"context"
	"log/slog"
	"sync"
)

// Admissions whose answer was lost.
//
// When AdmitScan fails, the store may still have committed the admission:
// PostgreSQL keeps running a statement whose client has gone, and commits
// it. Left alone, such an admission holds a slot that no one will release
// until its lease expires and keeps a charge that no call was told of.
// So BeginScan never leaves one: the Limiter chose the lease id itself,
// and cancels the admission by that id (Store.CancelAdmission), which
// either undoes what committed or fences the id so that it never commits.
// A cancellation the store cannot take now is kept, in order, and tried
// again by Settle.

// MaxUnsettled bounds the cancellations a Limiter keeps while the store
// cannot take them. Past it the oldest is dropped and logged: its slot
// frees itself when its lease expires, but a charge it may have made
// stays in the ledger.
const MaxUnsettled = 10000

// unsettled is the cancellations waiting for the store.
type unsettled struct {
	run sync.Mutex // one Settle at a time
	mu  sync.Mutex
	q   []Admit
}

// cancelAdmission cancels a, which AdmitScan did not answer: once now,
// and, if the store cannot take it, later through Settle. It never
// blocks for longer than a scan store call may.
func (l *Limiter) cancelAdmission(ctx context.Context, a Admit) {
	ctx = context.WithoutCancel(ctx) // the caller leaving changes nothing
	if err := l.cancelOne(ctx, a); err == nil {
		return
	}
	u := &l.unsettled
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.q) >= MaxUnsettled {
		l.cfg.Logger.LogAttrs(ctx, slog.LevelError, "too many scan admissions wait to be cancelled; the oldest is dropped and its slot frees when its lease expires",
			slog.Int("waiting", len(u.q)))
		u.q = u.q[1:]
	}
	u.q = append(u.q, a)
}

func (l *Limiter) cancelOne(ctx context.Context, a Admit) error {
	return l.run(ctx, opCancelAdmission, CodeScanSlotsUnavailable, l.scanDeadline(), func(ctx context.Context) error {
		_, err := l.store.CancelAdmission(ctx, a, l.cfg.Now())
		return err
	})
}

// Unsettled reports how many admissions whose answer was lost wait to be
// cancelled because the store could not take the cancellation.
func (l *Limiter) Unsettled() int {
	l.unsettled.mu.Lock()
	defer l.unsettled.mu.Unlock()
	return len(l.unsettled.q)
}

// Settle retries the waiting cancellations, oldest first, and stops at the
// first the store refuses. It returns how many are left. Call it
// periodically while Unsettled is not zero (package policy's Run does),
// and once more at exit.
func (l *Limiter) Settle(ctx context.Context) int {
	u := &l.unsettled
	u.run.Lock()
	defer u.run.Unlock()
	for {
		u.mu.Lock()
		if len(u.q) == 0 {
			u.q = nil
			u.mu.Unlock()
			return 0
		}
		a := u.q[0]
		u.mu.Unlock()
		if err := l.cancelOne(ctx, a); err != nil {
			return l.Unsettled()
		}
		u.mu.Lock()
		if len(u.q) > 0 && u.q[0].LeaseID == a.LeaseID { // not dropped meanwhile
			u.q = u.q[1:]
		}
		u.mu.Unlock()
	}
}
