package metadata

import (
	"encoding/binary"
	"strconv"
)

// StreamID is a stream entry's ID, ms-seq: the entry's milliseconds and its
// sequence number within them. IDs order by Ms, then Seq; 0-0 is below
// every entry's.
type StreamID struct {
	Ms, Seq uint64
}

// Compare returns -1, 0 or +1 as id is below, equal to or above o.
func (id StreamID) Compare(o StreamID) int {
	switch {
	case id.Ms < o.Ms:
		return -1
	case id.Ms > o.Ms:
		return 1
	case id.Seq < o.Seq:
		return -1
	case id.Seq > o.Seq:
		return 1
	}
	return 0
}

// IsZero reports whether id is 0-0.
func (id StreamID) IsZero() bool { return id.Ms == 0 && id.Seq == 0 }

// AppendText appends id as Redis writes it, "ms-seq", to dst.
func (id StreamID) AppendText(dst []byte) []byte {
	dst = strconv.AppendUint(dst, id.Ms, 10)
	dst = append(dst, '-')
	return strconv.AppendUint(dst, id.Seq, 10)
}

// String returns id as Redis writes it, "ms-seq".
func (id StreamID) String() string { return string(id.AppendText(nil)) }

// StreamMeta is the part of a stream's Meta record past its uid and size
// (Size is the stream's length): what XINFO STREAM reports and XADD needs
// without reading an entry. Layout, after | uid u64 | size u64 |, every
// integer big-endian:
//
//	| last ms u64 | last seq u64 | first ms u64 | first seq u64 |
//	| max-deleted ms u64 | max-deleted seq u64 | entries-added u64 | groups u64 |
//
// A stream record is therefore exactly metaStreamLen (89) bytes.
type StreamMeta struct {
	// LastID is the greatest ID the stream ever handed out (or XSETID set):
	// XADD's next ID is above it. 0-0 for a new stream.
	LastID StreamID
	// FirstID is the ID of the first live entry, 0-0 when the stream is
	// empty (Redis's recorded-first-entry-id).
	FirstID StreamID
	// MaxDeletedID is the greatest ID XDEL removed (or XSETID set); 0-0
	// when none. Trimming does not move it, as in Redis 7.0.
	MaxDeletedID StreamID
	// EntriesAdded counts every entry ever added, XSETID aside.
	EntriesAdded uint64
	// Groups is the number of consumer groups; 0 until they land.
	Groups uint64
}

// metaStreamLen is the length of a stream's Meta record.
const metaStreamLen = metaCompositeLen + 8*8

// appendStream appends sm's encoding (the layout above) to dst.
func (sm StreamMeta) appendStream(dst []byte) []byte {
	for _, v := range [...]uint64{sm.LastID.Ms, sm.LastID.Seq, sm.FirstID.Ms, sm.FirstID.Seq,
		sm.MaxDeletedID.Ms, sm.MaxDeletedID.Seq, sm.EntriesAdded, sm.Groups} {
		dst = binary.BigEndian.AppendUint64(dst, v)
	}
	return dst
}

// decodeStream decodes the 64 bytes appendStream writes; the caller has
// checked the length.
func decodeStream(b []byte) StreamMeta {
	u := func(i int) uint64 { return binary.BigEndian.Uint64(b[8*i:]) }
	return StreamMeta{
		LastID:       StreamID{u(0), u(1)},
		FirstID:      StreamID{u(2), u(3)},
		MaxDeletedID: StreamID{u(4), u(5)},
		EntriesAdded: u(6),
		Groups:       u(7),
	}
}
