package sqlite

import (
	"encoding/binary"
	"errors"

	"github.com/warden-mcp/warden/limits"
)

var errCorruptLog = errors.New("sqlite store: corrupt rate log")

// encodeLog packs timestamps as little-endian int64s.
func encodeLog(log []int64) []byte {
	b := make([]byte, 8*len(log))
	for i, v := range log {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(v))
	}
	return b
}

// decodeLog is the inverse of encodeLog. It rejects a blob that is not a
// whole number of entries or longer than any valid log, so corrupt state
// fails closed instead of being misread.
func decodeLog(b []byte) ([]int64, error) {
	if len(b)%8 != 0 || len(b) > 8*limits.MaxRateLimit {
		return nil, errCorruptLog
	}
	log := make([]int64, len(b)/8, len(b)/8+1)
	for i := range log {
		log[i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return log, nil
}
