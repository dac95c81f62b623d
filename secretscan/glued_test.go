package secretscan

import (
	"context"
	"testing"
)

// Glued takes a match of a rule with a checksum where a letter or digit
// is glued to its end; the default scanner does not, and neither does
// Glued for a rule without a check. Both give the same fingerprint.
func TestGluedScanner(t *testing.T) {
	const tok = "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"
	s := New(&Options{FingerprintKey: []byte("k")})
	g := s.Glued()
	scan := func(sc *Scanner, text string) []Detection {
		t.Helper()
		res, err := sc.Scan(context.Background(), text)
		if err != nil {
			t.Fatal(err)
		}
		return res.Detections
	}
	for _, text := range []string{tok + "UH", tok + "9", "x " + tok + "abc"} {
		if d := scan(s, text); len(d) != 0 {
			t.Errorf("default: %q: %+v", text, d)
		}
		d := scan(g, text)
		if len(d) != 1 || d[0].Type != "github_personal_access_token" || d[0].End-d[0].Offset != len(tok) {
			t.Errorf("glued: %q: %+v", text, d)
		}
	}
	alone, glued := scan(s, tok), scan(g, tok+"UH")
	if len(alone) != 1 || len(glued) != 1 || alone[0].Fingerprint != glued[0].Fingerprint {
		t.Errorf("fingerprints differ: %+v %+v", alone, glued)
	}
	// A rule without a checksum keeps the word boundary: an identifier
	// that starts like a Docker Hub token is no token.
	for _, text := range []string{"dckr_pat_expiry_days_in_the_config_file_x", "glpat-abcdefghijklmnopqrstXYZ"} {
		if d := scan(g, text+"Zq9"); len(d) != 0 && d[0].End == len(text) {
			t.Errorf("glued: %q: %+v", text, d)
		}
	}
	// A checksum that fails is no token, glued or not.
	bad := tok[:len(tok)-1] + "y"
	if d := scan(g, bad+"UH"); len(d) != 0 {
		t.Errorf("glued: a bad checksum: %+v", d)
	}
}

// On the shared example sets, Glued finds what the default scanner finds
// and nothing more on any negative: its precision is the scanner's. The
// positives it adds, if any, are logged.
func TestGluedKeepsPrecision(t *testing.T) {
	s := New(&Options{FingerprintKey: []byte("k")})
	g := s.Glued()
	neg, more := 0, 0
	for _, e := range loadExamples(t) {
		a, err := s.Scan(context.Background(), e.Text)
		if err != nil {
			t.Fatal(err)
		}
		b, err := g.Scan(context.Background(), e.Text)
		if err != nil {
			t.Fatal(err)
		}
		if e.Kind == "negative" {
			neg++
			if len(b.Detections) > len(a.Detections) {
				t.Errorf("%s: Glued finds %d, the default %d", e.RuleID, len(b.Detections), len(a.Detections))
			}
		} else if len(b.Detections) > len(a.Detections) {
			more++
		}
	}
	t.Logf("%d negatives, none noisier; %d positives with more detections", neg, more)
}
