package types

import (
	"bytes"
	"sync"

	"github.com/shaledb/shale/metadata"
	"github.com/shaledb/shale/server/store"
)

// A set drained at random (SPOP, SREM, SMOVE) leaves a tombstone in the
// subkey CF for every member removed, until compaction drops them, and
// every read of the set's range walks them: a full read of the members,
// and each seek of the random sampler (sample.go). A hash whose fields are
// deleted at random (HDEL) is read the same ways, by HGETALL, HSCAN and
// HRANDFIELD. Edges (edges.go) cannot skip such tombstones, because they
// lie everywhere. What bounds the walk is a rewrite: an SPOP, SREM or
// HDEL that finds (or leaves) at least half as many tombstones as members
// (or fields) under the key's uid writes those that stay under a new uid
// (storeSet, storeSubs), whose range holds no tombstone, and the old uid
// is reclaimed like a deleted key's. Its cost, one put per member kept, is
// at most two per member removed since the last rewrite. (Rewriting only
// once the tombstones outnumber the members, a set of 40,000 drained by
// SPOP from one client served 1,637 pops a second at first and 793 just
// before its first rewrite.)
//
// How many tombstones a uid's range holds is not in the metadata; the
// churn table counts, in memory, the members or fields removed under each
// uid since the server started. It is a hint: lost at a restart, and when
// its bound is reached, which only delays a rewrite.

// churnShards spreads the table's lock; a power of two.
const churnShards = 64

// churnShardMax bounds the uids a shard counts; a full shard forgets an
// arbitrary one to make room.
const churnShardMax = 1024

type churnTable struct {
	shards [churnShards]churnShard
}

type churnShard struct {
	mu      sync.Mutex
	removed map[uint64]uint64 // uid -> members removed under it
}

func (t *churnTable) shard(uid uint64) *churnShard { return &t.shards[uid%churnShards] }

// add counts n members removed under uid.
func (t *churnTable) add(uid uint64, n uint64) {
	s := t.shard(uid)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.removed == nil {
		s.removed = make(map[uint64]uint64)
	}
	if _, counted := s.removed[uid]; !counted && len(s.removed) >= churnShardMax {
		for other := range s.removed {
			delete(s.removed, other)
			break
		}
	}
	s.removed[uid] += n
}

// removed returns how many members were counted removed under uid.
func (t *churnTable) removed(uid uint64) uint64 {
	s := t.shard(uid)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.removed[uid]
}

// forget drops uid's count: its records were rewritten under another.
func (t *churnTable) forget(uid uint64) {
	s := t.shard(uid)
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.removed, uid)
}

// minChurnRewrite is the fewest removals that make a key rewritten:
// below it, the tombstones cost less than the rewrite's batch.
const minChurnRewrite = 128

// maxChurnRewrite is the most members a rewrite writes: a bigger key is
// sampled by seeks (sample.go), which its tombstones slow down far less
// than a full read, and a rewrite would hold its lock for as long as it
// takes to write every member.
const maxChurnRewrite = 4 * seekSampleMinSize

// churned reports whether ks's range holds at least half as many
// tombstones as members, by the churn table's count, and the set is small
// enough to rewrite.
func (d *DB) churned(ks *keyState) bool { return d.churnedAfter(ks, 0) }

// churnedAfter is churned once n more of ks's members are removed.
func (d *DB) churnedAfter(ks *keyState, n uint64) bool {
	if ks.m.Size > maxChurnRewrite || n >= ks.m.Size {
		return false
	}
	removed := d.e.churn.removed(ks.m.UID) + n
	return removed >= minChurnRewrite && 2*removed >= ks.m.Size-n
}

// rewritable reports whether keys of type t are rewritten when churned:
// sets and hashes, whose records all live in the subkey CF. (A sorted
// set's score records would need the same, and are not counted.)
func rewritable(t metadata.Type) bool { return t == metadata.TypeSet || t == metadata.TypeHash }

// rewriteWithout is SREM or HDEL of the subs of uniq found in ks
// (found[i]), by a rewrite of the others under a new uid.
func (d *DB) rewriteWithout(ks *keyState, key []byte, uniq [][]byte, found []bool) error {
	gone := make(map[string]bool, len(uniq))
	for i, sub := range uniq {
		if found[i] {
			gone[string(sub)] = true
		}
	}
	kept := make([][2][]byte, 0, ks.m.Size)
	err := d.iterSub(ks.m.UID, func(sub, val []byte) bool {
		if !gone[string(sub)] {
			kept = append(kept, [2][]byte{bytes.Clone(sub), bytes.Clone(val)})
		}
		return true
	})
	if err != nil {
		return err
	}
	uid := ks.m.UID
	err = d.write(func(b *store.Batch) error { return ks.storeSubs(b, kept) })
	if err == nil {
		d.e.churn.forget(uid)
	}
	d.checkSize(key)
	return err
}

// storeSubs makes ks, in b, a new key of its type (a new uid) holding the
// sub-key records (sub, value), which are distinct, with ks's expiry and
// encoding.
func (ks *keyState) storeSubs(b *store.Batch, records [][2][]byte) error {
	return ks.storeCollection(b, ks.m.Type, len(records), ks.m.ExpireMs, ks.m.Enc, func(i int) ([]byte, []byte) {
		return records[i][0], records[i][1]
	})
}
