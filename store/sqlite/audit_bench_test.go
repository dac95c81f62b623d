package sqlite

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/warden-mcp/warden/limits"
)

// BenchmarkAppendAudit is the cost of one audit record on the embedded
// store when the records of batch calls share a transaction (the
// Limiter's group commit): ns/op and cpu-ns/op (the process's user and
// system time, which waits for the disk do not inflate) are per record.
func BenchmarkAppendAudit(b *testing.B) {
	for _, batch := range []int{1, 8, 32, 128} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			s, err := Open(b.Context(), b.TempDir(), nil)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			recs := make([]limits.AuditRecord, batch)
			at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
			b.ReportAllocs()
			cpu0 := rusageCPU()
			n := 0
			for b.Loop() {
				if n%batch == 0 {
					for i := range recs {
						recs[i] = limits.AuditRecord{Time: at.Add(time.Duration(n+i) * time.Microsecond), CorrelationID: fmt.Sprintf("corr-%012d", n+i),
							Credential: "dev", Tenant: "local", Tool: "util_encode", Outcome: "ok", Duration: 12 * time.Microsecond}
					}
					if err := s.AppendAudit(b.Context(), recs...); err != nil {
						b.Fatal(err)
					}
				}
				n++
			}
			b.ReportMetric(float64(rusageCPU()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// rusageCPU is the process's user and system CPU time so far.
func rusageCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
