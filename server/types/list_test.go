package types

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/shaledb/shale/server/store"
	"github.com/shaledb/shale/server/store/storetest"
	"github.com/shaledb/shale/subkey"
)

func TestListSpan(t *testing.T) {
	for _, tc := range []struct {
		start, stop int64
		size        uint64
		from, to    uint64
	}{
		{0, -1, 5, 0, 5},
		{-100, 100, 5, 0, 5},
		{3, 1, 5, 0, 0},
		{5, 10, 5, 0, 0},
		{-1, -2, 5, 0, 0},
		{-2, -1, 5, 3, 5},
		{0, 0, 0, 0, 0},
		{0, -1, 0, 0, 0},
		{math.MinInt64, 1, 5, 0, 2},
		{0, math.MaxInt64, 5, 0, 5},
		{math.MinInt64, math.MinInt64, 5, 0, 0},
		{4, 4, 5, 4, 5},
		{-5, -5, 5, 0, 1},
		{-6, -6, 5, 0, 0},
	} {
		t.Run(fmt.Sprintf("%d,%d/%d", tc.start, tc.stop, tc.size), func(t *testing.T) {
			from, to := listSpan(tc.start, tc.stop, tc.size)
			if from != tc.from || to != tc.to {
				t.Fatalf("listSpan = [%d, %d), want [%d, %d)", from, to, tc.from, tc.to)
			}
		})
	}
}

func TestListIndex(t *testing.T) {
	for _, tc := range []struct {
		index int64
		size  uint64
		pos   uint64
		ok    bool
	}{
		{0, 3, 0, true},
		{2, 3, 2, true},
		{3, 3, 0, false},
		{-1, 3, 2, true},
		{-3, 3, 0, true},
		{-4, 3, 0, false},
		{0, 0, 0, false},
		{math.MinInt64, 3, 0, false},
		{math.MaxInt64, 3, 0, false},
	} {
		pos, ok := listIndex(tc.index, tc.size)
		if pos != tc.pos || ok != tc.ok {
			t.Errorf("listIndex(%d, %d) = %d, %v; want %d, %v", tc.index, tc.size, pos, ok, tc.pos, tc.ok)
		}
	}
}

func strs(vals [][]byte) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = string(v)
	}
	return out
}

