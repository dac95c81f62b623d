package binview

import (
	"context"
	"runtime"
	"testing"

	"github.com/warden-mcp/warden/binview/internal/bintest"
	"github.com/warden-mcp/warden/internal/benchcpu"
)

// benchOpen opens path and triages it b.N times, and reports the heap a
// finished view keeps (retained-MB) beside -benchmem's per-operation
// allocation.
func benchOpen(b *testing.B, path string) {
	data := readFile(b, path)
	opts := &Options{MaxFileSize: LocalMaxFileSize}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := int64(benchcpu.Process())
	var v *View
	for i := 0; i < b.N; i++ {
		var err error
		v, err = Open(context.Background(), path, data, opts)
		if err != nil {
			b.Fatal(err)
		}
		_ = v.Triage()
	}
	b.StopTimer()
	b.ReportMetric(float64(int64(benchcpu.Process())-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "retained-MB")
	runtime.KeepAlive(v)
}

// A stripped 25 MB Go binary: the Go compiler.
func BenchmarkOpenTriageGoCompiler(b *testing.B) { benchOpen(b, strippedCompile(b)) }

// The system's C library.
func BenchmarkOpenTriageLibc(b *testing.B) { benchOpen(b, "/lib/x86_64-linux-gnu/libc.so.6") }

// The hosted path's parent side: decode a snapshot and build the view.
func BenchmarkSnapshotToView(b *testing.B) {
	for _, c := range []struct{ name, path string }{{"GoCompiler", strippedCompile(b)}, {"Libc", "/lib/x86_64-linux-gnu/libc.so.6"}} {
		b.Run(c.name, func(b *testing.B) {
			data := readFile(b, c.path)
			a, err := Analyze(context.Background(), data, &Options{MaxFileSize: LocalMaxFileSize})
			if err != nil {
				b.Fatal(err)
			}
			enc, _ := a.MarshalBinary()
			b.ReportMetric(float64(len(enc))/(1<<20), "snapshot-MB")
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				a, err := UnmarshalAnalysis(enc)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := New(c.name, data, a, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkLookups(b *testing.B) {
	v := openFile(b, strippedCompile(b), nil)
	addr, _ := v.Symbol("cmd/compile/internal/ssa.(*Func).Fatalf")
	b.Run("SymbolByName", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, ok := v.Symbol("cmd/compile/internal/ssa.(*Func).Fatalf"); !ok {
				b.Fatal("missing")
			}
		}
	})
	b.Run("SymbolAt", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, _, ok := v.SymbolAt(addr + 7); !ok {
				b.Fatal("missing")
			}
		}
	})
	b.Run("AddressInfo", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := v.AddressInfo(addr+7, 16); err != nil {
				b.Fatal(err)
			}
		}
	})
	p, _ := ParsePattern("48 8b ?? ?? ?? ?? ?? 48 89")
	b.Run("Search100", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, _, err := v.Search(context.Background(), p, SearchOptions{Max: 100}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// benchFunctions opens path and waits for stage of the code analysis,
// then lists the functions as a tool would, b.N times.
func benchFunctions(b *testing.B, path string, stage CodeStage) {
	data := readFile(b, path)
	opts := &Options{MaxFileSize: LocalMaxFileSize}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := int64(benchcpu.Process())
	n := 0
	for i := 0; i < b.N; i++ {
		v, err := Open(context.Background(), path, data, opts)
		if err != nil {
			b.Fatal(err)
		}
		st, err := v.WaitCode(context.Background(), stage)
		if err != nil || st.Stage < stage {
			b.Fatalf("stage %s: %v %v", st.Stage, err, st.Err)
		}
		n = len(v.Functions(st, nil))
		v.Close()
	}
	b.StopTimer()
	b.ReportMetric(float64(int64(benchcpu.Process())-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
	b.ReportMetric(float64(n), "functions")
}

// The target: the stripped 25 MB Go compiler's full function
// list (after recursive descent) in under 2 s on one core, from the file's
// bytes: run with -cpu 1.
func BenchmarkOpenFunctionsGoCompiler(b *testing.B) {
	benchFunctions(b, strippedCompile(b), CodeFunctions)
}

// The first answer: the function starts the metadata states.
func BenchmarkOpenMetadataGoCompiler(b *testing.B) {
	benchFunctions(b, strippedCompile(b), CodeMetadata)
}

// Every stage (blocks, cross-references, call graph) of the Go compiler.
func BenchmarkOpenReferencesGoCompiler(b *testing.B) {
	benchFunctions(b, strippedCompile(b), CodeReferences)
}

// The gcc -O2 static build, stripped: .eh_frame and descent.
func BenchmarkOpenFunctionsStatic(b *testing.B) {
	benchFunctions(b, bintest.Build(b, bintest.StaticStrip), CodeFunctions)
}

// BenchmarkListFunctionsPage is one bininspect_functions call once the
// analysis is done: name the Go compiler's 20,265 functions (with an
// overlay of user names) and cut the first page of a query.
func BenchmarkListFunctionsPage(b *testing.B) {
	v := openFile(b, strippedCompile(b), nil)
	defer v.Close()
	st, err := v.WaitCode(context.Background(), CodeReferences)
	if err != nil {
		b.Fatal(err)
	}
	o := NewOverlay(map[uint64]string{st.Functions[100].Addr: "renamed"}, []uint64{st.Functions[200].Addr + 1})
	b.ReportAllocs()
	for b.Loop() {
		p := ListFunctions(v.Functions(st, o), FunctionQuery{Query: Query{Text: "ssa.", Limit: 100}})
		if p.Total == 0 {
			b.Fatal("no match")
		}
	}
}
