package types

import (
	"fmt"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/shaledb/shale/server/store"
	"github.com/shaledb/shale/server/store/storetest"
)

// fillHash writes n fields into key in HSETs of 10,000 fields.
func fillHash(tb testing.TB, d *DB, key string, n int) {
	tb.Helper()
	const chunk = 10_000
	pairs := make([][]byte, 0, 2*chunk)
	for i := 0; i < n; i++ {
		pairs = append(pairs, fmt.Appendf(nil, "field:%09d", i), []byte("value-0123456789"))
		if len(pairs) == 2*chunk || i == n-1 {
			if _, err := d.HSet([]byte(key), pairs); err != nil {
				tb.Fatal(err)
			}
			pairs = pairs[:0]
		}
	}
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

func benchDB(b *testing.B) *DB {
	st := storetest.Open(b, nil)
	e := New(st, zerolog.Nop())
	d, _ := e.DB(0)
	return d
}

// BenchmarkDel times DEL of hashes of different sizes. Each iteration builds
// a fresh hash with the timer stopped, then times only the DEL. The claim is
// that fields=1000000 costs about what fields=10 costs: DEL is O(1).
func BenchmarkDel(b *testing.B) {
	for _, n := range []int{10, 10_000, 1_000_000} {
		b.Run(fmt.Sprintf("fields=%d", n), func(b *testing.B) {
			d := benchDB(b)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				b.StopTimer()
				key := fmt.Sprintf("h%d", i)
				i++
				fillHash(b, d, key, n)
				// Same starting point for every size: nothing in the memtables
				// and no compaction competing for this 2-core machine.
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

// BenchmarkReclaimAfterDel measures how fast the disk space of a deleted
// 1,000,000-field hash comes back with no manual command: the subkey CF's SST
// bytes before the hash, at its peak, and the seconds until they fall back to
// within 10% of the start. It reports them as metrics.
func BenchmarkReclaimAfterDel(b *testing.B) {
	for b.Loop() {
		d := benchDB(b)
		st := d.st
		fillHash(b, d, "baseline", 50_000)
		if err := st.Flush(); err != nil {
			b.Fatal(err)
		}
		before := st.SSTBytes(store.CFSubkey)
		fillHash(b, d, "big", 1_000_000)
		if err := st.Flush(); err != nil {
			b.Fatal(err)
		}
		peak := st.SSTBytes(store.CFSubkey)
		start := time.Now()
		if _, err := d.Del([][]byte{[]byte("big")}); err != nil {
			b.Fatal(err)
		}
		for st.SSTBytes(store.CFSubkey) > before+before/10 {
			if time.Since(start) > 60*time.Second {
				b.Fatalf("after 60s the subkey CF holds %d SST bytes; before %d, peak %d", st.SSTBytes(store.CFSubkey), before, peak)
			}
			time.Sleep(100 * time.Millisecond)
		}
		b.ReportMetric(float64(before), "sst-before-bytes")
		b.ReportMetric(float64(peak), "sst-peak-bytes")
		b.ReportMetric(float64(st.SSTBytes(store.CFSubkey)), "sst-after-bytes")
		b.ReportMetric(time.Since(start).Seconds(), "reclaim-s")
	}
}

func BenchmarkHSet(b *testing.B) {
	d := benchDB(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := d.HSet([]byte("h"), [][]byte{fmt.Appendf(nil, "f%d", i), []byte("v")}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkHGetAll(b *testing.B) {
	for _, n := range []int{16, 1024} {
		b.Run(fmt.Sprintf("fields=%d", n), func(b *testing.B) {
			d := benchDB(b)
			fillHash(b, d, "h", n)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := d.HGetAll([]byte("h")); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
