package secretscan

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestLeafImports keeps the engine a leaf: its non-test files import the
// standard library and errcode, the shared error type, only (STYLE.md
// point 1).
func TestLeafImports(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range af.Imports {
			path := strings.Trim(imp.Path.Value, `"`)
			if first, _, _ := strings.Cut(path, "/"); strings.Contains(first, ".") && path != "github.com/warden-mcp/warden/errcode" {
				t.Errorf("%s imports %s: secretscan may import only the standard library and errcode", f, path)
			}
		}
	}
}
