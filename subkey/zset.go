package subkey

import (
	"encoding/binary"
	"fmt"
	"math"
)

// zsetValueLen is the length of a zset member's value in the subkey CF.
const zsetValueLen = 8

// AppendZSetValue appends the subkey-CF value of a zset member, its score, to
// dst and returns the extended slice. Layout, exactly 8 bytes:
//
//	| score float64 IEEE 754 bits, big-endian |
//
// The bits are kept as they are (-0 stays -0); only the score CF key folds -0.
// NaN is not a score: callers reject it, and DecodeZSetValue rejects it.
func AppendZSetValue(dst []byte, score float64) []byte {
	return binary.BigEndian.AppendUint64(dst, math.Float64bits(score))
}

// DecodeZSetValue decodes a zset member's value. Anything but exactly 8 bytes,
// and NaN, are rejected with an error wrapping ErrCorrupt.
func DecodeZSetValue(b []byte) (float64, error) {
	if len(b) != zsetValueLen {
		return 0, fmt.Errorf("zset value: %d bytes, want %d: %w", len(b), zsetValueLen, ErrCorrupt)
	}
	score := math.Float64frombits(binary.BigEndian.Uint64(b))
	if math.IsNaN(score) {
		return 0, fmt.Errorf("zset value: NaN: %w", ErrCorrupt)
	}
	return score, nil
}
