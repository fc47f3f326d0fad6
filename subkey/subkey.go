package subkey

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// ErrCorrupt is wrapped by every decode error of this package. Test for it
// with errors.Is.
var ErrCorrupt = errors.New("subkey: corrupt record")

// uidLen is the length of the uid prefix of every record keyed by uid.
const uidLen = 8

// AppendPrefix appends | uid u64 |, big-endian, to dst and returns the
// extended slice. It is the 8-byte prefix of every record of uid in the
// subkey, score and bookkeeping CFs.
func AppendPrefix(dst []byte, uid uint64) []byte {
	return binary.BigEndian.AppendUint64(dst, uid)
}

// AppendKey appends the subkey-CF key (skey) of sub under uid to dst and
// returns the extended slice. Layout:
//
//	| uid u64 | sub |
//
// sub is a hash field, a set member or a zset member, and may be empty. The
// record's value is the field's value for a hash, empty for a set and
// AppendZSetValue(score) for a zset.
func AppendKey(dst []byte, uid uint64, sub []byte) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uid)
	return append(dst, sub...)
}

// DecodeKey decodes a subkey-CF key of a hash, set or zset. The returned sub
// aliases b; it may be empty and is non-nil. Input shorter than 8 bytes is
// rejected with an error wrapping ErrCorrupt.
func DecodeKey(b []byte) (uid uint64, sub []byte, err error) {
	if len(b) < uidLen {
		return 0, nil, fmt.Errorf("subkey: %d bytes, want at least %d: %w", len(b), uidLen, ErrCorrupt)
	}
	return binary.BigEndian.Uint64(b), b[uidLen:len(b):len(b)], nil
}

// UID returns the uid of any key of the subkey, score or bookkeeping CF: its
// first 8 bytes, big-endian. It checks nothing past them. Input shorter than
// 8 bytes is rejected with an error wrapping ErrCorrupt.
func UID(b []byte) (uint64, error) {
	if len(b) < uidLen {
		return 0, fmt.Errorf("uid: %d bytes, want at least %d: %w", len(b), uidLen, ErrCorrupt)
	}
	return binary.BigEndian.Uint64(b), nil
}

// AppendUpperBound appends the exclusive upper bound of uid's records to dst
// and returns the extended slice: AppendPrefix(uid+1), so that uid's records
// are exactly the range [AppendPrefix(uid), AppendUpperBound(uid)).
//
// uid == math.MaxUint64 has no successor; for it AppendUpperBound appends nine
// 0xff bytes. That bounds every record of the uid whose remainder after the
// uid is empty or starts with a byte below 0xff, but not those starting with
// 0xff (e.g. a hash field "\xff"). Uids are allocated upwards from a small
// high-water mark and never reach math.MaxUint64 in practice; a caller that
// must cover it exactly should iterate with no upper bound instead.
func AppendUpperBound(dst []byte, uid uint64) []byte {
	if uid == math.MaxUint64 {
		return append(dst, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)
	}
	return binary.BigEndian.AppendUint64(dst, uid+1)
}
