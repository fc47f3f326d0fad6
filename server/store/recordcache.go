package store

import (
	"bytes"
	"hash/maphash"
	"math"
	"sync"
	"sync/atomic"
)

// recordCache keeps the records of one column family that commands read and
// write most recently, and the absence of keys found missing, in memory.
// There is one for the metadata CF and one for the subkey CF (see
// cachedCFs). Nearly every command starts by reading its key's metadata,
// and writes to a hash, set or sorted set first read the members they
// change; in RocksDB each of those reads searches the memtables' skip
// lists, which grow with the write rate, before any SST file. Under load
// they were the largest cost of a SET or a GET, and the second largest of a
// ZADD.
//
// Sub-key records need no more care than metadata: a sub-key's uid is never
// reused, so the entries of a deleted key's sub-keys are never read again,
// and age out.
//
// The cache is filled by reads and by writes, and bounded in bytes; a full
// shard evicts arbitrary entries. It must never hand out a value older
// than the last write acknowledged, whatever locks its callers hold, so:
//   - once RocksDB has a batch, and before its write returns, the entries
//     of the keys it wrote are set to the written values (or dropped, for
//     a value too big to cache and past a batch's first records, see
//     cacheWrites), and their shards' epochs move on;
//   - a read that missed fills the entry only if the shard's epoch is the
//     one it saw before reading RocksDB, and the entry is still empty.
//
// A read that raced with a write therefore read the new value, or fills
// nothing. Until the write returns, reads may still get the old value,
// which is allowed: the write is not acknowledged yet. Writers of one key
// hold its lock across Store.Write, so two writes of a key never set its
// entry out of order. A failed write changes nothing, in RocksDB or here.
type recordCache struct {
	// head, when set, says how much of a record too long to cache whole
	// is worth caching alone (metadata.HeadLen: a long string's header,
	// without its value); such an entry is cut, and only a lookup with
	// head set returns it. nil: such a record is not cached.
	head      func(val []byte) int
	seed      maphash.Seed
	shards    [cacheShards]cacheShard
	shardMax  int64 // bytes per shard
	hits      atomic.Uint64
	misses    atomic.Uint64
	evictions atomic.Uint64
	// runs, in the sub-key cache only, hold runs of list elements
	// (listRuns); nil in the metadata cache.
	runs *listRuns
}

// cacheShards spreads the lock; a power of two.
const cacheShards = 64

// cacheEntryOverhead is about what an entry costs beyond its key and value
// bytes: its map slot and a share of the map's spare room.
const cacheEntryOverhead = 64

type cacheShard struct {
	mu sync.Mutex
	// entries is keyed by the key's 64-bit hash, which also picks the
	// shard: the key is hashed once, and the map compares integers. An
	// entry holds its key, so a lookup that meets another key under the
	// same hash (about never) is a miss, and a store replaces it.
	entries map[uint64]cacheEntry
	// arena holds the entries' keys and values, one after the other. A
	// value no longer than the one it replaces is written over it; any
	// other replaced or evicted entry's bytes stay until the arena is full,
	// and then the live ones are copied to a new arena; so the arena may
	// take up to twice the shard's bound. It is a mapping outside the Go
	// heap (cachearena.go), and the map holds no pointer, so the collector
	// neither scans the cache's hundreds of thousands of entries in every
	// cycle (with an allocation per entry, that scan took 7% of the
	// server's CPU under pipelined GET) nor lets the heap grow by
	// go_gc_percent of the arena before it collects.
	arena  []byte
	bytes  int64 // of live entries, overhead included: what the bound counts
	epoch  uint64
	closed bool // the store closed and the arena is unmapped: cache nothing
}

// cacheEntry locates an entry's key and value in its shard's arena. It
// takes 16 bytes, so that a map slot with its hash takes 24: the maps are
// most of what the caches keep in the Go heap.
type cacheEntry struct {
	off   int
	vlen  uint32
	klen  uint16 // a longer key is not cached (fits)
	found bool   // false: the key is absent, and vlen is 0
	cut   bool   // the value is the record's head only (recordCache.head)
}

