package policy

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/warden-mcp/warden/limits"
	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/tool"
)

// Calls that end together share audit commits, and none is answered
// before its record is either committed or kept for the store (an outage
// in the middle of the run): at every answer, the records stored plus the
// records waiting are at least the answers given so far, and after repair
// every answered call has exactly one record.
func TestEveryAnsweredCallIsInTheAuditTrail(t *testing.T) {
	f, st := outageFixture(t, 0)
	reg := tool.NewRegistry()
	tool.Add(reg, tool.Def{Name: "free", Description: "Costs nothing.", Annotations: tool.Annotations{ReadOnly: true},
		Catalog: tool.Catalog{Category: "test", Trust: tool.TrustAuto}}, func(ctx context.Context, c *tool.Call, _ struct{}) (string, error) {
		return "done", nil
	})
	f.srv = mcp.NewServer(reg, &mcp.Options{Middleware: f.ctl.Middleware()})
	const calls = 200
	var answered atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex // one check at a time: a check counts the trail
	for i := range calls {
		wg.Go(func() {
			if i == calls/3 {
				st.down.Store(true) // the store goes away mid-run...
			}
			if i == 2*calls/3 {
				st.down.Store(false) // ...and comes back
			}
			if code, _ := f.call(context.Background(), alice, "free", `{}`); code != "ok" {
				t.Errorf("call %d: %s", i, code)
				return
			}
			n := answered.Add(1)
			mu.Lock()
			defer mu.Unlock()
			pending, _ := f.ctl.Pending()
			recs, err := f.store.QueryAudit(context.Background(), limits.AuditFilter{Limit: limits.MaxAuditQueryLimit})
			if err != nil {
				t.Error(err)
				return
			}
			if int64(len(recs)+pending) < n {
				t.Errorf("after %d answers: %d records stored and %d waiting", n, len(recs), pending)
			}
		})
	}
	wg.Wait()
	st.down.Store(false)
	f.ctl.Repair(context.Background())
	if a, _ := f.ctl.Pending(); a != 0 {
		t.Fatalf("%d records still waiting after repair", a)
	}
	recs, err := f.store.QueryAudit(context.Background(), limits.AuditFilter{Limit: limits.MaxAuditQueryLimit})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, r := range recs {
		seen[r.CorrelationID]++
	}
	if len(recs) != calls || len(seen) != calls {
		t.Errorf("%d records (%d distinct calls) for %d answered calls", len(recs), len(seen), calls)
	}
}
