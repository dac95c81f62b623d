package cli

import (
	"strings"
	"testing"
)

func TestParseByteSize(t *testing.T) {
	for in, want := range map[string]int64{
		"2048": 2048, "10MB": 10_000_000, "512KiB": 512 << 10, "4mib": 4 << 20,
		"1.5 MiB": 3 << 19, "1GB": 1_000_000_000, "64k": 64 << 10, "7B": 7,
	} {
		if got, err := parseByteSize(in); err != nil || got != want {
			t.Errorf("%q: %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"0", "-1", "-5MB", "0.1", "", "MB", "ten", "1TB", "NaN", "1e30GB"} {
		if _, err := parseByteSize(in); err == nil {
			t.Errorf("%q: accepted", in)
		}
	}
}

// --max-file-size takes units and refuses 0 and negatives with exit 2.
func TestMaxFileSizeFlag(t *testing.T) {
	for _, v := range []string{"0", "-3", "lots"} {
		_, errs, code := run(t, "", "scan", "secrets", "--state-dir", t.TempDir(), "--max-file-size", v, "-")
		if code != ExitError || !strings.Contains(errs, "max-file-size") {
			t.Errorf("%s: exit %d, %q", v, code, errs)
		}
	}
	_, _, code := run(t, "TOKEN="+ghToken+"\n", "scan", "secrets", "--state-dir", t.TempDir(), "--max-file-size", "10MB", "-")
	if code != ExitFindings {
		t.Errorf("10MB: exit %d", code)
	}
}

// FuzzParseByteSize: any accepted size is at least one byte.
func FuzzParseByteSize(f *testing.F) {
	for _, s := range []string{"10MB", "0", "-1", "1.5GiB", "1e300", "0x10", "9223372036854775807"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if n, err := parseByteSize(s); err == nil && n < 1 {
			t.Fatalf("%q: %d", s, n)
		}
	})
}
