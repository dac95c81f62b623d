package binview

import (
	"context"
	"testing"

	"github.com/warden-mcp/warden/errcode"
)

func TestParsePattern(t *testing.T) {
	cases := []struct {
		in, want string
		code     string
	}{
		{"48 8B ?? ??", "48 8b ?? ??", ""},
		{"488b05????????", "48 8b 05 ?? ?? ?? ??", ""},
		{"4? 8b", "4? 8b", ""},
		{"?? ??", "", CodeInvalidPattern},
		{"48 8", "", CodeInvalidPattern},
		{"zz", "", CodeInvalidPattern},
		{"", "", CodeInvalidPattern},
	}
	for _, c := range cases {
		p, err := ParsePattern(c.in)
		if errcode.CodeOf(err) != c.code || err == nil && p.String() != c.want {
			t.Errorf("ParsePattern(%q) = %q, %v", c.in, p.String(), err)
		}
	}
	long := make([]byte, 2*MaxPatternLen+2)
	for i := range long {
		long[i] = 'a'
	}
	if _, err := ParsePattern(string(long)); errcode.CodeOf(err) != CodeInvalidPattern {
		t.Errorf("long pattern: %v", err)
	}
}

func TestSearch(t *testing.T) {
	data := []byte("..\x48\x8b\x05\x01\x02..\x48\x8b\x0d\x03\x04..\x48\x8b")
	v := rawView(t, data, 0x1000)
	ctx := context.Background()
	p, _ := ParsePattern("48 8b ?? ?? ??")
	m, cut, err := v.Search(ctx, p, SearchOptions{})
	if err != nil || cut || len(m) != 2 || m[0].Addr != 0x1002 || m[1].Addr != 0x1009 || m[1].Offset != 9 {
		t.Errorf("matches %+v cut %v err %v", m, cut, err)
	}
	m, cut, _ = v.Search(ctx, p, SearchOptions{Max: 1})
	if len(m) != 1 || !cut {
		t.Errorf("Max 1: %+v %v", m, cut)
	}
	m, _, _ = v.Search(ctx, p, SearchOptions{Start: 0x1003, End: 0x1100})
	if len(m) != 1 || m[0].Addr != 0x1009 {
		t.Errorf("ranged: %+v", m)
	}
	p, _ = ParsePattern("?? 8b 0d")
	if m, _, _ = v.Search(ctx, p, SearchOptions{}); len(m) != 1 || m[0].Addr != 0x1009 {
		t.Errorf("leading wildcard: %+v", m)
	}
	tp, _ := TextPattern("..", false)
	if m, _, _ = v.Search(ctx, tp, SearchOptions{}); len(m) != 3 {
		t.Errorf("text: %+v", m)
	}
	wp, _ := TextPattern("ab", true)
	if wp.String() != "61 00 62 00" {
		t.Errorf("utf16 pattern %s", wp)
	}
}

func TestSearchELF(t *testing.T) {
	v := openFile(t, gccFixture(t, "gcc-O2", "-O2"), nil)
	tp, _ := TextPattern("binview fixture", false)
	m, _, err := v.Search(context.Background(), tp, SearchOptions{})
	if err != nil || len(m) != 1 {
		t.Fatalf("%+v %v", m, err)
	}
	if s, ok := v.SectionAt(m[0].Addr); !ok || s.Name != ".rodata" {
		t.Errorf("match in %+v", s)
	}
}
