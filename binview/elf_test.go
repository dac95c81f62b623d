package binview

import (
	"bufio"
	"bytes"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/warden-mcp/warden/internal/testbin"
)

func readelf(t *testing.T, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("readelf"); err != nil {
		t.Skip("readelf not installed")
	}
	out, err := exec.Command("readelf", args...).Output()
	if err != nil {
		t.Fatalf("readelf %v: %v", args, err)
	}
	return string(out)
}

var reSection = regexp.MustCompile(`^\s*\[\s*[1-9]\d*\]\s+(\S+)\s+(\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s`)

type secRow struct {
	Name         string
	Addr         uint64
	Offset, Size int64
}

func hexu(s string) uint64 {
	n, err := strconv.ParseUint(s, 16, 64)
	if err != nil {
		panic(s)
	}
	return n
}

func readelfSections(t *testing.T, path string) []secRow {
	var rows []secRow
	sc := bufio.NewScanner(strings.NewReader(readelf(t, "-SW", path)))
	for sc.Scan() {
		m := reSection.FindStringSubmatch(sc.Text())
		if m == nil || m[2] == "NULL" {
			continue
		}
		rows = append(rows, secRow{m[1], hexu(m[3]), int64(hexu(m[4])), int64(hexu(m[5]))})
	}
	return rows
}

type symRow struct {
	Name  string
	Value uint64
}

// readelfSymbols returns the defined (not SECTION/FILE) symbols of one
// table, the undefined names, and the exported ones (GLOBAL/WEAK).
func readelfSymbols(t *testing.T, path, table string) (defined, undef, exported []symRow) {
	out := readelf(t, "-sW", "--dyn-syms", path)
	in := false
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "Symbol table") {
			in = strings.Contains(line, "'"+table+"'")
			continue
		}
		f := strings.Fields(line)
		if !in || len(f) < 8 || !strings.HasSuffix(f[0], ":") || f[0] == "Num:" {
			continue
		}
		name := f[7]
		if i := strings.Index(name, "@"); i >= 0 {
			name = name[:i]
		}
		if name == "" {
			continue
		}
		typ, bind, ndx := f[3], f[4], f[6]
		r := symRow{name, hexu(f[1])}
		switch {
		case ndx == "UND":
			undef = append(undef, r)
		case typ == "SECTION" || typ == "FILE":
		default:
			defined = append(defined, r)
			if bind == "GLOBAL" || bind == "WEAK" {
				exported = append(exported, r)
			}
		}
	}
	return
}

func sortRows(r []symRow) []symRow {
	sort.Slice(r, func(i, j int) bool {
		if r[i].Name != r[j].Name {
			return r[i].Name < r[j].Name
		}
		return r[i].Value < r[j].Value
	})
	return r
}

func dedupe(r []symRow) []symRow {
	r = sortRows(r)
	out := r[:0]
	for i, x := range r {
		if i == 0 || x != r[i-1] {
			out = append(out, x)
		}
	}
	return out
}

var reNeeded = regexp.MustCompile(`\(NEEDED\)\s+Shared library: \[([^\]]+)\]`)

var reJumpSlot = regexp.MustCompile(`^([0-9a-f]+)\s+[0-9a-f]+\s+R_X86_64_JUMP_SLOT\s+[0-9a-f]+\s+([^@\s]+)`)

var rePLT = regexp.MustCompile(`^([0-9a-f]+) <([^@>]+)@plt>:`)

