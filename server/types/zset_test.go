package types

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/shaledb/shale/server/store"
	"github.com/shaledb/shale/subkey"
)

func TestParseScore(t *testing.T) {
	inf := math.Inf(1)
	for _, tc := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"1", 1, true},
		{"-1.5", -1.5, true},
		{"+2", 2, true},
		{".5", 0.5, true},
		{"5.", 5, true},
		{"1e3", 1000, true},
		{"1E-2", 0.01, true},
		{"0x10", 16, true},
		{"0X1.8", 1.5, true},
		{"0x1p-2", 0.25, true},
		{"-0x.8", -0.5, true},
		{"inf", inf, true},
		{"+INF", inf, true},
		{"-Infinity", -inf, true},
		{"1e-320", 1e-320, true}, // a denormal: ERANGE, but not zero
		{"0e999999", 0, true},
		{"-0", 0, true},
		{"", 0, false},
		{" 1", 0, false},
		{"\t1", 0, false},
		{"1 ", 0, false},
		{"nan", 0, false},
		{"-NaN", 0, false},
		{"nan(123)", 0, false},
		{"1e400", 0, false},  // overflow
		{"-1e400", 0, false}, // overflow
		{"1e-400", 0, false}, // underflow to zero
		{"0x1p-2000", 0, false},
		{"0x", 0, false},
		{"0xg", 0, false},
		{"1e", 0, false},
		{"1e+", 0, false},
		{"1_000", 0, false},
		{"infinit", 0, false},
		{"inf1", 0, false},
		{"--1", 0, false},
		{".", 0, false},
		{"1.2.3", 0, false},
		{"1\x00", 0, false},
	} {
		got, ok := ParseScore([]byte(tc.in))
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("ParseScore(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	if f, _ := ParseScore([]byte("-0")); math.Signbit(f) != true {
		t.Errorf("ParseScore(-0) lost the sign; the write path folds it, not the parser")
	}
}

func TestParseScoreRange(t *testing.T) {
	inf := math.Inf(1)
	for _, tc := range []struct {
		min, max string
		want     ScoreRange
		ok       bool
	}{
		{"1", "2", ScoreRange{Min: 1, Max: 2}, true},
		{"(1", "(2", ScoreRange{Min: 1, Max: 2, MinEx: true, MaxEx: true}, true},
		{"-inf", "+inf", ScoreRange{Min: -inf, Max: inf}, true},
		{"(-inf", "inf", ScoreRange{Min: -inf, Max: inf, MinEx: true}, true},
		// Plain strtod: spaces before, empty, overflow and underflow pass.
		{" 1", "\t2", ScoreRange{Min: 1, Max: 2}, true},
		{"", "(", ScoreRange{Min: 0, Max: 0, MaxEx: true}, true},
		{"1e400", "-1e400", ScoreRange{Min: inf, Max: -inf}, true},
		{"1e-400", "0x10", ScoreRange{Min: 0, Max: 16}, true},
		{"2\x00junk", "3", ScoreRange{Min: 2, Max: 3}, true},
		{"nan", "1", ScoreRange{}, false},
		{"1", "(nan", ScoreRange{}, false},
		{"1 ", "2", ScoreRange{}, false},
		{"  ", "2", ScoreRange{}, false},
		{"[1", "2", ScoreRange{}, false},
		{"((1", "2", ScoreRange{}, false},
		{"1", "x", ScoreRange{}, false},
	} {
		got, ok := ParseScoreRange([]byte(tc.min), []byte(tc.max))
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("ParseScoreRange(%q, %q) = %+v, %v; want %+v, %v", tc.min, tc.max, got, ok, tc.want, tc.ok)
		}
	}
	for _, tc := range []struct {
		r     ScoreRange
		empty bool
	}{
		{ScoreRange{Min: 1, Max: 2}, false},
		{ScoreRange{Min: 2, Max: 2}, false},
		{ScoreRange{Min: 2, Max: 2, MinEx: true}, true},
		{ScoreRange{Min: 2, Max: 2, MaxEx: true}, true},
		{ScoreRange{Min: 3, Max: 2}, true},
		{ScoreRange{Min: inf, Max: inf}, false},
	} {
		if got := tc.r.Empty(); got != tc.empty {
			t.Errorf("%+v.Empty() = %v, want %v", tc.r, got, tc.empty)
		}
	}
}

