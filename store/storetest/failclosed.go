package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/warden-mcp/warden/limits"
)

// testFailClosedAndRecover drives two Limiters (two replicas) while the
// database is taken away and brought back. While it is away every call must
// be refused with its *_unavailable code and a Retry-After hint, and nothing
// may be admitted; afterwards service must resume without restarting.
func testFailClosedAndRecover(t *testing.T, b Backend) {
	var mu sync.Mutex
	now := t0
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	cfg := &limits.Config{Now: clock, TransportTimeout: 300 * time.Millisecond, ScanTimeout: 500 * time.Millisecond}
	var lims []*limits.Limiter
	for range 2 {
		l, err := limits.New(b.Instance(t), cfg)
		if err != nil {
			t.Fatal(err)
		}
		lims = append(lims, l)
	}
	ctx := t.Context()

	// Healthy: a scan is running and holds a lease.
	running, err := lims[0].BeginScan(ctx, limits.ScanRequest{Credential: "cred-run", Tool: "scan_web", ScanKey: "k", Charge: true, CallID: "run-1"})
	if err != nil {
		t.Fatalf("healthy BeginScan: %v", err)
	}
	if _, err := lims[1].AllowRequest(ctx, "cred-a"); err != nil {
		t.Fatalf("healthy AllowRequest: %v", err)
	}

	b.Break(t)
	var admitted atomic.Int64
	codes := sync.Map{}
	check := func(what string, err error, want limits.Code) {
		e, ok := limits.AsError(err)
		if !ok {
			t.Errorf("%s while broken: %v, want a limits refusal %s", what, err, want)
			return
		}
		if limits.Code(e.Code) != want || !limits.Unavailable(err) || e.RetryAfter <= 0 || limits.HTTPStatus(err) != 503 {
			t.Errorf("%s while broken: %#v, want %s with Retry-After", what, e, want)
		}
		codes.Store(e.Code, true)
	}
	var wg sync.WaitGroup
	for i := range 24 {
		l := lims[i%2]
		wg.Go(func() {
			cred := fmt.Sprint("cred-", i%4)
			switch i % 3 {
			case 0:
				d, err := l.AllowRequest(ctx, cred)
				if err == nil || d.Allowed {
					admitted.Add(1)
				}
				check("AllowRequest", err, limits.CodeRateLimitUnavailable)
			case 1:
				s, err := l.BeginScan(ctx, limits.ScanRequest{Credential: cred, Tool: "scan_web", ScanKey: fmt.Sprint("k", i), Charge: true, CallID: fmt.Sprint("c", i)})
				if s != nil || err == nil {
					admitted.Add(1)
				}
				check("charged BeginScan", err, limits.CodeQuotaUnavailable)
			default:
				s, err := l.BeginScan(ctx, limits.ScanRequest{Credential: cred, Tool: "scan_web", ScanKey: fmt.Sprint("k", i)})
				if s != nil || err == nil {
					admitted.Add(1)
				}
				check("slot BeginScan", err, limits.CodeScanSlotsUnavailable)
			}
		})
	}
	wg.Wait()
	if n := admitted.Load(); n != 0 {
		t.Fatalf("%d operations admitted while the store was down", n)
	}
	if err := running.Renew(ctx); !errors.Is(err, limits.ErrScanSlotsUnavailable) {
		t.Errorf("Renew while broken: %v", err)
	}
	if err := lims[0].Audit(ctx, limits.AuditRecord{Credential: "cred-a", Tool: "scan_web"}); !errors.Is(err, limits.ErrAuditUnavailable) {
		t.Errorf("Audit while broken: %v", err)
	}
	if err := lims[1].Ready(ctx); err == nil {
		t.Errorf("Ready while broken")
	}

	b.Restore(t)
	mu.Lock()
	now = now.Add(time.Second)
	mu.Unlock()
	// Recovery may take a moment while pools reconnect; it must happen
	// within a few seconds and without new handles. Nothing signals a
	// reconnected pool, so Ready is polled: the wait orders nothing, it
	// bounds how long the test gives the database.
	deadline := time.Now().Add(10 * time.Second)
	for _, l := range lims {
		for {
			err := l.Ready(ctx)
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("store did not recover: %v", err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	for i, l := range lims {
		if _, err := l.AllowRequest(ctx, "cred-a"); err != nil {
			t.Fatalf("replica %d AllowRequest after restore: %v", i, err)
		}
		s, err := l.BeginScan(ctx, limits.ScanRequest{Credential: "cred-b", Tool: "scan_web", ScanKey: fmt.Sprint("after", i), Charge: true, CallID: fmt.Sprint("after", i)})
		if err != nil {
			t.Fatalf("replica %d BeginScan after restore: %v", i, err)
		}
		if !s.Charged() {
			t.Fatalf("replica %d: scan after restore not charged", i)
		}
		if err := s.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// The lease taken before the outage is still there and renewable.
	if err := running.Renew(ctx); err != nil {
		t.Fatalf("Renew after restore: %v", err)
	}
	if err := running.Release(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Nothing attempted during the outage was charged: each credential
	// still has its whole first unit of a one-scan allowance.
	probe := b.Instance(t)
	for c := range 4 {
		a := admitReq(fmt.Sprint("cred-", c), "probe", "probe", clock())
		a.Monthly = 1
		if adm := mustAdmit(t, probe, a); adm.MonthlyUsed != 1 {
			t.Fatalf("cred-%d was charged during the outage: used %d", c, adm.MonthlyUsed)
		}
	}
}

// testFailClosedMidRun takes the store away while replicas are busy. No
// call that started after the store was gone and before it came back may be
// admitted; calls in that span must be refused with the unavailable codes;
// calls after the return must succeed again.
func testFailClosedMidRun(t *testing.T, b Backend) {
	var nowUS atomic.Int64
	nowUS.Store(t0.UnixMicro())
	cfg := &limits.Config{
		Now:              func() time.Time { return time.UnixMicro(nowUS.Add(1000)) },
		Transport:        limits.RatePolicy{Limit: limits.MaxRateLimit, Window: time.Second},
		ScannerCapacity:  1000,
		TransportTimeout: 200 * time.Millisecond,
	}
	var lims []*limits.Limiter
	for range 2 {
		l, err := limits.New(b.Instance(t), cfg)
		if err != nil {
			t.Fatal(err)
		}
		lims = append(lims, l)
	}
	type result struct {
		start, end time.Time
		err        error
	}
	var mu sync.Mutex
	var results []result
	progress := make(chan struct{}, 1) // a token when a result is recorded
	// waitFor returns once pred holds over the results so far: the phases
	// below follow the calls the workers complete, not the clock.
	waitFor := func(what string, pred func(result) bool, n int) {
		t.Helper()
		deadline := time.NewTimer(30 * time.Second)
		defer deadline.Stop()
		for {
			mu.Lock()
			k := 0
			for _, r := range results {
				if pred(r) {
					k++
				}
			}
			mu.Unlock()
			if k >= n {
				return
			}
			select {
			case <-progress:
			case <-deadline.C:
				t.Fatalf("waited 30 s for %d %s, saw %d", n, what, k)
			}
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	halt := sync.OnceFunc(func() { close(stop); wg.Wait() })
	defer halt() // also when waitFor fails the test
	for w := range 4 {
		l := lims[w%2]
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				st := time.Now()
				var err error
				if i%4 == 3 {
					var s *limits.Scan
					s, err = l.BeginScan(context.Background(), limits.ScanRequest{
						Credential: fmt.Sprint("mid-", w), Tool: "scan_web", ScanKey: fmt.Sprint(w, "-", i),
					})
					if err == nil {
						s.Release(context.Background())
					}
				} else {
					_, err = l.AllowRequest(context.Background(), fmt.Sprint("mid-", w))
				}
				mu.Lock()
				results = append(results, result{st, time.Now(), err})
				mu.Unlock()
				select {
				case progress <- struct{}{}:
				default:
				}
				time.Sleep(time.Millisecond) // paces the load; nothing waits on it
			}
		})
	}
	waitFor("admissions before the outage", func(r result) bool { return r.err == nil }, 8)
	b.Break(t)
	gone := time.Now()
	waitFor("refusals inside the outage", func(r result) bool { return r.err != nil && !r.start.Before(gone) }, 8)
	back := time.Now()
	b.Restore(t)
	waitFor("admissions after the store came back", func(r result) bool { return r.err == nil && r.start.After(back) }, 8)
	halt()

	// A call may be admitted if it began before the store went away (it may
	// have committed just in time) or finished after it came back (it
	// waited, within its deadline, and was then evaluated). A call whose
	// whole life lay inside the outage must have been refused.
	var before, after, refused int
	for _, r := range results {
		inside := !r.start.Before(gone) && !r.end.After(back)
		if r.err == nil {
			if inside {
				t.Errorf("call from +%v to +%v inside the outage was admitted", r.start.Sub(gone), r.end.Sub(gone))
			}
			if r.start.Before(gone) {
				before++
			} else if r.start.After(back) {
				after++
			}
			continue
		}
		if e, ok := limits.AsError(r.err); !ok || !limits.Unavailable(e) || e.RetryAfter <= 0 {
			t.Errorf("refusal %v, want an *_unavailable error with Retry-After", r.err)
			continue
		}
		if inside {
			refused++
		}
	}
	t.Logf("admitted before: %d, refused inside the outage: %d, admitted after recovery: %d", before, refused, after)
	if before == 0 || refused == 0 || after == 0 {
		t.Fatalf("the run did not cover all phases: before %d, refused inside %d, after %d", before, refused, after)
	}
}
