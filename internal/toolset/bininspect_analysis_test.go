package toolset

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/warden-mcp/warden/annotation"
	"github.com/warden-mcp/warden/auth"
	"github.com/warden-mcp/warden/binview"
	"github.com/warden-mcp/warden/internal/testbin"
	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/tool"
	"github.com/warden-mcp/warden/tool/tooltest"
)

// analysisC is the program the code tools are tested on: calls, a
// switch, a loop, a function reached through a pointer, a noreturn path.
const analysisC = `#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) int classify(int x) {
	switch (x & 7) {
	case 0: return 11; case 1: return 23; case 2: return 5; case 3: return 97;
	case 4: return 4; case 5: return 61; case 6: return 8; default: return -1;
	}
}

__attribute__((noinline)) int checksum(const char *s) {
	int h = 0;
	for (; *s; s++) h = h * 31 + *s;
	if (h == 12345) { fprintf(stderr, "collision\n"); abort(); }
	return h;
}

static int twice(int x) { return 2 * x; }
int (*volatile op)(int) = twice;

int main(int argc, char **argv) {
	const char *s = argc > 1 ? argv[1] : "none";
	printf("%d %d %d\n", classify(argc), checksum(s), op(argc));
	return (int)strlen(s) & 1;
}
`

// buildC compiles analysisC with gcc and flags (once per toolchain, into
// the cache internal/testbin keeps), or skips the test.
func buildC(t *testing.T, name string, flags ...string) string {
	t.Helper()
	return testbin.C(t, name, testbin.CProgram{Source: analysisC, Flags: flags})
}