func TestParseLexRange(t *testing.T) {
	for _, tc := range []struct {
		min, max string
		ok       bool
		empty    bool
	}{
		{"-", "+", true, false},
		{"[a", "[b", true, false},
		{"(a", "(b", true, false},
		{"[a", "[a", true, false},
		{"(a", "[a", true, true},
		{"[b", "[a", true, true},
		{"+", "-", true, true},
		{"-", "-", true, true},
		{"+", "+", true, true},
		{"[", "(", true, true}, // "" excluded at the top
		{"[", "[", true, false},
		{"-", "[", true, false},
		{"", "+", false, false},
		{"a", "+", false, false},
		{"-a", "+", false, false},
		{"-", "++", false, false},
		{"-", "b", false, false},
	} {
		r, ok := ParseLexRange([]byte(tc.min), []byte(tc.max))
		if ok != tc.ok {
			t.Errorf("ParseLexRange(%q, %q) ok = %v, want %v", tc.min, tc.max, ok, tc.ok)
			continue
		}
		if ok && r.Empty() != tc.empty {
			t.Errorf("ParseLexRange(%q, %q).Empty() = %v, want %v", tc.min, tc.max, r.Empty(), tc.empty)
		}
	}
	r, _ := ParseLexRange([]byte("(b"), []byte("[d"))
	for _, tc := range []struct {
		m              string
		gteMin, lteMax bool
	}{
		{"a", false, true}, {"b", false, true}, {"ba", true, true}, {"d", true, true}, {"da", true, false},
	} {
		if r.gteMin([]byte(tc.m)) != tc.gteMin || r.lteMax([]byte(tc.m)) != tc.lteMax {
			t.Errorf("(b [d: %q gteMin %v lteMax %v, want %v %v", tc.m, r.gteMin([]byte(tc.m)), r.lteMax([]byte(tc.m)), tc.gteMin, tc.lteMax)
		}
	}
}

// zmodel is a sorted set kept in memory: the reference the store is checked
// against.
type zmodel map[string]float64

// sorted is the model in zset order.
func (z zmodel) sorted() []ScoreMember {
	out := make([]ScoreMember, 0, len(z))
	for m, s := range z {
		out = append(out, ScoreMember{[]byte(m), s})
	}
	sortZSet(out)
	return out
}

// rangeOf is Redis's answer to sp over the model, computed the naive way:
// a linear walk of the sorted elements (no seeks).
func (z zmodel) rangeOf(sp ZRangeSpec) []ScoreMember {
	all := z.sorted()
	if sp.Rev {
		slices.Reverse(all)
	}
	n := int64(len(all))
	var out []ScoreMember
	switch sp.By {
	case ByRank:
		start, stop := sp.Start, sp.Stop
		if start < 0 {
			start += n
		}
		if stop < 0 {
			stop += n
		}
		start = max(start, 0)
		if start > stop || start >= n {
			return nil
		}
		return all[start : min(stop, n-1)+1]
	case ByScore:
		if sp.Offset < 0 {
			return nil
		}
		for _, e := range all {
			if sp.Score.gteMin(e.Score) && sp.Score.lteMax(e.Score) {
				out = append(out, e)
			}
		}
	case ByLex:
		r := sp.Lex
		if r.Empty() || n == 0 || sp.Offset < 0 {
			return nil
		}
		head, tail := all[0], all[n-1]
		if sp.Rev {
			head, tail = tail, head
		}
		if !r.gteMin(tail.Member) || !r.lteMax(head.Member) {
			return nil
		}
		from, to := r.gteMin, r.lteMax
		if sp.Rev {
			from, to = r.lteMax, r.gteMin
		}
		i := 0
		for i < len(all) && !from(all[i].Member) {
			i++
		}
		if i == len(all) || !to(all[i].Member) {
			return nil
		}
		i += int(min(sp.Offset, int64(len(all))))
		for ; i < len(all) && to(all[i].Member); i++ {
			out = append(out, all[i])
		}
		if sp.Limit >= 0 {
			out = out[:min(int64(len(out)), sp.Limit)]
		}
		return out
	}
	out = out[min(int64(len(out)), sp.Offset):]
	if sp.Limit >= 0 {
		out = out[:min(int64(len(out)), sp.Limit)]
	}
	return out
}

func sameElems(a, b []ScoreMember) bool {
	return slices.EqualFunc(a, b, func(x, y ScoreMember) bool {
		return bytes.Equal(x.Member, y.Member) && x.Score == y.Score
	})
}

func fmtElems(es []ScoreMember) string {
	var b bytes.Buffer
	for _, e := range es {
		fmt.Fprintf(&b, "%q:%v ", e.Member, e.Score)
	}
	return b.String()
}

