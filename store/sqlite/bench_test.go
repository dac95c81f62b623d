package sqlite

import (
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/warden-mcp/warden/limits"
)

// BenchmarkAllowRequest is the in-process cost of one transport rate-limit
// decision through the Limiter on the embedded store: 1,000 credentials,
// the clock advancing 1 ms per decision so most requests are admitted and
// every log holds entries. It reports p50/p99 of single-decision latency.
func BenchmarkAllowRequest(b *testing.B) {
	b.Run("checkpoint=in-commit", func(b *testing.B) { benchAllowRequest(b, nil) })
	b.Run("checkpoint=background", func(b *testing.B) { benchAllowRequest(b, &Options{CheckpointInterval: time.Second}) })
}

func benchAllowRequest(b *testing.B, opts *Options) {
	s, err := Open(b.Context(), b.TempDir(), opts)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var nowUS atomic.Int64
	nowUS.Store(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC).UnixMicro())
	l, err := limits.New(s, &limits.Config{Now: func() time.Time { return time.UnixMicro(nowUS.Add(1000)) }})
	if err != nil {
		b.Fatal(err)
	}
	creds := make([]string, 1000)
	for i := range creds {
		creds[i] = fmt.Sprintf("cred-%04d", i)
	}
	lat := make([]time.Duration, 0, 1<<20)
	i, unavailable := 0, 0
	// The body is a function call: Go 1.26.8's compiler crashed in escape
	// analysis on this switch written directly inside a b.Loop loop.
	step := func() {
		st := time.Now()
		_, err := l.AllowRequest(b.Context(), creds[i%len(creds)])
		switch {
		case err == nil, limits.ErrRateLimited.Is(err):
		case limits.ErrRateLimitUnavailable.Is(err):
			unavailable++ // one decision took longer than the 100 ms deadline
		default:
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
	reportLatency(b, lat)
	b.ReportMetric(float64(unavailable), "timeouts")
}

// BenchmarkAllowRequestParallel is the same decision from concurrent
// request goroutines sharing one process's store.
func BenchmarkAllowRequestParallel(b *testing.B) {
	s, err := Open(b.Context(), b.TempDir(), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var nowUS atomic.Int64
	nowUS.Store(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC).UnixMicro())
	l, _ := limits.New(s, &limits.Config{Now: func() time.Time { return time.UnixMicro(nowUS.Add(1000)) }})
	var n, unavailable atomic.Int64
	b.SetParallelism(4)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			_, err := l.AllowRequest(b.Context(), fmt.Sprintf("cred-%04d", i%1000))
			switch {
			case err == nil, limits.ErrRateLimited.Is(err):
			case limits.ErrRateLimitUnavailable.Is(err):
				// Queued past the 100 ms deadline: refused, as it must be.
				unavailable.Add(1)
			default:
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
	b.ReportMetric(float64(unavailable.Load()), "timeouts")
}

// BenchmarkBeginScan is one charged admission plus release.
func BenchmarkBeginScan(b *testing.B) {
	s, err := Open(b.Context(), b.TempDir(), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var nowUS atomic.Int64
	nowUS.Store(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC).UnixMicro())
	l, _ := limits.New(s, &limits.Config{
		Now: func() time.Time { return time.UnixMicro(nowUS.Add(1000)) }, MonthlyScans: -1,
		ScanRate: limits.RatePolicy{Limit: limits.MaxRateLimit, Window: time.Second},
	})
	i, unavailable := 0, 0
	for b.Loop() {
		i++
		sc, err := l.BeginScan(b.Context(), limits.ScanRequest{
			Credential: fmt.Sprint("cred-", i%100), Tool: "scan_web", ScanKey: fmt.Sprint("k", i),
			Charge: true, CallID: fmt.Sprint("call-", i),
		})
		if limits.ErrQuotaUnavailable.Is(err) {
			unavailable++ // past the 500 ms deadline on a loaded machine: refused
			continue
		}
		if err != nil {
			b.Fatal(err)
		}
		if err := sc.Release(b.Context()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(unavailable), "timeouts")
}

func reportLatency(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1e3, "p99-µs")
	b.ReportMetric(float64(lat[len(lat)*999/1000].Nanoseconds())/1e3, "p99.9-µs")
	b.ReportMetric(float64(lat[len(lat)-1].Nanoseconds())/1e3, "max-µs")
}

// BenchmarkAllowRequestOverLimit is one credential far over its limit: after
// the first denial the Limiter's deny cache answers without the store.
func BenchmarkAllowRequestOverLimit(b *testing.B) {
	s, err := Open(b.Context(), b.TempDir(), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var nowUS atomic.Int64
	nowUS.Store(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC).UnixMicro())
	l, _ := limits.New(s, &limits.Config{Now: func() time.Time { return time.UnixMicro(nowUS.Add(1)) }})
	lat := make([]time.Duration, 0, 1<<20)
	for b.Loop() {
		st := time.Now()
		_, err := l.AllowRequest(b.Context(), "abuser")
		if err != nil && !limits.ErrRateLimited.Is(err) {
			b.Fatal(err)
		}
		if len(lat) < cap(lat) {
			lat = append(lat, time.Since(st))
		}
	}
	reportLatency(b, lat)
}
