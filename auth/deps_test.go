package auth

import (
	"go/build"
	"strings"
	"testing"
)

// TestImportsStandardLibraryOnly keeps auth a leaf on the request path: it
// may import the standard library and nothing else, so it can be fuzzed,
// benchmarked and audited alone (tests may use more).
func TestImportsStandardLibraryOnly(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range pkg.Imports {
		if first, _, _ := strings.Cut(imp, "/"); strings.Contains(first, ".") {
			t.Errorf("auth imports %s; only the standard library is allowed", imp)
		}
	}
}
