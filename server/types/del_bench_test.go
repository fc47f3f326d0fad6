package types

import (
	"fmt"
	"testing"
	"time"

	"github.com/shaledb/shale/server/store"
)

// BenchmarkDel times DEL of hashes of different sizes (see benchDel). The
// claim is that fields=1000000 costs about what fields=10 costs: DEL is O(1).
func BenchmarkDel(b *testing.B) {
	benchDel(b, "fields", []int{10, 10_000, 1_000_000}, fillHash)
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

// BenchmarkHSet adds one new field per operation to a growing hash.
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

// BenchmarkHGetAll reads whole hashes of 16 and 1024 fields.
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
