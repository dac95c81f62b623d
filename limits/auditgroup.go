package limits

import (
	"context"
	"runtime"
	"sync"
	"time"
)

// Group commit of audit records.
//
// Every tool call's record must be in the store before its answer is
// released (package policy holds the answer until Audit returns), so the
// record's write is on the call's path. One store transaction per record
// made that write most of a cheap call's cost: the commit, not the row,
// is what costs. Calls that end while a commit is in flight therefore
// share the next one: the first of them leads a batch, waits for the
// commit before it to end, then writes every record that joined meanwhile
// in one transaction ([AuditStore.AppendAudit] with several records),
// and every caller in the batch returns with that commit's outcome. A
// caller returns only once its own record is committed or has failed, as
// before; nothing is written behind its back, and a lone call commits at
// once, without waiting for company.
//
// Batches commit one after the other, in the order they were opened, so
// the trail keeps the order in which calls ended and the store sees one
// audit writer at a time.

// maxAuditBatch bounds the records one transaction takes. A batch that is
// full is closed to newcomers, who open the next one.
const maxAuditBatch = 256

// auditGroup gathers concurrent Audit calls into batches.
type auditGroup struct {
	mu   sync.Mutex
	open *auditBatch // the batch newcomers join, nil when none
	last *auditBatch // the batch opened last; the next one waits for it
}

// auditBatch is the records of one transaction and its outcome.
type auditBatch struct {
	recs []AuditRecord
	prev <-chan struct{} // closed when the batch before has ended; nil if none
	done chan struct{}   // closed when this batch has ended; err is then set
	err  error
}

// append writes r with the records of the calls that end beside it, and
// returns once the transaction holding r has committed or failed. write
// commits a batch (the Limiter's store call, under its deadline rule,
// which refuses it once the store has gone quiet since the batch opened,
// the wait for the commit before it included); timeout bounds the
// batch's wait for the commit before it plus its own commit, counted from
// the moment the batch opened; a batch's leader (the caller
// that opened it) does not cut the batch short when its own ctx is
// cancelled, since the batch holds the records of other calls.
func (g *auditGroup) append(ctx context.Context, write func(ctx context.Context, opened time.Time, recs []AuditRecord) error, r AuditRecord, timeout time.Duration) error {
	g.mu.Lock()
	b := g.open
	lead := b == nil || len(b.recs) >= maxAuditBatch
	if lead {
		b = &auditBatch{done: make(chan struct{})}
		if g.last != nil {
			b.prev = g.last.done
		}
		g.open, g.last = b, b
	}
	b.recs = append(b.recs, r)
	g.mu.Unlock()
	if !lead {
		// The record may still be committed, so the caller waits for the
		// outcome rather than return early and record it twice. The wait
		// is bounded by the leader's deadline, which started first.
		<-b.done
		return b.err
	}
	opened := time.Now()
	deadline := opened.Add(timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	bctx, cancel := context.WithDeadline(context.WithoutCancel(ctx), deadline)
	defer cancel()
	// Let the calls that are ready to run reach their own record and
	// join, for as long as each round brings more: on a busy server with
	// few cores the commit before has often ended by now, and without
	// this yield most records would commit alone. With nothing else to
	// run it returns at once.
	for n := 1; ; {
		runtime.Gosched()
		g.mu.Lock()
		m := len(b.recs)
		g.mu.Unlock()
		if m == n || m >= maxAuditBatch {
			break
		}
		n = m
	}
	if b.prev != nil {
		select {
		case <-b.prev:
		case <-bctx.Done():
		}
	}
	g.mu.Lock()
	if g.open == b {
		g.open = nil
	}
	recs := b.recs
	g.mu.Unlock()
	if err := bctx.Err(); err != nil {
		b.err = err // the commits before took the whole budget
	} else {
		b.err = write(bctx, opened, recs)
	}
	close(b.done)
	return b.err
}
