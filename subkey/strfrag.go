package subkey

import (
	"encoding/binary"
	"fmt"
)

// FragBytes is the length of a fragmented string's fragments: fragment i
// holds the value's bytes [i*FragBytes, (i+1)*FragBytes). On-disk: never
// change; existing fragments depend on this value.
const FragBytes = 4096

// fragKeyLen is the length of a fragment key.
const fragKeyLen = uidLen + 8

// AppendFragKey appends the subkey-CF key of fragment index of the
// fragmented string under uid to dst and returns the extended slice. The
// record's value is the fragment's bytes: FragBytes of them, fewer for the
// last fragment of the value. A fragment with no record reads as zero
// bytes. Layout, exactly 16 bytes:
//
//	| uid u64 | index u64 |
//
// Big-endian indexes make a string's fragments sort in order, so a byte
// range is one forward scan.
func AppendFragKey(dst []byte, uid uint64, index uint64) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uid)
	return binary.BigEndian.AppendUint64(dst, index)
}

// DecodeFragKey decodes a fragment key. Anything but exactly 16 bytes is
// rejected with an error wrapping ErrCorrupt.
func DecodeFragKey(b []byte) (uid uint64, index uint64, err error) {
	if len(b) != fragKeyLen {
		return 0, 0, fmt.Errorf("fragment key: %d bytes, want %d: %w", len(b), fragKeyLen, ErrCorrupt)
	}
	return binary.BigEndian.Uint64(b[:uidLen]), binary.BigEndian.Uint64(b[uidLen:]), nil
}
