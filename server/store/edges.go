package store

import (
	"bytes"
	"sync"
	"sync/atomic"

	"github.com/shaledb/shale/subkey"
)

// Edges remember where the live records of a range begin and end, for the
// ranges that commands walk from one end: a sorted set's score records, a
// consumer group's pending list. A removed record leaves a tombstone in
// its range, which stays in the memtable and the SST files until
// compaction drops it, and a walk from the range's start steps over every
// one: a queue drained from its low end (ZPOPMIN, or ZRANGEBYSCORE -inf …
// LIMIT 0 1 then ZREM), a sliding window trimmed with ZREMRANGEBYSCORE,
// or XAUTOCLAIM from 0-0 over the entries acknowledged, walked thousands
// of tombstones per command after a few thousand removals
// (docs/BENCHMARKS.md, "Walks over the tombstones at a range's end").
// With an edge, the walk seeks past them.
//
// An edge only ever says that no live record of the range lies before
// first, or at or after end, in what has landed together with every write
// queued and not yet failed. It is set by a command that holds the key's
// lock and reads all of that, not a snapshot (types.DB.edgedWalk, and
// ZPOP and ZREMRANGEBY* past what they removed). Every put into the range
// that would cross an edge moves the edge to the put's key as the batch is
// built (Batch.Put), which holds whether or not that write lands; deletes
// never break one. A write that fails or is taken back may have removed
// records an edge was moved past, so it forgets every edge (forgetEdges),
// and an edge read before that, under the old epoch, is not recorded.
// Records that arrive by replication, or a new data set, clear them all
// too. Edges live in memory only, a bounded number of them.
type walkEdges struct {
	epoch atomic.Uint64 // bumped each time every edge is forgotten
	// shards hold the ranges by uid, so that a put takes a lock only when
	// its key's shard holds a range of its column family, and puts of
	// different keys seldom wait for each other.
	shards [edgeShards]edgeShard
}

// edgeShard is the ranges of the uids that fall in it.
type edgeShard struct {
	// n counts the ranges kept in the score and the subkey column
	// families, so that puts skip the lock when their family has none.
	n     [2]atomic.Int32
	mu    sync.Mutex
	byUID map[uint64][]rangeEdges // a key's ranges, by the uid their prefix begins with
	count int                     // ranges in byUID
}

// edgeShards is how many shards hold the ranges; uids are handed out in
// sequence, so uid % edgeShards spreads them.
const edgeShards = 64

func (e *walkEdges) shard(uid uint64) *edgeShard { return &e.shards[uid%edgeShards] }

// EdgeRange is a range of records that commands walk from one end: the
// records of CF whose keys begin with Prefix, which begins with the uid of
// the key they belong to.
type EdgeRange struct {
	CF     CF
	Prefix []byte
}

// rangeEdges is one range's edges; nil when not known.
type rangeEdges struct {
	cf                 CF
	prefix, first, end []byte
}

// maxShardRanges bounds the ranges whose edges a shard keeps (16,384 in
// all); past it the ranges of an arbitrary key of the shard are forgotten
// for each new one.
const maxShardRanges = (1 << 14) / edgeShards

// edgeSlot is the slot of walkEdges.n that counts cf's ranges; -1 for a
// family no range lies in.
func edgeSlot(cf CF) int {
	switch cf {
	case CFScore:
		return 0
	case CFSubkey:
		return 1
	}
	return -1
}

