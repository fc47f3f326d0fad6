package store_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shaledb/shale/server/store"
	"github.com/shaledb/shale/server/store/storetest"
	"github.com/shaledb/shale/subkey"
)

// TestCacheNeverStale races unlocked readers of the record caches with
// writers and with evictions (1024 keys share a cache room for about 500),
// and with values too big to cache (every eighth key): once a write is
// acknowledged, no read may return an older value. Both cached column
// families are raced, through Get and through MultiGet.
func TestCacheNeverStale(t *testing.T) {
	multiGet := func(st *store.Store, cf store.CF, key []byte) ([]byte, bool, error) {
		vals, found, err := st.MultiGet(cf, [][]byte{[]byte("absent"), key})
		if err != nil {
			return nil, false, err
		}
		return vals[1], found[1], nil
	}
	for _, tc := range []struct {
		name string
		cf   store.CF
		read func(st *store.Store, cf store.CF, key []byte) ([]byte, bool, error)
	}{
		{"metadata", store.CFMeta, (*store.Store).Get},
		{"subkey", store.CFSubkey, (*store.Store).Get},
		{"subkey multiget", store.CFSubkey, multiGet},
	} {
		t.Run(tc.name, func(t *testing.T) { raceCache(t, tc.cf, tc.read) })
	}
}

func raceCache(t *testing.T, cf store.CF, read func(*store.Store, store.CF, []byte) ([]byte, bool, error)) {
	cfg := storetest.Config(t)
	cfg.Storage.MetadataCacheBytes = 56 << 10
	cfg.Storage.SubkeyCacheBytes = 56 << 10
	st := storetest.Open(t, &cfg)
	const keys, writerCount, versions = 1024, 16, 60
	var acked [keys]atomic.Uint64
	key := func(i int) []byte { return fmt.Appendf(nil, "meta-%d", i) }
	padding := make([]byte, 200)

	var writers, readers sync.WaitGroup
	stop := make(chan struct{})
	for w := range writerCount {
		writers.Add(1)
		go func() { // writes the keys i with i % writerCount == w
			defer writers.Done()
			for v := uint64(1); v <= versions; v++ {
				for i := w; i < keys; i += writerCount {
					b := st.NewBatch()
					val := binary.BigEndian.AppendUint64(nil, v)
					if i%8 == 0 {
						val = append(val, padding...) // too big to cache
					}
					b.Put(cf, key(i), val)
					err := st.Write(b)
					b.Release()
					if err != nil {
						t.Error(err)
						return
					}
					acked[i].Store(v)
				}
			}
		}()
	}
	for r := range 4 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for n := r; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				i := n % keys
				floor := acked[i].Load()
				val, found, err := read(st, cf, key(i))
				if !notOlder(t, i, floor, val, found, err) {
					return
				}
			}
		}()
	}
	writers.Wait()
	close(stop)
	readers.Wait()
	// The joined writes all landed, in order: RocksDB itself has the last
	// version of every key.
	for i := range keys {
		val, found, err := st.GetUncached(cf, key(i))
		if err != nil || !found || binary.BigEndian.Uint64(val) != versions {
			t.Fatalf("key %d in RocksDB: %x %v %v, want version %d", i, val, found, err, versions)
		}
	}
	if s := st.CacheStats(cf); s.Hits == 0 || s.Evictions == 0 {
		t.Fatalf("stats %+v: the race did not use the cache", s)
	}
}

// TestMetaCacheGroupRollback: a grouped command that fails leaves nothing of
// its metadata writes in the cache, and a FLUSHDB-style range deletion
// empties it.
func TestCacheGroupRollback(t *testing.T) {
	st := storetest.Open(t, nil)
	g := st.NewGroup()
	if !g.TryLock(store.LockKey{DB: 0, Key: []byte("kept")}, store.LockKey{DB: 0, Key: []byte("undone")}) {
		t.Fatal("TryLock failed on an idle store")
	}
	if err := g.Add(func(b *store.Batch) error { b.Put(store.CFMeta, []byte("kept"), []byte("1")); return nil }); err != nil {
		t.Fatal(err)
	}
	failed := errors.New("command failed")
	if err := g.Add(func(b *store.Batch) error { b.Put(store.CFMeta, []byte("undone"), []byte("2")); return failed }); err != failed {
		t.Fatalf("Add = %v, want the command's error", err)
	}
	if err := g.Commit(); err != nil {
		t.Fatal(err)
	}
	if v, found, err := st.Get(store.CFMeta, []byte("kept")); err != nil || !found || string(v) != "1" {
		t.Fatalf("kept = %q %v %v", v, found, err)
	}
	if _, found, err := st.Get(store.CFMeta, []byte("undone")); err != nil || found {
		t.Fatalf("undone found %v (%v): the rolled-back write reached the cache", found, err)
	}

	b := st.NewBatch()
	b.DeleteRange(store.CFMeta, []byte("a"), []byte("z"))
	if err := st.Write(b); err != nil {
		t.Fatal(err)
	}
	b.Release()
	if _, found, err := st.Get(store.CFMeta, []byte("kept")); err != nil || found {
		t.Fatalf("kept still found (%v) after its range was deleted", err)
	}
}

