package subkey

import (
	"encoding/binary"
	"fmt"
)

// StreamKind is the byte after the uid in every subkey-CF record of a
// stream: it says what the record is, so that each kind is one contiguous
// range under the uid. On-disk: append, never renumber.
type StreamKind uint8

// The kinds of a stream's records. Group, consumer and pending records are
// the consumer groups' (their layouts are theirs to define); the kinds are
// reserved here so that no record of one kind sorts among another's.
const (
	// StreamEntry is an entry: key | uid u64 | 0x01 | ms u64 | seq u64 |,
	// value AppendStreamValue(fields and values).
	StreamEntry StreamKind = 1
	// StreamGroup is a consumer group (reserved).
	StreamGroup StreamKind = 2
	// StreamConsumer is a consumer of a group (reserved).
	StreamConsumer StreamKind = 3
	// StreamPending is a pending entry of a group (reserved).
	StreamPending StreamKind = 4
)

// streamEntryKeyLen is the length of a stream entry's key.
const streamEntryKeyLen = uidLen + 1 + 8 + 8

// AppendStreamKindPrefix appends | uid u64 | kind u8 | to dst: the prefix
// of every record of that kind under uid.
func AppendStreamKindPrefix(dst []byte, uid uint64, kind StreamKind) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uid)
	return append(dst, byte(kind))
}

// AppendStreamEntryKey appends the subkey-CF key of the entry ms-seq of the
// stream uid to dst. Layout, exactly 25 bytes:
//
//	| uid u64 | 0x01 | ms u64 | seq u64 |
//
// Entries of a stream sort by ID, so a range of IDs is one seek.
func AppendStreamEntryKey(dst []byte, uid, ms, seq uint64) []byte {
	dst = AppendStreamKindPrefix(dst, uid, StreamEntry)
	dst = binary.BigEndian.AppendUint64(dst, ms)
	return binary.BigEndian.AppendUint64(dst, seq)
}

// DecodeStreamEntryKey decodes a stream entry's key. Anything but 25 bytes
// with the entry kind byte is rejected with an error wrapping ErrCorrupt.
func DecodeStreamEntryKey(b []byte) (uid, ms, seq uint64, err error) {
	if len(b) != streamEntryKeyLen || StreamKind(b[uidLen]) != StreamEntry {
		return 0, 0, 0, fmt.Errorf("stream entry key: %d bytes, want %d with kind %d: %w", len(b), streamEntryKeyLen, StreamEntry, ErrCorrupt)
	}
	return binary.BigEndian.Uint64(b), binary.BigEndian.Uint64(b[uidLen+1:]), binary.BigEndian.Uint64(b[uidLen+9:]), nil
}

// AppendStreamValue appends the value of a stream entry, its fields and
// values alternating in items (an even count, at least two), to dst.
// Layout:
//
//	| n uvarint | len uvarint | bytes | ... |   (n = len(items), then each item)
//
// Varints are Go's encoding/binary unsigned varints, shortest form.
func AppendStreamValue(dst []byte, items [][]byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(items)))
	for _, it := range items {
		dst = binary.AppendUvarint(dst, uint64(len(it)))
		dst = append(dst, it...)
	}
	return dst
}

// DecodeStreamValue decodes a stream entry's value, appending its items
// (fields and values alternating) to dst. It rejects an odd or zero item
// count, a non-canonical varint, a length past the input and trailing
// bytes, with an error wrapping ErrCorrupt; it allocates no more than the
// input can hold. The items alias b.
func DecodeStreamValue(dst [][]byte, b []byte) ([][]byte, error) {
	n, i, err := uvarint(b)
	if err != nil {
		return dst, err
	}
	if n == 0 || n%2 != 0 || n > uint64(len(b)-i) { // each item takes at least its length byte
		return dst, fmt.Errorf("stream value: %d items in %d bytes: %w", n, len(b), ErrCorrupt)
	}
	for range n {
		l, k, err := uvarint(b[i:])
		if err != nil {
			return dst, err
		}
		i += k
		if l > uint64(len(b)-i) {
			return dst, fmt.Errorf("stream value: item of %d bytes past the end: %w", l, ErrCorrupt)
		}
		dst = append(dst, b[i:i+int(l):i+int(l)])
		i += int(l)
	}
	if i != len(b) {
		return dst, fmt.Errorf("stream value: %d trailing bytes: %w", len(b)-i, ErrCorrupt)
	}
	return dst, nil
}

// uvarint reads a canonical (shortest) unsigned varint at the start of b.
func uvarint(b []byte) (uint64, int, error) {
	v, n := binary.Uvarint(b)
	// A longer form ends in a zero byte: its last 7 bits added nothing.
	if n <= 0 || (n > 1 && b[n-1] == 0) {
		return 0, 0, fmt.Errorf("stream value: bad varint: %w", ErrCorrupt)
	}
	return v, n, nil
}