// checkModel fails unless the stored zset equals the model and its two
// column families agree.
func checkModel(t *testing.T, d *DB, key string, z zmodel, step string) {
	t.Helper()
	got, err := d.ZRange([]byte(key), ZRangeSpec{By: ByRank, Start: 0, Stop: -1})
	if err != nil {
		t.Fatal(err)
	}
	if want := z.sorted(); !sameElems(got, want) {
		t.Fatalf("after %s: ZRANGE = %s\nwant %s", step, fmtElems(got), fmtElems(want))
	}
	unlock := d.lock([]byte(key))
	defer unlock()
	ks := &keyState{}
	if err := d.loadZSet(ks, []byte(key)); err != nil {
		t.Fatal(err)
	}
	if len(z) == 0 {
		if ks.live {
			t.Fatalf("after %s: the key exists with no members", step)
		}
		return
	}
	if err := d.zsetConsistent(ks.m.UID, ks.m.Size); err != nil {
		t.Fatalf("after %s: %v", step, err)
	}
}

// TestZSetRandomOps applies random writes to a zset and to a model, and
// checks after each that the subkey and score column families agree with
// each other, with Meta.Size and with the model.
func TestZSetRandomOps(t *testing.T) {
	d, _ := newTestDB(t)
	rng := rand.New(rand.NewPCG(1, 2))
	z := zmodel{}
	key := "z"
	members := []string{"a", "b", "c", "d", "e", "f", "g", "", "\x00", "\xff"}
	scores := []float64{0, math.Copysign(0, -1), 1, -1, 1.5, 2, math.Inf(1), math.Inf(-1), 1e300}
	member := func() string { return members[rng.IntN(len(members))] }
	score := func() float64 { return scores[rng.IntN(len(scores))] }
	for i := range 3000 {
		var step string
		switch op := rng.IntN(10); op {
		case 0, 1: // ZADD with random flags and repeated members
			var flags ZAddFlags
			switch rng.IntN(5) {
			case 1:
				flags = ZAddNX
			case 2:
				flags = ZAddXX
			case 3:
				flags = ZAddGT | ZAddXX*ZAddFlags(rng.IntN(2))
			case 4:
				flags = ZAddLT
			}
			var elems []ScoreMember
			for range 1 + rng.IntN(4) {
				elems = append(elems, ScoreMember{[]byte(member()), score()})
			}
			step = fmt.Sprintf("%d: ZADD flags %b %s", i, flags, fmtElems(elems))
			if _, err := d.ZAdd([]byte(key), flags, elems); err != nil {
				t.Fatal(err)
			}
			for _, e := range elems {
				cur, exists := z[string(e.Member)]
				switch {
				case exists && flags&ZAddNX != 0:
				case exists && flags&ZAddGT != 0 && e.Score <= cur:
				case exists && flags&ZAddLT != 0 && e.Score >= cur:
				case !exists && flags&ZAddXX != 0:
				default:
					z[string(e.Member)] = e.Score + 0 // -0 is stored as +0
				}
			}
		case 2: // ZINCRBY
			m, incr := member(), score()
			step = fmt.Sprintf("%d: ZINCRBY %v %q", i, incr, m)
			res, err := d.ZAdd([]byte(key), ZAddIncr, []ScoreMember{{[]byte(m), incr}})
			sum := z[m] + incr
			if math.IsNaN(sum) {
				if err != ErrScoreNaN {
					t.Fatalf("%s: err %v, want ErrScoreNaN", step, err)
				}
				break
			}
			if err != nil || res.Score != sum {
				t.Fatalf("%s = %v, %v; want %v", step, res.Score, err, sum)
			}
			z[m] = sum + 0
		case 3: // ZREM
			ms := [][]byte{[]byte(member()), []byte(member())}
			step = fmt.Sprintf("%d: ZREM %q", i, ms)
			if _, err := d.ZRem([]byte(key), ms); err != nil {
				t.Fatal(err)
			}
			for _, m := range ms {
				delete(z, string(m))
			}
		case 4: // ZPOPMIN / ZPOPMAX
			end, count := ScoreEnd(rng.IntN(2)), int64(1+rng.IntN(3))
			step = fmt.Sprintf("%d: ZPOP max=%v %d", i, end == Highest, count)
			_, got, err := d.ZPop([][]byte{[]byte(key)}, end, count)
			if err != nil {
				t.Fatal(err)
			}
			all := z.sorted()
			if end == Highest {
				slices.Reverse(all)
			}
			want := all[:min(int(count), len(all))]
			if !sameElems(got, want) {
				t.Fatalf("%s = %s, want %s", step, fmtElems(got), fmtElems(want))
			}
			for _, e := range want {
				delete(z, string(e.Member))
			}
		case 5, 6: // ZREMRANGEBY*
			sp := randomSpec(rng, members, scores)
			sp.Offset, sp.Limit = 0, -1
			step = fmt.Sprintf("%d: ZREMRANGE %+v", i, sp)
			want := z.rangeOf(sp)
			n, err := d.ZRemRange([]byte(key), sp)
			if err != nil || n != int64(len(want)) {
				t.Fatalf("%s = %d, %v; want %d", step, n, err, len(want))
			}
			for _, e := range want {
				delete(z, string(e.Member))
			}
		case 9: // a range read, which moves the store's score edges
			sp := randomSpec(rng, members, scores)
			step = fmt.Sprintf("%d: ZRANGE %+v", i, sp)
			got, err := d.ZRange([]byte(key), sp)
			if want := z.rangeOf(sp); err != nil || !sameElems(got, want) {
				t.Fatalf("%s = %s, %v; want %s", step, fmtElems(got), err, fmtElems(want))
			}
		case 7: // ZRANGESTORE onto itself
			sp := randomSpec(rng, members, scores)
			step = fmt.Sprintf("%d: ZRANGESTORE z z %+v", i, sp)
			want := z.rangeOf(sp)
			n, err := d.ZRangeStore([]byte(key), []byte(key), sp)
			if err != nil || n != int64(len(want)) {
				t.Fatalf("%s = %d, %v; want %d", step, n, err, len(want))
			}
			z = zmodel{}
			for _, e := range want {
				z[string(e.Member)] = e.Score
			}
		case 8: // ZUNIONSTORE z z other: scores may sum to NaN -> 0
			other := zmodel{member(): score(), member(): score()}
			var elems []ScoreMember
			for m, s := range other {
				elems = append(elems, ScoreMember{[]byte(m), s})
			}
			if _, err := d.ZAdd([]byte("other"), 0, elems); err != nil {
				t.Fatal(err)
			}
			step = fmt.Sprintf("%d: ZUNIONSTORE z z other(%s)", i, fmtElems(elems))
			if _, err := d.ZSetOpStore([]byte(key), ZSetOpSpec{Op: OpUnion, Keys: [][]byte{[]byte(key), []byte("other")}}); err != nil {
				t.Fatal(err)
			}
			for m, s := range other {
				if cur, ok := z[m]; ok {
					zaggregate(&cur, s, AggSum)
					s = cur
				}
				z[m] = s + 0
			}
			if _, err := d.Del([][]byte{[]byte("other")}); err != nil {
				t.Fatal(err)
			}
		}
		checkModel(t, d, key, z, step)
	}
}

