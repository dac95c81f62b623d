package limits

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// oneConnection makes the fake store a single connection that takes per
// for each call: calls queue for it, as on the embedded store or a
// drained pool.
func oneConnection(per time.Duration) func(ctx context.Context) error {
	conn := make(chan struct{}, 1)
	return func(ctx context.Context) error {
		select {
		case conn <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
		defer func() { <-conn }()
		select {
		case <-time.After(per):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// stall makes the fake store take d for each call, or until the call's
// context ends.
func stall(d time.Duration) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		select {
		case <-time.After(d):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// A store that is slow but answering is waited for: 16 concurrent
// decisions queued on one connection that takes 20 ms each wait up to
// 320 ms, three times the 100 ms quiet period, and every one is
// evaluated. (A fixed 100 ms deadline per call refused 11 of the 16.)
func TestSlowStoreIsWaitedFor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		f.delay = oneConnection(20 * time.Millisecond)
		l, _ := newTestLimiter(t, f, Config{Transport: RatePolicy{Limit: 100, Window: time.Minute}, TransportTimeout: 100 * time.Millisecond})
		var wg sync.WaitGroup
		errs := make(chan error, 16)
		start := time.Now()
		for range 16 {
			wg.Go(func() {
				_, err := l.AllowRequest(t.Context(), "cred-a")
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Errorf("refused: %v", err)
			}
		}
		if took := time.Since(start); took != 320*time.Millisecond {
			t.Errorf("took %v, want 320ms", took)
		}
	})
}

// Audit writes wait for a slow store too: 16 records queued on one
// connection that takes 50 ms each are all written, where a fixed 500 ms
// deadline failed the last six, and one failure sends every later record
// of the process to the repair queue.
func TestSlowStoreTakesEveryAuditRecord(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		f.delay = oneConnection(50 * time.Millisecond)
		l, _ := newTestLimiter(t, f, Config{})
		var wg sync.WaitGroup
		for i := range 16 {
			wg.Go(func() {
				if err := l.Audit(t.Context(), AuditRecord{Credential: "cred-a", Tool: "scan_web", CorrelationID: string(rune('a' + i))}); err != nil {
					t.Errorf("record %d: %v", i, err)
				}
			})
		}
		wg.Wait()
		if len(f.audit) != 16 {
			t.Errorf("%d records written, want 16", len(f.audit))
		}
	})
}

// A store that answers nothing is down: a decision is refused once the
// quiet period has passed without an answer, whatever the longest wait.
func TestSilentStoreIsRefusedAfterTheQuietPeriod(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		l, _ := newTestLimiter(t, f, Config{})
		if _, err := l.AllowRequest(t.Context(), "cred-a"); err != nil { // an answer, long ago
			t.Fatal(err)
		}
		time.Sleep(time.Minute)
		f.delay = func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }
		start := time.Now()
		_, err := l.AllowRequest(t.Context(), "cred-a")
		if !errors.Is(err, ErrRateLimitUnavailable) {
			t.Fatalf("silent store: %v", err)
		}
		if took := time.Since(start); took != DefaultTransportTimeout {
			t.Errorf("refused after %v, want %v", took, DefaultTransportTimeout)
		}
		start = time.Now()
		if _, err := l.BeginScan(t.Context(), scanReq()); !errors.Is(err, ErrQuotaUnavailable) {
			t.Fatalf("silent store: %v", err)
		}
		// The admission, then its cancellation, each wait the quiet period.
		if took := time.Since(start); took != 2*DefaultScanTimeout {
			t.Errorf("scan refused after %v, want %v", took, 2*DefaultScanTimeout)
		}
		if l.Unsettled() != 1 {
			t.Errorf("%d cancellations wait, want 1", l.Unsettled())
		}
	})
}

// However busy the store, one call waits at most TransportMaxWait: here
// the store keeps answering other calls while this one never gets an
// answer.
func TestWaitIsBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		f.delay = func(ctx context.Context) error {
			if ctx.Value(stuckKey{}) != nil {
				<-ctx.Done()
				return ctx.Err()
			}
			time.Sleep(10 * time.Millisecond)
			return nil
		}
		l, _ := newTestLimiter(t, f, Config{Transport: RatePolicy{Limit: MaxRateLimit, Window: time.Millisecond}})
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				l.AllowRequest(t.Context(), "cred-busy")
			}
		})
		start := time.Now()
		_, err := l.AllowRequest(context.WithValue(t.Context(), stuckKey{}, true), "cred-a")
		took := time.Since(start)
		close(stop)
		wg.Wait()
		if !errors.Is(err, ErrRateLimitUnavailable) || took != DefaultTransportMaxWait {
			t.Fatalf("stuck call: %v after %v, want rate_limit_unavailable after %v", err, took, DefaultTransportMaxWait)
		}
	})
}

type stuckKey struct{}