// TestCacheBigBatch: batches that write more records than they track for
// the cache (COPY of a big hash) leave no old value cached either, with
// readers racing them.
func TestCacheBigBatch(t *testing.T) {
	st := storetest.Open(t, nil)
	const n, versions = 5000, 12 // more records than a batch tracks
	key := func(i int) []byte { return fmt.Appendf(nil, "sub-%d", i) }
	var acked atomic.Uint64
	stop := make(chan struct{})
	var readers sync.WaitGroup
	for r := range 2 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for i := r; ; i = (i + 7) % n {
				select {
				case <-stop:
					return
				default:
				}
				floor := acked.Load()
				v, found, err := st.Get(store.CFSubkey, key(i))
				if !notOlder(t, i, floor, v, found, err) {
					return
				}
			}
		}()
	}
	for v := uint64(1); v <= versions; v++ {
		b := st.NewBatch()
		for i := range n {
			b.Put(store.CFSubkey, key(i), binary.BigEndian.AppendUint64(nil, v))
		}
		err := st.Write(b)
		b.Release()
		if err != nil {
			t.Fatal(err)
		}
		acked.Store(v)
		for i := range n { // let the cache hold version v
			if _, _, err := st.Get(store.CFSubkey, key(i)); err != nil {
				t.Fatal(err)
			}
		}
	}
	close(stop)
	readers.Wait()
	if s := st.CacheStats(store.CFSubkey); s.Hits == 0 {
		t.Fatalf("stats %+v: the reads did not use the cache", s)
	}
}

// notOlder checks a read of key i whose value starts with its version
// (big-endian): it must not be older than floor, the version acknowledged
// before the read began. It reports a failure and returns false.
func notOlder(t *testing.T, i int, floor uint64, val []byte, found bool, err error) bool {
	t.Helper()
	if err != nil {
		t.Error(err)
		return false
	}
	var got uint64
	if found {
		got = binary.BigEndian.Uint64(val)
	}
	if got < floor {
		t.Errorf("key %d: read version %d after version %d was acknowledged", i, got, floor)
		return false
	}
	return true
}

// TestCacheBigBatchKeepsOthers: a batch past the records whose values the
// cache takes leaves the other keys' entries cached, and no old value of
// its own keys, whether they belong to a key that existed (their entries
// are dropped) or to one the batch creates (not noted at all).
func TestCacheBigBatchKeepsOthers(t *testing.T) {
	st := storetest.Open(t, nil)
	get := func(key []byte) string {
		t.Helper()
		v, found, err := st.Get(store.CFSubkey, key)
		if err != nil || !found {
			t.Fatalf("%q: found %v, %v", key, found, err)
		}
		return string(v)
	}
	other := func(i int) []byte { return subkey.AppendKey(nil, 1, fmt.Appendf(nil, "other-%d", i)) }
	old := func(i int) []byte { return subkey.AppendKey(nil, 2, fmt.Appendf(nil, "old-%d", i)) }
	const others, n = 100, 6000 // n: past the records a batch caches
	writeBatch(t, st, func(b *store.Batch) {
		for i := range others {
			b.Put(store.CFSubkey, other(i), []byte("o"))
		}
		for i := range n {
			b.Put(store.CFSubkey, old(i), []byte("v1"))
		}
	})
	for i := range n { // cache the old key's records, the last ones included
		get(old(i))
	}
	for i := range others {
		get(other(i))
	}

	// An existing key: its records past the cached ones are dropped from
	// the cache, the others' entries stay.
	writeBatch(t, st, func(b *store.Batch) {
		for i := range n {
			b.Put(store.CFSubkey, old(i), []byte("v2"))
		}
	})
	before := st.CacheStats(store.CFSubkey)
	for i := range others {
		get(other(i))
	}
	if after := st.CacheStats(store.CFSubkey); after.Hits-before.Hits != others {
		t.Fatalf("%d of %d other keys still cached after a big batch", after.Hits-before.Hits, others)
	}
	for i := range n {
		if v := get(old(i)); v != "v2" {
			t.Fatalf("old-%d = %q after it was written v2", i, v)
		}
	}

	// A new key whose record 10 is written again past the cached records:
	// the first value must not be cached.
	const fresh = 3
	rec := func(i int) []byte { return subkey.AppendKey(nil, fresh, fmt.Appendf(nil, "new-%d", i)) }
	writeBatch(t, st, func(b *store.Batch) {
		b.Created(fresh)
		for i := range n {
			b.Put(store.CFSubkey, rec(i), []byte("first"))
		}
		b.Put(store.CFSubkey, rec(10), []byte("last"))
	})
	if v := get(rec(10)); v != "last" {
		t.Fatalf("new-10 = %q, want the batch's last value", v)
	}
	before = st.CacheStats(store.CFSubkey)
	for i := range others {
		get(other(i))
	}
	if after := st.CacheStats(store.CFSubkey); after.Hits-before.Hits != others {
		t.Fatalf("%d of %d other keys still cached after a batch that created a big key", after.Hits-before.Hits, others)
	}
}

