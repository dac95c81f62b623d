package funcs

import (
	"context"
	"debug/pe"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-mcp/warden/binview/internal/bintest"
)

// peImage builds an Image from a PE file: sections as regions, the entry
// point, and the .pdata RUNTIME_FUNCTION entries as hints.
func peImage(t *testing.T, path string) (*Image, []uint64) {
	t.Helper()
	f, err := pe.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	oh, ok := f.OptionalHeader.(*pe.OptionalHeader64)
	if !ok {
		t.Skip("not PE32+")
	}
	base := oh.ImageBase
	img := &Image{Arch: "x86-64", Base: base, Entries: []uint64{base + uint64(oh.AddressOfEntryPoint)}}
	for _, s := range f.Sections {
		d, err := s.Data()
		if err != nil {
			t.Fatal(err)
		}
		if uint32(len(d)) > s.VirtualSize && s.VirtualSize > 0 {
			d = d[:s.VirtualSize]
		}
		img.Regions = append(img.Regions, Region{Name: s.Name, Addr: base + uint64(s.VirtualAddress), Data: d,
			Exec: s.Characteristics&pe.IMAGE_SCN_MEM_EXECUTE != 0})
		if s.Name == ".pdata" {
			for off := 0; off+12 <= len(d); off += 12 {
				begin := binary.LittleEndian.Uint32(d[off:])
				end := binary.LittleEndian.Uint32(d[off+4:])
				if begin == 0 || end <= begin {
					continue
				}
				img.Hints = append(img.Hints, Seed{Addr: base + uint64(begin), Size: uint64(end - begin), Source: SourcePdata})
			}
		}
	}
	// Truth: COFF function symbols (type 0x20) in executable sections.
	var truth []uint64
	for _, s := range f.Symbols {
		if s.Type != 0x20 || s.SectionNumber <= 0 || int(s.SectionNumber) > len(f.Sections) {
			continue
		}
		sec := f.Sections[s.SectionNumber-1]
		if sec.Characteristics&pe.IMAGE_SCN_MEM_EXECUTE == 0 {
			continue
		}
		truth = append(truth, base+uint64(sec.VirtualAddress)+uint64(s.Value))
	}
	return img, truth
}

// TestPdataPrecision: .pdata entries are exact starts, so the functions
// they give have precision 1; recursive descent fills in the rest.
func TestPdataPrecision(t *testing.T) {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skip("go env GOROOT:", err)
	}
	path := filepath.Join(strings.TrimSpace(string(goroot)), "src", "debug", "pe", "testdata", "gcc-amd64-mingw-exec")
	if _, err := os.Stat(path); err != nil {
		t.Skip(err)
	}
	img, truth := peImage(t, path)
	if len(img.Hints) == 0 || len(truth) == 0 {
		t.Fatalf("%d pdata entries, %d function symbols", len(img.Hints), len(truth))
	}
	only := *img
	only.Entries = nil
	a, err := New(&only, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(context.Background(), StageMetadata)
	if err != nil {
		t.Fatal(err)
	}
	var found []uint64
	for _, f := range res.Functions {
		found = append(found, f.Addr)
	}
	s := bintest.Compare(found, truth, nil)
	t.Logf(".pdata alone: %s", s)
	if s.Precision != 1 {
		t.Errorf("pdata precision %.4f, want 1", s.Precision)
	}
	a, _ = New(img, nil)
	res, _ = a.Run(context.Background(), StageDescent)
	found = found[:0]
	for _, f := range res.Functions {
		found = append(found, f.Addr)
	}
	d := bintest.Compare(found, truth, nil)
	t.Logf(".pdata + entry + descent: %s", d)
	if d.Recall < s.Recall || d.Precision < 0.95 {
		t.Errorf("descent lost ground: %s", d)
	}
}
