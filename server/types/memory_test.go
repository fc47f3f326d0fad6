package types

import (
	"bytes"
	"testing"
)

// TestMemoryUsage checks MemoryUsage's arithmetic against the records it
// counts, without pinning the record layouts: each element adds its bytes
// and the per-record costs, a TTL adds the index record, sampling scales
// the average of the elements read.
func TestMemoryUsage(t *testing.T) {
	d, clock := newTestDB(t)
	usage := func(key string, samples int64) int64 {
		t.Helper()
		n, ok, err := d.MemoryUsage([]byte(key), samples)
		if err != nil || !ok {
			t.Fatalf("MemoryUsage(%q) = %d, %v, %v", key, n, ok, err)
		}
		return n
	}
	if _, ok, err := d.MemoryUsage([]byte("missing"), 5); ok || err != nil {
		t.Fatalf("MemoryUsage(missing) = %v, %v; want not found", ok, err)
	}

	must[SetResult](t)(d.Set([]byte("s"), []byte("v"), SetOptions{}))
	small := usage("s", 5)
	must[SetResult](t)(d.Set([]byte("s"), bytes.Repeat([]byte("v"), 1001), SetOptions{}))
	if got := usage("s", 5); got != small+1000 {
		t.Errorf("a string 1000 bytes longer: %d, want %d", got, small+1000)
	}
	must[SetResult](t)(d.Set([]byte("s"), []byte("v"), SetOptions{ExpireMs: *clock + 10_000}))
	if got := usage("s", 5); got <= small+recordOverhead {
		t.Errorf("with a TTL: %d, want more than %d (the expiry index record)", got, small+recordOverhead)
	}

	// One hash field of one byte each: its sub-key (uid 8 + field 1) and
	// value (1), plus RocksDB's trailer.
	const fieldBytes = 8 + 1 + 1 + recordOverhead
	must[int64](t)(d.HSet([]byte("h"), [][]byte{[]byte("a"), []byte("1")}))
	one := usage("h", 5)
	must[int64](t)(d.HSet([]byte("h"), [][]byte{[]byte("b"), []byte("2"), []byte("c"), []byte("3")}))
	if got := usage("h", 0); got != one+2*fieldBytes {
		t.Errorf("hash of 3 fields: %d, want %d", got, one+2*fieldBytes)
	}
	// Sampled: the first field read, scaled to 3.
	if got := usage("h", 1); got != one+2*fieldBytes {
		t.Errorf("hash of 3 equal fields, 1 sampled: %d, want %d", got, one+2*fieldBytes)
	}
	must[int64](t)(d.HSet([]byte("h"), [][]byte{[]byte("c"), bytes.Repeat([]byte("x"), 301)}))
	if got := usage("h", 0); got != one+2*fieldBytes+300 {
		t.Errorf("a value 300 bytes longer, all read: %d, want %d", got, one+2*fieldBytes+300)
	}
	if got := usage("h", 2); got != one+2*fieldBytes {
		t.Errorf("the first 2 fields sampled miss the long one: %d, want %d", got, one+2*fieldBytes)
	}

	// A sorted set's member has two records: member -> score, and the
	// score index's | uid | score 8 | member |.
	must[ZAddResult](t)(d.ZAdd([]byte("z"), 0, []ScoreMember{{Member: []byte("a"), Score: 1}}))
	z1 := usage("z", 0)
	must[ZAddResult](t)(d.ZAdd([]byte("z"), 0, []ScoreMember{{Member: []byte("bb"), Score: 2}}))
	if got, want := usage("z", 0)-z1, int64(8+2+8+recordOverhead+8+8+2+recordOverhead); got != want {
		t.Errorf("a zset member of 2 bytes adds %d, want %d", got, want)
	}
}
