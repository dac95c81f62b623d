package mcp

import (
	"strings"
	"testing"
)

// BenchmarkIDScan measures the scan of an oversized request's 4 MiB
// line, id last, as the TypeScript SDK writes it: a plain text argument,
// and one with a backslash escape every four bytes (the scan's slow path).
func BenchmarkIDScan(b *testing.B) {
	for _, c := range []struct{ name, text string }{
		{"plain", strings.Repeat("x", 4<<20)},
		{"escapes", strings.Repeat(`x\"y`, 1<<20)},
	} {
		line := []byte(`{"method":"tools/call","params":{"name":"t","arguments":{"text":"` + c.text + `"}},"jsonrpc":"2.0","id":7}`)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			b.ReportAllocs()
			for b.Loop() {
				s := &idScan{}
				for i := 0; i < len(line); i += 64 << 10 {
					s.feed(line[i:min(i+64<<10, len(line))])
				}
				if _, ok := s.requestID(); !ok {
					b.Fatal("no id")
				}
			}
		})
	}
}
