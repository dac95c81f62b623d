package addrexpr

import (
	"context"
	"strings"
	"testing"
)

// benchExprs are representative inputs, from a plain number to the
// largest expression the limits allow.
var benchExprs = []struct {
	name, in string
}{
	{"number", "0x401000"},
	{"symbol", "main + 0x10"},
	{"mixed", "[[400010]].d * 4 + (.text - $start) / 0n2 == 0x401000"},
	{"max", strings.Repeat("main+", 100) + "[400000].b"},
}

func BenchmarkParse(b *testing.B) {
	for _, bb := range benchExprs {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bb.in)))
			for b.Loop() {
				if _, err := Parse(bb.in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkEval(b *testing.B) {
	ctx := context.Background()
	for _, bb := range benchExprs {
		b.Run(bb.name, func(b *testing.B) {
			e, err := Parse(bb.in)
			if err != nil {
				b.Fatal(err)
			}
			f := newFake(8)
			b.ReportAllocs()
			for b.Loop() {
				f.reads = f.reads[:0]
				if _, err := e.Eval(ctx, f); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEvaluate is Parse and Eval together, the per-call cost of an
// address parameter.
func BenchmarkEvaluate(b *testing.B) {
	ctx := context.Background()
	for _, bb := range benchExprs {
		b.Run(bb.name, func(b *testing.B) {
			f := newFake(8)
			b.ReportAllocs()
			b.SetBytes(int64(len(bb.in)))
			for b.Loop() {
				f.reads = f.reads[:0]
				if _, err := Evaluate(ctx, bb.in, f); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkParseError is the cost of rejecting bad input.
func BenchmarkParseError(b *testing.B) {
	in := strings.Repeat("1+", MaxTokens/2-1) + "1)"
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(in); err == nil {
			b.Fatal("no error")
		}
	}
}
