package auth

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// BenchmarkMiddleware measures the whole auth step of a request: header
// parsing, verification, scope check and the context hand-off, with a
// handler that does nothing. "cached" is a client reusing its token (the
// verified-token cache hits); "uncached" verifies the signature every time,
// as for a token's first request.
//
//	go test ./auth -run '^$' -bench Middleware -benchmem -count 6
func BenchmarkMiddleware(b *testing.B) {
	noop := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	cases := []struct {
		name  string
		cache int
		token func(testing.TB) string
	}{
		{"ES256/cached", 0, func(t testing.TB) string { return tokenES(t, claims()) }},
		{"RS256/cached", 0, func(t testing.TB) string { return tokenRS(t, claims()) }},
		{"ES256/uncached", -1, func(t testing.TB) string { return tokenES(t, claims()) }},
		{"RS256/uncached", -1, func(t testing.TB) string { return tokenRS(t, claims()) }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			v, _ := fileVerifier(b, standardJWKS(b), func(cfg *Config) {
				cfg.VerifiedCacheSize = c.cache
				cfg.RequiredScopes = []string{"mcp:tools"}
			})
			h := v.Middleware(noop)
			r := httptest.NewRequest("POST", "/mcp", nil)
			r.Header.Set("Authorization", "Bearer "+c.token(b))
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != 200 {
				b.Fatalf("status %d: %s", w.Code, w.Body)
			}
			loopWithPercentiles(b, func() { h.ServeHTTP(w, r) })
		})
	}
}

// BenchmarkRefusal is the cost of turning away a garbage token, which an
// attacker can send without holding any key.
func BenchmarkRefusal(b *testing.B) {
	v, _ := fileVerifier(b, standardJWKS(b), nil)
	h := v.Middleware(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	cases := map[string]string{
		"bad_signature": rawToken(`{"alg":"ES256","kid":"ec-1"}`, mustJSON(b, claims()), func(in string) []byte { return sigES(loadKeys(b).ecAttacker, in) }),
		"malformed":     "not-a-token",
	}
	for name, tok := range cases {
		b.Run(name, func(b *testing.B) {
			r := httptest.NewRequest("POST", "/mcp", nil)
			r.Header.Set("Authorization", "Bearer "+tok)
			loopWithPercentiles(b, func() { h.ServeHTTP(httptest.NewRecorder(), r) })
		})
	}
}

// BenchmarkSignature isolates go-jose's signature check of a parsed token
// (signing-input assembly, hash and public-key operation), the floor under
// the uncached rows of BenchmarkMiddleware.
func BenchmarkSignature(b *testing.B) {
	keys, err := parseJWKS(standardJWKS(b))
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct{ name, kid, token string }{
		{"ES256", "ec-1", tokenES(b, claims())},
		{"RS256", "rsa-1", tokenRS(b, claims())},
	} {
		b.Run(c.name, func(b *testing.B) {
			jws, err := jose.ParseSignedCompact(c.token, allowedAlgs)
			if err != nil {
				b.Fatal(err)
			}
			k := keys[c.kid]
			loopWithPercentiles(b, func() {
				if _, err := jws.Verify(k.pub); err != nil {
					b.Fatal("signature does not verify")
				}
			})
		})
	}
}

// loopWithPercentiles runs fn b.N times and reports, besides the mean, the
// median and 99th percentile of the single iterations. On a shared machine
// the mean follows the neighbours' load; the median mostly does not.
func loopWithPercentiles(b *testing.B, fn func()) {
	durs := make([]time.Duration, 0, 1024)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		fn()
		durs = append(durs, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(durs)
	b.ReportMetric(float64(durs[len(durs)/2]), "p50-ns")
	b.ReportMetric(float64(durs[len(durs)*99/100]), "p99-ns")
}
