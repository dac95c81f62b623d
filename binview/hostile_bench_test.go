package binview

import (
	"context"
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"testing"
	"time"

	"github.com/warden-mcp/warden/binview/disasm"
	"github.com/warden-mcp/warden/errcode"
	"github.com/warden-mcp/warden/internal/benchcpu"
	"github.com/warden-mcp/warden/internal/hostile"
)

// BenchmarkHostile runs the reports' files in process, at their reported
// sizes, under the default limits: what a call costs (CPU) and how far the
// heap grows at its peak (peak-heap-MiB), and how it ends (the metric
// limited is 1 when the budget stopped it with analysis_limit). Run one
// at a time, with -benchtime 1x: they are large.
func BenchmarkHostile(b *testing.B) {
	for _, c := range []struct {
		name string
		data func() []byte
		run  func(*View) error
	}{
		// The 64 MiB upload that took the hosted server down in
		// bininspect_xrefs, and a tenth of it.
		{"calls-6MB", func() []byte { return hostile.CallFlood(1_200_000) }, references},
		{"calls-64MiB", func() []byte { return hostile.CallFlood(13_421_772) }, references},
		// The 10 MB block of movs whose bininspect_function_graph died.
		{"block-10MB", func() []byte { return hostile.GiantBlock(1_000_000) }, func(v *View) error {
			st, _ := v.WaitCode(context.Background(), CodeReferences)
			if st.Err != nil {
				return st.Err
			}
			cfg, err := v.FunctionGraph(st, nil, hostile.TextAddr, disasm.Intel)
			if err != nil {
				return err
			}
			_ = cfg.DOT()
			return nil
		}},
		// The 54 MB symbol table: the open is measured too.
		{"symbols-54MB", func() []byte { return hostile.SymbolFlood(2_250_000, 16) }, nil},
	} {
		b.Run(c.name, func(b *testing.B) {
			data := c.data()
			var peak int64
			limited := 0.0
			cpu0 := benchcpu.Process()
			for i := 0; i < b.N; i++ {
				peak = max(peak, benchHeapPeak(func() {
					v, err := Open(context.Background(), "hostile", data, &Options{MaxFileSize: LocalMaxFileSize})
					if err == nil {
						if c.run != nil {
							err = c.run(v)
						} else {
							err = functionsStage(v)
						}
						v.Close()
					}
					if errcode.CodeOf(err) == "analysis_limit" {
						limited = 1
					} else if err != nil {
						b.Fatal(err)
					}
				}))
			}
			benchcpu.Report(b, cpu0)
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
			b.ReportMetric(limited, "limited")
		})
	}
}

func references(v *View) error {
	st, _ := v.WaitCode(context.Background(), CodeReferences)
	return st.Err
}

func functionsStage(v *View) error {
	st, _ := v.WaitCode(context.Background(), CodeFunctions)
	return st.Err
}

// benchHeapPeak is how far the heap grew while f ran, at its highest
// point seen.
func benchHeapPeak(f func()) int64 {
	read := func() int64 {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		metrics.Read(s)
		return int64(s[0].Value.Uint64())
	}
	runtime.GC()
	base := read()
	var peak atomic.Int64
	stop := make(chan struct{})
	done := make(chan struct{})
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
