// Package metadata owns Shale's byte codecs for the records keyed by user key
// or by uid that describe a key rather than its elements: the metadata record
// of a key and its key in the metadata column family, the bookkeeping record
// that maps a uid back to its owner, the expiry-index key, the Redis Cluster
// slot of a key, and the system records of the default column family.
//
// It is a pure codec: it imports only the standard library, uses no cgo, does
// no I/O and never logs. Nothing here knows RocksDB or RESP.
//
// Layouts (every integer big-endian, except the counter values):
//
//	metadata CF     key    | db u16 | slot u16 | user key |
//	                value  | type u8 | expire_ms u64 | payload |
//	                         string:         | value bytes |
//	                         hash, set, zset:| uid u64 | size u64 | encoding u8 |
//	                                         (25-byte legacy form: no encoding byte)
//	                         list:           | uid u64 | size u64 | head u64 | tail u64 |
//	                         stream:         | uid u64 | size u64 | StreamMeta 64 | (stream.go)
//	bookkeeping CF  key    | uid u64 |
//	                value  | type u8 | db u16 | user key |
//	expire CF       key    | expire_ms u64 | db u16 | slot u16 | user key |
//	                value  empty
//	default CF      "shale:format-version"     -> | version u32 |
//	                "shale:uid-high-water"     -> | uid u64 |
//	                "shale:keys:" | db u16 |   -> | count u64 little-endian |
//	                "shale:db-map"             -> | physical db u16 |* (SWAPDB)
//
// Invariants:
//   - The format is frozen once shipped. Golden tests hard-code the bytes and
//     fail if and only if the format changes; docs/ENCODING.md describes it.
//     Type values are on-disk: append, never renumber.
//   - Every decoder accepts exactly the bytes its encoder produces, so that
//     encoding a decoded record gives back the input byte for byte. It rejects
//     anything else (short input, trailing bytes, unknown type, negative
//     expiry, a slot that is not Slot(key)) with an error wrapping ErrCorrupt,
//     and never panics.
//   - Decoded byte slices (user keys, string values) alias the input. Copy them
//     to keep them past the input's lifetime, e.g. a RocksDB slice or a value
//     handed to a compaction filter.
//   - Meta.Expired is the one definition of liveness, shared by reads, writes,
//     active expiry and the compaction filters.
//   - The slot stored in a key is always Slot(user key), so the keys of one
//     slot of one db form one contiguous range.
//   - Encoders never fail and append to dst; with a dst of enough capacity they
//     do not allocate. Decoders do not allocate unless they return an error.
package metadata
