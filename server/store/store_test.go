package store_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/shaledb/shale/metadata"
	"github.com/shaledb/shale/server/store"
	"github.com/shaledb/shale/server/store/storetest"
	"github.com/shaledb/shale/subkey"
)

func TestUIDsNeverReusedAcrossReopen(t *testing.T) {
	cfg := storetest.Config(t)
	seen := map[uint64]bool{}
	var maxUID uint64
	for round := range 3 {
		st := storetest.Open(t, &cfg)
		for range 5000 {
			uid, err := st.NewUID()
			if err != nil {
				t.Fatal(err)
			}
			if seen[uid] || uid <= maxUID || uid == 0 {
				t.Fatalf("round %d: uid %d reused or not increasing (max %d)", round, uid, maxUID)
			}
			seen[uid], maxUID = true, uid
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestUIDsConcurrent(t *testing.T) {
	st := storetest.Open(t, nil)
	var mu sync.Mutex
	seen := map[uint64]bool{}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 3000 {
				uid, err := st.NewUID()
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if seen[uid] {
					t.Errorf("uid %d handed out twice", uid)
				}
				seen[uid] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

func TestCountersSurviveReopen(t *testing.T) {
	cfg := storetest.Config(t)
	st := storetest.Open(t, &cfg)
	writeBatch(t, st, func(b *store.Batch) {
		b.AddKeys(0, 5)
		b.AddKeys(3, 2)
		b.AddKeys(0, -1)
	})
	if got := st.KeyCount(0); got != 4 {
		t.Fatalf("db0 = %d, want 4", got)
	}
	st.Close()
	st = storetest.Open(t, &cfg)
	if got, got3 := st.KeyCount(0), st.KeyCount(3); got != 4 || got3 != 2 {
		t.Fatalf("after reopen db0 = %d, db3 = %d, want 4, 2", got, got3)
	}
	writeBatch(t, st, func(b *store.Batch) { b.ResetKeys(0) })
	st.Close()
	st = storetest.Open(t, &cfg)
	if got := st.KeyCount(0); got != 0 {
		t.Fatalf("after reset and reopen db0 = %d, want 0", got)
	}
}

// writeBatch writes the batch fill builds, and fails the test if that fails.
func writeBatch(t *testing.T, st *store.Store, fill func(b *store.Batch)) {
	t.Helper()
	b := st.NewBatch()
	defer b.Release()
	fill(b)
	if err := st.Write(b); err != nil {
		t.Fatal(err)
	}
}

// writeHash writes a hash's metadata, bookkeeping and n fields in one batch.
func writeHash(t *testing.T, st *store.Store, key string, n int) uint64 {
	t.Helper()
	uid, err := st.NewUID()
	if err != nil {
		t.Fatal(err)
	}
	writeBatch(t, st, func(b *store.Batch) {
		b.Put(store.CFMeta, metadata.AppendMetaKey(nil, 0, []byte(key)), metadata.Meta{Type: metadata.TypeHash, UID: uid, Size: uint64(n)}.Append(nil))
		b.Put(store.CFBookkeeping, metadata.AppendBookKey(nil, uid), metadata.Book{Type: metadata.TypeHash, Key: []byte(key)}.Append(nil))
		for i := range n {
			b.Put(store.CFSubkey, subkey.AppendKey(nil, uid, fmt.Appendf(nil, "f%07d", i)), []byte("v"))
		}
	})
	return uid
}

func deleteHash(t *testing.T, st *store.Store, key string, uid uint64, reclaim bool) {
	t.Helper()
	writeBatch(t, st, func(b *store.Batch) {
		b.Delete(store.CFMeta, metadata.AppendMetaKey(nil, 0, []byte(key)))
		b.Delete(store.CFBookkeeping, metadata.AppendBookKey(nil, uid))
		if reclaim {
			b.Reclaim(uid)
		}
	})
}

func count(t *testing.T, st *store.Store, cf store.CF) int64 {
	t.Helper()
	n, err := st.CountRecords(cf)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestCompactDropsOrphansKeepsLive(t *testing.T) {
	st := storetest.Open(t, nil)
	old := writeHash(t, st, "h", 1000)
	deleteHash(t, st, "h", old, false)
	writeHash(t, st, "h", 3) // same name, new uid
	writeHash(t, st, "other", 10)
	if got := count(t, st, store.CFSubkey); got != 1013 {
		t.Fatalf("before compaction: %d subkeys, want 1013", got)
	}
	st.Compact()
	if got := count(t, st, store.CFSubkey); got != 13 {
		t.Fatalf("after compaction: %d subkeys, want 13", got)
	}
	if got := count(t, st, store.CFBookkeeping); got != 2 {
		t.Fatalf("after compaction: %d bookkeeping records, want 2", got)
	}
	if d := st.GCStats().Dropped[0]; d.CF != store.CFSubkey || d.Records != 1000 {
		t.Fatalf("dropped %d records of %s, want 1000 of subkey", d.Records, d.CF)
	}
}

// A compaction that found a key alive must not keep trusting that once the
// key dies: each way a write can kill an owner is followed by a compaction
// that must drop the records.
func TestCompactAfterAliveVerdictReclaims(t *testing.T) {
	kills := map[string]func(b *store.Batch, uid uint64){
		"delete metadata and bookkeeping": func(b *store.Batch, uid uint64) {
			b.Delete(store.CFMeta, metadata.AppendMetaKey(nil, 0, []byte("h")))
			b.Delete(store.CFBookkeeping, metadata.AppendBookKey(nil, uid))
		},
		"delete metadata only": func(b *store.Batch, uid uint64) {
			b.Delete(store.CFMeta, metadata.AppendMetaKey(nil, 0, []byte("h")))
		},
		"delete bookkeeping only": func(b *store.Batch, uid uint64) {
			b.Delete(store.CFBookkeeping, metadata.AppendBookKey(nil, uid))
		},
		"bookkeeping names another key": func(b *store.Batch, uid uint64) {
			b.Put(store.CFBookkeeping, metadata.AppendBookKey(nil, uid), metadata.Book{Type: metadata.TypeHash, Key: []byte("nosuch")}.Append(nil))
		},
	}
	for name, kill := range kills {
		t.Run(name, func(t *testing.T) {
			st := storetest.Open(t, nil)
			uid := writeHash(t, st, "h", 1000)
			st.Compact() // finds uid alive
			if got := count(t, st, store.CFSubkey); got != 1000 {
				t.Fatalf("live hash compacted to %d subkeys, want 1000", got)
			}
			writeBatch(t, st, func(b *store.Batch) { kill(b, uid) })
			st.Compact()
			if got := count(t, st, store.CFSubkey); got != 0 {
				t.Fatalf("after the key died: %d subkeys left, want 0", got)
			}
		})
	}
}

func TestRenamedOwnerSurvives(t *testing.T) {
	st := storetest.Open(t, nil)
	uid := writeHash(t, st, "a", 100)
	// RENAME a -> b: metadata moves, bookkeeping names the new key.
	writeBatch(t, st, func(b *store.Batch) {
		b.Delete(store.CFMeta, metadata.AppendMetaKey(nil, 0, []byte("a")))
		b.Put(store.CFMeta, metadata.AppendMetaKey(nil, 0, []byte("b")), metadata.Meta{Type: metadata.TypeHash, UID: uid, Size: 100}.Append(nil))
		b.Put(store.CFBookkeeping, metadata.AppendBookKey(nil, uid), metadata.Book{Type: metadata.TypeHash, Key: []byte("b")}.Append(nil))
	})
	st.Compact()
	if got := count(t, st, store.CFSubkey); got != 100 {
		t.Fatalf("renamed hash lost records: %d left, want 100", got)
	}
}

func TestReclaimerCompactsQueuedUID(t *testing.T) {
	cfg := storetest.Config(t)
	cfg.Compaction.ReclaimDelay.Duration = 0
	st := storetest.Open(t, &cfg)
	uid := writeHash(t, st, "big", 20000)
	writeHash(t, st, "small", 5)
	deleteHash(t, st, "big", uid, true)
	deadline := time.Now().Add(20 * time.Second)
	for count(t, st, store.CFSubkey) != 5 {
		if time.Now().After(deadline) {
			t.Fatalf("reclaimer left %d subkeys, want 5 (stats %+v)", count(t, st, store.CFSubkey), st.ReclaimStats())
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The records are gone once the compaction's output is installed; the
	// counter moves when CompactRange returns, a moment later.
	for st.ReclaimStats().Compactions == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no reclaim compaction counted")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestCloseTwice(t *testing.T) {
	st := storetest.Open(t, nil)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if err := st.Write(st.NewBatch()); err != store.ErrClosed {
		t.Fatalf("write after close: %v, want ErrClosed", err)
	}
}
