package binview

import (
	"debug/elf"
	"debug/gosym"
	"runtime"
	"strings"
	"testing"

	"github.com/warden-mcp/warden/internal/testbin"
)

// checkGoMain checks that main.main resolves, with its source position,
// in a build of helloGo.
func checkGoMain(t *testing.T, v *View) {
	t.Helper()
	addr, ok := v.Symbol("main.main")
	if !ok {
		t.Fatalf("main.main does not resolve; %d Go functions, warnings %v", len(v.GoFunctions()), v.Warnings())
	}
	f, ok := v.GoFunctionAt(addr)
	if !ok || f.Name != "main.main" || f.Entry != addr {
		t.Fatalf("GoFunctionAt(main.main) = %+v, %v", f, ok)
	}
	if !strings.HasSuffix(f.File, "hello/main.go") || f.Line != 9 {
		t.Errorf("main.main at %s:%d, want hello/main.go:9", f.File, f.Line)
	}
	if h, ok := v.Symbol("main.helper"); !ok || h == addr {
		t.Errorf("main.helper = %#x, %v", h, ok)
	}
	if s, off, ok := v.SymbolAt(addr + 4); !ok || s.Name != "main.main" || off != 4 {
		t.Errorf("SymbolAt(main.main+4) = %s+%d, %v", s.Name, off, ok)
	}
	g := v.BuildInfo().Go
	if g == nil || g.Version != runtime.Version() || g.Path != "example.com/hello" {
		t.Errorf("Go build info = %+v", g)
	}
	if tc := v.Toolchain(); tc.Language != "go" {
		t.Errorf("toolchain = %+v", tc)
	}
	if tr := v.Triage(); tr.Counts.Symbols < tr.Counts.GoFunctions || tr.GoVersion != runtime.Version() {
		t.Errorf("triage counts %d symbols for %d Go functions, version %q", tr.Counts.Symbols, tr.Counts.GoFunctions, tr.GoVersion)
	}
}

func TestGoStrippedBinaries(t *testing.T) {
	cases := []struct {
		goos, goarch string
		format       Format
		arch         Arch
		endian       string
		ldflags      string
	}{
		{"linux", "amd64", FormatELF, ArchX86_64, "little", "-s -w"},
		{"linux", "amd64", FormatELF, ArchX86_64, "little", ""},
		{"windows", "amd64", FormatPE, ArchX86_64, "little", "-s -w"},
		{"windows", "386", FormatPE, ArchX86, "little", "-s -w"},
		{"darwin", "arm64", FormatMachO, ArchARM64, "little", "-s -w"},
		{"darwin", "amd64", FormatMachO, ArchX86_64, "little", ""},
		{"linux", "arm64", FormatELF, ArchARM64, "little", "-s -w"},
		{"linux", "s390x", FormatELF, ArchS390X, "big", "-s -w"},
		{"linux", "arm", FormatELF, ArchARM, "little", "-s -w"},
		{"linux", "riscv64", FormatELF, ArchRISCV64, "little", "-s -w"},
	}
	for _, c := range cases {
		name := "go-" + c.goos + "-" + c.goarch
		if c.ldflags != "" {
			name += "-stripped"
		}
		t.Run(name, func(t *testing.T) {
			v := openFile(t, goFixture(t, name, c.goos, c.goarch, c.ldflags), nil)
			a := v.Analysis()
			if a.Format != c.format || a.Arch != c.arch || a.Endian != c.endian {
				t.Errorf("format %s arch %s endian %s", a.Format, a.Arch, a.Endian)
			}
			if c.ldflags != "" && c.format != FormatPE && !a.Stripped {
				t.Error("a -s build is not reported stripped")
			}
			checkGoMain(t, v)
		})
	}
}

func TestGoPIE(t *testing.T) {
	prog := helloProgram("", "", "-s -w")
	prog.BuildMode = "pie"
	p := testbin.Go(t, "go-linux-amd64-pie", prog)
	v := openFile(t, p, nil)
	if v.Analysis().Kind != "pie" {
		t.Errorf("kind %s", v.Analysis().Kind)
	}
	checkGoMain(t, v)
}

// Our pclntab decoder, on a stripped binary, agrees with debug/gosym on
// the same binary before stripping: every function, entry, end, file
// and line.
func TestPclntabMatchesGosym(t *testing.T) {
	full := goFixture(t, "go-linux-amd64", "linux", "amd64", "")
	stripped := goFixture(t, "go-linux-amd64-stripped", "linux", "amd64", "-s -w")
	f, err := elf.Open(full)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pcln, err := f.Section(".gopclntab").Data()
	if err != nil {
		t.Fatal(err)
	}
	tab, err := gosym.NewTable(nil, gosym.NewLineTable(pcln, f.Section(".text").Addr))
	if err != nil {
		t.Fatal(err)
	}
	v := openFile(t, stripped, nil)
	type key struct {
		name  string
		entry uint64
	}
	got := map[key]GoFunction{}
	for _, g := range v.GoFunctions() {
		got[key{g.Name, g.Entry}] = g
	}
	if len(v.GoFunctions()) != len(tab.Funcs) {
		t.Errorf("%d functions, gosym has %d", len(v.GoFunctions()), len(tab.Funcs))
	}
	bad := 0
	for _, fn := range tab.Funcs {
		g, ok := got[key{fn.Name, fn.Entry}]
		file, line, _ := tab.PCToLine(fn.Entry)
		line = max(line, 0) // gosym says -1 for "no line", we leave it out
		if !ok || g.Entry != fn.Entry || g.End != fn.End || g.File != file || g.Line != line {
			if bad++; bad <= 5 {
				t.Errorf("%s: got %+v, gosym %#x-%#x %s:%d", fn.Name, g, fn.Entry, fn.End, file, line)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d functions differ", bad, len(tab.Funcs))
	}
}

func TestGoCompilerStripped(t *testing.T) {
	if testing.Short() {
		t.Skip("25 MB binary")
	}
	v := openFile(t, strippedCompile(t), nil)
	if !v.Analysis().Stripped {
		t.Error("not stripped")
	}
	if n := len(v.GoFunctions()); n < 10000 {
		t.Fatalf("%d Go functions", n)
	}
	for _, name := range []string{"main.main", "runtime.mallocgc", "cmd/compile/internal/ssa.(*Func).Fatalf"} {
		if _, ok := v.Symbol(name); !ok {
			t.Errorf("%s does not resolve", name)
		}
	}
	g := v.BuildInfo().Go
	if g == nil || g.Version == "" || g.Path != "cmd/compile" {
		t.Errorf("build info %+v", g)
	}
}
