package store_test

import (
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/shaledb/shale/server/store"
	"github.com/shaledb/shale/server/store/storetest"
)

// benchRecords is how many metadata records openFilled writes.
const benchRecords = 100_000

// openFilled opens a store holding benchRecords metadata records,
// key:0 ... key:99999, with its metadata cache when cached is set.
func openFilled(b *testing.B, cached bool) *store.Store {
	cfg := storetest.Config(b)
	if !cached {
		cfg.Storage.MetadataCacheBytes = 0
	}
	st := storetest.Open(b, &cfg)
	for i := 0; i < benchRecords; i += 1000 {
		bt := st.NewBatch()
		for j := i; j < i+1000; j++ {
			bt.Put(store.CFMeta, []byte("key:"+strconv.Itoa(j)), []byte("value"))
		}
		if err := st.Write(bt); err != nil {
			b.Fatal(err)
		}
		bt.Release()
	}
	return st
}

// BenchmarkGet reads one metadata record of 100,000 from RocksDB, as every
// command's load does when the cache misses: the floor under a command's
// cost.
func BenchmarkGet(b *testing.B) { benchGets(b, false, "key:", true) }

// benchGets reads, round and round, the records of openFilled(b, cached)
// named prefix + 0 ... 99999 in a scattered order; found says whether they
// exist. With the cache, every key is read once before the timing starts.
func benchGets(b *testing.B, cached bool, prefix string, found bool) {
	st := openFilled(b, cached)
	const n = benchRecords
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = []byte(prefix + strconv.Itoa((i*7919)%n))
		if cached {
			if _, ok, err := st.Get(store.CFMeta, keys[i]); err != nil || ok != found {
				b.Fatal(ok, err)
			}
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		if _, ok, err := st.Get(store.CFMeta, keys[i%n]); err != nil || ok != found {
			b.Fatal(ok, err)
		}
		i++
	}
}

// BenchmarkWritePerCommand and BenchmarkWriteGrouped write the same 16
// records, as 16 batches or as one: what pipeline groups save.
func BenchmarkWritePerCommand(b *testing.B) { benchWrites(b, false) }
func BenchmarkWriteGrouped(b *testing.B)    { benchWrites(b, true) }

func benchWrites(b *testing.B, grouped bool) {
	st := storetest.Open(b, nil)
	val := []byte("value")
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if grouped {
			g := st.NewGroup()
			for range 16 {
				key := []byte("key:" + strconv.Itoa(i%100_000))
				i++
				if !g.TryLock(store.LockKey{Key: key}) {
					continue // two keys on one stripe: rare, and not what is measured
				}
				_ = g.Add(func(bt *store.Batch) error { bt.Put(store.CFMeta, key, val); return nil })
			}
			if err := g.Commit(); err != nil {
				b.Fatal(err)
			}
			continue
		}
		for range 16 {
			bt := st.NewBatch()
			bt.Put(store.CFMeta, []byte("key:"+strconv.Itoa(i%100_000)), val)
			i++
			if err := st.Write(bt); err != nil {
				b.Fatal(err)
			}
			bt.Release()
		}
	}
}

// BenchmarkGetMissing reads keys that are not there, as SET, HSET and SADD
// of a new key or member do.
func BenchmarkGetMissing(b *testing.B) { benchGets(b, false, "nokey:", false) }

// BenchmarkGetMetaCached is BenchmarkGet through the metadata cache, once
// every key has been read: what a command's metadata read costs when the
// cache holds its key.
func BenchmarkGetMetaCached(b *testing.B) { benchGets(b, true, "key:", true) }

// BenchmarkWriteConcurrent writes one-record batches from 50 goroutines per
// CPU, as 50 clients do: the write queue joins them.
func BenchmarkWriteConcurrent(b *testing.B) {
	st := storetest.Open(b, nil)
	val := []byte("value")
	var next atomic.Int64
	b.ReportAllocs()
	b.SetParallelism(50)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			key := []byte("key:" + strconv.Itoa(int(next.Add(1)%100_000)))
			bt := st.NewBatch()
			bt.Put(store.CFMeta, key, val)
			err := st.Write(bt)
			bt.Release()
			if err != nil {
				b.Error(err)
				return
			}
		}
	})
}
