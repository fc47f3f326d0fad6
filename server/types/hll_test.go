package types

import (
	"errors"
	"strconv"
	"testing"

	"github.com/shaledb/shale/server/hll"
)

// TestHLLReadModifyWrite: the HyperLogLog commands rewrite the string
// under the key, keep its expiry, store PFCOUNT's cache only when they
// computed it, and follow the sparse size limit.
func TestHLLReadModifyWrite(t *testing.T) {
	d, clock := newTestDB(t)
	key := []byte("h")
	get := func(k []byte) []byte {
		t.Helper()
		v, ok, err := d.Get(k)
		if err != nil || !ok {
			t.Fatalf("GET %s: %v, %v", k, ok, err)
		}
		return v
	}
	if !must[bool](t)(d.PFAdd(key, nil)) {
		t.Fatal("PFADD of a missing key with no element: not created")
	}
	if got := get(key); string(got) != string(hll.New()[:15])+"\x80\x7f\xff" {
		t.Fatalf("empty value %q", got)
	}
	if !must[bool](t)(d.Expire(key, *clock+100_000, 0)) {
		t.Fatal("EXPIRE")
	}
	for i := range 50 {
		must[bool](t)(d.PFAdd(key, [][]byte{[]byte(strconv.Itoa(i))}))
	}
	if n := must[int64](t)(d.PFCount([][]byte{key})); n != 50 {
		t.Fatalf("PFCOUNT %d, want 50", n)
	}
	v := get(key)
	if c, wrote, err := hll.Count(append([]byte(nil), v...)); c != 50 || wrote || err != nil {
		t.Fatalf("the stored cache: %d, stale %v, %v", c, wrote, err)
	}
	if exp, _ := must2(t)(d.TTL(key)); exp != *clock+100_000 {
		t.Fatalf("expiry %d after the writes", exp)
	}
	// Dense once past hll-sparse-max-bytes.
	lim := d.e.encodingLimits()
	small := *lim
	small.HLLSparseMaxBytes = 40
	d.e.SetEncodingLimits(small)
	defer d.e.SetEncodingLimits(*lim)
	must[bool](t)(d.PFAdd(key, [][]byte{[]byte("x"), []byte("y"), []byte("z")}))
	if v := get(key); len(v) != hll.DenseSize {
		t.Fatalf("%d bytes, want dense", len(v))
	}
	// PFMERGE into a new key, and the union count.
	if err := d.PFMerge([]byte("m"), [][]byte{key, []byte("missing")}); err != nil {
		t.Fatal(err)
	}
	if n := must[int64](t)(d.PFCount([][]byte{[]byte("m"), key})); n != 53 {
		t.Fatalf("union %d, want 53", n)
	}
	// Types.
	must[SetResult](t)(d.Set([]byte("s"), []byte("not an hll"), SetOptions{}))
	if _, err := d.PFAdd([]byte("s"), nil); !errors.Is(err, hll.ErrNotHLL) {
		t.Fatalf("PFADD of a plain string: %v", err)
	}
	must[int64](t)(d.SAdd([]byte("set"), [][]byte{[]byte("a")}))
	if _, err := d.PFCount([][]byte{key, []byte("set")}); !errors.Is(err, ErrWrongType) {
		t.Fatalf("PFCOUNT of a set: %v", err)
	}
}

func must2(t *testing.T) func(a, b int64, err error) (int64, int64) {
	return func(a, b int64, err error) (int64, int64) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return a, b
	}
}
