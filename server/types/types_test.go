package types

import (
	"fmt"
	"testing"

	"github.com/rs/zerolog"

	"github.com/shaledb/shale/server/store"
	"github.com/shaledb/shale/server/store/storetest"
)

// newTestDB returns db 0 of a fresh engine whose clock the test controls.
func newTestDB(t *testing.T) (*DB, *int64) {
	t.Helper()
	st := storetest.Open(t, nil)
	e := New(st, zerolog.New(zerolog.NewTestWriter(t)))
	clock := int64(1_700_000_000_000)
	e.now = func() int64 { return clock }
	d, err := e.DB(0)
	if err != nil {
		t.Fatal(err)
	}
	return d, &clock
}

func must[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func fields(n int) [][]byte {
	var pairs [][]byte
	for i := range n {
		pairs = append(pairs, fmt.Appendf(nil, "f%d", i), fmt.Appendf(nil, "v%d", i))
	}
	return pairs
}

func TestHashLifecycleKeepsCounterExact(t *testing.T) {
	d, _ := newTestDB(t)
	mi := must[int64](t)
	if got := mi(d.HSet([]byte("h"), fields(10))); got != 10 {
		t.Fatalf("HSET added %d, want 10", got)
	}
	if got := mi(d.HSet([]byte("h"), [][]byte{[]byte("f1"), []byte("x"), []byte("new"), []byte("1"), []byte("new"), []byte("2")})); got != 1 {
		t.Fatalf("HSET with an existing and a repeated field added %d, want 1", got)
	}
	if v, _, _ := d.HGet([]byte("h"), []byte("new")); string(v) != "2" {
		t.Fatalf("repeated field = %q, want the last value", v)
	}
	if got := mi(d.HLen([]byte("h"))); got != 11 {
		t.Fatalf("HLEN = %d", got)
	}
	if d.KeyCount() != 1 {
		t.Fatalf("DBSIZE = %d, want 1", d.KeyCount())
	}
	// Removing every field removes the key.
	all := mi(d.HDel([]byte("h"), append(fields(10)[0:0:0], keysOf(fields(10))...)))
	if all != 10 {
		t.Fatalf("HDEL removed %d", all)
	}
	mi(d.HDel([]byte("h"), [][]byte{[]byte("new")}))
	if typ, _ := d.Type([]byte("h")); typ != "none" || d.KeyCount() != 0 {
		t.Fatalf("emptied hash: TYPE %s, DBSIZE %d", typ, d.KeyCount())
	}
}

func keysOf(pairs [][]byte) [][]byte {
	var out [][]byte
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, pairs[i])
	}
	return out
}

func TestOverwriteByStringOrphansSubkeys(t *testing.T) {
	d, _ := newTestDB(t)
	must[int64](t)(d.HSet([]byte("k"), fields(100)))
	if _, err := d.Set([]byte("k"), []byte("s"), SetOptions{}); err != nil {
		t.Fatal(err)
	}
	if d.KeyCount() != 1 {
		t.Fatalf("DBSIZE = %d, want 1", d.KeyCount())
	}
	d.st.Compact()
	if n, _ := d.st.CountRecords(store.CFSubkey); n != 0 {
		t.Fatalf("%d orphan subkeys survived compaction", n)
	}
	if n, _ := d.st.CountRecords(store.CFBookkeeping); n != 0 {
		t.Fatalf("%d bookkeeping records survived", n)
	}
}

