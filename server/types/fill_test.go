package types

import (
	"fmt"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/shaledb/shale/server/store"
	"github.com/shaledb/shale/server/store/storetest"
)

// The helpers the tests and benchmarks of this package share: a DB on a
// fresh store, fillers that build a key of any size, and the DEL benchmark
// every composite type runs.

// fillChunk is how many elements one write of a filler carries, so that a
// million-element key is not one batch.
const fillChunk = 10_000

// fillInChunks calls add for elements 0 to n-1, each appending its element
// to the chunk, and write with every fillChunk elements and the rest.
func fillInChunks[T any](tb testing.TB, n int, add func(chunk []T, i int) []T, write func(chunk []T) error) {
	tb.Helper()
	var chunk []T
	for i := range n {
		chunk = add(chunk, i)
		if (i+1)%fillChunk == 0 || i == n-1 {
			if err := write(chunk); err != nil {
				tb.Fatal(err)
			}
			chunk = chunk[:0]
		}
	}
}

// fillHash writes n fields "field:%09d" into key.
func fillHash(tb testing.TB, d *DB, key string, n int) {
	tb.Helper()
	fillInChunks(tb, n, func(pairs [][]byte, i int) [][]byte {
		return append(pairs, fmt.Appendf(nil, "field:%09d", i), []byte("value-0123456789"))
	}, func(pairs [][]byte) error {
		_, err := d.HSet([]byte(key), pairs)
		return err
	})
}

// fillList appends n elements "element-%09d" to key.
func fillList(tb testing.TB, d *DB, key string, n int) {
	tb.Helper()
	fillInChunks(tb, n, func(vals [][]byte, i int) [][]byte {
		return append(vals, fmt.Appendf(nil, "element-%09d", i))
	}, func(vals [][]byte) error {
		_, err := d.RPush([]byte(key), vals)
		return err
	})
}

// fillSet adds members to key.
func fillSet(tb testing.TB, d *DB, key string, members []string) {
	tb.Helper()
	fillInChunks(tb, len(members), func(ms [][]byte, i int) [][]byte {
		return append(ms, []byte(members[i]))
	}, func(ms [][]byte) error {
		_, err := d.SAdd([]byte(key), ms)
		return err
	})
}

// fillSetN adds n members "member:%09d" to key.
func fillSetN(tb testing.TB, d *DB, key string, n int) {
	tb.Helper()
	fillSet(tb, d, key, setFormat("member:%09d", n))
}

// fillZSet adds n members "member:%09d" to key, member i with score i.
func fillZSet(tb testing.TB, d *DB, key string, n int) {
	tb.Helper()
	fillInChunks(tb, n, func(elems []ScoreMember, i int) []ScoreMember {
		return append(elems, ScoreMember{fmt.Appendf(nil, "member:%09d", i), float64(i)})
	}, func(elems []ScoreMember) error {
		_, err := d.ZAdd([]byte(key), 0, elems)
		return err
	})
}

// loadedSet loads key, which must be a set or missing.
func loadedSet(t *testing.T, d *DB, key []byte) *keyState {
	t.Helper()
	ks := &keyState{}
	if err := d.loadSet(ks, key); err != nil {
		t.Fatal(err)
	}
	return ks
}

// benchDB is logical database 0 of a fresh store.
func benchDB(b *testing.B) *DB {
	st := storetest.Open(b, nil)
	e := New(st, zerolog.Nop())
	d, _ := e.DB(0)
	return d
}

// waitCompactions waits until RocksDB runs no flush or compaction.
func waitCompactions(b *testing.B, st *store.Store) {
	deadline := time.Now().Add(2 * time.Minute)
	for st.Property(store.CFSubkey, "rocksdb.num-running-compactions") != "0" ||
		st.Property(store.CFSubkey, "rocksdb.num-running-flushes") != "0" {
		if time.Now().After(deadline) {
			b.Fatal("compactions still running after 2 minutes")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// benchDel times DEL of keys of each size, one sub-benchmark per size named
// unit=size. Each iteration builds a fresh key with fill, with the timer
// stopped, flushes it and waits for compactions, so that every size starts
// from the same point (nothing in the memtables, no compaction competing for
// the machine), then times only the DEL. DEL is O(1): the sizes should cost
// about the same.
func benchDel(b *testing.B, unit string, sizes []int, fill func(tb testing.TB, d *DB, key string, n int)) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("%s=%d", unit, n), func(b *testing.B) {
			d := benchDB(b)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				b.StopTimer()
				key := fmt.Sprintf("k%d", i)
				i++
				fill(b, d, key, n)
				if err := d.st.Flush(); err != nil {
					b.Fatal(err)
				}
				waitCompactions(b, d.st)
				b.StartTimer()
				if got, err := d.Del([][]byte{[]byte(key)}); err != nil || got != 1 {
					b.Fatalf("DEL = %d, %v", got, err)
				}
			}
		})
	}
}