// TestCacheBigGroupRollback: a grouped command that fails after a big one
// takes the records it noted for the cache out with its writes.
func TestCacheBigGroupRollback(t *testing.T) {
	st := storetest.Open(t, nil)
	rec := func(i int) []byte { return subkey.AppendKey(nil, 7, fmt.Appendf(nil, "f-%d", i)) }
	g := st.NewGroup()
	if !g.TryLock(store.LockKey{DB: 0, Key: []byte("h")}) {
		t.Fatal("TryLock failed on an idle store")
	}
	const n = 6000
	if err := g.Add(func(b *store.Batch) error {
		for i := range n {
			b.Put(store.CFSubkey, rec(i), []byte("kept"))
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	failed := errors.New("command failed")
	if err := g.Add(func(b *store.Batch) error {
		for i := range 2 * n {
			b.Put(store.CFSubkey, rec(i), []byte("undone, with a longer value"))
		}
		return failed
	}); err != failed {
		t.Fatalf("Add = %v, want the command's error", err)
	}
	if err := g.Commit(); err != nil {
		t.Fatal(err)
	}
	before := st.CacheStats(store.CFSubkey)
	for i := range n {
		if v, found, err := st.Get(store.CFSubkey, rec(i)); err != nil || !found || string(v) != "kept" {
			t.Fatalf("f-%d = %q %v %v", i, v, found, err)
		}
	}
	// The first command's records whose values the cache took are still
	// there: the failed command's records were not dropped from it.
	if hits := st.CacheStats(store.CFSubkey).Hits - before.Hits; hits < 4096 {
		t.Fatalf("%d hits reading the kept records, want at least 4096", hits)
	}
}

// TestListRunsNeverStale races readers of lists' elements (PeekList, which
// fills and serves runs of them) with writers that overwrite the elements
// one by one with rising versions: once a write is acknowledged, no read
// may return an older version of its element, from a run or otherwise.
func TestListRunsNeverStale(t *testing.T) {
	cfg := storetest.Config(t)
	cfg.Storage.SubkeyCacheBytes = 1 << 20
	st := storetest.Open(t, &cfg)
	const lists, elems, versions = 4, 128, 40
	var acked [lists][elems]atomic.Uint64
	var maxRuns atomic.Int64

	var writers, readers sync.WaitGroup
	stop := make(chan struct{})
	for l := range lists {
		writers.Add(1)
		go func() {
			defer writers.Done()
			for v := uint64(1); v <= versions; v++ {
				for i := range uint64(elems) {
					b := st.NewBatch()
					b.Put(store.CFSubkey, subkey.AppendListKey(nil, uint64(l+1), i), binary.BigEndian.AppendUint64(nil, v))
					err := st.Write(b)
					b.Release()
					if err != nil {
						t.Error(err)
						return
					}
					acked[l][i].Store(v)
				}
				time.Sleep(200 * time.Microsecond) // a quiet spell, for runs to fill
			}
		}()
	}
	for r := range 4 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			rng := rand.New(rand.NewPCG(uint64(r), 7))
			for {
				select {
				case <-stop:
					return
				default:
				}
				l := rng.IntN(lists)
				from := rng.Uint64N(elems)
				to := from + 1 + rng.Uint64N(elems-from)
				reverse := rng.IntN(2) == 0
				var floors [elems]uint64
				for i := from; i < to; i++ {
					floors[i] = acked[l][i].Load()
				}
				i, step := from, uint64(1)
				if reverse {
					i, step = to-1, ^uint64(0) // -1
				}
				var bad error
				st.PeekList(uint64(l+1), from, to, reverse, func(val []byte) {
					if v := binary.BigEndian.Uint64(val); v < floors[i] && bad == nil {
						bad = fmt.Errorf("list %d index %d: version %d, after %d was acknowledged", l, i, v, floors[i])
					}
					i += step
				})
				if bad != nil {
					t.Error(bad)
					return
				}
				if n := st.CacheStats(store.CFSubkey).Runs; n > maxRuns.Load() {
					maxRuns.Store(n)
				}
			}
		}()
	}
	writers.Wait()
	close(stop)
	readers.Wait()
	if maxRuns.Load() == 0 {
		t.Fatal("no run was ever cached: the race did not test them")
	}
}
