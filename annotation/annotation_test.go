package annotation_test

import (
	"strings"
	"testing"

	"github.com/warden-mcp/warden/annotation"
	"github.com/warden-mcp/warden/annotation/annotationtest"
	"github.com/warden-mcp/warden/errcode"
)

type memBackend struct{ m *annotation.Memory }

func (b memBackend) Instance(*testing.T) annotation.Store { return b.m }

func TestMemory(t *testing.T) {
	annotationtest.Run(t, func(*testing.T) annotationtest.Backend { return memBackend{annotation.NewMemory()} })
}

func TestCheckName(t *testing.T) {
	for _, c := range []struct {
		name string
		ok   bool
	}{
		{"decode_config", true},
		{"ns::Parser::run", true},
		{"xor@loop.2", true},
		{"operator<", true},
		{"_start", true},
		{"", false},
		{"1stage", false},
		{"sub_401000", false},
		{"loc_ABC", false},
		{"sub_helper", true},
		{"has space", false},
		{"quote'd", false},
		{"tab\tname", false},
		{strings.Repeat("a", 257), false},
		{strings.Repeat("a", 256), true},
		{"bad\xffutf8", false},
	} {
		err := annotation.CheckName(c.name)
		if (err == nil) != c.ok {
			t.Errorf("CheckName(%q) = %v, want ok %v", c.name, err, c.ok)
		}
		if err != nil && errcode.CodeOf(err) != annotation.CodeInvalid {
			t.Errorf("CheckName(%q): code %q", c.name, errcode.CodeOf(err))
		}
	}
}

func TestCheckComment(t *testing.T) {
	for _, c := range []struct {
		text string
		ok   bool
	}{
		{"decrypts the config\nwith RC4", true},
		{"  ", false},
		{"bell\a", false},
		{strings.Repeat("é", 4096), true},
		{strings.Repeat("é", 4097), false},
	} {
		if err := annotation.CheckComment(c.text); (err == nil) != c.ok {
			t.Errorf("CheckComment(%.20q) = %v, want ok %v", c.text, err, c.ok)
		}
	}
}

func TestCheckEntry(t *testing.T) {
	good := annotation.Entry{File: annotation.File{Tenant: "t", SHA256: strings.Repeat("0a", 32)},
		Kind: annotation.KindFunction, Author: "c"}
	if err := annotation.Check(good); err != nil {
		t.Fatal(err)
	}
	bad := map[string]func(e *annotation.Entry){
		"no tenant":          func(e *annotation.Entry) { e.Tenant = "" },
		"upper-case hash":    func(e *annotation.Entry) { e.SHA256 = strings.Repeat("0A", 32) },
		"short hash":         func(e *annotation.Entry) { e.SHA256 = "abc" },
		"unknown kind":       func(e *annotation.Entry) { e.Kind = "colour" },
		"no author":          func(e *annotation.Entry) { e.Author = "" },
		"text on a function": func(e *annotation.Entry) { e.Text = "x" },
		"deletion with text": func(e *annotation.Entry) { e.Deleted, e.Kind, e.Text = true, annotation.KindComment, "x" },
	}
	for name, f := range bad {
		e := good
		f(&e)
		if err := annotation.Check(e); errcode.CodeOf(err) != annotation.CodeInvalid {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestStateLatestWins(t *testing.T) {
	f := annotation.File{Tenant: "t", SHA256: strings.Repeat("0a", 32)}
	s := annotation.NewState()
	s.Apply([]annotation.Entry{
		{File: f, Seq: 1, Kind: annotation.KindName, Offset: 0x10, Text: "a"},
		{File: f, Seq: 2, Kind: annotation.KindComment, Offset: 0x10, Text: "c"},
		{File: f, Seq: 3, Kind: annotation.KindName, Offset: 0x10, Text: "b"},
		{File: f, Seq: 4, Kind: annotation.KindFunction, Offset: 0x30},
		{File: f, Seq: 5, Kind: annotation.KindFunction, Offset: 0x20},
		{File: f, Seq: 6, Kind: annotation.KindComment, Offset: 0x10, Deleted: true},
	})
	// Entries already applied are ignored.
	s.Apply([]annotation.Entry{{File: f, Seq: 2, Kind: annotation.KindName, Offset: 0x10, Text: "stale"}})
	if got := s.Names(); len(got) != 1 || got[0x10] != "b" {
		t.Errorf("names %v", got)
	}
	if _, ok := s.Get(annotation.KindComment, 0x10); ok {
		t.Error("a deleted comment is current")
	}
	if got := s.Functions(); len(got) != 2 || got[0] != 0x20 || got[1] != 0x30 {
		t.Errorf("functions %v", got)
	}
	if s.Seq() != 6 {
		t.Errorf("seq %d", s.Seq())
	}
	es := s.Entries()
	if len(es) != 3 || es[0].Offset != 0x10 || es[1].Offset != 0x20 {
		t.Errorf("entries %+v", es)
	}
}
