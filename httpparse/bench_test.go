package httpparse

import (
	"strings"
	"testing"
)

// A 1 MiB request: headers, cookies and a JSON body.
//
//	go test ./httpparse -run '^$' -bench . -benchmem
func BenchmarkParse(b *testing.B) {
	head := "POST /api/v1/import?batch=7&dry_run=false HTTP/1.1\r\nHost: app.example.com\r\nCookie: sid=abc; theme=dark\r\n" +
		"Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.c2ln\r\nContent-Type: application/json\r\n\r\n"
	var body strings.Builder
	body.WriteString(`{"items":[`)
	for body.Len() < MaxInput-len(head)-200 {
		body.WriteString(`{"id":12345,"name":"widget","tags":["a","b"],"price":9.99},`)
	}
	body.WriteString(`{"id":0}]}`)
	raw := head + body.String()
	measure(b, int64(len(raw)), func() error { _, err := Parse(raw); return err })
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
