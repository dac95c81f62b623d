package binview

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/warden-mcp/warden/errcode"
	"github.com/warden-mcp/warden/internal/testbin"
	"github.com/warden-mcp/warden/tool/addrexpr"
)

// rawView maps data at base as a raw x86-64 load.
func rawView(t *testing.T, data []byte, base uint64) *View {
	t.Helper()
	v, err := Open(context.Background(), "dir/sub/blob.bin", data, &Options{Format: FormatRaw, Arch: ArchX86_64, Base: base})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestRawViewReadsAndMapping(t *testing.T) {
	data := make([]byte, 256)
	for i := range data {
		data[i] = byte(i)
	}
	v := rawView(t, data, 0x400000)
	if v.ViewName() != "blob.bin" {
		t.Errorf("ViewName = %q, want the file name only", v.ViewName())
	}
	if v.Start() != 0x400000 || v.End() != 0x400100 {
		t.Errorf("start %#x end %#x", v.Start(), v.End())
	}
	b, err := v.Bytes(0x4000f8, 16)
	if err != nil || !bytes.Equal(b, data[0xf8:]) {
		t.Errorf("short read at the end = %x, %v; want 8 bytes", b, err)
	}
	if _, err := v.Bytes(0x500000, 4); errcode.CodeOf(err) != CodeAddressUnmapped {
		t.Errorf("unmapped read: %v", err)
	}
	if _, err := v.Bytes(0x400000, DefaultMaxReadSize+1); errcode.CodeOf(err) != CodeReadTooLarge {
		t.Errorf("oversized read: %v", err)
	}
	if off, ok := v.OffsetOf(0x400010); !ok || off != 0x10 {
		t.Errorf("OffsetOf = %d, %v", off, ok)
	}
	if addr, ok := v.AddrOf(0x20); !ok || addr != 0x400020 {
		t.Errorf("AddrOf = %#x, %v", addr, ok)
	}
	if _, ok := v.AddrOf(0x200); ok {
		t.Error("AddrOf past the end")
	}
}

func TestRawOptions(t *testing.T) {
	ctx := context.Background()
	if _, err := Open(ctx, "x", []byte{1, 2, 3}, &Options{Format: FormatRaw}); errcode.CodeOf(err) != CodeUnsupportedArch {
		t.Errorf("raw without arch: %v", err)
	}
	if _, err := Open(ctx, "x", []byte{1, 2, 3}, &Options{Format: FormatRaw, Arch: "mips"}); errcode.CodeOf(err) != CodeUnsupportedArch {
		t.Errorf("raw mips: %v", err)
	}
	if _, err := Open(ctx, "x", []byte{1, 2, 3}, &Options{Format: FormatRaw, Arch: ArchX86, Base: 0xffffffff}); errcode.CodeOf(err) != CodeInvalidOptions {
		t.Errorf("raw x86 past 4 GiB: %v", err)
	}
	v, err := Open(ctx, "x", []byte{0, 0, 0, 1}, &Options{Format: FormatRaw, Arch: ArchS390X})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := v.Read(0, 4); got != 1 || v.Analysis().Endian != "big" {
		t.Errorf("big-endian read = %d (%s)", got, v.Analysis().Endian)
	}
}

func TestAnalyzeErrors(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name string
		data []byte
		opts *Options
		code string
	}{
		{"text", []byte("hello, this is not an executable"), nil, CodeUnsupportedFormat},
		{"empty", nil, nil, CodeUnsupportedFormat},
		{"too large", make([]byte, 2048), &Options{MaxFileSize: 1024}, CodeFileTooLarge},
		{"truncated elf", []byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00"), nil, CodeAnalysisFailed},
		{"java class", append([]byte{0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 52}, make([]byte, 64)...), nil, CodeUnsupportedFormat},
		{"bad format option", []byte("x"), &Options{Format: "coff"}, CodeInvalidOptions},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Analyze(ctx, c.data, c.opts)
			if got := errcode.CodeOf(err); got != c.code {
				t.Errorf("code %q (%v), want %q", got, err, c.code)
			}
		})
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	_, err := Analyze(canceled, readFile(t, "/lib/x86_64-linux-gnu/libc.so.6"), nil)
	if got := errcode.CodeOf(err); got != CodeAnalysisTimeout {
		t.Errorf("canceled analysis: %v", err)
	}
}

