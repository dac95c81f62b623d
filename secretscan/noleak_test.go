package secretscan

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

// metadataVocabulary is every string a result may legitimately print:
// rule ids, types, names, families, field names and fixed words. A
// 6-character window of a secret that also occurs here is a coincidence,
// not a leak.
func metadataVocabulary() string {
	var b strings.Builder
	for _, r := range Rules() {
		fmt.Fprintf(&b, "%s %s %s %s\n", r.ID, r.Type, r.Name, r.Family)
	}
	b.WriteString(`rule_id type family severity confidence fingerprint value_length line column offset end encoding evidence
detections text_length suppressed truncated low medium high critical none prefix keyword structure generic
checksum_valid checksum_invalid entropy decoded base64 url json quoted_printable secretscan.Detection [REDACTED]
msg level INFO time detection result Detections TextLength Suppressed Truncated`)
	return strings.ToLower(b.String())
}

// leaks returns the 6-character windows of value that occur in out and
// not in the metadata vocabulary.
func leaks(value, out, vocab string) []string {
	var found []string
	lo := strings.ToLower(out)
	for i := 0; i+6 <= len(value); i++ {
		w := value[i : i+6]
		if strings.Contains(out, w) && !strings.Contains(vocab, strings.ToLower(w)) {
			found = append(found, w)
		} else if strings.Contains(lo, strings.ToLower(w)) && !strings.Contains(vocab, strings.ToLower(w)) && strings.ContainsAny(w, "0123456789") {
			found = append(found, w)
		}
	}
	return found
}

// serializations renders a result every way a caller might print or log it.
func serializations(t *testing.T, res Result) map[string]string {
	t.Helper()
	out := map[string]string{}
	j, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	out["json"] = string(j)
	out["%v"] = fmt.Sprintf("%v", res)
	out["%+v"] = fmt.Sprintf("%+v", res)
	out["%#v"] = fmt.Sprintf("%#v", res)
	out["%s"] = fmt.Sprintf("%s", res.Detections)
	out["%q"] = fmt.Sprintf("%q", res.Detections)
	var jb, tb bytes.Buffer
	// No timestamps: their digits would match pieces of numeric values by
	// chance, and they are not the scanner's output.
	noTime := &slog.HandlerOptions{ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		if len(groups) == 0 && a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}
	jl := slog.New(slog.NewJSONHandler(&jb, noTime))
	tl := slog.New(slog.NewTextHandler(&tb, noTime))
	jl.Info("result", "result", res)
	tl.Info("result", "result", res)
	for _, d := range res.Detections {
		jl.Info("detection", "detection", d)
		tl.Info("detection", "d", d, "ptr", &d)
		out["String"] += d.String() + d.GoString()
	}
	out["slog-json"] = jb.String()
	out["slog-text"] = tb.String()
	return out
}

// TestNoSecretInOutput scans every positive example of the shared data
// sets and checks that no serialization of the result carries any
// 6-character piece of a matched value.
func TestNoSecretInOutput(t *testing.T) {
	exs := loadExamples(t)
	vocab := metadataVocabulary()
	s := New(&Options{FingerprintKey: []byte("noleak")})
	checked := 0
	for _, e := range exs {
		if e.Kind != "positive" {
			continue
		}
		res, err := s.Scan(context.Background(), e.Text)
		if err != nil {
			t.Fatal(err)
		}
		outs := serializations(t, res)
		for _, d := range res.Detections {
			v := d.secret.v
			if len(v) < 6 {
				continue
			}
			checked++
			for how, out := range outs {
				if l := leaks(v, out, vocab); len(l) > 0 {
					t.Errorf("%s: %s output of %s carries %d pieces of the value", e.RuleID, how, d.RuleID, len(l))
				}
			}
		}
	}
	if checked < 500 {
		t.Fatalf("only %d values checked", checked)
	}
	t.Logf("checked %d values in %d serializations each", checked, 9)
}

// TestLeakDetectorWorks proves the check above can fail: a value printed
// on purpose is caught.
func TestLeakDetectorWorks(t *testing.T) {
	v := "ghp_" + strings.Repeat("Ab3", 12)
	if l := leaks(v, `{"x":"`+v[10:20]+`"}`, metadataVocabulary()); len(l) == 0 {
		t.Fatal("leak not detected")
	}
}
