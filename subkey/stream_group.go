package subkey

import (
	"encoding/binary"
	"fmt"
)

// A stream's consumer groups live beside its entries, as other kinds of
// records under its uid (stream.go's StreamKind). Every record of a group
// but the group's own carries the group's id (gid), a number from the
// store's uid allocator that no other group ever gets: so each kind of a
// group's records is one contiguous range, which XGROUP DESTROY deletes
// with one range deletion whatever the group holds, and a group created
// again under the same name starts on an empty range. Consumers have ids
// (cid) of the same kind, for their own pending lists.
//
//	group            | uid | 02 | name |                    -> | gid | last ms | last seq | entries-read | pending | consumers |
//	consumer         | uid | 03 | gid | name |              -> | cid | seen ms | pending |
//	pending entry    | uid | 04 | gid | ms | seq |          -> | delivery ms | deliveries | cid | consumer name |
//	consumer pending | uid | 05 | gid | cid | ms | seq |    -> empty
//
// Every integer is a big-endian u64 (entries-read and the times are int64
// in two's complement). Group names sort as Redis's radix tree sorts them
// (bytewise), and so do consumers within a group and pending entries by
// ID, so XINFO GROUPS, XINFO CONSUMERS and XPENDING read in Redis's order,
// and XPENDING and XAUTOCLAIM seek to their start ID instead of reading a
// whole pending list.

// StreamConsumerPending is a consumer's own pending list: one record per
// entry of the group's pending list, under the consumer that holds it.
// On-disk: append, never renumber.
const StreamConsumerPending StreamKind = 5

// The fixed lengths of the group records.
const (
	streamGroupValueLen    = 6 * 8
	streamConsumerValueLen = 3 * 8
	streamPendingKeyLen    = uidLen + 1 + 8 + 16
	streamPendingValueMin  = 3 * 8
	streamCPendingKeyLen   = uidLen + 1 + 8 + 8 + 16
)

// StreamGroupValue is a consumer group's record: what XINFO GROUPS shows
// and XREADGROUP needs without reading a pending entry.
type StreamGroupValue struct {
	GID uint64 // the group's id, in its other records' keys
	// LastMs, LastSeq is the last delivered ID.
	LastMs, LastSeq uint64
	// EntriesRead is Redis 7.0's entries-read counter; -1 when unknown.
	EntriesRead int64
	Pending     uint64 // entries in the group's pending list
	Consumers   uint64 // consumers of the group
}

// StreamConsumerValue is a consumer's record.
type StreamConsumerValue struct {
	CID     uint64 // the consumer's id, in its pending records' keys
	SeenMs  int64  // unix ms the consumer was last seen (XINFO's idle)
	Pending uint64 // entries in its pending list
}

// StreamPendingValue is a pending entry's record in its group's list.
type StreamPendingValue struct {
	DeliveryMs int64  // unix ms of the last delivery
	Deliveries uint64 // delivery count
	CID        uint64 // the consumer that holds it
	Consumer   []byte // that consumer's name, for XPENDING's reply
}

// AppendStreamGroupKey appends the key of the group name of the stream
// uid to dst.
func AppendStreamGroupKey(dst []byte, uid uint64, name []byte) []byte {
	return append(AppendStreamKindPrefix(dst, uid, StreamGroup), name...)
}

// DecodeStreamGroupKey returns the group name of a group key, which
// aliases b.
func DecodeStreamGroupKey(b []byte) (name []byte, err error) {
	if len(b) < uidLen+1 || StreamKind(b[uidLen]) != StreamGroup {
		return nil, fmt.Errorf("stream group key: %d bytes: %w", len(b), ErrCorrupt)
	}
	return b[uidLen+1:], nil
}

// AppendStreamGroupPrefix appends | uid | kind | gid | to dst: the prefix
// of every record of kind (consumer, pending, consumer pending) of the
// group gid.
func AppendStreamGroupPrefix(dst []byte, uid uint64, kind StreamKind, gid uint64) []byte {
	return binary.BigEndian.AppendUint64(AppendStreamKindPrefix(dst, uid, kind), gid)
}

// AppendStreamConsumerKey appends the key of the consumer name of the
// group gid to dst.
func AppendStreamConsumerKey(dst []byte, uid, gid uint64, name []byte) []byte {
	return append(AppendStreamGroupPrefix(dst, uid, StreamConsumer, gid), name...)
}

// DecodeStreamConsumerKey returns the consumer name of a consumer key,
// which aliases b.
func DecodeStreamConsumerKey(b []byte) (name []byte, err error) {
	if len(b) < uidLen+9 || StreamKind(b[uidLen]) != StreamConsumer {
		return nil, fmt.Errorf("stream consumer key: %d bytes: %w", len(b), ErrCorrupt)
	}
	return b[uidLen+9:], nil
}

// AppendStreamPendingKey appends the key of the pending entry ms-seq of
// the group gid to dst (exactly 33 bytes).
func AppendStreamPendingKey(dst []byte, uid, gid, ms, seq uint64) []byte {
	dst = AppendStreamGroupPrefix(dst, uid, StreamPending, gid)
	dst = binary.BigEndian.AppendUint64(dst, ms)
	return binary.BigEndian.AppendUint64(dst, seq)
}