// openView opens a file as a tool would, with generous limits.
func openCodeView(t *testing.T, path string, opts *binview.Options) *binview.View {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if opts == nil {
		opts = &binview.Options{}
	}
	opts.MaxFileSize = binview.LocalMaxFileSize
	v, err := binview.Open(context.Background(), filepath.Base(path), data, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(v.Close)
	return v
}

// codeHarness serves the code and annotation tools over one view, with
// a resolver that lays the caller's annotations over it, as the view
// registry does.
type codeHarness struct {
	t     *testing.T
	reg   *tool.Registry
	view  *binview.View
	layer *AnnotationLayer
}

func newCodeHarness(t *testing.T, v *binview.View, st annotation.Store) *codeHarness {
	t.Helper()
	h := &codeHarness{t: t, view: v}
	if st != nil {
		h.layer = NewAnnotationLayer(st)
	}
	h.reg = tool.NewRegistry()
	tools, err := bininspectCodeTools(Deps{Annotations: h.layer})
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools {
		if err := h.reg.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

func codePrincipal(tenant string) auth.Principal {
	return auth.Principal{Subject: "alice", Credential: "cred-" + tenant, Tenant: tenant, Entitlements: []string{"*"}}
}

// call invokes a tool as tenant and decodes the structured result into
// out; it returns the error code ("" on success) and the warnings.
func (h *codeHarness) call(tenant, name, args string, out any) (string, []tool.Warning) {
	h.t.Helper()
	ctx := auth.WithPrincipal(context.Background(), codePrincipal(tenant))
	opts := &tooltest.InvokeOptions{ServerOptions: &mcp.Options{
		Middleware: []tool.Middleware{tool.ResolveViews(func(ctx context.Context, _ *tool.Call, _ string) (tool.View, []tool.Warning, error) {
			if h.layer == nil {
				return h.view, nil, nil
			}
			p, _ := auth.PrincipalFrom(ctx)
			ov, err := h.layer.View(ctx, p.Tenant, h.view)
			if err != nil {
				h.t.Errorf("overlay: %v", err)
			}
			return ov, nil, nil
		})},
	}}
	rep, err := tooltest.Invoke(ctx, h.reg, name, args, opts)
	if err != nil {
		h.t.Fatalf("%s %s: %v", name, args, err)
	}
	if rep.Error != nil {
		h.t.Fatalf("%s %s: protocol error %d %s", name, args, rep.Error.Code, rep.Error.Message)
	}
	var sc struct {
		Warnings []tool.Warning `json:"warnings"`
	}
	_ = json.Unmarshal(rep.Result.StructuredContent, &sc)
	if code := rep.Result.ErrorCode(); code != "" {
		return code, sc.Warnings
	}
	if out != nil {
		if err := json.Unmarshal(rep.Result.StructuredContent, out); err != nil {
			h.t.Fatalf("%s: %v\n%s", name, err, rep.Result.StructuredContent)
		}
	}
	return "", sc.Warnings
}

func (h *codeHarness) mustCall(tenant, name, args string, out any) []tool.Warning {
	h.t.Helper()
	code, ws := h.call(tenant, name, args, out)
	if code != "" {
		h.t.Fatalf("%s %s: error %s", name, args, code)
	}
	return ws
}

// readyView opens path and waits for every stage of its code analysis.
func readyView(t *testing.T, path string) *binview.View {
	t.Helper()
	v := openCodeView(t, path, nil)
	if st, err := v.WaitCode(context.Background(), binview.CodeReferences); err != nil || st.Stage != binview.CodeReferences {
		t.Fatalf("analysis: %s %v %v", st.Stage, err, st.Err)
	}
	return v
}

func TestFunctionsTool(t *testing.T) {
	h := newCodeHarness(t, readyView(t, buildC(t, "prog", "-O2")), nil)
	var all FunctionsResult
	h.mustCall("t1", "bininspect_functions", `{"limit":1000}`, &all)
	if all.Stage != "references" || all.Count != all.Total || all.Truncated || all.Count < 5 {
		t.Fatalf("listing: %+v", all)
	}
	byName := map[string]FunctionItem{}
	for _, f := range all.Items {
		byName[f.Name] = f
		if !strings.HasPrefix(f.Start, "0x") || f.Source == "" || f.Confidence <= 0 {
			t.Errorf("item %+v", f)
		}
	}
	for _, n := range []string{"main", "classify", "checksum", "twice"} {
		f, ok := byName[n]
		if !ok {
			t.Errorf("%s not listed", n)
			continue
		}
		if f.Source != "symbol" || f.NameSource != "analysis" || f.End == "" {
			t.Errorf("%s: %+v", n, f)
		}
	}
	var page FunctionsResult
	h.mustCall("t1", "bininspect_functions", `{"limit":2}`, &page)
	if page.Count != 2 || page.Total != all.Total || !page.Truncated || page.NextOffset != 2 {
		t.Errorf("first page: %+v", page)
	}
	h.mustCall("t1", "bininspect_functions", `{"query":"CHECK"}`, &page)
	if page.Total != 1 || page.Items[0].Name != "checksum" {
		t.Errorf("query: %+v", page)
	}
	h.mustCall("t1", "bininspect_functions", `{"address":"classify"}`, &page)
	if page.Total != 1 || page.Items[0].Name != "classify" {
		t.Errorf("address: %+v", page)
	}
	main := byName["main"].Start
	h.mustCall("t1", "bininspect_functions", `{"start":"`+main+`","length":1}`, &page)
	if page.Total != 1 || page.Items[0].Start != main {
		t.Errorf("start+length: %+v", page)
	}
	h.mustCall("t1", "bininspect_functions", `{"source":"eh_frame"}`, &page)
	if page.Total == 0 {
		t.Error("no function from .eh_frame")
	}
	if code, _ := h.call("t1", "bininspect_functions", `{"end":"main"}`, nil); code != "invalid_params" {
		t.Errorf("end without start: %q", code)
	}
}

func TestFunctionInfoBlocksXrefsCallgraph(t *testing.T) {
	h := newCodeHarness(t, readyView(t, buildC(t, "prog", "-O2")), nil)
	var info FunctionInfoResult
	h.mustCall("t1", "bininspect_function_info", `{"function":"classify"}`, &info)
	if info.Name != "classify" || info.Blocks < 2 || info.Instructions < 4 || info.Callers < 1 || info.End == "" {
		t.Errorf("classify: %+v", info)
	}
	var inside FunctionInfoResult
	h.mustCall("t1", "bininspect_function_info", `{"function":"classify + 4"}`, &inside)
	if inside.Start != info.Start {
		t.Errorf("an address inside classify gave %+v", inside)
	}
	var mainInfo FunctionInfoResult
	h.mustCall("t1", "bininspect_function_info", `{"function":"main"}`, &mainInfo)
	if mainInfo.Callees < 2 {
		t.Errorf("main's callees: %+v", mainInfo)
	}

	var blocks BasicBlocksResult
	h.mustCall("t1", "bininspect_basic_blocks", `{"function":"checksum"}`, &blocks)
	if blocks.Total < 3 || blocks.Count != blocks.Total || blocks.Edges < 2 || blocks.Items[0].Start != blocks.Start {
		t.Errorf("checksum blocks: %+v", blocks)
	}
	kinds := map[string]bool{}
	for _, b := range blocks.Items {
		for _, e := range b.Successors {
			kinds[e.Kind] = true
		}
	}
	if !kinds["taken"] || !kinds["not_taken"] {
		t.Errorf("edge kinds %v", kinds)
	}

	var xr XrefsResult
	h.mustCall("t1", "bininspect_xrefs", `{"address":"classify","kind":"call"}`, &xr)
	if xr.Total < 1 || xr.Items[0].FromFunction != "main" || xr.Items[0].Kind != "call" || xr.Items[0].ToName != "classify" {
		t.Errorf("calls to classify: %+v", xr)
	}
	var from XrefsResult
	h.mustCall("t1", "bininspect_xrefs", `{"address":"`+xr.Items[0].From+`","direction":"from"}`, &from)
	if from.Total < 1 || from.Items[0].To != info.Start {
		t.Errorf("from the call: %+v", from)
	}
	// From a function: every reference its instructions make, here
	// main's calls to classify and checksum among them.
	var fromMain XrefsResult
	h.mustCall("t1", "bininspect_xrefs", `{"address":"main","direction":"from","kind":"call"}`, &fromMain)
	callees := map[string]bool{}
	for _, it := range fromMain.Items {
		callees[it.ToName] = true
		if it.FromFunction != "main" {
			t.Errorf("a reference from main's instructions named %q as its function", it.FromFunction)
		}
	}
	if !callees["classify"] || !callees["checksum"] {
		t.Errorf("calls from main: %+v", fromMain)
	}
	var data XrefsResult
	h.mustCall("t1", "bininspect_xrefs", `{"address":"twice","kind":"data"}`, &data)
	if data.Total < 1 {
		t.Errorf("no data reference to twice (the pointer in op): %+v", data)
	}

	var cg CallgraphResult
	h.mustCall("t1", "bininspect_callgraph", `{"function":"main","direction":"callees","depth":1}`, &cg)
	names := map[string]bool{}
	for _, n := range cg.Nodes {
		names[n.Name] = true
		if n.Depth != 1 || n.Direction != "callee" {
			t.Errorf("node %+v", n)
		}
	}
	if !names["classify"] || !names["checksum"] || len(cg.Edges) != len(cg.Nodes) {
		t.Errorf("main's callees: %+v", cg)
	}
	h.mustCall("t1", "bininspect_callgraph", `{"function":"classify","direction":"callers"}`, &cg)
	if len(cg.Nodes) == 0 || cg.Nodes[0].Name != "main" || cg.Edges[0].To != info.Start {
		t.Errorf("classify's callers: %+v", cg)
	}
	h.mustCall("t1", "bininspect_callgraph", `{"function":"main","max_nodes":1}`, &cg)
	if len(cg.Nodes) != 1 || !cg.Truncated {
		t.Errorf("max_nodes 1: %+v", cg)
	}

	var g FunctionGraphResult
	h.mustCall("t1", "bininspect_function_graph", `{"function":"checksum"}`, &g)
	if !strings.HasPrefix(g.DOT, `digraph "checksum"`) || g.Blocks != blocks.Total || g.Edges != blocks.Edges {
		t.Errorf("graph: %d blocks %d edges\n%.200s", g.Blocks, g.Edges, g.DOT)
	}
	if code, _ := h.call("t1", "bininspect_function_info", `{"function":"0x1"}`, nil); code != binview.CodeFunctionNotFound {
		t.Errorf("an address in no function: %q", code)
	}
}

// objdumpInsn is one instruction as objdump prints it.
type objdumpInsn struct {
	addr     uint64
	bytes    string
	mnemonic string
}

// objdumpFunctions disassembles path with objdump and returns each
// symbol's instructions.
func objdumpFunctions(t *testing.T, path string) map[string][]objdumpInsn {
	t.Helper()
	if _, err := exec.LookPath("objdump"); err != nil {
		t.Skip("objdump not installed")
	}
	out, err := exec.Command("objdump", "-d", "-M", "intel", "--insn-width=16", "-j", ".text", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	fns := map[string][]objdumpInsn{}
	cur := ""
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasSuffix(line, ">:") {
			i := strings.Index(line, "<")
			cur = line[i+1 : len(line)-2]
			continue
		}
		parts := strings.SplitN(line, "\t", 3)
		if cur == "" || len(parts) < 3 {
			continue
		}
		a, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(parts[0], ":")), 16, 64)
		if err != nil {
			continue
		}
		fields := strings.Fields(parts[2])
		mn := ""
		for _, f := range fields {
			switch f {
			case "bnd", "notrack", "ds", "cs", "data16", "lock", "rep", "repz", "repnz", "repe", "repne", "xacquire", "xrelease":
				continue // prefixes objdump prints as words
			}
			mn = f
			break
		}
		fns[cur] = append(fns[cur], objdumpInsn{addr: a, bytes: strings.ReplaceAll(strings.TrimSpace(parts[1]), " ", ""), mnemonic: mn})
	}
	return fns
}

// TestDisassembleMatchesObjdump compares bininspect_disassemble, through
// the tool, instruction by instruction with objdump: on every function of
// the test program and on a sample of libc's: addresses and bytes
// exactly, mnemonics after dropping the prefixes objdump prints as
// separate words.
func TestDisassembleMatchesObjdump(t *testing.T) {
	cases := []struct {
		name  string
		path  func(t *testing.T) string
		every int
	}{
		{"gcc -O2", func(t *testing.T) string { return buildC(t, "prog", "-O2") }, 1},
		{"libc.so.6", func(t *testing.T) string {
			const libc = "/lib/x86_64-linux-gnu/libc.so.6"
			if _, err := os.Stat(libc); err != nil {
				t.Skip(err)
			}
			return libc
		}, 12},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := c.path(t)
			want := objdumpFunctions(t, path)
			h := newCodeHarness(t, readyView(t, path), nil)
			names := make([]string, 0, len(want))
			for n := range want {
				names = append(names, n)
			}
			slices.Sort(names)
			insns, same, fns, equiv := 0, 0, 0, 0
			for k, name := range names {
				ref := want[name]
				if k%c.every != 0 || len(ref) == 0 || len(ref) > 1000 {
					continue
				}
				fns++
				var got DisassembleResult
				h.mustCall("t1", "bininspect_disassemble", fmt.Sprintf(`{"address":"0x%x","count":%d}`, ref[0].addr, len(ref)), &got)
				if got.Count != len(ref) {
					t.Errorf("%s: %d instructions, objdump %d", name, got.Count, len(ref))
					continue
				}
				for i, r := range ref {
					g := got.Items[i]
					insns++
					if g.Address != codeHex(r.addr) || g.Bytes != r.bytes {
						t.Errorf("%s+%d: %s %s, objdump %#x %s", name, i, g.Address, g.Bytes, r.addr, r.bytes)
						break
					}
					mn := g.Mnemonic
					if f := strings.Fields(mn); len(f) > 0 {
						mn = f[len(f)-1] // "rep stos" -> "stos": objdump words its prefixes differently
					}
					switch {
					case strings.HasPrefix(r.mnemonic, mn) || strings.HasPrefix(mn, r.mnemonic):
						same++
					case r.bytes == "6690" && mn == "nop" && r.mnemonic == "xchg":
						// 66 90: objdump says xchg ax,ax, x/arch data16
						// nop; both are the two-byte no-op.
						same++
						equiv++
					default:
						if insns-same <= 20 {
							t.Logf("%s %s: %q vs objdump %q", name, g.Address, g.Text, r.mnemonic)
						}
					}
				}
			}
			if insns < 50 {
				t.Fatalf("only %d instructions compared", insns)
			}
			ratio := float64(same) / float64(insns)
			t.Logf("%d functions, %d instructions: addresses and bytes identical, mnemonics %.2f%% identical (%d of them 66 90, xchg ax,ax to objdump)", fns, insns, 100*ratio, equiv)
			if ratio < 0.98 {
				t.Errorf("mnemonics agree on %.2f%% of instructions, want ≥ 98%%", 100*ratio)
			}
		})
	}
}

