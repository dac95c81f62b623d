package toolset

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/warden-mcp/warden/binview"
	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/tool"
	"github.com/warden-mcp/warden/tool/tooltest"
	"github.com/warden-mcp/warden/viewstore"
)

// rootWith makes a root directory holding copies of the named fixtures.
func rootWith(t *testing.T, fixtures ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range fixtures {
		b, err := os.ReadFile(build(t, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestFamilyPassesTheHarness(t *testing.T) {
	reg := tool.NewRegistry()
	if err := Register(reg, Deps{}, Selection{Edition: EditionLean}); err != nil {
		t.Fatal(err)
	}
	tooltest.Check(t, reg, &tooltest.Options{RequirePrivacy: true})
	tools, _ := reg.Tools()
	n := 0
	for _, tl := range tools {
		if !strings.HasPrefix(tl.Name, "bininspect_") {
			continue
		}
		n++
		switch tl.Name {
		case "bininspect_comment_set", "bininspect_comment_delete", "bininspect_symbol_rename", "bininspect_function_define":
			// Annotation writes: a person confirms once; the log only
			// grows, so none destroys anything, and a repeat changes
			// nothing.
			if tl.Catalog.Category != "binary" || tl.Catalog.Trust != tool.TrustConfirm || tl.Annotations.OpenWorld ||
				tl.Annotations.ReadOnly || tl.Annotations.Destructive || !tl.Annotations.Idempotent {
				t.Errorf("%s: catalog %+v annotations %+v", tl.Name, tl.Catalog, tl.Annotations)
			}
			continue
		}
		if tl.Catalog.Category != "binary" || tl.Catalog.Trust != tool.TrustAuto || tl.Annotations.OpenWorld ||
			!tl.Annotations.ReadOnly || tl.Annotations.Destructive {
			t.Errorf("%s: catalog %+v annotations %+v", tl.Name, tl.Catalog, tl.Annotations)
		}
	}
	if n != 27 {
		t.Errorf("%d bininspect_ tools, want 27 (15 on views, 7 on code, 5 on annotations)", n)
	}
}

// An agent's first session on a real ELF file: open, triage, imports,
// strings, eval, memory_read, search, address_info, sections, symbols,
// build_info, all addresses hex strings.
func TestAgentSessionOnELF(t *testing.T) {
	dir := rootWith(t, "hello-elf")
	s := newServer(t, newViews(t, BinaryOptions{Roots: []string{dir}}))
	ctx := as(alice)
	open := s.must(ctx, "bininspect_open", `{"path":"hello-elf"}`)
	view := open.str("view")
	if !strings.HasPrefix(view, handlePrefix) || open.str("name") != "hello-elf" || open.str("format") != "elf" ||
		open.str("arch") != "x86-64" || len(open.str("sha256")) != 64 || open.structured["blob"] != nil {
		t.Fatalf("open: %s", open.raw)
	}
	if strings.Contains(string(open.raw), dir) {
		t.Error("the open result names the server's directory")
	}
	v := `"view":` + jsonString(view)
	tri := s.must(ctx, "bininspect_triage", `{`+v+`}`)
	if tri.str("view") != view || tri.str("kind") != "pie" || !strings.HasPrefix(tri.str("entry"), "0x") {
		t.Errorf("triage: %s", tri.raw)
	}
	hard := map[string]string{}
	for _, c := range tri.structured["hardening"].([]any) {
		m := c.(map[string]any)
		hard[m["name"].(string)] = m["status"].(string)
	}
	if hard["nx"] != "yes" || hard["fortify"] != "yes" || hard["canary"] != "yes" {
		t.Errorf("hardening: %v", hard)
	}
	if !strings.Contains(string(tri.raw), "https://updates.example.com/check") {
		t.Error("triage has no notable URL")
	}
	imps := s.must(ctx, "bininspect_imports", `{`+v+`,"query":"CHK"}`)
	names := map[string]bool{}
	for _, it := range imps.items() {
		names[it["name"].(string)] = true
		if it["library"] != "libc.so.6" || !strings.HasPrefix(it["address"].(string), "0x") {
			t.Errorf("import %v", it)
		}
	}
	if !names["__printf_chk"] || !names["__strcpy_chk"] || names["puts"] {
		t.Errorf("imports matching chk: %v", names)
	}
	strs := s.must(ctx, "bininspect_strings", `{`+v+`,"query":"UPDATES.example"}`)
	if it := strs.items(); len(it) != 1 || !strings.HasPrefix(it[0]["text"].(string), "https://updates") || it[0]["section"] != ".rodata" {
		t.Errorf("strings: %s", strs.raw)
	}
	strs = s.must(ctx, "bininspect_strings", `{`+v+`,"query":"updates.example","preview_bytes":8}`)
	if it := strs.items(); len(it) != 1 || it[0]["text"] != "https://" || it[0]["cut"] != true || it[0]["length"].(float64) != 33 {
		t.Errorf("string preview: %s", strs.raw)
	}
	ev := s.must(ctx, "bininspect_eval", `{`+v+`,"expression":"twice + 0n4"}`)
	if ev.str("symbol") != "twice" || ev.str("offset") != "0x4" || ev.str("location") != "twice+0x4" || ev.str("section") != ".text" || ev.structured["mapped"] != true {
		t.Errorf("eval: %s", ev.raw)
	}
	ev = s.must(ctx, "bininspect_eval", `{`+v+`,"expression":"0 - 1"}`)
	if ev.str("hex") != "0xffffffffffffffff" || ev.str("signed") != "-1" || ev.str("decimal") != "18446744073709551615" || ev.structured["mapped"] != false {
		t.Errorf("eval -1: %s", ev.raw)
	}
	mr := s.must(ctx, "bininspect_memory_read", `{`+v+`,"address":"[counter].d + counter","length":4}`)
	if mr.str("hex") != "07000000" && !strings.HasPrefix(mr.str("address"), "0x") {
		t.Errorf("memory_read of counter: %s", mr.raw)
	}
	mr = s.must(ctx, "bininspect_memory_read", `{`+v+`,"address":"counter","length":4}`)
	if mr.str("hex") != "07000000" || mr.str("base64") != base64.StdEncoding.EncodeToString([]byte{7, 0, 0, 0}) {
		t.Errorf("memory_read counter: %s", mr.raw)
	}
	sr := s.must(ctx, "bininspect_search_bytes", `{`+v+`,"text":"hello, %s"}`)
	if it := sr.items(); len(it) != 1 || it[0]["section"] != ".rodata" || it[0]["bytes"] != hex.EncodeToString([]byte("hello, %s")) {
		t.Errorf("search text: %s", sr.raw)
	}
	ai := s.must(ctx, "bininspect_address_info", `{`+v+`,"address":"main","preview":4}`)
	if ai.str("symbol") != "main" || ai.str("section") != ".text" || ai.str("perm") != "r-x" || len(ai.str("preview")) != 8 {
		t.Errorf("address_info: %s", ai.raw)
	}
	secs := s.must(ctx, "bininspect_sections", `{`+v+`,"query":".TEXT"}`)
	if it := secs.items(); len(it) != 1 || it[0]["name"] != ".text" || it[0]["perm"] != "r-x" {
		t.Errorf("sections: %s", secs.raw)
	}
	syms := s.must(ctx, "bininspect_symbols", `{`+v+`,"address":"twice"}`)
	if it := syms.items(); len(it) == 0 || it[0]["name"] != "twice" || it[0]["kind"] != "function" {
		t.Errorf("symbols at twice: %s", syms.raw)
	}
	bi := s.must(ctx, "bininspect_build_info", `{`+v+`}`)
	elf, _ := bi.structured["elf"].(map[string]any)
	if elf == nil || elf["interpreter"] == nil || len(fmt.Sprint(elf["build_id"])) != 40 {
		t.Errorf("build_info: %s", bi.raw)
	}
	exp := s.must(ctx, "bininspect_exports", `{`+v+`}`)
	if exp.structured["total"] == nil {
		t.Errorf("exports: %s", exp.raw)
	}
}

// A stripped Go binary's functions resolve by name from its function
// table: main.main works in an address expression.
func TestStrippedGoNames(t *testing.T) {
	dir := rootWith(t, "go-linux-stripped")
	s := newServer(t, newViews(t, BinaryOptions{Roots: []string{dir}}))
	ctx := as(alice)
	open := s.must(ctx, "bininspect_open", `{"path":`+jsonString(filepath.Join(dir, "go-linux-stripped"))+`}`)
	v := `"view":` + jsonString(open.str("view"))
	tri := s.must(ctx, "bininspect_triage", `{`+v+`}`)
	if tri.structured["stripped"] != true || !strings.HasPrefix(tri.str("go_version"), "go1.") {
		t.Errorf("triage: %s", tri.raw)
	}
	ev := s.must(ctx, "bininspect_eval", `{`+v+`,"expression":"main.main"}`)
	if ev.str("symbol") != "main.main" || ev.str("location") != "main.main" {
		t.Errorf("eval main.main: %s", ev.raw)
	}
	ai := s.must(ctx, "bininspect_address_info", `{`+v+`,"address":"main.main+1"}`)
	gf, _ := ai.structured["go_function"].(map[string]any)
	if gf == nil || gf["name"] != "main.main" || !strings.HasSuffix(fmt.Sprint(gf["file"]), "main.go") {
		t.Errorf("address_info: %s", ai.raw)
	}
	bi := s.must(ctx, "bininspect_build_info", `{`+v+`}`)
	g, _ := bi.structured["go"].(map[string]any)
	if g == nil || g["path"] != "example.com/hello" {
		t.Errorf("build_info: %s", bi.raw)
	}
	syms := s.must(ctx, "bininspect_symbols", `{`+v+`,"query":"main.main"}`)
	if it := syms.items(); len(it) != 1 || it[0]["source"] != "pclntab" {
		t.Errorf("symbols: %s", syms.raw)
	}
}

// PE and Mach-O built by the go command open and triage.
func TestOtherFormats(t *testing.T) {
	for _, c := range []struct{ fixture, format, imp string }{
		{"go-windows.exe", "pe", "kernel32.dll"},
		{"go-darwin", "macho", "libSystem"},
	} {
		t.Run(c.format, func(t *testing.T) {
			dir := rootWith(t, c.fixture)
			s := newServer(t, newViews(t, BinaryOptions{Roots: []string{dir}}))
			ctx := as(alice)
			open := s.must(ctx, "bininspect_open", `{"path":`+jsonString(c.fixture)+`}`)
			if open.str("format") != c.format || open.str("arch") != "x86-64" {
				t.Fatalf("open: %s", open.raw)
			}
			tri := s.must(ctx, "bininspect_triage", `{}`) // the only view: implicit
			if !tri.warned(WarnImplicitView) || !strings.Contains(strings.ToLower(string(tri.raw)), strings.ToLower(c.imp)) {
				t.Errorf("triage: %s", tri.raw)
			}
			ev := s.must(ctx, "bininspect_eval", `{"expression":"main.main"}`)
			if ev.str("symbol") != "main.main" {
				t.Errorf("main.main: %s", ev.raw)
			}
		})
	}
}

// The stateless era: a handle names the view; with none, the caller's only
// view is used with implicit_view, and with several the server answers
// no_active_binary_view with the handles in its details.
func TestStatelessResolution(t *testing.T) {
	s := newServer(t, newViews(t, BinaryOptions{}))
	ctx := as(alice)
	if r := s.call(ctx, "bininspect_triage", `{}`); r.code != tool.CodeNoActiveView {
		t.Fatalf("no view: %s", r.raw)
	}
	a := s.must(ctx, "bininspect_open", `{"data_base64":"`+rawARM(1)+`","format":"raw","arch":"arm64","base":"0x1000","name":"one"}`)
	b := s.must(ctx, "bininspect_open", `{"data_base64":"`+rawARM(2)+`","format":"raw","arch":"x86-64","base":4096,"name":"two"}`)
	r := s.call(ctx, "bininspect_triage", `{}`)
	views, _ := r.details["views"].([]any)
	if r.code != tool.CodeNoActiveView || len(views) != 2 {
		t.Fatalf("two views, none named: %s", r.raw)
	}
	handles := map[string]bool{}
	for _, v := range views {
		handles[v.(map[string]any)["view"].(string)] = true
	}
	if !handles[a.str("view")] || !handles[b.str("view")] {
		t.Errorf("details list %v, want the two handles", handles)
	}
	tri := s.must(ctx, "bininspect_triage", `{"view":`+jsonString(b.str("view"))+`}`)
	if tri.str("arch") != "x86-64" || tri.str("image_base") != "0x1000" || tri.warned(WarnImplicitView) {
		t.Errorf("named view: %s", tri.raw)
	}
	if r := s.call(ctx, "bininspect_view_set_active", `{"view":`+jsonString(a.str("view"))+`}`); r.code != CodeNoSession {
		t.Errorf("set_active on the stateless revision: %s", r.raw)
	}
	s.must(ctx, "bininspect_view_close", `{"view":`+jsonString(b.str("view"))+`}`)
	tri = s.must(ctx, "bininspect_triage", `{}`)
	if tri.str("arch") != "arm64" || !tri.warned(WarnImplicitView) {
		t.Errorf("one view left: %s", tri.raw)
	}
	// Opening the same bytes again is the same view, with the same handle.
	again := s.must(ctx, "bininspect_open", `{"data_base64":"`+rawARM(1)+`","format":"raw","arch":"arm64","base":"0x1000","name":"one"}`)
	if again.str("view") != a.str("view") || again.structured["cached"] != true {
		t.Errorf("reopen: %s", again.raw)
	}
	list := s.must(ctx, "bininspect_view_list", `{}`)
	if it := list.items(); len(it) != 1 || it[0]["view"] != a.str("view") || it[0]["arch"] != "arm64" || it[0]["active"] != false {
		t.Errorf("view_list: %s", list.raw)
	}
}

// rawARM is a few arm64 instructions, different for each n, in base64.
func rawARM(n byte) string {
	b := []byte{0x1f, 0x20, 0x03, 0xd5, 0xc0, 0x03, 0x5f, 0xd6, n, n, n, n, 'p', 'a', 's', 's', 'w', 'o', 'r', 'd', 0}
	return base64.StdEncoding.EncodeToString(b)
}

// Legacy sessions: bininspect_open makes the view active unless told not
// to, bininspect_view_set_active changes it, an explicit view wins, and
// a closed active view falls back to the only open one.
func TestLegacyActiveView(t *testing.T) {
	s := newServer(t, newViews(t, BinaryOptions{}))
	ctx := as(alice)
	l := s.legacy(ctx)
	a := l.call("bininspect_open", `{"data_base64":"`+rawARM(1)+`","format":"raw","arch":"arm64","name":"one"}`)
	if a.isError || a.structured["active"] != true {
		t.Fatalf("open: %s", a.raw)
	}
	b := l.call("bininspect_open", `{"data_base64":"`+rawARM(2)+`","format":"raw","arch":"x86-64","name":"two","set_active":false}`)
	if b.isError || b.structured["active"] != false {
		t.Fatalf("open: %s", b.raw)
	}
	if tri := l.call("bininspect_triage", `{}`); tri.str("name") != "one" || tri.warned(WarnImplicitView) {
		t.Errorf("active view: %s", tri.raw)
	}
	if r := l.call("bininspect_view_set_active", `{"view":`+jsonString(b.str("view"))+`}`); r.isError {
		t.Fatalf("set_active: %s", r.raw)
	}
	if tri := l.call("bininspect_triage", `{}`); tri.str("name") != "two" {
		t.Errorf("after set_active: %s", tri.raw)
	}
	if tri := l.call("bininspect_triage", `{"view":`+jsonString(a.str("view"))+`}`); tri.str("name") != "one" {
		t.Errorf("explicit view: %s", tri.raw)
	}
	list := l.call("bininspect_view_list", `{"query":"TWO"}`)
	if it := list.items(); len(it) != 1 || it[0]["active"] != true {
		t.Errorf("view_list: %s", list.raw)
	}
	// Another session of the same caller has no active view: two open.
	other := s.legacy(ctx)
	if r := other.call("bininspect_triage", `{}`); r.code != tool.CodeNoActiveView || !strings.Contains(r.message, "set_active") {
		t.Errorf("another session: %s", r.raw)
	}
	l.call("bininspect_view_close", `{"view":`+jsonString(b.str("view"))+`}`)
	if tri := l.call("bininspect_triage", `{}`); tri.str("name") != "one" || !tri.warned(WarnImplicitView) {
		t.Errorf("after closing the active view: %s", tri.raw)
	}
}

// A handle works only for the caller that opened the view: another
// credential of the same tenant, another tenant, a tampered handle, one
// sealed under another key, or one of a closed view get view_not_found.
func TestHandlesBoundToCaller(t *testing.T) {
	store := viewstore.NewMemory(0)
	key := make([]byte, 32)
	s := newServer(t, newViews(t, BinaryOptions{Store: store, Key: key}))
	open := s.must(as(alice), "bininspect_open", `{"data_base64":"`+rawARM(1)+`","format":"raw","arch":"arm64"}`)
	h := open.str("view")
	args := `{"view":` + jsonString(h) + `}`
	for who, ctx := range map[string]context.Context{"bob (same tenant)": as(bob), "carol (other tenant)": as(carol)} {
		for _, name := range []string{"bininspect_triage", "bininspect_view_close"} {
			if r := s.call(ctx, name, args); r.code != CodeViewNotFound {
				t.Errorf("%s, %s: %s", who, name, r.raw)
			}
		}
	}
	raw, _ := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(h, handlePrefix))
	raw[len(raw)-1] ^= 1
	tampered := handlePrefix + base64.RawURLEncoding.EncodeToString(raw)
	other := make([]byte, 32)
	other[0] = 1
	foreign := newServer(t, newViews(t, BinaryOptions{Store: store, Key: other}))
	for what, r := range map[string]reply{
		"tampered":          s.call(as(alice), "bininspect_triage", `{"view":`+jsonString(tampered)+`}`),
		"another key":       foreign.call(as(alice), "bininspect_triage", args),
		"not a handle":      s.call(as(alice), "bininspect_triage", `{"view":"main"}`),
		"bob lists nothing": s.call(as(bob), "bininspect_triage", `{}`),
	} {
		want := CodeViewNotFound
		if what == "bob lists nothing" {
			want = tool.CodeNoActiveView
		}
		if r.code != want {
			t.Errorf("%s: %s", what, r.raw)
		}
	}
	// Closed, the handle is dead, also after the file is opened again.
	s.must(as(alice), "bininspect_view_close", args)
	if r := s.call(as(alice), "bininspect_triage", args); r.code != CodeViewNotFound {
		t.Errorf("closed: %s", r.raw)
	}
	again := s.must(as(alice), "bininspect_open", `{"data_base64":"`+rawARM(1)+`","format":"raw","arch":"arm64"}`)
	if again.str("view") == h {
		t.Error("a reopened view has the closed view's handle")
	}
	if r := s.call(as(alice), "bininspect_triage", args); r.code != CodeViewNotFound {
		t.Errorf("closed handle after reopening: %s", r.raw)
	}
	// Bob, same tenant, opening the same bytes gets his own view.
	mine := s.must(as(bob), "bininspect_open", `{"data_base64":"`+rawARM(1)+`","format":"raw","arch":"arm64"}`)
	if mine.str("view") == again.str("view") {
		t.Error("two callers share a handle")
	}
}

// Paths: only under a root, symbolic links resolved first, regular files
// only; messages never name a path.
func TestPathsUnderRoots(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	outside := filepath.Join(base, "outside")
	os.MkdirAll(filepath.Join(root, "sub"), 0o755)
	os.MkdirAll(outside, 0o755)
	elf := []byte("\x7fELF\x02\x01\x01")
	for _, p := range []string{filepath.Join(root, "sub", "in.bin"), filepath.Join(outside, "secret.bin")} {
		os.WriteFile(p, append(elf, make([]byte, 64)...), 0o644)
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(filepath.Join(outside, "secret.bin"), filepath.Join(root, "escape.bin")))
	must(os.Symlink(outside, filepath.Join(root, "escape-dir")))
	must(os.Symlink(filepath.Join(root, "sub", "in.bin"), filepath.Join(root, "inner-link.bin")))
	must(syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644))
	os.WriteFile(filepath.Join(root, "raw.bin"), []byte{0x90, 0x90, 0xc3, 0x00}, 0o644)
	s := newServer(t, newViews(t, BinaryOptions{Roots: []string{root}}))
	ctx := as(alice)
	for _, c := range []struct{ path, code string }{
		{filepath.Join(outside, "secret.bin"), CodePathNotAllowed},
		{"../outside/secret.bin", CodePathNotAllowed},
		{filepath.Join(root, "..", "outside", "secret.bin"), CodePathNotAllowed},
		{"escape.bin", CodePathNotAllowed},
		{"escape-dir/secret.bin", CodePathNotAllowed},
		{"fifo", CodePathNotAllowed},
		{"sub", CodePathNotAllowed},
		{filepath.Join(outside, "missing"), CodePathNotAllowed}, // outside: existence is not revealed
		{"missing.bin", CodeFileNotFound},
		{"/etc/passwd", CodePathNotAllowed},
	} {
		r := s.call(ctx, "bininspect_open", `{"path":`+jsonString(c.path)+`}`)
		if r.code != c.code {
			t.Errorf("%s: %s, want %s", c.path, r.raw, c.code)
		}
		if strings.Contains(string(r.raw), base) {
			t.Errorf("%s: the answer names a server path: %s", c.path, r.raw)
		}
	}
	// A link that stays inside the root is followed.
	r := s.call(ctx, "bininspect_open", `{"path":"inner-link.bin"}`)
	if r.code == CodePathNotAllowed || r.code == CodeFileNotFound {
		t.Errorf("inner link: %s", r.raw)
	}
	ok := s.must(ctx, "bininspect_open", `{"path":"raw.bin","format":"raw","arch":"x86-64"}`)
	if ok.str("name") != "raw.bin" || ok.structured["blob"] != nil {
		t.Errorf("raw open: %s", ok.raw)
	}
	// A server without roots opens no path at all.
	none := newServer(t, newViews(t, BinaryOptions{}))
	if r := none.call(ctx, "bininspect_open", `{"path":`+jsonString(filepath.Join(root, "raw.bin"))+`}`); r.code != CodePathNotAllowed {
		t.Errorf("no roots: %s", r.raw)
	}
	// The file size limit holds before the file is read.
	small := newServer(t, newViews(t, BinaryOptions{Roots: []string{root}, MaxFileSize: 3}))
	if r := small.call(ctx, "bininspect_open", `{"path":"raw.bin","format":"raw","arch":"x86-64"}`); r.code != binview.CodeFileTooLarge {
		t.Errorf("over the limit: %s", r.raw)
	}
}

// data_base64 is for snippets: at most 1 MiB.
func TestDataBase64Cap(t *testing.T) {
	s := newServer(t, newViews(t, BinaryOptions{}))
	ctx := as(alice)
	big := base64.StdEncoding.EncodeToString(make([]byte, MaxDataBytes+1))
	if r := s.call(ctx, "bininspect_open", `{"data_base64":"`+big+`","format":"raw","arch":"x86-64"}`); r.code != binview.CodeFileTooLarge {
		t.Errorf("1 MiB + 1: %.200s", r.raw)
	}
	exact := base64.StdEncoding.EncodeToString(make([]byte, MaxDataBytes))
	if r := s.call(ctx, "bininspect_open", `{"data_base64":"`+exact+`","format":"raw","arch":"x86-64"}`); r.isError {
		t.Errorf("1 MiB: %.300s", r.raw)
	}
	for _, bad := range []string{"not base64!", "===="} {
		if r := s.call(ctx, "bininspect_open", `{"data_base64":`+jsonString(bad)+`}`); r.code != tool.CodeInvalidParams {
			t.Errorf("%q: %s", bad, r.raw)
		}
	}
	for _, args := range []string{`{}`, `{"path":"a","data_base64":"AAAA"}`, `{"blob":"sha256:zz"}`, `{"data_base64":"AAAA","arch":"arm64"}`, `{"data_base64":"AAAA","format":"raw"}`} {
		if r := s.call(ctx, "bininspect_open", args); !r.isError || r.code == tool.CodeInternal {
			t.Errorf("%s: %s", args, r.raw)
		}
	}
}

// countingAnalyze counts the analyses that run.
func countingAnalyze(n *atomic.Int32) func(context.Context, []byte, *binview.Options) (*binview.Analysis, error) {
	return func(ctx context.Context, data []byte, opts *binview.Options) (*binview.Analysis, error) {
		n.Add(1)
		return binview.Analyze(ctx, data, opts)
	}
}

// The analysis cache is keyed by content; it serves any tenant that
// brings the bytes, and a tenant that only knows the hash gets nothing.
// A second replica on the same store rebuilds a view from the store.
func TestCacheAcrossTenantsAndReplicas(t *testing.T) {
	dir := rootWith(t, "hello-elf")
	data, _ := os.ReadFile(filepath.Join(dir, "hello-elf"))
	enc := base64.StdEncoding.EncodeToString(data)
	if len(data) > MaxDataBytes {
		t.Skip("fixture too large for data_base64")
	}
	store := viewstore.NewMemory(0)
	key := make([]byte, 32)
	var runs atomic.Int32
	one := newServer(t, newViews(t, BinaryOptions{Store: store, Key: key, Roots: []string{dir}, Analyze: countingAnalyze(&runs)}))
	two := newServer(t, newViews(t, BinaryOptions{Store: store, Key: key, Roots: []string{dir}, Analyze: countingAnalyze(&runs)}))

	a := one.must(as(alice), "bininspect_open", `{"data_base64":"`+enc+`"}`)
	if runs.Load() != 1 || a.structured["cached"] != false || a.str("blob") != BlobRef(a.str("sha256")) {
		t.Fatalf("first open: %d runs, %s", runs.Load(), a.raw)
	}
	// Carol (another tenant) knows the hash only: nothing.
	if r := two.call(as(carol), "bininspect_open", `{"blob":`+jsonString(a.str("blob"))+`}`); r.code != CodeBlobNotFound {
		t.Errorf("carol by hash: %s", r.raw)
	}
	// Carol brings the bytes: served from the cache.
	c := two.must(as(carol), "bininspect_open", `{"path":"hello-elf"}`)
	if runs.Load() != 1 || c.structured["cached"] != true {
		t.Errorf("carol with the bytes: %d runs, %s", runs.Load(), c.raw)
	}
	// Now carol may open it by hash too.
	two.must(as(carol), "bininspect_open", `{"blob":`+jsonString(a.str("blob"))+`}`)
	// Bob (alice's tenant) may open alice's upload by reference.
	one.must(as(bob), "bininspect_open", `{"blob":`+jsonString(a.str("blob"))+`}`)
	// Alice's handle works on the second replica, which rebuilds the view
	// from the store without analysing again.
	tri := two.must(as(alice), "bininspect_triage", `{"view":`+jsonString(a.str("view"))+`}`)
	if tri.str("name") != a.str("name") || runs.Load() != 1 {
		t.Errorf("replica two: %d runs, %s", runs.Load(), tri.raw)
	}
}

// Each caller keeps at most MaxViews views; reopening is not a new view.
func TestViewLimit(t *testing.T) {
	s := newServer(t, newViews(t, BinaryOptions{MaxViews: 2}))
	ctx := as(alice)
	for i := byte(1); i <= 2; i++ {
		s.must(ctx, "bininspect_open", `{"data_base64":"`+rawARM(i)+`","format":"raw","arch":"arm64"}`)
	}
	r := s.call(ctx, "bininspect_open", `{"data_base64":"`+rawARM(3)+`","format":"raw","arch":"arm64"}`)
	if views, _ := r.details["views"].([]any); r.code != CodeTooManyViews || len(views) != 2 {
		t.Errorf("third view: %s", r.raw)
	}
	s.must(ctx, "bininspect_open", `{"data_base64":"`+rawARM(2)+`","format":"raw","arch":"arm64"}`)
	s.must(as(bob), "bininspect_open", `{"data_base64":"`+rawARM(3)+`","format":"raw","arch":"arm64"}`)
}

// A view unused for ViewIdle closes.
func TestIdleExpiry(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	var clock atomic.Int64
	clock.Store(now.UnixNano())
	s := newServer(t, newViews(t, BinaryOptions{ViewIdle: 10 * time.Minute, Now: func() time.Time { return time.Unix(0, clock.Load()) }}))
	ctx := as(alice)
	h := s.must(ctx, "bininspect_open", `{"data_base64":"`+rawARM(1)+`","format":"raw","arch":"arm64"}`).str("view")
	args := `{"view":` + jsonString(h) + `}`
	clock.Add(int64(9 * time.Minute))
	s.must(ctx, "bininspect_triage", args) // a use moves the expiry
	clock.Add(int64(9 * time.Minute))
	s.must(ctx, "bininspect_triage", args)
	clock.Add(int64(11 * time.Minute))
	if r := s.call(ctx, "bininspect_triage", args); r.code != CodeViewNotFound {
		t.Errorf("after 11 idle minutes: %s", r.raw)
	}
	if list := s.must(ctx, "bininspect_view_list", `{}`); len(list.items()) != 0 {
		t.Errorf("list: %s", list.raw)
	}
}

// Every list tool pages the same way: offset, limit (clamped at 1000),
// range and query; items, count, total, next_offset, truncated.
func TestListConventions(t *testing.T) {
	dir := rootWith(t, "go-linux-stripped")
	s := newServer(t, newViews(t, BinaryOptions{Roots: []string{dir}}))
	ctx := as(alice)
	s.must(ctx, "bininspect_open", `{"path":"go-linux-stripped"}`)
	all := s.must(ctx, "bininspect_symbols", `{"limit":5000}`)
	total := int(all.structured["total"].(float64))
	// More symbols than a page holds (the fixture has about 1,500).
	if all.structured["count"].(float64) != 1000 || total <= 1000 || all.structured["truncated"] != true || all.structured["next_offset"].(float64) != 1000 {
		t.Fatalf("clamped page: count %v total %v", all.structured["count"], total)
	}
	last := s.must(ctx, "bininspect_symbols", fmt.Sprintf(`{"offset":%d,"limit":10}`, total-3))
	// The last page has no next page: next_offset is absent, as on
	// every list, the functions, the cross-references and annotations.
	if _, has := last.structured["next_offset"]; last.structured["count"].(float64) != 3 || last.structured["truncated"] != false || has {
		t.Errorf("last page: %s", last.raw)
	}
	first := all.items()[0]["address"].(string)
	rng := s.must(ctx, "bininspect_symbols", `{"start":`+jsonString(first)+`,"length":"0x1000","limit":3}`)
	for _, it := range rng.items() {
		if !strings.HasPrefix(it["address"].(string), "0x") {
			t.Errorf("address %v", it["address"])
		}
	}
	rel := s.must(ctx, "bininspect_symbols", `{"start":"main.main","end":"main.main+1"}`)
	if it := rel.items(); len(it) != 1 || it[0]["name"] != "main.main" {
		t.Errorf("range by expression: %s", rel.raw)
	}
	q := s.must(ctx, "bininspect_symbols", `{"query":"MAIN.MAIN"}`)
	if q.structured["total"].(float64) != 1 {
		t.Errorf("query: %s", q.raw)
	}
	for _, args := range []string{`{"address":"main.main","start":"main.main"}`, `{"start":"main.main","end":"main.main+8","length":8}`, `{"end":"main.main"}`, `{"start":"main.main+8","end":"main.main"}`} {
		if r := s.call(ctx, "bininspect_symbols", args); r.code != tool.CodeInvalidParams {
			t.Errorf("%s: %s", args, r.raw)
		}
	}
	sr := s.must(ctx, "bininspect_search_bytes", `{"pattern":"00 ??","limit":2,"offset":4}`)
	if sr.structured["count"].(float64) != 2 || sr.structured["next_offset"].(float64) != 6 || !sr.warned("truncated") {
		t.Errorf("search paging: %s", sr.raw)
	}
}

// A read past the end of mapped memory returns what there is, with a
// warning; more than 64 KiB is refused.
func TestMemoryReadLimits(t *testing.T) {
	s := newServer(t, newViews(t, BinaryOptions{}))
	ctx := as(alice)
	s.must(ctx, "bininspect_open", `{"data_base64":"`+rawARM(1)+`","format":"raw","arch":"arm64","base":"0x1000"}`)
	r := s.must(ctx, "bininspect_memory_read", `{"address":"0x1010","length":16}`)
	if r.structured["length"].(float64) != 5 || !r.warned(WarnPartialRead) {
		t.Errorf("partial: %s", r.raw)
	}
	if r := s.call(ctx, "bininspect_memory_read", `{"address":"0x1000","length":65537}`); r.code != tool.CodeInvalidParams {
		t.Errorf("65537: %s", r.raw)
	}
	if r := s.call(ctx, "bininspect_memory_read", `{"address":"0x9000","length":1}`); r.code != binview.CodeAddressUnmapped {
		t.Errorf("unmapped: %s", r.raw)
	}
	if r := s.call(ctx, "bininspect_memory_read", `{"address":"nosuchsymbol","length":1}`); r.code != tool.CodeInvalidParams {
		t.Errorf("bad expression: %s", r.raw)
	}
}

// A large file's open becomes a task for a client that supports tasks.
func TestLargeOpenDetaches(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	b := newViews(t, BinaryOptions{DetachAbove: 8, Analyze: func(ctx context.Context, data []byte, o *binview.Options) (*binview.Analysis, error) {
		started <- struct{}{}
		<-release
		return binview.Analyze(ctx, data, o)
	}})
	s := newServer(t, b)
	ctx := as(alice)
	const tasksMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"bininspect_open","arguments":{"data_base64":"` + rawARM(1) + `","format":"raw","arch":"arm64"},` + tasksMeta + `}}`
	out := string(s.srv.ServeMessage(ctx, []byte(msg), nil))
	<-started
	if !strings.Contains(out, `"resultType":"task"`) {
		t.Fatalf("not a task: %s", out)
	}
	id := out[strings.Index(out, `"taskId":"`)+10:]
	id = id[:strings.Index(id, `"`)]
	close(release)
	get := `{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"` + id + `",` + tasksMeta + `}}`
	deadline := time.Now().Add(30 * time.Second)
	for {
		res := string(s.srv.ServeMessage(ctx, []byte(get), nil))
		if strings.Contains(res, `"status":"completed"`) {
			if !strings.Contains(res, handlePrefix) {
				t.Errorf("task result: %s", res)
			}
			break
		}
		if time.Now().After(deadline) || strings.Contains(res, `"status":"failed"`) {
			t.Fatalf("task: %s", res)
		}
		time.Sleep(5 * time.Millisecond) // polling, as a client does
	}
}

