package store

import (
	"fmt"
	"slices"
	"testing"

	"github.com/shaledb/shale/subkey"
)

// listOf returns the values a peekList call served, and checks its count.
func listOf(t *testing.T, c *recordCache, uid, from, to uint64, reverse bool) []string {
	t.Helper()
	var got []string
	n := c.runs.peekList(c, uid, from, to, reverse, func(v []byte) { got = append(got, string(v)) })
	if int(n) != len(got) {
		t.Fatalf("peekList served %d, called fn %d times", n, len(got))
	}
	return got
}

func elems(from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprint("v", i))
	}
	return out
}

// Runs serve a range once a read filled them, and every write of an
// element, put or delete, drops the run it falls in.
func TestListRunsFollowWrites(t *testing.T) {
	c := newSubkeyCache(1 << 20)
	const uid = 3
	key := func(i uint64) []byte { return subkey.AppendListKey(nil, uid, i) }
	for i := range uint64(100) {
		c.written(key(i), fmt.Appendf(nil, "v%d", i), true)
	}
	if got := listOf(t, c, uid, 0, 100, false); !slices.Equal(got, elems(0, 100)) {
		t.Fatalf("first read: %v", got)
	}
	if s := c.stats(); s.Runs != 2 {
		t.Fatalf("%d runs after reading indexes 0 to 99, want 2", s.Runs)
	}
	// The elements' own entries gone, the runs serve alone.
	for i := range c.shards {
		c.shards[i].empty()
	}
	if got := listOf(t, c, uid, 10, 90, false); !slices.Equal(got, elems(10, 90)) {
		t.Fatalf("from the runs: %v", got)
	}
	want := elems(0, 100)
	slices.Reverse(want)
	if got := listOf(t, c, uid, 0, 100, true); !slices.Equal(got, want) {
		t.Fatalf("from the runs, reversed: %v", got)
	}

	c.written(key(5), []byte("x"), true)
	if s := c.stats(); s.Runs != 1 {
		t.Fatalf("%d runs after a write to the first, want 1", s.Runs)
	}
	if got := listOf(t, c, uid, 5, 6, false); !slices.Equal(got, []string{"x"}) {
		t.Fatalf("index 5 after its write: %v", got)
	}
	if got := listOf(t, c, uid, 64, 100, false); !slices.Equal(got, elems(64, 100)) {
		t.Fatalf("the second run after a write to the first: %v", got)
	}
	c.forget(key(70))
	if got := listOf(t, c, uid, 64, 100, false); len(got) != 0 {
		t.Fatalf("the second run after a write of index 70 the cache did not take: %v", got)
	}
	c.clear()
	if s := c.stats(); s.Runs != 0 || s.Bytes != 0 {
		t.Fatalf("after clear: %d runs, %d bytes", s.Runs, s.Bytes)
	}
}

// A run filled by a read that a write of one of its elements overtook is
// not cached: the read may hold the element's old value.
func TestListRunFillLosesToWrites(t *testing.T) {
	c := newSubkeyCache(1 << 20)
	id := runID{uid: 9, block: 0}
	sh := c.runs.shard(id)
	epoch := sh.epoch
	add := &listRun{}
	add.add(0, []byte("old"))
	c.written(subkey.AppendListKey(nil, 9, 1), []byte("new"), true)
	c.runs.fill(sh, id, epoch, nil, add)
	if s := c.stats(); s.Runs != 0 {
		t.Fatal("a fill overtaken by a write was cached")
	}
	c.runs.fill(sh, id, sh.epoch, nil, add)
	if s := c.stats(); s.Runs != 1 {
		t.Fatal("a fill no write overtook was not cached")
	}
}

// Runs stay within their share of the cache's bytes.
func TestListRunsBounded(t *testing.T) {
	c := newSubkeyCache(256 << 10)
	val := make([]byte, 100)
	for uid := range uint64(200) {
		for i := range uint64(runSlots) {
			c.written(subkey.AppendListKey(nil, uid, i), val, true)
		}
		listOf(t, c, uid, 0, runSlots, false)
	}
	runs, bytes := c.runs.stats()
	if limit := c.runs.shardMax * runShards; bytes > limit || runs == 0 {
		t.Fatalf("%d runs of %d bytes, bound %d", runs, bytes, limit)
	}
}

// The last block of indexes, whose end overflows, is served as any other.
func TestListRunsLastBlock(t *testing.T) {
	c := newSubkeyCache(1 << 20)
	const top = ^uint64(0)
	for k := range uint64(3) {
		c.written(subkey.AppendListKey(nil, 1, top-2+k), fmt.Appendf(nil, "v%d", k), true)
	}
	for range 2 { // fills the run, then serves from it
		if got := listOf(t, c, 1, top-2, top, false); !slices.Equal(got, elems(0, 2)) {
			t.Fatalf("the last block: %v", got)
		}
	}
}