func (sh *cacheShard) key(e cacheEntry) []byte {
	return sh.arena[e.off : e.off+int(e.klen)]
}

func (sh *cacheShard) val(e cacheEntry) []byte {
	start := e.off + int(e.klen)
	return sh.arena[start : start+int(e.vlen)]
}

func slotBytes(e cacheEntry) int64 {
	return int64(e.klen) + int64(e.vlen) + cacheEntryOverhead
}

// newRecordCache returns a cache of at most maxBytes, or nil for 0; head
// is recordCache.head.
func newRecordCache(maxBytes int64, head func(val []byte) int) *recordCache {
	if maxBytes <= 0 {
		return nil
	}
	c := &recordCache{head: head, seed: maphash.MakeSeed(), shardMax: max(maxBytes/cacheShards, 1)}
	for i := range c.shards {
		c.shards[i].entries = make(map[uint64]cacheEntry)
	}
	return c
}

// newSubkeyCache returns the sub-key CF's cache of at most maxBytes, or
// nil for 0: an eighth of them for runs of list elements (listRuns), the
// rest for records.
func newSubkeyCache(maxBytes int64) *recordCache {
	c := newRecordCache(maxBytes-maxBytes/8, nil)
	if c != nil {
		c.runs = newListRuns(maxBytes / 8)
	}
	return c
}

// locate hashes key and returns its shard.
func (c *recordCache) locate(key []byte) (uint64, *cacheShard) {
	h := maphash.Bytes(c.seed, key)
	return h, &c.shards[h&(cacheShards-1)]
}

// lookup returns key's entry in sh; sh.mu is held.
func (sh *cacheShard) lookup(h uint64, key []byte) (cacheEntry, bool) {
	e, ok := sh.entries[h]
	if !ok || !bytes.Equal(sh.key(e), key) {
		return cacheEntry{}, false
	}
	return e, true
}

// remove drops the entry under h, whatever its key; sh.mu is held. Its
// bytes in the arena become garbage.
func (sh *cacheShard) remove(h uint64) {
	if old, ok := sh.entries[h]; ok {
		sh.bytes -= slotBytes(old)
		delete(sh.entries, h)
	}
}

// appendEntry copies key and val to the arena and returns their offset.
// When the arena is full, the live entries move to a new one first, of at
// most limit bytes and with at least as much room as they take, so that
// each byte copied is paid for by a byte of new entries. The caller keeps
// the live entries, the new one included, within half of limit. false: no
// memory for a new arena, and the shard is emptied.
func (sh *cacheShard) appendEntry(key, val []byte, limit int64) (int, bool) {
	need := len(key) + len(val)
	if len(sh.arena)+need > cap(sh.arena) {
		size := int64(need)
		for _, e := range sh.entries {
			size += int64(e.klen) + int64(e.vlen)
		}
		fresh := mapArena(int(min(limit, 2*size+4096)))
		if fresh == nil {
			sh.empty()
			return 0, false
		}
		for h, e := range sh.entries {
			off := len(fresh)
			fresh = append(fresh, sh.arena[e.off:e.off+int(e.klen)+int(e.vlen)]...)
			e.off = off
			sh.entries[h] = e
		}
		unmapArena(sh.arena)
		sh.arena = fresh
	}
	off := len(sh.arena)
	sh.arena = append(append(sh.arena, key...), val...)
	return off, true
}

// empty drops every entry and unmaps the arena; sh.mu is held.
func (sh *cacheShard) empty() {
	clear(sh.entries)
	unmapArena(sh.arena)
	sh.arena = nil
	sh.bytes = 0
}

