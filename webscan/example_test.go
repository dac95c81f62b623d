package webscan_test

import (
	"context"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/warden-mcp/warden/webscan"
)

// The wiring injects the SSRF-safe client and dialer; a plain client is
// shown here only to keep the example self-contained. Never scan with an
// unguarded client in production.
func ExampleScanner_Scan() {
	client := &http.Client{
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Timeout:       10 * time.Second,
	}
	var d net.Dialer
	s := webscan.New(webscan.Options{HTTP: client, Dial: d.DialContext})
	rep, err := s.Scan(context.Background(), "https://example.com/")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(rep.Result.Grade)
	_ = webscan.WriteText(os.Stdout, rep)
}

func ExampleParseCSP() {
	p, err := webscan.ParseCSP("default-src 'none'; script-src 'self' 'nonce-r4nd0m'; script-src *")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.Order)
	fmt.Println(p.Directives["script-src"])
	fmt.Println(p.Duplicates)
	// Output:
	// [default-src script-src]
	// ['self' 'nonce-r4nd0m']
	// [script-src]
}

func ExampleParseHSTS() {
	h, err := webscan.ParseHSTS([]string{"max-age=63072000; includeSubDomains; preload"})
	fmt.Println(h.MaxAge, h.IncludeSubDomains, h.Preload, err)
	_, err = webscan.ParseHSTS([]string{"max-age=1", "max-age=2"})
	fmt.Println(err)
	// Output:
	// 63072000 true true <nil>
	// header sent more than once
}

func ExampleWriteText() {
	rep := &webscan.Report{
		Status: webscan.StatusCompleted, ScanID: "0123456789abcdef0123456789abcdef", Target: "https://example.com/",
		StartedAt: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC),
		Findings: []webscan.Finding{{ID: "hsts_missing", Category: webscan.CategoryHeaders, Severity: webscan.SeverityMedium,
			Title: "No Strict-Transport-Security", Recommendation: "Send Strict-Transport-Security: max-age=63072000; includeSubDomains."}},
		Result: webscan.Result{Grade: "B", Score: 75, AlgorithmVersion: webscan.AlgorithmVersion,
			Reasons: []webscan.GradeReason{{Source: "headers", Grade: "B", Applied: true, Reason: "header score 75 (observatory-like/1)"}}},
	}
	// Print only the head of the report.
	var buf = &limitedWriter{max: 9}
	_ = webscan.WriteText(buf, rep)
	// Output:
	// Warden website scan: https://example.com/
	// Grade: B   (header score 75, observatory-like/1)
	// Scan 0123456789abcdef0123456789abcdef at 2026-11-30 12:00:00Z, 0 ms
	//
	// Why this grade:
	//   - headers  B   header score 75 (observatory-like/1)  <- sets the grade
	//
	// What is wrong (1 findings):
	//   [MEDIUM] headers: No Strict-Transport-Security
}

// limitedWriter prints the first max lines it receives to stdout.
type limitedWriter struct {
	max, n int
	line   []byte
}

func (w *limitedWriter) Write(p []byte) (int, error) {
	for _, b := range p {
		if w.n >= w.max {
			break
		}
		w.line = append(w.line, b)
		if b == '\n' {
			os.Stdout.Write(w.line)
			w.line, w.n = w.line[:0], w.n+1
		}
	}
	return len(p), nil
}
