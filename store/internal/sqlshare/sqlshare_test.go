package sqlshare

import (
	"strings"
	"testing"
	"time"

	"github.com/warden-mcp/warden/finding"
	"github.com/warden-mcp/warden/limits"
)

func TestBindNumbersPlaceholdersForPostgres(t *testing.T) {
	q := "SELECT a FROM t WHERE b = ? AND (c < ? OR c = ? AND d < ?) LIMIT ?"
	if got := SQLite.Bind(q); got != q {
		t.Errorf("SQLite.Bind changed the statement: %s", got)
	}
	want := "SELECT a FROM t WHERE b = $1 AND (c < $2 OR c = $3 AND d < $4) LIMIT $5"
	if got := Postgres.Bind(q); got != want {
		t.Errorf("Postgres.Bind = %s, want %s", got, want)
	}
}

// Every query a filter builds has as many placeholders as arguments, in
// both dialects, whichever fields are set.
func TestFilterQueriesBindEveryArgument(t *testing.T) {
	at := time.Unix(1700000000, 0)
	findings := []finding.Filter{
		{Tenant: "t", Limit: 10},
		{Tenant: "t", MinSeverity: "high", Target: "Example", SourceTool: "x", Since: at, Until: at, After: finding.Cursor{ID: "f1", Created: at}, Limit: 5},
	}
	audits := []limits.AuditFilter{
		{Limit: 10},
		{Since: at, Until: at, Credential: "c", Tenant: "t", Tool: "x", Outcome: "ok", Limit: 3},
	}
	for _, d := range []Dialect{SQLite, Postgres} {
		for _, f := range findings {
			q, args := d.ListFindings(f)
			checkBound(t, d, q, args)
		}
		for _, f := range audits {
			q, args := d.QueryAudit(f)
			checkBound(t, d, q, args)
		}
	}
	if q, _ := Postgres.ListFindings(findings[1]); !strings.Contains(q, "strpos(lower(target)") {
		t.Errorf("PostgreSQL's substring test is strpos: %s", q)
	}
	if q, _ := SQLite.ListFindings(findings[1]); !strings.Contains(q, "instr(lower(target)") {
		t.Errorf("SQLite's substring test is instr: %s", q)
	}
}

func checkBound(t *testing.T, d Dialect, q string, args []any) {
	t.Helper()
	n := strings.Count(q, "?")
	if d == Postgres {
		n = strings.Count(q, "$")
		if strings.Contains(q, "?") {
			t.Errorf("unbound placeholder: %s", q)
		}
	}
	if n != len(args) {
		t.Errorf("%d placeholders, %d arguments: %s", n, len(args), q)
	}
}
