package types

import (
	"fmt"
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
