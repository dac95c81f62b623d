package secretscan

import (
	"encoding/base64"
	"strings"
	"testing"
)

// TestBase64SpansMatchesNaive compares the skipping scanner with a plain
// run-by-run scan on varied inputs.
func TestBase64SpansMatchesNaive(t *testing.T) {
	payload := base64.StdEncoding.EncodeToString([]byte("export GITHUB_TOKEN=" + validGitHub))
	inputs := []string{
		payload,
		"x " + payload + " y",
		strings.Repeat("ab ", 10) + payload,
		strings.Repeat("abcdefghij", 3) + "." + payload + "\n" + payload,
		payload[:30] + " " + payload[30:],
		"CONFIG_B64=" + payload,
		"a=b==c===" + payload + "===",
		seed(t, "base64.txt"),
	}
	for _, in := range inputs {
		got := base64Spans(in, nil)
		want := naiveBase64Spans(in)
		if len(got) != len(want) {
			t.Fatalf("%q: got %d spans, want %d", in, len(got), len(want))
		}
		for i := range got {
			if got[i].start != want[i].start || got[i].end != want[i].end {
				t.Errorf("%q: span %d..%d, want %d..%d", in, got[i].start, got[i].end, want[i].start, want[i].end)
			}
		}
	}
}

func naiveBase64Spans(text string) []encodedSpan {
	var out []encodedSpan
	for i := 0; i < len(text); {
		if !b64Table[text[i]] {
			i++
			continue
		}
		j := i
		for j < len(text) && b64Table[text[j]] {
			j++
		}
		core := j - i
		for p := 0; p < 2 && j < len(text) && text[j] == '='; p++ {
			j++
		}
		if core >= minB64Run && j-i <= maxDecodeSpan {
			lower, upper, digit, _ := charClasses(text[i:j])
			if lower && upper && (digit || j-i >= 24) {
				if d, ok := decodeBase64(text[i:j]); ok {
					out = append(out, encodedSpan{i, j, d, "base64"})
				}
			}
		}
		i = j
	}
	return out
}

func FuzzBase64SpansNaive(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		got, want := base64Spans(s, nil), naiveBase64Spans(s)
		if len(got) != len(want) {
			t.Fatalf("got %d spans, want %d", len(got), len(want))
		}
		for i := range got {
			if got[i].start != want[i].start || got[i].end != want[i].end {
				t.Fatalf("span %d..%d, want %d..%d", got[i].start, got[i].end, want[i].start, want[i].end)
			}
		}
	})
}
