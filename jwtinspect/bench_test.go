package jwtinspect

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/warden-mcp/warden/internal/benchcpu"
)

// A token at the size cap (64 KiB: the JWT utility's largest input) with
// and without HMAC verification:
//
//	go test ./jwtinspect -run '^$' -bench . -benchmem
func BenchmarkInspect(b *testing.B) {
	claims := `{"iss":"https://login.example.com","aud":"api","exp":2000000000,"iat":1990000000,"blob":"` +
		strings.Repeat("x", MaxTokenBytes*3/4-200) + `"}`
	in := b64(`{"alg":"HS256","typ":"JWT","kid":"k1"}`) + "." + base64.RawURLEncoding.EncodeToString([]byte(claims))
	m := hmac.New(sha256.New, []byte("secret"))
	m.Write([]byte(in))
	token := in + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
	if len(token) > MaxTokenBytes {
		b.Fatalf("token of %d bytes", len(token))
	}
	b.Run("decode", func(b *testing.B) {
		benchcpu.Measure(b, int64(len(token)), func() error { _, err := Inspect(token, &Options{Now: now}); return err })
	})
	b.Run("verify_hmac", func(b *testing.B) {
		benchcpu.Measure(b, int64(len(token)), func() error {
			_, err := Inspect(token, &Options{Now: now, Secret: []byte("secret")})
			return err
		})
	})
}
