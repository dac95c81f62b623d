package limits

import (
	"context"
	"errors"
	"sort"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// gatedAudit is a fake store whose first AppendAudit (every one, with
// hang) waits for gate or its context, so that calls ending meanwhile
// have to wait for it. It keeps the records of each AppendAudit call
// apart.
type gatedAudit struct {
	*fakeStore
	gate chan struct{}
	hang bool

	amu   sync.Mutex
	calls [][]AuditRecord
}

func (g *gatedAudit) AppendAudit(ctx context.Context, rs ...AuditRecord) error {
	g.amu.Lock()
	g.calls = append(g.calls, rs)
	first := len(g.calls) == 1
	g.amu.Unlock()
	if first || g.hang {
		select {
		case <-g.gate:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return g.fakeStore.AppendAudit(ctx, rs...)
}

func (g *gatedAudit) batches() []int {
	g.amu.Lock()
	defer g.amu.Unlock()
	var n []int
	for _, c := range g.calls {
		n = append(n, len(c))
	}
	return n
}

// auditAll starts n audit calls numbered from first, and returns their
// errors on a channel as each returns.
func auditAll(l *Limiter, first, n int) <-chan error {
	errs := make(chan error, n)
	for i := range n {
		go func() {
			errs <- l.Audit(context.Background(), AuditRecord{CorrelationID: "c" + strconv.Itoa(first+i), Credential: "cred", Tool: "t"})
		}()
	}
	return errs
}

// Calls that end while a commit is in flight share the next transaction,
// and none returns before its record is committed.
func TestAuditGroupCommit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := &gatedAudit{fakeStore: newFake(), gate: make(chan struct{})}
		l, err := New(g, &Config{ScanTimeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		first := auditAll(l, 0, 1)
		synctest.Wait() // the first commit is in flight
		rest := auditAll(l, 1, 9)
		synctest.Wait() // the nine wait for it, in one batch
		if got := len(first) + len(rest); got != 0 {
			t.Fatalf("%d calls returned before their record was committed", got)
		}
		if diff := cmp.Diff([]int{1}, g.batches()); diff != "" {
			t.Fatalf("store calls before the first commit ends (-want +got):\n%s", diff)
		}
		close(g.gate)
		for range 1 {
			if err := <-first; err != nil {
				t.Fatal(err)
			}
		}
		for range 9 {
			if err := <-rest; err != nil {
				t.Fatal(err)
			}
		}
		if diff := cmp.Diff([]int{1, 9}, g.batches()); diff != "" {
			t.Errorf("records per transaction (-want +got):\n%s", diff)
		}
		var ids []string
		for _, r := range g.audit {
			ids = append(ids, r.CorrelationID)
		}
		sort.Strings(ids)
		want := []string{"c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9"}
		if diff := cmp.Diff(want, ids); diff != "" {
			t.Errorf("records in the store (-want +got):\n%s", diff)
		}
	})
}

// A batch is closed at maxAuditBatch records: the next call opens another,
// and batches commit in the order they were opened.
func TestAuditGroupBatchBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := &gatedAudit{fakeStore: newFake(), gate: make(chan struct{})}
		l, err := New(g, &Config{ScanTimeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		errs := auditAll(l, 0, 1)
		synctest.Wait()
		// One at a time, so that the order of joining is known.
		n := maxAuditBatch + 3
		more := make(chan error, n)
		for i := range n {
			go func() {
				more <- l.Audit(context.Background(), AuditRecord{CorrelationID: "c" + strconv.Itoa(1+i), Credential: "cred", Tool: "t"})
			}()
			synctest.Wait()
		}
		close(g.gate)
		for range 1 + n {
			select {
			case err := <-errs:
				if err != nil {
					t.Fatal(err)
				}
			case err := <-more:
				if err != nil {
					t.Fatal(err)
				}
			}
		}
		if diff := cmp.Diff([]int{1, maxAuditBatch, 3}, g.batches()); diff != "" {
			t.Errorf("records per transaction (-want +got):\n%s", diff)
		}
		for i, r := range g.audit {
			if want := "c" + strconv.Itoa(i); r.CorrelationID != want {
				t.Fatalf("record %d is %s, want %s: batches committed out of order", i, r.CorrelationID, want)
			}
		}
	})
}

// A failed commit fails every call of its batch, and records nothing.
func TestAuditGroupFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := &gatedAudit{fakeStore: newFake(), gate: make(chan struct{})}
		l, err := New(g, &Config{ScanTimeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		errs := auditAll(l, 0, 1)
		synctest.Wait()
		rest := auditAll(l, 1, 5)
		synctest.Wait()
		g.setErr(errDown)
		close(g.gate)
		for range 1 {
			if err := <-errs; !errors.Is(err, ErrAuditUnavailable) {
				t.Errorf("first call: %v, want audit_unavailable", err)
			}
		}
		for range 5 {
			if err := <-rest; !errors.Is(err, ErrAuditUnavailable) {
				t.Errorf("batched call: %v, want audit_unavailable", err)
			}
		}
		if len(g.audit) != 0 {
			t.Errorf("%d records kept by failed commits", len(g.audit))
		}
	})
}

// A batch's time budget runs from when it opened: waiting for a commit
// that hangs counts, so calls behind a hung store fail within ScanTimeout
// rather than one timeout after another.
func TestAuditGroupDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := &gatedAudit{fakeStore: newFake(), gate: make(chan struct{}), hang: true}
		l, err := New(g, &Config{ScanTimeout: 500 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		errs := auditAll(l, 0, 1)
		synctest.Wait()
		time.Sleep(100 * time.Millisecond)
		rest := auditAll(l, 1, 3)
		for range 1 {
			if err := <-errs; !errors.Is(err, ErrAuditUnavailable) {
				t.Errorf("hung commit: %v, want audit_unavailable", err)
			}
		}
		for range 3 {
			if err := <-rest; !errors.Is(err, ErrAuditUnavailable) {
				t.Errorf("call behind the hung commit: %v, want audit_unavailable", err)
			}
		}
		if took := time.Since(start); took != 600*time.Millisecond {
			t.Errorf("calls ended after %v, want 600ms (100ms late, then their own 500ms)", took)
		}
		if diff := cmp.Diff([]int{1, 3}, g.batches()); diff != "" {
			t.Errorf("records per transaction (-want +got):\n%s", diff)
		}
		close(g.gate)
	})
}

// A leader whose caller has left still commits the records of the others.
func TestAuditGroupLeaderCancelled(t *testing.T) {
	f := newFake()
	l, _ := newTestLimiter(t, f, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := l.Audit(ctx, AuditRecord{Credential: "c", Tool: "t"}); err != nil {
		t.Fatalf("audit with a cancelled context: %v", err)
	}
	if len(f.audit) != 1 {
		t.Errorf("%d records, want 1", len(f.audit))
	}
}
