package codec

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	mrand "math/rand/v2"
	"strings"
	"testing"
)

// The utilities on a 1 MiB input (docs/PERFORMANCE.md, "Utilities"):
//
//	go test ./codec -run '^$' -bench . -benchmem
const benchSize = 1 << 20

// benchText is 1 MiB of access-log-like text: fixed words and varying
// numbers, so that it compresses about as well as real logs (4-6x), not
// as well as one line repeated.
func benchText() []byte {
	r := mrand.New(mrand.NewPCG(1, 2))
	paths := []string{"/api/v1/items", "/login", "/static/app.js", "/search", "/admin/users", "/caf%C3%A9"}
	var b strings.Builder
	for b.Len() < benchSize {
		fmt.Fprintf(&b, "2026-12-%02dT%02d:%02d:%02dZ %s %s?id=%d&q=%x %d %d \"Mozilla/5.0 <x> & y\" %dms\n",
			r.IntN(28)+1, r.IntN(24), r.IntN(60), r.IntN(60), []string{"GET", "POST"}[r.IntN(2)], paths[r.IntN(len(paths))],
			r.IntN(100000), r.Uint32(), []int{200, 302, 404, 500}[r.IntN(4)], r.IntN(50000), r.IntN(900))
	}
	return []byte(b.String()[:benchSize])
}

// encodedInput returns the encoding of the longest prefix of text whose
// encoding fits in 1 MiB: the decoders' benchmark input.
func encodedInput(text []byte, enc string) string {
	full, _ := Encode(text, enc)
	n := int(float64(len(text)) * float64(benchSize) / float64(len(full)))
	for {
		s, _ := Encode(text[:min(n, len(text))], enc)
		if len(s) <= benchSize {
			return s
		}
		n -= n / 100
	}
}

func benchRandom() []byte {
	b := make([]byte, benchSize)
	rand.Read(b)
	return b
}

func BenchmarkEncode(b *testing.B) {
	text := benchText()
	for _, enc := range Encodings {
		b.Run(enc, func(b *testing.B) {
			measure(b, benchSize, func() error { _, err := Encode(text, enc); return err })
		})
	}
}

func BenchmarkDecode(b *testing.B) {
	text := benchText()
	for _, enc := range Encodings {
		s := encodedInput(text, enc)
		b.Run(enc, func(b *testing.B) {
			measure(b, int64(len(s)), func() error { _, err := Decode(s, enc); return err })
		})
	}
}

func BenchmarkAuto(b *testing.B) {
	text := benchText()
	gz, _ := Compress(text, Gzip, 0)
	nested := []byte(base64.StdEncoding.EncodeToString(gz)) // 1 MiB of text inside gzip inside base64
	b.Run("plain_text", func(b *testing.B) {
		measure(b, benchSize, func() error { _, _, err := Auto(text); return err })
	})
	b.Run("base64_gzip", func(b *testing.B) {
		measure(b, int64(len(nested)), func() error { _, _, err := Auto(nested); return err })
	})
}

func BenchmarkHash(b *testing.B) {
	data := benchRandom()
	for _, algo := range HashAlgorithms() {
		b.Run(algo, func(b *testing.B) {
			measure(b, benchSize, func() error { _, err := Hash(data, algo, nil); return err })
		})
	}
	b.Run("hmac_sha256", func(b *testing.B) {
		measure(b, benchSize, func() error { _, err := Hash(data, "sha256", []byte("key")); return err })
	})
}

func BenchmarkCompress(b *testing.B) {
	text := benchText()
	for _, f := range Formats {
		b.Run(f, func(b *testing.B) {
			measure(b, benchSize, func() error { _, err := Compress(text, f, 0); return err })
		})
	}
}

func BenchmarkDecompress(b *testing.B) {
	text := benchText()
	for _, f := range Formats {
		c, _ := Compress(text, f, 0)
		b.Run(f, func(b *testing.B) {
			measure(b, benchSize, func() error { _, _, err := Decompress(c, f); return err }) // throughput in decompressed bytes
			b.ReportMetric(float64(benchSize)/float64(len(c)), "ratio")
		})
	}
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