// randomSpec draws a range of any kind over the given members and scores.
func randomSpec(rng *rand.Rand, members []string, scores []float64) ZRangeSpec {
	sp := ZRangeSpec{Rev: rng.IntN(2) == 1, Offset: int64(rng.IntN(4)) - 1, Limit: int64(rng.IntN(5)) - 1}
	switch rng.IntN(3) {
	case 0:
		sp.By = ByRank
		sp.Start, sp.Stop = int64(rng.IntN(14))-7, int64(rng.IntN(14))-7
	case 1:
		sp.By = ByScore
		sp.Score = ScoreRange{Min: scores[rng.IntN(len(scores))], Max: scores[rng.IntN(len(scores))],
			MinEx: rng.IntN(2) == 1, MaxEx: rng.IntN(2) == 1}
	case 2:
		sp.By = ByLex
		bound := func() LexBound {
			switch rng.IntN(6) {
			case 0:
				return LexBound{Inf: -1, Excl: true}
			case 1:
				return LexBound{Inf: 1, Excl: true}
			}
			return LexBound{Excl: rng.IntN(2) == 1, Value: []byte(members[rng.IntN(len(members))])}
		}
		sp.Lex = LexRange{Min: bound(), Max: bound()}
	}
	return sp
}

// TestZSetRangesMatchModel compares every kind of range read, on zsets of
// equal and of mixed scores, with the naive walk of the model.
func TestZSetRangesMatchModel(t *testing.T) {
	d, _ := newTestDB(t)
	rng := rand.New(rand.NewPCG(3, 4))
	members := []string{"", "a", "aa", "b", "c", "d", "e", "f", "g", "h", "\xff"}
	scores := []float64{math.Inf(-1), -2, 0, 1, 1.5, 3, math.Inf(1)}
	for round := range 40 {
		key := fmt.Sprintf("z%d", round)
		z := zmodel{}
		var elems []ScoreMember
		for _, m := range members {
			if rng.IntN(4) == 0 {
				continue
			}
			s := 0.0 // half the zsets have one score, as BYLEX expects
			if round%2 == 1 {
				s = scores[rng.IntN(len(scores))]
			}
			z[m] = s
			elems = append(elems, ScoreMember{[]byte(m), s})
		}
		if len(elems) == 0 {
			continue
		}
		if _, err := d.ZAdd([]byte(key), 0, elems); err != nil {
			t.Fatal(err)
		}
		for range 200 {
			sp := randomSpec(rng, members, scores)
			got, err := d.ZRange([]byte(key), sp)
			if err != nil {
				t.Fatal(err)
			}
			if want := z.rangeOf(sp); !sameElems(got, want) {
				t.Fatalf("%s %+v:\n got %s\nwant %s", fmtElems(z.sorted()), sp, fmtElems(got), fmtElems(want))
			}
			if sp.By == ByRank {
				continue
			}
			count := sp
			count.Offset, count.Limit, count.Rev = 0, -1, false
			want := int64(len(z.rangeOf(count)))
			var n int64
			if sp.By == ByScore {
				n, err = d.ZCount([]byte(key), sp.Score)
			} else {
				n, err = d.ZLexCount([]byte(key), sp.Lex)
			}
			if err != nil || n != want {
				t.Fatalf("count %+v over %s = %d, %v; want %d", count, fmtElems(z.sorted()), n, err, want)
			}
		}
		// Ranks from both ends.
		for i, e := range z.sorted() {
			for _, rev := range []bool{false, true} {
				want := int64(i)
				if rev {
					want = int64(len(z)) - 1 - want
				}
				rank, score, ok, err := d.ZRank([]byte(key), e.Member, rev)
				if err != nil || !ok || rank != want || score != e.Score {
					t.Fatalf("ZRANK rev=%v %q = %d %v %v %v, want %d %v", rev, e.Member, rank, score, ok, err, want, e.Score)
				}
			}
		}
	}
}

