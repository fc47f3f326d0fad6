package metadata

import (
	"encoding/binary"
	"fmt"
)

// System records live in the default CF. Their keys are ASCII strings that
// start with "shale:"; a key carrying a db appends it as u16 big-endian.
//
//	"shale:format-version"   -> | version u32 |         big-endian
//	"shale:uid-high-water"   -> | uid u64 |             big-endian
//	"shale:keys:" | db u16 | -> | count u64 |           LITTLE-endian
//	"shale:expires:" | db u16 | -> | count u64 |        LITTLE-endian
//	"shale:db-map"           -> | physical db u16 |*    big-endian, one per logical db

// KeyFormatVersion is the default-CF key of the on-disk format version. Its
// value is a u32, big-endian (EncodeU32); the current version is
// FormatVersion. Do not modify the slice.
var KeyFormatVersion = []byte("shale:format-version")

// FormatVersion is the on-disk format version this code reads and writes,
// stored under KeyFormatVersion. Bump it, never reuse a value, whenever a
// layout changes incompatibly. Version 2 added the encoding byte of hash,
// set and zset records and the database map (shale:db-map); it reads every
// record of version 1 as it is, so a version-1 store is upgraded in place
// by writing 2 (UpgradableFormat), after which builds of version 1 refuse it.
const FormatVersion uint32 = 2

// UpgradableFormat reports whether this build reads a store of format v as
// it is, and upgrades it by writing FormatVersion.
func UpgradableFormat(v uint32) bool { return v == 1 }

// KeyUIDHighWater is the default-CF key of the uid high-water mark, which the
// uid allocator persists (synced) before it hands out uids up to it, so that
// no uid on disk is above it. Its value is a u64, big-endian (EncodeU64). Do
// not modify the slice.
var KeyUIDHighWater = []byte("shale:uid-high-water")

// counterKeyPrefix starts every per-db key counter key.
const counterKeyPrefix = "shale:keys:"

// AppendCounterKey appends the default-CF key of db's key counter to dst and
// returns the extended slice: "shale:keys:" followed by db as u16 big-endian.
// Its value is a counter (EncodeCounterDelta, DecodeCounter).
func AppendCounterKey(dst []byte, db uint16) []byte {
	dst = append(dst, counterKeyPrefix...)
	return binary.BigEndian.AppendUint16(dst, db)
}

// expiresKeyPrefix starts every per-db counter of keys with an expiry.
const expiresKeyPrefix = "shale:expires:"

// AppendExpiresCounterKey appends the default-CF key of db's counter of keys
// that have an expiry (INFO keyspace's expires=) to dst and returns the
// extended slice: "shale:expires:" followed by db as u16 big-endian. Its
// value is a counter, like AppendCounterKey's.
func AppendExpiresCounterKey(dst []byte, db uint16) []byte {
	dst = append(dst, expiresKeyPrefix...)
	return binary.BigEndian.AppendUint16(dst, db)
}

// EncodeCounterDelta appends a counter operand that adds delta to a counter
// to dst and returns the extended slice: 8 bytes, LITTLE-endian, the one
// exception to big-endian in Shale's format. Counters are updated with
// RocksDB's built-in uint64add merge operator, which reads and writes its
// operands with EncodeFixed64/DecodeFixed64, little-endian. A negative delta
// is written as its two's complement, which the operator's wrapping addition
// turns into a subtraction. The same encoding serves as the full value of a
// counter (e.g. 0 after FLUSHDB).
func EncodeCounterDelta(dst []byte, delta int64) []byte {
	return binary.LittleEndian.AppendUint64(dst, uint64(delta))
}

// DecodeCounter decodes a counter value (a merge result or a single operand):
// 8 bytes, little-endian, read as two's complement. Anything but exactly 8
// bytes is rejected with an error wrapping ErrCorrupt.
func DecodeCounter(b []byte) (int64, error) {
	if len(b) != 8 {
		return 0, fmt.Errorf("counter: %d bytes, want 8: %w", len(b), ErrCorrupt)
	}
	return int64(binary.LittleEndian.Uint64(b)), nil
}

