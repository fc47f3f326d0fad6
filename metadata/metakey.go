package metadata

import (
	"encoding/binary"
	"fmt"
)

// metaKeyPrefixLen is the length of the db and slot fields of a metadata key.
const metaKeyPrefixLen = 4

// AppendMetaKey appends the metadata-CF key (mkey) of user key key in db to
// dst and returns the extended slice. Big-endian layout:
//
//	| db u16 | slot u16 | user key |
//
// slot is Slot(key), so the keys of one slot of one db are contiguous, and
// the keys of one db are contiguous under AppendDBPrefix.
func AppendMetaKey(dst []byte, db uint16, key []byte) []byte {
	dst = binary.BigEndian.AppendUint16(dst, db)
	dst = binary.BigEndian.AppendUint16(dst, Slot(key))
	return append(dst, key...)
}

// DecodeMetaKey decodes a metadata-CF key into its db and user key. The user
// key aliases b and may be empty (Redis allows the empty key); it is non-nil.
// Input shorter than 4 bytes, or whose slot is not Slot(key), is rejected with
// an error wrapping ErrCorrupt.
func DecodeMetaKey(b []byte) (db uint16, key []byte, err error) {
	if len(b) < metaKeyPrefixLen {
		return 0, nil, fmt.Errorf("meta key: %d bytes, want at least %d: %w", len(b), metaKeyPrefixLen, ErrCorrupt)
	}
	db = binary.BigEndian.Uint16(b[0:2])
	slot := binary.BigEndian.Uint16(b[2:4])
	key = b[metaKeyPrefixLen:len(b):len(b)]
	if want := Slot(key); slot != want {
		return 0, nil, fmt.Errorf("meta key: slot %d, want %d: %w", slot, want, ErrCorrupt)
	}
	return db, key, nil
}

// AppendDBPrefix appends the 2-byte prefix that every metadata-CF key of db
// starts with, | db u16 |, and returns the extended slice. The keys of db are
// exactly those in [AppendDBPrefix(db), AppendDBPrefix(db+1)), and for
// db == 65535 those at or above AppendDBPrefix(db).
func AppendDBPrefix(dst []byte, db uint16) []byte {
	return binary.BigEndian.AppendUint16(dst, db)
}

// AppendSlotPrefix appends the 4-byte prefix that every metadata-CF key of
// slot slot of db starts with, | db u16 | slot u16 |, and returns the extended
// slice. slot should be below NumSlots.
func AppendSlotPrefix(dst []byte, db, slot uint16) []byte {
	dst = binary.BigEndian.AppendUint16(dst, db)
	return binary.BigEndian.AppendUint16(dst, slot)
}
