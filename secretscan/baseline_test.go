package secretscan

import (
	"bytes"
	"strings"
	"testing"
)

// TestWriteBaselineEmpty: a baseline of no findings lists no fingerprints
// as an empty array, which ReadBaseline reads back.
func TestWriteBaselineEmpty(t *testing.T) {
	var b bytes.Buffer
	if err := WriteBaseline(&b, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"fingerprints": []`) {
		t.Errorf("baseline %s, want an empty array", b.String())
	}
	bl, err := ReadBaseline(&b)
	if err != nil || bl.Len() != 0 {
		t.Errorf("read back: %v, %v", bl, err)
	}
}
