package limits

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImportsPointInward keeps limits a leaf of the request path: it may
// use the standard library and errcode (the shared error type) only, never
// a storage driver, the protocol or any other Warden package. Adapters import limits, not the reverse.
func TestImportsPointInward(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			first := strings.SplitN(path, "/", 2)[0]
			if strings.Contains(first, ".") && path != "github.com/warden-mcp/warden/errcode" {
				t.Errorf("%s imports %s: limits must depend on the standard library and errcode only", name, path)
			}
		}
	}
}
