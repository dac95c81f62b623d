package limits

import (
	"sync"
	"time"
)

// denyCacheSize bounds the deny cache. When it is full and nothing in it
// has expired, an arbitrary entry is dropped, which only sends that
// credential back to the store.
const denyCacheSize = 10000

// denyCache remembers, per transport key, an instant before which the
// store is certain to deny. It lets a credential that hammers the server
// while over its limit be refused without a store round trip.
//
// It keeps the rate contract exactly: a sliding log that denies at now with
// RetryAfter r cannot admit before now+r, because the entry that will leave
// the window at now+r is fixed, and other replicas can only add entries.
// The cache only ever denies; every admission still comes from the store.
type denyCache struct {
	mu sync.Mutex
	m  map[string]time.Time
}

func (c *denyCache) deniedUntil(key string, now time.Time) (time.Duration, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	until, ok := c.m[key]
	if !ok {
		return 0, false
	}
	if !now.Before(until) {
		delete(c.m, key)
		return 0, false
	}
	return until.Sub(now), true
}

func (c *denyCache) deny(key string, until, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[string]time.Time)
	}
	if len(c.m) >= denyCacheSize {
		for k, u := range c.m {
			if !now.Before(u) {
				delete(c.m, k)
			}
		}
		for k := range c.m {
			if len(c.m) < denyCacheSize {
				break
			}
			delete(c.m, k)
		}
	}
	c.m[key] = until
}
