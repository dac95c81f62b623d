package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// jwksServer is a loopback JWKS endpoint whose answer the test changes.
type jwksServer struct {
	*httptest.Server
	mu     sync.Mutex
	body   []byte
	status int
	delay  time.Duration
	hits   int
}

func newJWKSServer(t *testing.T, body []byte) *jwksServer {
	s := &jwksServer{body: body, status: http.StatusOK}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits++
		body, status, delay := s.body, s.status, s.delay
		s.mu.Unlock()
		if delay > 0 {
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return
			}
		}
		if status == http.StatusFound {
			http.Redirect(w, r, "/elsewhere", status)
			return
		}
		w.WriteHeader(status)
		w.Write(body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *jwksServer) set(status int, body []byte) {
	s.mu.Lock()
	s.status, s.body = status, body
	s.mu.Unlock()
}

func (s *jwksServer) hitCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits
}

func jwksOf(t testing.TB, keys ...map[string]any) []byte {
	ks := make([]any, len(keys))
	for i, k := range keys {
		ks[i] = k
	}
	b, err := json.Marshal(map[string]any{"keys": ks})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func urlVerifier(t *testing.T, srv *jwksServer, mod func(*Config)) (*Verifier, *fakeClock) {
	t.Helper()
	clk := newFakeClock()
	cfg := Config{Issuer: testIssuer, Audience: testAudience, JWKSURL: srv.URL + "/jwks.json", Clock: clk.Now}
	if mod != nil {
		mod(&cfg)
	}
	v, err := NewVerifier(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return v, clk
}

// tokenWithKID signs default claims with the given EC key under kid.
func tokenWithKID(t testing.TB, kid string, c map[string]any) string {
	k := loadKeys(t)
	key := k.ec
	if kid != "ec-1" {
		key = k.ecAttacker
	}
	return rawToken(`{"alg":"ES256","kid":"`+kid+`"}`, mustJSON(t, c), func(in string) []byte { return sigES(key, in) })
}

func wantReason(t *testing.T, err error, code, reason string) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Code != code || e.Reason != reason {
		t.Fatalf("err = %v, want %s (%s)", err, code, reason)
	}
	return e
}

func TestJWKSUnknownKIDRefreshIsRateLimited(t *testing.T) {
	k := loadKeys(t)
	srv := newJWKSServer(t, jwksOf(t, ecJWK("ec-1", "ES256", &k.ec.PublicKey)))
	v, clk := urlVerifier(t, srv, nil)
	ctx := context.Background()
	if _, err := v.Verify(ctx, tokenES(t, claims())); err != nil {
		t.Fatal(err)
	}
	if n := srv.hitCount(); n != 1 {
		t.Fatalf("fetches after first token = %d, want 1", n)
	}
	// A flood of unknown kids inside the minimum interval costs no fetch.
	for i := range 200 {
		_, err := v.Verify(ctx, tokenWithKID(t, fmt.Sprintf("random-%d", i), claims()))
		wantReason(t, err, CodeInvalidToken, ReasonUnknownKID)
	}
	if n := srv.hitCount(); n != 1 {
		t.Fatalf("fetches after 200 unknown kids = %d, want 1", n)
	}
	// Once the interval has passed, one unknown kid buys one fetch.
	clk.Advance(DefaultJWKSMinRefresh)
	for i := range 50 {
		_, err := v.Verify(ctx, tokenWithKID(t, fmt.Sprintf("again-%d", i), claims()))
		wantReason(t, err, CodeInvalidToken, ReasonUnknownKID)
	}
	if n := srv.hitCount(); n != 2 {
		t.Fatalf("fetches after the interval = %d, want 2", n)
	}
}

func TestJWKSConcurrentUnknownKIDFetchesOnce(t *testing.T) {
	k := loadKeys(t)
	srv := newJWKSServer(t, jwksOf(t, ecJWK("ec-1", "ES256", &k.ec.PublicKey)))
	v, clk := urlVerifier(t, srv, nil)
	if err := v.Ready(context.Background()); err != nil {
		t.Fatal(err)
	}
	clk.Advance(DefaultJWKSMinRefresh)
	tok := tokenWithKID(t, "ec-2", claims())
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			_, err := v.Verify(context.Background(), tok)
			var e *Error
			if !errors.As(err, &e) || e.Reason != ReasonUnknownKID {
				t.Errorf("err = %v", err)
			}
		})
	}
	wg.Wait()
	if n := srv.hitCount(); n != 2 {
		t.Fatalf("fetches = %d, want 2 (initial + one refresh)", n)
	}
}

