package toolset

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/warden-mcp/warden/annotation"
	"github.com/warden-mcp/warden/binview"
	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/tool"
	"github.com/warden-mcp/warden/tool/tooltest"
)

func TestCommentSetAndDelete(t *testing.T) {
	h := newCodeHarness(t, readyView(t, buildC(t, "prog", "-O2")), annotation.NewMemory())
	var ch AnnotationChange
	h.mustCall("t1", "bininspect_comment_set", `{"address":"checksum","text":"hashes the argument"}`, &ch)
	if !ch.Changed || ch.Before != nil || ch.After == nil || ch.After.Text != "hashes the argument" || ch.After.Author != "cred-t1" || ch.Kind != "comment" {
		t.Fatalf("first set: %+v", ch)
	}
	checksum, _ := h.view.Symbol("checksum")
	if ch.Offset != codeHex(checksum-h.view.Analysis().ImageBase) || ch.Address != codeHex(checksum) {
		t.Errorf("address %s offset %s", ch.Address, ch.Offset)
	}
	// The same call again changes nothing.
	var again AnnotationChange
	h.mustCall("t1", "bininspect_comment_set", `{"address":"checksum","text":"hashes the argument"}`, &again)
	if again.Changed || again.Before == nil || again.After == nil || again.After.Seq != ch.After.Seq {
		t.Errorf("repeat: %+v", again)
	}
	var changed AnnotationChange
	h.mustCall("t1", "bininspect_comment_set", `{"address":"checksum","text":"31-multiplier hash; aborts on 12345"}`, &changed)
	if !changed.Changed || changed.Before.Text != "hashes the argument" || changed.After.Text != "31-multiplier hash; aborts on 12345" {
		t.Errorf("change: %+v", changed)
	}
	// Disassembly and function_info show it.
	var dis DisassembleResult
	h.mustCall("t1", "bininspect_disassemble", `{"address":"checksum","count":1}`, &dis)
	if dis.Items[0].Comment != "31-multiplier hash; aborts on 12345" {
		t.Errorf("disassembly comment %q", dis.Items[0].Comment)
	}
	var info FunctionInfoResult
	h.mustCall("t1", "bininspect_function_info", `{"function":"checksum"}`, &info)
	if info.Comment != changed.After.Text {
		t.Errorf("function_info comment %q", info.Comment)
	}
	var del AnnotationChange
	h.mustCall("t1", "bininspect_comment_delete", `{"address":"checksum"}`, &del)
	if !del.Changed || del.Before.Text != changed.After.Text || del.After != nil {
		t.Errorf("delete: %+v", del)
	}
	h.mustCall("t1", "bininspect_comment_delete", `{"address":"checksum"}`, &del)
	if del.Changed || del.Before != nil {
		t.Errorf("delete again: %+v", del)
	}
	// Nothing is lost: the history has every value and the deletion.
	var hist AnnotationsResult
	h.mustCall("t1", "bininspect_annotations", `{"history":true}`, &hist)
	if hist.Total != 3 || hist.Items[0].Text != "hashes the argument" || !hist.Items[2].Deleted || hist.SHA256 != h.view.Hashes().SHA256 {
		t.Errorf("history: %+v", hist)
	}
	var cur AnnotationsResult
	h.mustCall("t1", "bininspect_annotations", `{}`, &cur)
	if cur.Total != 0 {
		t.Errorf("current after delete: %+v", cur)
	}
	for args, code := range map[string]string{
		`{"address":"checksum","text":""}`:              "invalid_params",
		`{"address":"checksum","text":"bell\u0007"}`:    annotation.CodeInvalid,
		`{"address":"0xdead00000000","text":"nowhere"}`: binview.CodeAddressUnmapped,
	} {
		if got, _ := h.call("t1", "bininspect_comment_set", args, nil); got != code {
			t.Errorf("%s: %q, want %q", args, got, code)
		}
	}
}

