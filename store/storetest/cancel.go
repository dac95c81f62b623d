package storetest

import (
	"crypto/rand"
	"testing"
	"time"

	"github.com/warden-mcp/warden/limits"
)

// testCancelAdmission: an admission whose answer was lost is cancelled by
// its lease id. Cancelled after it committed, its slot and its charge are
// given back; cancelled before, it can never commit; a replay's
// cancellation leaves the charge of the admission that made it.
func testCancelAdmission(t *testing.T, b Backend) {
	s1, s2 := b.Instance(t), b.Instance(t)
	ctx := t.Context()
	mk := func(call string, now time.Time) limits.Admit {
		a := admitReq("cred-c", call, "key-"+call, now)
		a.Capacity, a.Monthly = 1, 3
		return a
	}
	usage := func(now time.Time) limits.UsageState {
		t.Helper()
		st, err := s2.ReadUsage(ctx, limits.UsageQuery{Now: now, Credential: "cred-c", Period: t0.UTC().Format("2006-01")})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}

	// Committed, then cancelled from the other replica: the one slot is
	// free again and the unit is back.
	a := mk("c1", t0)
	if adm := mustAdmit(t, s1, a); !adm.Charged || adm.MonthlyUsed != 1 {
		t.Fatalf("admission %+v", adm)
	}
	refunded, err := s2.CancelAdmission(ctx, a, t0.Add(time.Second))
	if err != nil || !refunded {
		t.Fatalf("cancel after commit: refunded=%v err=%v", refunded, err)
	}
	if st := usage(t0.Add(time.Second)); st.MonthlyUsed != 0 || st.Leases != 0 || st.AllLeases != 0 {
		t.Fatalf("after cancel: %+v", st)
	}
	if refunded, err := s1.CancelAdmission(ctx, a, t0.Add(2*time.Second)); err != nil || refunded {
		t.Fatalf("second cancel: refunded=%v err=%v", refunded, err)
	}
	if ok, err := s1.RefundScan(ctx, "cred-c", "c1"); err != nil || ok {
		t.Fatalf("the cancelled charge is still in the ledger: %v %v", ok, err)
	}
	// The same call id is charged afresh, and takes the freed slot.
	again := mk("c1", t0.Add(3*time.Second))
	if adm := mustAdmit(t, s2, again); !adm.Charged || adm.MonthlyUsed != 1 {
		t.Fatalf("the call again: %+v", adm)
	}
	if err := s2.ReleaseLease(ctx, again.LeaseID); err != nil {
		t.Fatal(err)
	}

	// Cancelled before it reached the store: the lease id is fenced, so
	// the admission fails when it arrives, and commits nothing.
	late := mk("c2", t0.Add(4*time.Second))
	if refunded, err := s1.CancelAdmission(ctx, late, t0.Add(4*time.Second)); err != nil || refunded {
		t.Fatalf("cancel before the admission: refunded=%v err=%v", refunded, err)
	}
	if st := usage(t0.Add(4 * time.Second)); st.Leases != 0 || st.AllLeases != 0 {
		t.Fatalf("a fence counts as a lease: %+v", st)
	}
	// Even after time has moved on, within the lease TTL.
	late.Now = t0.Add(4*time.Second + ttl/2)
	if adm, err := s2.AdmitScan(ctx, late); err == nil {
		t.Fatalf("an admission with a fenced lease id: %+v, want an error", adm)
	}
	if err := s2.ReleaseLease(ctx, late.LeaseID); err != nil {
		t.Fatal(err)
	}
	if adm, err := s1.AdmitScan(ctx, late); err == nil {
		t.Fatalf("release lifted a fence: %+v", adm)
	}
	if st := usage(late.Now); st.MonthlyUsed != 1 || st.Leases != 0 {
		t.Fatalf("the fenced admission left %+v", st)
	}
	// The fenced call itself, with a lease id of its own, is charged.
	late.LeaseID = rand.Text()
	if adm := mustAdmit(t, s1, late); !adm.Charged || adm.MonthlyUsed != 2 {
		t.Fatalf("the fenced call with a new lease: %+v", adm)
	}
	if err := s1.ReleaseLease(ctx, late.LeaseID); err != nil {
		t.Fatal(err)
	}

	// A replay's admission charged nothing; cancelling it leaves the
	// charge of the admission that made it.
	replay := late
	replay.LeaseID, replay.Now = rand.Text(), late.Now.Add(time.Second)
	if adm := mustAdmit(t, s2, replay); adm.Charged {
		t.Fatalf("replay charged: %+v", adm)
	}
	if refunded, err := s2.CancelAdmission(ctx, replay, replay.Now); err != nil || refunded {
		t.Fatalf("cancel of a replay: refunded=%v err=%v", refunded, err)
	}
	if st := usage(replay.Now); st.MonthlyUsed != 2 || st.Leases != 0 {
		t.Fatalf("after the replay's cancel: %+v", st)
	}
}