func TestExpiryIsLazyAndActive(t *testing.T) {
	d, clock := newTestDB(t)
	must[int64](t)(d.HSet([]byte("h"), fields(3)))
	if ok := must[bool](t)(d.Expire([]byte("h"), *clock+1000, 0)); !ok {
		t.Fatal("EXPIRE not set")
	}
	if d.ExpiresCount() != 1 {
		t.Fatalf("expires = %d, want 1", d.ExpiresCount())
	}
	*clock += 1000
	if n := must[int64](t)(d.Exists([][]byte{[]byte("h")})); n != 0 {
		t.Fatal("expired key still visible")
	}
	if d.KeyCount() != 1 {
		t.Fatal("key reaped before the active pass")
	}
	if n := must[int](t)(d.e.ExpirePass(100)); n != 1 {
		t.Fatalf("ExpirePass handled %d, want 1", n)
	}
	if d.KeyCount() != 0 || d.ExpiresCount() != 0 {
		t.Fatalf("DBSIZE = %d, expires = %d after the active pass", d.KeyCount(), d.ExpiresCount())
	}
	// Writing to an expired key creates a new one with a new uid.
	must[int64](t)(d.HSet([]byte("g"), fields(2)))
	must[bool](t)(d.Expire([]byte("g"), *clock+10, 0))
	old, _, _ := d.UID([]byte("g"))
	*clock += 10
	if added := must[int64](t)(d.HSet([]byte("g"), fields(1))); added != 1 {
		t.Fatalf("HSET on an expired hash added %d, want 1", added)
	}
	nu, _, _ := d.UID([]byte("g"))
	if nu == old || d.KeyCount() != 1 {
		t.Fatalf("uid %d -> %d, DBSIZE %d", old, nu, d.KeyCount())
	}
	if ttl, _, _ := d.TTL([]byte("g")); ttl != -1 || d.ExpiresCount() != 0 {
		t.Fatalf("recreated key has ttl %d, expires = %d", ttl, d.ExpiresCount())
	}
	// The old expiry entry is stale now; the pass drops it without harm.
	must[int](t)(d.e.ExpirePass(100))
	if n := must[int64](t)(d.HLen([]byte("g"))); n != 1 {
		t.Fatalf("HLEN = %d after a stale expiry entry", n)
	}
}

func TestRenameKeepsUIDAndSubkeys(t *testing.T) {
	d, _ := newTestDB(t)
	must[int64](t)(d.HSet([]byte("a"), fields(50)))
	must[int64](t)(d.HSet([]byte("b"), fields(5)))
	uid, _, _ := d.UID([]byte("a"))
	if _, err := d.Rename([]byte("a"), []byte("b"), Overwrite); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := d.UID([]byte("b")); got != uid {
		t.Fatalf("uid changed on rename: %d -> %d", uid, got)
	}
	if d.KeyCount() != 1 {
		t.Fatalf("DBSIZE = %d, want 1", d.KeyCount())
	}
	d.st.Compact()
	if n := must[int64](t)(d.HLen([]byte("b"))); n != 50 {
		t.Fatalf("HLEN = %d", n)
	}
	if n, _ := d.st.CountRecords(store.CFSubkey); n != 50 {
		t.Fatalf("%d subkeys after compaction, want 50", n)
	}
}

func TestCopyIsDeep(t *testing.T) {
	d, _ := newTestDB(t)
	must[int64](t)(d.HSet([]byte("src"), fields(3)))
	if ok := must[bool](t)(d.Copy([]byte("src"), d, []byte("dst"), WriteNothing)); !ok {
		t.Fatal("COPY failed")
	}
	must[int64](t)(d.HSet([]byte("dst"), [][]byte{[]byte("f0"), []byte("changed")}))
	if v, _, _ := d.HGet([]byte("src"), []byte("f0")); string(v) != "v0" {
		t.Fatalf("source changed through the copy: %q", v)
	}
	if d.KeyCount() != 2 {
		t.Fatalf("DBSIZE = %d", d.KeyCount())
	}
}

