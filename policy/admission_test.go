package policy

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/limits"
)

// lostAnswerStore commits admissions and then, while lose is set, fails
// them: the answer was lost on the way back, as when a deadline passes
// while PostgreSQL commits.
type lostAnswerStore struct {
	limits.Store
	lose atomic.Int32 // admissions left to lose
}

func (s *lostAnswerStore) AdmitScan(ctx context.Context, a limits.Admit) (limits.Admission, error) {
	adm, err := s.Store.AdmitScan(ctx, a)
	if err == nil && s.lose.Add(-1) >= 0 {
		return limits.Admission{}, errors.New("connection reset after commit")
	}
	return adm, err
}

// The audit trail and the ledger agree on what a call was charged, also
// when an admission's answer is lost: hosted, the call is refused and
// neither charges it nor keeps its slot; local, it waits, asks again and
// is charged once.
func TestAuditAgreesWithLedgerWhenAnAnswerIsLost(t *testing.T) {
	for _, local := range []bool{false, true} {
		name := map[bool]string{false: "hosted", true: "local"}[local]
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, limits.Config{})
			ls := &lostAnswerStore{Store: f.store}
			lim, err := limits.New(ls, &limits.Config{Now: f.clk.now, ScanRate: limits.RatePolicy{Limit: 100, Window: time.Minute}})
			if err != nil {
				t.Fatal(err)
			}
			f.lim, f.ctl.Limiter = lim, lim
			if local {
				f.ctl.Queue = &Queue{Poll: 10 * time.Millisecond, MaxWait: 5 * time.Second}
			}
			ls.lose.Store(1)
			code, text := f.call(context.Background(), alice, "metered", `{"target":"one"}`)
			want := map[bool]string{false: string(limits.CodeQuotaUnavailable), true: "ok"}[local]
			if code != want {
				t.Fatalf("call: %s %s, want %s", code, text, want)
			}
			u, err := lim.Usage(context.Background(), CallerKey(alice))
			if err != nil {
				t.Fatal(err)
			}
			recs, err := f.store.QueryAudit(context.Background(), limits.AuditFilter{Limit: 10})
			if err != nil || len(recs) != 1 {
				t.Fatalf("audit: %v %v", recs, err)
			}
			if recs[0].QuotaCharged != u.MonthlyUsed || u.Slots != 0 {
				t.Fatalf("audit says %d charged, the ledger %d; %d slots held", recs[0].QuotaCharged, u.MonthlyUsed, u.Slots)
			}
			if want := map[bool]int64{false: 0, true: 1}[local]; u.MonthlyUsed != want {
				t.Errorf("charged %d, want %d", u.MonthlyUsed, want)
			}
		})
	}
}

// A refund given after the call's own record counted the charge (a legacy
// result too large to keep, known only once delivery failed) is recorded
// as a record of its own, -1, so that the trail still sums to the ledger;
// also when the refund waited for the store.
func TestLateRefundIsRecorded(t *testing.T) {
	for _, outage := range []bool{false, true} {
		t.Run(map[bool]string{false: "at once", true: "after an outage"}[outage], func(t *testing.T) {
			f, st := outageFixture(t, 0)
			ctx := auth.WithPrincipal(context.Background(), alice)
			scan, err := f.lim.BeginScan(ctx, limits.ScanRequest{Credential: CallerKey(alice), Tenant: alice.Tenant,
				Tool: "metered", ScanKey: "k", Charge: true, CallID: "call-1"})
			if err != nil || !scan.Charged() {
				t.Fatalf("admission: %v", err)
			}
			own := limits.AuditRecord{Time: time.Now(), CorrelationID: "corr-1", Credential: alice.Credential, Tenant: alice.Tenant,
				Tool: "metered", Outcome: "ok", QuotaCharged: 1}
			if err := f.lim.Audit(ctx, own); err != nil {
				t.Fatal(err)
			}
			rec := &callRecord{charged: 1, written: &own}
			st.down.Store(outage)
			f.ctl.releaseScan(ctx, ctx, scan, true, rec)
			st.down.Store(false)
			f.ctl.Repair(ctx)
			u, err := f.lim.Usage(ctx, CallerKey(alice))
			if err != nil {
				t.Fatal(err)
			}
			recs, _ := f.store.QueryAudit(ctx, limits.AuditFilter{Limit: 10})
			var sum int64
			for _, r := range recs {
				sum += r.QuotaCharged
			}
			if u.MonthlyUsed != 0 || sum != 0 || len(recs) != 2 || recs[0].Outcome != CodeQuotaRefunded || recs[0].CorrelationID != "corr-1" {
				t.Fatalf("after the refund: ledger %d, audit sum %d: %+v", u.MonthlyUsed, sum, recs)
			}
		})
	}
}
