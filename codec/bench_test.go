package codec

import (
	"crypto/rand"
	"encoding/base64"
	"strings"
	"testing"
)

// The utilities on a 1 MiB input (docs/PERFORMANCE.md, "Utilities"):
//
//	go test ./codec -run '^$' -bench . -benchmem
const benchSize = 1 << 20

func benchText() []byte {
	// Printable text with some structure: a log-like line repeated.
	line := "2026-12-01T12:00:00Z GET /api/v1/items?id=42&q=caf%C3%A9 200 \"Mozilla/5.0\" <ok> & done\n"
	return []byte(strings.Repeat(line, benchSize/len(line)+1)[:benchSize])
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
			b.SetBytes(benchSize)
			for b.Loop() {
				if _, err := Encode(text, enc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDecode(b *testing.B) {
	text := benchText()
	for _, enc := range Encodings {
		s, _ := Encode(text, enc)
		b.Run(enc, func(b *testing.B) {
			b.SetBytes(benchSize)
			for b.Loop() {
				if _, err := Decode(s, enc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkAuto(b *testing.B) {
	text := benchText()
	gz, _ := Compress(text, Gzip, 0)
	nested := []byte(base64.StdEncoding.EncodeToString(gz))
	b.Run("plain_text", func(b *testing.B) {
		b.SetBytes(benchSize)
		for b.Loop() {
			if _, _, err := Auto(text); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("base64_gzip", func(b *testing.B) {
		b.SetBytes(benchSize)
		for b.Loop() {
			if _, _, err := Auto(nested); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkHash(b *testing.B) {
	data := benchRandom()
	for _, algo := range HashAlgorithms() {
		b.Run(algo, func(b *testing.B) {
			b.SetBytes(benchSize)
			for b.Loop() {
				if _, err := Hash(data, algo, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("hmac_sha256", func(b *testing.B) {
		b.SetBytes(benchSize)
		for b.Loop() {
			if _, err := Hash(data, "sha256", []byte("key")); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkCompress(b *testing.B) {
	text := benchText()
	for _, f := range Formats {
		b.Run(f, func(b *testing.B) {
			b.SetBytes(benchSize)
			for b.Loop() {
				if _, err := Compress(text, f, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDecompress(b *testing.B) {
	text := benchText()
	for _, f := range Formats {
		c, _ := Compress(text, f, 0)
		b.Run(f, func(b *testing.B) {
			b.SetBytes(benchSize)
			for b.Loop() {
				if _, _, err := Decompress(c, f); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
