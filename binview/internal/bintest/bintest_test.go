package bintest

import (
	"os"
	"testing"
)

func TestBuildAndTruth(t *testing.T) {
	for _, v := range []Variant{Dynamic, DynamicStrip, DynamicNoEH} {
		p := Build(t, v)
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s: %v", v, err)
		}
	}
	truth := Truth(t, Build(t, Dynamic))
	// 240 generated functions less those gcc inlined away entirely, plus
	// main and the C runtime's own.
	if len(truth) < 150 {
		t.Fatalf("only %d functions in the truth", len(truth))
	}
	t.Logf("truth: %d functions", len(truth))
}

func TestCompare(t *testing.T) {
	s := Compare([]uint64{1, 2, 3, 9}, []uint64{1, 2, 3, 4}, func(a uint64) bool { return a < 9 })
	if s.TP != 3 || s.FP != 0 || s.FN != 1 || s.Precision != 1 || s.Recall != 0.75 {
		t.Fatalf("%+v", s)
	}
}
