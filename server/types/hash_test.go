package types

import (
	"fmt"
	"slices"
	"testing"
)

// TestHRandFieldOnStore draws from a hash big enough to sample by seeks and
// checks every draw against the hash's contents, with and without values.
func TestHRandFieldOnStore(t *testing.T) {
	d, _ := newTestDB(t)
	key := []byte("h")
	const n = 20000
	var pairs [][]byte
	want := map[string]string{}
	for i := range n {
		f, v := fmt.Sprintf("user:%d", i), fmt.Sprintf("v%d", i*7)
		pairs = append(pairs, []byte(f), []byte(v))
		want[f] = v
	}
	must[int64](t)(d.HSet(key, pairs))
	check := func(name string, got [][]byte, count int, withValues, distinct bool) {
		t.Helper()
		step := 1
		if withValues {
			step = 2
		}
		if len(got) != count*step {
			t.Fatalf("%s: %d items, want %d", name, len(got), count*step)
		}
		seen := map[string]bool{}
		for i := 0; i < len(got); i += step {
			f := string(got[i])
			v, ok := want[f]
			if !ok || (distinct && seen[f]) {
				t.Fatalf("%s: %q is not a field or repeats", name, f)
			}
			if withValues && string(got[i+1]) != v {
				t.Fatalf("%s: %q has value %q, want %q", name, f, got[i+1], v)
			}
			seen[f] = true
		}
	}
	mr := must[[][]byte](t)
	seen := map[string]bool{}
	for range 300 {
		got := mr(d.HRandField(key, 1, false))
		check("HRANDFIELD 1", got, 1, false, true)
		seen[string(got[0])] = true
	}
	if len(seen) < 270 { // 300 uniform draws from 20000 give about 298
		t.Errorf("300 single draws gave %d different fields", len(seen))
	}
	check("HRANDFIELD 150 WITHVALUES", mr(d.HRandField(key, 150, true)), 150, true, true)
	check("HRANDFIELD 5000", mr(d.HRandField(key, 5000, false)), 5000, false, true)
	check("HRANDFIELD -150 WITHVALUES", mr(d.HRandField(key, -150, true)), 150, true, false)
	check("HRANDFIELD -30000", mr(d.HRandField(key, -30000, false)), 30000, false, false)
	check("HRANDFIELD 30000 WITHVALUES", mr(d.HRandField(key, 30000, true)), n, true, true)
	if got := mr(d.HRandField([]byte("nokey"), 5, true)); len(got) != 0 {
		t.Errorf("HRANDFIELD of a missing key = %q", got)
	}
}

// TestHDelRewritesChurnedHash is TestSRemRewritesChurnedSet's twin for a
// hash: the HDELs rewrite it at the same counts, and the fields that stay
// keep their values, and the hash its TTL.
func TestHDelRewritesChurnedHash(t *testing.T) {
	d, clock := newTestDB(t)
	key := []byte("h")
	fillHash(t, d, "h", 1000)
	if ok, err := d.Expire(key, *clock+60_000, 0); err != nil || !ok {
		t.Fatal(ok, err)
	}
	loaded := func() *keyState {
		ks := &keyState{}
		if err := d.loadHash(ks, key); err != nil {
			t.Fatal(err)
		}
		return ks
	}
	uid := loaded().m.UID
	var rewrites []int
	for i := range 1000 {
		field := fmt.Appendf(nil, "field:%09d", i)
		if n := must[int64](t)(d.HDel(key, [][]byte{field, []byte("absent")})); n != 1 {
			t.Fatalf("HDEL %s removed %d", field, n)
		}
		if i == 999 {
			break
		}
		ks := loaded()
		if ks.m.UID == uid {
			continue
		}
		rewrites = append(rewrites, i+1)
		uid = ks.m.UID
		all := must[[][]byte](t)(d.HGetAll(key))
		if len(all) != 2*(999-i) || ks.m.Size != uint64(999-i) || ks.m.ExpireMs != *clock+60_000 {
			t.Fatalf("after the rewrite at HDEL %d: %d fields (size %d, expire %d), want %d", i+1, len(all)/2, ks.m.Size, ks.m.ExpireMs, 999-i)
		}
		for j := 0; j < len(all); j += 2 {
			if want := fmt.Sprintf("field:%09d", i+1+j/2); string(all[j]) != want || string(all[j+1]) != "value-0123456789" {
				t.Fatalf("after the rewrite at HDEL %d: field %q = %q, want %s", i+1, all[j], all[j+1], want)
			}
		}
	}
	if want := []int{334, 556, 704, 832, 960}; !slices.Equal(rewrites, want) {
		t.Fatalf("HDEL rewrote the hash at %v, want %v", rewrites, want)
	}
	if d.KeyCount() != 0 || d.ExpiresCount() != 0 {
		t.Fatalf("DBSIZE %d, expires %d after removing every field", d.KeyCount(), d.ExpiresCount())
	}
}
