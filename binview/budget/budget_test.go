package budget

import (
	"testing"

	"github.com/warden-mcp/warden/errcode"
)

func TestTakeSpendsTheBudget(t *testing.T) {
	b := New(Limits{Blocks: 10, Bytes: 100})
	if err := b.Take(Blocks, 10); err != nil {
		t.Fatalf("within the limit: %v", err)
	}
	err := b.Take(Blocks, 1)
	e, ok := errcode.As(err)
	if !ok || e.Code != Code || e.Details["limit"] != "blocks" || e.Details["max"] != int64(10) {
		t.Fatalf("past the limit: %#v", err)
	}
	// Spent: every kind fails now, with the first limit's error.
	if err := b.Take(Bytes, 1); err != e {
		t.Errorf("after the limit: %v", err)
	}
	if l, ok := IsLimit(b.Err()); !ok || l != "blocks" || b.Left(Bytes) != 0 {
		t.Errorf("Err %v, left %d", b.Err(), b.Left(Bytes))
	}
	// Giving back never revives it.
	b.Give(Blocks, 5)
	if b.Take(Blocks, 1) == nil {
		t.Error("a spent budget revived")
	}
}

func TestTryDoesNotSpend(t *testing.T) {
	b := New(Limits{Instructions: 3})
	for i := 0; i < 3; i++ {
		if !b.Try(Instructions, 1) {
			t.Fatalf("try %d refused", i)
		}
	}
	if b.Try(Instructions, 1) || b.Used(Instructions) != 3 {
		t.Fatalf("past the limit: used %d", b.Used(Instructions))
	}
	if b.Err() != nil || b.Take(Bytes, 1) != nil {
		t.Errorf("a refused try spent the budget: %v", b.Err())
	}
}

func TestGiveAndPeak(t *testing.T) {
	b := New(Limits{Bytes: 100})
	_ = b.Take(Bytes, 80)
	b.Give(Bytes, 60)
	if err := b.Take(Bytes, 70); err != nil {
		t.Fatalf("after giving back: %v", err)
	}
	if b.Used(Bytes) != 90 || b.Peak(Bytes) != 90 {
		t.Errorf("used %d, peak %d", b.Used(Bytes), b.Peak(Bytes))
	}
	b.Give(Bytes, 1000)
	if b.Used(Bytes) != 0 || b.Peak(Bytes) != 90 {
		t.Errorf("after giving all back: used %d, peak %d", b.Used(Bytes), b.Peak(Bytes))
	}
}

func TestDefaults(t *testing.T) {
	d := Limits{}.WithDefaults()
	for k := Kind(0); k < numKinds; k++ {
		if d.Max(k) <= 0 || (Limits{}).Max(k) != d.Max(k) {
			t.Errorf("%s: default %d", k, d.Max(k))
		}
	}
	if New(Limits{}).Max(Bytes) != DefaultBytes || New(Limits{Bytes: -1}).Max(Bytes) != DefaultBytes {
		t.Error("zero and negative limits are not the defaults")
	}
	if Kind(200).String() != "unknown" || Output.String() != "output" {
		t.Error("names")
	}
}
