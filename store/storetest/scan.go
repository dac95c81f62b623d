package storetest

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/warden-mcp/warden/limits"
)

const ttl = 180 * time.Second

// admitReq is a charged admission with generous limits; tests tighten the
// one they exercise.
func admitReq(cred, call, key string, now time.Time) limits.Admit {
	return limits.Admit{
		Now: now, Credential: cred, Tenant: "tenant-1", Tool: "scan_web", ScanKey: key,
		LeaseID: rand.Text(), LeaseTTL: ttl, MaxPerCredential: 1000, Capacity: 1000,
		Charge: true, CallID: call, Rate: limits.RatePolicy{Limit: 1000, Window: time.Minute},
		Period: now.UTC().Format("2006-01"), Monthly: 1000,
	}
}

func mustAdmit(t *testing.T, s limits.Store, a limits.Admit) limits.Admission {
	t.Helper()
	adm, err := s.AdmitScan(t.Context(), a)
	if err != nil {
		t.Fatalf("AdmitScan(%s/%s): %v", a.Credential, a.CallID, err)
	}
	if adm.Refusal != "" {
		t.Fatalf("AdmitScan(%s/%s) refused: %s", a.Credential, a.CallID, adm.Refusal)
	}
	return adm
}

func wantRefusal(t *testing.T, s limits.Store, a limits.Admit, want limits.Code) limits.Admission {
	t.Helper()
	adm, err := s.AdmitScan(t.Context(), a)
	if err != nil {
		t.Fatalf("AdmitScan(%s/%s): %v", a.Credential, a.CallID, err)
	}
	if adm.Refusal != want {
		t.Fatalf("AdmitScan(%s/%s) = %q, want %q", a.Credential, a.CallID, adm.Refusal, want)
	}
	return adm
}

func testMonthlyQuotaExact(t *testing.T, b Backend) {
	stores := []limits.Store{b.Instance(t), b.Instance(t)}
	var admitted, exceeded atomic.Int64
	forEach(20, stores, func(i int, s limits.Store) {
		a := admitReq("cred-q", fmt.Sprint("call-", i), fmt.Sprint("key-", i), t0)
		a.Monthly = 5
		adm, err := s.AdmitScan(context.Background(), a)
		switch {
		case err != nil:
			t.Errorf("admit %d: %v", i, err)
		case adm.Refusal == "":
			if !adm.Charged || adm.MonthlyUsed < 1 || adm.MonthlyUsed > 5 {
				t.Errorf("admit %d: %+v", i, adm)
			}
			admitted.Add(1)
		case adm.Refusal == limits.CodeQuotaExceeded:
			exceeded.Add(1)
		default:
			t.Errorf("admit %d: refusal %s", i, adm.Refusal)
		}
	})
	if admitted.Load() != 5 || exceeded.Load() != 15 {
		t.Fatalf("admitted %d, exceeded %d; want exactly 5 and 15", admitted.Load(), exceeded.Load())
	}
}

func testChargedOncePerCall(t *testing.T, b Backend) {
	s1, s2 := b.Instance(t), b.Instance(t)
	a := admitReq("cred-r", "call-1", "key-1", t0)
	a.Monthly = 2
	adm := mustAdmit(t, s1, a)
	if !adm.Charged || adm.MonthlyUsed != 1 {
		t.Fatalf("first admission %+v", adm)
	}
	if err := s1.ReleaseLease(t.Context(), a.LeaseID); err != nil {
		t.Fatal(err)
	}
	// The same call id replayed on another replica: admitted, not charged.
	re := a
	re.LeaseID = rand.Text()
	if adm := mustAdmit(t, s2, re); adm.Charged {
		t.Fatalf("replay charged again: %+v", adm)
	}
	if err := s2.ReleaseLease(t.Context(), re.LeaseID); err != nil {
		t.Fatal(err)
	}
	// The same call id for a different scan is a conflict.
	other := admitReq("cred-r", "call-1", "key-2", t0)
	wantRefusal(t, s1, other, limits.CodeIdempotencyConflict)
	// Call ids are scoped per credential.
	mustAdmit(t, s1, admitReq("cred-other", "call-1", "key-2", t0))
	// Exactly one unit is left for cred-r this month.
	b2 := admitReq("cred-r", "call-2", "key-2", t0)
	b2.Monthly = 2
	if adm := mustAdmit(t, s2, b2); adm.MonthlyUsed != 2 {
		t.Fatalf("second charged call used %d, want 2", adm.MonthlyUsed)
	}
	b3 := admitReq("cred-r", "call-3", "key-3", t0)
	b3.Monthly = 2
	wantRefusal(t, s1, b3, limits.CodeQuotaExceeded)
}

