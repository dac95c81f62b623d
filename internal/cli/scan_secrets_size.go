package cli

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// byteSize is a flag value in bytes, written with an optional unit:
// B, KB/MB/GB (powers of 1000) or KiB/MiB/GiB (powers of 1024), in any
// case ("10MB", "512KiB", "4mib", "2048"). Zero and negatives are refused.
type byteSize int64

var sizeUnits = []struct {
	suffix string
	mult   int64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30},
	{"kb", 1000}, {"mb", 1000 * 1000}, {"gb", 1000 * 1000 * 1000},
	{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30},
	{"b", 1},
}

func parseByteSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%q is not a size: write bytes, or a number with B, KB, MB, GB, KiB, MiB or GiB", s)
	}
	n := f * float64(mult)
	if n < 1 {
		return 0, fmt.Errorf("%q: the size must be at least 1 byte", s)
	}
	if n > math.MaxInt64/2 {
		return 0, fmt.Errorf("%q: too large", s)
	}
	return int64(n), nil
}

func (b *byteSize) String() string { return humanBytes(int64(*b)) }
func (b *byteSize) Type() string   { return "size" }

func (b *byteSize) Set(s string) error {
	n, err := parseByteSize(s)
	if err != nil {
		return err
	}
	*b = byteSize(n)
	return nil
}
