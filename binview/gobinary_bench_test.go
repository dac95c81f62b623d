package binview

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/warden-mcp/warden/binview/disasm"
	"github.com/warden-mcp/warden/internal/benchcpu"
)

// goBinary is the Go toolchain's go command (15 MB, with its symbol
// table): the normal binary the analysis budget is measured on.
func goBinary(tb testing.TB) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(testGOROOT(), "bin", "go"))
	if err != nil {
		tb.Skipf("no go binary: %v", err)
	}
	return b
}

// BenchmarkCodeGoBinary is what a session on the go command costs in
// process: open, every stage of the code analysis, then one function's
// graph as DOT (main.main), b.N times.
func BenchmarkCodeGoBinary(b *testing.B) {
	data := goBinary(b)
	opts := &Options{MaxFileSize: LocalMaxFileSize}
	b.ReportAllocs()
	cpu0 := benchcpu.Process()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		v, err := Open(context.Background(), "go", data, opts)
		if err != nil {
			b.Fatal(err)
		}
		st, err := v.WaitCode(context.Background(), CodeReferences)
		if err != nil || st.Stage < CodeReferences {
			b.Fatalf("stage %s: %v %v", st.Stage, err, st.Err)
		}
		addr, ok := v.Symbol("main.main")
		if !ok {
			b.Fatal("no main.main")
		}
		cfg, err := v.FunctionGraph(st, nil, addr, disasm.Intel)
		if err != nil {
			b.Fatal(err)
		}
		if len(cfg.DOT()) == 0 {
			b.Fatal("no DOT")
		}
		v.Close()
	}
	b.StopTimer()
	benchcpu.Report(b, cpu0)
}
