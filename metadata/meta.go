package metadata

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// ErrCorrupt is wrapped by every decode error of this package. Test for it
// with errors.Is.
var ErrCorrupt = errors.New("metadata: corrupt record")

// MetaHeaderLen is the length of the part every Meta record starts with: the
// type byte and expire_ms. On-disk: append, never renumber; this value never
// changes.
const MetaHeaderLen = 9

// Lengths of composite Meta records.
const (
	metaCompositeLen = MetaHeaderLen + 8 + 8    // uid, size
	metaEncodedLen   = metaCompositeLen + 1     // uid, size, encoding
	metaListLen      = metaCompositeLen + 8 + 8 // head, tail
)

// Meta is the value under a user key in the metadata CF. Big-endian layout:
//
//	| type u8 | expire_ms u64 | payload |
//
//	string:          payload = | value bytes |               (may be empty)
//	                 (type byte 0x41, typeRawString: a raw-encoded one)
//	fragmented string: type byte 0x81 (typeFragString), then
//	                 payload = | uid u64 | length u64 |
//	hash, set, zset: payload = | uid u64 | size u64 | encoding u8 |
//	                      or   | uid u64 | size u64 |        (legacy: EncUnknown)
//	list:            payload = | uid u64 | size u64 | head u64 | tail u64 |
//	stream:          payload = | uid u64 | size u64 | StreamMeta 64 |  (stream.go)
//
// A string record is MetaHeaderLen bytes plus its value, a fragmented
// string's exactly 25 (its value lives in the subkey CF, subkey/strfrag.go);
// a hash, set or zset
// record is 26 bytes, or 25 when it names no encoding (written before the
// encoding byte existed, format version 1), a list record exactly 41 and a
// stream record exactly 89.
type Meta struct {
	// Type is the key's type; on-disk: append, never renumber.
	Type Type
	// ExpireMs is the absolute expiry time in unix milliseconds; 0 means no
	// expiry. It is never negative on disk.
	ExpireMs int64
	// UID identifies the key's elements in the subkey, score and bookkeeping
	// CFs. It is fresh on every (re)creation and never reused, so elements of
	// an older uid are garbage. Composite types and fragmented strings
	// only; 0 for whole strings.
	UID uint64
	// Size is the element count; a fragmented string's length in bytes.
	// 0 for whole strings.
	Size uint64
	// Head and Tail bound a list's live element indexes: [Head, Tail). Lists
	// only; 0 for other types. A new list starts with both at subkey.ListStart.
	Head, Tail uint64
	// Enc is the Redis encoding of a hash, set or zset (OBJECT ENCODING):
	// its type's Compact or Converted encoding, or EncUnknown for a record
	// written before the encoding byte existed. EncUnknown for other types.
	Enc Encoding
	// Stream is a stream's header past its uid and size (Size is its
	// length). Streams only; the zero StreamMeta for other types.
	Stream StreamMeta
	// Frag marks a fragmented string: its value lives in fragments under
	// UID (subkey.AppendFragKey), Size is its length in bytes, and Value is
	// nil. Strings only; false for other types and for a whole string.
	Frag bool
	// Raw marks a whole string Redis would hold raw-encoded whatever its
	// value (OBJECT ENCODING): one a write changed in place (APPEND,
	// SETRANGE, SETBIT, BITFIELD) or built (BITOP). Whole strings only;
	// a fragmented string is always raw.
	Raw bool
	// Value is a string's value. Strings only; nil for other types.
	// DecodeMeta sets it to a non-nil subslice of its input (empty for an
	// empty string), capped to its length: it aliases the input.
	Value []byte
}

// Append appends m's encoding to dst and returns the extended slice. It writes
// only the fields m.Type uses and ignores the others. A Meta that DecodeMeta
// would reject (an unknown Type, a negative ExpireMs) still encodes, to bytes
// that DecodeMeta rejects; for an unknown Type only the header is written.
func (m Meta) Append(dst []byte) []byte {
	if m.Type == TypeString && m.Frag {
		dst = append(dst, typeFragString)
		dst = binary.BigEndian.AppendUint64(dst, uint64(m.ExpireMs))
		dst = binary.BigEndian.AppendUint64(dst, m.UID)
		return binary.BigEndian.AppendUint64(dst, m.Size)
	}
	if m.Type == TypeString && m.Raw {
		dst = append(dst, typeRawString)
	} else {
		dst = append(dst, byte(m.Type))
	}
	dst = binary.BigEndian.AppendUint64(dst, uint64(m.ExpireMs))
	switch {
	case m.Type == TypeString:
		dst = append(dst, m.Value...)
	case m.Type.Composite():
		dst = binary.BigEndian.AppendUint64(dst, m.UID)
		dst = binary.BigEndian.AppendUint64(dst, m.Size)
		switch {
		case m.Type == TypeList:
			dst = binary.BigEndian.AppendUint64(dst, m.Head)
			dst = binary.BigEndian.AppendUint64(dst, m.Tail)
		case m.Type == TypeStream:
			dst = m.Stream.appendStream(dst)
		case m.Enc != EncUnknown:
			dst = append(dst, byte(m.Enc))
		}
	}
	return dst
}

