package policy

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/warden-mcp/warden/limits"
	"github.com/warden-mcp/warden/tool"
)

// What a store outage leaves behind, and how it is repaired once the store
// is back: audit records that could not be written wait in memory, in
// order, and slot releases (with the refund of a call that failed through
// the server) that could not be made are retried, rather than leaving the
// credential locked out until the lease expires; so are the limiter's
// cancellations of admissions whose answer was lost (limits.Limiter.Settle).
//
// The audit trail promises a record of every call. A call whose record
// cannot be written is still recorded, later; when the records waiting
// already fill MaxPendingAudit, a new call is refused before any work with
// audit_unavailable, so that no call runs without its record.

// DefaultMaxPendingAudit bounds the audit records kept while the store
// cannot take them.
const DefaultMaxPendingAudit = 10000

// DefaultRepairInterval is how often Run retries what an outage left.
const DefaultRepairInterval = time.Second

// CodeAuditUnavailable refuses a call that could not be recorded.
const CodeAuditUnavailable = string(limits.CodeAuditUnavailable)

// repairs holds what waits for the store.
type repairs struct {
	run sync.Mutex // one Repair at a time: a record is written once
	mu  sync.Mutex
	// reserved counts calls running that will need a place in pending if
	// their record cannot be written; pending+reserved never passes the
	// bound, so a record never has to be dropped.
	reserved int
	pending  []limits.AuditRecord
	releases []pendingRelease
}

type pendingRelease struct {
	scan   *limits.Scan
	refund bool
	rec    *callRecord // the call's, for the record of a refund
}

func (c *Controls) maxPendingAudit() int {
	if c.MaxPendingAudit > 0 {
		return c.MaxPendingAudit
	}
	return DefaultMaxPendingAudit
}

// reserveAudit makes sure the call's record will have a place if the store
// refuses it; false means the queue is full and the call must not run.
func (c *Controls) reserveAudit() bool {
	r := &c.repairs
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.pending)+r.reserved >= c.maxPendingAudit() {
		return false
	}
	r.reserved++
	return true
}

// settleAudit writes the record, or keeps it in the call's reserved place
// until the store takes it.
func (c *Controls) settleAudit(ctx context.Context, rec limits.AuditRecord) {
	r := &c.repairs
	r.mu.Lock()
	waiting := len(r.pending) > 0
	r.mu.Unlock()
	var err error
	if !waiting { // records are written in order: behind those waiting
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		err = c.Limiter.Audit(actx, rec)
		cancel()
	}
	r.mu.Lock()
	r.reserved--
	if waiting || err != nil {
		r.pending = append(r.pending, rec)
	}
	r.mu.Unlock()
	if err != nil {
		c.observe().StoreError(ctx, "audit")
		c.logger().LogAttrs(ctx, slog.LevelWarn, "audit record kept until the store takes it",
			slog.String("tool", rec.Tool), slog.String("correlation_id", rec.CorrelationID), slog.String("cause", err.Error()))
	}
}

// auditRefusal is the outcome of a call refused because it could not be
// recorded.
func auditRefusal(t *tool.Tool) tool.Outcome {
	return refuse(t, &tool.Error{Code: CodeAuditUnavailable, Message: "the call cannot be recorded in the audit trail now, so it was not run; retry later",
		Details: map[string]any{"retryAfterSeconds": limits.RetryAfterSeconds(limits.DefaultUnavailableRetry)}})
}

// retryRelease keeps a slot release (and the refund before it) that the
// store did not take; rec is the call's record, for the refund's.
func (c *Controls) retryRelease(scan *limits.Scan, refund bool, rec *callRecord) {
	r := &c.repairs
	r.mu.Lock()
	r.releases = append(r.releases, pendingRelease{scan, refund, rec})
	r.mu.Unlock()
}

// Pending reports the audit records and slot releases waiting for the
// store. Releases include the limiter's cancellations of admissions whose
// answer was lost (limits.Limiter.Unsettled).
func (c *Controls) Pending() (audit, releases int) {
	unsettled := c.Limiter.Unsettled()
	r := &c.repairs
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.pending), len(r.releases) + unsettled
}

// Repair retries what waits for the store: first the slot releases and
// the limiter's cancellations, which free capacity for every caller in a
// few store calls, then the audit records, oldest first, stopping at the
// first audit write the store refuses. A release whose lease has expired
// meanwhile is dropped: its slot is free anyway. (The audit records came
// first until a slow store, at exit, spent the whole time on hundreds of
// records and left the slots held until their leases expired.)
func (c *Controls) Repair(ctx context.Context) {
	r := &c.repairs
	r.run.Lock()
	defer r.run.Unlock()
	c.repairSlots(ctx)
	for {
		r.mu.Lock()
		if len(r.pending) == 0 {
			r.mu.Unlock()
			break
		}
		rec := r.pending[0]
		r.mu.Unlock()
		if err := c.Limiter.Audit(ctx, rec); err != nil {
			if !limits.Unavailable(err) {
				// A record the store will never take (an invalid id):
				// keeping it would block the rest.
				c.logger().LogAttrs(ctx, slog.LevelError, "audit record dropped", slog.String("correlation_id", rec.CorrelationID), slog.String("cause", err.Error()))
			} else {
				break
			}
		}
		r.mu.Lock()
		r.pending = r.pending[1:]
		if len(r.pending) == 0 {
			r.pending = nil
		}
		r.mu.Unlock()
	}
}

// repairSlots retries the slot releases (and refunds) and the limiter's
// cancellations waiting for the store.
func (c *Controls) repairSlots(ctx context.Context) {
	r := &c.repairs
	r.mu.Lock()
	rels := r.releases
	r.releases = nil
	r.mu.Unlock()
	now := c.Limiter.Config().Now()
	var left []pendingRelease
	for _, p := range rels {
		if !now.Before(p.scan.Expires()) {
			continue
		}
		if p.refund {
			if _, err := p.scan.Refund(ctx); err != nil {
				left = append(left, p)
				continue
			}
			p.refund = false
			c.recordRefund(ctx, p.rec)
		}
		if err := p.scan.Release(ctx); err != nil {
			left = append(left, p)
		}
	}
	if len(left) > 0 {
		r.mu.Lock()
		r.releases = append(r.releases, left...)
		r.mu.Unlock()
	}
	c.Limiter.Settle(ctx)
}

// Run repairs every interval (zero: DefaultRepairInterval) while anything
// waits, until ctx ends. Start it once per process beside the server.
func (c *Controls) Run(ctx context.Context, interval time.Duration) {
	if interval <= 0 {
		interval = DefaultRepairInterval
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if a, r := c.Pending(); a+r > 0 {
			c.Repair(ctx)
		}
	}
}
