package loadtest

import (
	"math/bits"
	"time"
)

// subBits sets the histogram's precision: each power of two is split into
// 2^subBits buckets, so a recorded value is off by at most 1/64 (1.6 %).
const subBits = 6

// Histogram counts latencies in log-linear buckets of nanoseconds. The
// zero value is ready to use. It is not safe for concurrent use: give each
// connection its own and Merge them.
type Histogram struct {
	counts [64 << subBits]uint64
	n      uint64
	max    time.Duration
}

func bucketOf(v uint64) int {
	if v < 1<<subBits {
		return int(v)
	}
	shift := bits.Len64(v) - subBits - 1 // v>>shift is in [64, 128)
	return (shift+1)<<subBits + int(v>>shift) - 1<<subBits
}

// upperBound is the largest value that falls in bucket i.
func upperBound(i int) uint64 {
	if i < 1<<subBits {
		return uint64(i)
	}
	shift := i>>subBits - 1
	low := uint64(i&(1<<subBits-1)+1<<subBits) << shift
	return low + (1 << shift) - 1
}

// Record adds one latency; negative durations count as zero.
func (h *Histogram) Record(d time.Duration) {
	if d < 0 {
		d = 0
	}
	h.counts[bucketOf(uint64(d))]++
	h.n++
	if d > h.max {
		h.max = d
	}
}

// Merge adds o's counts to h.
func (h *Histogram) Merge(o *Histogram) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
	if o.max > h.max {
		h.max = o.max
	}
}

// Count is the number of recorded values.
func (h *Histogram) Count() uint64 { return h.n }

// Max is the largest recorded value.
func (h *Histogram) Max() time.Duration { return h.max }

// Quantile returns the upper bound of the bucket holding the q-quantile
// (0 < q <= 1), never more than Max; zero when nothing was recorded.
func (h *Histogram) Quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := uint64(q * float64(h.n))
	if rank < 1 {
		rank = 1
	}
	if rank > h.n {
		rank = h.n
	}
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			return min(time.Duration(upperBound(i)), h.max)
		}
	}
	return h.max
}
