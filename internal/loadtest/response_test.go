package loadtest

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func readOne(raw []byte) (status int, body []byte, err error) {
	w := &worker{br: bufio.NewReader(bytes.NewReader(raw))}
	status, err = w.readResponse()
	return status, w.body, err
}

func TestReadResponse(t *testing.T) {
	tests := []struct {
		file   string
		status int
		body   string
		ok     bool
	}{
		{"length.txt", 200, `{"pong":1}`, true},
		{"chunked.txt", 200, `{"pong":1}`, true},
		{"empty.txt", 202, ``, true},
		{"nocontent.txt", 204, ``, true},
		{"huge.txt", 0, ``, false},
		{"close.txt", 200, `{}`, false}, // read, but the connection cannot be reused
	}
	for _, tt := range tests {
		raw, err := os.ReadFile(filepath.Join("testdata", "responses", tt.file))
		if err != nil {
			t.Fatal(err)
		}
		status, body, err := readOne(raw)
		if (err == nil) != tt.ok || status != tt.status || string(body) != tt.body {
			t.Errorf("%s: status %d, body %q, err %v; want %d, %q, ok %v", tt.file, status, body, err, tt.status, tt.body, tt.ok)
		}
	}
}

// FuzzReadResponse feeds arbitrary bytes to the response reader: it must
// not panic and must never hold more than maxBody bytes of body.
func FuzzReadResponse(f *testing.F) {
	seeds, err := filepath.Glob(filepath.Join("testdata", "responses", "*.txt"))
	if err != nil || len(seeds) == 0 {
		f.Fatalf("no seeds: %v", err)
	}
	for _, p := range seeds {
		raw, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		status, body, err := readOne(raw)
		if len(body) > maxBody {
			t.Fatalf("body of %d bytes exceeds the cap", len(body))
		}
		if err == nil && (status < 100 || status > 999) {
			t.Fatalf("accepted status %d", status)
		}
	})
}

// FuzzParseStatCPU checks the /proc stat parser never panics and never
// reports negative time.
func FuzzParseStatCPU(f *testing.F) {
	f.Add([]byte("1234 (wardenserver) S 1 2 3 4 5 6 7 8 9 10 150 25 0 0 20 0 3 0"))
	f.Add([]byte("1 (a) b)) R 1 2 3 4 5 6 7 8 9 10 1 2"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		d, err := parseStatCPU(raw)
		if err == nil && d < 0 {
			t.Fatalf("negative CPU time %v", d)
		}
	})
}
