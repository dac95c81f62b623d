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

// TestImports keeps auth a leaf on the request path: the standard library
// and the listed in-module leaves, nothing else, so it can be fuzzed,
// benchmarked and audited alone (tests may use more).
func TestImports(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range pkg.Imports {
		first, _, _ := strings.Cut(imp, "/")
		if strings.Contains(first, ".") && !allowedModuleImports[imp] {
			t.Errorf("auth imports %s; only the standard library and %v are allowed", imp, allowedModuleImports)
		}
	}
	for imp := range allowedModuleImports {
		leaf, err := build.Import(imp, ".", 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, sub := range leaf.Imports {
			if first, _, _ := strings.Cut(sub, "/"); strings.Contains(first, ".") {
				t.Errorf("%s imports %s, so auth would depend on it too", imp, sub)
			}
		}
	}
}