func testRefusalsConsumeNothing(t *testing.T, b Backend) {
	s := b.Instance(t)
	rate := limits.RatePolicy{Limit: 2, Window: time.Minute}
	mk := func(call string, now time.Time) limits.Admit {
		a := admitReq("cred-n", call, call, now)
		a.Rate, a.Monthly = rate, 3
		return a
	}
	mustAdmit(t, s, mk("c1", t0))
	mustAdmit(t, s, mk("c2", t0))
	adm := wantRefusal(t, s, mk("c3", t0.Add(time.Second)), limits.CodeRateLimitExceeded)
	if adm.RetryAfter != 59*time.Second+time.Microsecond {
		t.Fatalf("rate retry after %v", adm.RetryAfter)
	}
	// The rate-limited call wrote no ledger row and spent no monthly unit:
	// once the window moves, the same call id is charged normally and the
	// third unit is still there.
	later := t0.Add(time.Minute + time.Microsecond)
	if adm := mustAdmit(t, s, mk("c3", later)); !adm.Charged || adm.MonthlyUsed != 3 {
		t.Fatalf("c3 after the window: %+v", adm)
	}
	// A quota refusal does not spend the rate window either: with the
	// monthly allowance gone, refusals at the same instant stay
	// quota_exceeded instead of turning into rate_limit_exceeded.
	for i := range 5 {
		wantRefusal(t, s, mk(fmt.Sprint("q", i), later), limits.CodeQuotaExceeded)
	}
	// A duplicate refusal charges nothing and holds no slot.
	a := admitReq("cred-d", "d1", "same", t0)
	a.Monthly = 1
	mustAdmit(t, s, a)
	d := admitReq("cred-d", "d2", "same", t0)
	d.Monthly = 1
	wantRefusal(t, s, d, limits.CodeDuplicateScan)
	if err := s.ReleaseLease(t.Context(), a.LeaseID); err != nil {
		t.Fatal(err)
	}
	wantRefusal(t, s, d, limits.CodeQuotaExceeded)
}

func testMonthRollover(t *testing.T, b Backend) {
	s := b.Instance(t)
	end := time.Date(2026, 11, 30, 23, 59, 59, 0, time.UTC)
	a := admitReq("cred-m", "m1", "k1", end)
	a.Monthly = 1
	mustAdmit(t, s, a)
	a2 := admitReq("cred-m", "m2", "k2", end)
	a2.Monthly = 1
	wantRefusal(t, s, a2, limits.CodeQuotaExceeded)
	a3 := admitReq("cred-m", "m2", "k2", end.Add(2*time.Second)) // December
	a3.Monthly = 1
	if adm := mustAdmit(t, s, a3); adm.MonthlyUsed != 1 {
		t.Fatalf("December: used %d", adm.MonthlyUsed)
	}
}

func testUnlimitedMonthly(t *testing.T, b Backend) {
	s := b.Instance(t)
	for i := range 4 {
		a := admitReq("cred-u", fmt.Sprint("u", i), fmt.Sprint("k", i), t0)
		a.Monthly = -1
		if adm := mustAdmit(t, s, a); adm.MonthlyUsed != int64(i+1) {
			t.Fatalf("unlimited call %d used %d", i, adm.MonthlyUsed)
		}
	}
}

func testRefund(t *testing.T, b Backend) {
	s := b.Instance(t)
	a := admitReq("cred-f", "f1", "k1", t0)
	a.Monthly = 1
	mustAdmit(t, s, a)
	if err := s.ReleaseLease(t.Context(), a.LeaseID); err != nil {
		t.Fatal(err)
	}
	ok, err := s.RefundScan(t.Context(), "cred-f", "f1")
	if err != nil || !ok {
		t.Fatalf("refund: %v %v", ok, err)
	}
	if ok, err := s.RefundScan(t.Context(), "cred-f", "f1"); err != nil || ok {
		t.Fatalf("second refund: %v %v", ok, err)
	}
	if ok, err := s.RefundScan(t.Context(), "cred-f", "never"); err != nil || ok {
		t.Fatalf("unknown refund: %v %v", ok, err)
	}
	// The unit is back, and the refunded call id is charged afresh.
	a.LeaseID = rand.Text()
	if adm := mustAdmit(t, s, a); !adm.Charged || adm.MonthlyUsed != 1 {
		t.Fatalf("after refund: %+v", adm)
	}
}

