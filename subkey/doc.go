// Package subkey owns Shale's byte codecs for the elements of composite keys:
// the records of the subkey CF (hash fields, set members, list elements by
// index, zset member -> score), the keys of the score CF (zset score ->
// member, with an order-preserving score), and the uid prefixes and bounds
// that every one of those records shares with the bookkeeping CF.
//
// It is a pure codec: it imports only the standard library, uses no cgo, does
// no I/O and never logs. Nothing here knows RocksDB or RESP.
//
// Layouts (every integer big-endian):
//
//	subkey CF   hash field   key | uid u64 | field |         value: field value
//	            set member   key | uid u64 | member |        value: empty
//	            zset member  key | uid u64 | member |        value: | score float64 bits |
//	            list element key | uid u64 | index u64 |     value: element
//	            stream entry key | uid u64 | 0x01 | ms u64 | seq u64 |  value: | n uvarint | (len uvarint | bytes)* |
//	            (other stream kinds: | uid u64 | kind u8 | ... |, stream.go)
//	score CF                 key | uid u64 | score 8 | member |  value: empty
//
// Invariants:
//   - The format is frozen once shipped. Golden tests hard-code the bytes and
//     fail if and only if the format changes; docs/ENCODING.md describes it.
//     Constants are on-disk: append, never renumber.
//   - Every record of a uid starts with AppendPrefix(uid), so a uid's records
//     in every CF are the one range [AppendPrefix(uid), AppendUpperBound(uid)).
//     Dropping that range, or proving the uid dead, reclaims a whole key.
//   - Score-CF keys of one uid sort by (score, member) as Redis orders a zset:
//     numerically by score, -0 folded into +0, then bytewise by member.
//   - Every decoder accepts exactly the bytes its encoder produces, so that
//     encoding a decoded record gives back the input byte for byte. It rejects
//     anything else (short input, trailing bytes, a NaN score, a non-canonical
//     -0 score) with an error wrapping ErrCorrupt, and never panics.
//   - NaN is never a score. The encoders do not check (they never fail); the
//     callers reject NaN as Redis does, and the decoders reject it on read.
//   - Decoded byte slices (sub, member) alias the input. Copy them to keep them
//     past the input's lifetime, e.g. a RocksDB slice or a compaction-filter
//     argument.
//   - Encoders append to dst; with a dst of enough capacity they do not
//     allocate. Decoders do not allocate unless they return an error.
package subkey