func TestDisassembleTool(t *testing.T) {
	h := newCodeHarness(t, readyView(t, buildC(t, "prog", "-O2")), nil)
	var fn DisassembleResult
	h.mustCall("t1", "bininspect_disassemble", `{"function":"checksum","count":1000}`, &fn)
	if fn.Function != "checksum" || fn.Count != fn.Total || fn.Truncated || fn.Count < 5 || fn.Items[0].Label != "checksum" {
		t.Fatalf("checksum: %+v", fn)
	}
	symbolised := false
	for _, in := range fn.Items {
		if strings.Contains(in.Text, "abort") || strings.Contains(in.Text, "fprintf") || strings.Contains(in.Text, "fwrite") {
			symbolised = true
		}
	}
	if !symbolised {
		t.Error("no call operand names an import")
	}
	var page DisassembleResult
	h.mustCall("t1", "bininspect_disassemble", `{"function":"checksum","count":2,"offset":1}`, &page)
	if page.Count != 2 || page.Items[0].Address != fn.Items[1].Address || page.NextOffset != 3 || !page.Truncated {
		t.Errorf("function page: %+v", page)
	}
	var lin DisassembleResult
	h.mustCall("t1", "bininspect_disassemble", `{"address":"main","count":3,"syntax":"gnu"}`, &lin)
	if lin.Count != 3 || lin.NextAddress == "" || lin.Syntax != "gnu" {
		t.Errorf("linear: %+v", lin)
	}
	var next DisassembleResult
	h.mustCall("t1", "bininspect_disassemble", `{"address":"`+lin.NextAddress+`","count":1}`, &next)
	if next.Items[0].Address != lin.NextAddress {
		t.Errorf("next page starts at %s", next.Items[0].Address)
	}
	for args, code := range map[string]string{
		`{"address":"main","function":"main"}`: "invalid_params",
		`{}`:                                   "invalid_params",
		`{"address":"main","count":1001}`:      "invalid_params",
		`{"address":"0xdead00000000"}`:         binview.CodeAddressUnmapped,
	} {
		if got, _ := h.call("t1", "bininspect_disassemble", args, nil); got != code {
			t.Errorf("%s: %q, want %q", args, got, code)
		}
	}
}