// compareWithReadelf checks sections, symbols, imports, exports, needed
// libraries, import slots and PLT stubs against binutils.
func compareWithReadelf(t *testing.T, path string) {
	v := openFile(t, path, nil)

	// Sections.
	var got []secRow
	for _, s := range v.Sections() {
		got = append(got, secRow{s.Name, s.Addr, s.Offset, int64(s.Size)})
	}
	want := readelfSections(t, path)
	sort.Slice(got, func(i, j int) bool { return got[i].Name < got[j].Name })
	sort.Slice(want, func(i, j int) bool { return want[i].Name < want[j].Name })
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("sections differ from readelf -SW (-want +got):\n%s", d)
	}

	// Static symbols: every defined symbol readelf lists is ours.
	def, _, _ := readelfSymbols(t, path, ".symtab")
	var gotSyms []symRow
	for _, s := range v.Analysis().Symbols {
		gotSyms = append(gotSyms, symRow{s.Name, s.Addr})
	}
	gotSyms = dedupe(gotSyms)
	have := map[symRow]bool{}
	for _, s := range gotSyms {
		have[s] = true
	}
	for _, s := range dedupe(def) {
		if !have[s] {
			t.Errorf("symbol %s at %#x missing", s.Name, s.Value)
		}
	}
	// Dynamic symbols: imports and exports match exactly.
	ddef, dund, dexp := readelfSymbols(t, path, ".dynsym")
	var gotImp, gotExp []symRow
	for _, im := range v.Imports() {
		gotImp = append(gotImp, symRow{im.Name, 0})
	}
	for _, ex := range v.Exports() {
		gotExp = append(gotExp, symRow{ex.Name, ex.Addr})
	}
	if d := cmp.Diff(dedupe(dund), dedupe(gotImp)); d != "" {
		t.Errorf("imports differ from readelf --dyn-syms (-want +got):\n%s", d)
	}
	if d := cmp.Diff(dedupe(dexp), dedupe(gotExp)); d != "" {
		t.Errorf("exports differ from readelf --dyn-syms (-want +got):\n%s", d)
	}
	for _, s := range ddef {
		if !have[s] {
			t.Errorf("dynamic symbol %s at %#x missing", s.Name, s.Value)
		}
	}

	// Needed libraries.
	var needed []string
	for _, m := range reNeeded.FindAllStringSubmatch(readelf(t, "-dW", path), -1) {
		needed = append(needed, m[1])
	}
	var gotNeeded []string
	if e := v.BuildInfo().ELF; e != nil {
		gotNeeded = e.Needed
	}
	if d := cmp.Diff(needed, gotNeeded); d != "" {
		t.Errorf("needed libraries differ from readelf -d (-want +got):\n%s", d)
	}

	// Import slots from the PLT relocations.
	imps := map[string]Import{}
	for _, im := range v.Imports() {
		imps[im.Name] = im
	}
	sc := bufio.NewScanner(strings.NewReader(readelf(t, "-rW", path)))
	for sc.Scan() {
		// Jump slots of names the file defines itself (libc's
		// interposable malloc) are not imports.
		if m := reJumpSlot.FindStringSubmatch(sc.Text()); m != nil && imps[m[2]].Name != "" {
			if got := imps[m[2]].Slot; got != hexu(m[1]) {
				t.Errorf("import %s slot = %#x, readelf says %#x", m[2], got, hexu(m[1]))
			}
		}
	}
	// PLT stubs, as objdump names them.
	if _, err := exec.LookPath("objdump"); err == nil {
		out, err := exec.Command("objdump", "-d", "-j", ".plt", "-j", ".plt.sec", path).Output()
		if err == nil {
			sc := bufio.NewScanner(bytes.NewReader(out))
			n := 0
			for sc.Scan() {
				if m := rePLT.FindStringSubmatch(sc.Text()); m != nil && !strings.HasPrefix(m[2], "*ABS*") {
					n++
					if _, ok := imps[m[2]]; !ok {
						continue
					}
					if got := imps[m[2]].Stub; got != hexu(m[1]) {
						t.Errorf("import %s stub = %#x, objdump says %#x", m[2], got, hexu(m[1]))
					}
					// A name the file also defines resolves to its
					// definition; an import resolves to its stub.
					if _, isSym := v.SymbolByName(m[2]); !isSym {
						if a, ok := v.Symbol(m[2]); !ok || a != hexu(m[1]) {
							t.Errorf("Symbol(%q) = %#x, %v; want the PLT stub %#x", m[2], a, ok, hexu(m[1]))
						}
					}
				}
			}
			if strings.Contains(path, "gcc-O2") && n == 0 {
				t.Error("objdump shows no PLT stubs")
			}
		}
	}
}