// DecodeMeta decodes a Meta record. It rejects input shorter than its type
// needs, trailing bytes after a composite payload, an unknown type, a
// negative expiry and an encoding byte its type cannot have (EncUnknown
// included: that is written as no byte), with an error wrapping ErrCorrupt.
// It checks the framing only, not the relations between fields (such as
// Size == Tail-Head). A 25-byte hash, set or zset record decodes with
// EncUnknown.
//
// The returned Value aliases b.
func DecodeMeta(b []byte) (Meta, error) {
	if len(b) < MetaHeaderLen {
		return Meta{}, fmt.Errorf("meta: %d bytes, want at least %d: %w", len(b), MetaHeaderLen, ErrCorrupt)
	}
	m := Meta{
		Type:     Type(b[0]),
		ExpireMs: int64(binary.BigEndian.Uint64(b[1:MetaHeaderLen])),
	}
	switch b[0] {
	case typeFragString:
		m.Type, m.Frag = TypeString, true
	case typeRawString:
		m.Type, m.Raw = TypeString, true
	}
	if !m.Type.Valid() {
		return Meta{}, fmt.Errorf("meta: unknown type %d: %w", b[0], ErrCorrupt)
	}
	if m.ExpireMs < 0 {
		return Meta{}, fmt.Errorf("meta: negative expire_ms %d: %w", m.ExpireMs, ErrCorrupt)
	}
	if m.Type == TypeString && !m.Frag {
		m.Value = b[MetaHeaderLen:len(b):len(b)]
		return m, nil
	}
	if m.Frag {
		if len(b) != metaCompositeLen {
			return Meta{}, fmt.Errorf("meta: fragmented string record of %d bytes, want %d: %w", len(b), metaCompositeLen, ErrCorrupt)
		}
		m.UID = binary.BigEndian.Uint64(b[9:17])
		m.Size = binary.BigEndian.Uint64(b[17:25])
		return m, nil
	}
	want := metaCompositeLen
	switch {
	case m.Type == TypeList:
		want = metaListLen
	case m.Type == TypeStream:
		want = metaStreamLen
	case len(b) == metaEncodedLen:
		want = metaEncodedLen
		m.Enc = Encoding(b[metaCompositeLen])
		if !m.Type.validEncoding(m.Enc) {
			return Meta{}, fmt.Errorf("meta: %s record with encoding %s: %w", m.Type, m.Enc, ErrCorrupt)
		}
	}
	if len(b) != want {
		return Meta{}, fmt.Errorf("meta: %s record of %d bytes, want %d: %w", m.Type, len(b), want, ErrCorrupt)
	}
	m.UID = binary.BigEndian.Uint64(b[9:17])
	m.Size = binary.BigEndian.Uint64(b[17:25])
	if m.Type == TypeList {
		m.Head = binary.BigEndian.Uint64(b[25:33])
		m.Tail = binary.BigEndian.Uint64(b[33:41])
	}
	if m.Type == TypeStream {
		m.Stream = decodeStream(b[metaCompositeLen:])
	}
	return m, nil
}

// HeadLen is how much of record rec a reader needs that does not need a
// whole string's value: MetaHeaderLen for a whole string's record, which
// decodes as the same string with an empty value; all of rec for any other
// record. The metadata cache keeps only this much of a record too long to
// keep whole.
func HeadLen(rec []byte) int {
	if len(rec) >= MetaHeaderLen && (rec[0] == byte(TypeString) || rec[0] == typeRawString) {
		return MetaHeaderLen
	}
	return len(rec)
}

// typeFragString is the type byte of a fragmented string's record: a
// string (TYPE says "string") whose value lives in fragments. It is not a
// Type: DecodeMeta gives TypeString with Frag set. On-disk: never
// renumber; no Type may ever take this value (Type.Valid ends far below).
const typeFragString = 0x80 | byte(TypeString)

// typeRawString is the type byte of a whole string Redis would hold raw
// (Meta.Raw): a string record in all else. Not a Type either. On-disk:
// never renumber.
const typeRawString = 0x40 | byte(TypeString)

// OwnsUID reports whether m's record owns elements under m.UID, which a
// bookkeeping record names for the compaction filters: a composite type's,
// or a fragmented string's.
func (m Meta) OwnsUID() bool {
	return m.Type.Composite() || (m.Type == TypeString && m.Frag)
}

// Expired reports whether m has expired at nowMs (unix milliseconds): it has
// an expiry and the expiry is not after nowMs. This is the one definition of
// liveness: an expired key is absent to every reader, and its elements are
// garbage to the compaction filters.
func (m Meta) Expired(nowMs int64) bool {
	return m.ExpireMs != 0 && m.ExpireMs <= nowMs
}
