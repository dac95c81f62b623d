package postgres

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/warden-mcp/warden/limits"
)

// BenchmarkTwoPoolsRateDecisions is two replicas (two pools) on one
// PostgreSQL taking transport rate-limit decisions through the Limiter from
// many goroutines: 1,000 credentials, the shared clock advancing 1 ms per
// decision so logs stay populated and most requests are admitted. It
// reports decisions/s across both pools and the p50/p99 of one decision.
func BenchmarkTwoPoolsRateDecisions(b *testing.B) {
	for _, conns := range []int32{4, 8} {
		b.Run(fmt.Sprintf("conns=%d/pool", conns), func(b *testing.B) {
			dsn := testDSN(b)
			schema := uniqueSchema(b, dsn)
			var nowUS atomic.Int64
			nowUS.Store(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC).UnixMicro())
			clock := func() time.Time { return time.UnixMicro(nowUS.Add(1000)) }
			var lims []*limits.Limiter
			for range 2 {
				s, err := Open(b.Context(), dsn, &Options{Schema: schema, MaxConns: conns})
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(s.Close)
				l, err := limits.New(s, &limits.Config{Now: clock})
				if err != nil {
					b.Fatal(err)
				}
				lims = append(lims, l)
			}
			var n, unavailable atomic.Int64
			var mu sync.Mutex
			var lat []time.Duration
			b.SetParallelism(8)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				local := make([]time.Duration, 0, 4096)
				for pb.Next() {
					i := n.Add(1)
					st := time.Now()
					_, err := lims[i%2].AllowRequest(b.Context(), fmt.Sprintf("cred-%04d", i%1000))
					switch {
					case err == nil, limits.ErrRateLimited.Is(err):
					case limits.ErrRateLimitUnavailable.Is(err):
						unavailable.Add(1)
					default:
						b.Error(err)
						return
					}
					if len(local) < cap(local) {
						local = append(local, time.Since(st))
					}
				}
				mu.Lock()
				lat = append(lat, local...)
				mu.Unlock()
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
			b.ReportMetric(float64(unavailable.Load()), "timeouts")
			if len(lat) > 0 {
				slices.Sort(lat)
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
				b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
			}
		})
	}
}

// BenchmarkTwoPoolsBeginScan is charged scan admission plus release across
// two pools; admission is serialised by one advisory lock.
func BenchmarkTwoPoolsBeginScan(b *testing.B) {
	dsn := testDSN(b)
	schema := uniqueSchema(b, dsn)
	var nowUS atomic.Int64
	nowUS.Store(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC).UnixMicro())
	var lims []*limits.Limiter
	for range 2 {
		s, err := Open(b.Context(), dsn, &Options{Schema: schema})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(s.Close)
		l, _ := limits.New(s, &limits.Config{
			Now: func() time.Time { return time.UnixMicro(nowUS.Add(1000)) }, MonthlyScans: -1,
			ScanRate: limits.RatePolicy{Limit: limits.MaxRateLimit, Window: time.Second}, ScannerCapacity: 1000,
		})
		lims = append(lims, l)
	}
	var n atomic.Int64
	b.SetParallelism(4)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			sc, err := lims[i%2].BeginScan(b.Context(), limits.ScanRequest{
				Credential: fmt.Sprint("cred-", i%100), Tool: "scan_web", ScanKey: fmt.Sprint("k", i),
				Charge: true, CallID: fmt.Sprint("call-", i),
			})
			if err != nil {
				if limits.ErrTooManyConcurrentScans.Is(err) || limits.ErrQuotaUnavailable.Is(err) {
					continue
				}
				b.Error(err)
				return
			}
			sc.Release(b.Context())
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "admissions/s")
}

// BenchmarkRateDecisionLatency is one decision at a time from one replica:
// the round-trip cost without queueing.
func BenchmarkRateDecisionLatency(b *testing.B) {
	dsn := testDSN(b)
	schema := uniqueSchema(b, dsn)
	s, err := Open(b.Context(), dsn, &Options{Schema: schema})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var nowUS atomic.Int64
	nowUS.Store(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC).UnixMicro())
	l, _ := limits.New(s, &limits.Config{Now: func() time.Time { return time.UnixMicro(nowUS.Add(1000)) }})
	lat := make([]time.Duration, 0, 1<<16)
	i := 0
	step := func() {
		st := time.Now()
		_, err := l.AllowRequest(b.Context(), fmt.Sprintf("cred-%04d", i%1000))
		if err != nil && !limits.ErrRateLimited.Is(err) && !limits.ErrRateLimitUnavailable.Is(err) {
			b.Fatal(err)
		}
		if len(lat) < cap(lat) {
			lat = append(lat, time.Since(st))
		}
		i++
	}
	for b.Loop() {
		step()
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}