// Edges returns what is known of where r's live records lie: none sorts
// before first, none at or after end; nil when not known. The slices must
// not be changed. epoch is what a caller that then reads the records and
// moves an edge passes to SetFirstEdge or SetEndEdge.
func (s *Store) Edges(r EdgeRange) (first, end []byte, epoch uint64) {
	epoch = s.edges.epoch.Load()
	slot := edgeSlot(r.CF)
	uid, err := subkey.UID(r.Prefix)
	if slot < 0 || err != nil {
		return nil, nil, epoch
	}
	sh := s.edges.shard(uid)
	if sh.n[slot].Load() == 0 {
		return nil, nil, epoch
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	for _, re := range sh.byUID[uid] {
		if re.cf == r.CF && bytes.Equal(re.prefix, r.Prefix) {
			return re.first, re.end, epoch
		}
	}
	return nil, nil, epoch
}

// SetFirstEdge records that no live record of r sorts before key, and
// SetEndEdge that none sorts at or after it, unless every edge was
// forgotten since epoch (Edges) was read. The caller holds the key's lock
// and read the records it judges by after reading epoch.
func (s *Store) SetFirstEdge(r EdgeRange, key []byte, epoch uint64) {
	s.edges.set(r, key, false, epoch)
}

// SetEndEdge: see SetFirstEdge.
func (s *Store) SetEndEdge(r EdgeRange, key []byte, epoch uint64) { s.edges.set(r, key, true, epoch) }

// forgetEdges forgets every edge: a write failed or was taken back.
func (s *Store) forgetEdges() { s.edges.clear() }

func (e *walkEdges) set(r EdgeRange, key []byte, end bool, epoch uint64) {
	slot := edgeSlot(r.CF)
	uid, err := subkey.UID(r.Prefix)
	if slot < 0 || err != nil {
		return
	}
	sh := e.shard(uid)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	// clear bumps the epoch before it empties the shards, under their
	// locks: an edge that passes this check goes before its shard is
	// emptied.
	if e.epoch.Load() != epoch {
		return
	}
	ranges := sh.byUID[uid]
	i := 0
	for i < len(ranges) && !(ranges[i].cf == r.CF && bytes.Equal(ranges[i].prefix, r.Prefix)) {
		i++
	}
	if i == len(ranges) {
		if sh.byUID == nil {
			sh.byUID = make(map[uint64][]rangeEdges)
		}
		if sh.count >= maxShardRanges {
			for u := range sh.byUID {
				sh.drop(u)
				break
			}
			ranges = sh.byUID[uid]
			i = len(ranges)
		}
		ranges = append(ranges, rangeEdges{cf: r.CF, prefix: bytes.Clone(r.Prefix)})
		sh.count++
		sh.n[slot].Add(1)
	}
	at := &ranges[i].first
	if end {
		at = &ranges[i].end
	}
	if !bytes.Equal(*at, key) {
		*at = bytes.Clone(key)
	}
	sh.byUID[uid] = ranges
}

// drop forgets the ranges of uid. The caller holds mu.
func (sh *edgeShard) drop(uid uint64) {
	for _, re := range sh.byUID[uid] {
		sh.n[edgeSlot(re.cf)].Add(-1)
		sh.count--
	}
	delete(sh.byUID, uid)
}

// put moves the edges that a put of key into cf would cross to key: no
// live record lies before key if none lay before a first edge past it,
// and that holds whether or not the write lands.
func (e *walkEdges) put(cf CF, key []byte) {
	slot := edgeSlot(cf)
	if slot < 0 {
		return
	}
	uid, err := subkey.UID(key)
	if err != nil {
		return
	}
	sh := e.shard(uid)
	if sh.n[slot].Load() == 0 {
		return
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	for i := range sh.byUID[uid] {
		re := &sh.byUID[uid][i]
		if re.cf != cf || !bytes.HasPrefix(key, re.prefix) {
			continue
		}
		if re.first != nil && bytes.Compare(key, re.first) < 0 {
			re.first = bytes.Clone(key) // a caller may still hold the old one
		}
		if re.end != nil && bytes.Compare(key, re.end) >= 0 {
			re.end = append(bytes.Clone(key), 0)
		}
	}
}

// clear forgets every edge, and makes those read before it unrecordable.
func (e *walkEdges) clear() {
	e.epoch.Add(1)
	for i := range e.shards {
		sh := &e.shards[i]
		sh.mu.Lock()
		sh.byUID, sh.count = nil, 0
		for j := range sh.n {
			sh.n[j].Store(0)
		}
		sh.mu.Unlock()
	}
}
