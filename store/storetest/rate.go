package storetest

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/warden-mcp/warden/limits"
)

func testPing(t *testing.T, b Backend) {
	if err := b.Instance(t).Ping(t.Context()); err != nil {
		t.Fatalf("Ping: %v", err)
	}
}

// forEach runs n calls of fn concurrently, spread round-robin over stores.
func forEach(n int, stores []limits.Store, fn func(i int, s limits.Store)) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { fn(i, stores[i%len(stores)]) })
	}
	wg.Wait()
}

func testRateExactUnderConcurrency(t *testing.T, b Backend) {
	stores := []limits.Store{b.Instance(t), b.Instance(t)}
	p := limits.RatePolicy{Limit: 120, Window: 60 * time.Second}
	var admitted atomic.Int64
	forEach(320, stores, func(i int, s limits.Store) {
		d, err := s.TakeRate(context.Background(), "transport:hot", t0, p)
		if err != nil {
			t.Errorf("take %d: %v", i, err)
			return
		}
		if d.Allowed {
			admitted.Add(1)
		} else if d.RetryAfter != p.Window+time.Microsecond {
			t.Errorf("take %d: retry after %v", i, d.RetryAfter)
		}
	})
	if got := admitted.Load(); got != 120 {
		t.Fatalf("admitted %d of 320 concurrent takes, want exactly 120", got)
	}
	// An admission exactly one window old still counts…
	if d, err := stores[0].TakeRate(t.Context(), "transport:hot", t0.Add(p.Window), p); err != nil || d.Allowed {
		t.Fatalf("at t0+window: %+v %v, want denied", d, err)
	}
	// …and one microsecond later the whole window is free again.
	admitted.Store(0)
	later := t0.Add(p.Window + time.Microsecond)
	forEach(200, stores, func(i int, s limits.Store) {
		d, err := s.TakeRate(context.Background(), "transport:hot", later, p)
		if err != nil {
			t.Errorf("take %d: %v", i, err)
		} else if d.Allowed {
			admitted.Add(1)
		}
	})
	if got := admitted.Load(); got != 120 {
		t.Fatalf("admitted %d after the window moved, want 120", got)
	}
}

// testRateRollingWindowProperty drives the store with a controlled clock
// through bursts, trickles and window-edge jumps and checks the contract:
// no closed interval of length Window holds more than Limit admissions, and
// nothing is denied while fewer than Limit lie in the window.
func testRateRollingWindowProperty(t *testing.T, b Backend) {
	stores := []limits.Store{b.Instance(t), b.Instance(t)}
	p := limits.RatePolicy{Limit: 5, Window: 2 * time.Second}
	w := p.Window.Microseconds()
	r := rand.New(rand.NewPCG(7, 11))
	now := t0.UnixMicro()
	var admitted []int64
	for i := range 600 {
		switch r.IntN(5) {
		case 0:
			now += w - 1 + int64(r.IntN(3))
		case 1:
			// same instant
		default:
			now += int64(r.IntN(int(w / 4)))
		}
		d, err := stores[i%2].TakeRate(t.Context(), "transport:prop", time.UnixMicro(now), p)
		if err != nil {
			t.Fatalf("take %d: %v", i, err)
		}
		lo, _ := slices.BinarySearch(admitted, now-w)
		inWindow := len(admitted) - lo
		if d.Allowed {
			if d.Remaining != p.Limit-inWindow-1 {
				t.Fatalf("take %d: remaining %d, want %d", i, d.Remaining, p.Limit-inWindow-1)
			}
			admitted = append(admitted, now)
			continue
		}
		if inWindow < p.Limit {
			t.Fatalf("take %d: denied with %d in window", i, inWindow)
		}
		// Retry-After points exactly at the instant the oldest counted
		// admission leaves the window.
		if want := time.Duration(admitted[lo]+w+1-now) * time.Microsecond; d.RetryAfter != want {
			t.Fatalf("take %d: retry after %v, want %v", i, d.RetryAfter, want)
		}
	}
	for i, start := range admitted {
		j, _ := slices.BinarySearch(admitted, start+w+1)
		if j-i > p.Limit {
			t.Fatalf("%d admissions within one window starting at %d", j-i, start)
		}
	}
	if len(admitted) < 50 {
		t.Fatalf("only %d admitted: the pattern does not exercise the limit", len(admitted))
	}
}

func testRateKeysIndependent(t *testing.T, b Backend) {
	s := b.Instance(t)
	p := limits.RatePolicy{Limit: 1, Window: time.Minute}
	for _, k := range []string{"transport:a", "transport:b", "scan:a"} {
		if d, err := s.TakeRate(t.Context(), k, t0, p); err != nil || !d.Allowed {
			t.Fatalf("%s: %+v %v", k, d, err)
		}
	}
	if d, err := s.TakeRate(t.Context(), "transport:a", t0, p); err != nil || d.Allowed {
		t.Fatalf("second take on a: %+v %v", d, err)
	}
}