// A stall that made a call give up is learnt once the store answers
// again: the next stall as long is waited out, for a while.
func TestQuietPeriodLearnsAStall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		l, _ := newTestLimiter(t, f, Config{TransportTimeout: 100 * time.Millisecond})
		f.delay = stall(150 * time.Millisecond)
		if _, err := l.AllowRequest(t.Context(), "cred-a"); !errors.Is(err, ErrRateLimitUnavailable) {
			t.Fatalf("a first 150 ms stall: %v, want refused after 100 ms", err)
		}
		time.Sleep(30 * time.Millisecond) // the store comes back
		f.delay = nil
		if _, err := l.AllowRequest(t.Context(), "cred-a"); err != nil {
			t.Fatal(err)
		}
		f.delay = stall(150 * time.Millisecond)
		if _, err := l.AllowRequest(t.Context(), "cred-a"); err != nil {
			t.Fatalf("the next 150 ms stall: %v, want waited out", err)
		}
		time.Sleep(10 * time.Minute) // long forgotten
		if _, err := l.AllowRequest(t.Context(), "cred-a"); !errors.Is(err, ErrRateLimitUnavailable) {
			t.Fatalf("a 150 ms stall ten minutes later: %v, want refused", err)
		}
		// An outage of a minute is not a stall to wait out: afterwards a
		// silent store is still refused after the quiet period.
		time.Sleep(time.Minute) // the store comes back
		f.delay = nil
		if _, err := l.AllowRequest(t.Context(), "cred-a"); err != nil {
			t.Fatal(err)
		}
		f.delay = stall(time.Hour)
		start := time.Now()
		if _, err := l.AllowRequest(t.Context(), "cred-a"); !errors.Is(err, ErrRateLimitUnavailable) || time.Since(start) != 100*time.Millisecond {
			t.Fatalf("after an outage: %v after %v, want refused after 100ms", err, time.Since(start))
		}
	})
}

// recorder keeps the records a logger writes.
type recorder struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (r *recorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *recorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.recs = append(r.recs, rec)
	return nil
}
func (r *recorder) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *recorder) WithGroup(string) slog.Handler      { return r }

func (r *recorder) lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, rec := range r.recs {
		s := rec.Level.String() + " " + rec.Message
		rec.Attrs(func(a slog.Attr) bool { s += " " + a.String(); return true })
		out = append(out, s)
	}
	return out
}

// A refusal for an unavailable store logs its cause (which store call,
// how long it waited, the error) at warn, once per run of failures, and
// says when the store answers again.
func TestUnavailableCauseLoggedOncePerBurst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		rec := &recorder{}
		l, _ := newTestLimiter(t, f, Config{Logger: slog.New(rec)})
		f.setErr(errDown)
		for range 50 {
			if _, err := l.AllowRequest(t.Context(), "cred-a"); err == nil {
				t.Fatal("admitted while down")
			}
		}
		lines := rec.lines()
		if len(lines) != 1 {
			t.Fatalf("%d lines for one burst: %q", len(lines), lines)
		}
		for _, want := range []string{"WARN ", "store_call=TakeRate", "code=rate_limit_unavailable", "waited=", "cause=connection refused"} {
			if !strings.Contains(lines[0], want) {
				t.Errorf("%q lacks %q", lines[0], want)
			}
		}
		for range 12 { // a refusal every 5 s for a minute
			time.Sleep(5 * time.Second)
			l.AllowRequest(t.Context(), "cred-a")
		}
		if lines = rec.lines(); len(lines) != 2 || !strings.Contains(lines[1], "refusals_not_logged=60") {
			t.Fatalf("a burst lasting a minute: %q", lines)
		}
		// Answers between refusals do not end the burst.
		f.setErr(nil)
		l.AllowRequest(t.Context(), "cred-a")
		f.setErr(errDown)
		l.AllowRequest(t.Context(), "cred-a")
		f.setErr(nil)
		if _, err := l.AllowRequest(t.Context(), "cred-a"); err != nil {
			t.Fatal(err)
		}
		if lines = rec.lines(); len(lines) != 2 {
			t.Fatalf("refusals between answers: %q", lines[2:])
		}
		// Answers without a refusal for burstGap end it.
		time.Sleep(burstGap)
		if _, err := l.AllowRequest(t.Context(), "cred-a"); err != nil {
			t.Fatal(err)
		}
		if lines = rec.lines(); len(lines) != 3 || !strings.HasPrefix(lines[2], "INFO ") || !strings.Contains(lines[2], "refusals=63") {
			t.Fatalf("after recovery: %q", lines)
		}
		// A client that leaves is not a store failure.
		f.delay = func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(10*time.Millisecond, cancel)
		l.AllowRequest(ctx, "cred-a")
		if lines = rec.lines(); len(lines) != 3 {
			t.Fatalf("a cancelled caller was logged: %q", lines[3:])
		}
	})
}

// A status read decides nothing, so it is not refused by the quiet
// period: a store that takes 2 s to answer it (the scan quiet period is
// 500 ms) still gives the caller its usage. It failed with
// rate_limit_unavailable, and warden_status then showed no limits, on a
// loaded machine.
func TestUsageReadWaitsForASlowStore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		f.delay = stall(2 * time.Second)
		l, _ := newTestLimiter(t, f, Config{Transport: RatePolicy{Limit: 100, Window: time.Minute}, ScanTimeout: 500 * time.Millisecond})
		start := time.Now()
		if _, err := l.Usage(t.Context(), "cred-a"); err != nil {
			t.Fatalf("a slow status read was refused: %v", err)
		}
		if took := time.Since(start); took != 2*time.Second {
			t.Errorf("took %v, want 2s", took)
		}
		f.delay = stall(time.Hour)
		if _, err := l.Usage(t.Context(), "cred-a"); CodeOf(err) != CodeRateLimitUnavailable {
			t.Errorf("a store that never answers: %v, want rate_limit_unavailable after the longest bound", err)
		}
	})
}
