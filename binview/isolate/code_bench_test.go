package isolate

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/warden-mcp/warden/binview"
	"github.com/warden-mcp/warden/binview/disasm"
	"github.com/warden-mcp/warden/internal/benchcpu"
)

// childCPU is the CPU time of this process's children that have ended.
func childCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkCodeGoBinaryIsolated is what a hosted session on the go
// command (15 MB) costs now that its code analysis runs in the worker:
// open (the parse in process here, to isolate the code jobs' cost),
// every stage of the code analysis in two children (the function stages,
// then all three for the references), and main.main's graph as DOT.
// BenchmarkCodeGoBinary in package binview is the same in process.
func BenchmarkCodeGoBinaryIsolated(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(testGOROOT(), "bin", "go"))
	if err != nil {
		b.Skip("no go binary")
	}
	r := runner(b, "serve", Limits{Memory: DefaultMemory + raceMemory})
	opts := &binview.Options{MaxFileSize: binview.LocalMaxFileSize, CodeRunner: r}
	b.ReportAllocs()
	cpu0, child0 := benchcpu.Process(), childCPU()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		v, err := binview.Open(context.Background(), "go", data, opts)
		if err != nil {
			b.Fatal(err)
		}
		st, err := v.WaitCode(context.Background(), binview.CodeReferences)
		if err != nil || st.Stage < binview.CodeReferences {
			b.Fatalf("stage %s: %v %v", st.Stage, err, st.Err)
		}
		addr, _ := v.Symbol("main.main")
		cfg, err := v.FunctionGraph(st, nil, addr, disasm.Intel)
		if err != nil || len(cfg.DOT()) == 0 {
			b.Fatal(err)
		}
		v.Close()
	}
	b.StopTimer()
	benchcpu.Report(b, cpu0)
	b.ReportMetric(float64((childCPU()-child0).Microseconds())/1000/float64(b.N), "child-cpu-ms/op")
}
