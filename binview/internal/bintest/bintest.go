// Package bintest builds the binaries the binview analysis tests measure
// against: a generated C program compiled by gcc at test time (dynamic,
// static, stripped, without unwind tables), once per toolchain into the
// cache internal/testbin keeps, and the ground truth of function starts
// from the unstripped build's symbol table.
package bintest

import (
	"debug/elf"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/warden-mcp/warden/internal/testbin"
)

// Tool returns the path of a host tool or skips the test.
func Tool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s not installed", name)
	}
	return p
}

// Variant names a build of the generated program.
type Variant string

// The builds.
const (
	Dynamic         Variant = "dyn"       // gcc -O2, PIE, unstripped
	DynamicStrip    Variant = "dyn.strip" // the same, stripped
	DynamicNoEH     Variant = "dyn.noeh"  // stripped, .eh_frame and .eh_frame_hdr removed
	Static          Variant = "static"    // gcc -O2 -static, unstripped
	StaticStrip     Variant = "static.strip"
	DebugFrameOnly  Variant = "dbgframe" // -fno-asynchronous-unwind-tables -g: .debug_frame, no .eh_frame
	NoCET           Variant = "nocet"    // gcc -O2 -fcf-protection=none, unstripped
	NoCETNoEH       Variant = "nocet.noeh"
	StaticNoCET     Variant = "static.nocet" // gcc -O2 -static -fcf-protection=none, unstripped
	StaticNoCETNoEH Variant = "static.nocet.noeh"
)

// source is the generated program every variant is built from.
var source = sync.OnceValue(func() string { return CSource(240, 1) })

// Build returns the path of a variant of the generated program, compiling
// it on first use into the cache every test process shares
// (internal/testbin). It skips the test when gcc or binutils are missing.
func Build(t testing.TB, v Variant) string {
	t.Helper()
	gcc := func(flags ...string) string {
		return testbin.C(t, string(v), testbin.CProgram{Source: source(), Flags: flags})
	}
	noEH := []string{"--remove-section", ".eh_frame", "--remove-section", ".eh_frame_hdr"}
	cet := "-fcf-protection=full"
	switch v {
	case Dynamic:
		return gcc("-O2", cet)
	case Static:
		return gcc("-O2", "-static", cet)
	case DynamicStrip:
		return testbin.Derive(t, string(v), Build(t, Dynamic), "strip", "-o", testbin.Out, testbin.In)
	case StaticStrip:
		return testbin.Derive(t, string(v), Build(t, Static), "strip", "-o", testbin.Out, testbin.In)
	case DynamicNoEH:
		return testbin.Derive(t, string(v), Build(t, DynamicStrip), "objcopy", append(noEH, testbin.In, testbin.Out)...)
	case NoCET:
		return gcc("-O2", "-fcf-protection=none")
	case NoCETNoEH:
		return testbin.Derive(t, string(v), Build(t, NoCET), "objcopy", append(append([]string{"--strip-all"}, noEH...), testbin.In, testbin.Out)...)
	case StaticNoCET:
		return gcc("-O2", "-static", "-fcf-protection=none")
	case StaticNoCETNoEH:
		return testbin.Derive(t, string(v), Build(t, StaticNoCET), "objcopy", append(append([]string{"--strip-all"}, noEH...), testbin.In, testbin.Out)...)
	case DebugFrameOnly:
		return gcc("-O2", "-g", "-fno-asynchronous-unwind-tables", "-fno-unwind-tables", cet)
	}
	t.Fatalf("unknown variant %q", v)
	return ""
}

