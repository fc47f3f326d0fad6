package store_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/shaledb/shale/server/store"
	"github.com/shaledb/shale/server/store/storetest"
)

// readAll lists cf's records in [lower, upper) through r, as "k=v".
func readAll(t *testing.T, r store.Reader, cf store.CF, lower, upper string, reverse bool) []string {
	t.Helper()
	var lo, hi []byte
	if lower != "" {
		lo = []byte(lower)
	}
	if upper != "" {
		hi = []byte(upper)
	}
	var out []string
	if err := r.Iterate(cf, lo, hi, reverse, func(k, v []byte) bool {
		out = append(out, string(k)+"="+string(v))
		return true
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTxnReadsItsWrites: a transaction's reads see its own puts, deletes and
// range deletions over the store, in Get and in both directions of
// Iterate; other readers see none of it until Commit; Abort writes nothing.
func TestTxnReadsItsWrites(t *testing.T) {
	st := storetest.Open(t, nil)
	b := st.NewBatch()
	for _, k := range []string{"a", "c", "e", "g"} {
		b.Put(store.CFMeta, []byte(k), []byte("old"))
	}
	b.AddKeys(0, 4)
	if err := st.Write(b); err != nil {
		t.Fatal(err)
	}
	b.Release()

	g := st.BeginTxn(false, lk("a"), lk("b"), lk("c"), lk("e"))
	r := g.Reader()
	steps := []func(b *store.Batch){
		func(b *store.Batch) { b.Put(store.CFMeta, []byte("b"), []byte("new")); b.AddKeys(0, 1) },
		func(b *store.Batch) { b.Delete(store.CFMeta, []byte("c")); b.AddKeys(0, -1) },
		func(b *store.Batch) { b.Put(store.CFMeta, []byte("a"), []byte("new")) },
	}
	for _, step := range steps {
		if err := g.Add(func(b *store.Batch) error { step(b); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"a=new", "b=new", "e=old", "g=old"}
	if got := readAll(t, r, store.CFMeta, "", "", false); !slices.Equal(got, want) {
		t.Errorf("forward: %q, want %q", got, want)
	}
	slices.Reverse(want)
	if got := readAll(t, r, store.CFMeta, "", "", true); !slices.Equal(got, want) {
		t.Errorf("reverse: %q, want %q", got, want)
	}
	if got := readAll(t, r, store.CFMeta, "b", "f", false); !slices.Equal(got, []string{"b=new", "e=old"}) {
		t.Errorf("[b, f): %q", got)
	}
	if v, ok, _ := r.Get(store.CFMeta, []byte("c")); ok {
		t.Errorf("c reads %q after its delete", v)
	}
	if n := g.KeyCount(0); n != 4 {
		t.Errorf("KeyCount in the transaction %d, want 4", n)
	}
	// A failed command's writes leave the reads too.
	boom := errors.New("boom")
	if err := g.Add(func(b *store.Batch) error {
		b.Put(store.CFMeta, []byte("z"), []byte("x"))
		if _, ok, _ := r.Get(store.CFMeta, []byte("z")); !ok {
			t.Error("a command does not read its own put")
		}
		return boom
	}); !errors.Is(err, boom) {
		t.Fatal(err)
	}
	if _, ok, _ := r.Get(store.CFMeta, []byte("z")); ok {
		t.Error("a failed command's put is still read")
	}
	// A range deletion hides the store's records and the batch's older
	// ones; a later put shows again.
	if err := g.Add(func(b *store.Batch) error {
		b.DeleteRange(store.CFMeta, []byte("a"), []byte("f"))
		b.ResetKeys(0)
		b.Put(store.CFMeta, []byte("d"), []byte("after"))
		b.AddKeys(0, 1)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, r, store.CFMeta, "", "", false); !slices.Equal(got, []string{"d=after", "g=old"}) {
		t.Errorf("after the range deletion: %q", got)
	}
	if n := g.KeyCount(0); n != 1 {
		t.Errorf("KeyCount after the reset %d, want 1 (the deltas before it are dropped)", n)
	}
	if _, ok := mustGet(t, st, "b"); ok {
		t.Error("another reader sees the transaction's write before Commit")
	}
	if err := g.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, st, store.CFMeta, "", "", false); !slices.Equal(got, []string{"d=after", "g=old"}) {
		t.Errorf("after Commit: %q", got)
	}
	if n := st.KeyCount(0); n != 1 {
		t.Errorf("KeyCount after Commit %d, want 1", n)
	}

	g = st.BeginTxn(true)
	if err := g.Add(func(b *store.Batch) error { b.Put(store.CFMeta, []byte("q"), []byte("1")); return nil }); err != nil {
		t.Fatal(err)
	}
	g.Abort()
	if _, ok := mustGet(t, st, "q"); ok {
		t.Error("Abort wrote")
	}
	unlock := st.Lock(lk("a")) // the locks are free again
	unlock()
}

// TestTxnReaderMatchesModel runs random puts, deletes and range deletions
// through a transaction over random stored records and compares every read
// with a map.
func TestTxnReaderMatchesModel(t *testing.T) {
	st := storetest.Open(t, nil)
	rng := rand.New(rand.NewPCG(1, 2))
	key := func() string { return fmt.Sprintf("k%02d", rng.IntN(40)) }
	model := map[string]string{}
	b := st.NewBatch()
	for range 20 {
		k := key()
		model[k] = "s" + k
		b.Put(store.CFMeta, []byte(k), []byte(model[k]))
	}
	if err := st.Write(b); err != nil {
		t.Fatal(err)
	}
	b.Release()
	g := st.BeginTxn(true)
	defer g.Abort()
	r := g.Reader()
	for i := range 300 {
		op := rng.IntN(10)
		k, v := key(), fmt.Sprint("v", i)
		_ = g.Add(func(b *store.Batch) error {
			switch {
			case op < 5:
				b.Put(store.CFMeta, []byte(k), []byte(v))
				model[k] = v
			case op < 8:
				b.Delete(store.CFMeta, []byte(k))
				delete(model, k)
			default:
				hi := key()
				if hi < k {
					k, hi = hi, k
				}
				b.DeleteRange(store.CFMeta, []byte(k), []byte(hi))
				for m := range model {
					if m >= k && m < hi {
						delete(model, m)
					}
				}
			}
			return nil
		})
		lo, hi := key(), key()
		if hi < lo {
			lo, hi = hi, lo
		}
		var want []string
		for m, v := range model {
			if m >= lo && m < hi {
				want = append(want, m+"="+v)
			}
		}
		slices.Sort(want)
		if got := readAll(t, r, store.CFMeta, lo, hi, false); !slices.Equal(got, want) {
			t.Fatalf("step %d: [%s, %s) reads %q, want %q", i, lo, hi, got, want)
		}
		slices.Reverse(want)
		if got := readAll(t, r, store.CFMeta, lo, hi, true); !slices.Equal(got, want) {
			t.Fatalf("step %d: reverse [%s, %s) reads %q, want %q", i, lo, hi, got, want)
		}
		got, ok, err := r.Get(store.CFMeta, []byte(lo))
		if err != nil || ok != (model[lo] != "") || string(got) != model[lo] {
			t.Fatalf("step %d: Get %s = %q %v, want %q", i, lo, got, ok, model[lo])
		}
	}
}
