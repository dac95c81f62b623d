package toolset

import (
	"testing"

	"github.com/warden-mcp/warden/annotation"
	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/tool"
)

// TestCodeToolsThroughTheRegistry: the code and annotation tools on views
// opened with bininspect_open and resolved by handle, as the wiring serves
// them; a name one tenant sets resolves in that tenant's address
// expressions only.
func TestCodeToolsThroughTheRegistry(t *testing.T) {
	layer := NewAnnotationLayer(annotation.NewMemory())
	b := newViews(t, BinaryOptions{Roots: []string{rootWith(t, "hello-elf")}, Annotations: layer})
	reg := tool.NewRegistry()
	if err := Register(reg, Deps{Binary: b, Annotations: layer}, Selection{Edition: EditionLean}); err != nil {
		t.Fatal(err)
	}
	srv := mcp.NewServer(reg, &mcp.Options{Tasks: true}) // the family resolves its own views
	t.Cleanup(srv.Close)
	s := &server{t: t, b: b, reg: reg, srv: srv}

	view := s.must(as(alice), "bininspect_open", `{"path":"hello-elf"}`).str("view")
	fns := s.must(as(alice), "bininspect_functions", `{"view":"`+view+`","query":"twice"}`)
	if items := fns.items(); len(items) != 1 || items[0]["name"] != "twice" {
		t.Fatalf("functions: %v", fns.structured)
	}
	start := fns.items()[0]["start"].(string)
	s.must(as(alice), "bininspect_symbol_rename", `{"view":"`+view+`","address":"twice","name":"double_plus_counter"}`)
	info := s.must(as(alice), "bininspect_function_info", `{"view":"`+view+`","function":"double_plus_counter"}`)
	if info.str("start") != start || info.str("name") != "double_plus_counter" || info.str("name_source") != "user" {
		t.Errorf("function_info by the new name: %v", info.structured)
	}
	dis := s.must(as(alice), "bininspect_disassemble", `{"view":"`+view+`","address":"double_plus_counter","count":1}`)
	if items := dis.items(); len(items) != 1 || items[0]["address"] != start || items[0]["label"] != "double_plus_counter" {
		t.Errorf("disassembly at the new name: %v", dis.structured)
	}
	// Another tenant opening the same file sees the file's names only.
	other := s.must(as(carol), "bininspect_open", `{"path":"hello-elf"}`).str("view")
	if r := s.call(as(carol), "bininspect_function_info", `{"view":"`+other+`","function":"double_plus_counter"}`); !r.isError {
		t.Errorf("another tenant resolved the name: %v", r.structured)
	}
	if r := s.must(as(carol), "bininspect_function_info", `{"view":"`+other+`","function":"twice"}`); r.str("name") != "twice" {
		t.Errorf("another tenant: %v", r.structured)
	}
	// The same tenant's other credential shares the tenant's annotations.
	bobView := s.must(as(bob), "bininspect_open", `{"path":"hello-elf"}`).str("view")
	if r := s.must(as(bob), "bininspect_function_info", `{"view":"`+bobView+`","function":"double_plus_counter"}`); r.str("start") != start {
		t.Errorf("same tenant, another credential: %v", r.structured)
	}
}
