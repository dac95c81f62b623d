package binview

import (
	"context"
	"debug/pe"
	"errors"
	"os"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/warden-mcp/warden/binview/funcs"
	"github.com/warden-mcp/warden/binview/internal/bintest"
	"github.com/warden-mcp/warden/errcode"
)

// codeFunctions opens path and waits for the full function list.
func codeFunctions(t testing.TB, path string) (*View, CodeState) {
	t.Helper()
	v := openFile(t, path, nil)
	t.Cleanup(v.Close)
	start := time.Now()
	st, err := v.WaitCode(context.Background(), CodeFunctions)
	if err != nil {
		t.Fatal(err)
	}
	if st.Stage < CodeFunctions {
		t.Fatalf("the analysis stopped at %s: %v", st.Stage, st.Err)
	}
	t.Logf("%s: %d functions in %v", v.ViewName(), len(st.Functions), time.Since(start).Round(time.Millisecond))
	return v, st
}

func starts(fns []Function, keep func(*Function) bool) []uint64 {
	var out []uint64
	for i := range fns {
		if keep == nil || keep(&fns[i]) {
			out = append(out, fns[i].Addr)
		}
	}
	return out
}

func hasSource(src string) func(*Function) bool {
	return func(f *Function) bool { return slices.Contains(f.Sources, src) }
}

// TestFunctionDiscoveryThroughTheView holds the floors on files
// opened the way a tool opens them: binview.Open, then the view's code
// analysis. Truth is the symbol table of the unstripped build.
func TestFunctionDiscoveryThroughTheView(t *testing.T) {
	cases := []struct {
		name              string
		analysed, truth   func(t *testing.T) string
		floorF1, floorPre float64
		long              bool
	}{
		{"gcc -O2 stripped, with unwind tables",
			func(t *testing.T) string { return bintest.Build(t, bintest.DynamicStrip) },
			func(t *testing.T) string { return bintest.Build(t, bintest.Dynamic) }, 0.995, 0.99, false},
		{"gcc -O2 stripped, unwind tables removed (no metadata)",
			func(t *testing.T) string { return bintest.Build(t, bintest.DynamicNoEH) },
			func(t *testing.T) string { return bintest.Build(t, bintest.Dynamic) }, 0.98, 0.98, false},
		{"gcc -O2 -fcf-protection=none stripped, unwind tables removed",
			func(t *testing.T) string { return bintest.Build(t, bintest.NoCETNoEH) },
			func(t *testing.T) string { return bintest.Build(t, bintest.NoCET) }, 0.98, 0.98, false},
		{"gcc -O2 -static stripped",
			func(t *testing.T) string { return bintest.Build(t, bintest.StaticStrip) },
			func(t *testing.T) string { return bintest.Build(t, bintest.Static) }, 0.995, 0.99, true},
		{"gcc -O2 -static -fcf-protection=none stripped, unwind tables removed",
			func(t *testing.T) string { return bintest.Build(t, bintest.StaticNoCETNoEH) },
			func(t *testing.T) string { return bintest.Build(t, bintest.StaticNoCET) }, 0.86, 0.9, true},
		{"go stripped (-s -w)",
			func(t *testing.T) string { return goFixture(t, "go-linux-amd64-stripped", "linux", "amd64", "-s -w") },
			func(t *testing.T) string { return goFixture(t, "go-linux-amd64", "linux", "amd64", "") }, 0.999, 0.999, false},
		{"go compile stripped, 25 MB",
			func(t *testing.T) string { return strippedCompile(t) },
			func(t *testing.T) string { return goTool(t, "compile") }, 0.999, 0.999, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.long && testing.Short() {
				t.Skip("long case skipped in -short mode")
			}
			truth := bintest.Truth(t, c.truth(t))
			v, st := codeFunctions(t, c.analysed(t))
			fns := v.Functions(st, nil)
			s := bintest.Compare(starts(fns, nil), truth, nil)
			bySrc := map[string]int{}
			for _, f := range fns {
				bySrc[f.Source]++
			}
			t.Logf("%s; sources %v; warnings %v", s, bySrc, st.Warnings)
			if s.F1 < c.floorF1 || s.Precision < c.floorPre {
				t.Errorf("below floor: F1 %.4f (≥ %.3f), precision %.4f (≥ %.3f)", s.F1, c.floorF1, s.Precision, c.floorPre)
			}
		})
	}
}