func TestRenameFeedsListingsAndExpressions(t *testing.T) {
	h := newCodeHarness(t, readyView(t, buildC(t, "prog", "-O2")), annotation.NewMemory())
	var r RenameResult
	h.mustCall("t1", "bininspect_symbol_rename", `{"address":"classify","name":"bucket_of"}`, &r)
	if !r.Changed || r.PreviousName != "classify" || r.Before != nil || r.After.Text != "bucket_of" {
		t.Fatalf("rename: %+v", r)
	}
	// The new name resolves in address expressions of every tool...
	var info FunctionInfoResult
	h.mustCall("t1", "bininspect_function_info", `{"function":"bucket_of"}`, &info)
	if info.Name != "bucket_of" || info.NameSource != "user" {
		t.Errorf("function_info by the new name: %+v", info)
	}
	// ...and wins in listings, calls and cross-references.
	var fns FunctionsResult
	h.mustCall("t1", "bininspect_functions", `{"query":"bucket"}`, &fns)
	if fns.Total != 1 || fns.Items[0].Name != "bucket_of" {
		t.Errorf("listing: %+v", fns)
	}
	var dis DisassembleResult
	h.mustCall("t1", "bininspect_disassemble", `{"function":"main","count":1000}`, &dis)
	called := false
	for _, in := range dis.Items {
		if in.Kind == "call" && strings.Contains(in.Text, "bucket_of") {
			called = true
		}
	}
	if !called {
		t.Error("main's call to the renamed function does not show its new name")
	}
	var xr XrefsResult
	h.mustCall("t1", "bininspect_xrefs", `{"address":"bucket_of"}`, &xr)
	if xr.Total == 0 || xr.Items[0].ToName != "bucket_of" {
		t.Errorf("xrefs: %+v", xr)
	}
	// Renaming again returns the before; a bad name is refused.
	h.mustCall("t1", "bininspect_symbol_rename", `{"address":"classify","name":"bucket_for"}`, &r)
	if r.Before == nil || r.Before.Text != "bucket_of" || r.PreviousName != "bucket_of" {
		t.Errorf("second rename: %+v", r)
	}
	for _, bad := range []string{"sub_401000", "2fast", "two words"} {
		if code, _ := h.call("t1", "bininspect_symbol_rename", `{"address":"main","name":"`+bad+`"}`, nil); code != annotation.CodeInvalid {
			t.Errorf("name %q: %q", bad, code)
		}
	}
}

func TestFunctionDefine(t *testing.T) {
	h := newCodeHarness(t, readyView(t, buildC(t, "prog", "-O2")), annotation.NewMemory())
	// A spot inside main no analysis calls a function.
	mainAddr, _ := h.view.Symbol("main")
	target := codeHex(mainAddr + 4)
	var d DefineResult
	h.mustCall("t1", "bininspect_function_define", `{"address":"`+target+`","name":"main_tail"}`, &d)
	if !d.Function.Changed || d.Function.Before != nil || d.Function.After == nil || d.Name == nil || d.Name.After.Text != "main_tail" || d.FoundByAnalysis {
		t.Fatalf("define: %+v", d)
	}
	var fns FunctionsResult
	h.mustCall("t1", "bininspect_functions", `{"source":"user"}`, &fns)
	if fns.Total != 1 || fns.Items[0].Start != target || fns.Items[0].Name != "main_tail" || fns.Items[0].Source != "user" {
		t.Errorf("user functions: %+v", fns)
	}
	d = DefineResult{}
	h.mustCall("t1", "bininspect_function_define", `{"address":"`+target+`"}`, &d)
	if d.Function.Changed || d.Name != nil {
		t.Errorf("define again: %+v", d)
	}
	h.mustCall("t1", "bininspect_function_define", `{"address":"main"}`, &d)
	if !d.FoundByAnalysis {
		t.Errorf("main: %+v", d)
	}
	if code, _ := h.call("t1", "bininspect_function_define", `{"address":"checksum","name":"has space"}`, nil); code != annotation.CodeInvalid {
		t.Errorf("bad name: %q", code)
	}
}

func TestAnnotationsNeverCrossTenants(t *testing.T) {
	st := annotation.NewMemory()
	h := newCodeHarness(t, readyView(t, buildC(t, "prog", "-O2")), st)
	h.mustCall("tenant-a", "bininspect_symbol_rename", `{"address":"checksum","name":"a_private_name"}`, nil)
	h.mustCall("tenant-a", "bininspect_comment_set", `{"address":"checksum","text":"tenant a's note"}`, nil)
	var list AnnotationsResult
	h.mustCall("tenant-b", "bininspect_annotations", `{"history":true}`, &list)
	if list.Total != 0 {
		t.Errorf("tenant b sees %+v", list)
	}
	var fns FunctionsResult
	h.mustCall("tenant-b", "bininspect_functions", `{"query":"a_private"}`, &fns)
	if fns.Total != 0 {
		t.Errorf("tenant b lists tenant a's name: %+v", fns)
	}
	if code, _ := h.call("tenant-b", "bininspect_function_info", `{"function":"a_private_name"}`, nil); code == "" {
		t.Error("tenant a's name resolves for tenant b")
	}
	var dis DisassembleResult
	h.mustCall("tenant-b", "bininspect_disassemble", `{"address":"checksum","count":1}`, &dis)
	if dis.Items[0].Comment != "" || dis.Items[0].Label != "checksum" {
		t.Errorf("tenant b's disassembly: %+v", dis.Items[0])
	}
	h.mustCall("tenant-a", "bininspect_annotations", `{}`, &list)
	if list.Total != 2 {
		t.Errorf("tenant a: %+v", list)
	}
}

