package store_test

import (
	"reflect"
	"testing"

	"github.com/shaledb/shale/server/store"
	"github.com/shaledb/shale/server/store/storetest"
)

// TestLibraries: FUNCTION's libraries round-trip through the default CF,
// survive a reopen, and DeleteLibrary and DeleteLibraries remove them and
// nothing else.
func TestLibraries(t *testing.T) {
	cfg := storetest.Config(t)
	st := storetest.Open(t, &cfg)
	write := func(fn func(b *store.Batch)) {
		t.Helper()
		b := st.NewBatch()
		defer b.Release()
		fn(b)
		if err := st.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	libs := func(want ...store.Library) {
		t.Helper()
		got, err := st.Libraries()
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) || (len(want) > 0 && !reflect.DeepEqual(got, want)) {
			t.Fatalf("Libraries() = %q, want %q", got, want)
		}
	}
	libs()
	write(func(b *store.Batch) {
		b.PutLibrary("b", []byte("code b"))
		b.PutLibrary("a", []byte("code a"))
		b.AddKeys(0, 3) // a counter of the same CF, which the deletes must keep
	})
	libs(store.Library{Name: "a", Code: []byte("code a")}, store.Library{Name: "b", Code: []byte("code b")})
	write(func(b *store.Batch) { b.DeleteLibrary("a") })
	libs(store.Library{Name: "b", Code: []byte("code b")})
	st.Close()
	st = storetest.Open(t, &cfg)
	libs(store.Library{Name: "b", Code: []byte("code b")})
	write(func(b *store.Batch) { b.DeleteLibraries() })
	libs()
	if n := st.KeyCount(0); n != 3 {
		t.Fatalf("KeyCount(0) = %d after DeleteLibraries, want 3", n)
	}
}