// get returns a copy of the cached value of key, whether it exists, and
// whether the cache knew; when it did not, epoch is what fill needs.
func (c *recordCache) get(key []byte) (val []byte, found, known bool, epoch uint64) {
	val, found, known, _, epoch = c.lookup(key, false)
	return val, found, known, epoch
}

// lookup is get; with head set, it also returns an entry that holds only
// its record's head (cut), which get counts as a miss.
func (c *recordCache) lookup(key []byte, head bool) (val []byte, found, known, cut bool, epoch uint64) {
	h, sh := c.locate(key)
	sh.mu.Lock()
	e, ok := sh.lookup(h, key)
	epoch = sh.epoch
	if ok && e.cut && !head {
		ok, e = false, cacheEntry{}
	}
	if ok && e.found {
		val = append(make([]byte, 0, e.vlen), sh.val(e)...)
	}
	sh.mu.Unlock()
	c.count(ok)
	return val, e.found, ok, e.cut, epoch
}

func (c *recordCache) count(hit bool) {
	if hit {
		c.hits.Add(1)
	} else {
		c.misses.Add(1)
	}
}

// peek calls fn with the cached value of key, under its shard's lock (fn
// must copy what it keeps), when the cache holds key as existing; it says
// whether it did. Unlike get it allocates nothing, for walks that copy
// many values into one buffer.
func (c *recordCache) peek(key []byte, fn func(val []byte)) bool {
	h, sh := c.locate(key)
	sh.mu.Lock()
	e, ok := sh.lookup(h, key)
	ok = ok && e.found && !e.cut
	if ok {
		fn(sh.val(e))
	}
	sh.mu.Unlock()
	c.count(ok)
	return ok
}

// fill caches what a read of RocksDB found for key, unless a write to the
// shard began since get returned epoch.
func (c *recordCache) fill(key, val []byte, found bool, epoch uint64) {
	h, sh := c.locate(key)
	sh.mu.Lock()
	if sh.epoch == epoch {
		if _, ok := sh.lookup(h, key); !ok {
			c.put(sh, h, key, val, found)
		}
	}
	sh.mu.Unlock()
}

// maxCachedValue is the longest value cached. A record of 1 KiB takes the
// room of a dozen small ones, and a load of such values over more keys
// than the cache holds (redis-benchmark's SET and GET -d 1024) hit it one
// time in four or five while it evicted every small key's entry, whose
// commands then missed; the copies, evictions and the arenas' page faults
// cost more than those hits saved. With the limit, every test of the
// issue's run was as fast or faster, the 1 KiB ones included
// (docs/OPERATIONS.md, "Metadata and sub-key caches"). RocksDB's block
// cache still holds such records, and the metadata cache their heads
// (recordCache.head).
const maxCachedValue = 512

// fits reports whether an entry of key and val may be cached: its value is
// at most maxCachedValue, one entry takes at most an eighth of its shard
// (for a small cache), and its key fits cacheEntry.klen.
func (c *recordCache) fits(key, val []byte) bool {
	return len(val) <= maxCachedValue && entryBytes(key, val) <= c.shardMax/8 && len(key) <= math.MaxUint16
}

// kept is what put caches of key's record val (found=false: key is
// absent): all of it, its head alone (cut), or nothing (ok false).
func (c *recordCache) kept(key, val []byte, found bool) (entry []byte, cut, ok bool) {
	if !found {
		return nil, false, c.fits(key, nil)
	}
	if c.fits(key, val) {
		return val, false, true
	}
	if c.head != nil {
		if n := c.head(val); n < len(val) && c.fits(key, val[:n]) {
			return val[:n], true, true
		}
	}
	return nil, false, false
}

// keeps reports whether put caches anything of val, which a write puts
// (found) or deletes: all of it, or its head.
func (c *recordCache) keeps(key, val []byte, found bool) bool {
	_, _, ok := c.kept(key, val, found)
	return ok
}

