package store_test

import (
	"testing"

	"github.com/shaledb/shale/server/store"
	"github.com/shaledb/shale/server/store/storetest"
)

// TestSnapshotReads: a snapshot reads the store as it was when taken, by
// Get, MultiGet and Iterate, while the store itself moves on.
func TestSnapshotReads(t *testing.T) {
	st := storetest.Open(t, nil)
	put := func(k, v string) {
		b := st.NewBatch()
		defer b.Release()
		b.Put(store.CFMeta, []byte(k), []byte(v))
		if err := st.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	put("a", "1")
	if _, _, err := st.Get(store.CFMeta, []byte("a")); err != nil { // cached now
		t.Fatal(err)
	}
	sn := st.Snapshot()
	defer sn.Release()
	put("a", "2")
	put("b", "3")

	if v, ok, err := sn.Get(store.CFMeta, []byte("a")); err != nil || !ok || string(v) != "1" {
		t.Errorf("snapshot Get a = %q %v %v, want 1", v, ok, err)
	}
	if _, ok, _ := sn.Get(store.CFMeta, []byte("b")); ok {
		t.Error("snapshot Get sees b, written after it")
	}
	vals, found, err := sn.MultiGet(store.CFMeta, [][]byte{[]byte("a"), []byte("b")})
	if err != nil || !found[0] || found[1] || string(vals[0]) != "1" {
		t.Errorf("snapshot MultiGet = %q %v %v", vals, found, err)
	}
	var seen []string
	if err := sn.Iterate(store.CFMeta, nil, nil, false, func(k, v []byte) bool {
		seen = append(seen, string(k)+"="+string(v))
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 || seen[0] != "a=1" {
		t.Errorf("snapshot Iterate saw %q, want [a=1]", seen)
	}
	if v, _, _ := st.Get(store.CFMeta, []byte("a")); string(v) != "2" {
		t.Errorf("store Get a = %q, want 2", v)
	}
}
