package auth

import (
	"bytes"
	"context"
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4/jwt"
	"golang.org/x/tools/txtar"
)

// TestRFC7515Vectors checks our JWK policy and go-jose's signature check
// against the specification's own examples, which no code of ours produced: the RS256 (A.2) and ES256
// (A.3) signatures verify under the published keys and stop verifying when
// one payload byte changes. The A.3 signature has s > n/2, so it also pins
// the decision to accept high-S ECDSA signatures.
func TestRFC7515Vectors(t *testing.T) {
	a, err := txtar.ParseFile("testdata/rfc7515.txtar")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range a.Files {
		files[f.Name] = string(bytes.TrimSpace(f.Data))
	}
	for _, ex := range []struct{ name, alg string }{{"A.2", algRS256}, {"A.3", algES256}} {
		t.Run(ex.name, func(t *testing.T) {
			var m map[string]json.RawMessage
			if err := json.Unmarshal([]byte(files[ex.name+"/jwk"]), &m); err != nil {
				t.Fatal(err)
			}
			key := parseJWK("rfc", json.RawMessage(files[ex.name+"/jwk"]), m)
			if key.rejected != "" || key.alg != ex.alg {
				t.Fatalf("key: alg %q, rejected %q", key.alg, key.rejected)
			}
			tok := files[ex.name+"/jws"]
			verifies := func(tok string) bool {
				jws, err := jwt.ParseSigned(tok, allowedAlgs)
				return err == nil && jws.Claims(key.pub) == nil
			}
			if !verifies(tok) {
				t.Fatal("the RFC's signature does not verify")
			}
			tampered := strings.Replace(tok, ".eyJpc3MiOiJqb2Ui", ".eyJpc3MiOiJqb2Ti", 1)
			if tampered == tok || verifies(tampered) {
				t.Fatal("a tampered payload verifies")
			}
			if ex.alg == algES256 {
				sig, err := b64.DecodeString(tok[strings.LastIndexByte(tok, '.')+1:])
				if err != nil {
					t.Fatal(err)
				}
				s := new(big.Int).SetBytes(sig[32:])
				if s.Cmp(new(big.Int).Rsh(p256Order, 1)) <= 0 {
					t.Fatal("expected the RFC's A.3 signature to be high-S")
				}
			}
			// Through the whole verifier the token is refused by policy
			// (no kid), not by its signature.
			m["kid"] = json.RawMessage(`"rfc"`)
			jwks, _ := json.Marshal(map[string]any{"keys": []any{m}})
			v, _ := fileVerifier(t, jwks, nil)
			_, err = v.Verify(context.Background(), tok)
			wantReason(t, err, CodeInvalidToken, ReasonMissingKID)
		})
	}
}
