package types

import (
	"github.com/shaledb/shale/metadata"
	"github.com/shaledb/shale/server/hll"
)

// The encodings OBJECT ENCODING reports for hashes, sets and sorted sets,
// chosen as Redis 7.0 chooses them (t_hash.c, t_set.c, t_zset.c) from its
// *-max-listpack-* and set-max-intset-entries parameters, and kept in the
// key's Meta record (Meta.Enc) because Redis never converts back: a key
// starts compact and converts on the write that outgrows a limit, checked
// against that write's elements and the size after it, so the check costs
// O(size of the new elements), never a scan. Results built whole (SINTERSTORE,
// ZUNIONSTORE, ZRANGESTORE...) are judged on their contents, as Redis judges
// them. A record written before the encoding byte existed (EncUnknown) is
// judged on its contents when read, and its next write records the answer.

// EncodingLimits are Redis's encoding parameters. Each is at least 0.
type EncodingLimits struct {
	HashMaxListpackEntries int64 // hash-max-listpack-entries: most fields of a listpack hash
	HashMaxListpackValue   int64 // hash-max-listpack-value: longest field or value, in bytes
	SetMaxIntsetEntries    int64 // set-max-intset-entries: most members of an intset
	ZSetMaxListpackEntries int64 // zset-max-listpack-entries: most members of a listpack zset
	ZSetMaxListpackValue   int64 // zset-max-listpack-value: longest member, in bytes
	HLLSparseMaxBytes      int64 // hll-sparse-max-bytes: largest sparse HyperLogLog, header included
}

// DefaultEncodingLimits are Redis 7.0's built-in defaults (not the values
// of its sample redis.conf, which sets hash-max-listpack-entries to 128).
func DefaultEncodingLimits() EncodingLimits {
	return EncodingLimits{
		HashMaxListpackEntries: 512,
		HashMaxListpackValue:   64,
		SetMaxIntsetEntries:    512,
		ZSetMaxListpackEntries: 128,
		ZSetMaxListpackValue:   64,
		HLLSparseMaxBytes:      hll.DefaultSparseMaxBytes,
	}
}

// intsetCap is the most members Redis lets an intset hold, whatever
// set-max-intset-entries says (t_set.c: "limit to 1G entries due to
// intset internals").
const intsetCap = 1 << 30

// SetEncodingLimits sets the limits later writes convert by. Keys already
// written keep their encoding until their next write, as in Redis.
func (e *Engine) SetEncodingLimits(l EncodingLimits) {
	e.encLimits.Store(&l)
}

// defaultEncodingLimits is what encodingLimits returns before
// SetEncodingLimits: one shared value, so that the write paths never
// allocate for it.
var defaultEncodingLimits = DefaultEncodingLimits()

// encodingLimits returns the current limits. The caller must not modify
// them.
func (e *Engine) encodingLimits() *EncodingLimits {
	if l := e.encLimits.Load(); l != nil {
		return l
	}
	return &defaultEncodingLimits
}

// resolveEnc gives a live hash, set or zset loaded from a record that names
// no encoding (written before format 2) the encoding its contents imply,
// so that the write that follows records it. A no-op otherwise.
func (d *DB) resolveEnc(ks *keyState) error {
	if !ks.live || !ks.m.Type.Encoded() || ks.m.Enc != metadata.EncUnknown {
		return nil
	}
	enc, err := d.contentEncoding(ks)
	ks.m.Enc = enc
	return err
}

