package webscan

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestFindingIDsDocumented fails when a finding id or an exposure kind
// written in the source is missing from docs/microdefend.md.
func TestFindingIDsDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "microdefend.md"))
	if err != nil {
		t.Skipf("docs not present: %v", err)
	}
	var src []byte
	for _, name := range []string{"analysis.go", "scan.go"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		src = append(src, b...)
	}
	re := regexp.MustCompile(`(?:add\("|\{"|ID: ")([a-z0-9_]+)"`)
	var ids []string
	for _, m := range re.FindAllSubmatch(src, -1) {
		ids = append(ids, string(m[1]))
	}
	if len(ids) < 50 {
		t.Fatalf("found only %d ids; the pattern is stale", len(ids))
	}
	for _, r := range exposureRules {
		ids = append(ids, r.Kind)
	}
	for _, p := range cookieFindingProblems {
		ids = append(ids, "cookie_"+p)
	}
	for _, id := range ids {
		switch {
		case id == "cookie_": // expanded from cookieFindingProblems above
			continue
		case strings.HasSuffix(id, "_"): // prefixes such as version_disclosed_
			id += "<"
		}
		if !strings.Contains(string(doc), "`"+id) {
			t.Errorf("%s is not documented in docs/microdefend.md", id)
		}
	}
}
