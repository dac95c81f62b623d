package limits

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestPeekLog(t *testing.T) {
	p := RatePolicy{Limit: 3, Window: 10 * time.Second}
	s := int64(time.Second / time.Microsecond)
	for _, c := range []struct {
		log       []int64
		now       int64
		remaining int
		reset     time.Duration
	}{
		{nil, 100 * s, 3, 0},
		{[]int64{95 * s}, 100 * s, 2, 5*time.Second + time.Microsecond},
		{[]int64{89 * s, 95 * s, 99 * s}, 100 * s, 1, 5*time.Second + time.Microsecond},
		{[]int64{91 * s, 95 * s, 99 * s}, 100 * s, 0, time.Second + time.Microsecond},
	} {
		u := PeekLog(c.log, c.now, p)
		if u.Remaining != c.remaining || u.Reset != c.reset || u.Limit != 3 {
			t.Errorf("%v: %+v, want remaining %d reset %v", c.log, u, c.remaining, c.reset)
		}
		// Peeking agrees with taking.
		_, d, _ := TakeLog(append([]int64(nil), c.log...), c.now, p)
		if d.Allowed != (c.remaining > 0) {
			t.Errorf("%v: peek says %d remaining, take says allowed=%v", c.log, c.remaining, d.Allowed)
		}
	}
}

// Usage reads without taking: calling it any number of times leaves the
// next request's decision unchanged.
func TestUsageTakesNothing(t *testing.T) {
	f := newFake()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	l, _ := New(f, &Config{Transport: RatePolicy{Limit: 2, Window: time.Minute}, MonthlyScans: 10, Now: func() time.Time { return now }})
	if _, err := l.AllowRequest(context.Background(), "c"); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		u, err := l.Usage(context.Background(), "c")
		if err != nil {
			t.Fatal(err)
		}
		if u.Transport.Remaining != 1 || u.MonthlyLimit != 10 || u.MonthlyRemaining() != 10 || u.MaxSlots != DefaultMaxConcurrentScans {
			t.Fatalf("%+v", u)
		}
		if !u.MonthlyResets.Equal(time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)) {
			t.Errorf("resets %v", u.MonthlyResets)
		}
	}
	if _, err := l.AllowRequest(context.Background(), "c"); err != nil {
		t.Errorf("the second request was refused after status reads: %v", err)
	}
	f.setErr(errors.New("down"))
	if _, err := l.Usage(context.Background(), "c"); CodeOf(err) != CodeRateLimitUnavailable {
		t.Errorf("store down: %v", err)
	}
	if _, err := l.Usage(context.Background(), ""); CodeOf(err) != CodeInvalidRequest {
		t.Errorf("empty credential: %v", err)
	}
}
