package limits

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestTakeLogTable(t *testing.T) {
	p := RatePolicy{Limit: 3, Window: 10 * time.Second}
	const s = int64(time.Second / time.Microsecond)
	tests := []struct {
		name     string
		log      []int64
		now      int64
		wantLog  []int64
		want     RateDecision
		wantChgd bool
	}{
		{
			name: "empty admits", now: 100 * s,
			wantLog:  []int64{100 * s},
			want:     RateDecision{Allowed: true, Policy: p, Remaining: 2, Reset: 10*time.Second + time.Microsecond},
			wantChgd: true,
		},
		{
			name: "full denies until oldest leaves", log: []int64{100 * s, 101 * s, 102 * s}, now: 105 * s,
			wantLog: []int64{100 * s, 101 * s, 102 * s},
			want:    RateDecision{Policy: p, RetryAfter: 5*time.Second + time.Microsecond, Reset: 5*time.Second + time.Microsecond},
		},
		{
			name: "entry exactly one window old still counts", log: []int64{100 * s, 101 * s, 102 * s}, now: 110 * s,
			wantLog: []int64{100 * s, 101 * s, 102 * s},
			want:    RateDecision{Policy: p, RetryAfter: time.Microsecond, Reset: time.Microsecond},
		},
		{
			name: "one microsecond later it has left", log: []int64{100 * s, 101 * s, 102 * s}, now: 110*s + 1,
			wantLog:  []int64{101 * s, 102 * s, 110*s + 1},
			want:     RateDecision{Allowed: true, Policy: p, Remaining: 0, Reset: 10*time.Second + time.Microsecond},
			wantChgd: true,
		},
		{
			name: "out of order log from skewed replicas is sorted", log: []int64{103 * s, 101 * s}, now: 102 * s,
			wantLog:  []int64{101 * s, 102 * s, 103 * s},
			want:     RateDecision{Allowed: true, Policy: p, Remaining: 0, Reset: 11*time.Second + time.Microsecond},
			wantChgd: true,
		},
		{
			name: "lowered limit trims to newest entries", log: []int64{100 * s, 101 * s, 102 * s, 103 * s, 104 * s}, now: 105 * s,
			wantLog:  []int64{102 * s, 103 * s, 104 * s},
			want:     RateDecision{Policy: p, RetryAfter: 7*time.Second + time.Microsecond, Reset: 7*time.Second + time.Microsecond},
			wantChgd: true,
		},
		{
			name: "expired entries dropped on denial too", log: []int64{1 * s, 100 * s, 101 * s, 102 * s}, now: 103 * s,
			wantLog:  []int64{100 * s, 101 * s, 102 * s},
			want:     RateDecision{Policy: p, RetryAfter: 7*time.Second + time.Microsecond, Reset: 7*time.Second + time.Microsecond},
			wantChgd: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gotLog, got, chgd := TakeLog(slices.Clone(tt.log), tt.now, p)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("decision (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantLog, gotLog); diff != "" {
				t.Errorf("log (-want +got):\n%s", diff)
			}
			if chgd != tt.wantChgd {
				t.Errorf("changed = %v, want %v", chgd, tt.wantChgd)
			}
		})
	}
}

// limiterFunc decides at a given µs instant whether to admit.
type limiterFunc func(nowUS int64) bool

// maxInAnyWindow returns the largest number of admissions inside any closed
// interval of length windowUS. Such an interval holding the most admissions
// can always be slid right until it starts at an admission, so checking
// intervals that start at each admission is exhaustive.
func maxInAnyWindow(admitted []int64, windowUS int64) int {
	best := 0
	for i, start := range admitted {
		j, _ := slices.BinarySearch(admitted, start+windowUS+1)
		best = max(best, j-i)
	}
	return best
}

