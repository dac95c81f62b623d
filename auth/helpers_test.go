package auth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

const (
	testIssuer   = "https://issuer.example"
	testAudience = "https://mcp.example.com/mcp"
)

// t0 is the fixed "now" of the tests.
var t0 = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// fakeClock is a settable clock safe for concurrent use.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: t0} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// testKeys are the throw-away keys in testdata/keys.
type testKeys struct {
	rsa, rsaAttacker, rsaWeak *rsa.PrivateKey
	ec, ecAttacker, ec384     *ecdsa.PrivateKey
}

var (
	keysOnce sync.Once
	keys     testKeys
)

func loadKeys(t testing.TB) testKeys {
	t.Helper()
	keysOnce.Do(func() {
		keys = testKeys{
			rsa:         readTestKey(t, "rsa2048.pem").(*rsa.PrivateKey),
			rsaAttacker: readTestKey(t, "rsa2048-attacker.pem").(*rsa.PrivateKey),
			rsaWeak:     readTestKey(t, "rsa1024.pem").(*rsa.PrivateKey),
			ec:          readTestKey(t, "p256.pem").(*ecdsa.PrivateKey),
			ecAttacker:  readTestKey(t, "p256-attacker.pem").(*ecdsa.PrivateKey),
			ec384:       readTestKey(t, "p384.pem").(*ecdsa.PrivateKey),
		}
	})
	return keys
}

func readTestKey(t testing.TB, name string) any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "keys", name))
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(data)
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return k
}

// JWK builders for the test key set.
func rsaJWK(kid, alg string, k *rsa.PublicKey) map[string]any {
	m := map[string]any{"kty": "RSA", "kid": kid, "n": b64.EncodeToString(k.N.Bytes()), "e": b64.EncodeToString(big.NewInt(int64(k.E)).Bytes())}
	if alg != "" {
		m["alg"] = alg
	}
	return m
}

func ecJWK(kid, alg string, k *ecdsa.PublicKey) map[string]any {
	size := (k.Curve.Params().BitSize + 7) / 8
	pub, err := k.Bytes()
	if err != nil {
		panic(err)
	}
	m := map[string]any{"kty": "EC", "kid": kid, "crv": k.Curve.Params().Name,
		"x": b64.EncodeToString(pub[1 : 1+size]), "y": b64.EncodeToString(pub[1+size:])}
	if alg != "" {
		m["alg"] = alg
	}
	return m
}

const hmacSecret = "a-shared-secret-published-by-mistake"

// standardJWKS is the key set the attack table runs against.
func standardJWKS(t testing.TB) []byte {
	k := loadKeys(t)
	set := map[string]any{"keys": []any{
		rsaJWK("rsa-1", "RS256", &k.rsa.PublicKey),
		rsaJWK("rsa-noalg", "", &k.rsa.PublicKey),
		rsaJWK("rsa-ps", "PS256", &k.rsa.PublicKey),
		rsaJWK("rsa-weak", "RS256", &k.rsaWeak.PublicKey),
		ecJWK("ec-1", "ES256", &k.ec.PublicKey),
		ecJWK("ec-384", "", &k.ec384.PublicKey),
		map[string]any{"kty": "oct", "kid": "oct-1", "alg": "HS256", "k": b64.EncodeToString([]byte(hmacSecret))},
	}}
	data, err := json.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// claims returns the default valid claims, as a map the test may edit.
func claims() map[string]any {
	return map[string]any{
		"iss":          testIssuer,
		"aud":          testAudience,
		"sub":          "cred-1",
		"jti":          "jti-1",
		"tenant":       "tenant-a",
		"entitlements": []string{"keysweep", "webscan_check_headers"},
		"scope":        "mcp:tools",
		"iat":          t0.Add(-time.Minute).Unix(),
		"exp":          t0.Add(time.Hour).Unix(),
	}
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func enc(s string) string { return b64.EncodeToString([]byte(s)) }

// signingInput joins raw header and payload JSON.
func signingInput(hdr, payload string) string { return enc(hdr) + "." + enc(payload) }

func sigRS256(k *rsa.PrivateKey, input string) []byte {
	d := sha256.Sum256([]byte(input))
	s, err := rsa.SignPKCS1v15(rand.Reader, k, crypto.SHA256, d[:])
	if err != nil {
		panic(err)
	}
	return s
}

func sigRS512(k *rsa.PrivateKey, input string) []byte {
	d := sha512.Sum512([]byte(input))
	s, err := rsa.SignPKCS1v15(rand.Reader, k, crypto.SHA512, d[:])
	if err != nil {
		panic(err)
	}
	return s
}

func sigPS256(k *rsa.PrivateKey, input string) []byte {
	d := sha256.Sum256([]byte(input))
	s, err := rsa.SignPSS(rand.Reader, k, crypto.SHA256, d[:], nil)
	if err != nil {
		panic(err)
	}
	return s
}

// sigES returns the raw r‖s signature for the key's curve, hashing with
// SHA-256.
func sigES(k *ecdsa.PrivateKey, input string) []byte {
	d := sha256.Sum256([]byte(input))
	r, s, err := ecdsa.Sign(rand.Reader, k, d[:])
	if err != nil {
		panic(err)
	}
	size := (k.Curve.Params().BitSize + 7) / 8
	out := make([]byte, 2*size)
	r.FillBytes(out[:size])
	s.FillBytes(out[size:])
	return out
}

func sigHS256(secret []byte, input string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(input))
	return m.Sum(nil)
}

// tokenRS builds an RS256 token with kid rsa-1 over claims.
func tokenRS(t testing.TB, c map[string]any) string {
	hdr := `{"alg":"RS256","kid":"rsa-1","typ":"at+jwt"}`
	in := signingInput(hdr, mustJSON(t, c))
	return in + "." + b64.EncodeToString(sigRS256(loadKeys(t).rsa, in))
}

// tokenES builds an ES256 token with kid ec-1 over claims.
func tokenES(t testing.TB, c map[string]any) string {
	hdr := `{"alg":"ES256","kid":"ec-1"}`
	in := signingInput(hdr, mustJSON(t, c))
	return in + "." + b64.EncodeToString(sigES(loadKeys(t).ec, in))
}

// rawToken signs an exact header and payload (for duplicate members and
// the like) with the given signer.
func rawToken(hdr, payload string, sign func(string) []byte) string {
	in := signingInput(hdr, payload)
	return in + "." + b64.EncodeToString(sign(in))
}

// fileVerifier returns a Verifier reading jwks from a file, with a fake clock.
func fileVerifier(t testing.TB, jwks []byte, mod func(*Config)) (*Verifier, *fakeClock) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "jwks.json")
	if err := os.WriteFile(path, jwks, 0o600); err != nil {
		t.Fatal(err)
	}
	clk := newFakeClock()
	cfg := Config{Issuer: testIssuer, Audience: testAudience, JWKSFile: path, Clock: clk.Now}
	if mod != nil {
		mod(&cfg)
	}
	v, err := NewVerifier(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return v, clk
}

// p256Order is n for P-256.
var p256Order = elliptic.P256().Params().N

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}