// Two identical opens at once share one analysis: the second waits for
// the first and answers from it, without asking admission for a scan of
// its own (operations.md says so).
func TestIdenticalOpensShareOneAnalysis(t *testing.T) {
	dir := rootWith(t, "hello-elf")
	started, release := make(chan struct{}, 2), make(chan struct{})
	var runs atomic.Int32
	b := newViews(t, BinaryOptions{Roots: []string{dir}, Analyze: func(ctx context.Context, data []byte, o *binview.Options) (*binview.Analysis, error) {
		runs.Add(1)
		started <- struct{}{}
		<-release
		return binview.Analyze(ctx, data, o)
	}})
	s := newServer(t, b)
	var admitted atomic.Int32
	admit := func(next tool.Handler) tool.Handler {
		return func(ctx context.Context, c *tool.Call) tool.Outcome {
			c.SetAdmission(func(ctx context.Context) (context.Context, error) {
				admitted.Add(1)
				return ctx, nil
			})
			return next(ctx, c)
		}
	}
	s.srv = mcp.NewServer(s.reg, &mcp.Options{Middleware: []tool.Middleware{admit}})
	t.Cleanup(s.srv.Close)
	replies := make(chan reply, 2)
	open := func() { replies <- s.call(as(alice), "bininspect_open", `{"path":"hello-elf"}`) }
	go open()
	<-started
	go open()
	time.Sleep(200 * time.Millisecond) // the second reaches the analysis in flight
	close(release)
	cached := 0
	for range 2 {
		r := <-replies
		if r.isError {
			t.Fatalf("open: %s", r.raw)
		}
		if r.structured["cached"] == true {
			cached++
		}
	}
	if runs.Load() != 1 || admitted.Load() != 1 || cached != 1 {
		t.Errorf("%d analyses, %d admissions, %d answers from the cache; want 1, 1, 1", runs.Load(), admitted.Load(), cached)
	}
}

// A name that does not resolve says what to do next: which tools list
// the file's names, and which start-up names a stripped file has.
func TestUnknownSymbolSaysWhereNamesAre(t *testing.T) {
	dir := rootWith(t, "go-linux-stripped")
	s := newServer(t, newViews(t, BinaryOptions{Roots: []string{dir}}))
	ctx := as(alice)
	s.must(ctx, "bininspect_open", `{"path":"go-linux-stripped"}`)
	r := s.call(ctx, "bininspect_address_info", `{"address":"no_such_name + 4"}`)
	if !strings.Contains(r.message, "unknown symbol") || !strings.Contains(r.message, "bininspect_functions") || !strings.Contains(r.message, "sub_<hex>") {
		t.Errorf("unknown name: %s: %s", r.code, r.message)
	}
}
