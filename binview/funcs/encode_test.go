package funcs

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/warden-mcp/warden/binview/budget"
	"github.com/warden-mcp/warden/errcode"
)

// The results cross a process boundary and come back equal.
func TestEncodingRoundTrips(t *testing.T) {
	a, err := New(tiny(), nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := a.Graph(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r, _ := a.Run(context.Background(), StageBlocks)
	fns, err := DecodeFunctions(AppendFunctions(nil, r.Functions), budget.New(budget.Limits{}))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(r.Functions, fns); d != "" {
		t.Errorf("functions (-sent +received):\n%s", d)
	}
	enc, err := g.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	got, err := UnmarshalGraph(enc, fns, budget.New(budget.Limits{}))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(g, got, cmpopts.IgnoreUnexported(Graph{}), cmpopts.EquateEmpty()); d != "" {
		t.Errorf("graph (-sent +received):\n%s", d)
	}
	for _, x := range g.Xrefs {
		if d := cmp.Diff(g.XrefsFrom(x.From), got.XrefsFrom(x.From)); d != "" {
			t.Errorf("xrefs from %#x:\n%s", x.From, d)
		}
	}
	// What a decode allocates is counted: a budget too small refuses it.
	if _, err := UnmarshalGraph(enc, fns, budget.New(budget.Limits{Bytes: 64})); errcode.CodeOf(err) != budget.Code {
		t.Errorf("a graph past the byte limit: %v", err)
	}
}

// FuzzUnmarshalGraph feeds the decoders arbitrary bytes: they never
// panic, allocate no more than their budget, and what they accept keeps
// the orders a graph's lookups rely on.
func FuzzUnmarshalGraph(f *testing.F) {
	a, _ := New(tiny(), nil)
	g, _ := a.Graph(context.Background())
	enc, _ := g.MarshalBinary()
	f.Add(enc)
	r, _ := a.Run(context.Background(), StageBlocks)
	f.Add(AppendFunctions(nil, r.Functions))
	f.Fuzz(func(t *testing.T, b []byte) {
		bud := budget.New(budget.Limits{Bytes: 1 << 20})
		if g, err := UnmarshalGraph(b, nil, bud); err == nil {
			for i := 1; i < len(g.Functions); i++ {
				if g.Functions[i-1].Addr >= g.Functions[i].Addr {
					t.Fatal("functions out of order")
				}
			}
			for i := 1; i < len(g.Xrefs); i++ {
				if cmpXref(g.Xrefs[i-1], g.Xrefs[i]) > 0 {
					t.Fatal("xrefs out of order")
				}
			}
			for _, x := range g.Xrefs {
				_ = g.XrefsFrom(x.From)
				_ = g.XrefsTo(x.To)
			}
		} else if c := errcode.CodeOf(err); c != "invalid_encoding" && c != budget.Code {
			t.Fatalf("code %q", c)
		}
		if fns, err := DecodeFunctions(b, budget.New(budget.Limits{Bytes: 1 << 20})); err == nil {
			for i := 1; i < len(fns); i++ {
				if fns[i-1].Addr >= fns[i].Addr {
					t.Fatal("functions out of order")
				}
			}
		}
	})
}
