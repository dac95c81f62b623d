package console

import (
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// pageRate bounds the console's requests per source address (hosted
// servers set Options.PerMinute): a bucket of PerMinute that refills
// over a minute. The table of sources is bounded; past it the newcomers
// share one bucket, so a flood of addresses cannot grow it.
type pageRate struct {
	mu      sync.Mutex
	per     float64
	buckets map[string]pageBucket
}

type pageBucket struct {
	tokens float64
	at     time.Time
}

const maxRateSources = 4096

// take spends one request of src at now; false and the wait when none is
// left.
func (p *pageRate) take(src string, now time.Time) (time.Duration, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.buckets == nil {
		p.buckets = map[string]pageBucket{}
	}
	b, ok := p.buckets[src]
	if !ok && len(p.buckets) >= maxRateSources {
		src = "overflow"
		b, ok = p.buckets[src]
	}
	if !ok {
		b = pageBucket{tokens: p.per, at: now}
	}
	b.tokens = min(p.per, b.tokens+now.Sub(b.at).Minutes()*p.per)
	b.at = now
	if b.tokens < 1 {
		p.buckets[src] = b
		return time.Duration((1 - b.tokens) / p.per * float64(time.Minute)), false
	}
	b.tokens--
	p.buckets[src] = b
	return 0, true
}

// sourceOf is the request's peer address without its port.
func sourceOf(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// limited answers 429 when the source has spent its share.
func (h *Handler) limited(w http.ResponseWriter, r *http.Request) bool {
	if h.rate.per <= 0 {
		return false
	}
	wait, ok := h.rate.take(sourceOf(r), h.o.Now())
	if ok {
		return false
	}
	w.Header().Set("Retry-After", strconv.Itoa(int(wait/time.Second)+1))
	h.fail(w, r, http.StatusTooManyRequests, "rate_limited", "Too many requests to the console; wait a little.")
	return true
}
