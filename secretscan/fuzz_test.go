package secretscan

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"
)

// addSeeds adds every file of testdata/seeds to the fuzz corpus.
func addSeeds(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "seeds", "*"))
	if err != nil || len(files) == 0 {
		f.Fatal("no seeds in testdata/seeds")
	}
	sort.Strings(files)
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
}

var fuzzScanner = New(&Options{FingerprintKey: []byte("fuzz")})

// FuzzScan checks the engine's invariants on arbitrary text: no panic,
// spans inside the text, sorted output, positions consistent with spans.
func FuzzScan(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, text string) {
		res, err := fuzzScanner.Scan(context.Background(), text)
		if err != nil {
			t.Fatal(err)
		}
		if res.TextLength != utf8.RuneCountInString(text) {
			t.Fatalf("TextLength %d", res.TextLength)
		}
		for i, d := range res.Detections {
			if d.Offset < 0 || d.End > len(text) || d.Offset >= d.End {
				t.Fatalf("span %d..%d of %d", d.Offset, d.End, len(text))
			}
			if i > 0 && d.Offset < res.Detections[i-1].Offset {
				t.Fatal("unsorted")
			}
			if want := strings.Count(text[:d.Offset], "\n") + 1; d.Line != want {
				t.Fatalf("line %d want %d", d.Line, want)
			}
			if d.Column < 1 || d.Confidence <= 0 || d.Confidence > 1 || d.ValueLength < 1 {
				t.Fatalf("bad detection %v", d)
			}
		}
	})
}

func FuzzDecodeBase64(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		if d, ok := decodeBase64(s); ok && len(d) > len(s) {
			t.Fatalf("decoded longer than input")
		}
		for _, sp := range base64Spans(s, nil) {
			if sp.start < 0 || sp.end > len(s) || sp.start >= sp.end {
				t.Fatalf("span %d..%d", sp.start, sp.end)
			}
		}
	})
}

func FuzzDecodeURL(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		if d, ok := decodeURL(s); ok && len(d) > len(s) {
			t.Fatalf("decoded longer than input")
		}
		for _, sp := range urlSpans(s, nil) {
			if sp.start < 0 || sp.end > len(s) || sp.start >= sp.end {
				t.Fatalf("span %d..%d", sp.start, sp.end)
			}
		}
	})
}

func FuzzDecodeJSONString(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		decodeJSONString(s)
		for _, sp := range jsonSpans(s, nil) {
			if sp.start < 0 || sp.end > len(s) || sp.start >= sp.end || s[sp.start] != '"' {
				t.Fatalf("span %d..%d", sp.start, sp.end)
			}
		}
	})
}

func FuzzDecodeQuotedPrintable(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		if d, ok := decodeQP(s); ok && len(d) > len(s) {
			t.Fatalf("decoded longer than input")
		}
		for _, sp := range qpSpans(s, nil) {
			if sp.start < 0 || sp.end > len(s) || sp.start > sp.end {
				t.Fatalf("span %d..%d", sp.start, sp.end)
			}
		}
	})
}

func FuzzExtractAssignment(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		for i := 0; i+3 <= len(s); i++ {
			if strings.EqualFold(s[i:i+3], "key") {
				a, ok := extractAssignment(s, i, i+3)
				if ok && (a.valStart < 0 || a.valEnd > len(s) || a.valStart > a.valEnd || a.nameStart > a.nameEnd) {
					t.Fatalf("bad assignment %+v", a)
				}
			}
		}
	})
}