func TestMoveAcrossDBs(t *testing.T) {
	d, clock := newTestDB(t)
	d1, _ := d.e.DB(1)
	must[int64](t)(d.HSet([]byte("h"), fields(2)))
	must[bool](t)(d.Expire([]byte("h"), *clock+100_000, 0))
	if ok := must[bool](t)(d.Move([]byte("h"), d1)); !ok {
		t.Fatal("MOVE failed")
	}
	if d.KeyCount() != 0 || d1.KeyCount() != 1 || d.ExpiresCount() != 0 || d1.ExpiresCount() != 1 {
		t.Fatalf("keys %d, %d; expires %d, %d", d.KeyCount(), d1.KeyCount(), d.ExpiresCount(), d1.ExpiresCount())
	}
	d.st.Compact()
	if n := must[int64](t)(d1.HLen([]byte("h"))); n != 2 {
		t.Fatalf("moved hash HLEN = %d", n)
	}
}

func TestScanVisitsEveryKeyOnce(t *testing.T) {
	d, _ := newTestDB(t)
	for i := range 95 {
		if _, err := d.Set(fmt.Appendf(nil, "k%d", i), []byte("v"), SetOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]int{}
	var cursor uint64
	for {
		next, keys, err := d.Scan(cursor, ScanOptions{Count: 10})
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			seen[string(k)]++
		}
		if next == 0 {
			break
		}
		cursor = next
	}
	if len(seen) != 95 {
		t.Fatalf("SCAN saw %d keys, want 95", len(seen))
	}
	for k, n := range seen {
		if n != 1 {
			t.Fatalf("%s seen %d times", k, n)
		}
	}
}

func TestFlushDBResetsCounter(t *testing.T) {
	d, _ := newTestDB(t)
	must[int64](t)(d.HSet([]byte("h"), fields(2)))
	d.Set([]byte("s"), []byte("v"), SetOptions{})
	if err := d.FlushDB(); err != nil {
		t.Fatal(err)
	}
	if d.KeyCount() != 0 {
		t.Fatalf("DBSIZE = %d", d.KeyCount())
	}
	if keys := must[[][]byte](t)(d.Keys([]byte("*"))); len(keys) != 0 {
		t.Fatalf("KEYS = %q", keys)
	}
	d.st.Compact()
	if n, _ := d.st.CountRecords(store.CFSubkey); n != 0 {
		t.Fatalf("%d subkeys survive FLUSHDB + compaction", n)
	}
}

// TestMemberWritesKeepMetadata: a write that changes members but not the
// key's metadata (HSET of existing fields, ZADD of a new score) writes no
// metadata record, and one that changes the size or the TTL does.
func TestMemberWritesKeepMetadata(t *testing.T) {
	d, _ := newTestDB(t)
	metaWrites := func() string {
		return d.st.Property(store.CFMeta, "rocksdb.num-entries-active-mem-table")
	}
	must[int64](t)(d.HSet([]byte("h"), fields(3)))
	must[ZAddResult](t)(d.ZAdd([]byte("z"), 0, []ScoreMember{{Score: 1, Member: []byte("m")}}))
	before := metaWrites()
	for i := range 5 {
		must[int64](t)(d.HSet([]byte("h"), [][]byte{[]byte("f1"), fmt.Appendf(nil, "x%d", i)}))
		must[ZAddResult](t)(d.ZAdd([]byte("z"), 0, []ScoreMember{{Score: float64(i + 2), Member: []byte("m")}}))
	}
	if after := metaWrites(); after != before {
		t.Fatalf("metadata memtable entries %s -> %s: member-only writes rewrote the metadata", before, after)
	}
	if v, _, _ := d.HGet([]byte("h"), []byte("f1")); string(v) != "x4" {
		t.Fatalf("HGET = %q, want x4", v)
	}
	must[int64](t)(d.HSet([]byte("h"), [][]byte{[]byte("new"), []byte("1")}))
	if after := metaWrites(); after == before {
		t.Fatal("an HSET that grew the hash wrote no metadata")
	}
	if n := must[int64](t)(d.HLen([]byte("h"))); n != 4 {
		t.Fatalf("HLEN = %d, want 4", n)
	}
}
