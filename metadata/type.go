package metadata

import "strconv"

// Type is the data type of a key. It is the first byte of every Meta record
// and of every bookkeeping record.
type Type uint8

// The types. On-disk: append, never renumber. Zero is not a type.
const (
	// TypeString is a string; its value lives in the Meta record itself.
	TypeString Type = 1
	// TypeHash is a hash; its fields live in the subkey CF.
	TypeHash Type = 2
	// TypeList is a list; its elements live in the subkey CF, by index.
	TypeList Type = 3
	// TypeSet is a set; its members live in the subkey CF.
	TypeSet Type = 4
	// TypeZSet is a sorted set; its members live in the subkey CF (member ->
	// score) and in the score CF (score, member).
	TypeZSet Type = 5
	// TypeStream is a stream; its header lives in its Meta record
	// (StreamMeta), its entries in the subkey CF, by ID (subkey/stream.go).
	TypeStream Type = 6
)

// String returns the name Redis's TYPE command uses for t: "string", "hash",
// "list", "set", "zset" or "stream". For an unknown type it returns "unknown(N)".
func (t Type) String() string {
	switch t {
	case TypeString:
		return "string"
	case TypeHash:
		return "hash"
	case TypeList:
		return "list"
	case TypeSet:
		return "set"
	case TypeZSet:
		return "zset"
	case TypeStream:
		return "stream"
	}
	return "unknown(" + strconv.Itoa(int(t)) + ")"
}

// Valid reports whether t is one of the defined types.
func (t Type) Valid() bool {
	return t >= TypeString && t <= TypeStream
}

// Composite reports whether t is a valid type whose elements live outside its
// Meta record, under a uid: every valid type but TypeString. It is false for
// unknown types.
func (t Type) Composite() bool {
	return t.Valid() && t != TypeString
}