func testSlotSequence(t *testing.T, b Backend) {
	s := b.Instance(t)
	mk := func(cred, key string, now time.Time) limits.Admit {
		a := admitReq(cred, key, key, now)
		a.MaxPerCredential, a.Capacity, a.Charge = 2, 4, false
		return a
	}
	a1 := mk("cred-a", "k1", t0)
	mustAdmit(t, s, a1)
	wantRefusal(t, s, mk("cred-a", "k1", t0), limits.CodeDuplicateScan)
	// The same scan for another credential is not a duplicate.
	mustAdmit(t, s, mk("cred-b", "k1", t0.Add(time.Second)))
	mustAdmit(t, s, mk("cred-a", "k2", t0.Add(2*time.Second)))
	adm := wantRefusal(t, s, mk("cred-a", "k3", t0.Add(10*time.Second)), limits.CodeTooManyConcurrentScans)
	if adm.RetryAfter != ttl-10*time.Second { // a1 expires first
		t.Fatalf("too many: retry after %v", adm.RetryAfter)
	}
	mustAdmit(t, s, mk("cred-c", "k1", t0.Add(3*time.Second)))
	adm = wantRefusal(t, s, mk("cred-d", "k1", t0.Add(20*time.Second)), limits.CodeScannerBusy)
	if adm.RetryAfter != ttl-20*time.Second {
		t.Fatalf("busy: retry after %v", adm.RetryAfter)
	}
	// Releasing one slot makes room; releasing an unknown lease frees
	// nothing.
	if err := s.ReleaseLease(t.Context(), "no-such-lease"); err != nil {
		t.Fatalf("release unknown: %v", err)
	}
	wantRefusal(t, s, mk("cred-d", "k1", t0.Add(20*time.Second)), limits.CodeScannerBusy)
	if err := s.ReleaseLease(t.Context(), a1.LeaseID); err != nil {
		t.Fatal(err)
	}
	mustAdmit(t, s, mk("cred-d", "k1", t0.Add(21*time.Second)))
}

func testSlotsExactUnderConcurrency(t *testing.T, b Backend) {
	stores := []limits.Store{b.Instance(t), b.Instance(t)}
	type held struct{ cred, key string }
	var mu sync.Mutex
	var got []held
	forEach(48, stores, func(i int, s limits.Store) {
		cred := fmt.Sprint("cred-", i%8)
		key := fmt.Sprint("key-", i%3) // some duplicates per credential
		a := admitReq(cred, fmt.Sprint("call-", i), key, t0)
		a.MaxPerCredential, a.Capacity = 2, 5
		adm, err := s.AdmitScan(context.Background(), a)
		if err != nil {
			t.Errorf("admit %d: %v", i, err)
			return
		}
		switch adm.Refusal {
		case "":
			mu.Lock()
			got = append(got, held{cred, key})
			mu.Unlock()
		case limits.CodeDuplicateScan, limits.CodeTooManyConcurrentScans, limits.CodeScannerBusy:
		default:
			t.Errorf("admit %d: %s", i, adm.Refusal)
		}
	})
	if len(got) != 5 {
		t.Fatalf("%d slots held, want exactly 5 (capacity): %v", len(got), got)
	}
	perCred := map[string]int{}
	seen := map[held]bool{}
	for _, h := range got {
		perCred[h.cred]++
		if perCred[h.cred] > 2 {
			t.Errorf("credential %s holds %d slots, max 2", h.cred, perCred[h.cred])
		}
		if seen[h] {
			t.Errorf("duplicate scan admitted: %v", h)
		}
		seen[h] = true
	}
}

func testLeases(t *testing.T, b Backend) {
	s1, s2 := b.Instance(t), b.Instance(t)
	a := admitReq("cred-l", "l1", "k1", t0)
	a.Charge = false
	adm := mustAdmit(t, s1, a)
	if !adm.LeaseExpires.Equal(t0.Add(ttl)) {
		t.Fatalf("lease expires %v", adm.LeaseExpires)
	}
	// Renewal before expiry succeeds, from either replica.
	if err := s2.RenewLease(t.Context(), a.LeaseID, t0.Add(ttl-time.Second), ttl); err != nil {
		t.Fatalf("renew before expiry: %v", err)
	}
	// Renewed: still held at the original expiry.
	wantRefusal(t, s1, a, limits.CodeDuplicateScan)
	late := t0.Add(2*ttl - time.Second)
	if err := s1.RenewLease(t.Context(), a.LeaseID, late, ttl); !errors.Is(err, limits.ErrStoreLeaseLost) {
		t.Fatalf("renew after expiry: %v, want ErrStoreLeaseLost", err)
	}
	if err := s1.RenewLease(t.Context(), "no-such-lease", t0, ttl); !errors.Is(err, limits.ErrStoreLeaseLost) {
		t.Fatalf("renew unknown: %v", err)
	}
}

func testAbandonedLeaseExpires(t *testing.T, b Backend) {
	s := b.Instance(t)
	mk := func(now time.Time) limits.Admit {
		a := admitReq("cred-x", "x", "k", now)
		a.Charge, a.Capacity, a.MaxPerCredential = false, 1, 1
		return a
	}
	mustAdmit(t, s, mk(t0)) // never released: its replica "crashed"
	wantRefusal(t, s, mk(t0.Add(ttl-time.Microsecond)), limits.CodeDuplicateScan)
	other := mk(t0.Add(ttl - time.Microsecond))
	other.Credential = "cred-y"
	wantRefusal(t, s, other, limits.CodeScannerBusy)
	mustAdmit(t, s, mk(t0.Add(ttl))) // live iff expiry > now
}