func TestZSetOps(t *testing.T) {
	d, _ := newTestDB(t)
	add := func(key string, pairs ...any) {
		t.Helper()
		var elems []ScoreMember
		for i := 0; i < len(pairs); i += 2 {
			elems = append(elems, ScoreMember{[]byte(pairs[i+1].(string)), pairs[i].(float64)})
		}
		if _, err := d.ZAdd([]byte(key), 0, elems); err != nil {
			t.Fatal(err)
		}
	}
	add("a", 1.0, "x", 2.0, "y", math.Inf(1), "i")
	add("b", 10.0, "y", 20.0, "z", math.Inf(-1), "i")
	if _, err := d.SAdd([]byte("s"), [][]byte{[]byte("x"), []byte("z"), []byte("w")}); err != nil {
		t.Fatal(err)
	}
	keys := func(ks ...string) [][]byte {
		var out [][]byte
		for _, k := range ks {
			out = append(out, []byte(k))
		}
		return out
	}
	inf := math.Inf(1)
	for _, tc := range []struct {
		name string
		spec ZSetOpSpec
		want []ScoreMember
	}{
		{"union sum", ZSetOpSpec{Op: OpUnion, Keys: keys("a", "b")},
			[]ScoreMember{{[]byte("i"), 0}, {[]byte("x"), 1}, {[]byte("y"), 12}, {[]byte("z"), 20}}},
		{"union with a set", ZSetOpSpec{Op: OpUnion, Keys: keys("a", "s"), Agg: AggMax},
			[]ScoreMember{{[]byte("w"), 1}, {[]byte("x"), 1}, {[]byte("z"), 1}, {[]byte("y"), 2}, {[]byte("i"), inf}}},
		{"inter min weighted", ZSetOpSpec{Op: OpInter, Keys: keys("a", "b"), Weights: []float64{2, 0.5}, Agg: AggMin},
			[]ScoreMember{{[]byte("i"), math.Inf(-1)}, {[]byte("y"), 4}}},
		{"inter with a set", ZSetOpSpec{Op: OpInter, Keys: keys("s", "b"), Weights: []float64{5, 1}},
			[]ScoreMember{{[]byte("z"), 25}}},
		{"inter 0*inf", ZSetOpSpec{Op: OpInter, Keys: keys("a", "a"), Weights: []float64{0, 1}, Agg: AggMax},
			[]ScoreMember{{[]byte("x"), 1}, {[]byte("y"), 2}, {[]byte("i"), inf}}},
		{"diff", ZSetOpSpec{Op: OpDiff, Keys: keys("a", "s")},
			[]ScoreMember{{[]byte("y"), 2}, {[]byte("i"), inf}}},
		{"diff from a set", ZSetOpSpec{Op: OpDiff, Keys: keys("s", "a", "missing")},
			[]ScoreMember{{[]byte("w"), 1}, {[]byte("z"), 1}}},
		{"inter with a missing key", ZSetOpSpec{Op: OpInter, Keys: keys("a", "missing")}, nil},
	} {
		got, err := d.ZSetOp(tc.spec)
		if err != nil || !sameElems(got, tc.want) {
			t.Errorf("%s: %s, %v; want %s", tc.name, fmtElems(got), err, fmtElems(tc.want))
		}
	}
	if _, err := d.HSet([]byte("h"), [][]byte{[]byte("f"), []byte("v")}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.ZSetOp(ZSetOpSpec{Op: OpUnion, Keys: keys("a", "h")}); err != ErrWrongType {
		t.Errorf("union with a hash: %v, want ErrWrongType", err)
	}
	// A big intersection crosses several probe chunks; LIMIT stops early.
	var big []ScoreMember
	for i := range 3 * zprobeChunk {
		big = append(big, ScoreMember{fmt.Appendf(nil, "m%05d", i), float64(i)})
	}
	if _, err := d.ZAdd([]byte("big1"), 0, big); err != nil {
		t.Fatal(err)
	}
	if _, err := d.ZAdd([]byte("big2"), 0, big[100:]); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ limit, want int64 }{{0, int64(len(big) - 100)}, {7, 7}, {1000, 1000}} {
		if n, err := d.ZInterCard(keys("big1", "big2"), tc.limit); err != nil || n != tc.want {
			t.Errorf("ZINTERCARD LIMIT %d = %d, %v; want %d", tc.limit, n, err, tc.want)
		}
	}
	n, err := d.ZSetOpStore([]byte("big1"), ZSetOpSpec{Op: OpInter, Keys: keys("big1", "big2"), Weights: []float64{1, 1}})
	if err != nil || n != int64(len(big)-100) {
		t.Fatalf("ZINTERSTORE onto a source = %d, %v", n, err)
	}
	if s, ok, _ := d.ZScore([]byte("big1"), []byte("m00150")); !ok || s != 300 {
		t.Errorf("ZSCORE after ZINTERSTORE = %v, %v; want 300", s, ok)
	}
	d.checkZSet([]byte("big1"))
}

