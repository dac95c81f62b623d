package auth

import (
	"go/build"
	"strings"
	"testing"
)

// allowedModuleImports are the packages of this module auth may use: leaves
// that themselves import only the standard library.
var allowedModuleImports = map[string]bool{
	"github.com/warden-mcp/warden/internal/jsonwalk": true,
}

// allowedLibrary is the one third-party module auth may use (JOSE parsing,
// JWK decoding and signature verification; see docs/DEPENDENCIES.md). Any
// of its packages may be imported, provided the module itself pulls in
// nothing but the standard library.
const allowedLibrary = "github.com/go-jose/go-jose/v4"

func isStd(imp string) bool {
	first, _, _ := strings.Cut(imp, "/")
	return !strings.Contains(first, ".")
}

func inLibrary(imp string) bool {
	return imp == allowedLibrary || strings.HasPrefix(imp, allowedLibrary+"/")
}

// TestImports keeps auth a leaf on the request path: the standard library,
// the listed in-module leaves and go-jose, nothing else, so it can be
// fuzzed, benchmarked and audited alone (tests may use more).
func TestImports(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	var library []string
	for _, imp := range pkg.Imports {
		switch {
		case isStd(imp) || allowedModuleImports[imp]:
		case inLibrary(imp):
			library = append(library, imp)
		default:
			t.Errorf("auth imports %s; only the standard library, %s and %v are allowed", imp, allowedLibrary, allowedModuleImports)
		}
	}
	for imp := range allowedModuleImports {
		leaf, err := build.Import(imp, ".", 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, sub := range leaf.Imports {
			if !isStd(sub) {
				t.Errorf("%s imports %s, so auth would depend on it too", imp, sub)
			}
		}
	}
	// Walk go-jose's own import graph: a new dependency of the library is a
	// new dependency of ours and must be reviewed.
	seen := map[string]bool{}
	for len(library) > 0 {
		imp := library[0]
		library = library[1:]
		if seen[imp] {
			continue
		}
		seen[imp] = true
		p, err := build.Import(imp, ".", 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, sub := range p.Imports {
			switch {
			case isStd(sub):
			case inLibrary(sub):
				library = append(library, sub)
			default:
				t.Errorf("%s imports %s, so auth would depend on it too", imp, sub)
			}
		}
	}
	if len(seen) == 0 {
		t.Errorf("auth no longer imports %s; drop it from allowedLibrary and docs/DEPENDENCIES.md", allowedLibrary)
	}
}
