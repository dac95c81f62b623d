// Package findingtest is the behaviour suite every finding.Store must
// pass: order, filters, tenant isolation, the per-tenant cap and
// concurrent writers, with times the test chooses.
package findingtest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/warden-mcp/warden/finding"
)

var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func rec(tenant, title, sev, target string, at time.Time) finding.Finding {
	return finding.Finding{ID: finding.NewID(), Tenant: tenant, Credential: "cred-" + tenant, Title: title, Severity: sev,
		Target: target, Evidence: "evidence of " + title, SourceTool: "http_request", CorrelationID: "corr-" + title, Created: at}
}

// Run checks the stores newStore returns (a fresh, empty one per subtest).
// maxPerTenant is the cap the store enforces (finding.MaxPerTenant in
// production; a store may take a lower one for this test).
func Run(t *testing.T, newStore func(t *testing.T) finding.Store) {
	ctx := context.Background()
	t.Run("Status", func(t *testing.T) {
		st := newStore(t)
		ss, ok := st.(finding.StatusStore)
		if !ok {
			t.Skip("the store keeps no triage states")
		}
		a := rec("acme", "open redirect", "medium", "https://app.example.com/", t0)
		if err := st.RecordFinding(ctx, a); err != nil {
			t.Fatal(err)
		}
		if err := ss.SetFindingStatus(ctx, "other", a.ID, finding.Status{State: finding.StatusFixed, By: "mallory", At: t0}); !errors.Is(err, finding.ErrNotFound) {
			t.Errorf("another tenant set a state: %v", err)
		}
		if err := ss.SetFindingStatus(ctx, "acme", finding.NewID(), finding.Status{State: finding.StatusFixed, By: "alice", At: t0}); !errors.Is(err, finding.ErrNotFound) {
			t.Errorf("a state on an unknown id: %v", err)
		}
		for _, state := range []string{finding.StatusAccepted, finding.StatusFixed} {
			if err := ss.SetFindingStatus(ctx, "acme", a.ID, finding.Status{State: state, By: "alice", At: t0.Add(time.Minute)}); err != nil {
				t.Fatal(err)
			}
		}
		got, err := ss.FindingStatuses(ctx, "acme", []string{a.ID, finding.NewID()})
		if err != nil {
			t.Fatal(err)
		}
		if s := got[a.ID]; len(got) != 1 || s.State != finding.StatusFixed || s.By != "alice" || !s.At.Equal(t0.Add(time.Minute)) {
			t.Errorf("states: %+v", got)
		}
		if got, _ := ss.FindingStatuses(ctx, "other", []string{a.ID}); len(got) != 0 {
			t.Errorf("another tenant reads the state: %+v", got)
		}
	})
	t.Run("RecordAndList", func(t *testing.T) {
		st := newStore(t)
		a := rec("acme", "open redirect", "medium", "https://app.example.com/r?to=x", t0)
		b := rec("acme", "jwt alg none accepted", "critical", "https://api.example.com/", t0.Add(time.Minute))
		for _, f := range []finding.Finding{a, b} {
			if err := st.RecordFinding(ctx, f); err != nil {
				t.Fatal(err)
			}
		}
		got, err := st.ListFindings(ctx, finding.Filter{Tenant: "acme", Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].ID != b.ID || got[1].ID != a.ID {
			t.Fatalf("order: %+v", got)
		}
		if g := got[1]; g != a {
			t.Errorf("round trip changed the finding:\n got %+v\nwant %+v", g, a)
		}
	})
	t.Run("TenantsAreIsolated", func(t *testing.T) {
		st := newStore(t)
		for _, f := range []finding.Finding{rec("acme", "a", "high", "x", t0), rec("globex", "g", "high", "x", t0)} {
			if err := st.RecordFinding(ctx, f); err != nil {
				t.Fatal(err)
			}
		}
		for _, tenant := range []string{"acme", "globex"} {
			got, err := st.ListFindings(ctx, finding.Filter{Tenant: tenant, Limit: 10})
			if err != nil || len(got) != 1 || got[0].Tenant != tenant {
				t.Errorf("%s sees %+v (%v)", tenant, got, err)
			}
		}
		if got, _ := st.ListFindings(ctx, finding.Filter{Tenant: "initech", Limit: 10}); len(got) != 0 {
			t.Errorf("an unknown tenant sees %d findings", len(got))
		}
	})
	t.Run("Filters", func(t *testing.T) {
		st := newStore(t)
		fs := []finding.Finding{
			rec("acme", "f1", "info", "https://A.example.com/x", t0),
			rec("acme", "f2", "low", "https://b.example.com/", t0.Add(1*time.Hour)),
			rec("acme", "f3", "high", "https://a.example.com/y", t0.Add(2*time.Hour)),
			rec("acme", "f4", "critical", "ssh://c.example.com", t0.Add(3*time.Hour)),
		}
		fs[3].SourceTool = "util_jwt_inspect"
		for _, f := range fs {
			if err := st.RecordFinding(ctx, f); err != nil {
				t.Fatal(err)
			}
		}
		for _, c := range []struct {
			f    finding.Filter
			want []string
		}{
			{finding.Filter{MinSeverity: "high"}, []string{"f4", "f3"}},
			{finding.Filter{MinSeverity: "low"}, []string{"f4", "f3", "f2"}},
			{finding.Filter{Target: "a.EXAMPLE.com"}, []string{"f3", "f1"}},
			{finding.Filter{Target: "%"}, nil},
			{finding.Filter{Target: "_"}, nil},
			{finding.Filter{SourceTool: "util_jwt_inspect"}, []string{"f4"}},
			{finding.Filter{Since: t0.Add(time.Hour), Until: t0.Add(3 * time.Hour)}, []string{"f3", "f2"}},
			{finding.Filter{Limit: 1}, []string{"f4"}},
		} {
			c.f.Tenant = "acme"
			if c.f.Limit == 0 {
				c.f.Limit = 50
			}
			got, err := st.ListFindings(ctx, c.f)
			if err != nil {
				t.Fatal(err)
			}
			var titles []string
			for _, g := range got {
				titles = append(titles, g.Title)
			}
			if fmt.Sprint(titles) != fmt.Sprint(c.want) {
				t.Errorf("%+v: %v, want %v", c.f, titles, c.want)
			}
		}
	})
	t.Run("Pages", func(t *testing.T) {
		st := newStore(t)
		for i := range 7 {
			f := rec("acme", fmt.Sprint("p", i), "low", "", t0.Add(time.Duration(i/2)*time.Second)) // pairs share a time
			if err := st.RecordFinding(ctx, f); err != nil {
				t.Fatal(err)
			}
		}
		all, _ := st.ListFindings(ctx, finding.Filter{Tenant: "acme", Limit: 100})
		var paged []finding.Finding
		flt := finding.Filter{Tenant: "acme", Limit: 3}
		for range 10 {
			page, err := st.ListFindings(ctx, flt)
			if err != nil {
				t.Fatal(err)
			}
			paged = append(paged, page...)
			if len(page) < flt.Limit {
				break
			}
			last := page[len(page)-1]
			flt.After = finding.Cursor{Created: last.Created, ID: last.ID}
		}
		if len(paged) != 7 || fmt.Sprint(paged) != fmt.Sprint(all) {
			t.Errorf("pages gave %d findings, not the 7 of one list in its order", len(paged))
		}
	})
	t.Run("TenantCap", func(t *testing.T) {
		st := newStore(t)
		capped, ok := st.(interface{ SetFindingsCap(int) })
		if !ok {
			t.Skip("the store has no test cap")
		}
		capped.SetFindingsCap(3)
		for i := range 3 {
			if err := st.RecordFinding(ctx, rec("acme", fmt.Sprint("f", i), "low", "", t0)); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.RecordFinding(ctx, rec("acme", "one too many", "low", "", t0)); !errors.Is(err, finding.ErrTenantFull) {
			t.Errorf("over the cap: %v", err)
		}
		if err := st.RecordFinding(ctx, rec("globex", "other tenant", "low", "", t0)); err != nil {
			t.Errorf("another tenant was capped: %v", err)
		}
	})
	t.Run("ConcurrentWritersRespectTheCap", func(t *testing.T) {
		st := newStore(t)
		capped, ok := st.(interface{ SetFindingsCap(int) })
		if !ok {
			t.Skip("the store has no test cap")
		}
		capped.SetFindingsCap(10)
		var wg sync.WaitGroup
		var mu sync.Mutex
		stored := 0
		for i := range 24 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := st.RecordFinding(ctx, rec("acme", fmt.Sprint("c", i), "low", "", t0.Add(time.Duration(i)*time.Second)))
				switch {
				case err == nil:
					mu.Lock()
					stored++
					mu.Unlock()
				case !errors.Is(err, finding.ErrTenantFull):
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		got, _ := st.ListFindings(ctx, finding.Filter{Tenant: "acme", Limit: 100})
		if stored != 10 || len(got) != 10 {
			t.Errorf("stored %d, listed %d; want exactly the cap, 10", stored, len(got))
		}
	})
}