// contentEncoding is the encoding Redis gives a key with ks's elements when
// it builds it whole (RESTORE, and the *STORE commands): compact when the
// element count and lengths are within the limits. It reads at most the
// entries limit + 1 elements.
func (d *DB) contentEncoding(ks *keyState) (metadata.Encoding, error) {
	l := d.e.encodingLimits()
	t := ks.m.Type
	var maxEntries int64
	var fits func(sub, val []byte) bool
	switch t {
	case metadata.TypeHash:
		maxEntries = l.HashMaxListpackEntries
		fits = func(f, v []byte) bool {
			return int64(len(f)) <= l.HashMaxListpackValue && int64(len(v)) <= l.HashMaxListpackValue
		}
	case metadata.TypeSet:
		maxEntries = min(l.SetMaxIntsetEntries, intsetCap)
		fits = func(m, _ []byte) bool { _, ok := ParseInt(m); return ok }
	case metadata.TypeZSet:
		maxEntries = l.ZSetMaxListpackEntries
		fits = func(m, _ []byte) bool { return int64(len(m)) <= l.ZSetMaxListpackValue }
	default:
		return metadata.EncUnknown, nil
	}
	if ks.m.Size > uint64(maxEntries) {
		return t.Converted(), nil
	}
	small := true
	err := d.iterSub(ks.m.UID, func(sub, val []byte) bool {
		small = fits(sub, val)
		return small
	})
	if err != nil || !small {
		return t.Converted(), err
	}
	return t.Compact(), nil
}

// hashWrote converts a listpack hash that a write of fields and values
// (HSET, HINCRBY...) outgrew: Redis checks the length of every field and
// value written, new or not, and the size after the write, even when it
// added no field. ks.m.Size is the size after. longest is the longest field
// or value written.
func (ks *keyState) hashWrote(longest int) {
	l := ks.db.e.encodingLimits()
	if ks.m.Enc == metadata.EncListpack &&
		(int64(longest) > l.HashMaxListpackValue || ks.m.Size > uint64(l.HashMaxListpackEntries)) {
		ks.m.Enc = metadata.EncHashtable
	}
}

// longestOf is the length of the longest of bs.
func longestOf(bs [][]byte) int {
	n := 0
	for _, b := range bs {
		n = max(n, len(b))
	}
	return n
}

// setAdded converts an intset that an SADD or SMOVE outgrew: a member that
// is no integer, or added members past set-max-intset-entries. Re-adding
// a member already there converts nothing. ks.m.Size is the size after.
func (ks *keyState) setAdded(added int64, members [][]byte) {
	if ks.m.Enc != metadata.EncIntset {
		return
	}
	l := ks.db.e.encodingLimits()
	if added > 0 && ks.m.Size > uint64(min(l.SetMaxIntsetEntries, intsetCap)) {
		ks.m.Enc = metadata.EncHashtable
		return
	}
	for _, m := range members { // an intset holds no non-integer: any is new
		if _, ok := ParseInt(m); !ok {
			ks.m.Enc = metadata.EncHashtable
			return
		}
	}
}

// zsetAdded converts a listpack zset that a ZADD or ZINCRBY outgrew by
// adding members: too many, or one longer than zset-max-listpack-value.
// Changing the score of a member already there converts nothing.
// ks.m.Size is the size after; longestNew is the longest member added.
func (ks *keyState) zsetAdded(added int64, longestNew int) {
	l := ks.db.e.encodingLimits()
	if ks.m.Enc == metadata.EncListpack && added > 0 &&
		(ks.m.Size > uint64(l.ZSetMaxListpackEntries) || int64(longestNew) > l.ZSetMaxListpackValue) {
		ks.m.Enc = metadata.EncSkiplist
	}
}

// setEncodingOf is the encoding of a set built whole from members
// (SINTERSTORE, SUNIONSTORE, SDIFFSTORE).
func (d *DB) setEncodingOf(members [][]byte) metadata.Encoding {
	l := d.e.encodingLimits()
	if int64(len(members)) > min(l.SetMaxIntsetEntries, intsetCap) {
		return metadata.EncHashtable
	}
	for _, m := range members {
		if _, ok := ParseInt(m); !ok {
			return metadata.EncHashtable
		}
	}
	return metadata.EncIntset
}

// zsetEncodingOf is the encoding of a sorted set built whole from elems
// (ZUNIONSTORE, ZINTERSTORE, ZDIFFSTORE, ZRANGESTORE).
func (d *DB) zsetEncodingOf(elems []ScoreMember) metadata.Encoding {
	l := d.e.encodingLimits()
	if int64(len(elems)) > l.ZSetMaxListpackEntries {
		return metadata.EncSkiplist
	}
	for _, e := range elems {
		if int64(len(e.Member)) > l.ZSetMaxListpackValue {
			return metadata.EncSkiplist
		}
	}
	return metadata.EncListpack
}
