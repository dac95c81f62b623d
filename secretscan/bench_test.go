package secretscan

import (
	"context"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/warden-mcp/warden/internal/corpusgen/gen"

	"github.com/warden-mcp/warden/internal/benchcpu"
)

var (
	chunkOnce sync.Once
	chunk4M   string
)

// corpusChunk is 4 MB of the synthetic corpus (source, config and logs
// with planted secrets and decoys), the same generator as
// internal/corpusgen.
func corpusChunk() string {
	chunkOnce.Do(func() { chunk4M, _ = gen.Chunk(42, 4_000_000) })
	return chunk4M
}

// BenchmarkScanCorpus measures single-goroutine throughput (MB/s per core
// with -cpu 1) over a corpus chunk.
func BenchmarkScanCorpus(b *testing.B) {
	text := corpusChunk()
	s := New(&Options{FingerprintKey: []byte("bench")})
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	b.ResetTimer()
	c0 := benchcpu.Process()
	for i := 0; i < b.N; i++ {
		if _, err := s.Scan(context.Background(), text); err != nil {
			b.Fatal(err)
		}
	}
	// MB per CPU-second is stable on a loaded machine where MB/s is not.
	if cpu := benchcpu.Process() - c0; cpu > 0 {
		b.ReportMetric(float64(len(text))*float64(b.N)/1e6/cpu.Seconds(), "MB/cpu-s")
	}
}

// text256K returns the first 256,000 Unicode characters of the chunk.
func text256K() string {
	text := corpusChunk()
	n, i := 0, 0
	for i < len(text) && n < MaxToolChars {
		_, w := utf8.DecodeRuneInString(text[i:])
		i += w
		n++
	}
	return text[:i]
}

// BenchmarkScan256K measures one tool-sized call: 256,000 characters. It
// reports the median (p50) latency as a metric besides ns/op.
func BenchmarkScan256K(b *testing.B) {
	text := text256K()
	s := New(&Options{FingerprintKey: []byte("bench")})
	durs := make([]time.Duration, 0, b.N)
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := s.Scan(context.Background(), text); err != nil {
			b.Fatal(err)
		}
		durs = append(durs, time.Since(t0))
	}
	b.StopTimer()
	sort.Slice(durs, func(i, j int) bool { return durs[i] < durs[j] })
	b.ReportMetric(float64(durs[len(durs)/2].Microseconds())/1000, "p50-ms")
}

// BenchmarkPrefilter measures the keyword automaton alone.
func BenchmarkPrefilter(b *testing.B) {
	text := corpusChunk()
	s := New(nil)
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.ac.scan(text, func(int, int) bool { return true })
	}
}

// BenchmarkNew measures rule compilation (done once per process).
func BenchmarkNew(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := compileRules(allRules()); err != nil {
			b.Fatal(err)
		}
	}
}

// adversarialInputs are 256 KB texts built to hit worst cases: every
// keyword-triggered path, long runs for the decoders, unterminated PEM
// armour.
func adversarialInputs() map[string]string {
	const n = 256_000
	rep := func(s string) string { return strings.Repeat(s, n/len(s)+1)[:n] }
	return map[string]string{
		"key-assign":    rep("api_key=ab1 "),
		"password":      rep("password "),
		"pem-headers":   rep("-----BEGIN RSA PRIVATE KEY-----\n"),
		"url-userinfo":  rep("https://u:p@"),
		"backslashes":   rep(`\"`),
		"percent":       rep("%41"),
		"qp-soft-break": rep("a=\n"),
		"base64-run":    rep("QUJD"),
		"eyJ":           rep("eyJ."),
		"one-line":      rep("x"),
		"tokens-1-line": rep("t=" + validGitHub + " "),
		"tf-variable":   rep(`variable "api_token" { default = "`),
		"anonymous":     rep("user=anonymous\npassword=Zq3!vK9#pL2w\n"),
		"bare-login":    rep("user = x password = open_sesame "),
		"vendor-id":     rep("AUTH0_CLIENT_ID=kq3VnB7wLx0RtY2mZp5sHd8Jf4Gc1Aa9\n"),
		"fake-uuid":     rep("api_key=g-g-g-g-g-g-g-g-g-g-g-g-g-g-g-g-g-g-g-g-g-g-g-g-g-g-g-g-g "),
	}
}

func BenchmarkScanAdversarial(b *testing.B) {
	s := New(nil)
	for name, text := range adversarialInputs() {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for i := 0; i < b.N; i++ {
				if _, err := s.Scan(context.Background(), text); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