// The View is an addrexpr.Target: expressions resolve names, sections,
// automatic names and memory.
func TestAddressExpressions(t *testing.T) {
	v := openFile(t, gccFixture(t, "gcc-O2", "-O2"), nil)
	main, _ := v.Symbol("main")
	text, _, _ := v.Section(".text")
	counter, _ := v.Symbol("counter")
	word, err := v.Read(counter, 4)
	if err != nil || word != 42 {
		t.Fatalf("counter = %d, %v", word, err)
	}
	printf, ok := v.Symbol("printf")
	if !ok {
		// -O2 may turn printf into __printf_chk; any import works.
		printf = v.Imports()[0].Addr()
	}
	cases := []struct {
		expr string
		want uint64
	}{
		{"main", main},
		{"main + 10", main + 0x10},
		{"main + 0n10", main + 10},
		{".text", text},
		{".text + 0x10", text + 0x10},
		{"sub_" + Hex(main)[2:], main},
		{"[counter].d", 42},
		{"[counter].b + 1", 43},
		{"$start", v.Start()},
	}
	if ok {
		cases = append(cases, struct {
			expr string
			want uint64
		}{"printf", printf})
	}
	for _, im := range v.Imports() {
		if im.Stub != 0 && im.Slot != 0 {
			cases = append(cases, struct {
				expr string
				want uint64
			}{im.Name + "@plt", im.Stub}, struct {
				expr string
				want uint64
			}{"__imp_" + im.Name, im.Slot})
			break
		}
	}
	for _, c := range cases {
		got, err := addrexpr.Evaluate(context.Background(), c.expr, v)
		if err != nil || got != c.want {
			t.Errorf("%s = %#x, %v; want %#x", c.expr, got, err, c.want)
		}
	}
	if _, err := addrexpr.Evaluate(context.Background(), "no_such_symbol_here", v); err == nil {
		t.Error("an unknown name resolved")
	}
	var ae *addrexpr.Error
	if _, err := addrexpr.Evaluate(context.Background(), "[0xdead00000000]", v); !errors.As(err, &ae) {
		t.Errorf("a read of unmapped memory: %v", err)
	}
}

func TestDemangledNames(t *testing.T) {
	cases := map[string]string{
		"_ZN3foo3barEi":                          "foo::bar(int)",
		"__ZN3foo3barEi":                         "foo::bar(int)",
		"_ZN4core3fmt5write17h0123456789abcdefE": "core::fmt::write",
		"main":                                   "",
		"_Z":                                     "",
	}
	for in, want := range cases {
		if got := demangleName(in); got != want {
			t.Errorf("demangle(%q) = %q, want %q", in, got, want)
		}
	}
	if got := stripParams("ns::vec<int (*)(int)>::push(int) const"); got != "ns::vec<int (*)(int)>::push" {
		t.Errorf("stripParams = %q", got)
	}
}

func TestCxxDemangledLookup(t *testing.T) {
	p := testbin.C(t, "gxx", testbin.CProgram{Compiler: "g++", File: "a.cc",
		Source: "namespace ns { __attribute__((noinline)) int twice(int x) { return 2*x; } }\nint main(int c, char**) { return ns::twice(c); }\n",
		Flags:  []string{"-O2"}})
	v := openFile(t, p, nil)
	mangled, ok := v.SymbolByName("_ZN2ns5twiceEi")
	if !ok || mangled.Demangled != "ns::twice(int)" {
		t.Fatalf("symbol %+v", mangled)
	}
	for _, n := range []string{"ns::twice(int)", "ns::twice"} {
		if a, ok := v.Symbol(n); !ok || a != mangled.Addr {
			t.Errorf("Symbol(%q) = %#x, %v", n, a, ok)
		}
	}
	if tc := v.Toolchain(); tc.Language != "c++" {
		t.Errorf("toolchain %+v", tc)
	}
}

