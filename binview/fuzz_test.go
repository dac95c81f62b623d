package binview

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/warden-mcp/warden/errcode"
)

// addSeeds adds every file of testdata/seeds/dir.
func addSeeds(f *testing.F, dir string) {
	for _, b := range seedFiles(f, dir) {
		f.Add(b)
	}
}

// seedFiles reads every file of testdata/seeds/dir.
func seedFiles(f testing.TB, dir string) [][]byte {
	ents, err := os.ReadDir(filepath.Join("testdata", "seeds", dir))
	if err != nil {
		f.Fatal(err)
	}
	var out [][]byte
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("testdata", "seeds", dir, e.Name()))
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// fuzzLimits keep one fuzz input's work small.
var fuzzLimits = Options{MaxFileSize: 1 << 20, Timeout: 10 * time.Second, MaxSymbols: 4096, MaxImports: 4096,
	MaxRelocations: 4096, MaxFunctions: 4096, MaxStrings: 4096, MaxInstructions: fuzzInstructions, CodeTimeout: 10 * time.Second}

// allocBound fails when f allocates more than a fixed budget plus a
// multiple of the input: the parsers must size their work by the file,
// never by a count the file claims.
func allocBound(t *testing.T, n int, f func()) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	if got, budget := after.TotalAlloc-before.TotalAlloc, uint64(64<<20+256*n); got > budget {
		t.Fatalf("allocated %d bytes for a %d-byte input (budget %d)", got, n, budget)
	}
}

// exercise runs every View entry point an agent reaches on a view
// built from a fuzzed file.
func exercise(t *testing.T, v *View) {
	_ = v.Triage()
	for _, s := range v.Segments() {
		_, _ = v.Bytes(s.Addr, 64)
		_, _ = v.AddressInfo(s.Addr, 16)
		_, _, _ = v.SymbolAt(s.Addr + 1)
	}
	for _, s := range v.Sections() {
		_, _ = v.SectionData(s.Name)
	}
	strs, _ := v.Strings()
	for i, s := range strs {
		if i > 16 {
			break
		}
		_, _ = v.StringText(s, 64)
	}
	_ = v.NotableStrings(8)
	p, _ := ParsePattern("48 ?? 89")
	_, _, _ = v.Search(context.Background(), p, SearchOptions{Max: 8})
	_ = v.ListSymbols(Query{Text: "a", Limit: 5})
	_, _ = v.Symbol("main")
	_, _ = v.Symbol("sub_1000")
	exerciseCode(t, v)
}

// fuzzOpen analyses data under the fuzz limits, checks that an error is
// a coded one and that a success survives the snapshot round trip, and
// exercises the view.
func fuzzOpen(t *testing.T, data []byte, format Format) {
	opts := fuzzLimits
	opts.Format = format
	var a *Analysis
	var err error
	allocBound(t, len(data), func() { a, err = Analyze(context.Background(), data, &opts) })
	if err != nil {
		if errcode.CodeOf(err) == "" {
			t.Fatalf("an error without a code: %v", err)
		}
		return
	}
	enc, err := a.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	b, err := UnmarshalAnalysis(enc)
	if err != nil {
		t.Fatalf("a fresh analysis does not decode: %v (%v)", err, errors.Unwrap(err))
	}
	v, err := New("fuzz", data, b, &opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	exercise(t, v)
}

func FuzzELF(f *testing.F) {
	addSeeds(f, "elf")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzOpen(t, data, FormatELF) })
}

func FuzzPE(f *testing.F) {
	addSeeds(f, "pe")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzOpen(t, data, FormatPE) })
}

func FuzzMachO(f *testing.F) {
	addSeeds(f, "macho")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzOpen(t, data, FormatMachO) })
}

// FuzzSniff lets the magic number pick the parser.
func FuzzSniff(f *testing.F) {
	addSeeds(f, "elf")
	addSeeds(f, "macho")
	f.Add([]byte("MZ"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzOpen(t, data, "") })
}

// FuzzSnapshot feeds UnmarshalAnalysis arbitrary bytes: whatever it
// accepts must make a View that never reads out of bounds.
func FuzzSnapshot(f *testing.F) {
	for _, dir := range []string{"elf", "pe", "macho"} {
		ents, _ := os.ReadDir(filepath.Join("testdata", "seeds", dir))
		for _, e := range ents {
			data, _ := os.ReadFile(filepath.Join("testdata", "seeds", dir, e.Name()))
			if a, err := Analyze(context.Background(), data, nil); err == nil {
				enc, _ := a.MarshalBinary()
				f.Add(enc)
			}
		}
	}
	f.Fuzz(func(t *testing.T, enc []byte) {
		a, err := UnmarshalAnalysis(enc)
		if err != nil {
			if errcode.CodeOf(err) != CodeInvalidSnapshot {
				t.Fatalf("code %q", errcode.CodeOf(err))
			}
			return
		}
		if a.FileSize > 1<<20 {
			return
		}
		data := make([]byte, a.FileSize)
		for i := range data {
			data[i] = byte(i)
		}
		v, err := New("fuzz", data, a, nil)
		if err != nil {
			return
		}
		exercise(t, v)
	})
}

