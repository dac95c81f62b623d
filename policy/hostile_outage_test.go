package policy

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/warden-mcp/warden/limits"
	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/tool"
)

// outageStore fails every call while down, as a store that lost its disk
// or its network would.
type outageStore struct {
	limits.Store
	down atomic.Bool
	// slowAudit makes audit writes wait until their deadline.
	slowAudit atomic.Bool
}

var errOutage = errors.New("store outage")

func (s *outageStore) TakeRate(ctx context.Context, key string, now time.Time, p limits.RatePolicy) (limits.RateDecision, error) {
	if s.down.Load() {
		return limits.RateDecision{}, errOutage
	}
	return s.Store.TakeRate(ctx, key, now, p)
}

func (s *outageStore) AdmitScan(ctx context.Context, a limits.Admit) (limits.Admission, error) {
	if s.down.Load() {
		return limits.Admission{}, errOutage
	}
	return s.Store.AdmitScan(ctx, a)
}

func (s *outageStore) ReleaseLease(ctx context.Context, id string) error {
	if s.down.Load() {
		return errOutage
	}
	return s.Store.ReleaseLease(ctx, id)
}

func (s *outageStore) RefundScan(ctx context.Context, cred, call string) (bool, error) {
	if s.down.Load() {
		return false, errOutage
	}
	return s.Store.RefundScan(ctx, cred, call)
}

func (s *outageStore) AppendAudit(ctx context.Context, rs ...limits.AuditRecord) error {
	if s.down.Load() {
		return errOutage
	}
	if s.slowAudit.Load() {
		<-ctx.Done()
		return ctx.Err()
	}
	return s.Store.AppendAudit(ctx, rs...)
}