// TestAnnotationsSurviveReopenAndRebase: annotations are keyed by the
// file's hash and stored relative to the image base, so a new view of
// the same bytes, through a new layer on the same store, sees them; and a
// raw load at another base sees them at the moved addresses.
func TestAnnotationsSurviveReopenAndRebase(t *testing.T) {
	st := annotation.NewMemory()
	path := buildC(t, "prog", "-O2")
	h := newCodeHarness(t, readyView(t, path), st)
	h.mustCall("t1", "bininspect_comment_set", `{"address":"main","text":"entry logic"}`, nil)
	mainAddr, _ := h.view.Symbol("main")
	h.view.Close()

	reopened := newCodeHarness(t, readyView(t, path), st)
	var list AnnotationsResult
	reopened.mustCall("t1", "bininspect_annotations", `{}`, &list)
	if list.Total != 1 || list.Items[0].Address != codeHex(mainAddr) || list.Items[0].Text != "entry logic" {
		t.Errorf("after reopening: %+v", list)
	}

	// The same bytes as raw x86-64 at two bases.
	data, _ := os.ReadFile(path)
	rawAt := func(base uint64) *binview.View {
		v, err := binview.Open(context.Background(), "prog.raw", data, &binview.Options{Format: binview.FormatRaw, Arch: binview.ArchX86_64, Base: base})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(v.Close)
		return v
	}
	low := newCodeHarness(t, rawAt(0x10000), st)
	low.mustCall("t1", "bininspect_comment_set", `{"address":"0x10040","text":"raw note"}`, nil)
	low.mustCall("t1", "bininspect_symbol_rename", `{"address":"0x10080","name":"raw_fn"}`, nil)
	high := newCodeHarness(t, rawAt(0x7f0000000000), st)
	high.mustCall("t1", "bininspect_annotations", `{"query":"raw"}`, &list)
	if list.Total != 2 || list.Items[0].Address != "0x7f0000000040" || list.Items[1].Address != "0x7f0000000080" {
		t.Errorf("rebased: %+v", list)
	}
	var dis DisassembleResult
	high.mustCall("t1", "bininspect_disassemble", `{"address":"raw_fn","count":1}`, &dis)
	if dis.Items[0].Address != "0x7f0000000080" || dis.Items[0].Label != "raw_fn" {
		t.Errorf("the name at the new base: %+v", dis.Items[0])
	}
	// The raw load and the ELF load are the same file.
	reopened.mustCall("t1", "bininspect_annotations", `{}`, &list)
	if list.Total != 3 {
		t.Errorf("ELF view after raw annotations: %+v", list)
	}
}

func TestAnnotationToolsWithoutStoreOrIdentity(t *testing.T) {
	v := readyView(t, buildC(t, "prog", "-O2"))
	h := newCodeHarness(t, v, nil)
	for _, name := range []string{"bininspect_comment_set", "bininspect_annotations"} {
		args := `{"address":"main","text":"x"}`
		if name == "bininspect_annotations" {
			args = `{}`
		}
		if code, _ := h.call("t1", name, args, nil); code != annotation.CodeUnavailable {
			t.Errorf("%s without a store: %q", name, code)
		}
	}
	// Listings still work without a store.
	h.mustCall("t1", "bininspect_functions", `{}`, nil)

	// Without an identity, writes are refused; without a view, every
	// tool says so.
	withStore := newCodeHarness(t, v, annotation.NewMemory())
	resolve := &tooltest.InvokeOptions{ServerOptions: &mcp.Options{
		Middleware: []tool.Middleware{tool.ResolveViews(func(context.Context, *tool.Call, string) (tool.View, []tool.Warning, error) { return v, nil, nil })},
	}}
	for opts, want := range map[*tooltest.InvokeOptions]string{resolve: "unauthenticated", nil: "no_active_binary_view"} {
		rep, err := tooltest.Invoke(context.Background(), withStore.reg, "bininspect_comment_set", `{"address":"0x1000","text":"x"}`, opts)
		if err != nil {
			t.Fatal(err)
		}
		if code := rep.Result.ErrorCode(); code != want {
			t.Errorf("%q, want %q", code, want)
		}
	}
}