func TestELFMatchesReadelf(t *testing.T) {
	cases := []struct {
		name  string
		flags []string
	}{
		{"gcc-O2", []string{"-O2"}},
		{"gcc-hardened", []string{"-O2", "-D_FORTIFY_SOURCE=2", "-fstack-protector-strong", "-fcf-protection", "-Wl,-z,relro,-z,now"}},
		{"gcc-nopie", []string{"-O0", "-no-pie", "-fno-stack-protector", "-Wl,-z,norelro", "-z", "execstack"}},
		{"gcc-static", []string{"-O2", "-static"}},
		{"gcc-stripped", []string{"-O2", "-s"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			compareWithReadelf(t, gccFixture(t, c.name, c.flags...))
		})
	}
	t.Run("libc", func(t *testing.T) {
		compareWithReadelf(t, "/lib/x86_64-linux-gnu/libc.so.6")
	})
}

func TestELFHardening(t *testing.T) {
	cases := []struct {
		name  string
		flags []string
		want  map[string]string
		kind  string
	}{
		{"gcc-hardened", []string{"-O2", "-D_FORTIFY_SOURCE=2", "-fstack-protector-strong", "-fcf-protection", "-Wl,-z,relro,-z,now"},
			map[string]string{"pie": "yes", "nx": "yes", "relro": "full", "canary": "yes", "fortify": "yes"}, "pie"},
		{"gcc-nopie", []string{"-O0", "-no-pie", "-fno-stack-protector", "-fcf-protection=none", "-Wl,-z,norelro", "-z", "execstack"},
			map[string]string{"pie": "no", "nx": "no", "relro": "no", "canary": "no", "fortify": "no", "cet_ibt": "no", "cet_shstk": "no"}, "executable"},
		{"gcc-lazy", []string{"-O0", "-Wl,-z,relro,-z,lazy"},
			map[string]string{"relro": "partial"}, "pie"},
		{"gcc-shared", []string{"-O2", "-shared", "-fPIC"},
			map[string]string{"pie": "n/a"}, "shared_library"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := openFile(t, gccFixture(t, c.name, c.flags...), nil)
			got := map[string]string{}
			for k := range c.want {
				got[k] = check(t, v, k).Status
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("hardening (-want +got):\n%s\nall: %+v", d, v.Hardening())
			}
			if v.Analysis().Kind != c.kind {
				t.Errorf("kind = %q, want %q", v.Analysis().Kind, c.kind)
			}
		})
	}
}

// CET properties survive in an object file; whether a linked program
// keeps them depends on the distribution's start files, so the check
// follows readelf -n.
func TestELFCETProperty(t *testing.T) {
	for _, name := range []string{"gcc-cet-obj", "gcc-hardened"} {
		t.Run(name, func(t *testing.T) {
			var p string
			if name == "gcc-cet-obj" {
				p = gccFixture(t, name, "-c", "-O2", "-fcf-protection=full")
			} else {
				p = gccFixture(t, name, "-O2", "-D_FORTIFY_SOURCE=2", "-fstack-protector-strong", "-fcf-protection", "-Wl,-z,relro,-z,now")
			}
			notes := readelf(t, "-nW", p)
			v := openFile(t, p, nil)
			wantIBT, wantSHSTK := "no", "no"
			for _, line := range strings.Split(notes, "\n") {
				if strings.Contains(line, "x86 feature:") {
					if strings.Contains(line, "IBT") {
						wantIBT = "yes"
					}
					if strings.Contains(line, "SHSTK") {
						wantSHSTK = "yes"
					}
				}
			}
			if name == "gcc-cet-obj" && wantIBT != "yes" {
				t.Fatalf("gcc -fcf-protection=full made no IBT note:\n%s", notes)
			}
			if got := check(t, v, "cet_ibt").Status; got != wantIBT {
				t.Errorf("cet_ibt = %s, readelf says %s", got, wantIBT)
			}
			if got := check(t, v, "cet_shstk").Status; got != wantSHSTK {
				t.Errorf("cet_shstk = %s, readelf says %s", got, wantSHSTK)
			}
		})
	}
}

