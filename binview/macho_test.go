package binview

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// machoTestdata decodes a base64 Mach-O file from debug/macho's testdata.
func machoTestdata(t *testing.T, name string) string {
	t.Helper()
	src := stdlibTestdata(t, "macho", name+".base64")
	out := filepath.Join(t.TempDir(), name)
	b, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(string(readFile(t, src)), "\n", ""))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestMachOFat(t *testing.T) {
	p := machoTestdata(t, "fat-gcc-386-amd64-darwin-exec")
	v := openFile(t, p, nil)
	a := v.Analysis()
	if len(a.Slices) != 2 || a.Slices[0].Arch != ArchX86 || a.Slices[1].Arch != ArchX86_64 {
		t.Fatalf("slices %+v", a.Slices)
	}
	if a.Arch != ArchX86 || a.SliceOffset != a.Slices[0].Offset {
		t.Errorf("default slice: arch %s offset %d", a.Arch, a.SliceOffset)
	}
	v64 := openFile(t, p, &Options{Slice: ArchX86_64})
	a64 := v64.Analysis()
	if a64.Arch != ArchX86_64 || a64.SliceOffset != a.Slices[1].Offset {
		t.Fatalf("x86-64 slice: arch %s offset %d", a64.Arch, a64.SliceOffset)
	}
	// File offsets count from the start of the fat file: the __text
	// bytes at its offset are the bytes at its address.
	text, ok := v64.SectionByName("__text")
	if !ok || text.Offset < a64.SliceOffset {
		t.Fatalf("__text %+v", text)
	}
	b, err := v64.Bytes(text.Addr, 16)
	if err != nil || string(b) != string(v64.Data()[text.Offset:text.Offset+16]) {
		t.Errorf("Bytes(__text) = %x, %v", b, err)
	}
	if _, err := Open(t.Context(), p, readFile(t, p), &Options{Slice: ArchARM64}); err == nil {
		t.Error("a missing slice opened")
	}
}

func TestMachOC(t *testing.T) {
	v := openFile(t, machoTestdata(t, "gcc-amd64-darwin-exec"), nil)
	a := v.Analysis()
	if a.Arch != ArchX86_64 || a.Kind != "executable" || a.Entry == 0 {
		t.Errorf("arch %s kind %s entry %#x", a.Arch, a.Kind, a.Entry)
	}
	var puts Import
	for _, im := range a.Imports {
		if im.Name == "_puts" {
			puts = im
		}
	}
	if puts.Library != "/usr/lib/libSystem.B.dylib" || puts.Slot == 0 || puts.Stub == 0 {
		t.Fatalf("_puts import %+v", puts)
	}
	if sec, ok := v.SectionAt(puts.Stub); !ok || sec.Name != "__symbol_stub1" {
		t.Errorf("stub in %+v", sec)
	}
	// C names resolve with or without the leading underscore.
	for _, n := range []string{"_puts", "puts"} {
		if addr, ok := v.Symbol(n); !ok || addr != puts.Stub {
			t.Errorf("Symbol(%s) = %#x, %v", n, addr, ok)
		}
	}
	if _, ok := v.Symbol("main"); !ok {
		t.Error("main does not resolve")
	}
	if check(t, v, "pie").Status != "no" {
		t.Errorf("pie %+v", check(t, v, "pie"))
	}
}

func TestMachOFunctionStarts(t *testing.T) {
	v := openFile(t, machoTestdata(t, "clang-amd64-darwin-exec-with-rpath"), nil)
	main, ok := v.SymbolByName("_main")
	if !ok {
		t.Fatal("no _main")
	}
	hints := v.FunctionHints()
	if len(hints) != 1 || hints[0].Addr != main.Addr || hints[0].Source != "function_starts" {
		t.Errorf("hints %+v, _main at %#x", hints, main.Addr)
	}
	mb := v.BuildInfo().MachO
	if mb == nil || len(mb.RPaths) == 0 {
		t.Errorf("Mach-O build info %+v", mb)
	}
}

func TestMachOGo(t *testing.T) {
	v := openFile(t, goFixture(t, "go-darwin-arm64-stripped", "darwin", "arm64", "-s -w"), nil)
	mb := v.BuildInfo().MachO
	if mb == nil || len(mb.UUID) != 32 || mb.Platform != "macos" || mb.MinOS == "" {
		t.Errorf("Mach-O build info %+v", mb)
	}
	if check(t, v, "pie").Status != "yes" || check(t, v, "code_signature").Status != "yes" {
		t.Errorf("hardening %+v", v.Hardening())
	}
	n := 0
	for _, im := range v.Imports() {
		if im.Slot != 0 {
			n++
		}
	}
	if n == 0 {
		t.Errorf("no import has a slot: %+v", v.Imports())
	}
}
