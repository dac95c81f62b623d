package funcs

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/warden-mcp/warden/binview/disasm"
	"github.com/warden-mcp/warden/binview/internal/bintest"
	"github.com/warden-mcp/warden/errcode"
)

func dynGraph(t *testing.T) (*Analyzer, *Graph, string) {
	t.Helper()
	path := bintest.Build(t, bintest.Dynamic)
	a, err := New(elfImage(t, path), nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := a.Graph(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return a, g, path
}

// TestGraphInvariants checks every function's blocks: sorted, disjoint,
// the entry block at the start, every edge to a block of the same
// function.
func TestGraphInvariants(t *testing.T) {
	_, g, _ := dynGraph(t)
	if len(g.Functions) < 250 {
		t.Fatalf("%d functions", len(g.Functions))
	}
	for _, f := range g.Functions {
		if len(f.Blocks) == 0 {
			t.Errorf("%s: no blocks", f.Name)
			continue
		}
		starts := map[uint64]bool{}
		for i, b := range f.Blocks {
			starts[b.Start] = true
			if b.End <= b.Start || b.Insts == 0 {
				t.Errorf("%s: empty block %+v", f.Name, b)
			}
			if i > 0 && f.Blocks[i-1].End > b.Start {
				t.Errorf("%s: blocks overlap at %#x", f.Name, b.Start)
			}
		}
		if !starts[f.Addr] {
			t.Errorf("%s: no entry block", f.Name)
		}
		for _, b := range f.Blocks {
			for _, e := range b.Succs {
				if !starts[e.To] {
					t.Errorf("%s: edge %#x -> %#x (%v) to no block", f.Name, b.Start, e.To, e.Kind)
				}
			}
		}
		if f.End <= f.Addr {
			t.Errorf("%s: end %#x", f.Name, f.End)
		}
	}
}

var objdumpCall = regexp.MustCompile(`^\s*([0-9a-f]+):\s+call\s+([0-9a-f]+) <`)

// TestCallXrefsMatchObjdump compares every direct call in .text that
// objdump prints with the call cross-references.
func TestCallXrefsMatchObjdump(t *testing.T) {
	_, g, path := dynGraph(t)
	out, err := exec.Command(bintest.Tool(t, "objdump"), "-d", "-M", "intel", "--no-show-raw-insn", "-j", ".text", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	want := map[[2]uint64]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if m := objdumpCall.FindStringSubmatch(sc.Text()); m != nil {
			from, _ := strconv.ParseUint(m[1], 16, 64)
			to, _ := strconv.ParseUint(m[2], 16, 64)
			want[[2]uint64{from, to}] = true
		}
	}
	got := map[[2]uint64]bool{}
	for _, x := range g.Xrefs {
		if x.Kind == XrefCall {
			got[[2]uint64{x.From, x.To}] = true
		}
	}
	if len(want) < 100 {
		t.Fatalf("objdump printed only %d calls", len(want))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("calls differ (-objdump +ours):\n%s", diff)
	}
	t.Logf("%d direct calls agree with objdump", len(got))
}

func TestCallGraphAndXrefs(t *testing.T) {
	a, g, _ := dynGraph(t)
	byName := map[string]*FuncInfo{}
	for i := range g.Functions {
		byName[g.Functions[i].Name] = &g.Functions[i]
	}
	main := byName["main"]
	if main == nil {
		t.Fatal("no main")
	}
	// f0 is called from main (i = 0 in its loop of calls).
	f0 := byName["f0"]
	if f0 == nil || !contains(main.Callees, f0.Addr) || !contains(f0.Callers, main.Addr) {
		t.Fatalf("main -> f0 missing: %v", main.Callees)
	}
	// f3 is static and reached through the function-pointer table: a
	// data reference from the table to it, and none of its callers is
	// main by a direct call.
	f3 := byName["f3"]
	if f3 == nil {
		t.Fatal("no f3")
	}
	var fromData bool
	for _, x := range g.XrefsTo(f3.Addr) {
		if x.Kind == XrefData && !a.mem.isExec(x.From) {
			fromData = true
		}
	}
	if !fromData {
		t.Errorf("no data reference to f3: %v", g.XrefsTo(f3.Addr))
	}
	// f1 switches through a jump table: its dispatch has case edges.
	cases := 0
	for _, b := range byName["f1"].Blocks {
		for _, e := range b.Succs {
			if e.Kind == EdgeSwitch {
				cases++
			}
		}
	}
	if cases < 12 {
		t.Errorf("f1 has %d switch edges, want at least 12", cases)
	}
	for _, x := range g.XrefsFrom(main.Blocks[0].Start) {
		if x.From != main.Blocks[0].Start {
			t.Fatalf("XrefsFrom returned %+v", x)
		}
	}
	if fi, ok := g.Containing(main.Addr + 1); !ok || fi.Addr != main.Addr {
		t.Errorf("Containing(main+1) = %v, %v", fi, ok)
	}
}

func contains(s []uint64, v uint64) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func TestFunctionCFGAndDOT(t *testing.T) {
	a, _, _ := dynGraph(t)
	f, ok := a.Lookup("f1")
	if !ok {
		t.Fatal("no f1")
	}
	sym := func(addr uint64) (string, uint64, bool) {
		if g, ok := a.graph.Function(addr); ok {
			return g.Name, g.Addr, g.Name != ""
		}
		return "", 0, false
	}
	c, err := a.FunctionCFG(context.Background(), f.Addr, &disasm.Options{Syntax: disasm.Intel, Symbolizer: sym})
	if err != nil {
		t.Fatal(err)
	}
	dot := c.DOT()
	for _, want := range []string{`digraph "f1"`, `label="case"`, `endbr64`, `\l`, "->"} {
		if !strings.Contains(dot, want) {
			t.Errorf("DOT lacks %q:\n%s", want, dot)
		}
	}
	if strings.Count(dot, "->") < 12 {
		t.Errorf("too few edges:\n%s", dot)
	}
	if dotEscape(`a"b\c`+"\n") != `a\"b\\c ` {
		t.Errorf("escape: %q", dotEscape(`a"b\c`+"\n"))
	}
	var e *errcode.Error
	if _, err := a.FunctionCFG(context.Background(), f.Addr+1, nil); !errors.As(err, &e) || e.Code != "function_not_found" {
		t.Errorf("inside a function: %v", err)
	}
	if _, err := a.FunctionCFG(context.Background(), 0xdead000000, nil); errcode.CodeOf(err) != "address_unmapped" {
		t.Errorf("unmapped: %v", err)
	}
}
