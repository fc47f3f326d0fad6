package types

import (
	"math/big"
	"testing"

	"github.com/shaledb/shale/metadata"
	"github.com/shaledb/shale/server/store"
)

func wantEncoding(t *testing.T, d *DB, key, want string) {
	t.Helper()
	got, ok, err := d.ObjectEncoding([]byte(key))
	if err != nil || !ok || got != want {
		t.Fatalf("OBJECT ENCODING %s = %q, %v, %v; want %q", key, got, ok, err, want)
	}
}

// TestEncodingTransitions follows Redis 7.0.15's choices, checked against
// it by hand: convert on the write that outgrows a limit, never back.
func TestEncodingTransitions(t *testing.T) {
	d, _ := newTestDB(t)
	lim := EncodingLimits{HashMaxListpackEntries: 3, HashMaxListpackValue: 4, SetMaxIntsetEntries: 3, ZSetMaxListpackEntries: 3, ZSetMaxListpackValue: 4}
	d.e.SetEncodingLimits(lim)
	zs := func(ms ...string) []ScoreMember {
		var out []ScoreMember
		for i, m := range ms {
			out = append(out, ScoreMember{Score: float64(i), Member: []byte(m)})
		}
		return out
	}

	must[int64](t)(d.HSet([]byte("h"), bs("a", "1", "b", "2", "c", "3")))
	wantEncoding(t, d, "h", "listpack")
	must[int64](t)(d.HSet([]byte("h"), bs("d", "4")))
	wantEncoding(t, d, "h", "hashtable")
	must[int64](t)(d.HDel([]byte("h"), bs("a", "b", "c")))
	wantEncoding(t, d, "h", "hashtable") // never back

	must[int64](t)(d.HSet([]byte("h2"), bs("a", "1")))
	if ok := must[bool](t)(d.HSetNX([]byte("h2"), []byte("a"), []byte("longvalue"))); ok {
		t.Fatal("HSETNX of an existing field set it")
	}
	wantEncoding(t, d, "h2", "listpack") // HSETNX that sets nothing converts nothing
	must[[]byte](t)(d.HIncrByFloat([]byte("h2"), []byte("a"), big.NewFloat(1.1234)))
	wantEncoding(t, d, "h2", "hashtable") // "2.1234" is longer than 4

	must[int64](t)(d.HSet([]byte("h3"), bs("a", "1", "b", "2", "c", "3")))
	d.e.SetEncodingLimits(EncodingLimits{HashMaxListpackEntries: 2, HashMaxListpackValue: 4, SetMaxIntsetEntries: 3, ZSetMaxListpackEntries: 3, ZSetMaxListpackValue: 4})
	wantEncoding(t, d, "h3", "listpack") // a lower limit converts on the next write only
	must[int64](t)(d.HSet([]byte("h3"), bs("a", "5")))
	wantEncoding(t, d, "h3", "hashtable") // an update converts too
	d.e.SetEncodingLimits(lim)

	must[int64](t)(d.SAdd([]byte("s"), bs("1", "2", "3")))
	wantEncoding(t, d, "s", "intset")
	must[int64](t)(d.SAdd([]byte("s"), bs("3")))
	wantEncoding(t, d, "s", "intset")
	must[int64](t)(d.SAdd([]byte("s"), bs("4")))
	wantEncoding(t, d, "s", "hashtable")
	must[int64](t)(d.SRem([]byte("s"), bs("4")))
	wantEncoding(t, d, "s", "hashtable")
	must[int64](t)(d.SAdd([]byte("s2"), bs("1", "a")))
	must[bool](t)(d.SMove([]byte("s2"), []byte("s3"), []byte("1")))
	wantEncoding(t, d, "s3", "intset")
	must[int64](t)(d.SAdd([]byte("s4"), bs("1", "2")))
	must[int64](t)(d.SInterStore([]byte("s5"), bs("s4", "s4")))
	wantEncoding(t, d, "s5", "intset")
	must[int64](t)(d.SUnionStore([]byte("s6"), bs("s2", "s4")))
	wantEncoding(t, d, "s6", "hashtable")

	must[ZAddResult](t)(d.ZAdd([]byte("z"), 0, zs("a", "b", "c")))
	wantEncoding(t, d, "z", "listpack")
	must[ZAddResult](t)(d.ZAdd([]byte("z"), 0, zs("d")))
	wantEncoding(t, d, "z", "skiplist")
	must[int64](t)(d.ZRem([]byte("z"), bs("d", "c")))
	wantEncoding(t, d, "z", "skiplist")
	must[ZAddResult](t)(d.ZAdd([]byte("z2"), 0, zs("abcd")))
	d.e.SetEncodingLimits(EncodingLimits{HashMaxListpackEntries: 3, HashMaxListpackValue: 4, SetMaxIntsetEntries: 3, ZSetMaxListpackEntries: 3, ZSetMaxListpackValue: 2})
	must[ZAddResult](t)(d.ZAdd([]byte("z2"), 0, []ScoreMember{{Score: 5, Member: []byte("abcd")}}))
	wantEncoding(t, d, "z2", "listpack") // a new score converts nothing
	must[ZAddResult](t)(d.ZAdd([]byte("z2"), 0, zs("xyz")))
	wantEncoding(t, d, "z2", "skiplist")

	d.e.SetEncodingLimits(EncodingLimits{})
	must[int64](t)(d.HSet([]byte("zero"), bs("", "")))
	wantEncoding(t, d, "zero", "hashtable") // one field is more than 0
}

