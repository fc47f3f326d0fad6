package server

import (
	"runtime/metrics"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/shaledb/shale/server/store"
)

// The process's memory taken apart for INFO memory and /metrics, so that
// an operator can tell which knob a resident set answers to: the Go heap
// (the record caches' maps, client buffers) and the collector's headroom
// over it, the Go runtime's own, the record caches' arenas, RocksDB's block
// cache, memtables and table readers, and the rest (rssOther).

// goMemory is the Go runtime's memory, read from runtime/metrics, whose
// /memory/classes partition everything the runtime mapped.
type goMemory struct {
	heapInuse    uint64 // spans holding objects: the live ones, dead ones not yet swept, their spare slots (HeapInuse)
	heapFree     uint64 // free spans kept, not returned to the operating system: resident headroom
	heapReleased uint64 // free spans returned to the operating system: mapped, not resident
	heapLive     uint64 // the heap the last collection marked live
	heapGoal     uint64 // the heap size at which the collector aims to finish its cycle (GOGC, GOMEMLIMIT)
	stacks       uint64 // goroutine and OS-thread stacks
	runtime      uint64 // the runtime's own structures: span and GC metadata, profiling buckets, the rest
	total        uint64 // everything mapped: every class above but heapLive and heapGoal (Sys)
}

// resident is what of the runtime's memory can be resident: all it mapped
// but the spans it returned.
func (g goMemory) resident() uint64 { return g.total - g.heapReleased }

func readGoMemory() goMemory {
	samples := []metrics.Sample{
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
		{Name: "/memory/classes/heap/stacks:bytes"},
		{Name: "/memory/classes/os-stacks:bytes"},
		{Name: "/memory/classes/total:bytes"},
		{Name: "/gc/heap/live:bytes"},
		{Name: "/gc/heap/goal:bytes"},
	}
	metrics.Read(samples)
	var g goMemory
	for _, s := range samples {
		if s.Value.Kind() != metrics.KindUint64 {
			continue // a name this Go release does not know: its figure stays 0
		}
		v := s.Value.Uint64()
		switch s.Name {
		case "/memory/classes/heap/objects:bytes", "/memory/classes/heap/unused:bytes":
			g.heapInuse += v
		case "/memory/classes/heap/free:bytes":
			g.heapFree = v
		case "/memory/classes/heap/released:bytes":
			g.heapReleased = v
		case "/memory/classes/heap/stacks:bytes", "/memory/classes/os-stacks:bytes":
			g.stacks += v
		case "/memory/classes/total:bytes":
			g.total = v
		case "/gc/heap/live:bytes":
			g.heapLive = v
		case "/gc/heap/goal:bytes":
			g.heapGoal = v
		}
	}
	g.runtime = g.total - g.heapInuse - g.heapFree - g.heapReleased - g.stacks
	return g
}

// rssOther is the resident set no other part accounts for: the C
// allocator's free memory that is still resident (malloc_free), C
// allocations RocksDB does not count (iterators, flush and compaction
// buffers, the WAL writer), the binary's code and data. It is signed: the
// parts are read one after the other, not at once, and RocksDB counts a
// memtable's whole arena block, and the block cache the allocator's
// estimate of each block, before every page of it is touched, so on a
// quiet small server the parts may add up to more than the resident set.
func rssOther(rss uint64, g goMemory, arenas uint64, r store.MemoryStats) int64 {
	return int64(rss) - int64(g.resident()+arenas+r.BlockCache+r.Memtables+r.TableReaders)
}

// memtableField is INFO memory's name for a column family's memtables.
func memtableField(cf store.CF) string {
	return "rocksdb_memtables_" + cf.String()
}

// The /metrics twins of INFO memory's parts (metrics.go has the older
// used_memory ones).
var (
	mResident    = desc("resident_memory_bytes", "The resident set by part, adding up to it: go_heap (in use), go_heap_free, go_stacks, go_runtime, record_cache_arenas, block_cache, memtables, table_readers, and other (INFO memory's rss_other; may be negative).", "part")
	mCachePinned = desc("rocksdb_block_cache_pinned_bytes", "Bytes of the block caches in use by readers or pinned, which eviction cannot free.")
	mMalloc      = desc("malloc_bytes", "The C allocator's (RocksDB's) memory: allocated, and free but kept in its arenas.", "state")
	mRecordCache = desc("record_cache_bytes", "Bytes of the metadata and sub-key record caches' live entries; each cache's arena may take up to twice its bound (record_cache_max_bytes), outside the Go heap.", "cache")
	mRecordMax   = desc("record_cache_max_bytes", "The record caches' bounds (storage.metadata_cache_bytes, storage.subkey_cache_bytes).", "cache")
)

var memoryDescs = []*prometheus.Desc{mResident, mCachePinned, mMalloc, mRecordCache, mRecordMax}

// collectMemory sends memoryDescs' metrics for m.
func collectMemory(s *Server, m memoryFigures, ch chan<- prometheus.Metric) {
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	if m.rssOK {
		for _, p := range []struct {
			part  string
			bytes float64
		}{
			{"go_heap", float64(m.goMem.heapInuse)},
			{"go_heap_free", float64(m.goMem.heapFree)},
			{"go_stacks", float64(m.goMem.stacks)},
			{"go_runtime", float64(m.goMem.runtime)},
			{"record_cache_arenas", float64(m.arenas)},
			{"block_cache", float64(m.rocks.BlockCache)},
			{"memtables", float64(m.rocks.Memtables)},
			{"table_readers", float64(m.rocks.TableReaders)},
			{"other", float64(m.other)},
		} {
			gauge(mResident, p.bytes, p.part)
		}
	}
	gauge(mCachePinned, float64(m.rocks.BlockCachePinned))
	gauge(mMalloc, float64(m.malloc.Allocated), "allocated")
	gauge(mMalloc, float64(m.malloc.Free), "free")
	for _, c := range recordCaches {
		cs := s.st.CacheStats(c.cf)
		gauge(mRecordCache, float64(cs.Bytes), c.name)
		gauge(mRecordMax, float64(cs.MaxBytes), c.name)
	}
}
