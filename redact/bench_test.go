package redact

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/warden-mcp/warden/privacy"
	"github.com/warden-mcp/warden/tool"

	"github.com/warden-mcp/warden/internal/benchcpu"
)

// benchFinding is the shape of a typed web-scan tool's output: the
// strings a real result carries (URLs with queries, response headers with
// quoted ETags, request IDs, digests, prose, multi-line evidence, hosts
// and addresses), a field the typed walk has already redacted, and, in one
// finding of 25, a credential.
type benchFinding struct {
	ID       string            `json:"id"`
	Title    string            `json:"title"`
	Severity string            `json:"severity"`
	URL      string            `json:"url"`
	Method   string            `json:"method"`
	Status   int               `json:"status"`
	Host     string            `json:"host"`
	IP       string            `json:"ip"`
	Headers  map[string]string `json:"headers"`
	Evidence string            `json:"evidence"`
	SHA256   string            `json:"sha256"`
	Tags     []string          `json:"tags"`
	CSRF     string            `json:"csrf_token"` // privacy:"secret", already redacted by the typed walk
}

type benchOutput struct {
	Target   string         `json:"target"`
	Findings []benchFinding `json:"findings"`
	Total    int            `json:"total"`
}

var benchCredentials = []string{
	"aws_access_key_id = AKIAZ3MSJV4WWNKWW5FG",
	"Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
	"DATABASE_URL=postgres://app:Xk29vLq0pwz@db.internal:5432/app",
	"password: \"Sup3rS3cret!\"",
}

// benchStructured returns a typed tool's structured JSON of about size
// bytes, deterministic.
func benchStructured(size int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	hex := func(n int) string {
		const digits = "0123456789abcdef"
		b := make([]byte, n)
		for i := range b {
			b[i] = digits[rng.IntN(16)]
		}
		return string(b)
	}
	words := strings.Fields("the server returned a response header that discloses version information " +
		"missing security header allows framing by other origins directory listing enabled on path " +
		"cookie set without secure flag over plain http mixed content loaded from cdn")
	prose := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = words[rng.IntN(len(words))]
		}
		return strings.Join(w, " ")
	}
	out := benchOutput{Target: "https://app.example.com/"}
	for i := 0; ; i++ {
		f := benchFinding{
			ID:       fmt.Sprintf("F-%06d", i),
			Title:    prose(6),
			Severity: []string{"info", "low", "medium", "high"}[rng.IntN(4)],
			URL:      fmt.Sprintf("https://app.example.com/api/v1/users/%d/orders?page=%d&sort=created_at&filter=status%%3Dopen", rng.IntN(10000), rng.IntN(50)),
			Method:   "GET",
			Status:   []int{200, 301, 403, 404, 500}[rng.IntN(5)],
			Host:     fmt.Sprintf("svc-%d.app.example.com", rng.IntN(40)),
			IP:       fmt.Sprintf("10.%d.%d.%d", rng.IntN(256), rng.IntN(256), rng.IntN(256)),
			Headers: map[string]string{
				"Content-Type":              "text/html; charset=utf-8",
				"Server":                    "nginx/1.25.3",
				"X-Request-Id":              fmt.Sprintf("%s-%s-4%s-a%s-%s", hex(8), hex(4), hex(3), hex(3), hex(12)),
				"ETag":                      `W/"` + hex(16) + `"`,
				"Cache-Control":             "no-cache, no-store, must-revalidate",
				"Strict-Transport-Security": "max-age=31536000; includeSubDomains",
				"Set-Cookie":                "session=[REDACTED:cookie]; Path=/; HttpOnly",
			},
			Evidence: prose(12) + "\n> GET /api/v1/users HTTP/1.1\n< HTTP/1.1 200 OK",
			SHA256:   hex(64),
			Tags:     []string{"owasp-a05", "cwe-200", "web"},
			CSRF:     "[REDACTED:secret]",
		}
		if i%25 == 7 {
			f.Evidence += "\n" + benchCredentials[(i/25)%len(benchCredentials)]
		}
		out.Findings = append(out.Findings, f)
		out.Total = len(out.Findings)
		if i%16 == 15 {
			b, _ := json.Marshal(out)
			if len(b) >= size {
				return b
			}
		}
	}
}

// benchResult is a typed tool's result of about size bytes in total: the
// structured JSON and, as the SDK writes it, the same JSON as text.
func benchResult(size int) *tool.Result {
	b := benchStructured(size / 2)
	return &tool.Result{Content: []tool.Content{tool.Text(string(b))}, Structured: b}
}

func benchRedactor(b *testing.B, mode Mode) *Redactor {
	r, err := New(&Options{Mode: mode, PseudonymKey: []byte("bench-pseudonym-key")})
	if err != nil {
		b.Fatal(err)
	}
	return r
}

func runResultBench(b *testing.B, r *Redactor, res *tool.Result) {
	size := len(res.Structured)
	for _, c := range res.Content {
		size += len(c.Text)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	if _, err := r.Result(res); err != nil { // warm the pool
		b.Fatal(err)
	}
	b.ResetTimer()
	c0 := benchcpu.Process()
	for b.Loop() {
		if _, err := r.Result(res); err != nil {
			b.Fatal(err)
		}
	}
	if cpu := benchcpu.Process() - c0; cpu > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
	}
}

