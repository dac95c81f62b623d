package jwtinspect

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/warden-mcp/warden/errcode"
)

var now = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func b64(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

func tok(header, claims, sig string) string { return b64(header) + "." + b64(claims) + "." + sig }

func codes(r *Report) []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, f.Code)
	}
	return out
}

func TestFindings(t *testing.T) {
	exp := now.Add(-72 * time.Hour).Unix()
	cases := []struct {
		name, token string
		want, not   []string
	}{
		{"none", tok(`{"alg":"none"}`, `{"sub":"a"}`, ""), []string{"alg_none", "exp_missing", "aud_missing", "iss_missing"}, []string{"signature_missing"}},
		{"None case", tok(`{"alg":"nOnE"}`, `{}`, "c2ln"), []string{"alg_none", "alg_none_with_signature"}, nil},
		{"hmac", tok(`{"alg":"HS256","typ":"JWT"}`, `{"iss":"i","aud":"a","exp":`+itoa(now.Add(time.Hour).Unix())+`}`, "c2ln"), []string{"alg_hmac"}, []string{"exp_missing", "aud_missing", "iss_missing", "expired", "long_lifetime"}},
		{"key refs", tok(`{"alg":"RS256","kid":"../../dev/null","jku":"https://evil.example/jwks","x5u":"https://x/c","jwk":{"kty":"oct"},"x5c":["MII"],"crit":["b64"]}`, `{}`, "c2ln"),
			[]string{"kid_present", "kid_suspicious", "jku_present", "x5u_present", "jwk_embedded", "x5c_embedded", "crit_present"}, nil},
		{"expired and long", tok(`{"alg":"ES256"}`, `{"iat":`+itoa(exp-30*86400)+`,"exp":`+itoa(exp)+`}`, "c2ln"), []string{"expired", "long_lifetime"}, nil},
		{"future", tok(`{"alg":"ES256"}`, `{"nbf":`+itoa(now.Add(2*time.Hour).Unix())+`,"iat":`+itoa(now.Add(2*time.Hour).Unix())+`,"exp":`+itoa(now.Add(3*time.Hour).Unix())+`}`, "c2ln"), []string{"not_yet_valid", "issued_in_future"}, []string{"long_lifetime"}},
		{"no alg", tok(`{"typ":"JWT"}`, `{}`, "c2ln"), []string{"alg_missing"}, nil},
		{"unsigned RS", tok(`{"alg":"RS256"}`, `{}`, ""), []string{"signature_missing"}, nil},
		{"duplicate", tok(`{"alg":"RS256","alg":"none"}`, `{"sub":"a","sub":"b"}`, "c2ln"), []string{"duplicate_member"}, nil},
		{"padded", b64(`{"alg":"HS256"}`) + "==." + b64(`{}`) + ".c2ln", []string{"non_standard_encoding"}, nil},
		{"bad exp", tok(`{"alg":"HS256"}`, `{"exp":"tomorrow"}`, "c2ln"), []string{"exp_invalid", "exp_missing"}, nil},
		{"not json", tok(`{"alg":"HS256"}`, "plain payload", "c2ln"), []string{"payload_not_json"}, []string{"exp_missing"}},
		{"jwe", b64(`{"alg":"RSA-OAEP","enc":"A256GCM"}`) + ".a.b.c.d", []string{"encrypted"}, []string{"exp_missing"}},
	}
	for _, c := range cases {
		r, err := Inspect(c.token, &Options{Now: now})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := codes(r)
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("%s: missing %s in %v", c.name, w, got)
			}
		}
		for _, n := range c.not {
			if slices.Contains(got, n) {
				t.Errorf("%s: unexpected %s in %v", c.name, n, got)
			}
		}
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

