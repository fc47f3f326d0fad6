package store

import (
	"strconv"
	"strings"

	"github.com/linxGnu/grocksdb"
)

// The figures INFO and /metrics report about RocksDB, as numbers: this file
// is the one place that knows which RocksDB property holds each, and which
// block cache a column family uses.

// MemoryStats is the memory RocksDB holds outside the Go heap, by its own
// accounting: the rest of what it allocates (iterators, flush and
// compaction buffers) shows only in MallocStats.
type MemoryStats struct {
	BlockCache         uint64 // bytes in use in the shared block cache and the column families' own ones
	BlockCacheCapacity uint64 // the sizes of those caches together
	BlockCachePinned   uint64 // bytes of BlockCache in use by readers or pinned (level 0's index and filter blocks): not evictable
	Memtables          uint64 // bytes of every column family's memtables: MemtablesByCF's sum
	MemtablesByCF      []CFBytes
	TableReaders       uint64 // bytes of indexes and filters held outside the block caches
}

// CFBytes is a number of bytes one column family holds.
type CFBytes struct {
	CF    CF
	Bytes uint64
}

// MemoryStats reads RocksDB's memory use now. A column family's memtables
// are its active one, the full ones waiting to flush, and flushed ones
// still pinned by a reader (rocksdb.size-all-mem-tables): all of them hold
// memory.
func (s *Store) MemoryStats() MemoryStats {
	var m MemoryStats
	caches := s.opts.ownCaches[:]
	if c := s.opts.sharedCache; c != nil {
		caches = append([]*grocksdb.Cache{c}, caches...)
	}
	for _, c := range caches {
		if c != nil {
			m.BlockCache += c.GetUsage()
			m.BlockCacheCapacity += c.GetCapacity()
			m.BlockCachePinned += c.GetPinnedUsage()
		}
	}
	for cf := range numCFs {
		b := s.uintProperty(cf, "rocksdb.size-all-mem-tables")
		m.MemtablesByCF = append(m.MemtablesByCF, CFBytes{cf, b})
		m.Memtables += b
		m.TableReaders += s.uintProperty(cf, "rocksdb.estimate-table-readers-mem")
	}
	return m
}

// DBStats are the database-wide figures.
type DBStats struct {
	BlockCacheUsage    uint64  // bytes in use in the shared block cache; 0 without one
	BlockCacheCapacity uint64  // the shared block cache's size (rocksdb.block_cache_bytes)
	RunningCompactions uint64  // compactions running now
	RunningFlushes     uint64  // flushes running now
	DelayedWriteRate   uint64  // bytes/s RocksDB allows while it slows writes down; 0 when it does not
	WriteStopped       bool    // RocksDB stops writes now
	StallSeconds       float64 // time writes spent slowed down or stopped since open (WriteStallSeconds)
}

// DBStats reads the database-wide figures now.
func (s *Store) DBStats() DBStats {
	d := DBStats{
		RunningCompactions: s.uintProperty(CFDefault, "rocksdb.num-running-compactions"),
		RunningFlushes:     s.uintProperty(CFDefault, "rocksdb.num-running-flushes"),
		DelayedWriteRate:   s.uintProperty(CFDefault, "rocksdb.actual-delayed-write-rate"),
		WriteStopped:       s.uintProperty(CFDefault, "rocksdb.is-write-stopped") != 0,
		StallSeconds:       s.WriteStallSeconds(),
	}
	if c := s.opts.sharedCache; c != nil {
		d.BlockCacheUsage, d.BlockCacheCapacity = c.GetUsage(), c.GetCapacity()
	}
	return d
}

// CFStats are one column family's figures.
type CFStats struct {
	CF                     CF
	EstimatedKeys          uint64 // RocksDB's estimate of the records, deleted and overwritten ones included
	SSTBytes               uint64 // size of the live SST files
	MemtableBytes          uint64 // size of the memtables
	PendingCompactionBytes uint64 // bytes compaction must rewrite to settle
	Level0Files            uint64 // files at level 0
	Stalls                 WriteStalls
}

// CFStats reads every column family's figures now, in handle order.
func (s *Store) CFStats() []CFStats {
	out := make([]CFStats, numCFs)
	for cf := range numCFs {
		out[cf] = CFStats{
			CF:                     cf,
			EstimatedKeys:          s.uintProperty(cf, "rocksdb.estimate-num-keys"),
			SSTBytes:               s.SSTBytes(cf),
			MemtableBytes:          s.uintProperty(cf, "rocksdb.cur-size-all-mem-tables"),
			PendingCompactionBytes: s.uintProperty(cf, "rocksdb.estimate-pending-compaction-bytes"),
			Level0Files:            s.uintProperty(cf, "rocksdb.num-files-at-level0"),
			Stalls:                 s.WriteStalls(cf),
		}
	}
	return out
}

// uintProperty reads an integer property of cf; 0 when RocksDB does not
// have it. It parses the text form: GetIntPropertyCF knows only RocksDB's
// "int properties", and num-files-at-level<N> is not one.
func (s *Store) uintProperty(cf CF, name string) uint64 {
	n, _ := strconv.ParseUint(strings.TrimSpace(s.Property(cf, name)), 10, 64)
	return n
}

// GCStats are the compaction filters' counters since open.
type GCStats struct {
	Dropped   []DroppedRecords // one per filtered column family, in handle order
	CacheHits uint64           // dead-owner verdicts served from the filters' cache
	Errors    uint64           // owner lookups that failed; their records were kept
}

// DroppedRecords counts the records a column family's filter dropped.
type DroppedRecords struct {
	CF      CF
	Records uint64
}

// GCStats returns the compaction filters' counters.
func (s *Store) GCStats() GCStats {
	st := s.gc.Stats()
	g := GCStats{CacheHits: st.CacheHits, Errors: st.Errors}
	for _, f := range filteredCFs {
		g.Dropped = append(g.Dropped, DroppedRecords{f.cf, st.Dropped[f.kind]})
	}
	return g
}
