package store

import (
	"hash/maphash"
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
//   - a write empties its keys' entries before its batch goes to RocksDB,
//     and sets them to the written values after the batch is written;
//   - both steps bump the shard's epoch;
//   - a read that missed fills the entry only if the shard's epoch is the
//     one it saw before reading RocksDB, and the entry is still empty.
//
// A read racing with a write therefore either finds the entry empty and
// reads RocksDB, or leaves the entry alone; a failed write leaves its keys
// uncached.
type recordCache struct {
	seed      maphash.Seed
	shards    [cacheShards]cacheShard
	shardMax  int64 // bytes per shard
	hits      atomic.Uint64
	misses    atomic.Uint64
	evictions atomic.Uint64
}

// cacheShards spreads the lock; a power of two.
const cacheShards = 64

// cacheEntryOverhead is about what an entry costs beyond its key and value
// bytes: the map slot, two slice headers and the allocations' rounding.
const cacheEntryOverhead = 80

type cacheShard struct {
	mu      sync.Mutex
	entries map[string]cacheEntry
	bytes   int64
	epoch   uint64
}

type cacheEntry struct {
	val   []byte // nil when absent
	found bool
}

// newRecordCache returns a cache of at most maxBytes, or nil for 0.
func newRecordCache(maxBytes int64) *recordCache {
	if maxBytes <= 0 {
		return nil
	}
	c := &recordCache{seed: maphash.MakeSeed(), shardMax: max(maxBytes/cacheShards, 1)}
	for i := range c.shards {
		c.shards[i].entries = make(map[string]cacheEntry)
	}
	return c
}

func (c *recordCache) shard(key []byte) *cacheShard {
	return &c.shards[maphash.Bytes(c.seed, key)&(cacheShards-1)]
}

// get returns a copy of the cached value of key, whether it exists, and
// whether the cache knew; when it did not, epoch is what fill needs.
func (c *recordCache) get(key []byte) (val []byte, found, known bool, epoch uint64) {
	sh := c.shard(key)
	sh.mu.Lock()
	e, ok := sh.entries[string(key)]
	epoch = sh.epoch
	if ok && e.found {
		val = make([]byte, len(e.val))
		copy(val, e.val)
	}
	sh.mu.Unlock()
	if ok {
		c.hits.Add(1)
	} else {
		c.misses.Add(1)
	}
	return val, e.found, ok, epoch
}

// fill caches what a read of RocksDB found for key, unless a write to the
// shard began since get returned epoch.
func (c *recordCache) fill(key, val []byte, found bool, epoch uint64) {
	sh := c.shard(key)
	sh.mu.Lock()
	if sh.epoch == epoch {
		if _, ok := sh.entries[string(key)]; !ok {
			c.put(sh, key, val, found)
		}
	}
	sh.mu.Unlock()
}

// fits reports whether an entry of key and val may be cached: one entry
// takes at most an eighth of its shard, so that a big string value neither
// breaks the bound nor empties a shard.
func (c *recordCache) fits(key, val []byte) bool {
	return entryBytes(key, val) <= c.shardMax/8
}

// put stores an entry; sh.mu is held. val is copied. An entry that does not
// fit is removed instead.
func (c *recordCache) put(sh *cacheShard, key, val []byte, found bool) {
	if !c.fits(key, val) {
		if old, ok := sh.entries[string(key)]; ok {
			sh.bytes -= entryBytes(key, old.val)
			delete(sh.entries, string(key))
		}
		return
	}
	e := cacheEntry{found: found}
	if found {
		e.val = append(make([]byte, 0, len(val)), val...)
	}
	if old, ok := sh.entries[string(key)]; ok {
		sh.bytes -= entryBytes(key, old.val)
	}
	sh.entries[string(key)] = e
	sh.bytes += entryBytes(key, e.val)
	for sh.bytes > c.shardMax && len(sh.entries) > 1 {
		for k, v := range sh.entries { // map order is random enough
			if k != string(key) {
				delete(sh.entries, k)
				sh.bytes -= int64(len(k)) + int64(len(v.val)) + cacheEntryOverhead
				c.evictions.Add(1)
				break
			}
		}
	}
}

func entryBytes(key, val []byte) int64 {
	return int64(len(key)) + int64(len(val)) + cacheEntryOverhead
}

// forget empties the entry of key before a write of it; the shard's epoch
// moves on.
func (c *recordCache) forget(key []byte) {
	sh := c.shard(key)
	sh.mu.Lock()
	if old, ok := sh.entries[string(key)]; ok {
		sh.bytes -= entryBytes(key, old.val)
		delete(sh.entries, string(key))
	}
	sh.epoch++
	sh.mu.Unlock()
}

// written caches the value a write of key left (found=false: deleted).
func (c *recordCache) written(key, val []byte, found bool) {
	sh := c.shard(key)
	sh.mu.Lock()
	c.put(sh, key, val, found)
	sh.epoch++
	sh.mu.Unlock()
}

// clear empties every shard: a range of records was deleted (FLUSHDB), or a
// batch wrote more records than it tracks for the cache.
func (c *recordCache) clear() {
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		clear(sh.entries)
		sh.bytes = 0
		sh.epoch++
		sh.mu.Unlock()
	}
}

// CacheStats are a record cache's counters.
type CacheStats struct {
	Entries, Bytes, MaxBytes int64
	Hits, Misses, Evictions  uint64
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
		sh.mu.Unlock()
	}
	return s
}