// TestGoFileLineAndPclntabNames: in a stripped Go binary the functions
// keep their names and function_info gives the entry's source position.
func TestGoFileLineAndPclntabNames(t *testing.T) {
	out := testbin.Go(t, "hello", testbin.GoProgram{Ldflags: "-s -w", Files: map[string]string{
		"main.go": "package main\n\nvar sink int\n\n//go:noinline\nfunc helper(n int) int { return n * 7 }\n\nfunc main() { sink = helper(3); println(sink) }\n",
		"go.mod":  "module example.com/hello\n\ngo 1.22\n",
	}})
	h := newCodeHarness(t, readyView(t, out), nil)
	var info FunctionInfoResult
	h.mustCall("t1", "bininspect_function_info", `{"function":"main.helper"}`, &info)
	if info.Name != "main.helper" || info.Source != "pclntab" || !strings.HasSuffix(info.GoFile, "main.go") || info.GoLine != 6 {
		t.Errorf("main.helper: %+v", info)
	}
}

// TestLargeFilesNeverHangACall: a tool that needs a stage the analysis
// has not reached answers after its short wait with what is ready and
// analysis_incomplete; later calls get the full answer.
func TestLargeFilesNeverHangACall(t *testing.T) {
	if testing.Short() {
		t.Skip("opens the Go compiler")
	}
	out, err := exec.Command("go", "env", "GOTOOLDIR").Output()
	if err != nil {
		t.Skip(err)
	}
	v := openCodeView(t, filepath.Join(strings.TrimSpace(string(out)), "compile"), nil)
	h := newCodeHarness(t, v, nil)
	tools, err := bininspectCodeTools(Deps{CodeWait: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	h.reg = tool.NewRegistry()
	for _, tl := range tools {
		_ = h.reg.Register(tl)
	}
	start := time.Now()
	var first FunctionsResult
	ws := h.mustCall("t1", "bininspect_functions", `{"limit":5}`, &first)
	elapsed := time.Since(start)
	if len(ws) == 0 || ws[0].Code != binview.CodeAnalysisIncomplete || first.Stage == "functions" || first.Stage == "references" {
		t.Fatalf("first call after %v: stage %s, warnings %v", elapsed, first.Stage, ws)
	}
	t.Logf("first answer in %v at stage %s: %s", elapsed, first.Stage, ws[0].Message)
	if code, _ := h.call("t1", "bininspect_basic_blocks", `{"function":"main.main"}`, nil); code != binview.CodeAnalysisIncomplete && code != "" {
		t.Errorf("basic blocks before the references stage: %q", code)
	}
	if st, err := v.WaitCode(context.Background(), binview.CodeReferences); err != nil || st.Stage != binview.CodeReferences {
		t.Fatalf("analysis: %v %v", err, st.Err)
	}
	var done FunctionsResult
	ws = h.mustCall("t1", "bininspect_functions", `{"limit":5}`, &done)
	if len(ws) != 0 || done.Stage != "references" || done.Total < 20000 {
		t.Errorf("after the analysis: %d functions at %s, warnings %v", done.Total, done.Stage, ws)
	}
}

// TestAnalysisThatCannotRunIsAnError: an analysis out of time before it
// found anything is an error, not an empty list; so is a closed view.
func TestAnalysisThatCannotRunIsAnError(t *testing.T) {
	v := openCodeView(t, buildC(t, "prog", "-O2"), &binview.Options{CodeTimeout: time.Nanosecond})
	h := newCodeHarness(t, v, nil)
	if code, _ := h.call("t1", "bininspect_functions", `{}`, nil); code != binview.CodeAnalysisTimeout {
		t.Errorf("timed out analysis: %q", code)
	}
	closed := openCodeView(t, buildC(t, "prog", "-O2"), nil)
	closed.Close()
	h = newCodeHarness(t, closed, nil)
	if code, _ := h.call("t1", "bininspect_functions", `{}`, nil); code != "view_closed" {
		t.Errorf("closed view: %q", code)
	}
}
