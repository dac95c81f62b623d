package toolset

import (
	"context"
	"testing"

	"github.com/warden-mcp/warden/binview"
)

// The cache bounds views by what they hold: a view whose code analysis
// grew after it was put makes room at its next use, and the least
// recently used view goes.
func TestViewCacheCountsAnalysis(t *testing.T) {
	p := build(t, "go-linux-stripped")
	analysed := func(v *binview.View) *binview.View {
		t.Helper()
		if _, err := v.WaitCode(context.Background(), binview.CodeReferences); err != nil {
			t.Fatal(err)
		}
		return v
	}
	size := openCodeView(t, p, nil).Size()
	grown := analysed(openCodeView(t, p, nil)).Footprint()
	if grown <= 2*size+1 {
		t.Fatalf("the analysis adds %d bytes to a %d-byte file; the test needs more than the file again", grown-size, size)
	}

	a, b := openCodeView(t, p, nil), openCodeView(t, p, nil)
	if a.Footprint() != size {
		t.Fatalf("before any analysis the footprint is the file: %d, %d", a.Footprint(), size)
	}
	c := newViewCache(grown + size/2) // both files fit; a analysed and b do not
	c.put("a", a)
	c.put("b", b)
	if c.get("a") != a || c.get("b") != b {
		t.Fatal("two files fit")
	}
	analysed(a) // b was used last
	if c.get("a") != a {
		t.Fatal("a is gone")
	}
	if c.get("b") != nil {
		t.Error("b, the least recently used, should have made room for a's analysis")
	}
	if c.bytes != grown+1 {
		t.Errorf("the cache counts %d bytes, a holds %d", c.bytes, grown+1)
	}

	// A view that outgrows the whole bound leaves the cache at its next
	// use (the caller keeps it).
	d := openCodeView(t, p, nil)
	small := newViewCache(size + 1)
	small.put("d", d)
	if small.get("d") != d {
		t.Fatal("the file fits")
	}
	analysed(d)
	if small.get("d") != d || small.get("d") != nil || small.bytes != 0 {
		t.Errorf("a view over the bound: still cached, %d bytes counted", small.bytes)
	}
}
