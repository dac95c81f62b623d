package secretscan

import (
	"fmt"
	"github.com/warden-mcp/warden/internal/repotest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const rulesBegin, rulesEnd = "<!-- rules:begin -->", "<!-- rules:end -->"

// rulesTable renders Rules() as the markdown table of docs/keysweep.md.
func rulesTable() string {
	var b strings.Builder
	types := map[string]bool{}
	rs := Rules()
	for _, r := range rs {
		types[r.Type] = true
	}
	fmt.Fprintf(&b, "%d rules, %d credential types.\n\n", len(rs), len(types))
	b.WriteString("| id | type | family | severity | checked | keywords |\n|---|---|---|---|---|---|\n")
	for _, r := range rs {
		checked := ""
		if r.Validated {
			checked = "yes"
		}
		kw := make([]string, len(r.Keywords))
		for i, k := range r.Keywords {
			kw[i] = "`" + strings.ReplaceAll(strings.ReplaceAll(k, "|", `\|`), "`", "'") + "`"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", r.ID, r.Type, r.Family, r.Severity, strings.TrimSpace(checked), strings.Join(kw, " "))
	}
	return b.String()
}

// TestRulesDoc keeps the rules table of docs/keysweep.md in step with the
// rules; -update rewrites it.
func TestRulesDoc(t *testing.T) {
	p := filepath.Join(repotest.Root(t), "docs", "keysweep.md")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Skipf("docs not found: %v", err)
	}
	doc := string(data)
	i, j := strings.Index(doc, rulesBegin), strings.Index(doc, rulesEnd)
	if i < 0 || j < i {
		t.Fatal("rules markers missing in docs/keysweep.md")
	}
	want := doc[:i+len(rulesBegin)] + "\n" + rulesTable() + doc[j:]
	if want == doc {
		return
	}
	if *update {
		if err := os.WriteFile(p, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Error("docs/keysweep.md rules table is stale; run go test ./secretscan -run TestRulesDoc -update")
}