// EncodeU64 appends v as 8 big-endian bytes to dst and returns the extended
// slice. It encodes the value of KeyUIDHighWater.
func EncodeU64(dst []byte, v uint64) []byte {
	return binary.BigEndian.AppendUint64(dst, v)
}

// DecodeU64 decodes 8 big-endian bytes. Anything but exactly 8 bytes is
// rejected with an error wrapping ErrCorrupt.
func DecodeU64(b []byte) (uint64, error) {
	if len(b) != 8 {
		return 0, fmt.Errorf("u64: %d bytes, want 8: %w", len(b), ErrCorrupt)
	}
	return binary.BigEndian.Uint64(b), nil
}

// EncodeU32 appends v as 4 big-endian bytes to dst and returns the extended
// slice. It encodes the value of KeyFormatVersion.
func EncodeU32(dst []byte, v uint32) []byte {
	return binary.BigEndian.AppendUint32(dst, v)
}

// DecodeU32 decodes 4 big-endian bytes. Anything but exactly 4 bytes is
// rejected with an error wrapping ErrCorrupt.
func DecodeU32(b []byte) (uint32, error) {
	if len(b) != 4 {
		return 0, fmt.Errorf("u32: %d bytes, want 4: %w", len(b), ErrCorrupt)
	}
	return binary.BigEndian.Uint32(b), nil
}

// KeyDBMap is the default-CF key of the database map, which SWAPDB changes:
// the physical database (the db field of metadata keys, bookkeeping records,
// expire-index keys and counter keys) that holds each logical database (the
// index SELECT names). Its value is EncodeDBMap's; a store without the
// record maps every database to itself. Do not modify the slice.
var KeyDBMap = []byte("shale:db-map")

// EncodeDBMap appends the value of KeyDBMap to dst and returns the extended
// slice: phys[i], the physical database of logical database i, as u16
// big-endian, for every i in order. phys must be a permutation of
// [0, len(phys)).
func EncodeDBMap(dst []byte, phys []uint16) []byte {
	for _, p := range phys {
		dst = binary.BigEndian.AppendUint16(dst, p)
	}
	return dst
}

// DecodeDBMap decodes the value of KeyDBMap into the physical database of
// each logical one. Anything but a non-empty, even-length permutation of
// [0, n) is rejected with an error wrapping ErrCorrupt: two logical
// databases sharing their keys, or a database without keys, would lose
// data silently.
func DecodeDBMap(b []byte) ([]uint16, error) {
	if len(b) == 0 || len(b)%2 != 0 || len(b)/2 > 1<<16 {
		return nil, fmt.Errorf("db map: %d bytes: %w", len(b), ErrCorrupt)
	}
	phys := make([]uint16, len(b)/2)
	seen := make([]bool, len(phys))
	for i := range phys {
		p := binary.BigEndian.Uint16(b[2*i:])
		if int(p) >= len(phys) || seen[p] {
			return nil, fmt.Errorf("db map: logical db %d maps to %d, not a permutation of %d dbs: %w", i, p, len(phys), ErrCorrupt)
		}
		seen[p] = true
		phys[i] = p
	}
	return phys, nil
}

// DecodeCounterKey returns the database of a key made by AppendCounterKey
// or AppendExpiresCounterKey, whether it is the latter, and false for a key
// that is neither.
func DecodeCounterKey(key []byte) (db uint16, expires, ok bool) {
	for _, p := range []struct {
		prefix  string
		expires bool
	}{{counterKeyPrefix, false}, {expiresKeyPrefix, true}} {
		if len(key) == len(p.prefix)+2 && string(key[:len(p.prefix)]) == p.prefix {
			return binary.BigEndian.Uint16(key[len(p.prefix):]), p.expires, true
		}
	}
	return 0, false, false
}
