package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/warden-mcp/warden/internal/repotest"
)

// docs/tools.md is generated from the registry; this fails when they
// differ. Refresh with: go run ./cmd/warden tools --markdown > docs/tools.md
func TestToolsReferenceIsCurrent(t *testing.T) {
	if edition != "full" {
		t.Skip("docs/tools.md documents the full edition")
	}
	out, errOut, code := run(t, "", "tools", "--markdown")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want, err := os.ReadFile(filepath.Join(repotest.Root(t), "docs", "tools.md"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), out); diff != "" {
		t.Errorf("docs/tools.md is stale; run: go run ./cmd/warden tools --markdown > docs/tools.md\n(-checked in +generated):\n%s", diff)
	}
	w, err := wire(wireOptions{logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	tools, _ := w.reg.Tools()
	for _, tl := range tools {
		if !strings.Contains(out, "\n## "+tl.Name+"\n") {
			t.Errorf("%s has no section", tl.Name)
		}
	}
}

// The reference does not depend on the configuration: a config that
// turns everything off renders the same page.
func TestToolsReferenceIgnoresConfiguration(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "w.yaml")
	os.WriteFile(cfg, []byte("tools:\n  disable: [util_]\nprivacy: strict\n"), 0o600)
	a, _, _ := run(t, "", "tools", "--markdown")
	b, _, _ := run(t, "", "tools", "--markdown", "--config", cfg, "--unsafe")
	if a != b {
		t.Error("the reference changed with the configuration")
	}
}