func TestJWKSRotationPicksUpNewKey(t *testing.T) {
	k := loadKeys(t)
	srv := newJWKSServer(t, jwksOf(t, ecJWK("ec-1", "ES256", &k.ec.PublicKey)))
	v, clk := urlVerifier(t, srv, nil)
	ctx := context.Background()
	if err := v.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	srv.set(http.StatusOK, jwksOf(t, ecJWK("ec-1", "ES256", &k.ec.PublicKey), ecJWK("ec-2", "ES256", &k.ecAttacker.PublicKey)))
	rotated := tokenWithKID(t, "ec-2", claims())
	clk.Advance(30 * time.Second)
	_, err := v.Verify(ctx, rotated)
	wantReason(t, err, CodeInvalidToken, ReasonUnknownKID)
	clk.Advance(30 * time.Second)
	if _, err := v.Verify(ctx, rotated); err != nil {
		t.Fatalf("rotated key after the interval: %v", err)
	}
}

func TestJWKSRemovedKeyStopsVerifyingCachedTokens(t *testing.T) {
	k := loadKeys(t)
	srv := newJWKSServer(t, jwksOf(t, ecJWK("ec-1", "ES256", &k.ec.PublicKey)))
	v, clk := urlVerifier(t, srv, nil)
	ctx := context.Background()
	tok := tokenES(t, claims())
	if _, err := v.Verify(ctx, tok); err != nil {
		t.Fatal(err)
	}
	srv.set(http.StatusOK, jwksOf(t, ecJWK("ec-2", "ES256", &k.ecAttacker.PublicKey)))
	clk.Advance(DefaultJWKSRefresh - time.Second)
	if _, err := v.Verify(ctx, tok); err != nil {
		t.Fatalf("before the refresh is due: %v", err)
	}
	clk.Advance(time.Second)
	_, err := v.Verify(ctx, tok)
	wantReason(t, err, CodeInvalidToken, ReasonUnknownKID)
}

func TestJWKSStaleness(t *testing.T) {
	k := loadKeys(t)
	srv := newJWKSServer(t, jwksOf(t, ecJWK("ec-1", "ES256", &k.ec.PublicKey)))
	v, clk := urlVerifier(t, srv, func(c *Config) { c.MaxLifetime = 48 * time.Hour })
	ctx := context.Background()
	c := claims()
	c["exp"] = t0.Add(30 * time.Hour).Unix()
	tok := tokenES(t, c)
	if _, err := v.Verify(ctx, tok); err != nil {
		t.Fatal(err)
	}
	srv.set(http.StatusInternalServerError, nil)
	// While the issuer is down, the last keys serve until the maximum
	// staleness, with at most one fetch per request that finds them due.
	for clk.Advance(time.Hour); clk.Now().Sub(t0) <= DefaultJWKSMaxStaleness; clk.Advance(time.Hour) {
		if _, err := v.Verify(ctx, tok); err != nil {
			t.Fatalf("at +%v: %v", clk.Now().Sub(t0), err)
		}
	}
	hits := srv.hitCount()
	if hits > 26 {
		t.Fatalf("%d fetches in 24 hourly requests", hits)
	}
	// Past it, nothing is admitted: 503, not 401.
	_, err := v.Verify(ctx, tok)
	e := wantReason(t, err, CodeKeySetUnavailable, ReasonKeySetStale)
	if e.Status != http.StatusServiceUnavailable || e.RetryAfter < time.Second || e.RetryAfter > unavailableRetry {
		t.Fatalf("status %d, retry after %v", e.Status, e.RetryAfter)
	}
	if err := v.Ready(ctx); err == nil {
		t.Fatal("Ready with a stale key set")
	}
	// Recovery: the next attempt after the retry interval succeeds.
	srv.set(http.StatusOK, jwksOf(t, ecJWK("ec-1", "ES256", &k.ec.PublicKey)))
	clk.Advance(unavailableRetry)
	if _, err := v.Verify(ctx, tok); err != nil {
		t.Fatalf("after recovery: %v", err)
	}
}