func TestSymbolAtAndAddressInfo(t *testing.T) {
	v := openFile(t, gccFixture(t, "gcc-O2", "-O2"), nil)
	add, ok := v.SymbolByName("add_numbers")
	if !ok || add.Size == 0 {
		t.Fatalf("add_numbers %+v", add)
	}
	if s, off, ok := v.SymbolAt(add.Addr + add.Size - 1); !ok || s.Name != "add_numbers" || off != add.Size-1 {
		t.Errorf("SymbolAt(last byte) = %s+%d, %v", s.Name, off, ok)
	}
	info, err := v.AddressInfo(add.Addr+2, 8)
	if err != nil || info.Section != ".text" || info.Symbol != "add_numbers" || info.SymbolOffset != 2 || len(info.Preview) != 8 || !info.HasOffset {
		t.Errorf("AddressInfo = %+v, %v", info, err)
	}
	if _, err := v.AddressInfo(0xdead00000000, 8); errcode.CodeOf(err) != CodeAddressUnmapped {
		t.Errorf("AddressInfo(unmapped): %v", err)
	}
	bss, ok := v.SectionByName(".bss")
	if ok {
		info, err := v.AddressInfo(bss.Addr, 4)
		if err != nil || info.HasOffset || !bytes.Equal(info.Preview, make([]byte, 4)) {
			t.Errorf(".bss info %+v, %v", info, err)
		}
	}
}

func TestReadUsesFileByteOrder(t *testing.T) {
	data := make([]byte, 8)
	binary.LittleEndian.PutUint32(data, 0x11223344)
	v := rawView(t, data, 0x1000)
	if got, err := v.Read(0x1000, 4); err != nil || got != 0x11223344 {
		t.Errorf("Read = %#x, %v", got, err)
	}
	if _, err := v.Read(0x1006, 4); err == nil {
		t.Error("a read across the end succeeded")
	}
}

// A View is shared by concurrent tool calls: lazy string extraction and
// every lookup must be race-free.
func TestViewConcurrentUse(t *testing.T) {
	v := openFile(t, gccFixture(t, "gcc-O2", "-O2"), nil)
	main, _ := v.Symbol("main")
	done := make(chan struct{})
	for i := 0; i < 8; i++ {
		go func() {
			defer func() { done <- struct{}{} }()
			_ = v.Triage()
			_, _ = v.AddressInfo(main, 16)
			_ = v.ListStrings(Query{Text: "fixture"})
			_, _, _ = v.SymbolAt(main + 3)
			_, _ = v.Read(main, 8)
		}()
	}
	for i := 0; i < 8; i++ {
		<-done
	}
	if s, _ := v.Strings(); len(s) == 0 {
		t.Error("no strings")
	}
}

// TestDemangledNameSharedThreeTimes: a demangled name that three symbols
// at different addresses share (gdb and libstdc++ have many) stays
// ambiguous, without indexing with the ambiguity mark.
func TestDemangledNameSharedThreeTimes(t *testing.T) {
	v := &View{a: &Analysis{Symbols: []Symbol{
		{Name: "_ZN2ns1fEv", Demangled: "ns::f()", Addr: 0x1000, Kind: SymFunction},
		{Name: "_ZN2ns1fEv.cold", Demangled: "ns::f()", Addr: 0x2000, Kind: SymFunction},
		{Name: "_ZN2ns1fEv.part.0", Demangled: "ns::f()", Addr: 0x3000, Kind: SymFunction},
		{Name: "_ZN2ns1gEv", Demangled: "ns::g()", Addr: 0x4000, Kind: SymFunction},
	}}}
	v.index()
	if _, ok := v.Symbol("ns::f()"); ok {
		t.Error("an ambiguous demangled name resolved")
	}
	if a, ok := v.Symbol("ns::g"); !ok || a != 0x4000 {
		t.Errorf("ns::g = %#x, %v", a, ok)
	}
}
