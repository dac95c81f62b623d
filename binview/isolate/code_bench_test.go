package isolate

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/warden-mcp/warden/binview"
	"github.com/warden-mcp/warden/binview/disasm"
	"github.com/warden-mcp/warden/errcode"
	"github.com/warden-mcp/warden/internal/benchcpu"
	"github.com/warden-mcp/warden/internal/hostile"
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

// BenchmarkHostileIsolated runs the reports' call flood (64 MiB) and
// giant block (10 MB) as a hosted server does, the code analysis in the
// worker under the default limits: the server's heap at its peak
// (server-peak-heap-MiB), the worker's peak resident size
// (worker-peak-rss-MiB) and the CPU of both. Run with -benchtime 1x.
func BenchmarkHostileIsolated(b *testing.B) {
	if raceMemory > 0 {
		b.Skip("race")
	}
	for _, c := range []struct {
		name string
		data func() []byte
		addr uint64
	}{
		{"calls-64MiB", func() []byte { return hostile.CallFlood(13_421_772) }, hostile.TextAddr + 5},
		{"block-10MB", func() []byte { return hostile.GiantBlock(1_000_000) }, hostile.TextAddr},
	} {
		b.Run(c.name, func(b *testing.B) {
			data := c.data()
			r := runner(b, "serve", Limits{})
			var rss int64
			r.onExit = func(ps *os.ProcessState) { rss = max(rss, maxRSS(ps)) }
			opts := &binview.Options{MaxFileSize: binview.LocalMaxFileSize, CodeRunner: r}
			var peak int64
			outcome := ""
			cpu0, child0 := benchcpu.Process(), childCPU()
			for i := 0; i < b.N; i++ {
				peak = max(peak, serverHeapPeak(func() {
					v, err := binview.Open(context.Background(), "hostile", data, opts)
					if err != nil {
						b.Fatal(err)
					}
					defer v.Close()
					st, _ := v.WaitCode(context.Background(), binview.CodeReferences)
					if st.Err == nil {
						_, st.Err = v.FunctionGraph(st, nil, c.addr, disasm.Intel)
					}
					outcome = errcode.CodeOf(st.Err)
				}))
			}
			b.StopTimer()
			benchcpu.Report(b, cpu0)
			b.ReportMetric(float64((childCPU()-child0).Microseconds())/1000/float64(b.N), "child-cpu-ms/op")
			b.ReportMetric(float64(peak)/(1<<20), "server-peak-heap-MiB")
			b.ReportMetric(float64(rss)/(1<<20), "worker-peak-rss-MiB")
			b.Logf("outcome %q", outcome)
		})
	}
}

// serverHeapPeak is how far this process's heap grew while f ran.
func serverHeapPeak(f func()) int64 {
	read := func() int64 {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		metrics.Read(s)
		return int64(s[0].Value.Uint64())
	}
	runtime.GC()
	base := read()
	var peak atomic.Int64
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			if h := read() - base; h > peak.Load() {
				peak.Store(h)
			}
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	f()
	close(stop)
	<-done
	return peak.Load()
}