func TestJWKSNeverLoaded(t *testing.T) {
	k := loadKeys(t)
	srv := newJWKSServer(t, nil)
	srv.set(http.StatusServiceUnavailable, nil)
	v, clk := urlVerifier(t, srv, nil)
	ctx := context.Background()
	tok := tokenES(t, claims())
	_, err := v.Verify(ctx, tok)
	e := wantReason(t, err, CodeKeySetUnavailable, ReasonKeySetNeverLoaded)
	if e.RetryAfter != unavailableRetry {
		t.Fatalf("RetryAfter = %v, want %v", e.RetryAfter, unavailableRetry)
	}
	if e.Unwrap() == nil || !strings.Contains(e.Error(), "HTTP status 503") {
		t.Fatalf("the operator-side cause is missing: %v", e)
	}
	clk.Advance(2 * time.Second)
	_, err = v.Verify(ctx, tok)
	e = wantReason(t, err, CodeKeySetUnavailable, ReasonKeySetNeverLoaded)
	if e.RetryAfter != 3*time.Second {
		t.Fatalf("RetryAfter = %v, want 3s", e.RetryAfter)
	}
	if n := srv.hitCount(); n != 1 {
		t.Fatalf("fetches = %d, want 1 inside the retry interval", n)
	}
	srv.set(http.StatusOK, jwksOf(t, ecJWK("ec-1", "ES256", &k.ec.PublicKey)))
	clk.Advance(3 * time.Second)
	if _, err := v.Verify(ctx, tok); err != nil {
		t.Fatalf("after recovery: %v", err)
	}
	if err := v.Ready(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestJWKSFetchBounds: every way a fetch can go wrong leaves the verifier
// refusing with 503, never admitting.
func TestJWKSFetchBounds(t *testing.T) {
	k := loadKeys(t)
	good := jwksOf(t, ecJWK("ec-1", "ES256", &k.ec.PublicKey))
	many := make([]map[string]any, maxJWKSKeys+1)
	for i := range many {
		many[i] = ecJWK(fmt.Sprintf("k%d", i), "ES256", &k.ec.PublicKey)
	}
	tests := []struct {
		name   string
		status int
		body   []byte
		delay  time.Duration
		mod    func(*Config)
	}{
		{"larger than MaxJWKSBytes", 200, append(good[:len(good)-1:len(good)-1], []byte(`,"pad":"`+strings.Repeat("x", 4096)+`"}`)...), 0, func(c *Config) { c.MaxJWKSBytes = 1024 }},
		{"slower than JWKSTimeout", 200, good, 5 * time.Second, func(c *Config) { c.JWKSTimeout = 50 * time.Millisecond }},
		{"redirect", http.StatusFound, nil, 0, nil},
		{"HTTP 404", 404, good, 0, nil},
		{"not JSON", 200, []byte("<html>"), 0, nil},
		{"keys not an array", 200, []byte(`{"keys":{}}`), 0, nil},
		{"no keys member", 200, []byte(`{}`), 0, nil},
		{"duplicate member", 200, []byte(`{"keys":[],"keys":[]}`), 0, nil},
		{"too many keys", 200, jwksOf(t, many...), 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newJWKSServer(t, tt.body)
			srv.set(tt.status, tt.body)
			srv.mu.Lock()
			srv.delay = tt.delay
			srv.mu.Unlock()
			v, _ := urlVerifier(t, srv, tt.mod)
			start := time.Now()
			_, err := v.Verify(context.Background(), tokenES(t, claims()))
			wantReason(t, err, CodeKeySetUnavailable, ReasonKeySetNeverLoaded)
			if d := time.Since(start); d > 2*time.Second {
				t.Fatalf("fetch took %v", d)
			}
		})
	}
}

func TestJWKSFileIsReread(t *testing.T) {
	k := loadKeys(t)
	v, clk := fileVerifier(t, jwksOf(t, ecJWK("ec-1", "ES256", &k.ec.PublicKey)), nil)
	if _, err := v.Verify(context.Background(), tokenES(t, claims())); err != nil {
		t.Fatal(err)
	}
	path := v.cfg.JWKSFile
	writeFile(t, path, jwksOf(t, ecJWK("ec-2", "ES256", &k.ecAttacker.PublicKey)))
	clk.Advance(DefaultJWKSMinRefresh)
	if _, err := v.Verify(context.Background(), tokenWithKID(t, "ec-2", claims())); err != nil {
		t.Fatalf("rotated file key: %v", err)
	}
}

// TestVerifyConcurrentWithRefresh runs verifications from many goroutines
// while the clock moves past refresh intervals and the issuer rotates a
// second key in and out. The key that stays published must verify every
// time; run it with -race.
func TestVerifyConcurrentWithRefresh(t *testing.T) {
	k := loadKeys(t)
	stay := ecJWK("ec-1", "ES256", &k.ec.PublicKey)
	rotating := ecJWK("ec-2", "ES256", &k.ecAttacker.PublicKey)
	srv := newJWKSServer(t, jwksOf(t, stay))
	v, clk := urlVerifier(t, srv, func(c *Config) { c.MaxLifetime = 48 * time.Hour })
	c := claims()
	c["exp"] = t0.Add(30 * time.Hour).Unix()
	steady := tokenES(t, c)
	rotated := tokenWithKID(t, "ec-2", c)
	done := make(chan struct{})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				if _, err := v.Verify(context.Background(), steady); err != nil {
					t.Errorf("goroutine %d: steady key refused: %v", g, err)
					return
				}
				_, err := v.Verify(context.Background(), rotated)
				var e *Error
				if err != nil && (!errors.As(err, &e) || e.Reason != ReasonUnknownKID) {
					t.Errorf("goroutine %d: rotated key: %v", g, err)
					return
				}
			}
		})
	}
	for i := range 40 {
		if i%2 == 0 {
			srv.set(http.StatusOK, jwksOf(t, stay, rotating))
		} else {
			srv.set(http.StatusOK, jwksOf(t, stay))
		}
		clk.Advance(DefaultJWKSRefresh)
		time.Sleep(2 * time.Millisecond)
	}
	close(done)
	wg.Wait()
	if n := srv.hitCount(); n < 2 || n > 41 {
		t.Fatalf("%d fetches for 40 refresh intervals", n)
	}
}