// goTool returns the path of a tool of the Go distribution.
func goTool(t testing.TB, name string) string {
	t.Helper()
	p := testGOROOT() + "/pkg/tool/" + runtime.GOOS + "_" + runtime.GOARCH + "/" + name
	if _, err := os.Stat(p); err != nil {
		t.Skip(err)
	}
	return p
}

// coffFunctions returns the COFF function symbols (type 0x20) in
// executable sections: the truth for a PE file.
func coffFunctions(t *testing.T, path string) []uint64 {
	t.Helper()
	f, err := pe.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var base uint64
	switch oh := f.OptionalHeader.(type) {
	case *pe.OptionalHeader64:
		base = oh.ImageBase
	case *pe.OptionalHeader32:
		base = uint64(oh.ImageBase)
	}
	var out []uint64
	for _, s := range f.Symbols {
		if s.Type != 0x20 || s.SectionNumber <= 0 || int(s.SectionNumber) > len(f.Sections) {
			continue
		}
		sec := f.Sections[s.SectionNumber-1]
		if sec.Characteristics&pe.IMAGE_SCN_MEM_EXECUTE == 0 {
			continue
		}
		out = append(out, base+uint64(sec.VirtualAddress)+uint64(s.Value))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestPdataPrecisionThroughTheView: every function start .pdata gave is a
// true start, on a mingw-w64 executable from the standard library's
// testdata and on a Go program built for windows/amd64.
func TestPdataPrecisionThroughTheView(t *testing.T) {
	cases := []struct {
		name      string
		path      func(t *testing.T) string
		truth     func(t *testing.T, path string) []uint64
		floorRecl float64
	}{
		{"mingw-w64 gcc", func(t *testing.T) string { return stdlibTestdata(t, "pe", "gcc-amd64-mingw-exec") }, coffFunctions, 0.95},
		{"go windows/amd64", func(t *testing.T) string { return goFixture(t, "go-windows-amd64", "windows", "amd64", "") }, coffFunctions, 0.99},
		{"go windows/amd64 stripped (-s -w)", func(t *testing.T) string {
			return goFixture(t, "go-windows-amd64-stripped", "windows", "amd64", "-s -w")
		}, func(t *testing.T, _ string) []uint64 {
			return coffFunctions(t, goFixture(t, "go-windows-amd64", "windows", "amd64", ""))
		}, 0.99},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := c.path(t)
			truth := c.truth(t, path)
			if len(truth) == 0 {
				t.Fatal("no COFF function symbols")
			}
			v, st := codeFunctions(t, path)
			fns := v.Functions(st, nil)
			pdata := bintest.Compare(starts(fns, hasSource("pdata")), truth, nil)
			all := bintest.Compare(starts(fns, nil), truth, nil)
			t.Logf(".pdata starts: %s; every function: %s", pdata, all)
			if pdata.TP == 0 || pdata.Precision != 1 {
				t.Errorf(".pdata precision %.4f (%d found), want 1", pdata.Precision, pdata.TP+pdata.FP)
			}
			if all.Recall < c.floorRecl {
				t.Errorf("recall %.4f below %.2f", all.Recall, c.floorRecl)
			}
		})
	}
}

// TestCodeStagesAnswerWhileLaterOnesRun: a view whose analysis waits for
// a slot answers at once with what is ready (nothing) and never blocks a
// caller past its deadline; once a slot frees, every stage completes in
// order.
func TestCodeStagesAnswerWhileLaterOnesRun(t *testing.T) {
	v := openFile(t, bintest.Build(t, bintest.DynamicStrip), nil)
	defer v.Close()
	if st := v.CodeState(); st.Started || st.Stage != CodePending {
		t.Fatalf("fresh view: %+v", st)
	}
	// Take every slot, so the analysis queues.
	for range cap(codeSlots) {
		codeSlots <- struct{}{}
	}
	released := false
	release := func() {
		if !released {
			for range cap(codeSlots) {
				<-codeSlots
			}
			released = true
		}
	}
	defer release()
	v.StartCode()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	st, err := v.WaitCode(ctx, CodeFunctions)
	if !errors.Is(err, context.Canceled) || !st.Running || st.Stage != CodePending {
		t.Fatalf("queued analysis: state %+v, err %v", st, err)
	}
	release()
	st, err = v.WaitCode(context.Background(), CodeReferences)
	if err != nil || st.Stage != CodeReferences || st.Graph == nil || st.Running || st.Err != nil {
		t.Fatalf("finished analysis: stage %s, graph %v, running %v, err %v/%v", st.Stage, st.Graph != nil, st.Running, err, st.Err)
	}
	if len(st.Functions) < 200 || len(st.Graph.Functions) != len(st.Functions) {
		t.Errorf("%d functions, %d in the graph", len(st.Functions), len(st.Graph.Functions))
	}
}

