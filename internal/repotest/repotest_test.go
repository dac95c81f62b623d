package repotest

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRoot(t *testing.T) {
	root := Root(t)
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("Root = %s, which holds no go.mod", root)
	}
	if _, err := os.Stat(filepath.Join(root, "internal", "repotest", "repotest.go")); err != nil {
		t.Fatalf("Root = %s, not this repository's root", root)
	}
}
