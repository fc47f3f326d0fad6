package subkey

import (
	"encoding/binary"
	"fmt"
)

// ListStart is the Head and Tail of a new list: the middle of the index
// space, so a list can grow 2^63 elements either way. LPUSH takes index
// Head-1, RPUSH index Tail. On-disk: append, never renumber; existing lists
// depend on this value.
const ListStart uint64 = 1 << 63

// ListKeyLen is the length of a list element key.
const ListKeyLen = uidLen + 8

// AppendListKey appends the subkey-CF key of list element index under uid to
// dst and returns the extended slice. The record's value is the element.
// Layout, exactly 16 bytes:
//
//	| uid u64 | index u64 |
//
// Big-endian indexes make a list's elements sort in list order, so a range of
// indexes is one forward scan.
func AppendListKey(dst []byte, uid uint64, index uint64) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uid)
	return binary.BigEndian.AppendUint64(dst, index)
}

// DecodeListKey decodes a list element key. Anything but exactly 16 bytes is
// rejected with an error wrapping ErrCorrupt.
func DecodeListKey(b []byte) (uid uint64, index uint64, err error) {
	if len(b) != ListKeyLen {
		return 0, 0, fmt.Errorf("list key: %d bytes, want %d: %w", len(b), ListKeyLen, ErrCorrupt)
	}
	return binary.BigEndian.Uint64(b[:uidLen]), binary.BigEndian.Uint64(b[uidLen:]), nil
}
