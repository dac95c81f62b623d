package approval_test

import (
	"context"
	"testing"
	"time"

	"github.com/warden-mcp/warden/approval"
	"github.com/warden-mcp/warden/approval/approvaltest"
)

func TestMemory(t *testing.T) {
	approvaltest.Run(t, func(*testing.T) approval.Store { return approval.NewMemory(0) })
}

func TestMemoryBounded(t *testing.T) {
	m := approval.NewMemory(2)
	ctx := context.Background()
	far := time.Now().Add(time.Hour)
	_ = m.GrantApproval(ctx, "a", far)
	_ = m.GrantApproval(ctx, "b", far.Add(time.Minute))
	_ = m.GrantApproval(ctx, "c", far.Add(2*time.Minute))
	if ok, _ := m.ApprovalGranted(ctx, "a", time.Now()); ok {
		t.Error("the grant expiring first was kept past the bound")
	}
	if ok, _ := m.ApprovalGranted(ctx, "c", time.Now()); !ok {
		t.Error("the newest grant was dropped")
	}
}

func TestKeyIsUnambiguous(t *testing.T) {
	if approval.Key("ab", "c") == approval.Key("a", "bc") {
		t.Error("length prefixes missing: two part lists share a key")
	}
	if len(approval.Key("x")) != 64 {
		t.Error("key is not 64 hex digits")
	}
}

func TestMemoryRequests(t *testing.T) {
	approvaltest.RunRequests(t, func(*testing.T) approval.RequestStore { return approval.NewMemoryRequests(0) })
}
