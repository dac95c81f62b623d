package binview

import (
	"strings"
	"testing"
)

func TestStringsASCIIAndUTF16(t *testing.T) {
	data := []byte("\x00\x01abc\x00hello world\x00\x02")
	data = append(data, []byte("w\x00i\x00d\x00e\x00s\x00\x00\x00")...)
	data = append(data, []byte("tail")...)
	v := rawView(t, data, 0x1000)
	strs, cut := v.Strings()
	if cut {
		t.Error("cut")
	}
	var got []string
	for _, s := range strs {
		text, _ := v.StringText(s, 0)
		got = append(got, s.Encoding+":"+text)
	}
	want := "ascii:hello world|utf16le:wides|ascii:tail"
	if strings.Join(got, "|") != want {
		t.Errorf("strings %q, want %q", strings.Join(got, "|"), want)
	}
	if s, ok := v.StringAt(0x1000 + 8); !ok || s.Addr != 0x1006 {
		t.Errorf("StringAt = %+v, %v", s, ok)
	}
	if text, cut := v.StringText(strs[0], 5); text != "hello" || !cut {
		t.Errorf("cut text %q %v", text, cut)
	}
}

func TestStringsLimit(t *testing.T) {
	data := []byte(strings.Repeat("word\x00", 100))
	v, err := Open(t.Context(), "x", data, &Options{Format: FormatRaw, Arch: ArchARM64, MaxStrings: 10})
	if err != nil {
		t.Fatal(err)
	}
	strs, cut := v.Strings()
	if len(strs) != 10 || !cut {
		t.Errorf("%d strings, cut %v", len(strs), cut)
	}
	if tr := v.Triage(); tr.State != "partial" || !tr.Counts.StringsCut || tr.Counts.Symbols != 0 {
		t.Errorf("triage state %s", tr.State)
	}
}

func TestNotableStrings(t *testing.T) {
	v := openFile(t, gccFixture(t, "gcc-O2", "-O2"), nil)
	var urls []string
	for _, n := range v.NotableStrings(50) {
		if n.Kind == NotableURL {
			urls = append(urls, n.Text)
		}
	}
	if len(urls) != 1 || !strings.Contains(urls[0], "http://example.com/payload") {
		t.Errorf("urls %q", urls)
	}
	for in, want := range map[string]string{
		"connect to 10.0.0.1 now": NotableIP, "999.1.1.1": "", "1.2.3": "", "v1.2.3.4.5": "",
		"admin@example.org": NotableEmail, "HKEY_LOCAL_MACHINE\\Software": NotableRegistry,
		"/etc/passwd": NotablePath, "cmd.exe /c whoami": NotableCommand, "plain text": "",
	} {
		if got := classify(in); got != want {
			t.Errorf("classify(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestELFStringsHaveSections(t *testing.T) {
	v := openFile(t, gccFixture(t, "gcc-O2", "-O2"), nil)
	p := v.ListStrings(Query{Text: "BINVIEW FIXTURE"})
	if p.Total != 1 || p.Items[0].Section != ".rodata" {
		t.Fatalf("page %+v", p)
	}
	if _, ok := v.OffsetOf(p.Items[0].Addr); !ok {
		t.Error("string address unmapped")
	}
}