// TestCloseCancelsTheCodeAnalysis: closing a view stops its analysis;
// waiting callers return, and the error says it was cancelled.
func TestCloseCancelsTheCodeAnalysis(t *testing.T) {
	v := openFile(t, bintest.Build(t, bintest.DynamicStrip), nil)
	for range cap(codeSlots) {
		codeSlots <- struct{}{}
	}
	v.StartCode()
	v.Close()
	st, err := v.WaitCode(context.Background(), CodeReferences)
	for range cap(codeSlots) {
		<-codeSlots
	}
	if err != nil || st.Running || errcode.CodeOf(st.Err) != "analysis_cancelled" {
		t.Fatalf("after Close: running %v, err %v, state err %v", st.Running, err, st.Err)
	}
	// A closed view does not start again.
	v2 := openFile(t, bintest.Build(t, bintest.DynamicStrip), nil)
	v2.Close()
	if st, _ := v2.WaitCode(context.Background(), CodeFunctions); st.Started {
		t.Error("a closed view started its analysis")
	}
}

// TestCodeTimeoutKeepsWhatWasFound: an analysis past its time budget
// stops with analysis_timeout and keeps the stages it finished.
func TestCodeTimeoutKeepsWhatWasFound(t *testing.T) {
	v := openFile(t, bintest.Build(t, bintest.DynamicStrip), &Options{CodeTimeout: time.Nanosecond})
	st, err := v.WaitCode(context.Background(), CodeReferences)
	if err != nil || st.Running || errcode.CodeOf(st.Err) != CodeAnalysisTimeout {
		t.Fatalf("running %v, err %v, state err %v", st.Running, err, st.Err)
	}
}

// TestInstructionBudgetBoundsTheAnalysis: a tiny instruction budget ends
// the analysis with a warning, not a hang.
func TestInstructionBudgetBoundsTheAnalysis(t *testing.T) {
	v := openFile(t, bintest.Build(t, bintest.DynamicNoEH), &Options{MaxInstructions: 100})
	st, err := v.WaitCode(context.Background(), CodeReferences)
	if err != nil || st.Stage != CodeReferences {
		t.Fatalf("stage %s, err %v/%v", st.Stage, err, st.Err)
	}
	if !slices.Contains(st.Warnings, funcs.WarnInstructionBudget) {
		t.Errorf("warnings %v, want %s", st.Warnings, funcs.WarnInstructionBudget)
	}
}

// TestOverlayNamesResolveFirst: a person's names resolve before the
// file's, name functions in listings, and leave the view unchanged.
func TestOverlayNamesResolveFirst(t *testing.T) {
	v, st := codeFunctions(t, gccFixture(t, "gcc-O2", "-O2"))
	mainAddr, ok := v.Symbol("main")
	if !ok {
		t.Fatal("no main")
	}
	add, _ := v.Symbol("add_numbers")
	o := NewOverlay(map[uint64]string{add: "my_adder", mainAddr: "entry_logic"}, []uint64{mainAddr + 4})
	ov := v.WithOverlay(o)
	if a, ok := ov.Symbol("my_adder"); !ok || a != add {
		t.Errorf("my_adder = %#x %v, want %#x", a, ok, add)
	}
	if _, ok := v.Symbol("my_adder"); ok {
		t.Error("the overlay leaked into the view")
	}
	if a, ok := ov.Symbol("main"); !ok || a != mainAddr {
		t.Errorf("file names still resolve under an overlay: %#x %v", a, ok)
	}
	fns := v.Functions(st, o)
	byAddr := map[uint64]Function{}
	for _, f := range fns {
		byAddr[f.Addr] = f
	}
	if f := byAddr[add]; f.Name != "my_adder" || f.NameSource != SourceUser {
		t.Errorf("renamed function listed as %+v", f)
	}
	if f := byAddr[mainAddr+4]; f.Source != SourceUser || f.Name != AutoName(mainAddr+4) {
		t.Errorf("user-defined function listed as %+v", f)
	}
	page := ListFunctions(fns, FunctionQuery{Query: Query{Text: "ADDER"}})
	if page.Total != 1 || page.Items[0].Addr != add {
		t.Errorf("query by user name: %+v", page)
	}
	page = ListFunctions(fns, FunctionQuery{Source: SourceUser})
	if page.Total != 1 {
		t.Errorf("source filter user: %d", page.Total)
	}
	sym := v.Symbolizer(o, fns)
	if n, base, ok := sym(add + 1); !ok || n != "my_adder" || base != add {
		t.Errorf("symbolizer inside a renamed function: %q %#x %v", n, base, ok)
	}
}