// TestZSetNegativeZero: -0 is stored as +0 in both column families, so
// ZSCORE and the score order agree, as in a Redis listpack.
func TestZSetNegativeZero(t *testing.T) {
	d, _ := newTestDB(t)
	negZero := math.Copysign(0, -1)
	res, err := d.ZAdd([]byte("z"), ZAddIncr, []ScoreMember{{[]byte("m"), negZero}})
	if err != nil || !math.Signbit(res.Score) {
		t.Fatalf("ZADD INCR -0 = %+v, %v; the reply keeps the sign", res, err)
	}
	if _, err := d.ZAdd([]byte("z"), 0, []ScoreMember{{[]byte("n"), negZero}}); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"m", "n"} {
		if s, _, _ := d.ZScore([]byte("z"), []byte(m)); math.Signbit(s) {
			t.Errorf("ZSCORE %s = -0, want +0", m)
		}
	}
	unlock := d.lock([]byte("z"))
	ks := &keyState{}
	_ = d.loadZSet(ks, []byte("z"))
	unlock()
	if err := d.zsetConsistent(ks.m.UID, 2); err != nil {
		t.Fatal(err)
	}
	if n, _ := d.ZCount([]byte("z"), ScoreRange{Min: negZero, Max: negZero}); n != 2 {
		t.Errorf("ZCOUNT -0 -0 = %d, want 2", n)
	}
}

