package jwtinspect

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"testing"
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
		measure(b, int64(len(token)), func() error { _, err := Inspect(token, &Options{Now: now}); return err })
	})
	b.Run("verify_hmac", func(b *testing.B) {
		measure(b, int64(len(token)), func() error {
			_, err := Inspect(token, &Options{Now: now, Secret: []byte("secret")})
			return err
		})
	})
}

// measure runs fn b.N times over n bytes and reports CPU time per
// operation beside wall time.
func measure(b *testing.B, n int64, fn func() error) {
	b.Helper()
	b.SetBytes(n)
	b.ReportAllocs()
	c0 := processCPU()
	for b.Loop() {
		if err := fn(); err != nil {
			b.Fatal(err)
		}
	}
	if cpu := processCPU() - c0; cpu > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
	}
}
