package funcs

import (
	"context"
	"debug/elf"
	"testing"

	"github.com/warden-mcp/warden/binview/disasm"
	"github.com/warden-mcp/warden/binview/internal/bintest"
	"github.com/warden-mcp/warden/internal/testbin"
)

// crossProgram imports nothing, so that a cold build for each
// architecture compiles the runtime only (see binview's helloGo).
const crossProgram = `package main

var greeting = "many"

// argc stands for a value the compiler cannot know.
var argc = 1

type shape interface{ area() int }
type sq struct{ n int }

func (s sq) area() int { return s.n * s.n }

//go:noinline
func sum(xs []shape) int {
	t := 0
	for _, x := range xs {
		t += x.area()
	}
	return t
}

func main() {
	xs := []shape{sq{argc}, sq{3}}
	switch sum(xs) % 5 {
	case 0:
		println("zero")
	case 1:
		println("one")
	case 2, 3:
		println("some")
	default:
		println(greeting)
	}
}
`

// TestCrossArchitecture checks the control-flow facts of every decoder on
// real code: a Go program cross-compiled for each architecture, analysed
// with its pclntab as hints. Recursive descent must add no function the
// symbol table does not have (a wrong branch target would), and direct
// calls must land on function starts.
func TestCrossArchitecture(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiles the runtime for seven architectures")
	}
	arches := []string{"arm64", "riscv64", "ppc64le", "ppc64", "s390x", "loong64", "arm", "386", "amd64"}
	if raceEnabled {
		arches = []string{"arm64", "riscv64", "s390x"}
	}
	for _, goarch := range arches {
		t.Run(goarch, func(t *testing.T) {
			out := testbin.Go(t, "hello."+goarch, testbin.GoProgram{
				Files:  map[string]string{"main.go": crossProgram, "go.mod": "module cross\n\ngo 1.26\n"},
				GOOS:   "linux",
				GOARCH: goarch,
			})
			img := goImage(t, out)
			truth := bintest.Truth(t, out)
			a, err := New(img, nil)
			if err != nil {
				t.Fatal(err)
			}
			g, err := a.Graph(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var found []uint64
			var byCall int
			for _, f := range g.Functions {
				found = append(found, f.Addr)
				if f.Source == SourceCall || f.Source == SourceTailCall {
					byCall++
				}
			}
			s := bintest.Compare(found, truth, nil)
			calls, onStart, inside := 0, 0, 0
			for _, x := range g.Xrefs {
				if x.Kind != XrefCall {
					continue
				}
				calls++
				if _, ok := g.Function(x.To); ok {
					onStart++
				}
				if _, ok := g.Containing(x.To); ok {
					inside++
				}
			}
			blocks := 0
			for _, f := range g.Functions {
				blocks += len(f.Blocks)
			}
			t.Logf("%s (%v): %s; %d functions (%d from calls), %d blocks, %d direct calls, %.4f on a function start",
				goarch, a.Arch(), s, len(found), byCall, blocks, calls, float64(onStart)/float64(max(calls, 1)))
			if s.Precision < 0.999 || s.Recall < 0.999 {
				t.Errorf("discovery: %s", s)
			}
			// Duff's devices (386, arm) are entered in the middle: those
			// calls land inside a function, not on its start.
			if calls < 500 || float64(onStart) < 0.97*float64(calls) || float64(inside) < 0.999*float64(calls) {
				t.Errorf("of %d direct calls, %d land on a function start and %d in a function", calls, onStart, inside)
			}
			// Data references from code name real addresses: main.main
			// names main.greeting, and few land on a page boundary (on
			// arm64, riscv64, loong64 and ppc64 they come from
			// two-instruction pairs, and a page taken for the address
			// would; A32 loads the address from a literal pool).
			syms := elfSymbols(t, out)
			data, paged := 0, 0
			for _, x := range g.Xrefs {
				if x.Kind != XrefData {
					continue
				}
				if _, ok := g.Containing(x.From); ok {
					data++
					if x.To&0xfff == 0 {
						paged++
					}
				}
			}
			mainFn, ok := a.Lookup("main.main")
			if !ok {
				t.Fatal("no main.main")
			}
			namesGreeting := false
			for _, x := range g.XrefsTo(syms["main.greeting"]) {
				if fi, ok := g.Containing(x.From); ok && fi.Addr == mainFn.Addr {
					namesGreeting = true
				}
			}
			t.Logf("%s: %d data references from code, %d on a page boundary; main.main names main.greeting: %v", goarch, data, paged, namesGreeting)
			if data < 2000 || paged*20 > data || !namesGreeting {
				t.Errorf("%d data references from code, %d on a page boundary; main.main names main.greeting: %v", data, paged, namesGreeting)
			}
			// The decoder's text works on every instruction of main.main.
			f := mainFn
			c, err := a.FunctionCFG(context.Background(), f.Addr, &disasm.Options{Syntax: disasm.GNU})
			if err != nil {
				t.Fatal(err)
			}
			bad := 0
			for _, b := range c.Blocks {
				for _, in := range b.Insts {
					if in.Kind == disasm.Invalid {
						bad++
					}
				}
			}
			if len(c.Blocks) < 4 || bad > 0 {
				t.Errorf("main.main: %d blocks, %d bad instructions", len(c.Blocks), bad)
			}
		})
	}
}

// elfSymbols maps the symbols of an ELF file to their addresses.
func elfSymbols(t *testing.T, path string) map[string]uint64 {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]uint64{}
	for _, s := range syms {
		out[s.Name] = s.Value
	}
	return out
}