func bs(ss ...string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

// listRecords returns the indexes of the key's element records on disk.
func listRecords(t *testing.T, d *DB, key string) []uint64 {
	t.Helper()
	uid, ok, err := d.UID([]byte(key))
	if err != nil || !ok {
		t.Fatalf("UID(%q) = %v, %v", key, ok, err)
	}
	var idx []uint64
	err = d.iterSub(uid, func(sub, _ []byte) bool {
		_, i, err := subkey.DecodeListKey(subkey.AppendKey(nil, uid, sub))
		if err != nil {
			t.Fatal(err)
		}
		idx = append(idx, i)
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	return idx
}

func TestListBasics(t *testing.T) {
	d, _ := newTestDB(t)
	k := []byte("l")
	mi := must[int64](t)
	if n := mi(d.RPush(k, bs("a", "b", "c"))); n != 3 {
		t.Fatalf("RPUSH = %d", n)
	}
	if n := mi(d.LPush(k, bs("x", "y"))); n != 5 {
		t.Fatalf("LPUSH = %d", n)
	}
	got := strs(must[[][]byte](t)(d.LRange(k, 0, -1)))
	if want := []string{"y", "x", "a", "b", "c"}; !slices.Equal(got, want) {
		t.Fatalf("LRANGE = %q, want %q", got, want)
	}
	// New lists start in the middle of the index space; LPUSH went below.
	rec := listRecords(t, d, "l")
	if rec[0] != subkey.ListStart-2 || rec[4] != subkey.ListStart+2 {
		t.Fatalf("records at %d..%d, want ListStart-2..ListStart+2", rec[0], rec[4])
	}
	if n := mi(d.LPushX([]byte("none"), bs("a"))); n != 0 {
		t.Fatalf("LPUSHX on a missing key = %d", n)
	}
	if d.KeyCount() != 1 {
		t.Fatalf("LPUSHX created a key: DBSIZE %d", d.KeyCount())
	}
	if err := d.LSet([]byte("none"), 0, []byte("v")); !errors.Is(err, ErrNoSuchKey) {
		t.Fatalf("LSET on a missing key: %v", err)
	}
	if err := d.LSet(k, 5, []byte("v")); !errors.Is(err, ErrIndexOutOfRange) {
		t.Fatalf("LSET out of range: %v", err)
	}
	if _, err := d.HSet([]byte("h"), bs("f", "v")); err != nil {
		t.Fatal(err)
	}
	if _, err := d.LPush([]byte("h"), bs("a")); !errors.Is(err, ErrWrongType) {
		t.Fatalf("LPUSH on a hash: %v", err)
	}
	if _, _, err := d.LMove(k, []byte("h"), Left, Left); !errors.Is(err, ErrWrongType) {
		t.Fatalf("LMOVE to a hash: %v", err)
	}
	if n := mi(d.LLen(k)); n != 5 {
		t.Fatalf("LMOVE to a hash changed the source: LLEN %d", n)
	}
	// Popping everything removes the key.
	vals, ok, err := d.LPop(k, 100, Right)
	if err != nil || !ok || !slices.Equal(strs(vals), []string{"c", "b", "a", "x", "y"}) {
		t.Fatalf("RPOP 100 = %q, %v, %v", strs(vals), ok, err)
	}
	if d.KeyCount() != 1 {
		t.Fatalf("DBSIZE %d after the last pop, want 1 (the hash)", d.KeyCount())
	}
	if _, ok, _ := d.LPop(k, 1, Left); ok {
		t.Fatal("LPOP of a removed list found it")
	}
}

// TestListAgainstModel runs random commands against a list and a slice and
// compares them after each, including the records on disk: exactly the
// indexes [Head, Tail), so shifts never leave holes or garbage.
func TestListAgainstModel(t *testing.T) {
	d, _ := newTestDB(t)
	rng := rand.New(rand.NewPCG(1, 2))
	k := []byte("m")
	var model []string
	elem := func() string { return fmt.Sprint(rng.IntN(6)) } // few values: many matches
	for step := range 3000 {
		var desc string
		switch op := rng.IntN(10); op {
		case 0, 1:
			vals := []string{elem(), elem()}
			desc = fmt.Sprintf("RPUSH %q", vals)
			if _, err := d.RPush(k, bs(vals...)); err != nil {
				t.Fatal(err)
			}
			model = append(model, vals...)
		case 2:
			v := elem()
			desc = "LPUSH " + v
			if _, err := d.LPush(k, bs(v)); err != nil {
				t.Fatal(err)
			}
			model = append([]string{v}, model...)
		case 3:
			n := int64(rng.IntN(3))
			end := ListEnd(rng.IntN(2))
			desc = fmt.Sprintf("POP %d left=%v", n, end == Left)
			got, ok, err := d.LPop(k, n, end)
			if err != nil || ok != (len(model) > 0) {
				t.Fatalf("%s: ok %v, %v", desc, ok, err)
			}
			n = min(n, int64(len(model)))
			var want []string
			if end == Left {
				want = slices.Clone(model[:n])
				model = model[n:]
			} else {
				for i := range n {
					want = append(want, model[len(model)-1-int(i)])
				}
				model = model[:len(model)-int(n)]
			}
			if ok && !slices.Equal(strs(got), want) {
				t.Fatalf("%s = %q, want %q", desc, strs(got), want)
			}
		case 4:
			count := int64(rng.IntN(5) - 2)
			v := elem()
			desc = fmt.Sprintf("LREM %d %s", count, v)
			n, err := d.LRem(k, count, []byte(v))
			if err != nil {
				t.Fatal(err)
			}
			var want int64
			model, want = modelLRem(model, count, v)
			if n != want {
				t.Fatalf("%s = %d, want %d", desc, n, want)
			}
		case 5:
			place := InsertPlace(rng.IntN(2))
			pivot, v := elem(), "i"+elem()
			desc = fmt.Sprintf("LINSERT before=%v %s %s", place == Before, pivot, v)
			n, err := d.LInsert(k, place, []byte(pivot), []byte(v))
			if err != nil {
				t.Fatal(err)
			}
			want := int64(0)
			if len(model) > 0 {
				want = -1
				if i := slices.Index(model, pivot); i >= 0 {
					if place == After {
						i++
					}
					model = slices.Insert(model, i, v)
					want = int64(len(model))
				}
			}
			if n != want {
				t.Fatalf("%s = %d, want %d", desc, n, want)
			}
		case 6:
			if len(model) > 30 || rng.IntN(4) == 0 {
				start, stop := int64(rng.IntN(7)-3), int64(rng.IntN(40)-10)
				desc = fmt.Sprintf("LTRIM %d %d", start, stop)
				if err := d.LTrim(k, start, stop); err != nil {
					t.Fatal(err)
				}
				from, to := listSpan(start, stop, uint64(len(model)))
				model = model[from:to]
			}
		case 7:
			from, to := ListEnd(rng.IntN(2)), ListEnd(rng.IntN(2))
			desc = fmt.Sprintf("LMOVE self left=%v left=%v", from == Left, to == Left)
			v, ok, err := d.LMove(k, k, from, to)
			if err != nil || ok != (len(model) > 0) {
				t.Fatalf("%s: %v, %v", desc, ok, err)
			}
			if ok {
				var x string
				if from == Left {
					x, model = model[0], model[1:]
				} else {
					x, model = model[len(model)-1], model[:len(model)-1]
				}
				if to == Left {
					model = append([]string{x}, model...)
				} else {
					model = append(model, x)
				}
				if string(v) != x {
					t.Fatalf("%s = %q, want %q", desc, v, x)
				}
			}
		case 8:
			if len(model) > 0 {
				i := int64(rng.IntN(len(model)))
				desc = fmt.Sprintf("LSET %d", i)
				if err := d.LSet(k, i-int64(len(model))*int64(rng.IntN(2)), []byte("s")); err != nil {
					t.Fatal(err)
				}
				model[i] = "s"
			}
		case 9:
			v := elem()
			rank := int64(rng.IntN(5) - 2)
			if rank == 0 {
				rank = 1
			}
			count, maxlen := int64(rng.IntN(3)), int64(rng.IntN(8))
			desc = fmt.Sprintf("LPOS %s RANK %d COUNT %d MAXLEN %d", v, rank, count, maxlen)
			got, err := d.LPos(k, []byte(v), rank, count, maxlen)
			if err != nil {
				t.Fatal(err)
			}
			if want := modelLPos(model, v, rank, count, maxlen); !slices.Equal(got, want) {
				t.Fatalf("%s = %v, want %v (list %q)", desc, got, want, model)
			}
		}
		got := strs(must[[][]byte](t)(d.LRange(k, 0, -1)))
		if !slices.Equal(got, model) && !(len(got) == 0 && len(model) == 0) {
			t.Fatalf("step %d, after %s: list %q, want %q", step, desc, got, model)
		}
		if len(model) == 0 {
			if d.KeyCount() != 0 {
				t.Fatalf("step %d, after %s: empty list still counted", step, desc)
			}
			continue
		}
		ks := &keyState{}
		if err := d.loadList(ks, k); err != nil {
			t.Fatal(err)
		}
		rec := listRecords(t, d, "m")
		if uint64(len(rec)) != ks.m.Size || ks.m.Tail-ks.m.Head != ks.m.Size || rec[0] != ks.m.Head || rec[len(rec)-1] != ks.m.Tail-1 {
			t.Fatalf("step %d, after %s: %d records in [%d, %d], meta Head %d Tail %d Size %d", step, desc,
				len(rec), rec[0], rec[len(rec)-1], ks.m.Head, ks.m.Tail, ks.m.Size)
		}
	}
}

func modelLRem(model []string, count int64, v string) ([]string, int64) {
	var removed int64
	out := slices.Clone(model)
	if count >= 0 {
		for i := 0; i < len(out); {
			if out[i] == v && (count == 0 || removed < count) {
				out = slices.Delete(out, i, i+1)
				removed++
				continue
			}
			i++
		}
		return out, removed
	}
	for i := len(out) - 1; i >= 0; i-- {
		if out[i] == v && removed < -count {
			out = slices.Delete(out, i, i+1)
			removed++
		}
	}
	return out, removed
}

func modelLPos(model []string, v string, rank, count, maxlen int64) []int64 {
	var out []int64
	skip := max(rank, -rank) - 1
	n := int64(len(model))
	if maxlen > 0 {
		n = min(n, maxlen)
	}
	for j := range n {
		i := j
		if rank < 0 {
			i = int64(len(model)) - 1 - j
		}
		if model[i] != v {
			continue
		}
		if skip > 0 {
			skip--
			continue
		}
		out = append(out, i)
		if count > 0 && int64(len(out)) == count {
			break
		}
	}
	return out
}

// TestListCloseGapsSides checks that LREM moves the shorter side: removing
// near the tail shifts the tail end, near the head shifts the head end.
func TestListCloseGapsSides(t *testing.T) {
	d, _ := newTestDB(t)
	vals := make([]string, 100)
	for i := range vals {
		vals[i] = fmt.Sprint(i)
	}
	k := []byte("l")
	if _, err := d.RPush(k, bs(vals...)); err != nil {
		t.Fatal(err)
	}
	if n, err := d.LRem(k, 0, []byte("97")); err != nil || n != 1 {
		t.Fatalf("LREM = %d, %v", n, err)
	}
	rec := listRecords(t, d, "l")
	if rec[0] != subkey.ListStart || rec[len(rec)-1] != subkey.ListStart+98 {
		t.Fatalf("after removing near the tail: records [%d, %d]", rec[0]-subkey.ListStart, rec[len(rec)-1]-subkey.ListStart)
	}
	if n, err := d.LRem(k, 0, []byte("2")); err != nil || n != 1 {
		t.Fatalf("LREM = %d, %v", n, err)
	}
	rec = listRecords(t, d, "l")
	if rec[0] != subkey.ListStart+1 || rec[len(rec)-1] != subkey.ListStart+98 {
		t.Fatalf("after removing near the head: records [%d, %d]", rec[0]-subkey.ListStart, rec[len(rec)-1]-subkey.ListStart)
	}
	// LINSERT near the head moves the head side.
	if n, err := d.LInsert(k, Before, []byte("1"), []byte("x")); err != nil || n != 99 {
		t.Fatalf("LINSERT = %d, %v", n, err)
	}
	rec = listRecords(t, d, "l")
	if rec[0] != subkey.ListStart || rec[len(rec)-1] != subkey.ListStart+98 {
		t.Fatalf("after inserting near the head: records [%d, %d]", rec[0]-subkey.ListStart, rec[len(rec)-1]-subkey.ListStart)
	}
	got := strs(must[[][]byte](t)(d.LRange(k, 0, 3)))
	if want := []string{"0", "x", "1", "3"}; !slices.Equal(got, want) {
		t.Fatalf("LRANGE 0 3 = %q, want %q", got, want)
	}
}

// TestListTrimDeletesRecords: LTRIM deletes what it trims, and trimming
// everything removes the key without touching the records (the filters
// reclaim them).
func TestListTrimDeletesRecords(t *testing.T) {
	d, _ := newTestDB(t)
	k := []byte("l")
	if _, err := d.RPush(k, bs("a", "b", "c", "d", "e")); err != nil {
		t.Fatal(err)
	}
	if err := d.LTrim(k, 1, -2); err != nil {
		t.Fatal(err)
	}
	if n, _ := d.st.CountRecords(store.CFSubkey); n != 3 {
		t.Fatalf("%d sub-key records after LTRIM 1 -2, want 3", n)
	}
	if err := d.LTrim(k, 5, 1); err != nil {
		t.Fatal(err)
	}
	if d.KeyCount() != 0 {
		t.Fatal("LTRIM to nothing kept the key")
	}
}

// TestLMPopOrder: LMPOP takes the first non-empty list in key order, and a
// key of another type before it is an error.
func TestLMPopOrder(t *testing.T) {
	d, _ := newTestDB(t)
	if _, err := d.RPush([]byte("b"), bs("1", "2", "3")); err != nil {
		t.Fatal(err)
	}
	key, vals, err := d.LMPop(bs("a", "b", "b"), Right, 2)
	if err != nil || string(key) != "b" || !slices.Equal(strs(vals), []string{"3", "2"}) {
		t.Fatalf("LMPOP = %q %q %v", key, strs(vals), err)
	}
	if _, err := d.HSet([]byte("h"), bs("f", "v")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := d.LMPop(bs("h", "b"), Left, 1); !errors.Is(err, ErrWrongType) {
		t.Fatalf("LMPOP h b: %v", err)
	}
	key, vals, err = d.LMPop(bs("b", "h"), Left, 1)
	if err != nil || string(key) != "b" || !bytes.Equal(vals[0], []byte("1")) {
		t.Fatalf("LMPOP b h = %q %q %v", key, strs(vals), err)
	}
	key, _, err = d.LMPop(bs("b", "none"), Left, 1)
	if err != nil || key != nil {
		t.Fatalf("LMPOP of missing keys = %q, %v", key, err)
	}
}

// TestListRangeFromCache: the elements pushed last are read from the
// sub-key cache, not RocksDB; with a cache too small for the list, a range
// read partly from it and partly from RocksDB still comes out whole and in
// order, from either end.
func TestListRangeFromCache(t *testing.T) {
	for _, tc := range []struct {
		name       string
		smallCache bool // 64 KiB: about 770 list elements
		elements   int
	}{
		{"all cached", false, 100},
		{"mostly evicted", true, 3000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := storetest.Config(t)
			if tc.smallCache {
				cfg.Storage.SubkeyCacheBytes = 64 << 10
			}
			st := storetest.Open(t, &cfg)
			d, err := New(st, zerolog.New(zerolog.NewTestWriter(t))).DB(0)
			if err != nil {
				t.Fatal(err)
			}
			k := []byte("l")
			var model []string
			for i := range tc.elements {
				v := fmt.Sprintf("e%d", i)
				if i%2 == 0 {
					_, err = d.LPush(k, bs(v))
					model = append([]string{v}, model...)
				} else {
					_, err = d.RPush(k, bs(v))
					model = append(model, v)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			hits := st.CacheStats(store.CFSubkey).Hits
			got := strs(must[[][]byte](t)(d.LRange(k, 0, 99)))
			if !slices.Equal(got, model[:100]) {
				t.Fatalf("LRANGE 0 99 = %q, want %q", got, model[:100])
			}
			if tc.elements == 100 {
				if n := st.CacheStats(store.CFSubkey).Hits - hits; n != 100 {
					t.Fatalf("LRANGE of 100 elements just pushed hit the sub-key cache %d times, want 100", n)
				}
			}
			for from := 0; from < len(model); from += 97 {
				to := min(from+300, len(model))
				got := strs(must[[][]byte](t)(d.LRange(k, int64(from), int64(to-1))))
				if !slices.Equal(got, model[from:to]) {
					t.Fatalf("LRANGE %d %d = %q, want %q", from, to-1, got, model[from:to])
				}
			}
			for len(model) > 0 {
				n := min(37, len(model))
				vals, _, err := d.LPop(k, int64(n), Right)
				if err != nil {
					t.Fatal(err)
				}
				want := slices.Clone(model[len(model)-n:])
				slices.Reverse(want)
				if got := strs(vals); !slices.Equal(got, want) {
					t.Fatalf("RPOP %d = %q, want %q", n, got, want)
				}
				model = model[:len(model)-n]
				if len(model) > 0 {
					vals, _, err := d.LPop(k, int64(min(23, len(model))), Left)
					if err != nil {
						t.Fatal(err)
					}
					if got, want := strs(vals), model[:len(vals)]; !slices.Equal(got, want) {
						t.Fatalf("LPOP = %q, want %q", got, want)
					}
					model = model[len(vals):]
				}
			}
		})
	}
}

// TestInvariantChecksInGroupReadItsBatch: in a group, a list's invariants
// check runs once the group's batch is final and reads the list as the
// batch leaves it (checkLater): an element the batch deletes behind the
// list's back fails the check at the commit. Read at the command, the
// list did not exist yet, and nothing failed.
func TestInvariantChecksInGroupReadItsBatch(t *testing.T) {
	if !invariants {
		t.Skip("needs the invariants build tag")
	}
	d, _ := newTestDB(t)
	key := []byte("l")
	g := d.st.BeginTxn(false, store.LockKey{DB: d.n, Key: key})
	tx := d.InGroup(g)
	if n, err := tx.RPush(key, [][]byte{[]byte("a"), []byte("b")}); err != nil || n != 2 {
		t.Fatalf("RPUSH = %d, %v", n, err)
	}
	ks := &keyState{}
	if err := tx.load(ks, key, d.e.now()); err != nil || !ks.live {
		t.Fatalf("the list in its group: live %v, %v", ks.live, err)
	}
	if err := tx.write(func(b *store.Batch) error {
		b.Delete(store.CFSubkey, subkey.AppendListKey(nil, ks.m.UID, ks.m.Head))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "invariant: list") {
			t.Fatalf("the commit recovered %v; want the list's invariant to fail", r)
		}
	}()
	_ = g.Commit()
}
