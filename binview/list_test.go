package binview

import (
	"testing"
)

func TestPaginate(t *testing.T) {
	v := openFile(t, "/lib/x86_64-linux-gnu/libc.so.6", nil)
	all := v.ListSymbols(Query{Limit: MaxLimit + 5})
	if len(all.Items) != MaxLimit || !all.Truncated || all.Next != MaxLimit || all.Total != len(v.Symbols()) {
		t.Errorf("first page: %d items, total %d, next %d", len(all.Items), all.Total, all.Next)
	}
	p := v.ListSymbols(Query{Text: "MALLOC"})
	found := false
	for _, s := range p.Items {
		found = found || s.Name == "malloc"
	}
	if !found || p.Total == 0 {
		t.Errorf("case-insensitive query: %+v", p)
	}
	m, _ := v.Symbol("malloc")
	r := v.ListSymbols(Query{Ranged: true, Start: m, End: m + 1})
	if r.Total == 0 || r.Items[0].Addr != m {
		t.Errorf("ranged page %+v", r)
	}
	last := v.ListSymbols(Query{Offset: all.Total - 3, Limit: 10})
	if len(last.Items) != 3 || last.Truncated || last.Next != 0 {
		t.Errorf("last page: %d items, truncated %v", len(last.Items), last.Truncated)
	}
	if d := v.ListImports(Query{Text: "ld-linux"}); d.Total == 0 {
		t.Error("imports by library")
	}
	if e := v.ListExports(Query{Text: "printf", Limit: 5}); len(e.Items) != 5 || !e.Truncated {
		t.Errorf("exports %+v", e)
	}
	if s := v.ListSections(Query{Text: ".text"}); s.Total != 1 {
		t.Errorf("sections %+v", s)
	}
}

func TestContainsFold(t *testing.T) {
	for _, c := range []struct {
		s, n string
		want bool
	}{
		{"GetProcAddress", "procaddr", true},
		{"abc", "abcd", false},
		{"ÄBC", "äb", true},
		{"", "", true},
		{"x", "", true},
	} {
		if got := containsFold(c.s, c.n); got != c.want {
			t.Errorf("containsFold(%q, %q) = %v", c.s, c.n, got)
		}
	}
}