// Truth returns the sorted unique addresses of FUNC and IFUNC symbols
// defined in executable sections other than .plt*: the ground truth of
// function starts.
func Truth(t testing.TB, path string) []uint64 {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatalf("%s has no symbol table: %v", path, err)
	}
	seen := map[uint64]bool{}
	for _, s := range syms {
		typ := elf.ST_TYPE(s.Info)
		if typ != elf.STT_FUNC && typ != elf.SymType(10) { // 10: STT_GNU_IFUNC
			continue
		}
		if s.Section == elf.SHN_UNDEF || s.Section >= elf.SectionIndex(len(f.Sections)) || s.Value == 0 {
			continue
		}
		sec := f.Sections[s.Section]
		if sec.Flags&elf.SHF_EXECINSTR == 0 || strings.HasPrefix(sec.Name, ".plt") {
			continue
		}
		seen[s.Value] = true
	}
	out := make([]uint64, 0, len(seen))
	for a := range seen {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Score compares found function starts with the truth, counting only
// found addresses inside [lo, hi) (the scored executable sections).
type Score struct {
	TP, FP, FN        int
	Precision, Recall float64
	F1                float64
}

func (s Score) String() string {
	return fmt.Sprintf("P %.4f R %.4f F1 %.4f (tp %d fp %d fn %d)", s.Precision, s.Recall, s.F1, s.TP, s.FP, s.FN)
}

// Compare scores found against truth. inScope filters found addresses
// (nil keeps all).
func Compare(found, truth []uint64, inScope func(uint64) bool) Score {
	want := make(map[uint64]bool, len(truth))
	for _, a := range truth {
		want[a] = true
	}
	got := map[uint64]bool{}
	for _, a := range found {
		if inScope == nil || inScope(a) {
			got[a] = true
		}
	}
	var s Score
	for a := range got {
		if want[a] {
			s.TP++
		} else {
			s.FP++
		}
	}
	s.FN = len(want) - s.TP
	if s.TP+s.FP > 0 {
		s.Precision = float64(s.TP) / float64(s.TP+s.FP)
	}
	if len(want) > 0 {
		s.Recall = float64(s.TP) / float64(len(want))
	}
	if s.Precision+s.Recall > 0 {
		s.F1 = 2 * s.Precision * s.Recall / (s.Precision + s.Recall)
	}
	return s
}

// CSource generates a C program of n functions of varied shapes: leaf
// arithmetic, loops, switches that become jump tables, static helpers
// reached only through a function-pointer table, tail calls, recursion,
// calls into libc, and noreturn error paths.
func CSource(n int, seed uint64) string {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var b strings.Builder
	b.WriteString("#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n\n")
	b.WriteString("volatile int sink;\n")
	storage := func(i int) string {
		if i%5 == 3 {
			return "static "
		}
		return ""
	}
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%sint f%d(int x);\n", storage(i), i)
	}
	for i := 0; i < n; i++ {
		static := storage(i)
		if i%7 == 0 {
			static += "__attribute__((noinline)) "
		}
		fmt.Fprintf(&b, "%sint f%d(int x) {\n", static, i)
		callee := func() int { return r.IntN(n) }
		switch i % 8 {
		case 0:
			fmt.Fprintf(&b, "\tint s = 0;\n\tfor (int k = 0; k < x; k++) s += k * %d ^ (s >> 3);\n\treturn s;\n", r.IntN(97)+1)
		case 1:
			b.WriteString("\tswitch (x & 15) {\n")
			for c := 0; c < 12; c++ {
				fmt.Fprintf(&b, "\tcase %d: return x * %d + %d;\n", c, r.IntN(50)+2, r.IntN(1000))
			}
			b.WriteString("\tdefault: return -1;\n\t}\n")
		case 2:
			fmt.Fprintf(&b, "\tif (x < 0) return f%d(x + 1);\n\treturn f%d(x - 1) + %d;\n", callee(), callee(), r.IntN(9))
		case 3:
			fmt.Fprintf(&b, "\tchar buf[64];\n\tsnprintf(buf, sizeof buf, \"v%%d-%d\", x);\n\treturn (int)strlen(buf) + f%d(x / 2);\n", i, callee())
		case 4:
			fmt.Fprintf(&b, "\tif (x == %d) { fprintf(stderr, \"bad %d\\n\"); abort(); }\n\treturn x ^ %d;\n", r.IntN(1000)+100000, i, r.IntN(1<<20))
		case 5:
			fmt.Fprintf(&b, "\tif (x <= 1) return x;\n\treturn f%d(x - 1) + f%d(x - 2);\n", i, i)
		case 6:
			fmt.Fprintf(&b, "\treturn f%d(x * 3 + %d);\n", callee(), r.IntN(7))
		case 7:
			fmt.Fprintf(&b, "\tsink = x;\n\tif (x & 1) return f%d(x) - 1;\n\treturn x + %d;\n", callee(), r.IntN(1000))
		}
		b.WriteString("}\n\n")
	}
	b.WriteString("typedef int (*fn)(int);\nstatic fn table[] = {")
	for i := 0; i < n; i++ {
		if i%5 == 3 || i%11 == 0 {
			fmt.Fprintf(&b, "f%d, ", i)
		}
	}
	b.WriteString("};\n\n")
	b.WriteString("int main(int argc, char **argv) {\n\tint acc = 0;\n\tfor (unsigned i = 0; i < sizeof table / sizeof table[0]; i++) acc += table[i](argc);\n")
	for i := 0; i < n; i += 3 {
		fmt.Fprintf(&b, "\tif (argc > %d) acc += f%d(argc);\n", i+50, i)
	}
	b.WriteString("\tprintf(\"%d\\n\", acc);\n\treturn 0;\n}\n")
	return b.String()
}
