package store

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
)

// metaCache keeps the metadata records that commands read and write most
// recently, and the absence of keys found missing, in memory. Nearly every
// command starts by reading its key's metadata, and in RocksDB that read
// searches the memtables' skip lists, which grow with the write rate, before
// any SST file: under load it was the largest cost of a SET or a GET.
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
type metaCache struct {
	seed      maphash.Seed
	shards    [metaCacheShards]metaShard
	shardMax  int64 // bytes per shard
	hits      atomic.Uint64
	misses    atomic.Uint64
	evictions atomic.Uint64
}

// metaCacheShards spreads the lock; a power of two.
const metaCacheShards = 64

// metaEntryOverhead is about what an entry costs beyond its key and value
// bytes: the map slot, two slice headers and the allocations' rounding.
const metaEntryOverhead = 80

type metaShard struct {
	mu      sync.Mutex
	entries map[string]metaEntry
	bytes   int64
	epoch   uint64
}

type metaEntry struct {
	val   []byte // nil when absent
	found bool
}

// newMetaCache returns a cache of at most maxBytes, or nil for 0.
func newMetaCache(maxBytes int64) *metaCache {
	if maxBytes <= 0 {
		return nil
	}
	c := &metaCache{seed: maphash.MakeSeed(), shardMax: max(maxBytes/metaCacheShards, 1)}
	for i := range c.shards {
		c.shards[i].entries = make(map[string]metaEntry)
	}
	return c
}

func (c *metaCache) shard(key []byte) *metaShard {
	return &c.shards[maphash.Bytes(c.seed, key)&(metaCacheShards-1)]
}

// get returns a copy of the cached value of key, whether it exists, and
// whether the cache knew; when it did not, epoch is what fill needs.
func (c *metaCache) get(key []byte) (val []byte, found, known bool, epoch uint64) {
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
func (c *metaCache) fill(key, val []byte, found bool, epoch uint64) {
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
func (c *metaCache) fits(key, val []byte) bool {
	return entryBytes(key, val) <= c.shardMax/8
}

// put stores an entry; sh.mu is held. val is copied. An entry that does not
// fit is removed instead.
func (c *metaCache) put(sh *metaShard, key, val []byte, found bool) {
	if !c.fits(key, val) {
		if old, ok := sh.entries[string(key)]; ok {
			sh.bytes -= entryBytes(key, old.val)
			delete(sh.entries, string(key))
		}
		return
	}
	e := metaEntry{found: found}
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
				sh.bytes -= int64(len(k)) + int64(len(v.val)) + metaEntryOverhead
				c.evictions.Add(1)
				break
			}
		}
	}
}

func entryBytes(key, val []byte) int64 {
	return int64(len(key)) + int64(len(val)) + metaEntryOverhead
}

// forget empties the entry of key before a write of it; the shard's epoch
// moves on.
func (c *metaCache) forget(key []byte) {
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
func (c *metaCache) written(key, val []byte, found bool) {
	sh := c.shard(key)
	sh.mu.Lock()
	c.put(sh, key, val, found)
	sh.epoch++
	sh.mu.Unlock()
}

// clear empties every shard: a range of metadata was deleted (FLUSHDB).
func (c *metaCache) clear() {
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		clear(sh.entries)
		sh.bytes = 0
		sh.epoch++
		sh.mu.Unlock()
	}
}

// MetaCacheStats are the metadata cache's counters.
type MetaCacheStats struct {
	Entries, Bytes, MaxBytes int64
	Hits, Misses, Evictions  uint64
}

func (c *metaCache) stats() MetaCacheStats {
	if c == nil {
		return MetaCacheStats{}
	}
	s := MetaCacheStats{MaxBytes: c.shardMax * metaCacheShards,
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
