package storetest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/warden-mcp/warden/limits"
)

func testAudit(t *testing.T, b Backend) {
	s1, s2 := b.Instance(t), b.Instance(t)
	recs := []limits.AuditRecord{
		{Time: t0, CorrelationID: "c1", Credential: "cred-a", Tenant: "t1", Tool: "scan_web", Outcome: "ok", Duration: 1500 * time.Millisecond, QuotaCharged: 1},
		{Time: t0.Add(time.Second), CorrelationID: "c2", Credential: "cred-b", Tenant: "t2", Tool: "scan_web", Outcome: "quota_exceeded"},
		{Time: t0.Add(2 * time.Second), CorrelationID: "c3", Credential: "cred-a", Tenant: "t1", Tool: "find_secrets", Outcome: "ok", Duration: time.Millisecond},
		{Time: t0.Add(3 * time.Second), CorrelationID: "c4", Credential: "cred-a", Tenant: "t1", Tool: "scan_web", Outcome: "duplicate_scan", Duration: time.Microsecond},
		{Time: t0.Add(3 * time.Second), CorrelationID: "c5", Credential: "cred-c", Tenant: "", Tool: "scan_web", Outcome: "ok"},
	}
	for i, r := range recs {
		if err := []limits.Store{s1, s2}[i%2].AppendAudit(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}
	pick := func(idx ...int) []limits.AuditRecord {
		var out []limits.AuditRecord
		for _, i := range idx {
			out = append(out, recs[i])
		}
		return out
	}
	tests := []struct {
		name string
		f    limits.AuditFilter
		want []limits.AuditRecord
	}{
		{"all newest first, ties by insertion", limits.AuditFilter{Limit: 100}, pick(4, 3, 2, 1, 0)},
		{"limit", limits.AuditFilter{Limit: 2}, pick(4, 3)},
		{"credential", limits.AuditFilter{Credential: "cred-a", Limit: 100}, pick(3, 2, 0)},
		{"tenant", limits.AuditFilter{Tenant: "t2", Limit: 100}, pick(1)},
		{"tool and outcome", limits.AuditFilter{Tool: "scan_web", Outcome: "ok", Limit: 100}, pick(4, 0)},
		{"time range half open", limits.AuditFilter{Since: t0.Add(time.Second), Until: t0.Add(3 * time.Second), Limit: 100}, pick(2, 1)},
		{"no match", limits.AuditFilter{Credential: "nobody", Limit: 100}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s1.QueryAudit(t.Context(), tt.f)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// testAuditBatch appends several records in one call: all are kept, in
// the order given (ties on time are returned newest insertion first), and
// a call that cannot complete keeps none of them.
func testAuditBatch(t *testing.T, b Backend) {
	s := b.Instance(t)
	var recs []limits.AuditRecord
	for i := range 303 { // not a round number: adapters may write in chunks
		recs = append(recs, limits.AuditRecord{Time: t0, CorrelationID: fmt.Sprintf("b%03d", i), Credential: "cred-a",
			Tenant: "t1", Tool: "util_encode", Outcome: "ok", Duration: time.Duration(i) * time.Microsecond})
	}
	if err := s.AppendAudit(t.Context(), recs...); err != nil {
		t.Fatal(err)
	}
	got, err := s.QueryAudit(t.Context(), limits.AuditFilter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(recs)
	slices.Reverse(want)
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := s.AppendAudit(ctx, recs[:2]...); err == nil {
		t.Error("a batch with a cancelled context was accepted")
	}
	if got, err := s.QueryAudit(t.Context(), limits.AuditFilter{Limit: 1000}); err != nil || len(got) != len(recs) {
		t.Errorf("after failed batches: %d records (%v), want %d", len(got), err, len(recs))
	}
}

// testAuditConcurrentCalls has two replicas record many calls at once
// through their Limiters, which commit them in shared transactions: every
// record is kept exactly once.
func testAuditConcurrentCalls(t *testing.T, b Backend) {
	lims := []*limits.Limiter{}
	for range 2 {
		l, err := limits.New(b.Instance(t), &limits.Config{ScanTimeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		lims = append(lims, l)
	}
	const n = 400
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			errs <- lims[i%2].Audit(t.Context(), limits.AuditRecord{Time: t0, CorrelationID: fmt.Sprintf("c%03d", i),
				Credential: "cred-a", Tool: "util_encode"})
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	got, err := lims[0].QueryAudit(t.Context(), limits.AuditFilter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, r := range got {
		seen[r.CorrelationID]++
	}
	for i := range n {
		if id := fmt.Sprintf("c%03d", i); seen[id] != 1 {
			t.Errorf("record %s kept %d times", id, seen[id])
		}
	}
	if len(got) != n {
		t.Errorf("%d records, want %d", len(got), n)
	}
}

// testAuditRetryKeepsOne writes records again, as the Limiter's repair
// does after a commit whose answer was lost (the store committed, the
// caller saw an error): a record already kept is not kept twice, alone or
// inside a batch, and a record of its own for the same call (a refund) is
// still kept, as is a replay of the call that differs only in its charge.
func testAuditRetryKeepsOne(t *testing.T, b Backend) {
	s1, s2 := b.Instance(t), b.Instance(t)
	call := limits.AuditRecord{Time: t0, CorrelationID: "c1", Credential: "cred-a", Tenant: "t1", Tool: "scan_web", Outcome: "ok", QuotaCharged: 1}
	refund := call
	refund.Outcome, refund.QuotaCharged = "quota_refunded", -1
	other := call
	other.CorrelationID = "c2"
	replay := call
	replay.QuotaCharged = 0
	if err := s1.AppendAudit(t.Context(), call); err != nil {
		t.Fatal(err)
	}
	if err := s2.AppendAudit(t.Context(), call); err != nil {
		t.Fatalf("a record written again: %v, want it accepted and kept once", err)
	}
	if err := s1.AppendAudit(t.Context(), other, call, refund); err != nil {
		t.Fatalf("a batch holding a record already kept: %v", err)
	}
	if err := s2.AppendAudit(t.Context(), refund, other, replay); err != nil {
		t.Fatal(err)
	}
	got, err := s1.QueryAudit(t.Context(), limits.AuditFilter{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, r := range got {
		seen[fmt.Sprintf("%s/%s/%d", r.CorrelationID, r.Outcome, r.QuotaCharged)]++
	}
	want := map[string]int{"c1/ok/1": 1, "c1/ok/0": 1, "c1/quota_refunded/-1": 1, "c2/ok/1": 1}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("records kept (-want +got):\n%s", diff)
	}
}