// TestFunctionCFGMatchesTheGraph: a function's drawn graph has the
// graph's blocks, each decoded completely.
func TestFunctionCFGMatchesTheGraph(t *testing.T) {
	v := openFile(t, gccFixture(t, "gcc-O2", "-O2"), nil)
	defer v.Close()
	mainAddr, _ := v.Symbol("main")
	if _, err := v.FunctionCFG(CodeState{}, mainAddr, nil); errcode.CodeOf(err) != CodeAnalysisIncomplete {
		t.Errorf("before the references stage: %v", err)
	}
	st, _ := v.WaitCode(context.Background(), CodeReferences)
	cfg, err := v.FunctionCFG(st, mainAddr, nil)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := st.Graph.Function(mainAddr)
	if len(cfg.Blocks) != len(fi.Blocks) || len(cfg.Blocks) < 2 {
		t.Fatalf("%d blocks drawn, %d in the graph", len(cfg.Blocks), len(fi.Blocks))
	}
	for i, b := range cfg.Blocks {
		if len(b.Insts) != b.Block.Insts {
			t.Errorf("block %d: %d instructions decoded, %d in the graph", i, len(b.Insts), b.Block.Insts)
		}
	}
	if _, err := v.FunctionCFG(st, mainAddr+1, nil); errcode.CodeOf(err) != CodeFunctionNotFound {
		t.Errorf("mid-function address: %v", err)
	}
	ins, err := v.Disassemble(mainAddr, 5, nil)
	if err != nil || len(ins) != 5 || ins[0].Addr != mainAddr {
		t.Fatalf("disassemble: %v %v", ins, err)
	}
	if _, err := v.Disassemble(0xdead00000000, 5, nil); errcode.CodeOf(err) != CodeAddressUnmapped {
		t.Errorf("unmapped: %v", err)
	}
}

// TestReferencesRunOnlyWhenAskedFor: a view that only lists functions
// never pays for blocks and references; asking for them runs the stage.
func TestReferencesRunOnlyWhenAskedFor(t *testing.T) {
	v := openFile(t, bintest.Build(t, bintest.DynamicStrip), nil)
	defer v.Close()
	v.StartCode()
	st, _ := v.WaitCode(context.Background(), CodeFunctions)
	// The run ends just after the stage is published.
	deadline := time.Now().Add(time.Minute)
	for st.Running && time.Now().Before(deadline) {
		runtime.Gosched()
		st = v.CodeState()
	}
	if st.Stage != CodeFunctions || st.Graph != nil || st.Err != nil || !st.Finished() {
		t.Fatalf("after the function stages: stage %s, graph %v, err %v", st.Stage, st.Graph != nil, st.Err)
	}
	st, err := v.WaitCode(context.Background(), CodeReferences)
	if err != nil || st.Stage != CodeReferences || st.Graph == nil {
		t.Fatalf("asked for references: stage %s, err %v/%v", st.Stage, err, st.Err)
	}
}

// TestStrippedStartUpNames: a stripped C executable names its start-up
// functions without symbols: _start (the ELF entry), _init and _fini
// (DT_INIT, DT_FINI) and main (the start-up call).
func TestStrippedStartUpNames(t *testing.T) {
	v, st := codeFunctions(t, bintest.Build(t, bintest.DynamicNoEH))
	truth := openFile(t, bintest.Build(t, bintest.Dynamic), nil)
	for _, name := range []string{"_start", "_init", "_fini", "main"} {
		want, ok := truth.SymbolByName(name)
		if !ok {
			t.Fatalf("the unstripped build has no %s", name)
		}
		fns := v.Functions(st, nil)
		i := slices.IndexFunc(fns, func(f Function) bool { return f.Addr == want.Addr })
		if i < 0 || fns[i].Name != name {
			t.Errorf("%s at %#x not named so", name, want.Addr)
		}
		// Address expressions resolve the name too ("unknown symbol
		// main" on stripped C before).
		if got, ok := v.Symbol(name); !ok || got != want.Addr {
			t.Errorf("Symbol(%q) = %#x, %v; want %#x", name, got, ok, want.Addr)
		}
	}
}
