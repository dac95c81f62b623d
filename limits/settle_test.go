package limits

import (
	"context"
	"errors"
	"testing"
)

// An admission the store committed but whose answer was lost: BeginScan
// refuses (fail closed) and cancels it, so that neither its slot nor its
// charge stays behind.
func TestBeginScanCancelsAnAdmissionWhoseAnswerWasLost(t *testing.T) {
	f := newFake()
	f.admit = Admission{Charged: true, MonthlyUsed: 1}
	f.lose = true
	l, _ := newTestLimiter(t, f, Config{})
	s, err := l.BeginScan(context.Background(), scanReq())
	if s != nil || !errors.Is(err, ErrQuotaUnavailable) {
		t.Fatalf("BeginScan: %v, %v; want quota_unavailable", s, err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.leases) != 0 || len(f.charges) != 0 || f.cancels != 1 {
		t.Fatalf("left behind: leases %v, charges %v, cancels %d", f.leases, f.charges, f.cancels)
	}
	if !f.fenced[f.admits[0].LeaseID] {
		t.Error("the lost admission's lease id is not fenced")
	}
	if l.Unsettled() != 0 {
		t.Errorf("%d cancellations wait", l.Unsettled())
	}
}

// When the cancellation cannot be made either, it waits, in order, for
// Settle; nothing is dropped.
func TestCancellationWaitsForSettle(t *testing.T) {
	f := newFake()
	f.admit = Admission{Charged: true, MonthlyUsed: 1}
	f.lose = true
	f.cancelErr = errDown
	l, _ := newTestLimiter(t, f, Config{})
	req := scanReq()
	for _, call := range []string{"call-1", "call-2"} {
		req.CallID, req.ScanKey = call, call
		if _, err := l.BeginScan(context.Background(), req); !errors.Is(err, ErrQuotaUnavailable) {
			t.Fatalf("BeginScan: %v", err)
		}
	}
	if n := l.Unsettled(); n != 2 {
		t.Fatalf("%d cancellations wait, want 2", n)
	}
	if n := l.Settle(context.Background()); n != 2 {
		t.Fatalf("Settle with the store still refusing left %d, want 2", n)
	}
	f.setCancelErr(nil)
	if n := l.Settle(context.Background()); n != 0 {
		t.Fatalf("Settle left %d", n)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.leases) != 0 || len(f.charges) != 0 || f.cancels != 2 {
		t.Fatalf("after Settle: leases %v, charges %v, cancels %d", f.leases, f.charges, f.cancels)
	}
}
