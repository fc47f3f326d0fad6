package metadata

import (
	"encoding/binary"
	"fmt"
)

// expireKeyPrefixLen is the length of the expire_ms, db and slot fields of an
// expire-CF key.
const expireKeyPrefixLen = 8 + 2 + 2

// ExpireKey is a key of the expire CF, the expiry index: one entry per key
// with a TTL, ordered by expiry time. Its value is empty. Big-endian layout:
//
//	| expire_ms u64 | db u16 | slot u16 | user key |
//
// db, slot and user key are the key's metadata-CF key (AppendMetaKey), so the
// entries due by a time are one range: those below AppendExpireUpTo(nowMs).
type ExpireKey struct {
	// ExpireMs is the key's expiry time in unix milliseconds; it is the key's
	// Meta.ExpireMs when the entry is current. Never negative on disk.
	ExpireMs int64
	// DB is the key's database number.
	DB uint16
	// Key is the user key; it may be empty. DecodeExpireKey makes it a non-nil
	// subslice of its input: it aliases the input.
	Key []byte
}

// Append appends e's encoding to dst and returns the extended slice. The slot
// is Slot(e.Key). A negative ExpireMs still encodes, to bytes DecodeExpireKey
// rejects.
func (e ExpireKey) Append(dst []byte) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(e.ExpireMs))
	return AppendMetaKey(dst, e.DB, e.Key)
}

// DecodeExpireKey decodes an expire-CF key. Input shorter than 12 bytes, with
// a negative expire_ms, or whose slot is not Slot(key), is rejected with an
// error wrapping ErrCorrupt. The returned Key aliases b.
func DecodeExpireKey(b []byte) (ExpireKey, error) {
	if len(b) < expireKeyPrefixLen {
		return ExpireKey{}, fmt.Errorf("expire key: %d bytes, want at least %d: %w", len(b), expireKeyPrefixLen, ErrCorrupt)
	}
	e := ExpireKey{ExpireMs: int64(binary.BigEndian.Uint64(b[0:8]))}
	if e.ExpireMs < 0 {
		return ExpireKey{}, fmt.Errorf("expire key: negative expire_ms %d: %w", e.ExpireMs, ErrCorrupt)
	}
	db, key, err := DecodeMetaKey(b[8:])
	if err != nil {
		return ExpireKey{}, fmt.Errorf("expire key: %w", err)
	}
	e.DB, e.Key = db, key
	return e, nil
}

// AppendExpireUpTo appends the exclusive upper bound of the expire-CF entries
// with expire_ms <= nowMs to dst and returns the extended slice: nowMs+1 as 8
// big-endian bytes. Every such entry sorts below it and every later one at or
// above it. For nowMs == math.MaxInt64 the bound is 1<<63, above every valid
// entry; for a negative nowMs it is 0, below every entry.
func AppendExpireUpTo(dst []byte, nowMs int64) []byte {
	var bound uint64
	if nowMs >= 0 {
		bound = uint64(nowMs) + 1
	}
	return binary.BigEndian.AppendUint64(dst, bound)
}