func TestELFFacts(t *testing.T) {
	v := openFile(t, gccFixture(t, "gcc-O2", "-O2"), nil)
	a := v.Analysis()
	if a.Format != FormatELF || a.Arch != ArchX86_64 || a.Bits != 64 || a.Endian != "little" {
		t.Errorf("format %s arch %s bits %d endian %s", a.Format, a.Arch, a.Bits, a.Endian)
	}
	e := v.BuildInfo().ELF
	if e == nil || len(e.BuildID) != 40 || e.Interpreter == "" || len(e.Comment) == 0 || !strings.Contains(e.Comment[0], "GCC") {
		t.Errorf("ELF build info = %+v", e)
	}
	if tc := v.Toolchain(); tc.Language != "c" {
		t.Errorf("toolchain = %+v", tc)
	}
	main, ok := v.Symbol("main")
	if !ok || main == 0 {
		t.Fatal("main does not resolve")
	}
	if s, off, ok := v.SymbolAt(main + 1); !ok || s.Name != "main" || off != 1 {
		t.Errorf("SymbolAt(main+1) = %s+%d, %v", s.Name, off, ok)
	}
	if a.Entry == 0 || len(a.Entries) == 0 || a.Entries[0].Addr != a.Entry {
		t.Errorf("entry %#x entries %+v", a.Entry, a.Entries)
	}
	if a.Hashes.SHA256 == "" || len(a.Hashes.MD5) != 32 || len(a.Hashes.SHA1) != 40 {
		t.Errorf("hashes %+v", a.Hashes)
	}
	if a.Stripped {
		t.Error("stripped")
	}
	if !openFile(t, gccFixture(t, "gcc-stripped", "-O2", "-s"), nil).Analysis().Stripped {
		t.Error("gcc -s is not stripped")
	}
}

func TestELF32Object(t *testing.T) {
	// No headers: a 32-bit libc may not be installed; without gcc's
	// 32-bit support the test skips.
	p, err := testbin.TryC(t, "gcc-m32-obj", testbin.CProgram{File: "add.c",
		Source: "int counter = 42;\nextern int ext(int);\nint add_numbers(int a, int b) { return ext(a) + b + counter; }\n",
		Flags:  []string{"-m32", "-c", "-O2"}})
	if err != nil {
		t.Skipf("gcc -m32: %v", err)
	}
	v := openFile(t, p, nil)
	a := v.Analysis()
	if a.Bits != 32 || a.Arch != ArchX86 || a.Kind != "object" {
		t.Errorf("bits %d arch %s kind %s", a.Bits, a.Arch, a.Kind)
	}
	if _, ok := v.SymbolByName("add_numbers"); !ok {
		t.Error("add_numbers missing from an object's symbols")
	}
	if len(a.Relocations) == 0 {
		t.Error("no relocations in an object file")
	}
}

func TestELFStdlibTestdata(t *testing.T) {
	cases := []struct {
		file string
		arch Arch
		bits int
		bo   string
	}{
		{"gcc-386-freebsd-exec", ArchX86, 32, "little"},
		{"gcc-amd64-linux-exec", ArchX86_64, 64, "little"},
		{"gcc-riscv64-linux-exec", ArchRISCV64, 64, "little"},
		{"go-relocation-test-gcc482-aarch64.obj", ArchARM64, 64, "little"},
		{"go-relocation-test-gcc482-ppc64le.obj", ArchPPC64, 64, "little"},
		{"go-relocation-test-gcc531-s390x.obj", ArchS390X, 64, "big"},
		{"go-relocation-test-gcc492-arm.obj", ArchARM, 32, "little"},
		{"go-relocation-test-gcc492-mips64.obj", ArchUnknown, 64, "big"},
		{"compressed-64.obj", ArchX86_64, 64, "little"},
		{"zdebug-test-gcc484-x86-64.obj", ArchX86_64, 64, "little"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			v := openFile(t, stdlibTestdata(t, "elf", c.file), nil)
			a := v.Analysis()
			if a.Arch != c.arch || a.Bits != c.bits || a.Endian != c.bo {
				t.Errorf("arch %s bits %d endian %s, want %s %d %s", a.Arch, a.Bits, a.Endian, c.arch, c.bits, c.bo)
			}
			for _, s := range a.Sections {
				if s.Compressed {
					if _, err := v.SectionData(s.Name); err != nil {
						t.Errorf("compressed section %s: %v", s.Name, err)
					}
				}
			}
		})
	}
}
