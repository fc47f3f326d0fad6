package store_test

import (
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/shaledb/shale/metadata"
	"github.com/shaledb/shale/server/store"
	"github.com/shaledb/shale/server/store/storetest"
)

// TestFormatVersion: a new store is written in the current format; a store
// of format 1 is upgraded in place (its records read as they are); a store
// of an unknown format is refused, untouched.
func TestFormatVersion(t *testing.T) {
	cfg := storetest.Config(t)
	version := func(st *store.Store) uint32 {
		t.Helper()
		raw, ok, err := st.Get(store.CFDefault, metadata.KeyFormatVersion)
		if err != nil || !ok {
			t.Fatalf("format version: %v, %v", ok, err)
		}
		v, err := metadata.DecodeU32(raw)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	setVersion := func(v uint32) {
		t.Helper()
		st := storetest.Open(t, &cfg)
		writeBatch(t, st, func(b *store.Batch) {
			b.Put(store.CFDefault, metadata.KeyFormatVersion, metadata.EncodeU32(nil, v))
		})
		st.Close()
	}

	st := storetest.Open(t, &cfg)
	if v := version(st); v != metadata.FormatVersion {
		t.Fatalf("new store: format %d, want %d", v, metadata.FormatVersion)
	}
	st.Close()

	setVersion(1)
	st = storetest.Open(t, &cfg)
	if v := version(st); v != metadata.FormatVersion {
		t.Fatalf("format 1 store: format %d after open, want %d", v, metadata.FormatVersion)
	}
	st.Close()

	setVersion(metadata.FormatVersion + 1)
	_, err := store.Open(cfg, zerolog.Nop())
	if err == nil || !strings.Contains(err.Error(), "cannot read it") {
		t.Fatalf("open of a store from the future: %v, want a refusal", err)
	}
}

// TestDeleteRangeInverted: an inverted or empty range deletes nothing and
// leaves the batch writable; RocksDB would refuse the whole batch, and the
// store would take that for a failing disk.
func TestDeleteRangeInverted(t *testing.T) {
	st := storetest.Open(t, nil)
	writeBatch(t, st, func(b *store.Batch) {
		b.Put(store.CFDefault, []byte("k"), []byte("v"))
		b.DeleteRange(store.CFDefault, []byte("z"), []byte("a"))
		b.DeleteRange(store.CFDefault, []byte("k"), []byte("k"))
	})
	if v, ok, err := st.Get(store.CFDefault, []byte("k")); err != nil || !ok || string(v) != "v" {
		t.Fatalf("k = %q, %v, %v; want the batch's write", v, ok, err)
	}
}
