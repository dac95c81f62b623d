package jwtinspect

import (
	"testing"
	"time"
)

func FuzzInspect(f *testing.F) {
	for _, s := range []string{
		tok(`{"alg":"none"}`, `{"sub":"a"}`, ""),
		tok(`{"alg":"HS256","kid":"../x","jku":"https://a/b"}`, `{"exp":1,"iat":2,"nbf":3,"aud":["a"]}`, "c2ln"),
		tok(`{"alg":"RS256","alg":"x"}`, `{"a":1,"a":2}`, "c2ln"),
		b64(`{"alg":"RSA-OAEP","enc":"A256GCM"}`) + ".a.b.c.d",
		"Bearer eyJhbGciOiJIUzI1NiJ9.e30.c2ln", "a.b.c", "", "....",
	} {
		f.Add(s, []byte(`{"keys":[{"kty":"oct","k":"c2VjcmV0"}]}`))
	}
	f.Fuzz(func(t *testing.T, token string, jwks []byte) {
		r, err := Inspect(token, &Options{Now: time.Unix(1e9, 0), JWKS: jwks, Secret: []byte("s")})
		if err != nil {
			return
		}
		if r.Form == "" {
			t.Fatal("a report without a form")
		}
	})
}
