package metadata

import "strconv"

// Encoding is the in-memory encoding Redis would hold a hash, set or sorted
// set in, which OBJECT ENCODING reports. Shale keeps it in the key's Meta
// record because Redis's choice depends on the key's history, not only on
// its contents: a hash that once outgrew hash-max-listpack-entries stays a
// hashtable after HDEL shrinks it. Strings and lists record none (a string's
// encoding follows from its value, or is raw for Meta.Raw and Meta.Frag, and
// Redis 7.0 keeps every list in a quicklist).
type Encoding uint8

// The encodings. On-disk: append, never renumber.
const (
	// EncUnknown is a record that names no encoding: one written before the
	// encoding byte existed (a 25-byte hash, set or zset record), or a string
	// or list. Readers derive the encoding from the elements; the next write
	// records it.
	EncUnknown Encoding = 0
	// EncListpack is a small hash or sorted set.
	EncListpack Encoding = 1
	// EncIntset is a small set of integers.
	EncIntset Encoding = 2
	// EncHashtable is a hash or set past its compact encoding.
	EncHashtable Encoding = 3
	// EncSkiplist is a sorted set past its listpack.
	EncSkiplist Encoding = 4
)

// String returns the name OBJECT ENCODING uses for e, "unknown" for
// EncUnknown and "unknown(N)" for an undefined value.
func (e Encoding) String() string {
	switch e {
	case EncUnknown:
		return "unknown"
	case EncListpack:
		return "listpack"
	case EncIntset:
		return "intset"
	case EncHashtable:
		return "hashtable"
	case EncSkiplist:
		return "skiplist"
	}
	return "unknown(" + strconv.Itoa(int(e)) + ")"
}

// Encoded reports whether t's Meta record may carry an encoding byte: hashes,
// sets and sorted sets.
func (t Type) Encoded() bool {
	return t == TypeHash || t == TypeSet || t == TypeZSet
}

// Compact is the encoding a new key of type t starts in (listpack for a hash
// or zset, intset for a set), EncUnknown for the other types.
func (t Type) Compact() Encoding {
	switch t {
	case TypeHash, TypeZSet:
		return EncListpack
	case TypeSet:
		return EncIntset
	}
	return EncUnknown
}

// Converted is the encoding a key of type t moves to once it outgrows its
// compact one (hashtable for a hash or set, skiplist for a zset), EncUnknown
// for the other types.
func (t Type) Converted() Encoding {
	switch t {
	case TypeHash, TypeSet:
		return EncHashtable
	case TypeZSet:
		return EncSkiplist
	}
	return EncUnknown
}

// validEncoding reports whether a record of type t may name e: its compact or
// its converted encoding.
func (t Type) validEncoding(e Encoding) bool {
	return t.Encoded() && (e == t.Compact() || e == t.Converted())
}