func TestTimesAndMembers(t *testing.T) {
	token := "Bearer " + tok(`{"alg":"HS256","jku":"https://k.example/j"}`,
		`{"iss":"https://login.example.com","email":"alice@example.com","api_token":"s3cr3t","exp":`+itoa(now.Add(-3*24*time.Hour-4*time.Hour).Unix())+`,"iat":`+itoa(now.Add(-4*24*time.Hour).Unix())+`}`, "c2ln")
	r, err := Inspect(token, &Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if r.Form != "jws" || r.Algorithm != "HS256" || r.Signature != "c2ln" || r.SignatureBytes != 3 {
		t.Errorf("report: %+v", r)
	}
	kinds := map[string]string{}
	for _, m := range append(r.Header, r.Claims...) {
		kinds[m.Name] = m.Kind
	}
	want := map[string]string{"alg": KindPlain, "jku": KindURL, "iss": KindURL, "email": KindEmail, "api_token": KindSecret, "exp": KindPlain, "iat": KindPlain}
	for k, v := range want {
		if kinds[k] != v {
			t.Errorf("%s: kind %q, want %q", k, kinds[k], v)
		}
	}
	rel := map[string]string{}
	for _, tm := range r.Times {
		rel[tm.Claim] = tm.Relative
	}
	if rel["exp"] != "3d 4h ago" || rel["iat"] != "4d ago" {
		t.Errorf("relative times: %v", rel)
	}
}

func TestHuman(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{{0, "0s"}, {45 * time.Second, "45s"}, {2*time.Hour + 5*time.Minute + 3*time.Second, "2h 5m"}, {400 * 24 * time.Hour, "1y 35d"}, {24 * time.Hour, "1d"}} {
		if got := human(c.d); got != c.want {
			t.Errorf("%v: %q, want %q", c.d, got, c.want)
		}
	}
}

func TestRefusals(t *testing.T) {
	for _, c := range []struct{ token, code string }{
		{"a.b", CodeInvalidToken},
		{"!!!.e30.x", CodeInvalidToken},
		{b64("[1]") + ".e30.x", CodeInvalidToken},
		{b64(`{"a":1} x`) + ".e30.x", CodeInvalidToken},
		{strings.Repeat("a", MaxTokenBytes+1), CodeTokenTooLarge},
	} {
		_, err := Inspect(c.token, nil)
		if errcode.CodeOf(err) != c.code {
			t.Errorf("%.30s: %v, want %s", c.token, err, c.code)
		}
		if err != nil && len(c.token) > 8 && strings.Contains(err.Error(), c.token[:8]) {
			t.Errorf("the error quotes the token: %v", err)
		}
	}
}

func sign(t *testing.T, alg jose.SignatureAlgorithm, key any, kid string, claims string) string {
	t.Helper()
	opts := (&jose.SignerOptions{}).WithType("JWT")
	if kid != "" {
		opts = opts.WithHeader("kid", kid)
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, opts)
	if err != nil {
		t.Fatal(err)
	}
	jws, err := s.Sign([]byte(claims))
	if err != nil {
		t.Fatal(err)
	}
	out, err := jws.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestVerify(t *testing.T) {
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	ecKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	other, _ := rsa.GenerateKey(rand.Reader, 2048)
	der, _ := x509.MarshalPKIXPublicKey(&rsaKey.PublicKey)
	rsaPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	derOther, _ := x509.MarshalPKIXPublicKey(&other.PublicKey)
	otherPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: derOther})
	ecPriv, _ := x509.MarshalECPrivateKey(ecKey)
	ecPEM := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: ecPriv})
	set, _ := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{
		{Key: &other.PublicKey, KeyID: "old", Algorithm: "RS256"},
		{Key: &rsaKey.PublicKey, KeyID: "k2", Algorithm: "RS256"},
	}})

	rs := sign(t, jose.RS256, rsaKey, "k2", `{"sub":"a"}`)
	es := sign(t, jose.ES256, ecKey, "", `{"sub":"a"}`)
	hs := hs256([]byte("secret-123"), `{"sub":"a"}`)
	confused := hs256(rsaPEM, `{"sub":"admin"}`)
	cases := []struct {
		name, token string
		opts        Options
		status, key string
		finding     string
	}{
		{"rs pem", rs, Options{PEM: rsaPEM}, "valid", "PEM key 1", ""},
		{"rs wrong pem", rs, Options{PEM: otherPEM}, "invalid", "", ""},
		{"rs jwks kid", rs, Options{JWKS: set}, "valid", `JWKS key kid "k2"`, ""},
		{"es private pem", es, Options{PEM: ecPEM}, "valid", "PEM key 1", ""},
		{"es with rsa key", es, Options{PEM: rsaPEM}, "unverifiable", "", ""},
		{"hs secret", hs, Options{Secret: []byte("secret-123")}, "valid", "the supplied secret", "hmac_secret_short"},
		{"hs wrong secret", hs, Options{Secret: []byte("nope")}, "invalid", "", ""},
		{"alg confusion", confused, Options{PEM: rsaPEM}, "valid", "the PEM text as an HMAC secret", "alg_confusion"},
		{"garbage pem", rs, Options{PEM: []byte("not a key")}, "unverifiable", "", ""},
		{"none", tok(`{"alg":"none"}`, `{}`, ""), Options{Secret: []byte("x")}, "unverifiable", "", ""},
	}
	for _, c := range cases {
		c.opts.Now = now
		r, err := Inspect(c.token, &c.opts)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		v := r.Verification
		if v == nil || v.Status != c.status || v.KeyID != c.key {
			t.Errorf("%s: %+v, want %s by %q", c.name, v, c.status, c.key)
		}
		if c.finding != "" && !slices.Contains(codes(r), c.finding) {
			t.Errorf("%s: no %s finding", c.name, c.finding)
		}
		if v != nil && (strings.Contains(v.Message, "secret-123") || strings.Contains(v.Message, "BEGIN")) {
			t.Errorf("%s: the message quotes a key: %s", c.name, v.Message)
		}
	}
	if r, _ := Inspect(rs, &Options{Now: now}); r.Verification != nil {
		t.Error("verification ran without a key")
	}
}

// hs256 signs by hand: go-jose refuses secrets shorter than the hash.
func hs256(secret []byte, claims string) string {
	in := b64(`{"alg":"HS256","typ":"JWT"}`) + "." + b64(claims)
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(in))
	return in + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}
