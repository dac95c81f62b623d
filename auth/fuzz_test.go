package auth

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite testdata/tokens.txtar")

const seedArchive = "testdata/tokens.txtar"

// seedTokens are the fuzz seeds: each is signed by the keys in
// testdata/keys for the clock t0, and named "<expected reason>/<case>"
// ("accept/…" for tokens that verify).
func seedTokens(t testing.TB) []txtar.File {
	k := loadKeys(t)
	payload := mustJSON(t, claims())
	rs := func(in string) []byte { return sigRS256(k.rsa, in) }
	es := func(in string) []byte { return sigES(k.ec, in) }
	expired := claims()
	expired["exp"], expired["iat"] = t0.Add(-time.Hour).Unix(), t0.Add(-2*time.Hour).Unix()
	arrayAud := claims()
	arrayAud["aud"] = []string{"https://other.example", testAudience}
	cases := []struct{ name, token string }{
		{"accept/rs256", tokenRS(t, claims())},
		{"accept/es256", tokenES(t, claims())},
		{"accept/aud_array", tokenES(t, arrayAud)},
		{ReasonAlgNotAllowed + "/none", rawToken(`{"alg":"none","kid":"rsa-1"}`, payload, rs)},
		{ReasonAlgNotAllowed + "/hs256_oct", rawToken(`{"alg":"HS256","kid":"oct-1"}`, payload, func(in string) []byte { return sigHS256([]byte(hmacSecret), in) })},
		{ReasonMissingKID + "/no_kid", rawToken(`{"alg":"ES256"}`, payload, es)},
		{ReasonHeaderNotAllowed + "/jku", rawToken(`{"alg":"RS256","kid":"rsa-1","jku":"https://evil.example/"}`, payload, rs)},
		{ReasonCritUnsupported + "/crit", rawToken(`{"alg":"RS256","kid":"rsa-1","crit":["x"]}`, payload, rs)},
		{ReasonDuplicateMember + "/header", rawToken(`{"alg":"none","alg":"RS256","kid":"rsa-1"}`, payload, rs)},
		{ReasonDuplicateMember + "/payload", rawToken(`{"alg":"RS256","kid":"rsa-1"}`, strings.Replace(payload, `"sub":"cred-1"`, `"sub":"cred-1","\u0073ub":"admin"`, 1), rs)},
		{ReasonAlgKeyMismatch + "/es256_rsa_kid", rawToken(`{"alg":"ES256","kid":"rsa-1"}`, payload, es)},
		{ReasonKeyRejected + "/rsa1024", rawToken(`{"alg":"RS256","kid":"rsa-weak"}`, payload, func(in string) []byte { return sigRS256(k.rsaWeak, in) })},
		{ReasonKeyRejected + "/p384", rawToken(`{"alg":"ES256","kid":"ec-384"}`, payload, func(in string) []byte { return sigES(k.ec384, in) })},
		{ReasonBadSignature + "/attacker", rawToken(`{"alg":"ES256","kid":"ec-1"}`, payload, func(in string) []byte { return sigES(k.ecAttacker, in) })},
		{ReasonExpired + "/expired", tokenRS(t, expired)},
		{ReasonMalformedToken + "/jwe", "eyJhbGciOiJSU0EtT0FFUCJ9.a.b.c.d"},
		{ReasonMalformedToken + "/dots", strings.Repeat(".", 64)},
	}
	files := make([]txtar.File, len(cases))
	for i, c := range cases {
		files[i] = txtar.File{Name: c.name, Data: []byte(c.token + "\n")}
	}
	return files
}

func readSeeds(t testing.TB) []txtar.File {
	t.Helper()
	a, err := txtar.ParseFile(seedArchive)
	if err != nil {
		t.Fatal(err)
	}
	return a.Files
}

// TestSeedTokens keeps the seed archive honest: every seed still gets the
// outcome its name states. Run with -update to regenerate it.
func TestSeedTokens(t *testing.T) {
	if *update {
		a := &txtar.Archive{Comment: []byte("Fuzz seeds for the auth package: compact JWS tokens named <expected reason>/<case>,\n" +
			"signed by testdata/keys for 2026-06-01T12:00:00Z. Regenerate: go test ./auth -run TestSeedTokens -update\n")}
		a.Files = seedTokens(t)
		if err := os.WriteFile(seedArchive, txtar.Format(a), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	v, _ := fileVerifier(t, standardJWKS(t), nil)
	for _, f := range readSeeds(t) {
		want, _, _ := strings.Cut(f.Name, "/")
		_, err := v.Verify(context.Background(), string(bytes.TrimSpace(f.Data)))
		got := "accept"
		var e *Error
		if errors.As(err, &e) {
			got = e.Reason
		} else if err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("%s: got %s", f.Name, got)
		}
	}
}

// FuzzVerify runs arbitrary tokens through the whole verifier. Whatever the
// input, it must not panic, must refuse with a well-formed *Error whose text
// holds no token bytes, and anything it accepts must carry an identity.
func FuzzVerify(f *testing.F) {
	for _, s := range readSeeds(f) {
		f.Add(string(bytes.TrimSpace(s.Data)))
	}
	path := filepath.Join(f.TempDir(), "jwks.json")
	writeFile(f, path, standardJWKS(f))
	v, err := NewVerifier(Config{Issuer: testIssuer, Audience: testAudience, JWKSFile: path, Clock: func() time.Time { return t0 }})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, tok string) {
		p, err := v.Verify(context.Background(), tok)
		if err == nil {
			if p.Credential == "" || p.Tenant == "" || p.Issuer != testIssuer {
				t.Fatalf("accepted without identity: %+v", p)
			}
			return
		}
		var e *Error
		if !errors.As(err, &e) || e.Code != CodeInvalidToken || e.Reason == "" || e.Status != 401 {
			t.Fatalf("refusal is not a 401 invalid_token *Error: %#v", err)
		}
		if len(tok) >= 8 && strings.Contains(err.Error(), tok) {
			t.Fatalf("error text holds the token: %v", err)
		}
	})
}