// arrivals yields a controlled clock: bursts, steady trickles and long gaps,
// with extra weight on instants right around window boundaries.
func arrivals(r *rand.Rand, n int, windowUS int64) []int64 {
	out := make([]int64, 0, n)
	now := int64(1_700_000_000) * 1_000_000
	for len(out) < n {
		switch r.IntN(6) {
		case 0: // burst at one instant
			for range r.IntN(300) {
				out = append(out, now)
			}
		case 1: // jump to just before / at / after the next window edge
			now += windowUS - 1 + int64(r.IntN(3))
		case 2: // long idle
			now += int64(r.IntN(5)) * windowUS
		default: // trickle
			now += int64(r.IntN(int(windowUS / 50)))
			out = append(out, now)
		}
	}
	return out[:n]
}

func run(arr []int64, allow limiterFunc) []int64 {
	var admitted []int64
	for _, now := range arr {
		if allow(now) {
			admitted = append(admitted, now)
		}
	}
	return admitted
}

// TestSlidingLogNeverExceedsLimitInAnyWindow is the contract: with a
// controlled clock and adversarial arrival patterns, no closed interval of
// length Window holds more than Limit admissions, and no request is denied
// while fewer than Limit admissions lie in the window ending at it.
func TestSlidingLogNeverExceedsLimitInAnyWindow(t *testing.T) {
	for _, p := range []RatePolicy{
		{Limit: 120, Window: 60 * time.Second},
		{Limit: 1, Window: time.Second},
		{Limit: 7, Window: 250 * time.Millisecond},
	} {
		w := p.Window.Microseconds()
		for seed := range uint64(20) {
			r := rand.New(rand.NewPCG(seed, 42))
			arr := arrivals(r, 5000, w)
			var log []int64
			var admitted []int64
			for _, now := range arr {
				var d RateDecision
				log, d, _ = TakeLog(log, now, p)
				inWindow := len(admitted) - func() int { i, _ := slices.BinarySearch(admitted, now-w); return i }()
				if d.Allowed {
					admitted = append(admitted, now)
				} else if inWindow < p.Limit {
					t.Fatalf("%+v seed %d: denied at %d with only %d in window", p, seed, now, inWindow)
				}
				if len(log) > p.Limit {
					t.Fatalf("log grew to %d > limit %d", len(log), p.Limit)
				}
			}
			if got := maxInAnyWindow(admitted, w); got > p.Limit {
				t.Fatalf("%+v seed %d: %d admissions in one window, limit %d", p, seed, got, p.Limit)
			}
			if len(admitted) == 0 {
				t.Fatalf("nothing admitted")
			}
		}
	}
}

// TestFixedWindowFailsTheProperty documents why a fixed window counter was
// rejected: the same checker catches it admitting 2×Limit across a boundary.
func TestFixedWindowFailsTheProperty(t *testing.T) {
	const limit, w = 120, int64(60_000_000)
	counts := map[int64]int{}
	fixed := func(now int64) bool {
		k := now / w
		if counts[k] >= limit {
			return false
		}
		counts[k]++
		return true
	}
	edge := int64(1_700_000_040) * 1_000_000 // a multiple of w
	var arr []int64
	for range 200 {
		arr = append(arr, edge-1)
	}
	for range 200 {
		arr = append(arr, edge)
	}
	if got := maxInAnyWindow(run(arr, fixed), w); got != 2*limit {
		t.Fatalf("fixed window admitted %d in one rolling window, expected the 2x flaw (%d)", got, 2*limit)
	}
	var log []int64
	slide := func(now int64) bool {
		var d RateDecision
		log, d, _ = TakeLog(log, now, RatePolicy{Limit: limit, Window: time.Duration(w) * time.Microsecond})
		return d.Allowed
	}
	if got := maxInAnyWindow(run(arr, slide), w); got != limit {
		t.Fatalf("sliding log admitted %d, want exactly %d", got, limit)
	}
}

func BenchmarkTakeLogFull(b *testing.B) {
	p := RatePolicy{Limit: 120, Window: time.Minute}
	var log []int64
	now := int64(1_700_000_000_000_000)
	for b.Loop() {
		now += 500_000
		log, _, _ = TakeLog(log, now, p)
	}
}
