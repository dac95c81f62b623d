// Package repotest helps tests find the repository they run in: the
// module root, and the shared test data that CI places beside it.
package repotest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// module is the path Warden's go.mod declares.
const module = "github.com/warden-mcp/warden"

// Root walks up from the working directory to the directory holding
// Warden's go.mod, past the go.mod of a nested module (internal/loadtest
// has its own), and fails the test if there is none.
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && bytes.HasPrefix(b, []byte("module "+module+"\n")) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("Warden's go.mod not found above the working directory")
		}
		dir = parent
	}
}
