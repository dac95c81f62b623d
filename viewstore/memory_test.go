package viewstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/warden-mcp/warden/viewstore"
	"github.com/warden-mcp/warden/viewstore/viewstoretest"
)

type memBackend struct{ m *viewstore.Memory }

func (b memBackend) Instance(*testing.T) viewstore.Store { return b.m }
func (b memBackend) Prune(_ *testing.T, now time.Time)   { b.m.Prune(context.Background(), now) }

func TestMemory(t *testing.T) {
	viewstoretest.Run(t, func(*testing.T) viewstoretest.Backend { return memBackend{viewstore.NewMemory(0)} })
}

// The memory store drops the entries that expire soonest to stay under
// its byte bound.
func TestMemoryBound(t *testing.T) {
	ctx := context.Background()
	m := viewstore.NewMemory(10)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := m.PutBlob(ctx, "a", []byte("123456"), t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := m.PutBlob(ctx, "b", []byte("123456"), t0.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Blob(ctx, "a", t0); err == nil {
		t.Error("the soonest-expiring blob was kept past the bound")
	}
	if _, err := m.Blob(ctx, "b", t0); err != nil {
		t.Error(err)
	}
	if err := m.PutBlob(ctx, "c", make([]byte, 11), t0.Add(time.Hour)); err != viewstore.ErrTooLarge {
		t.Errorf("over the bound: %v", err)
	}
}