// DecodeStreamPendingKey returns the ID of a pending entry's key.
func DecodeStreamPendingKey(b []byte) (ms, seq uint64, err error) {
	if len(b) != streamPendingKeyLen || StreamKind(b[uidLen]) != StreamPending {
		return 0, 0, fmt.Errorf("stream pending key: %d bytes: %w", len(b), ErrCorrupt)
	}
	return binary.BigEndian.Uint64(b[uidLen+9:]), binary.BigEndian.Uint64(b[uidLen+17:]), nil
}

// AppendStreamConsumerPendingPrefix appends | uid | 05 | gid | cid | to
// dst: the prefix of the pending list of the consumer cid of the group
// gid.
func AppendStreamConsumerPendingPrefix(dst []byte, uid, gid, cid uint64) []byte {
	return binary.BigEndian.AppendUint64(AppendStreamGroupPrefix(dst, uid, StreamConsumerPending, gid), cid)
}

// AppendStreamConsumerPendingKey appends the key of the entry ms-seq in
// the pending list of the consumer cid of the group gid to dst (exactly 41
// bytes).
func AppendStreamConsumerPendingKey(dst []byte, uid, gid, cid, ms, seq uint64) []byte {
	dst = AppendStreamConsumerPendingPrefix(dst, uid, gid, cid)
	dst = binary.BigEndian.AppendUint64(dst, ms)
	return binary.BigEndian.AppendUint64(dst, seq)
}

// DecodeStreamConsumerPendingKey returns the ID of a consumer's pending
// record key.
func DecodeStreamConsumerPendingKey(b []byte) (ms, seq uint64, err error) {
	if len(b) != streamCPendingKeyLen || StreamKind(b[uidLen]) != StreamConsumerPending {
		return 0, 0, fmt.Errorf("stream consumer pending key: %d bytes: %w", len(b), ErrCorrupt)
	}
	return binary.BigEndian.Uint64(b[uidLen+17:]), binary.BigEndian.Uint64(b[uidLen+25:]), nil
}

// Append appends g's encoding to dst.
func (g StreamGroupValue) Append(dst []byte) []byte {
	for _, v := range [...]uint64{g.GID, g.LastMs, g.LastSeq, uint64(g.EntriesRead), g.Pending, g.Consumers} {
		dst = binary.BigEndian.AppendUint64(dst, v)
	}
	return dst
}

// DecodeStreamGroupValue decodes a group's record: exactly 48 bytes.
func DecodeStreamGroupValue(b []byte) (StreamGroupValue, error) {
	if len(b) != streamGroupValueLen {
		return StreamGroupValue{}, fmt.Errorf("stream group value: %d bytes, want %d: %w", len(b), streamGroupValueLen, ErrCorrupt)
	}
	u := func(i int) uint64 { return binary.BigEndian.Uint64(b[8*i:]) }
	return StreamGroupValue{GID: u(0), LastMs: u(1), LastSeq: u(2), EntriesRead: int64(u(3)), Pending: u(4), Consumers: u(5)}, nil
}

// Append appends c's encoding to dst.
func (c StreamConsumerValue) Append(dst []byte) []byte {
	dst = binary.BigEndian.AppendUint64(dst, c.CID)
	dst = binary.BigEndian.AppendUint64(dst, uint64(c.SeenMs))
	return binary.BigEndian.AppendUint64(dst, c.Pending)
}

// DecodeStreamConsumerValue decodes a consumer's record: exactly 24 bytes.
func DecodeStreamConsumerValue(b []byte) (StreamConsumerValue, error) {
	if len(b) != streamConsumerValueLen {
		return StreamConsumerValue{}, fmt.Errorf("stream consumer value: %d bytes, want %d: %w", len(b), streamConsumerValueLen, ErrCorrupt)
	}
	return StreamConsumerValue{CID: binary.BigEndian.Uint64(b), SeenMs: int64(binary.BigEndian.Uint64(b[8:])), Pending: binary.BigEndian.Uint64(b[16:])}, nil
}

// Append appends p's encoding to dst.
func (p StreamPendingValue) Append(dst []byte) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(p.DeliveryMs))
	dst = binary.BigEndian.AppendUint64(dst, p.Deliveries)
	dst = binary.BigEndian.AppendUint64(dst, p.CID)
	return append(dst, p.Consumer...)
}

// DecodeStreamPendingValue decodes a pending entry's record: at least 24
// bytes, the consumer's name the rest (it aliases b).
func DecodeStreamPendingValue(b []byte) (StreamPendingValue, error) {
	if len(b) < streamPendingValueMin {
		return StreamPendingValue{}, fmt.Errorf("stream pending value: %d bytes, want at least %d: %w", len(b), streamPendingValueMin, ErrCorrupt)
	}
	return StreamPendingValue{
		DeliveryMs: int64(binary.BigEndian.Uint64(b)),
		Deliveries: binary.BigEndian.Uint64(b[8:]),
		CID:        binary.BigEndian.Uint64(b[16:]),
		Consumer:   b[24:len(b):len(b)],
	}, nil
}
