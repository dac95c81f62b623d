package localas

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// Registrations are rate limited by source address, so that one program
// cannot register clients as fast as it can send requests: a burst of
// registrationBurst, then one every registrationEvery. Every source is on
// this machine (the server is loopback-only), and each address counts
// apart; the table of addresses is bounded, and past it the newcomers
// share one bucket.
const (
	registrationBurst = 10
	registrationEvery = 6 * time.Second
	maxRateSources    = 1024
)

// sourceRate is a token bucket per source. The zero value is ready.
type sourceRate struct {
	mu      sync.Mutex
	buckets map[string]bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

// take spends one registration of src at now, or reports how long until
// one is available.
func (s *sourceRate) take(src string, now time.Time) (wait time.Duration, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.buckets == nil {
		s.buckets = map[string]bucket{}
	}
	b, found := s.buckets[src]
	if !found && len(s.buckets) >= maxRateSources {
		for k, o := range s.buckets {
			if o.refilled(now) >= registrationBurst {
				delete(s.buckets, k) // full again: forgetting it changes nothing
			}
		}
		if len(s.buckets) >= maxRateSources {
			src = ""
			b, found = s.buckets[src]
		}
	}
	if !found {
		b = bucket{tokens: registrationBurst, at: now}
	}
	b.tokens, b.at = b.refilled(now), now
	if b.tokens < 1 {
		s.buckets[src] = b
		return time.Duration((1 - b.tokens) * float64(registrationEvery)), false
	}
	b.tokens--
	s.buckets[src] = b
	return 0, true
}

// refilled is the bucket's tokens at now.
func (b bucket) refilled(now time.Time) float64 {
	t := b.tokens
	if d := now.Sub(b.at); d > 0 {
		t += float64(d) / float64(registrationEvery)
	}
	return min(t, registrationBurst)
}

// sourceOf is the address a request came from, without its port.
func sourceOf(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}
