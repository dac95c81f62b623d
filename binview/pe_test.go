package binview

import (
	"debug/pe"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The PE sections agree with debug/pe, an independent parser.
func TestPESectionsMatchDebugPE(t *testing.T) {
	for _, p := range []string{
		goFixture(t, "go-windows-amd64-stripped", "windows", "amd64", "-s -w"),
		stdlibTestdata(t, "pe", "gcc-amd64-mingw-exec"),
		stdlibTestdata(t, "pe", "gcc-386-mingw-exec"),
	} {
		f, err := pe.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		var base uint64
		switch oh := f.OptionalHeader.(type) {
		case *pe.OptionalHeader64:
			base = oh.ImageBase
		case *pe.OptionalHeader32:
			base = uint64(oh.ImageBase)
		}
		type row struct {
			Name       string
			Addr, Size uint64
			Offset     int64
		}
		var want, got []row
		for _, s := range f.Sections {
			size := uint64(s.VirtualSize)
			if size == 0 {
				size = uint64(s.Size)
			}
			want = append(want, row{s.Name, base + uint64(s.VirtualAddress), size, int64(s.Offset)})
		}
		f.Close()
		v := openFile(t, p, nil)
		for _, s := range v.Sections() {
			got = append(got, row{s.Name, s.Addr, s.Size, s.Offset})
		}
		sort.Slice(want, func(i, j int) bool { return want[i].Addr < want[j].Addr })
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s sections (-debug/pe +binview):\n%s", p, d)
		}
		if v.Analysis().ImageBase != base {
			t.Errorf("image base %#x, want %#x", v.Analysis().ImageBase, base)
		}
	}
}

func TestPEGoBinary(t *testing.T) {
	v := openFile(t, goFixture(t, "go-windows-amd64-stripped", "windows", "amd64", "-s -w"), nil)
	a := v.Analysis()
	if a.Kind != "executable" || a.Bits != 64 {
		t.Errorf("kind %s bits %d", a.Kind, a.Bits)
	}
	var k32 []Import
	for _, im := range a.Imports {
		if strings.EqualFold(im.Library, "kernel32.dll") {
			k32 = append(k32, im)
		}
	}
	if len(k32) == 0 {
		t.Fatalf("no kernel32.dll imports: %+v", a.Imports)
	}
	idata, ok := v.SectionAt(k32[0].Slot)
	if !ok || k32[0].Slot == 0 {
		t.Fatalf("import %s slot %#x not in a section", k32[0].Name, k32[0].Slot)
	}
	if addr, ok := v.Symbol(k32[0].Name); !ok || addr != k32[0].Slot {
		t.Errorf("Symbol(%s) = %#x, %v; want the IAT slot %#x in %s", k32[0].Name, addr, ok, k32[0].Slot, idata.Name)
	}
	if len(a.Hashes.ImpHash) != 32 {
		t.Errorf("imphash %q", a.Hashes.ImpHash)
	}
	for name, want := range map[string]string{"aslr": "yes", "dep": "yes", "high_entropy_va": "yes", "safeseh": "n/a", "signed": "no"} {
		if got := check(t, v, name).Status; got != want {
			t.Errorf("%s = %s, want %s", name, got, want)
		}
	}
	// .pdata function starts lie in .text and include main.main.
	text, ok := v.SectionByName(".text")
	if !ok {
		t.Fatal("no .text")
	}
	main, _ := v.Symbol("main.main")
	found := false
	for _, h := range v.FunctionHints() {
		if h.Source != "pdata" || h.Addr < text.Addr || h.End > text.End() || h.End <= h.Addr {
			t.Fatalf("bad hint %+v", h)
		}
		found = found || h.Addr == main
	}
	if len(v.FunctionHints()) == 0 || !found {
		t.Errorf("%d .pdata hints, main.main among them: %v", len(v.FunctionHints()), found)
	}
}

func TestPEMingw(t *testing.T) {
	v := openFile(t, stdlibTestdata(t, "pe", "gcc-amd64-mingw-exec"), nil)
	a := v.Analysis()
	if a.Stripped || a.Arch != ArchX86_64 {
		t.Errorf("stripped %v arch %s", a.Stripped, a.Arch)
	}
	if _, ok := v.SymbolByName("main"); !ok {
		t.Error("COFF symbol main missing")
	}
	libs := strings.Join(a.Libraries, ",")
	if !strings.Contains(strings.ToLower(libs), "msvcrt.dll") {
		t.Errorf("libraries %s", libs)
	}
	v32 := openFile(t, stdlibTestdata(t, "pe", "gcc-386-mingw-no-symbols-exec"), nil)
	if !v32.Analysis().Stripped || v32.Analysis().Bits != 32 {
		t.Errorf("no-symbols exe: stripped %v bits %d", v32.Analysis().Stripped, v32.Analysis().Bits)
	}
	if c := check(t, v32, "safeseh").Status; c == "n/a" && v32.Analysis().Bits == 32 && !strings.Contains(check(t, v32, "safeseh").Detail, "no SEH") {
		t.Errorf("safeseh %+v", check(t, v32, "safeseh"))
	}
}
