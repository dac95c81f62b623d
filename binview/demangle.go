package binview

import (
	"strings"

	"github.com/ianlancetaylor/demangle"
)

// maxMangled bounds the names given to the demangler: hostile names
// can make demanglers work hard, and real ones are far shorter.
const maxMangled = 4096

// demangleName returns the demangled form of a C++ (Itanium) or Rust
// (legacy or v0) name, or "" when name is not mangled or fails to
// demangle. Mach-O's extra leading underscore is accepted.
func demangleName(name string) string {
	if len(name) < 3 || len(name) > maxMangled {
		return ""
	}
	n := name
	if strings.HasPrefix(n, "__Z") || strings.HasPrefix(n, "__R") {
		n = n[1:]
	}
	if !strings.HasPrefix(n, "_Z") && !strings.HasPrefix(n, "_R") {
		return ""
	}
	d, err := demangle.ToString(n, demangle.NoClones)
	if err != nil || d == n {
		return ""
	}
	return d
}

func (b *builder) demangleAll() {
	for i := range b.a.Symbols {
		if err := b.check(i); err != nil {
			return
		}
		if b.a.Symbols[i].Source == "pclntab" {
			continue
		}
		b.a.Symbols[i].Demangled = demangleName(b.a.Symbols[i].Name)
	}
	for i := range b.a.Imports {
		b.a.Imports[i].Demangled = demangleName(b.a.Imports[i].Name)
	}
	for i := range b.a.Exports {
		b.a.Exports[i].Demangled = demangleName(b.a.Exports[i].Name)
	}
}
