package store

import (
	"bytes"
	"fmt"
	"math"
	"runtime"
	"testing"
	"unsafe"

	"github.com/shaledb/shale/metadata"
)

func TestCacheFillLosesToWrites(t *testing.T) {
	c := newRecordCache(1<<20, nil)
	k := []byte("k")
	if _, _, known, _ := c.get(k); known {
		t.Fatal("empty cache knows k")
	}

	// A read that raced with a write must not fill.
	_, _, _, epoch := c.get(k)
	c.forget(k)
	c.fill(k, []byte("old"), true, epoch)
	if _, _, known, _ := c.get(k); known {
		t.Fatal("fill after a forget of the shard cached a value")
	}

	// Nor may it replace what a write cached.
	_, _, _, epoch = c.get(k)
	c.written(k, []byte("new"), true)
	c.fill(k, []byte("old"), true, epoch)
	if v, found, known, _ := c.get(k); !known || !found || string(v) != "new" {
		t.Fatalf("get = %q %v %v, want the written value", v, found, known)
	}

	// Nor may it fill once the written entry was evicted: what it read
	// may be older than the write.
	_, _, _, epoch = c.get(k)
	c.written(k, []byte("newer"), true)
	h, sh := c.locate(k)
	sh.remove(h) // evicted
	c.fill(k, []byte("old"), true, epoch)
	if _, _, known, _ := c.get(k); known {
		t.Fatal("a fill that began before a write cached its value after the write's entry was evicted")
	}

	// A quiet fill is cached, absences included.
	k2 := []byte("absent")
	_, _, _, epoch = c.get(k2)
	c.fill(k2, nil, false, epoch)
	if _, found, known, _ := c.get(k2); !known || found {
		t.Fatalf("get absent = found %v known %v, want a cached absence", found, known)
	}

	// A deletion is cached as an absence; clear forgets everything.
	c.written(k, nil, false)
	if _, found, known, _ := c.get(k); !known || found {
		t.Fatal("a cached deletion reads as present or unknown")
	}
	c.clear()
	if st := c.stats(); st.Entries != 0 || st.Bytes != 0 {
		t.Fatalf("after clear: %+v", st)
	}
}

func TestCacheGetReturnsACopy(t *testing.T) {
	c := newRecordCache(1<<20, nil)
	c.written([]byte("k"), []byte("value"), true)
	v, _, _, _ := c.get([]byte("k"))
	v[0] = 'X'
	if v2, _, _, _ := c.get([]byte("k")); string(v2) != "value" {
		t.Fatalf("changing a returned value changed the cache: %q", v2)
	}
}

// TestCacheKeepsHeads: a record too long to cache whole keeps its head in a
// cache that has a head function; only lookup with head returns it, get and peek
// miss, and a later short value or a delete replaces it.
func TestCacheKeepsHeads(t *testing.T) {
	c := newRecordCache(1<<20, metadata.HeadLen)
	k := []byte("k")
	rec := metadata.Meta{Type: metadata.TypeString, ExpireMs: 7, Value: bytes.Repeat([]byte("v"), maxCachedValue+1)}.Append(nil)
	if !c.keeps(k, rec, true) {
		t.Fatal("keeps = false for a long string record")
	}
	c.written(k, rec, true)
	if _, _, known, _ := c.get(k); known {
		t.Fatal("get returned the head of a long record")
	}
	if c.peek(k, func([]byte) {}) {
		t.Fatal("peek returned the head of a long record")
	}
	v, found, known, cut, _ := c.lookup(k, true)
	if !known || !found || !cut || !bytes.Equal(v, rec[:metadata.MetaHeaderLen]) {
		t.Fatalf("lookup(head) = %x, found %v, known %v, cut %v; want the 9-byte head, cut", v, found, known, cut)
	}
	short := metadata.Meta{Type: metadata.TypeString, Value: []byte("s")}.Append(nil)
	c.written(k, short, true) // in place: the head's slot is long enough
	if v, _, known, _ := c.get(k); !known || !bytes.Equal(v, short) {
		t.Fatalf("get after a short write = %x, known %v", v, known)
	}
	c.written(k, rec, true)
	c.written(k, nil, false)
	if _, found, known, cut, _ := c.lookup(k, true); !known || found || cut {
		t.Fatalf("lookup(head) after a delete: found %v, known %v, cut %v", found, known, cut)
	}
	// Without a head function, or for a record whose head is all of it,
	// nothing is kept.
	plain := newRecordCache(1<<20, nil)
	plain.written(k, rec, true)
	if _, _, known, _, _ := plain.lookup(k, true); known || plain.keeps(k, rec, true) {
		t.Fatal("a cache without a head function kept a long record")
	}
	long := bytes.Repeat([]byte("f"), maxCachedValue+1) // a sub-key value: no head
	if c.keeps(k, long, true) {
		t.Fatal("kept a long record whose head is all of it")
	}
}

