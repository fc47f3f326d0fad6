package store_test

import (
	"slices"
	"strconv"
	"testing"

	"github.com/shaledb/shale/conf"
	"github.com/shaledb/shale/server/store"
	"github.com/shaledb/shale/server/store/storetest"
)

// TestStats: the figures name every column family, in handle order, and
// the memory figure counts a column family's own block cache, also one that
// only [rocksdb.score] gives.
func TestStats(t *testing.T) {
	cfg := storetest.Config(t)
	own := conf.ByteSize(1 << 20)
	cfg.RocksDB.Score.BlockCacheBytes = &own
	st := storetest.Open(t, &cfg)
	key := []byte("\x00\x00\x00\x00\x00\x00\x00\x01member")
	writeBatch(t, st, func(b *store.Batch) { b.Put(store.CFScore, key, nil) })
	if err := st.Flush(); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := st.GetUncached(store.CFScore, key); !ok || err != nil {
		t.Fatalf("GetUncached = %v, %v", ok, err) // the read loads the file's index into the cache
	}

	// Nothing runs in the store now, so the caches hold still.
	db := st.DBStats()
	if db.BlockCacheCapacity != uint64(cfg.RocksDB.BlockCacheBytes) {
		t.Errorf("shared block cache capacity %d, want %d", db.BlockCacheCapacity, cfg.RocksDB.BlockCacheBytes)
	}
	scoreCache, _ := strconv.ParseUint(st.Property(store.CFScore, "rocksdb.block-cache-usage"), 10, 64)
	if got := st.MemoryStats().BlockCache; scoreCache == 0 || got != db.BlockCacheUsage+scoreCache {
		t.Errorf("MemoryStats().BlockCache = %d, want the shared cache's %d plus the score CF's own %d (> 0)",
			got, db.BlockCacheUsage, scoreCache)
	}
	mem := st.MemoryStats()
	if want := uint64(cfg.RocksDB.BlockCacheBytes + own); mem.BlockCacheCapacity != want {
		t.Errorf("MemoryStats().BlockCacheCapacity = %d, want the shared and the score CF's caches' %d", mem.BlockCacheCapacity, want)
	}
	var memtables uint64
	for i, m := range mem.MemtablesByCF {
		if m.CF != store.CF(i) {
			t.Fatalf("MemtablesByCF[%d] is %s", i, m.CF)
		}
		memtables += m.Bytes
	}
	if len(mem.MemtablesByCF) != len(store.AllCFs()) || memtables != mem.Memtables || memtables == 0 {
		t.Errorf("MemtablesByCF %v sum to %d, want every column family, summing to Memtables %d (> 0: an empty memtable has its arena)",
			mem.MemtablesByCF, memtables, mem.Memtables)
	}
	if m := store.ReadMallocStats(); m.Allocated < mem.BlockCache+mem.Memtables || m.FromOS != m.Allocated+m.Free {
		t.Errorf("ReadMallocStats() = %+v: want at least the block caches and memtables (%d) allocated, and FromOS = Allocated + Free",
			m, mem.BlockCache+mem.Memtables)
	}

	stats := st.CFStats()
	if len(stats) != len(store.AllCFs()) {
		t.Fatalf("CFStats has %d column families, want %d", len(stats), len(store.AllCFs()))
	}
	for i, s := range stats {
		if s.CF != store.CF(i) {
			t.Fatalf("CFStats()[%d] is %s", i, s.CF)
		}
	}
	if s := stats[store.CFScore]; s.Level0Files != 1 || s.SSTBytes == 0 || s.EstimatedKeys != 1 {
		t.Errorf("score CF: %+v, want one level-0 file holding one record", s)
	}

	var dropped []store.CF
	for _, d := range st.GCStats().Dropped {
		dropped = append(dropped, d.CF)
	}
	if want := []store.CF{store.CFSubkey, store.CFScore, store.CFBookkeeping}; !slices.Equal(dropped, want) {
		t.Errorf("GCStats().Dropped is keyed by %v, want %v", dropped, want)
	}
}
