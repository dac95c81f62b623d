package httpparse

import (
	"os"
	"path/filepath"
	"testing"
)

func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.http")
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
	f.Add("HTTP/1.1 302 Found\nLocation: /x\n\n")
	f.Fuzz(func(t *testing.T, raw string) {
		m, err := Parse(raw)
		if err != nil {
			return
		}
		if m.Kind != "request" && m.Kind != "response" {
			t.Fatalf("kind %q", m.Kind)
		}
		if len(m.Headers) > MaxHeaders || len(m.Query) > MaxParams || len(m.Multipart) > MaxParts {
			t.Fatal("a bound was passed")
		}
		if len(m.Body) > len(raw) {
			t.Fatal("the body grew")
		}
	})
}
