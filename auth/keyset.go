package auth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// keySource returns a JWKS document.
type keySource func(ctx context.Context) ([]byte, error)

// keySnapshot is one successfully parsed key set. Snapshots are immutable;
// a refresh replaces the whole snapshot, so a key removed upstream stops
// verifying at the next refresh.
type keySnapshot struct {
	keys      map[string]*verifyKey
	fetchedAt time.Time
}

// keySet caches the issuer's keys. It fetches when the set is missing, when
// it is older than refreshEvery, and when a token names an unknown kid, but
// never twice within minInterval (5s while no usable set is held), and never
// two fetches at once. A set older than maxStale is not used.
type keySet struct {
	fetch        keySource
	static       bool // keys given in-process; never fetched, never stale
	now          func() time.Time
	refreshEvery time.Duration
	minInterval  time.Duration
	maxStale     time.Duration
	timeout      time.Duration
	logger       *slog.Logger

	snap    atomic.Pointer[keySnapshot]
	fetchMu sync.Mutex // held for the duration of one fetch

	mu          sync.Mutex // guards the fields below
	lastAttempt time.Time
	attempted   bool
	lastErr     error // why the last fetch failed; nil after a success
}

func newKeySet(cfg normalized) *keySet {
	ks := &keySet{
		now:          cfg.Clock,
		refreshEvery: cfg.JWKSRefreshInterval,
		minInterval:  cfg.JWKSMinRefreshInterval,
		maxStale:     cfg.JWKSMaxStaleness,
		timeout:      cfg.JWKSTimeout,
		logger:       cfg.Logger,
	}
	if cfg.JWKSURL != "" {
		client := cfg.HTTPClient
		if client == nil {
			client = &http.Client{
				Timeout:       cfg.JWKSTimeout,
				CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
			}
		}
		ks.fetch = httpSource(client, cfg.JWKSURL, cfg.MaxJWKSBytes)
	} else {
		ks.fetch = fileSource(cfg.JWKSFile, cfg.MaxJWKSBytes)
	}
	return ks
}

func newStaticKeySet(keys map[string]*verifyKey, now func() time.Time) *keySet {
	ks := &keySet{static: true, now: now}
	ks.snap.Store(&keySnapshot{keys: keys, fetchedAt: now()})
	return ks
}

func (ks *keySet) usable(s *keySnapshot, now time.Time) bool {
	return s != nil && (ks.static || now.Sub(s.fetchedAt) <= ks.maxStale)
}

// snapshot returns a usable key set, fetching first if none is held or the
// held one is due for refresh. A due refresh is skipped, not waited for,
// when another request is already fetching.
func (ks *keySet) snapshot(ctx context.Context) (*keySnapshot, *Error) {
	snap := ks.snap.Load()
	now := ks.now()
	if ks.usable(snap, now) {
		if !ks.static && now.Sub(snap.fetchedAt) >= ks.refreshEvery {
			ks.refresh(ctx, snap, false)
			if s := ks.snap.Load(); ks.usable(s, ks.now()) {
				snap = s
			}
		}
		return snap, nil
	}
	ks.refresh(ctx, snap, true)
	snap = ks.snap.Load()
	now = ks.now()
	if ks.usable(snap, now) {
		return snap, nil
	}
	reason := ReasonKeySetStale
	if snap == nil {
		reason = ReasonKeySetNeverLoaded
	}
	retry, cause := ks.failure(now)
	return nil, keySetUnavailable(reason, retry, cause)
}

// lookup finds the key for kid in a usable set, refreshing once (subject to
// the rate limit) when the kid is unknown.
func (ks *keySet) lookup(ctx context.Context, snap *keySnapshot, kid string) (*verifyKey, *keySnapshot, *Error) {
	k, ok := snap.keys[kid]
	if !ok && !ks.static {
		ks.refresh(ctx, snap, true)
		if s := ks.snap.Load(); s != snap && ks.usable(s, ks.now()) {
			snap = s
			k, ok = snap.keys[kid]
		}
	}
	if !ok {
		return nil, snap, invalidToken(ReasonUnknownKID)
	}
	if k.rejected != "" {
		return nil, snap, invalidToken(ReasonKeyRejected)
	}
	return k, snap, nil
}

// refresh fetches a new key set unless one was fetched since seen was
// loaded or the rate limit forbids it. With block false it gives up at
// once if another fetch is under way.
func (ks *keySet) refresh(ctx context.Context, seen *keySnapshot, block bool) {
	if ks.static {
		return
	}
	if block {
		ks.fetchMu.Lock()
	} else if !ks.fetchMu.TryLock() {
		return
	}
	defer ks.fetchMu.Unlock()
	if ks.snap.Load() != seen {
		return // another request refreshed while we waited
	}
	now := ks.now()
	ks.mu.Lock()
	if ks.attempted && now.Sub(ks.lastAttempt) < ks.interval(seen, now) {
		ks.mu.Unlock()
		return
	}
	ks.attempted, ks.lastAttempt = true, now
	ks.mu.Unlock()

	// The fetch serves every waiting request, so one client going away
	// must not cancel it; the timeout still bounds it.
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ks.timeout)
	defer cancel()
	data, err := ks.fetch(fctx)
	var keys map[string]*verifyKey
	if err == nil {
		keys, err = parseJWKS(data)
	}
	ks.mu.Lock()
	ks.lastErr = err
	ks.mu.Unlock()
	if err != nil {
		if ks.logger != nil {
			ks.logger.LogAttrs(ctx, slog.LevelWarn, "auth: JWKS refresh failed", slog.String("error", err.Error()))
		}
		return
	}
	for kid, k := range keys {
		if k.rejected != "" && ks.logger != nil {
			ks.logger.LogAttrs(ctx, slog.LevelWarn, "auth: JWKS key unusable", slog.String("kid", kid), slog.String("why", k.rejected))
		}
	}
	ks.snap.Store(&keySnapshot{keys: keys, fetchedAt: ks.now()})
}

// interval is the least time between fetch attempts: shorter while no
// usable set is held, so an outage ends quickly once the issuer is back.
func (ks *keySet) interval(held *keySnapshot, now time.Time) time.Duration {
	if !ks.usable(held, now) {
		return min(ks.minInterval, unavailableRetry)
	}
	return ks.minInterval
}

// failure reports how long until the next fetch may be attempted (at
// least one second) and why the last one failed.
func (ks *keySet) failure(now time.Time) (time.Duration, error) {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	wait := ks.interval(ks.snap.Load(), now) - now.Sub(ks.lastAttempt)
	return max(wait, time.Second), ks.lastErr
}

func httpSource(client *http.Client, url string, maxBytes int64) keySource {
	return func(ctx context.Context) ([]byte, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Accept", "application/jwk-set+json, application/json")
		resp, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("JWKS fetch: HTTP status %d", resp.StatusCode)
		}
		return readCapped(resp.Body, maxBytes)
	}
}

func fileSource(path string, maxBytes int64) keySource {
	return func(ctx context.Context) ([]byte, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return readCapped(f, maxBytes)
	}
}

var errJWKSTooLarge = errors.New("JWKS document exceeds the size limit")

func readCapped(r io.Reader, maxBytes int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxBytes+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > maxBytes {
		return nil, errJWKSTooLarge
	}
	return data, nil
}
