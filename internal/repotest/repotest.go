// Package repotest helps tests find the repository they run in: the
// module root, and the shared test data that CI places beside it.
package repotest

import (
	"os"
	"path/filepath"
	"testing"
)

// Root walks up from the working directory to the directory holding
// go.mod, and fails the test if there is none.
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the working directory")
		}
		dir = parent
	}
}
