// Package approvaltest is the behaviour suite every approval.Store must
// pass, with a clock the test controls.
package approvaltest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/warden-mcp/warden/approval"
)

// Run checks st. newStore returns a fresh, empty store for each subtest.
func Run(t *testing.T, newStore func(t *testing.T) approval.Store) {
	ctx := context.Background()
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	t.Run("GrantAndExpire", func(t *testing.T) {
		st := newStore(t)
		k := approval.Key("issuer", "tenant", "cred", "client", "tool")
		if ok, err := st.ApprovalGranted(ctx, k, t0); err != nil || ok {
			t.Fatalf("fresh store: granted=%v err=%v", ok, err)
		}
		if err := st.GrantApproval(ctx, k, t0.Add(8*time.Hour)); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			at   time.Time
			want bool
		}{{t0, true}, {t0.Add(8*time.Hour - time.Microsecond), true}, {t0.Add(8 * time.Hour), false}, {t0.Add(9 * time.Hour), false}} {
			if ok, err := st.ApprovalGranted(ctx, k, c.at); err != nil || ok != c.want {
				t.Errorf("at %v: granted=%v err=%v, want %v", c.at, ok, err, c.want)
			}
		}
		if ok, _ := st.ApprovalGranted(ctx, approval.Key("issuer", "tenant", "cred", "client", "other_tool"), t0); ok {
			t.Error("an approval of one tool granted another")
		}
	})
	t.Run("RegrantReplaces", func(t *testing.T) {
		st := newStore(t)
		k := approval.Key("a")
		_ = st.GrantApproval(ctx, k, t0.Add(time.Hour))
		if err := st.GrantApproval(ctx, k, t0.Add(3*time.Hour)); err != nil {
			t.Fatal(err)
		}
		if ok, _ := st.ApprovalGranted(ctx, k, t0.Add(2*time.Hour)); !ok {
			t.Error("a later grant did not extend the approval")
		}
	})
	t.Run("Concurrent", func(t *testing.T) {
		st := newStore(t)
		var wg sync.WaitGroup
		for i := range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				k := approval.Key("c", string(rune('a'+i%4)))
				if err := st.GrantApproval(ctx, k, t0.Add(time.Hour)); err != nil {
					t.Error(err)
				}
				if ok, err := st.ApprovalGranted(ctx, k, t0); err != nil || !ok {
					t.Errorf("granted=%v err=%v", ok, err)
				}
			}()
		}
		wg.Wait()
	})
}