// TestEncodingLegacyRecord: a record from before format 2 names no
// encoding; OBJECT ENCODING derives it from the elements, and the next write
// records it.
func TestEncodingLegacyRecord(t *testing.T) {
	d, _ := newTestDB(t)
	must[int64](t)(d.HSet([]byte("h"), fields(3)))
	must[int64](t)(d.SAdd([]byte("s"), bs("1", "2", "3")))
	must[ZAddResult](t)(d.ZAdd([]byte("z"), 0, []ScoreMember{{Score: 1, Member: []byte("m")}}))
	for _, key := range []string{"h", "s", "z"} {
		ks := &keyState{}
		if err := d.load(ks, []byte(key), d.e.now()); err != nil {
			t.Fatal(err)
		}
		ks.m.Enc = metadata.EncUnknown
		raw := ks.m.Append(nil)
		if len(raw) != 25 {
			t.Fatalf("legacy record of %d bytes", len(raw))
		}
		if err := d.write(func(b *store.Batch) error { b.Put(store.CFMeta, ks.mkey, raw); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	wantEncoding(t, d, "h", "listpack")
	wantEncoding(t, d, "s", "intset")
	d.e.SetEncodingLimits(EncodingLimits{HashMaxListpackEntries: 2, HashMaxListpackValue: 64, SetMaxIntsetEntries: 512, ZSetMaxListpackEntries: 128, ZSetMaxListpackValue: 64})
	wantEncoding(t, d, "h", "hashtable") // derived, at the current limits

	must[int64](t)(d.HSet([]byte("h"), bs("f1", "x"))) // records hashtable
	d.e.SetEncodingLimits(DefaultEncodingLimits())     // would derive listpack again
	wantEncoding(t, d, "h", "hashtable")               // but the record remembers
	must[int64](t)(d.SAdd([]byte("s"), bs("4")))       // records intset
	must[ZAddResult](t)(d.ZAdd([]byte("z"), 0, []ScoreMember{{Score: 2, Member: []byte("n")}}))
	for key, want := range map[string]metadata.Encoding{"h": metadata.EncHashtable, "s": metadata.EncIntset, "z": metadata.EncListpack} {
		ks := &keyState{}
		if err := d.load(ks, []byte(key), d.e.now()); err != nil {
			t.Fatal(err)
		}
		if ks.m.Enc != want {
			t.Errorf("%s: recorded %s, want %s", key, ks.m.Enc, want)
		}
	}
}
