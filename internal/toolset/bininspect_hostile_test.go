package toolset

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/warden-mcp/warden/binview/budget"
	"github.com/warden-mcp/warden/internal/hostile"
	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/tool"
)

// short cuts a reply for a failure message: a hostile file's answers are
// long.
func short(r reply) string {
	if s := string(r.raw); len(s) > 400 {
		return s[:400] + "…"
	}
	return string(r.raw)
}

// hostileServer serves the bininspect_ family over b with code tools that
// wait up to a minute for a stage, so a test reads each stage's outcome
// rather than analysis_incomplete.
func hostileServer(t *testing.T, b *BinaryViews) *server {
	t.Helper()
	reg := tool.NewRegistry()
	if err := Register(reg, Deps{Binary: b, CodeWait: time.Minute}, Selection{Edition: EditionLean}); err != nil {
		t.Fatal(err)
	}
	srv := mcp.NewServer(reg, nil) // the family resolves its own views
	t.Cleanup(srv.Close)
	return &server{t: t, b: b, reg: reg, srv: srv}
}

// The files of the reports, through the tools a client calls: each fails
// its own call with analysis_limit naming the limit, and a normal file
// opened beside them is answered as before.
func TestHostileFilesFailOnlyTheirOwnCall(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string][]byte{
		"calls": hostile.CallFlood(300_000),
		"block": hostile.GiantBlock(100_000),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b := newViews(t, BinaryOptions{Roots: []string{dir}, AnalysisLimits: budget.Limits{Bytes: 32 << 20}})
	s := hostileServer(t, b)
	ctx := as(alice)
	handle := func(name string) string {
		return `"view":` + jsonString(s.must(ctx, "bininspect_open", `{"path":"`+name+`"}`).str("view"))
	}
	calls, block := handle("calls"), handle("block")
	normal := `"view":` + jsonString(s.must(ctx, "bininspect_open",
		`{"data_base64":"`+base64.StdEncoding.EncodeToString(hostile.GiantBlock(50))+`","name":"normal"}`).str("view"))

	r := s.call(ctx, "bininspect_xrefs", `{`+calls+`,"address":"0x401005"}`)
	if r.code != budget.Code || r.details["limit"] != "bytes" || !strings.Contains(r.message, "bytes limit") {
		t.Errorf("xrefs on the call flood: %s", short(r))
	}
	// The stage that failed fails every call that needs it, at once.
	if r := s.call(ctx, "bininspect_function_graph", `{`+calls+`,"function":"0x401000"}`); r.code != budget.Code {
		t.Errorf("graph on the call flood: %s", short(r))
	}
	// Linear disassembly needs no analysis the budget stopped.
	s.must(ctx, "bininspect_disassemble", `{`+calls+`,"address":"0x401000","count":3}`)

	r = s.call(ctx, "bininspect_function_graph", `{`+block+`,"function":"main"}`)
	if r.code != budget.Code || r.details["limit"] != "output" {
		t.Errorf("graph of the giant block: %s", short(r))
	}
	// Its blocks list, paged, is still answered.
	if bl := s.must(ctx, "bininspect_basic_blocks", `{`+block+`,"function":"main"}`); bl.structured["total"] != float64(1) {
		t.Errorf("blocks of the giant block: %s", short(bl))
	}

	g := s.must(ctx, "bininspect_function_graph", `{`+normal+`,"function":"main"}`)
	if !strings.HasPrefix(g.str("dot"), "digraph") {
		t.Errorf("graph of the normal file: %s", short(g))
	}
}
