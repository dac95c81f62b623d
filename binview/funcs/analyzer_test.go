package funcs

import (
	"context"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/warden-mcp/warden/errcode"
)

// tiny is a hand-written x86-64 image: main calls helper, which tail-calls
// leaf; a pointer in data names orphan, which nothing calls.
func tiny() *Image {
	code := []byte{
		// 0x1000 main: call helper; ret
		0xe8, 0x0b, 0x00, 0x00, 0x00, 0xc3,
		0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
		// 0x1010 helper: test edi, edi; je +2; jmp leaf; ret
		0x85, 0xff, 0x74, 0x02, 0xeb, 0x0a, 0xc3,
		0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
		// 0x1020 leaf: xor eax, eax; ret
		0x31, 0xc0, 0xc3,
		0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
		// 0x1030 orphan: mov eax, 1; ret
		0xb8, 0x01, 0x00, 0x00, 0x00, 0xc3,
	}
	data := binary.LittleEndian.AppendUint64(nil, 0x1030)
	return &Image{
		Arch: "amd64",
		Regions: []Region{
			{Name: ".text", Addr: 0x1000, Data: code, Exec: true},
			{Name: ".data", Addr: 0x2000, Data: data},
		},
		Entries: []uint64{0x1000},
	}
}

func TestTinyStages(t *testing.T) {
	var stages []Stage
	a, err := New(tiny(), &Options{Progress: func(p Progress) {
		if p.Finished {
			stages = append(stages, p.Stage)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r, err := a.Run(ctx, StageMetadata)
	if err != nil || len(r.Functions) != 1 || r.Functions[0].Source != SourceEntry {
		t.Fatalf("metadata: %+v %v", r, err)
	}
	r, err = a.Run(ctx, StageDescent)
	if err != nil {
		t.Fatal(err)
	}
	got := map[uint64]Source{}
	for _, f := range r.Functions {
		got[f.Addr] = f.Source
	}
	want := map[uint64]Source{0x1000: SourceEntry, 0x1010: SourceCall, 0x1020: SourceTailCall, 0x1030: SourceDataPointer}
	if len(got) != len(want) {
		t.Fatalf("functions %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%#x: %v, want %v", k, got[k], v)
		}
	}
	if len(r.Warnings) != 1 || r.Warnings[0] != WarnHeuristic {
		t.Errorf("warnings %v", r.Warnings)
	}
	g, err := a.Graph(ctx)
	if err != nil {
		t.Fatal(err)
	}
	h, _ := g.Function(0x1010)
	if len(h.Blocks) != 3 || len(h.Callers) != 1 || h.Callers[0] != 0x1000 || len(h.Callees) != 1 || h.Callees[0] != 0x1020 {
		t.Fatalf("helper: %+v", h)
	}
	if k := h.Blocks[0].Succs; len(k) != 2 || k[0].Kind != EdgeTaken || k[1].Kind != EdgeNotTaken {
		t.Fatalf("helper's branch edges: %+v", k)
	}
	if want := []Stage{StageMetadata, StageDescent, StageBlocks}; len(stages) != 3 || stages[2] != StageBlocks {
		t.Fatalf("progress saw %v, want %v", stages, want)
	}
	// With heuristics off, orphan is not found.
	a, _ = New(tiny(), &Options{Heuristics: HeuristicsOff})
	r, _ = a.Run(ctx, StageDescent)
	if len(r.Functions) != 3 {
		t.Fatalf("heuristics off: %d functions", len(r.Functions))
	}
}

func TestBudgetsAndCancel(t *testing.T) {
	a, _ := New(tiny(), &Options{MaxInstructions: 2})
	r, err := a.Run(context.Background(), StageBlocks)
	if err != nil {
		t.Fatal(err)
	}
	if r.Instructions > 2 || !hasWarning(r.Warnings, WarnInstructionBudget) {
		t.Fatalf("budget: %d instructions, warnings %v", r.Instructions, r.Warnings)
	}
	a, _ = New(tiny(), &Options{MaxFunctions: 2})
	r, _ = a.Run(context.Background(), StageDescent)
	if len(r.Functions) != 2 || !hasWarning(r.Warnings, WarnFunctionBudget) {
		t.Fatalf("function budget: %d, %v", len(r.Functions), r.Warnings)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a, _ = New(tiny(), nil)
	if _, err := a.Run(ctx, StageDescent); errcode.CodeOf(err) != "analysis_cancelled" {
		t.Fatalf("cancelled: %v", err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 0)
	defer cancel()
	a, _ = New(tiny(), nil)
	if _, err := a.Run(ctx, StageDescent); errcode.CodeOf(err) != "analysis_timeout" {
		t.Fatalf("deadline: %v", err)
	}
}

func hasWarning(ws []string, w string) bool {
	for _, x := range ws {
		if x == w {
			return true
		}
	}
	return false
}

func TestNewRefuses(t *testing.T) {
	var e *errcode.Error
	if _, err := New(&Image{Arch: "thumb"}, nil); !errors.As(err, &e) || e.Code != "unsupported_arch" {
		t.Fatalf("thumb: %v", err)
	}
	overlap := &Image{Arch: "x86-64", Regions: []Region{{Addr: 0, Data: make([]byte, 16)}, {Addr: 8, Data: make([]byte, 16)}}}
	if _, err := New(overlap, nil); errcode.CodeOf(err) != "invalid_image" {
		t.Fatalf("overlap: %v", err)
	}
	if _, err := New(nil, nil); errcode.CodeOf(err) != "invalid_image" {
		t.Fatalf("nil: %v", err)
	}
}

var fuzzArchs = []string{"x86-64", "x86", "x86-16", "arm64", "arm", "riscv64", "ppc64", "ppc64le", "s390x", "loong64"}

// FuzzPipeline runs every stage on random regions of a random
// architecture: it must never panic, and never decode more instructions
// than its budget.
func FuzzPipeline(f *testing.F) {
	img := tiny()
	f.Add(uint8(0), img.Regions[0].Data, img.Regions[1].Data, uint64(0x1000), uint64(7))
	f.Add(uint8(3), []byte{0xc0, 0x03, 0x5f, 0xd6, 0x01, 0, 0, 0x94}, []byte{}, uint64(0x400000), uint64(1))
	f.Add(uint8(5), []byte{0x82, 0x80, 0xef, 0, 0x80, 0}, []byte{0, 0, 0, 0}, uint64(0x10000), uint64(2))
	f.Fuzz(func(t *testing.T, arch uint8, code, data []byte, base, seed uint64) {
		r := rand.New(rand.NewPCG(seed, base))
		img := &Image{
			Arch: fuzzArchs[int(arch)%len(fuzzArchs)],
			Regions: []Region{
				{Addr: base, Data: code, Exec: true},
				{Addr: base + uint64(len(code)) + 0x1000, Data: data},
			},
			Entries:  []uint64{base, base + uint64(r.IntN(len(code)+1))},
			Symbols:  []Seed{{Addr: base + uint64(r.IntN(len(code)+1)), Name: "abort", Size: uint64(r.IntN(64))}},
			Hints:    []Seed{{Addr: base + uint64(r.IntN(len(code)+1)), Source: SourcePdata, Size: uint64(r.IntN(64))}},
			Excluded: []Range{{base + uint64(r.IntN(len(code)+1)), base + uint64(r.IntN(len(code)+1))}},
			EHFrame:  Section{Addr: base + 0x1000, Data: data},
		}
		if base+uint64(len(code))+0x1000+uint64(len(data)) < base {
			return // wraps: refused by New, tested elsewhere
		}
		const budget = 5000
		a, err := New(img, &Options{MaxInstructions: budget, MaxFunctions: 200, MaxBlocks: 100, MaxXrefs: 1000, Heuristics: HeuristicsOn})
		if err != nil {
			if errcode.CodeOf(err) == "" {
				t.Fatalf("error without code: %v", err)
			}
			return
		}
		g, err := a.Graph(context.Background())
		if err != nil {
			if e, ok := errcode.As(err); ok {
				t.Fatalf("graph: %v: %v", err, e.Cause)
			}
			t.Fatalf("graph: %v", err)
		}
		if a.insts > budget || len(g.Functions) > 200 || len(g.Xrefs) > 1000 {
			t.Fatalf("budget exceeded: %d instructions, %d functions, %d xrefs", a.insts, len(g.Functions), len(g.Xrefs))
		}
		for _, fi := range g.Functions {
			if _, err := a.FunctionCFG(context.Background(), fi.Addr, nil); err != nil {
				t.Fatalf("cfg %#x: %v", fi.Addr, err)
			}
		}
	})
}
