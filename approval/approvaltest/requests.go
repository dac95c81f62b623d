package approvaltest

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/warden-mcp/warden/approval"
)

// RunRequests checks a RequestStore. newStore returns a fresh, empty
// store for each subtest.
func RunRequests(t *testing.T, newStore func(t *testing.T) approval.RequestStore) {
	ctx := context.Background()
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	req := func(match, tenant string, at time.Time) approval.Request {
		return approval.Request{ID: approval.NewID(), Match: match, Caller: approval.Key("c"), Owner: approval.Key("o"), Tenant: tenant,
			Grant: approval.Key("g"), Tool: "http_send", Trust: "confirm", Summary: "GET https://example.test/",
			State: approval.StatePending, Created: at, Expires: at.Add(10 * time.Minute)}
	}
	t.Run("RoundTrip", func(t *testing.T) {
		st := newStore(t)
		r := req("m1", "t1", t0)
		if err := st.CreateApprovalRequest(ctx, r); err != nil {
			t.Fatal(err)
		}
		got, err := st.ApprovalRequest(ctx, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.ID != r.ID || got.Match != r.Match || got.Caller != r.Caller || got.Owner != r.Owner || got.Tenant != r.Tenant || got.Grant != r.Grant ||
			got.Tool != r.Tool || got.Trust != r.Trust || got.Summary != r.Summary || got.State != r.State ||
			!got.Created.Equal(r.Created) || !got.Expires.Equal(r.Expires) || got.Spent || !got.DecidedAt.IsZero() {
			t.Errorf("read back %+v, want %+v", got, r)
		}
		if _, err := st.ApprovalRequest(ctx, approval.NewID()); !errors.Is(err, approval.ErrNotFound) {
			t.Errorf("unknown id: %v, want ErrNotFound", err)
		}
	})
	t.Run("DecideOnceThenSpendOnce", func(t *testing.T) {
		st := newStore(t)
		r := req("m1", "t1", t0)
		_ = st.CreateApprovalRequest(ctx, r)
		if err := st.SpendApprovalRequest(ctx, r.ID); !errors.Is(err, approval.ErrNotPending) {
			t.Errorf("spending a pending request: %v, want ErrNotPending", err)
		}
		if err := st.DecideApprovalRequest(ctx, r.ID, approval.StateApproved, "alice", t0.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if err := st.DecideApprovalRequest(ctx, r.ID, approval.StateDenied, "mallory", t0.Add(2*time.Minute)); !errors.Is(err, approval.ErrNotPending) {
			t.Errorf("second decision: %v, want ErrNotPending", err)
		}
		got, _ := st.ApprovalRequest(ctx, r.ID)
		if got.State != approval.StateApproved || got.DecidedBy != "alice" || !got.DecidedAt.Equal(t0.Add(time.Minute)) {
			t.Errorf("after decision: %+v", got)
		}
		var wins atomic.Int32
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				if st.SpendApprovalRequest(ctx, r.ID) == nil {
					wins.Add(1)
				}
			})
		}
		wg.Wait()
		if wins.Load() != 1 {
			t.Errorf("%d retries spent one approval, want 1", wins.Load())
		}
		if _, err := st.LatestApprovalRequest(ctx, "m1", t0.Add(3*time.Minute)); !errors.Is(err, approval.ErrNotFound) {
			t.Errorf("a spent request is still found by its match: %v", err)
		}
		if err := st.DecideApprovalRequest(ctx, approval.NewID(), approval.StateApproved, "alice", t0); !errors.Is(err, approval.ErrNotFound) {
			t.Errorf("deciding an unknown id: %v, want ErrNotFound", err)
		}
		if err := st.DecideApprovalRequest(ctx, r.ID, "pending", "alice", t0); err == nil {
			t.Error("pending accepted as a decision")
		}
	})
	t.Run("Expiry", func(t *testing.T) {
		st := newStore(t)
		r := req("m1", "t1", t0)
		_ = st.CreateApprovalRequest(ctx, r)
		if err := st.DecideApprovalRequest(ctx, r.ID, approval.StateApproved, "alice", r.Expires); !errors.Is(err, approval.ErrNotPending) {
			t.Errorf("decision at expiry: %v, want ErrNotPending", err)
		}
		if _, err := st.LatestApprovalRequest(ctx, "m1", r.Expires); !errors.Is(err, approval.ErrNotFound) {
			t.Errorf("expired request found: %v", err)
		}
	})
	t.Run("LatestAndTenantListing", func(t *testing.T) {
		st := newStore(t)
		a, b, c := req("m1", "t1", t0), req("m1", "t1", t0.Add(time.Second)), req("m2", "t2", t0.Add(2*time.Second))
		for _, r := range []approval.Request{a, b, c} {
			if err := st.CreateApprovalRequest(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		got, err := st.LatestApprovalRequest(ctx, "m1", t0.Add(3*time.Second))
		if err != nil || got.ID != b.ID {
			t.Errorf("latest of m1: %v %v, want %s", got.ID, err, b.ID)
		}
		list, err := st.ApprovalRequests(ctx, "t1", 10)
		if err != nil || len(list) != 2 || list[0].ID != b.ID || list[1].ID != a.ID {
			t.Errorf("tenant t1's list: %d %v", len(list), err)
		}
		for _, r := range list {
			if r.Tenant != "t1" {
				t.Errorf("tenant t1's list holds %s's request", r.Tenant)
			}
		}
		if list, _ := st.ApprovalRequests(ctx, "t1", 1); len(list) != 1 {
			t.Errorf("limit 1 gave %d", len(list))
		}
		// All three are the caller's, each open for 10 minutes.
		for _, tc := range []struct {
			at   time.Time
			want int
		}{{t0.Add(3 * time.Second), 3}, {a.Expires, 2}, {c.Expires, 0}} {
			if n, err := st.OpenApprovalRequests(ctx, a.Caller, tc.at); err != nil || n != tc.want {
				t.Errorf("open at %v: %d %v, want %d", tc.at, n, err, tc.want)
			}
		}
		_ = st.DecideApprovalRequest(ctx, b.ID, approval.StateDenied, "x", t0.Add(4*time.Second))
		if n, _ := st.OpenApprovalRequests(ctx, a.Caller, t0.Add(5*time.Second)); n != 2 {
			t.Errorf("a decided request still counted open: %d", n)
		}
	})
}