// TestCachePeek: peek hands over an existing record's cached value, and
// reports a known absence like an unknown key: neither is a value.
func TestCachePeek(t *testing.T) {
	c := newRecordCache(1<<20, nil)
	c.written([]byte("k"), []byte("v"), true)
	c.written([]byte("gone"), nil, false)
	var got []string
	keep := func(v []byte) { got = append(got, string(v)) }
	if !c.peek([]byte("k"), keep) || len(got) != 1 || got[0] != "v" {
		t.Fatalf("peek of a cached value: %q", got)
	}
	if c.peek([]byte("gone"), keep) || c.peek([]byte("unknown"), keep) || len(got) != 1 {
		t.Fatalf("peek of an absent or unknown key gave a value: %q", got)
	}
	if st := c.stats(); st.Hits != 1 || st.Misses != 2 {
		t.Fatalf("hits %d, misses %d; want 1 and 2", st.Hits, st.Misses)
	}
}

func TestCacheBounded(t *testing.T) {
	const limit = 1 << 20
	c := newRecordCache(limit, nil)
	val := bytes.Repeat([]byte("v"), 100)
	for i := range 10000 {
		c.written(fmt.Appendf(nil, "key-%d", i), val, true)
	}
	st := c.stats()
	if st.Bytes > limit || st.Entries == 0 || st.Evictions == 0 {
		t.Fatalf("stats %+v: want at most %d bytes, some entries and evictions", st, limit)
	}
	// A value longer than maxCachedValue is not cached, and replaces the
	// entry it would have updated.
	c.written([]byte("big"), bytes.Repeat([]byte("b"), maxCachedValue), true)
	if _, _, known, _ := c.get([]byte("big")); !known {
		t.Fatal("a value of maxCachedValue bytes was not cached")
	}
	c.written([]byte("big"), bytes.Repeat([]byte("b"), maxCachedValue+1), true)
	if _, _, known, _ := c.get([]byte("big")); known {
		t.Fatal("a value longer than maxCachedValue was cached, or its old entry kept")
	}
	// In a small cache, nor is an entry bigger than an eighth of a shard.
	small := newRecordCache(64<<10, nil) // shards of 1 KiB
	small.written([]byte("k"), bytes.Repeat([]byte("b"), 200), true)
	if _, _, known, _ := small.get([]byte("k")); known {
		t.Fatal("an entry bigger than an eighth of a shard was cached")
	}
	st = c.stats()
	var bytesCounted int64
	for i := range c.shards {
		sh := &c.shards[i]
		for _, e := range sh.entries {
			bytesCounted += entryBytes(sh.key(e), sh.val(e))
		}
		if int64(cap(sh.arena)) > 2*c.shardMax {
			t.Fatalf("shard %d: arena of %d bytes, over twice the shard's %d", i, cap(sh.arena), c.shardMax)
		}
	}
	if bytesCounted != st.Bytes {
		t.Fatalf("shards account %d bytes, entries hold %d", st.Bytes, bytesCounted)
	}
}

