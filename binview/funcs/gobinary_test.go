package funcs

import (
	"context"
	"debug/elf"
	"debug/gosym"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/warden-mcp/warden/binview/internal/bintest"
)

// goTool returns the path of a tool of the Go distribution (compile,
// vet), or skips.
func goTool(t testing.TB, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOTOOLDIR").Output()
	if err != nil {
		t.Skip("go env GOTOOLDIR:", err)
	}
	p := filepath.Join(strings.TrimSpace(string(out)), name)
	if _, err := os.Stat(p); err != nil {
		t.Skip(err)
	}
	return p
}

// goImage builds the Image of a Go binary as a stripped file would give
// it: no symbol table, but the pclntab's function starts and ends as
// hints (what the binview loader reads with debug/gosym).
func goImage(t testing.TB, path string) *Image {
	t.Helper()
	img := elfImage(t, path)
	img.Symbols = nil
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pcln := f.Section(".gopclntab")
	text := f.Section(".text")
	if pcln == nil || text == nil {
		t.Skip("no .gopclntab")
	}
	data, err := pcln.Data()
	if err != nil {
		t.Fatal(err)
	}
	tab, err := gosym.NewTable(nil, gosym.NewLineTable(data, text.Addr))
	if err != nil {
		t.Fatal(err)
	}
	for _, fn := range tab.Funcs {
		img.Hints = append(img.Hints, Seed{Addr: fn.Entry, Name: fn.Name, Size: fn.End - fn.Entry, Source: SourcePclntab})
	}
	return img
}

func TestGoCompiler(t *testing.T) {
	path := goTool(t, "compile")
	img := goImage(t, path)
	truth := bintest.Truth(t, path)
	stages := []Stage{StageMetadata, StageDescent}
	if raceEnabled {
		stages = stages[:1] // descent decodes 2.4 M instructions
	}
	for _, stage := range stages {
		a, err := New(img, nil)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		res, err := a.Run(context.Background(), stage)
		if err != nil {
			t.Fatal(err)
		}
		elapsed := time.Since(start)
		var found []uint64
		named := 0
		for _, f := range res.Functions {
			found = append(found, f.Addr)
			if f.Name != "" {
				named++
			}
		}
		s := bintest.Compare(found, truth, nil)
		t.Logf("compile (%s): %s; %d found (%d named), %d true; %v, %d instructions; warnings %v",
			stage, s, len(found), named, len(truth), elapsed.Round(time.Millisecond), res.Instructions, res.Warnings)
		if s.F1 < 0.999 || s.Precision < 0.999 {
			t.Errorf("below floor: %s", s)
		}
	}
}
