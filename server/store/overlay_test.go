package store_test

import (
	"encoding/binary"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/shaledb/shale/server/store"
	"github.com/shaledb/shale/server/store/storetest"
	"github.com/shaledb/shale/subkey"
)

// TestEarlyGroupsOneKey races early groups that each read a counter key
// and the list of sub-keys beside it, then write the next counter value
// and one more sub-key, all on one key, against lone lockers that read the
// store itself. Every early group must read what the one before wrote,
// queued or landed (else an increment is lost or a number repeats), and
// see it durable once its Commit returns; a lone locker must never see a
// counter and a list that disagree.
func TestEarlyGroupsOneKey(t *testing.T) {
	st := storetest.Open(t, nil)
	const writers, each = 12, 150
	key := []byte("counter")
	sub := func(n uint64) []byte { return binary.BigEndian.AppendUint64([]byte("list:"), n) }
	lower, upper := []byte("list:"), []byte("list;")
	count := func(r store.Reader) (n uint64) {
		if err := r.Iterate(store.CFSubkey, lower, upper, false, func(_, _ []byte) bool { n++; return true }); err != nil {
			t.Error(err)
		}
		return n
	}
	value := func(r store.Reader) uint64 {
		v, found, err := r.Get(store.CFMeta, key)
		if err != nil {
			t.Error(err)
		}
		if !found {
			return 0
		}
		return binary.BigEndian.Uint64(v)
	}
	var seen sync.Map
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g := st.NewEarlyGroup()
			for range each {
				g.Lock(store.LockKey{Key: key})
				r := g.Reader()
				n := value(r) + 1
				if c := count(r); c != n-1 {
					t.Errorf("an early group read counter %d beside %d list entries", n-1, c)
				}
				if err := g.Add(func(b *store.Batch) error {
					b.Put(store.CFMeta, key, binary.BigEndian.AppendUint64(nil, n))
					b.Put(store.CFSubkey, sub(n), nil)
					return nil
				}); err != nil {
					t.Error(err)
				}
				if err := g.Commit(); err != nil {
					t.Error(err)
					return
				}
				if _, dup := seen.LoadOrStore(n, true); dup {
					t.Errorf("two groups wrote counter %d", n)
				}
				if v := value(st); v < n {
					t.Errorf("Commit returned, and the store reads %d < %d", v, n)
				}
			}
		}()
	}
	var readers sync.WaitGroup
	readers.Add(1)
	go func() {
		defer readers.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			unlock := st.Lock(store.LockKey{Key: key})
			if v, c := value(st), count(st); v != c {
				t.Errorf("a lone locker read counter %d beside %d list entries", v, c)
			}
			unlock()
		}
	}()
	wg.Wait()
	close(stop)
	readers.Wait()
	if v := value(st); v != writers*each {
		t.Fatalf("counter %d, want %d", v, writers*each)
	}
	if st.EarlyCommits() == 0 {
		t.Fatal("no group released its lock early: the test did not race the overlay")
	}
	t.Log(fmt.Sprintf("%d of %d commits released their locks early", st.EarlyCommits(), writers*each))
}

// A transaction's reader peeks a list's elements as its batch leaves
// them: the batch's own puts, the cache's elements beside them, and no
// further than an element the batch deletes or that neither holds.
func TestTxnPeekList(t *testing.T) {
	st := storetest.Open(t, nil)
	const uid = 9
	elem := writeOldElements(t, st, uid, 4)
	peek := func(r store.Reader, from, to uint64, reverse bool) string {
		return peekList(t, r, uid, from, to, reverse)
	}
	g := st.BeginTxn(false, store.LockKey{Key: []byte("l")})
	defer g.Abort()
	if got := peek(g.Reader(), 0, 4, false); got != "old0 old1 old2 old3" {
		t.Errorf("before the transaction writes: %q", got)
	}
	if err := g.Add(func(b *store.Batch) error {
		b.Put(store.CFSubkey, elem(1), []byte("new1"))
		b.Delete(store.CFSubkey, elem(2))
		b.Put(store.CFSubkey, elem(4), []byte("new4"))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	r := g.Reader()
	for _, c := range []struct {
		from, to uint64
		reverse  bool
		want     string
	}{
		{0, 5, false, "old0 new1"}, // up to the deleted element
		{0, 5, true, "new4 old3"},
		{3, 5, false, "old3 new4"},
		{4, 6, false, "new4"}, // index 5 is nowhere
	} {
		if got := peek(r, c.from, c.to, c.reverse); got != c.want {
			t.Errorf("PeekList(%d, %d, reverse %v) = %q, want %q", c.from, c.to, c.reverse, got, c.want)
		}
	}
}

// An early group's reader serves a list's cached elements as the queued
// writes leave them: an element a queued batch puts from the overlay, one
// it deletes not at all (the walk stops there), and the others from the
// cache.
func TestOverlayPeekList(t *testing.T) {
	st := storetest.Open(t, nil)
	const uid = 7
	elem := writeOldElements(t, st, uid, 3)
	peek := func(r store.Reader, from, to uint64, reverse bool) string {
		return peekList(t, r, uid, from, to, reverse)
	}
	if got := peek(st, 0, 3, false); got != "old0 old1 old2" {
		t.Fatalf("the cache after the write: %q", got)
	}
	g := st.NewEarlyGroup()
	g.Lock(store.LockKey{Key: []byte("k")})
	if err := g.Add(func(b *store.Batch) error {
		b.Put(store.CFSubkey, elem(0), []byte("new0"))
		b.Delete(store.CFSubkey, elem(1))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	wait, done := g.Submit(func() {})
	if done {
		t.Fatal("the group's write did not queue")
	}
	r := st.NewEarlyGroup().Reader()
	if got := peek(r, 0, 3, false) + " | " + peek(r, 0, 3, true) + " | " + peek(r, 2, 3, false); got != "new0 | old2 | old2" {
		t.Errorf("through the overlay, with the write queued: %q", got)
	}
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	if got := peek(st, 0, 3, false) + " | " + peek(st, 0, 3, true); got != "new0 | old2" {
		t.Errorf("the cache once it landed: %q", got)
	}
}

// peekList is r's PeekList of list uid's [from, to), the elements it
// served joined by spaces; r must be a store.CachePeeker.
func peekList(t *testing.T, r store.Reader, uid, from, to uint64, reverse bool) string {
	t.Helper()
	var got []string
	n := r.(store.CachePeeker).PeekList(uid, from, to, reverse, func(v []byte) { got = append(got, string(v)) })
	if int(n) != len(got) {
		t.Errorf("PeekList served %d, called fn %d times", n, len(got))
	}
	return strings.Join(got, " ")
}

// writeOldElements writes "old0", "old1"... at list uid's first n indexes,
// and returns the key of an index of the list.
func writeOldElements(t *testing.T, st *store.Store, uid, n uint64) func(i uint64) []byte {
	t.Helper()
	elem := func(i uint64) []byte { return subkey.AppendListKey(nil, uid, i) }
	b := st.NewBatch()
	for i := range n {
		b.Put(store.CFSubkey, elem(i), []byte(fmt.Sprint("old", i)))
	}
	if err := st.Write(b); err != nil {
		t.Fatal(err)
	}
	return elem
}