// BenchmarkResult256K is the target: one Result pass over a
// 256 KB typed result (128 KB of structured JSON and the same as text),
// at most 2 ms per call on one core.
func BenchmarkResult256K(b *testing.B) {
	runResultBench(b, benchRedactor(b, Balanced), benchResult(256<<10))
}

// BenchmarkResult256KStrict is the same result in Strict (the text pass
// is the same; identifiers go too).
func BenchmarkResult256KStrict(b *testing.B) {
	runResultBench(b, benchRedactor(b, Strict), benchResult(256<<10))
}

// BenchmarkResult512K doubles the result: 256 KB of structured JSON and
// the same as text.
func BenchmarkResult512K(b *testing.B) {
	runResultBench(b, benchRedactor(b, Balanced), benchResult(512<<10))
}

// BenchmarkResult256KSeparateText is the 256 KB result whose text block
// is not the structured JSON (a raw tool's own rendering), so both are
// scanned.
func BenchmarkResult256KSeparateText(b *testing.B) {
	res := benchResult(256 << 10)
	res.Content = []tool.Content{tool.Text(string(res.Structured) + " ")}
	runResultBench(b, benchRedactor(b, Balanced), res)
}

// BenchmarkResult256KPerString is the naive pass the joint scan replaces:
// the same tokenizer, then one KeySweep scan per string of the structured
// content (the text block, a copy, is not scanned at all).
func BenchmarkResult256KPerString(b *testing.B) {
	r := benchRedactor(b, Balanced)
	res := benchResult(256 << 10)
	b.SetBytes(int64(len(res.Structured) + len(res.Content[0].Text)))
	b.ReportAllocs()
	sc := &scratch{}
	c0 := benchcpu.Process()
	for b.Loop() {
		sc.tz.src, sc.tz.maxStrings = res.Structured, 1<<30
		if err := sc.tz.run(); err != nil {
			b.Fatal(err)
		}
		sc.cuts = sc.cuts[:0]
		for k := range sc.tz.toks {
			if err := r.scanApart(sc, int32(k), &Report{}); err != nil {
				b.Fatal(err)
			}
		}
	}
	if cpu := benchcpu.Process() - c0; cpu > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
	}
}

// BenchmarkResultOff is the cost of Off: one comparison.
func BenchmarkResultOff(b *testing.B) {
	runResultBench(b, benchRedactor(b, Off), benchResult(256<<10))
}

func BenchmarkField(b *testing.B) {
	for _, c := range []struct {
		mode              Mode
		kind, name, value string
	}{
		{Balanced, privacy.Secret, "token", "ghp_abc"},
		{Balanced, privacy.URL, "url", "https://app.example.com/api/v1/users/42/orders?page=2&sort=created_at"},
		{Balanced, privacy.URL, "url", "https://app.example.com/api/v1/users/42/orders"},
		{Balanced, privacy.Header, "Content-Type", "text/html; charset=utf-8"},
		{Balanced, privacy.Header, "Set-Cookie", "sid=abc; Path=/; HttpOnly; Secure"},
		{Strict, privacy.Host, "host", "svc-12.app.example.com"},
		{Strict, privacy.IP, "ip", "10.1.2.3"},
		{Strict, privacy.URL, "url", "https://app.example.com/api/v1/users/42/orders?page=2"},
	} {
		b.Run(string(c.mode)+"/"+c.kind+"/"+c.name, func(b *testing.B) {
			r := benchRedactor(b, c.mode)
			b.ReportAllocs()
			for b.Loop() {
				r.Field(c.kind, c.name, c.value)
			}
		})
	}
}

// BenchmarkScanFloor256K is the floor under BenchmarkResult256K: one
// KeySweep scan of the 128 KB structured JSON as plain text, which is the
// least any pass that reads every string must do.
func BenchmarkScanFloor256K(b *testing.B) {
	r := benchRedactor(b, Balanced)
	text := string(benchResult(256 << 10).Structured)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	c0 := benchcpu.Process()
	for b.Loop() {
		if _, err := r.scanner.Scan(context.Background(), text); err != nil {
			b.Fatal(err)
		}
	}
	if cpu := benchcpu.Process() - c0; cpu > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
	}
}

// BenchmarkGluedPass256K is what the glued pass (glued.go) adds to
// BenchmarkResult256K: gluedCuts over every string of the 128 KB
// structured JSON, as the joint scan runs it.
func BenchmarkGluedPass256K(b *testing.B) {
	r := benchRedactor(b, Balanced)
	res := benchResult(256 << 10)
	var tz tokenizer
	tz.src, tz.maxStrings = res.Structured, 1<<30
	if err := tz.run(); err != nil {
		b.Fatal(err)
	}
	strs := make([]string, len(tz.toks))
	for k := range tz.toks {
		strs[k] = string(tz.value(&tz.toks[k]))
	}
	b.SetBytes(int64(len(res.Structured)))
	b.ReportAllocs()
	var cuts []cut
	c0 := benchcpu.Process()
	for b.Loop() {
		cuts = cuts[:0]
		for k, s := range strs {
			cuts = r.gluedCuts(cuts, nil, s, int32(k))
		}
	}
	if cpu := benchcpu.Process() - c0; cpu > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
	}
}
