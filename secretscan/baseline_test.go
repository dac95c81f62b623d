package secretscan

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestWriteBaselineEmpty: a baseline of no findings lists no entries as an
// empty array, which ReadBaseline reads back.
func TestWriteBaselineEmpty(t *testing.T) {
	var b bytes.Buffer
	if err := WriteBaseline(&b, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"entries": []`) {
		t.Errorf("baseline %s, want an empty array", b.String())
	}
	bl, err := ReadBaseline(&b)
	if err != nil || bl.Len() != 0 || !bl.Portable() {
		t.Errorf("read back: %v, %v", bl, err)
	}
}

// A baseline written by one scanner suppresses the same findings in a
// scanner with another fingerprint key (another machine), holds no value,
// and counts what it matched.
func TestBaselineIsPortable(t *testing.T) {
	const github = "ghp_" + "R4nd0mT0kenValue1234567890abcdefABCD"
	text := "token = \"" + github + "\"\npassword = \"Tr0ub4dor&3-horse-battery\"\n"
	a := New(&Options{FingerprintKey: []byte("machine-a-key")})
	ra, err := a.Scan(context.Background(), text)
	if err != nil || len(ra.Detections) < 2 {
		t.Fatalf("first scan: %v %v", ra.Detections, err)
	}
	var buf bytes.Buffer
	if err := WriteBaseline(&buf, ra.Detections); err != nil {
		t.Fatal(err)
	}
	file := buf.String()
	for _, v := range []string{github, "Tr0ub4dor&3-horse-battery", ra.Detections[0].Fingerprint} {
		if strings.Contains(file, v) {
			t.Fatalf("the baseline holds %q", v[:6])
		}
	}
	if !strings.Contains(file, `"digest": "h`) || !strings.Contains(file, `"digest": "a`) {
		t.Errorf("want an HMAC entry for the prefixed token and a PBKDF2 one for the password: %s", file)
	}
	bl, err := ReadBaseline(strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	b := New(&Options{FingerprintKey: []byte("machine-b-key"), Baseline: bl})
	rb, err := b.Scan(context.Background(), text)
	if err != nil {
		t.Fatal(err)
	}
	if len(rb.Detections) != 0 || rb.Suppressed != len(ra.Detections) {
		t.Errorf("on another machine: %d detections, %d suppressed, want 0 and %d", len(rb.Detections), rb.Suppressed, len(ra.Detections))
	}
	if bl.Matched() != bl.Len() {
		t.Errorf("matched %d of %d entries", bl.Matched(), bl.Len())
	}
	// A changed value is not suppressed.
	rc, _ := b.Scan(context.Background(), strings.Replace(text, "ABCD", "ABCE", 1))
	if len(rc.Detections) != 1 {
		t.Errorf("a changed token: %d detections, want 1", len(rc.Detections))
	}
}

func TestReadBaselineRefusesMalformed(t *testing.T) {
	for _, in := range []string{
		`{"version":"keysweep-baseline/2","key":"short","entries":[]}`,
		`{"version":"keysweep-baseline/2","key":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","entries":[{"rule_id":"x","digest":"zz"}]}`,
		`{"version":"keysweep-baseline/1","fingerprints":["nope"]}`,
		`{"version":"keysweep-baseline/9"}`,
		`not json`,
	} {
		if _, err := ReadBaseline(strings.NewReader(in)); err == nil {
			t.Errorf("accepted %s", in)
		}
	}
	// Version 1 (one machine's fingerprints) is still read.
	s := New(&Options{FingerprintKey: []byte("k")})
	fp := s.Fingerprint("value")
	if b, err := ReadBaseline(strings.NewReader(`{"version":"keysweep-baseline/1","fingerprints":["` + fp + `"]}`)); err != nil || b.Len() != 1 || b.Portable() {
		t.Errorf("version 1: %v %v", b, err)
	}
}