// TestCacheHashCollision: an entry of another key under the same 64-bit
// hash is a miss, and a write of the key replaces it.
func TestCacheHashCollision(t *testing.T) {
	c := newRecordCache(1<<20, nil)
	k := []byte("k")
	h, sh := c.locate(k)
	c.put(sh, h, []byte("other"), []byte("x"), true)
	if _, _, known, _ := c.get(k); known {
		t.Fatal("get found another key's entry")
	}
	c.written(k, []byte("v"), true)
	if v, found, known, _ := c.get(k); !known || !found || string(v) != "v" {
		t.Fatalf("get = %q %v %v, want the written value", v, found, known)
	}
	if st := c.stats(); st.Entries != 1 || st.Bytes != entryBytes(k, []byte("v")) {
		t.Fatalf("stats %+v: the colliding entry was not replaced", st)
	}
}

func TestCacheOverwritesInPlace(t *testing.T) {
	c := newRecordCache(1<<20, nil)
	k := []byte("key")
	c.written(k, []byte("12345"), true)
	_, sh := c.locate(k)
	arena, bytesBefore := len(sh.arena), c.stats().Bytes
	for _, v := range []string{"abcde", "xy", "z", ""} {
		c.written(k, []byte(v), true)
		if got, found, known, _ := c.get(k); !known || !found || string(got) != v {
			t.Fatalf("after writing %q: get = %q %v %v", v, got, found, known)
		}
		if len(sh.arena) != arena {
			t.Fatalf("writing %q, no longer than the cached value, grew the arena from %d to %d", v, arena, len(sh.arena))
		}
		if want := bytesBefore - int64(5-len(v)); c.stats().Bytes != want {
			t.Fatalf("after writing %q: %d bytes counted, want %d", v, c.stats().Bytes, want)
		}
	}
	c.written(k, nil, false)
	if _, found, known, _ := c.get(k); !known || found {
		t.Fatalf("a deletion in place reads as found %v known %v", found, known)
	}
	c.written(k, []byte("longer than before"), true)
	if got, _, _, _ := c.get(k); string(got) != "longer than before" {
		t.Fatalf("a longer value reads as %q", got)
	}
	if len(sh.arena) == arena {
		t.Fatal("a longer value was not appended")
	}
	if len(sh.entries) != 1 {
		t.Fatalf("%d entries for one key", len(sh.entries))
	}
}

// TestCacheArenaOutsideGoHeap: the values cached do not count in the Go
// heap, whose collector would otherwise let it grow by go_gc_percent of
// them; and a closed cache returns its arenas and caches nothing more.
func TestCacheArenaOutsideGoHeap(t *testing.T) {
	c := newRecordCache(64<<20, nil)
	val := bytes.Repeat([]byte("v"), maxCachedValue)
	heapAlloc := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := heapAlloc()
	const n = 20000 // 10 MB of values
	for i := range n {
		c.written(fmt.Appendf(nil, "key-%d", i), val, true)
	}
	if st := c.stats(); st.Entries != n {
		t.Fatalf("%d entries cached, want %d", st.Entries, n)
	}
	if grew := int64(heapAlloc()) - int64(before); grew > 2<<20 {
		t.Fatalf("caching %d MB of values grew the Go heap by %d bytes", n*len(val)>>20, grew)
	}
	runtime.KeepAlive(c)

	c.close()
	for i := range c.shards {
		if c.shards[i].arena != nil {
			t.Fatalf("shard %d kept its arena after close", i)
		}
	}
	c.written([]byte("k"), []byte("v"), true)
	if _, _, known, _ := c.get([]byte("k")); known {
		t.Fatal("a closed cache cached a write")
	}
}

// TestCacheEntrySmall: an entry stays 16 bytes, and a key too long for its
// klen is not cached, though its size would fit the shard.
func TestCacheEntrySmall(t *testing.T) {
	if n := unsafe.Sizeof(cacheEntry{}); n != 16 {
		t.Fatalf("cacheEntry takes %d bytes, want 16", n)
	}
	c := newRecordCache(64<<20, nil)
	long := bytes.Repeat([]byte("k"), math.MaxUint16+1)
	c.written(long, []byte("v"), true)
	if _, _, known, _ := c.get(long); known {
		t.Fatal("a key longer than klen holds was cached")
	}
	c.written(long[:math.MaxUint16], []byte("v"), true)
	if v, _, known, _ := c.get(long[:math.MaxUint16]); !known || string(v) != "v" {
		t.Fatal("a key of the longest length klen holds was not cached")
	}
}