func TestZRandMember(t *testing.T) {
	d, _ := newTestDB(t)
	var elems []ScoreMember
	for i := range 50 {
		elems = append(elems, ScoreMember{fmt.Appendf(nil, "m%02d", i), float64(i)})
	}
	if _, err := d.ZAdd([]byte("z"), 0, elems); err != nil {
		t.Fatal(err)
	}
	for _, count := range []int64{1, 7, 49, 50, 60, -1, -200} {
		got, err := d.ZRandMember([]byte("z"), count)
		if err != nil {
			t.Fatal(err)
		}
		want := int(count)
		if count < 0 {
			want = int(-count)
		} else if count > 50 {
			want = 50
		}
		if len(got) != want {
			t.Fatalf("ZRANDMEMBER %d: %d members, want %d", count, len(got), want)
		}
		seen := map[string]bool{}
		for _, e := range got {
			var i int
			if _, err := fmt.Sscanf(string(e.Member), "m%d", &i); err != nil || float64(i) != e.Score {
				t.Fatalf("ZRANDMEMBER %d: %q with score %v", count, e.Member, e.Score)
			}
			if count > 0 && seen[string(e.Member)] {
				t.Fatalf("ZRANDMEMBER %d repeated %q", count, e.Member)
			}
			seen[string(e.Member)] = true
		}
	}
	for range 100 {
		s := sampleDistinct(10, 4)
		slices.Sort(s)
		if len(slices.Compact(s)) != 4 || s[0] < 0 || s[3] >= 10 {
			t.Fatalf("sampleDistinct(10, 4) = %v", s)
		}
	}
}

// addFifty makes key a zset of m00..m49 scored 0..49 and returns its uid.
func addFifty(t *testing.T, d *DB, key []byte) uint64 {
	t.Helper()
	var elems []ScoreMember
	for i := range 50 {
		elems = append(elems, ScoreMember{[]byte(fmt.Sprintf("m%02d", i)), float64(i)})
	}
	if _, err := d.ZAdd(key, 0, elems); err != nil {
		t.Fatal(err)
	}
	uid, _, err := d.UID(key)
	if err != nil {
		t.Fatal(err)
	}
	return uid
}

// TestZPopEdges: ZPOPMIN and ZPOPMAX remember where the live members
// begin past those they popped (store.Edges), so that the next pop
// does not walk their tombstones; a member added or moved past that edge
// must still be the next one popped.
func TestZPopEdges(t *testing.T) {
	d, _ := newTestDB(t)
	key := []byte("z")
	uid := addFifty(t, d, key)
	pop := func(end ScoreEnd, count int64) []string {
		t.Helper()
		_, got, err := d.ZPop([][]byte{key}, end, count)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range got {
			names = append(names, string(e.Member))
		}
		return names
	}
	add := func(member string, score float64) {
		t.Helper()
		if _, err := d.ZAdd(key, 0, []ScoreMember{{[]byte(member), score}}); err != nil {
			t.Fatal(err)
		}
	}
	want := func(what string, got []string, want ...string) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Errorf("%s: got %q, want %q", what, got, want)
		}
	}
	want("ZPOPMIN 3", pop(Lowest, 3), "m00", "m01", "m02")
	want("ZPOPMAX 2", pop(Highest, 2), "m49", "m48")
	if first, last, _ := d.st.Edges(scoreRange(uid)); first == nil || last == nil {
		t.Fatalf("after popping both ends: edges %q, %q; want both", first, last)
	}
	want("ZPOPMIN", pop(Lowest, 1), "m03")
	add("low", -1)
	add("m30", -2) // moved below the edge
	want("ZPOPMIN 3 after adding below the edge", pop(Lowest, 3), "m30", "low", "m04")
	add("high", 100)
	want("ZPOPMAX 2 after adding above the edge", pop(Highest, 2), "high", "m47")
	add("m10", 200) // moved above it
	want("ZPOPMAX after moving a member above the edge", pop(Highest, 1), "m10")
	want("ZPOPMIN 100: the rest", pop(Lowest, 100), "m05", "m06", "m07", "m08", "m09", "m11", "m12", "m13", "m14",
		"m15", "m16", "m17", "m18", "m19", "m20", "m21", "m22", "m23", "m24", "m25", "m26", "m27", "m28", "m29",
		"m31", "m32", "m33", "m34", "m35", "m36", "m37", "m38", "m39", "m40", "m41", "m42", "m43", "m44", "m45", "m46")
}

