package httpparse

import (
	"strings"
	"testing"

	"github.com/warden-mcp/warden/internal/benchcpu"
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
	benchcpu.Measure(b, int64(len(raw)), func() error { _, err := Parse(raw); return err })
}