func FuzzSearchPattern(f *testing.F) {
	for _, s := range []string{"48 8B ?? ??", "4? 8b", "??", "e8 ?? ?? ?? ?? 90", "zz", ""} {
		f.Add(s)
	}
	data := []byte("\x48\x8b\x05\x00\x00\x00\x00\xe8\x01\x02\x03\x04\x90hello")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePattern(s)
		if err != nil {
			if errcode.CodeOf(err) != CodeInvalidPattern {
				t.Fatalf("code %q", errcode.CodeOf(err))
			}
			return
		}
		q, err := ParsePattern(p.String())
		if err != nil || q.String() != p.String() {
			t.Fatalf("%q does not round-trip: %q, %v", s, p.String(), err)
		}
		v, err := Open(context.Background(), "x", data, &Options{Format: FormatRaw, Arch: ArchX86_64})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := v.Search(context.Background(), p, SearchOptions{}); err != nil {
			t.Fatal(err)
		}
	})
}

// minimalPclntab builds a Go 1.20 function table with two functions,
// for seeds and tests.
func minimalPclntab() []byte {
	bo := binary.LittleEndian
	names := []byte("main.main\x00main.f\x00")
	files := []byte("main.go\x00")
	cutab := make([]byte, 4) // file 0 of CU 0 is at filetab offset 0
	// pc-value tables: value delta then pc delta.
	pctab := []byte{0, 0x14, 0x10, 0, 0x02, 0x10, 0}
	const hdr = 8 + 8*8
	funcnameOff := hdr
	cuOff := funcnameOff + len(names)
	fileOff := cuOff + len(cutab)
	pcOff := fileOff + len(files)
	ftabOff := pcOff + len(pctab)
	out := make([]byte, ftabOff)
	bo.PutUint32(out, pclnGo120)
	out[6], out[7] = 1, 8
	for i, v := range []uint64{2, 1, 0, uint64(funcnameOff), uint64(cuOff), uint64(fileOff), uint64(pcOff), uint64(ftabOff)} {
		bo.PutUint64(out[8+8*i:], v)
	}
	copy(out[funcnameOff:], names)
	copy(out[cuOff:], cutab)
	copy(out[fileOff:], files)
	copy(out[pcOff:], pctab)
	// functab: 3 entries of (entryoff, funcoff), then two _func records.
	ft := make([]byte, 3*8)
	funcs := make([]byte, 2*44)
	for i, f := range []struct{ entry, name, pcfile, pcln uint32 }{{0, 0, 4, 1}, {0x20, 10, 4, 1}} {
		bo.PutUint32(ft[8*i:], f.entry)
		bo.PutUint32(ft[8*i+4:], uint32(len(ft)+44*i))
		r := funcs[44*i:]
		bo.PutUint32(r, f.entry)
		bo.PutUint32(r[4:], f.name)
		bo.PutUint32(r[20:], f.pcfile)
		bo.PutUint32(r[24:], f.pcln)
	}
	bo.PutUint32(ft[16:], 0x40)
	return append(append(out, ft...), funcs...)
}

func TestMinimalPclntab(t *testing.T) {
	tab, err := parsePclntab(minimalPclntab())
	if err != nil {
		t.Fatal(err)
	}
	fns, cut := tab.functions(0x1000, 10, nil)
	if cut || len(fns) != 2 {
		t.Fatalf("%+v", fns)
	}
	want := []GoFunction{{Name: "main.main", Entry: 0x1000, End: 0x1020, File: "main.go", Line: 9}, {Name: "main.f", Entry: 0x1020, End: 0x1040, File: "main.go", Line: 9}}
	for i := range want {
		if fns[i] != want[i] {
			t.Errorf("function %d = %+v, want %+v", i, fns[i], want[i])
		}
	}
}

func FuzzPclntab(f *testing.F) {
	f.Add(minimalPclntab())
	f.Fuzz(func(t *testing.T, data []byte) {
		allocBound(t, len(data), func() {
			tab, err := parsePclntab(data)
			if err != nil {
				return
			}
			_, _ = tab.functions(0x1000, 1<<12, nil)
		})
	})
}
