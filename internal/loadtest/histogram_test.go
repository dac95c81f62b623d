package loadtest

import (
	"os"
	"testing"
	"time"
)

func TestBucketBounds(t *testing.T) {
	for _, v := range []uint64{0, 1, 63, 64, 65, 127, 128, 129, 255, 256, 1000, 12345, 1 << 20, 1<<40 + 7, 1<<62 + 1} {
		i := bucketOf(v)
		if up := upperBound(i); v > up {
			t.Errorf("value %d in bucket %d above its upper bound %d", v, i, up)
		}
		if i > 0 {
			if prev := upperBound(i - 1); v <= prev {
				t.Errorf("value %d in bucket %d but not above bucket %d's bound %d", v, i, i-1, prev)
			}
		}
		if up := upperBound(i); v >= 64 && float64(up-v) > float64(v)/64 {
			t.Errorf("value %d: bucket bound %d is more than 1/64 away", v, up)
		}
	}
}

func TestQuantiles(t *testing.T) {
	var h Histogram
	for i := 1; i <= 1000; i++ {
		h.Record(time.Duration(i) * time.Microsecond)
	}
	tests := []struct {
		q    float64
		want time.Duration
	}{
		{0.50, 500 * time.Microsecond},
		{0.99, 990 * time.Microsecond},
		{1, 1000 * time.Microsecond},
	}
	for _, tt := range tests {
		got := h.Quantile(tt.q)
		if got < tt.want || float64(got-tt.want) > float64(tt.want)/64 {
			t.Errorf("Quantile(%v) = %v, want %v within 1/64 above", tt.q, got, tt.want)
		}
	}
	if h.Count() != 1000 || h.Max() != time.Millisecond {
		t.Errorf("Count %d Max %v", h.Count(), h.Max())
	}
	var empty, merged Histogram
	if empty.Quantile(0.5) != 0 {
		t.Error("empty histogram has a median")
	}
	merged.Merge(&h)
	merged.Merge(&h)
	if merged.Count() != 2000 || merged.Quantile(0.5) != h.Quantile(0.5) {
		t.Errorf("merge: count %d median %v", merged.Count(), merged.Quantile(0.5))
	}
}

func TestParseStatCPU(t *testing.T) {
	tests := []struct {
		line string
		want time.Duration
		ok   bool
	}{
		{"1234 (wardenserver) S 1 2 3 4 5 6 7 8 9 10 150 25 0 0 20 0 3 0", 1750 * time.Millisecond, true},
		{"1234 (a b) c)) R 1 2 3 4 5 6 7 8 9 10 1 2 0 0", 30 * time.Millisecond, true},
		{"1234 (short) S 1 2", 0, false},
		{"no parenthesis", 0, false},
		{"1 (x) S 1 2 3 4 5 6 7 8 9 10 -1 2 0", 0, false},
	}
	for _, tt := range tests {
		got, err := parseStatCPU([]byte(tt.line))
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseStatCPU(%q) = %v, %v; want %v, ok %v", tt.line, got, err, tt.want, tt.ok)
		}
	}
}

func TestParseSchedstat(t *testing.T) {
	tests := []struct {
		line string
		want time.Duration
		ok   bool
	}{
		{"6758420 38545688 4\n", 6758420, true},
		{"0 0 0", 0, true},
		{"", 0, false},
		{"-5 1 1", 0, false},
		{"x 1 1", 0, false},
	}
	for _, tt := range tests {
		got, err := parseSchedstat([]byte(tt.line))
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseSchedstat(%q) = %v, %v; want %v, ok %v", tt.line, got, err, tt.want, tt.ok)
		}
	}
}

// ThreadsCPU of this process grows as it works.
func TestThreadsCPU(t *testing.T) {
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skip("no /proc: not Linux")
	}
	before, err := ThreadsCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	for start := time.Now(); time.Since(start) < 20*time.Millisecond; {
	}
	after, err := ThreadsCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if after <= before {
		t.Errorf("CPU time went from %v to %v while spinning", before, after)
	}
}
