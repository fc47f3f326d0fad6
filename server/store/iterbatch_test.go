package store

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rs/zerolog"

	"github.com/shaledb/shale/conf"
)

// TestIterateBatchesMatchGrocksdb walks the same records with Iterate (many
// records per cgo call, see iterBatches) and with grocksdb's own iterator,
// forward and backward, within bounds and stopping early: they must agree.
// Values include empty ones and ones bigger than a batch's buffer.
func TestIterateBatchesMatchGrocksdb(t *testing.T) {
	cfg := conf.Default()
	cfg.Storage.Dir = t.TempDir()
	st, err := Open(cfg, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	b := st.NewBatch()
	for i := range 3000 {
		var val []byte
		switch i % 100 {
		case 7:
			val = bytes.Repeat([]byte{byte(i)}, iterBufBytes+rng.IntN(3*iterBufBytes))
		case 8:
			val = []byte{}
		default:
			val = fmt.Appendf(nil, "value-%d-%s", i, bytes.Repeat([]byte("x"), rng.IntN(300)))
		}
		b.Put(CFSubkey, fmt.Appendf(nil, "key-%05d", rng.IntN(100000)), val)
	}
	if err := st.Write(b); err != nil {
		t.Fatal(err)
	}
	b.Release()
	if err := st.flushCF(CFSubkey); err != nil { // half in an SST file, half in the memtable
		t.Fatal(err)
	}
	b = st.NewBatch()
	for i := range 1000 {
		b.Put(CFSubkey, fmt.Appendf(nil, "key-%05d", rng.IntN(100000)), fmt.Appendf(nil, "new-%d", i))
	}
	if err := st.Write(b); err != nil {
		t.Fatal(err)
	}
	b.Release()

	type rec struct{ k, v string }
	reference := func(lower, upper []byte, reverse bool, limit int) []rec {
		ro := boundedReadOptions(lower, upper)
		defer ro.Destroy()
		it := st.db.NewIteratorCF(ro, st.cfs[CFSubkey])
		defer it.Close()
		var out []rec
		if reverse {
			it.SeekToLast()
		} else {
			it.SeekToFirst()
		}
		for it.Valid() && len(out) < limit {
			out = append(out, rec{string(it.Key().Data()), string(it.Value().Data())})
			if reverse {
				it.Prev()
			} else {
				it.Next()
			}
		}
		return out
	}
	for _, tc := range []struct {
		lower, upper string
		limit        int
	}{
		{"", "", 1 << 30},
		{"key-1", "key-5", 1 << 30},
		{"key-2", "key-3", 10},
		{"key-4", "", 1},
		{"key-99999z", "", 1 << 30}, // nothing
	} {
		for _, reverse := range []bool{false, true} {
			var lower, upper []byte
			if tc.lower != "" {
				lower = []byte(tc.lower)
			}
			if tc.upper != "" {
				upper = []byte(tc.upper)
			}
			want := reference(lower, upper, reverse, tc.limit)
			var got []rec
			err := st.Iterate(CFSubkey, lower, upper, reverse, func(k, v []byte) bool {
				got = append(got, rec{string(k), string(v)})
				return len(got) < tc.limit
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("%+v reverse=%v: %d records, want %d", tc, reverse, len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%+v reverse=%v: record %d = %q, want %q", tc, reverse, i, got[i].k, want[i].k)
				}
			}
		}
	}
}
