package binview

import (
	"context"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"testing"
)

func TestHashAll(t *testing.T) {
	data := make([]byte, 3<<20+17) // more than one 1 MiB step
	for i := range data {
		data[i] = byte(i * 7)
	}
	m, s1, s2 := md5.Sum(data), sha1.Sum(data), sha256.Sum256(data)
	want := Hashes{MD5: hex.EncodeToString(m[:]), SHA1: hex.EncodeToString(s1[:]), SHA256: hex.EncodeToString(s2[:])}
	if got := hashAll(context.Background(), data); got != want {
		t.Errorf("hashAll = %+v, want %+v", got, want)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got := hashAll(ctx, data); got != (Hashes{}) {
		t.Errorf("canceled hashAll = %+v", got)
	}
}

func TestEntropy(t *testing.T) {
	all := make([]byte, 256*4)
	for i := range all {
		all[i] = byte(i)
	}
	cases := []struct {
		in   []byte
		want float64
	}{
		{nil, 0},
		{[]byte("aaaa"), 0},
		{[]byte("abab"), 1},
		{all, 8},
	}
	for _, c := range cases {
		if got := entropy(c.in); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("entropy(%q) = %v, want %v", c.in[:min(len(c.in), 8)], got, c.want)
		}
	}
}
