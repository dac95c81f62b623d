package sqlite

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLogCodecRoundTrip(t *testing.T) {
	for _, log := range [][]int64{nil, {0}, {1, -1, 1 << 62}, {1_764_000_000_000_000, 1_764_000_000_500_000}} {
		got, err := decodeLog(encodeLog(log))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(log, got, cmp.Comparer(func(a, b []int64) bool { return len(a) == 0 && len(b) == 0 || cmp.Equal(a, b) })); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	}
	for _, bad := range [][]byte{{1}, make([]byte, 9), make([]byte, 8*10001)} {
		if _, err := decodeLog(bad); err == nil {
			t.Errorf("decodeLog accepted %d bytes", len(bad))
		}
	}
}

// FuzzDecodeLog: any blob either fails or round-trips exactly. Seeds are in
// testdata/fuzz/FuzzDecodeLog.
func FuzzDecodeLog(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		log, err := decodeLog(b)
		if err != nil {
			return
		}
		if !bytes.Equal(encodeLog(log), b) {
			t.Fatalf("round trip changed %x", b)
		}
	})
}