// put stores an entry; sh.mu is held. val is copied. A value that does not
// fit is cut to its head, or its entry removed.
func (c *recordCache) put(sh *cacheShard, h uint64, key, val []byte, found bool) {
	if sh.closed {
		return
	}
	val, cut, ok := c.kept(key, val, found)
	if !ok {
		sh.remove(h)
		return
	}
	if old, ok := sh.lookup(h, key); ok && len(val) <= int(old.vlen) {
		// An overwrite no longer than the value cached (a counter, a
		// fixed-size field) goes in place: no arena bytes, and at most
		// one map write instead of a delete and an insert.
		copy(sh.arena[old.off+int(old.klen):], val)
		if int(old.vlen) != len(val) || old.found != found || old.cut != cut {
			sh.bytes -= int64(old.vlen) - int64(len(val))
			old.vlen, old.found, old.cut = uint32(len(val)), found, cut
			sh.entries[h] = old
		}
		return
	}
	sh.remove(h)
	size := entryBytes(key, val)
	for sh.bytes+size > c.shardMax && len(sh.entries) > 0 {
		for k := range sh.entries { // map order is random enough
			sh.remove(k)
			c.evictions.Add(1)
			break
		}
	}
	off, ok := sh.appendEntry(key, val, 2*c.shardMax)
	if !ok {
		return
	}
	sh.entries[h] = cacheEntry{off: off, klen: uint16(len(key)), vlen: uint32(len(val)), found: found, cut: cut}
	sh.bytes += size
}

func entryBytes(key, val []byte) int64 {
	return int64(len(key)) + int64(len(val)) + cacheEntryOverhead
}

// forget empties the entry of key after a write of it that is not cached;
// the shard's epoch moves on.
func (c *recordCache) forget(key []byte) {
	h, sh := c.locate(key)
	sh.mu.Lock()
	sh.remove(h)
	sh.epoch++
	sh.mu.Unlock()
	c.runs.written(key) // after the entry: see listRuns.written
}

// written caches the value a write of key left (found=false: deleted).
func (c *recordCache) written(key, val []byte, found bool) {
	h, sh := c.locate(key)
	sh.mu.Lock()
	c.put(sh, h, key, val, found)
	sh.epoch++
	sh.mu.Unlock()
	c.runs.written(key) // after the entry: see listRuns.written
}

// clear empties every shard: a range of records was deleted (FLUSHDB), or a
// batch wrote more records than it tracks for the cache.
func (c *recordCache) clear() {
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		sh.empty()
		sh.epoch++
		sh.mu.Unlock()
	}
	c.runs.clear(false)
}

// close empties every shard and returns the arenas' memory for good: the
// store is closing, and a command still running caches nothing more.
func (c *recordCache) close() {
	if c == nil {
		return
	}
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		sh.empty()
		sh.closed = true
		sh.mu.Unlock()
	}
	c.runs.clear(true)
}

// CacheStats are a record cache's counters.
type CacheStats struct {
	Entries, Bytes, MaxBytes int64
	// ArenaBytes is what the arenas hold, garbage included: their resident
	// memory, outside the Go heap.
	ArenaBytes              int64
	Hits, Misses, Evictions uint64
	// Runs are the runs of list elements held (listRuns), whose bytes
	// Bytes and MaxBytes include; they live in the Go heap.
	Runs int64
}

func (c *recordCache) stats() CacheStats {
	if c == nil {
		return CacheStats{}
	}
	s := CacheStats{MaxBytes: c.shardMax * cacheShards,
		Hits: c.hits.Load(), Misses: c.misses.Load(), Evictions: c.evictions.Load()}
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		s.Entries += int64(len(sh.entries))
		s.Bytes += sh.bytes
		s.ArenaBytes += int64(len(sh.arena))
		sh.mu.Unlock()
	}
	if c.runs != nil {
		runs, bytes := c.runs.stats()
		s.Runs, s.Bytes = runs, s.Bytes+bytes
		s.MaxBytes += c.runs.shardMax * runShards
	}
	return s
}
