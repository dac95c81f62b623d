package binview

import (
	"context"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"math"
)

// hashAll digests data in 1 MiB steps, stopping early (with empty
// digests) when ctx ends.
func hashAll(ctx context.Context, data []byte) Hashes {
	m, s1, s256 := md5.New(), sha1.New(), sha256.New()
	const step = 1 << 20
	for off := 0; off < len(data); off += step {
		if ctx.Err() != nil {
			return Hashes{}
		}
		end := min(off+step, len(data))
		m.Write(data[off:end])
		s1.Write(data[off:end])
		s256.Write(data[off:end])
	}
	return Hashes{
		MD5:    hex.EncodeToString(m.Sum(nil)),
		SHA1:   hex.EncodeToString(s1.Sum(nil)),
		SHA256: hex.EncodeToString(s256.Sum(nil)),
	}
}

// entropy returns the Shannon entropy of b in bits per byte, 0 to 8.
func entropy(b []byte) float64 {
	if len(b) == 0 {
		return 0
	}
	var counts [256]int
	for _, c := range b {
		counts[c]++
	}
	n := float64(len(b))
	var h float64
	for _, c := range counts {
		if c == 0 {
			continue
		}
		p := float64(c) / n
		h -= p * math.Log2(p)
	}
	// Round to 1/1000 so that snapshots are stable across platforms.
	return math.Round(h*1000) / 1000
}
