package binview

import (
	"bytes"
	"strings"
)

// detectToolchain guesses the source language and compiler from the
// metadata the formats carry. Each finding records its evidence.
func (b *builder) detectToolchain() {
	a := b.a
	t := &a.Toolchain
	langs := map[string]string{} // language -> first evidence
	add := func(lang, why string) {
		if _, ok := langs[lang]; !ok {
			langs[lang] = why
		}
	}
	if g := a.Build.Go; g != nil {
		if g.Version != "" {
			add("go", "Go build information")
			t.Compilers = append(t.Compilers, g.Version)
		} else {
			add("go", "Go function table")
		}
	}
	if a.Build.PE != nil && a.Build.PE.DotNet != nil {
		add(".net", "CLR header")
		if v := a.Build.PE.DotNet.RuntimeVersion; v != "" {
			t.Compilers = append(t.Compilers, ".NET runtime "+v)
		}
	}
	// Names: symbols, imports, libraries.
	var mangledCxx, mangledRust, nim, dlang bool
	scan := func(name, dem string) {
		n := strings.TrimPrefix(name, "_")
		switch {
		case strings.HasPrefix(n, "R") && dem != "":
			mangledRust = true
		case strings.HasPrefix(n, "ZN") && dem != "" && isRustLegacy(name):
			mangledRust = true
		case strings.HasPrefix(n, "Z") && dem != "":
			mangledCxx = true
		case strings.HasPrefix(name, "__rust_") || name == "rust_begin_unwind" || name == "rust_eh_personality":
			mangledRust = true
		case name == "NimMain" || strings.HasPrefix(name, "nimFrame"):
			nim = true
		case name == "_d_run_main" || name == "__d_run_main":
			dlang = true
		}
	}
	for _, s := range a.Symbols {
		scan(s.Name, s.Demangled)
	}
	for _, s := range a.Imports {
		scan(s.Name, s.Demangled)
		if s.Name == "__cxa_throw" || s.Name == "___cxa_throw" || s.Name == "__CxxFrameHandler3" || s.Name == "__CxxFrameHandler4" {
			mangledCxx = true
		}
	}
	var swift, objc bool
	for _, l := range a.Libraries {
		ll := strings.ToLower(l)
		switch {
		case strings.Contains(ll, "libstdc++") || strings.Contains(ll, "libc++") || strings.HasPrefix(ll, "msvcp"):
			mangledCxx = true
		case strings.Contains(ll, "libswiftcore"):
			swift = true
		case strings.Contains(ll, "libobjc"):
			objc = true
		case strings.HasPrefix(ll, "mscoree"):
			add(".net", "imports mscoree.dll")
		}
	}
	for _, s := range a.Sections {
		switch {
		case strings.HasPrefix(s.Name, "__swift5_"):
			swift = true
		case strings.HasPrefix(s.Name, "__objc_"):
			objc = true
		}
	}
	if !mangledRust && a.Build.Go == nil && bytes.Contains(b.data, []byte("/rustc/")) {
		add("rust", "rustc source paths in the data")
	}
	if mangledRust {
		add("rust", "Rust symbol names")
	}
	if swift {
		add("swift", "Swift runtime sections or library")
	}
	if mangledCxx {
		add("c++", "C++ mangled names or C++ runtime")
	}
	if objc {
		add("objective-c", "Objective-C runtime sections or library")
	}
	if nim {
		add("nim", "Nim runtime symbols")
	}
	if dlang {
		add("d", "D runtime symbols")
	}
	// Compilers.
	if e := a.Build.ELF; e != nil {
		t.Compilers = append(t.Compilers, e.Comment...)
	}
	if p := a.Build.PE; p != nil && len(p.Rich) > 0 {
		t.Compilers = append(t.Compilers, "MSVC toolchain (Rich header)")
	}
	if m := a.Build.MachO; m != nil {
		t.Compilers = append(t.Compilers, m.Tools...)
	}
	t.Compilers = capList(t.Compilers, 16)
	hasCC := false
	for _, c := range t.Compilers {
		lc := strings.ToLower(c)
		hasCC = hasCC || strings.Contains(lc, "gcc") || strings.Contains(lc, "clang") || strings.Contains(lc, "msvc")
	}
	if len(langs) == 0 && (hasCC || a.Format != FormatRaw) && a.Format != FormatRaw {
		add("c", "native code with no other language's runtime")
	}
	// Order: the language that owns the runtime first.
	for _, l := range []string{".net", "go", "rust", "swift", "nim", "d", "c++", "objective-c", "c"} {
		if why, ok := langs[l]; ok {
			t.Languages = append(t.Languages, l)
			t.Evidence = append(t.Evidence, l+": "+why)
		}
	}
	if len(t.Languages) > 0 {
		t.Language = t.Languages[0]
	}
}

// isRustLegacy reports a legacy Rust mangled name: Itanium-style with
// a final "17h" and 16 hex digits hash component.
func isRustLegacy(name string) bool {
	i := strings.LastIndex(name, "17h")
	if i < 0 || len(name) < i+3+16+1 {
		return false
	}
	h := name[i+3 : i+3+16]
	for _, c := range h {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return name[i+3+16] == 'E'
}
