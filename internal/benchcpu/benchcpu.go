// Package benchcpu measures the CPU time a benchmark spends, beside the
// wall time the testing package reports. On the shared cores Warden is
// measured on, wall time swings with other work; CPU time per operation is
// the stable figure docs/PERFORMANCE.md records.
package benchcpu

import (
	"testing"
	"time"
)

// Process returns the CPU time (user and system) this process has used so
// far; zero where the platform does not say.
func Process() time.Duration { return processCPU() }

// Report adds a cpu-ms/op metric for the CPU time used since start, over
// b.N operations. Call it after the loop with Process()'s value from
// before it.
func Report(b *testing.B, start time.Duration) {
	b.Helper()
	if cpu := Process() - start; cpu > 0 && b.N > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
	}
}

// Measure runs fn b.N times over n bytes each, reporting bytes per second,
// allocations and CPU time per operation.
func Measure(b *testing.B, n int64, fn func() error) {
	b.Helper()
	b.SetBytes(n)
	b.ReportAllocs()
	start := Process()
	for b.Loop() {
		if err := fn(); err != nil {
			b.Fatal(err)
		}
	}
	Report(b, start)
}