// TestZRangeEdges: a walk from either end of a sorted set moves the
// store's edge to the first live member it meets, or to its far bound
// when it meets none, and ZREMRANGEBY* past what it removed: a queue
// drained with ZRANGEBYSCORE -inf … LIMIT 0 1 and ZREM, or a window
// trimmed with ZREMRANGEBYSCORE, starts past its tombstones. A member
// added past an edge moves it there, and must still be read.
func TestZRangeEdges(t *testing.T) {
	d, _ := newTestDB(t)
	key := []byte("z")
	uid := addFifty(t, d, key)
	scoreKey := func(member string, score float64) []byte {
		return subkey.AppendScoreKey(nil, uid, score, []byte(member))
	}
	edges := func(what string, first, end []byte) {
		t.Helper()
		f, e, _ := d.st.Edges(scoreRange(uid))
		if !bytes.Equal(f, first) || !bytes.Equal(e, end) {
			t.Fatalf("%s: edges %q, %q; want %q, %q", what, f, e, first, end)
		}
	}
	read := func(sp ZRangeSpec, want ...string) {
		t.Helper()
		got, err := d.ZRange(key, sp)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range got {
			names = append(names, string(e.Member))
		}
		if !slices.Equal(names, want) {
			t.Fatalf("ZRANGE %+v = %q, want %q", sp, names, want)
		}
	}
	lowest := ZRangeSpec{By: ByScore, Score: ScoreRange{Min: math.Inf(-1), Max: math.Inf(1)}, Limit: 1}
	for i := range 5 { // Sidekiq's scheduled set: read the first, remove it
		m := fmt.Sprintf("m%02d", i)
		read(lowest, m)
		edges("after reading the lowest", scoreKey(m, float64(i)), nil)
		if _, err := d.ZRem(key, [][]byte{[]byte(m)}); err != nil {
			t.Fatal(err)
		}
	}
	read(ZRangeSpec{By: ByRank, Start: 0, Stop: 0, Rev: true}, "m49")
	// ZREM moves no edge: the first stays at the last member read.
	edges("after ZREVRANGE 0 0", scoreKey("m04", 4), keyAfter(scoreKey("m49", 49)))

	window := ZRangeSpec{By: ByScore, Score: ScoreRange{Min: math.Inf(-1), Max: 9}, Limit: -1}
	if n, err := d.ZRemRange(key, window); err != nil || n != 5 {
		t.Fatalf("ZREMRANGEBYSCORE -inf 9 = %d, %v", n, err)
	}
	edges("after ZREMRANGEBYSCORE -inf 9", keyAfter(scoreKey("m09", 9)), keyAfter(scoreKey("m49", 49)))
	read(ZRangeSpec{By: ByScore, Score: ScoreRange{Min: math.Inf(-1), Max: 9.5}, Limit: -1})
	edges("after an empty ZRANGEBYSCORE -inf 9.5", scoreAfter(uid, 9.5), keyAfter(scoreKey("m49", 49)))

	if _, err := d.ZAdd(key, 0, []ScoreMember{{[]byte("low"), 3}, {[]byte("high"), 60}}); err != nil {
		t.Fatal(err)
	}
	edges("after adding past both edges", scoreKey("low", 3), keyAfter(scoreKey("high", 60)))
	read(lowest, "low")
	read(ZRangeSpec{By: ByRank, Start: 0, Stop: 0, Rev: true}, "high")
	if _, err := d.ZAdd(key, 0, []ScoreMember{{[]byte("m20"), -5}}); err != nil { // moved before the edge
		t.Fatal(err)
	}
	read(ZRangeSpec{By: ByRank, Start: 0, Stop: 1}, "m20", "low")
	if rank, _, ok, err := d.ZRank(key, []byte("m10"), false); err != nil || !ok || rank != 2 {
		t.Fatalf("ZRANK m10 = %d, %v, %v; want 2", rank, ok, err)
	}

	// In a transaction's group (EXEC, a script: Sidekiq's poller is one),
	// a read sees the group's own removals, not yet written, and moves the
	// edge past them; a group dropped unwritten forgets it.
	inTxn := func(remove string, wantLowest string, commit bool) {
		t.Helper()
		g := d.st.BeginTxn(false, store.LockKey{DB: d.n, Key: key})
		tx := d.InGroup(g)
		if n, err := tx.ZRem(key, [][]byte{[]byte(remove)}); err != nil || n != 1 {
			t.Fatalf("ZREM %s in a transaction = %d, %v", remove, n, err)
		}
		got, err := tx.ZRange(key, lowest)
		if err != nil || len(got) != 1 || string(got[0].Member) != wantLowest {
			t.Fatalf("the lowest in a transaction = %v, %v; want %s", got, err, wantLowest)
		}
		if commit {
			if err := g.Commit(); err != nil {
				t.Fatal(err)
			}
		} else {
			g.Abort()
		}
	}
	inTxn("m20", "low", true)
	edges("after a transaction read past its removal", scoreKey("low", 3), keyAfter(scoreKey("high", 60)))
	inTxn("low", "m10", false)
	edges("after a transaction was dropped", nil, nil)
	read(lowest, "low")
}
