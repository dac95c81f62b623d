package binview

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/warden-mcp/warden/binview/internal/bintest"
)

// A file cut short, losing only its trailing tables (the section headers,
// the symbol table), still opens: its segments, dynamic symbols and
// unwind data are read, the functions are found, and a warning says what
// was lost.
func TestTruncatedELFOpensPartially(t *testing.T) {
	full := bintest.Build(t, bintest.Dynamic)
	data, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	at, ok := elfSectionTableCut(data)
	if ok || at == 0 {
		t.Fatalf("the whole file: section table at %d, cut %v", at, ok)
	}
	cut := data[:len(data)*9/10]
	if _, ok := elfSectionTableCut(cut); !ok {
		t.Skip("the section table is not in the last tenth of this build")
	}
	path := filepath.Join(t.TempDir(), "cut")
	os.WriteFile(path, cut, 0o644)
	v, st := codeFunctions(t, path)
	warned := false
	for _, w := range v.Analysis().Warnings {
		warned = warned || w.Code == WarnFileTruncated
	}
	if !warned {
		t.Errorf("no %s warning: %v", WarnFileTruncated, v.Analysis().Warnings)
	}
	truth := bintest.Truth(t, full)
	s := bintest.Compare(starts(v.Functions(st, nil), nil), truth, nil)
	t.Logf("cut to %d of %d bytes: %s", len(cut), len(data), s)
	if s.Recall < 0.9 {
		t.Errorf("functions of the cut file: %s", s)
	}
	// Cut inside the headers themselves: still a clear refusal.
	if _, err := Open(context.Background(), "stub", data[:40], nil); err == nil {
		t.Error("a 40-byte ELF opened")
	}
}
