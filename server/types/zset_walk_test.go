package types

import (
	"math"
	"math/rand/v2"
	"testing"
)

// WalksAtMost promises a bound on walkLength for every size of zset, and
// grants it to the ranges near an end that leaderboards read.
func TestZRangeWalksAtMost(t *testing.T) {
	const n = WalkLockedUpTo
	for _, c := range []struct {
		sp   ZRangeSpec
		want bool
	}{
		{ZRangeSpec{By: ByRank, Start: 0, Stop: 9}, true},
		{ZRangeSpec{By: ByRank, Start: -10, Stop: -1}, true},
		{ZRangeSpec{By: ByRank, Start: 0, Stop: n - 1}, true},
		{ZRangeSpec{By: ByRank, Start: 0, Stop: n}, false},
		{ZRangeSpec{By: ByRank, Start: -n, Stop: -1}, true},
		{ZRangeSpec{By: ByRank, Start: -n - 1, Stop: -1}, false},
		{ZRangeSpec{By: ByRank, Start: 0, Stop: -1}, false},
		{ZRangeSpec{By: ByRank, Start: math.MinInt64, Stop: -1}, false},
		{ZRangeSpec{By: ByRank, Start: 5, Stop: 2}, true},
		{ZRangeSpec{By: ByScore, Offset: 0, Limit: 10}, true},
		{ZRangeSpec{By: ByScore, Offset: 0, Limit: -1}, false},
		{ZRangeSpec{By: ByLex, Offset: n - 2, Limit: 0}, true},
		{ZRangeSpec{By: ByLex, Offset: n - 2, Limit: 1}, false},
		{ZRangeSpec{By: ByScore, Offset: math.MaxInt64, Limit: math.MaxInt64}, false},
		{ZRangeSpec{By: ByScore, Offset: -1, Limit: 10}, false},
	} {
		if got := c.sp.WalksAtMost(n); got != c.want {
			t.Errorf("%+v: WalksAtMost(%d) = %v, want %v", c.sp, n, got, c.want)
		}
	}

	ints := []int64{math.MinInt64, -1 << 40, -n - 1, -n, -n + 1, -10, -2, -1, 0, 1, 2, 10, n - 2, n - 1, n, n + 1, 1 << 40, math.MaxInt64}
	sizes := []uint64{0, 1, 2, 10, n - 1, n, n + 1, 1000, 1 << 20, 1 << 40}
	pick := func(r *rand.Rand) int64 {
		if r.IntN(2) == 0 {
			return ints[r.IntN(len(ints))]
		}
		return r.Int64N(2*n+1) - n
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		sp := ZRangeSpec{By: RangeBy(r.IntN(3)), Rev: r.IntN(2) == 0, Start: pick(r), Stop: pick(r), Offset: pick(r), Limit: pick(r)}
		if !sp.WalksAtMost(n) {
			continue
		}
		for _, size := range sizes {
			if w := sp.walkLength(size); w > n {
				t.Fatalf("%+v: WalksAtMost(%d), but a zset of %d walks %d", sp, n, size, w)
			}
		}
	}
}
