package types

import (
	"bytes"
	"testing"

	"github.com/shaledb/shale/server/store"
)

// TestSetOverLongStringReadsHead: the metadata cache keeps only the head of
// a string record too long to cache whole, and SET and MSET, which replace
// the value unread, are served by it without reading RocksDB; every command
// that needs the value still gets all of it.
func TestSetOverLongStringReadsHead(t *testing.T) {
	d, clock := newTestDB(t)
	misses := func() uint64 { return d.st.CacheStats(store.CFMeta).Misses }
	long := func(c byte) []byte { return bytes.Repeat([]byte{c}, 2000) }
	k := []byte("k")
	set := func(v []byte, o SetOptions) {
		t.Helper()
		if _, err := d.Set(k, v, o); err != nil {
			t.Fatal(err)
		}
	}
	get := func() []byte {
		t.Helper()
		v, _, err := d.Get(k)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}

	set(long('a'), SetOptions{})
	before := misses()
	set(long('b'), SetOptions{ExpireMs: *clock + 60_000})
	set(long('c'), SetOptions{KeepTTL: true})
	if _, err := d.MSet(bs("k", string(long('d'))), Overwrite); err != nil {
		t.Fatal(err)
	}
	if n, err := d.Exists([][]byte{k}); err != nil || n != 1 {
		t.Fatalf("EXISTS = %d, %v", n, err)
	}
	if typ, err := d.Type(k); err != nil || typ != "string" {
		t.Fatalf("TYPE = %q, %v", typ, err)
	}
	if at, _, err := d.TTL(k); err != nil || at != -1 {
		t.Fatalf("TTL = %d, %v; want -1", at, err)
	}
	if n := misses() - before; n != 0 {
		t.Fatalf("SET, MSET, EXISTS, TYPE and TTL of a long string missed the metadata cache %d times, want 0", n)
	}
	if v := get(); !bytes.Equal(v, long('d')) {
		t.Fatalf("GET = %d bytes of %q", len(v), v[:1])
	}

	// KEEPTTL kept the expiry read from the head; MSET dropped it.
	set(long('e'), SetOptions{ExpireMs: *clock + 60_000})
	set(long('f'), SetOptions{KeepTTL: true})
	if at, _, err := d.TTL(k); err != nil || at != *clock+60_000 {
		t.Fatalf("TTL after SET KEEPTTL = %d, %v; want %d", at, err, *clock+60_000)
	}

	// Commands that rewrite the record keep the value they did not change.
	if _, err := d.Expire(k, *clock+120_000, 0); err != nil {
		t.Fatal(err)
	}
	if v := get(); !bytes.Equal(v, long('f')) {
		t.Fatalf("GET after EXPIRE = %d bytes", len(v))
	}
	if n, err := d.Append(k, []byte("g")); err != nil || n != 2001 {
		t.Fatalf("APPEND = %d, %v; want 2001", n, err)
	}
	if n, err := d.StrLen(k); err != nil || n != 2001 {
		t.Fatalf("STRLEN = %d, %v; want 2001", n, err)
	}
	if r, err := d.Set(k, []byte("short"), SetOptions{Get: true}); err != nil || !bytes.Equal(r.Old, append(long('f'), 'g')) {
		t.Fatalf("SET GET returned %d bytes, %v", len(r.Old), err)
	}
	set(long('h'), SetOptions{})
	set([]byte{}, SetOptions{})
	if v := get(); v == nil || len(v) != 0 {
		t.Fatalf("GET after SET of an empty value = %q", v)
	}
	set(long('i'), SetOptions{})
	before = misses()
	if n, err := d.Del([][]byte{k}); err != nil || n != 1 {
		t.Fatalf("DEL = %d, %v", n, err)
	}
	if n := misses() - before; n != 0 {
		t.Fatalf("DEL of a long string missed the metadata cache %d times, want 0", n)
	}
	if v, ok, err := d.Get(k); err != nil || ok || v != nil {
		t.Fatalf("GET after DEL = %q, %v, %v", v, ok, err)
	}
}
