package limits

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestDenyCacheSkipsStoreOnlyWhileDenialIsCertain(t *testing.T) {
	f := newFake()
	l, clk := newTestLimiter(t, f, Config{Transport: RatePolicy{Limit: 1, Window: 10 * time.Second}})
	ctx := context.Background()
	if _, err := l.AllowRequest(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if _, err := l.AllowRequest(ctx, "c"); !errors.Is(err, ErrRateLimited) {
		t.Fatalf("second: %v", err)
	}
	// With the store down, a cached denial is still a denial, with the
	// remaining wait.
	f.setErr(errDown)
	clk.Advance(4 * time.Second)
	d, err := l.AllowRequest(ctx, "c")
	if CodeOf(err) != CodeRateLimited || d.Allowed || d.RetryAfter != 6*time.Second+time.Microsecond {
		t.Fatalf("cached denial: %+v %v", d, err)
	}
	// The instant the denial is no longer certain, the store is asked again:
	// here it is down, so the answer is unavailable, never an admission.
	clk.Advance(6*time.Second + time.Microsecond)
	if _, err := l.AllowRequest(ctx, "c"); !errors.Is(err, ErrRateLimitUnavailable) {
		t.Fatalf("after the cached window: %v", err)
	}
	f.setErr(nil)
	if _, err := l.AllowRequest(ctx, "c"); err != nil {
		t.Fatalf("store back: %v", err)
	}
}

func TestDenyCacheBounded(t *testing.T) {
	var c denyCache
	now := time.Unix(0, 0)
	for i := range denyCacheSize + 500 {
		c.deny(fmt.Sprint(i), now.Add(time.Hour), now)
	}
	if len(c.m) > denyCacheSize {
		t.Fatalf("cache grew to %d", len(c.m))
	}
	if _, ok := c.deniedUntil(fmt.Sprint(denyCacheSize+499), now); !ok {
		t.Fatal("newest entry missing")
	}
}

// TestLimiterKeepsWindowPropertyWithDenyCache runs the rolling-window
// property through the whole Limiter (deny cache included) with a
// controlled clock: never more than Limit in any window, and never a denial
// while fewer than Limit admissions lie in the window.
func TestLimiterKeepsWindowPropertyWithDenyCache(t *testing.T) {
	p := RatePolicy{Limit: 120, Window: 60 * time.Second}
	w := p.Window.Microseconds()
	for seed := range uint64(5) {
		f := newFake()
		l, clk := newTestLimiter(t, f, Config{Transport: p})
		arr := arrivals(rand.New(rand.NewPCG(seed, 9)), 4000, w)
		var admitted []int64
		for _, at := range arr {
			clk.Set(time.UnixMicro(at))
			now := clk.Now().UnixMicro()
			_, err := l.AllowRequest(context.Background(), "c")
			lo, _ := slices.BinarySearch(admitted, now-w)
			switch {
			case err == nil:
				admitted = append(admitted, now)
			case errors.Is(err, ErrRateLimited):
				if len(admitted)-lo < p.Limit {
					t.Fatalf("seed %d: denied at %d with %d in window", seed, now, len(admitted)-lo)
				}
			default:
				t.Fatal(err)
			}
		}
		if got := maxInAnyWindow(admitted, w); got > p.Limit {
			t.Fatalf("seed %d: %d in one window", seed, got)
		}
	}
}

// TestRetryAfterIsExactThroughCache: a client that waits exactly the
// Retry-After it was given is admitted, and one microsecond less is not,
// whether the denial came from the store or from the cache.
func TestRetryAfterIsExactThroughCache(t *testing.T) {
	f := newFake()
	l, clk := newTestLimiter(t, f, Config{Transport: RatePolicy{Limit: 3, Window: 10 * time.Second}})
	ctx := context.Background()
	t0 := clk.Now()
	for i := range 3 {
		clk.Set(t0.Add(time.Duration(i) * time.Second))
		if _, err := l.AllowRequest(ctx, "c"); err != nil {
			t.Fatal(err)
		}
	}
	clk.Set(t0.Add(3 * time.Second))
	_, err := l.AllowRequest(ctx, "c") // store denial
	e, ok := AsError(err)
	if !ok || e.RetryAfter != 7*time.Second+time.Microsecond {
		t.Fatalf("store denial: %v", err)
	}
	clk.Set(t0.Add(5 * time.Second))
	_, err = l.AllowRequest(ctx, "c") // cached denial
	if e, ok = AsError(err); !ok || e.RetryAfter != 5*time.Second+time.Microsecond {
		t.Fatalf("cached denial: %v", err)
	}
	clk.Set(t0.Add(10 * time.Second))
	if _, err := l.AllowRequest(ctx, "c"); !errors.Is(err, ErrRateLimited) {
		t.Fatalf("1µs early: %v", err)
	}
	clk.Set(t0.Add(10*time.Second + time.Microsecond))
	if _, err := l.AllowRequest(ctx, "c"); err != nil {
		t.Fatalf("at Retry-After: %v", err)
	}
}
