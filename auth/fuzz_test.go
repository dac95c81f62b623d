package auth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

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

// FuzzStrictJSON checks the duplicate-refusing decoder against two
// references: encoding/json (whatever the decoder accepts, encoding/json
// decodes to the same members) and a slow walker over json.Decoder tokens
// (both agree on duplicate members and depth).
func FuzzStrictJSON(f *testing.F) {
	for _, s := range readSeeds(f) {
		for i, part := range strings.Split(string(bytes.TrimSpace(s.Data)), ".") {
			if b, err := b64.DecodeString(part); err == nil && i < 2 {
				f.Add(b)
			}
		}
	}
	for _, s := range []string{`{"a":{"b":[{"c":1,"c":2}]}}`, `{"a\"b":1,"a\u0022b":2}`, `{"a":"{\"a\":1}","b":[",","a"]}`, `null`, `[{}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := decodeStrictObject(data)
		var ref map[string]json.RawMessage
		refErr := json.Unmarshal(data, &ref)
		if err == nil {
			if refErr != nil {
				t.Fatalf("strict accepted what encoding/json refuses: %v", refErr)
			}
			if len(ref) != len(m) {
				t.Fatalf("member count %d, encoding/json %d", len(m), len(ref))
			}
		}
		if refErr != nil || ref == nil || !utf8.Valid(data) {
			return
		}
		slow := referenceWalk(data)
		if (err == nil) != (slow == nil) || errors.Is(err, errDuplicateMember) != errors.Is(slow, errDuplicateMember) {
			t.Fatalf("decodeStrictObject: %v, reference walk: %v", err, slow)
		}
	})
}

// referenceWalk is the obvious, slow duplicate check over json.Decoder
// tokens, kept as the oracle for checkMembers.
func referenceWalk(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	var walk func(depth int) error
	walk = func(depth int) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		d, ok := tok.(json.Delim)
		if !ok {
			return nil
		}
		if depth+1 > maxJSONDepth {
			return errTooDeep
		}
		seen := map[string]bool{}
		for dec.More() {
			if d == '{' {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				if seen[k.(string)] {
					return errDuplicateMember
				}
				seen[k.(string)] = true
			}
			if err := walk(depth + 1); err != nil {
				return err
			}
		}
		_, err = dec.Token()
		return err
	}
	return walk(0)
}

// FuzzBearer checks the Authorization parser: it never panics, and any
// token it extracts is one non-empty run of JWS alphabet characters that
// followed a Bearer scheme and one space.
func FuzzBearer(f *testing.F) {
	for _, s := range []string{"Bearer a.b.c", "bearer a.b.c", "Bearer  a.b.c", "Bearer\ta.b.c", "Basic x", "Bearer", "", "Bearer a, Bearer b"} {
		f.Add(s)
	}
	for _, s := range readSeeds(f) {
		f.Add("Bearer " + string(bytes.TrimSpace(s.Data)))
	}
	f.Fuzz(func(t *testing.T, value string) {
		r := httptest.NewRequest("GET", "/mcp", nil)
		r.Header["Authorization"] = []string{value}
		tok, e := bearerToken(r)
		if e != nil {
			if tok != "" {
				t.Fatal("token returned with an error")
			}
			return
		}
		if tok == "" || !strings.EqualFold(value[:7], "Bearer ") || value[7:] != tok {
			t.Fatalf("extracted %q from %q", tok, value)
		}
		for i := 0; i < len(tok); i++ {
			if !isTokenChar(tok[i]) {
				t.Fatalf("extracted %q holds %q", tok, tok[i])
			}
		}
	})
}
