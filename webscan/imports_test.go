package webscan

import (
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestImports keeps webscan a leaf engine: the standard library,
// golang.org/x/net/html and errcode only (go-cmp in tests). No MCP, tool, transport or
// SSRF-client package may be imported; those are injected.
func TestImports(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		test := strings.HasSuffix(name, "_test.go")
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			first, _, _ := strings.Cut(path, "/")
			switch {
			case !strings.Contains(first, "."): // standard library
			case path == "golang.org/x/net/html" || path == "golang.org/x/net/html/atom":
			case path == "github.com/warden-mcp/warden/errcode": // the shared error type
			case strings.HasPrefix(path, "github.com/warden-mcp/warden/webscan/internal/"): // its own parts
			case test && (path == "github.com/google/go-cmp/cmp" || path == "github.com/warden-mcp/warden/webscan"):
			default:
				t.Errorf("%s imports %s: webscan must stay a leaf", name, path)
			}
		}
	}
}
