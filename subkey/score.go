package subkey

import (
	"encoding/binary"
	"fmt"
	"math"
)

// scoreLen is the length of an encoded score.
const scoreLen = 8

// scoreKeyPrefixLen is the length of the uid and score of a score-CF key.
const scoreKeyPrefixLen = uidLen + scoreLen

// signBit is the sign bit of a float64.
const signBit = 1 << 63

// AppendScore appends the order-preserving 8-byte form of score to dst and
// returns the extended slice: bytes.Compare on two encodings agrees with the
// numeric order of their scores,
//
//	-inf < negatives < -0 = +0 < positives < +inf
//
// Construction: take the IEEE 754 bits, with -0 folded into +0; flip every bit
// of a negative number, and set the sign bit of a non-negative one; write the
// result big-endian. So +0 is 0x8000000000000000, 1.5 is 0xbff8000000000000
// and -1.5 is 0x4007ffffffffffff.
//
// NaN is not a score: callers must reject it, as Redis does. AppendScore does
// not check; it maps NaN's bits the same way (above +inf, or below -inf for a
// negative NaN), and DecodeScore rejects the result.
func AppendScore(dst []byte, score float64) []byte {
	bits := math.Float64bits(score)
	if score == 0 {
		bits = 0 // fold -0 into +0
	}
	if bits&signBit != 0 {
		bits = ^bits
	} else {
		bits |= signBit
	}
	return binary.BigEndian.AppendUint64(dst, bits)
}

// DecodeScore decodes an AppendScore encoding. Anything but exactly 8 bytes,
// an encoding of NaN, and the encoding of -0 (0x7fffffffffffffff, which
// AppendScore never writes) are rejected with an error wrapping ErrCorrupt.
// The result is never -0.
func DecodeScore(b []byte) (float64, error) {
	if len(b) != scoreLen {
		return 0, fmt.Errorf("score: %d bytes, want %d: %w", len(b), scoreLen, ErrCorrupt)
	}
	return decodeScore(binary.BigEndian.Uint64(b))
}

func decodeScore(bits uint64) (float64, error) {
	if bits&signBit != 0 {
		bits &^= signBit
	} else {
		bits = ^bits
	}
	score := math.Float64frombits(bits)
	if math.IsNaN(score) {
		return 0, fmt.Errorf("score: NaN: %w", ErrCorrupt)
	}
	if bits == signBit {
		return 0, fmt.Errorf("score: non-canonical -0: %w", ErrCorrupt)
	}
	return score, nil
}

// AppendScoreKey appends the score-CF key of member with score under uid to
// dst and returns the extended slice. The record's value is empty. Layout:
//
//	| uid u64 | score 8 (AppendScore) | member |
//
// The keys of one uid sort by score, then bytewise by member: Redis's zset
// order, so ZRANGEBYSCORE is one forward scan. member may be empty. A NaN
// score encodes to a key DecodeScoreKey rejects; callers reject NaN first.
func AppendScoreKey(dst []byte, uid uint64, score float64, member []byte) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uid)
	dst = AppendScore(dst, score)
	return append(dst, member...)
}

// DecodeScoreKey decodes a score-CF key. The returned member aliases b; it may
// be empty and is non-nil. Input shorter than 16 bytes, or whose score
// DecodeScore rejects, is rejected with an error wrapping ErrCorrupt.
func DecodeScoreKey(b []byte) (uid uint64, score float64, member []byte, err error) {
	if len(b) < scoreKeyPrefixLen {
		return 0, 0, nil, fmt.Errorf("score key: %d bytes, want at least %d: %w", len(b), scoreKeyPrefixLen, ErrCorrupt)
	}
	score, err = decodeScore(binary.BigEndian.Uint64(b[uidLen:scoreKeyPrefixLen]))
	if err != nil {
		return 0, 0, nil, fmt.Errorf("score key: %w", err)
	}
	return binary.BigEndian.Uint64(b[:uidLen]), score, b[scoreKeyPrefixLen:len(b):len(b)], nil
}