// outageFixture is the policy fixture over a store that can go down.
func outageFixture(t *testing.T, maxPending int) (*fixture, *outageStore) {
	t.Helper()
	f := newFixture(t, limits.Config{MaxConcurrentScans: 1, ScanRate: limits.RatePolicy{Limit: 100, Window: time.Minute}})
	os := &outageStore{Store: f.store}
	lim, err := limits.New(os, &limits.Config{Now: f.clk.now, MaxConcurrentScans: 1, ScanRate: limits.RatePolicy{Limit: 100, Window: time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	f.lim = lim
	f.ctl.Limiter = lim
	f.ctl.MaxPendingAudit = maxPending
	return f, os
}

func auditCount(t *testing.T, f *fixture) int {
	t.Helper()
	recs, err := f.store.QueryAudit(t.Context(), limits.AuditFilter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	return len(recs)
}

// TestHostileOutageKeepsAuditAndFreesSlots reproduces issue defect 4: a
// scan completes while the store is down. Before the fix its audit record
// was lost and its slot release tried once, so after the store came back
// the call had no record and the credential stayed locked out of its one
// slot until the lease's TTL (180 s). Now the record waits and is written,
// and the release is retried, once the store is back.
func TestHostileOutageKeepsAuditAndFreesSlots(t *testing.T) {
	f, st := outageFixture(t, 0)
	ctx := context.Background()
	done := make(chan string, 1)
	go func() {
		code, _ := f.call(ctx, alice, "metered_slow", `{"target":"a"}`)
		done <- code
	}()
	<-f.began // it holds the credential's one slot
	st.down.Store(true)
	close(f.gate)
	if code := <-done; code != "ok" {
		t.Fatalf("the scan that completed during the outage: %q", code)
	}
	st.down.Store(false)
	if n := auditCount(t, f); n != 0 {
		t.Fatalf("%d audit records written during the outage", n)
	}
	if a, r := f.ctl.Pending(); a != 1 || r != 1 {
		t.Fatalf("pending after the outage: %d records, %d releases; want 1 and 1", a, r)
	}
	if code, _ := f.call(ctx, alice, "metered", `{"target":"b"}`); code != "too_many_concurrent_scans" {
		t.Fatalf("before repair the stranded slot should still be held: %q", code)
	}
	f.ctl.Repair(ctx)
	if a, r := f.ctl.Pending(); a != 0 || r != 0 {
		t.Fatalf("pending after repair: %d records, %d releases", a, r)
	}
	if code, _ := f.call(ctx, alice, "metered", `{"target":"b"}`); code != "ok" {
		t.Errorf("after repair the credential is still locked out: %q", code)
	}
	// The outage call, the refused call and the last one.
	recs, _ := f.store.QueryAudit(ctx, limits.AuditFilter{Limit: 10})
	outcomes := map[string]int{}
	for _, r := range recs {
		outcomes[r.Outcome]++
	}
	if outcomes["ok"] != 2 || outcomes["too_many_concurrent_scans"] != 1 {
		t.Errorf("audit after repair: %v", outcomes)
	}
}

// TestHostileOutageRefusesBeforeWorkWhenTheQueueIsFull: once the records
// waiting fill MaxPendingAudit, a call is refused before its handler runs
// (audit_unavailable): no call runs without a record.
func TestHostileOutageRefusesBeforeWorkWhenTheQueueIsFull(t *testing.T) {
	f, st := outageFixture(t, 2)
	ran := 0
	reg := tool.NewRegistry()
	tool.Add(reg, tool.Def{Name: "counted", Description: "Counts its runs.", Annotations: tool.Annotations{ReadOnly: true},
		Catalog: tool.Catalog{Category: "test", Trust: tool.TrustAuto}}, func(ctx context.Context, c *tool.Call, _ struct{}) (string, error) {
		ran++
		return "ran", nil
	})
	f.srv = mcp.NewServer(reg, &mcp.Options{Middleware: f.ctl.Middleware()})
	counted := alice
	counted.Entitlements = []string{"counted"}
	st.down.Store(true)
	for i := range 2 {
		if code, _ := f.call(t.Context(), counted, "counted", `{}`); code != "ok" {
			t.Fatalf("call %d during the outage: %q", i, code)
		}
	}
	if code, _ := f.call(t.Context(), counted, "counted", `{}`); code != CodeAuditUnavailable {
		t.Fatalf("call past the queue: %q, want %s", code, CodeAuditUnavailable)
	}
	if ran != 2 {
		t.Errorf("the handler ran %d times; the refused call must not run", ran)
	}
	st.down.Store(false)
	f.ctl.Repair(t.Context())
	if n := auditCount(t, f); n != 2 {
		t.Errorf("%d records after repair, want 2", n)
	}
	if code, _ := f.call(t.Context(), counted, "counted", `{}`); code != "ok" {
		t.Errorf("after repair: %q", code)
	}
}

// A repair with little time, as at exit, frees the slots before it spends
// that time on the audit records waiting: they were written first, and a
// store too slow to take them left every slot held until its lease
// expired.
func TestRepairFreesSlotsBeforeTheAuditBacklog(t *testing.T) {
	f, st := outageFixture(t, 0)
	ctx := context.Background()
	done := make(chan string, 1)
	go func() {
		code, _ := f.call(ctx, alice, "metered_slow", `{"target":"a"}`)
		done <- code
	}()
	<-f.began
	st.down.Store(true) // the release and the audit write fail
	close(f.gate)
	if code := <-done; code != "ok" {
		t.Fatalf("the scan: %q", code)
	}
	if a, r := f.ctl.Pending(); a != 1 || r != 1 {
		t.Fatalf("pending: %d records, %d releases", a, r)
	}
	// The store takes releases again, but audit writes only as fast as
	// the repair's deadline allows: never. The repair has 300 ms.
	st.down.Store(false)
	st.slowAudit.Store(true)
	rctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	f.ctl.Repair(rctx)
	if a, r := f.ctl.Pending(); a != 1 || r != 0 {
		t.Fatalf("after a short repair: %d records, %d releases waiting; want the record only", a, r)
	}
}
