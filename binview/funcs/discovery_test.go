package funcs

import (
	"context"
	"debug/elf"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/warden-mcp/warden/binview/internal/bintest"
)

// libcDebug returns the path of libc's detached debug file (from
// libc6-dbg), or "" when it is not installed.
func libcDebug(libc string) string {
	f, err := elf.Open(libc)
	if err != nil {
		return ""
	}
	defer f.Close()
	s := f.Section(".note.gnu.build-id")
	if s == nil {
		return ""
	}
	d, err := s.Data()
	if err != nil || len(d) < 16+2 {
		return ""
	}
	id := fmt.Sprintf("%x", d[16:])
	p := "/usr/lib/debug/.build-id/" + id[:2] + "/" + id[2:] + ".debug"
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

const libcPath = "/lib/x86_64-linux-gnu/libc.so.6"

// TestDiscoveryF1 measures function discovery against the symbol tables
// of unstripped builds, on stripped copies.
func TestDiscoveryF1(t *testing.T) {
	cases := []struct {
		name          string
		analysed      func(t *testing.T) string
		truth         func(t *testing.T) string
		stage         Stage
		floorF1       float64
		floorPrecison float64
	}{
		{"gcc -O2 stripped", func(t *testing.T) string { return bintest.Build(t, bintest.DynamicStrip) },
			func(t *testing.T) string { return bintest.Build(t, bintest.Dynamic) }, StageDescent, 0.995, 0.99},
		{"gcc -O2 stripped, no .eh_frame", func(t *testing.T) string { return bintest.Build(t, bintest.DynamicNoEH) },
			func(t *testing.T) string { return bintest.Build(t, bintest.Dynamic) }, StageDescent, 0.98, 0.98},
		{"gcc -O2 -fcf-protection=none stripped, no .eh_frame", func(t *testing.T) string { return bintest.Build(t, bintest.NoCETNoEH) },
			func(t *testing.T) string { return bintest.Build(t, bintest.NoCET) }, StageDescent, 0.98, 0.98},
		{"gcc -O2 -static -fcf-protection=none stripped, no .eh_frame", func(t *testing.T) string { return bintest.Build(t, bintest.StaticNoCETNoEH) },
			func(t *testing.T) string { return bintest.Build(t, bintest.StaticNoCET) }, StageDescent, 0.86, 0.9},
		{"gcc -O2 -static stripped", func(t *testing.T) string { return bintest.Build(t, bintest.StaticStrip) },
			func(t *testing.T) string { return bintest.Build(t, bintest.Static) }, StageDescent, 0.995, 0.99},
		{"libc.so.6 metadata", func(t *testing.T) string { return libcPath },
			func(t *testing.T) string { return libcDebug(libcPath) }, StageMetadata, 0.995, 0.995},
		{"libc.so.6 descent", func(t *testing.T) string { return libcPath },
			func(t *testing.T) string { return libcDebug(libcPath) }, StageDescent, 0.995, 0.995},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			truthPath := c.truth(t)
			if truthPath == "" {
				t.Skip("no truth (libc6-dbg not installed)")
			}
			path := c.analysed(t)
			if _, err := os.Stat(path); err != nil {
				t.Skip(err)
			}
			img := elfImage(t, path)
			truth := bintest.Truth(t, truthPath)
			a, err := New(img, nil)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			res, err := a.Run(context.Background(), c.stage)
			if err != nil {
				t.Fatal(err)
			}
			elapsed := time.Since(start)
			var found []uint64
			bySrc := map[Source]int{}
			for _, f := range res.Functions {
				found = append(found, f.Addr)
				bySrc[f.Source]++
			}
			s := bintest.Compare(found, truth, nil)
			t.Logf("%s (%s): %s; %d found, %d true; %v, %d instructions; sources %v; warnings %v",
				c.name, c.stage, s, len(found), len(truth), elapsed.Round(time.Millisecond), res.Instructions, bySrc, res.Warnings)
			logMisses(t, found, truth, a)
			if s.F1 < c.floorF1 || s.Precision < c.floorPrecison {
				t.Errorf("below floor: F1 %.4f (≥ %.3f), precision %.4f (≥ %.3f)", s.F1, c.floorF1, s.Precision, c.floorPrecison)
			}
		})
	}
}

func logMisses(t *testing.T, found, truth []uint64, a *Analyzer) {
	want := map[uint64]bool{}
	for _, x := range truth {
		want[x] = true
	}
	got := map[uint64]bool{}
	var fp []string
	for _, x := range found {
		got[x] = true
		if !want[x] && len(fp) < 8 {
			f := a.fns[x]
			fp = append(fp, fmt.Sprintf("%#x(%s)", x, f.Source))
		}
	}
	var fn []string
	for _, x := range truth {
		if !got[x] && len(fn) < 8 {
			fn = append(fn, fmt.Sprintf("%#x", x))
		}
	}
	if len(fp)+len(fn) > 0 {
		t.Logf("  false starts: %s; missed: %s", strings.Join(fp, " "), strings.Join(fn, " "))
	}
}
