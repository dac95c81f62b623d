package binview

import "testing"

func TestRustNames(t *testing.T) {
	for name, want := range map[string]bool{
		"_ZN4core3fmt5write17h0123456789abcdefE": true,
		"_ZN4core3fmt5write17h0123456789abcdeE":  false,
		"_ZN4core3fmt5write17hZZ23456789abcdefE": false,
		"_ZN3foo3barEi":                          false,
	} {
		if got := isRustLegacy(name); got != want {
			t.Errorf("isRustLegacy(%q) = %v", name, got)
		}
	}
}

func TestToolchainFromNames(t *testing.T) {
	cases := []struct {
		a    Analysis
		want string
	}{
		{Analysis{Format: FormatELF, Symbols: []Symbol{{Name: "_ZN4core3fmt5write17h0123456789abcdefE", Demangled: "core::fmt::write"}}}, "rust"},
		{Analysis{Format: FormatELF, Imports: []Import{{Name: "_Znwm", Demangled: "operator new(unsigned long)"}}, Libraries: []string{"libstdc++.so.6"}}, "c++"},
		{Analysis{Format: FormatPE, Build: BuildInfo{PE: &PEBuild{DotNet: &DotNet{RuntimeVersion: "v4.0.30319"}}}}, ".net"},
		{Analysis{Format: FormatMachO, Sections: []Section{{Name: "__swift5_types"}}}, "swift"},
		{Analysis{Format: FormatELF, Symbols: []Symbol{{Name: "NimMain"}}}, "nim"},
		{Analysis{Format: FormatELF}, "c"},
		{Analysis{Format: FormatRaw}, ""},
	}
	for _, c := range cases {
		a := c.a
		b := &builder{a: &a, data: []byte("no rust here")}
		b.detectToolchain()
		if a.Toolchain.Language != c.want {
			t.Errorf("%+v: language %q, want %q (%v)", c.a, a.Toolchain.Language, c.want, a.Toolchain.Evidence)
		}
	}
}
