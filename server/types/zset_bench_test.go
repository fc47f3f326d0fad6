package types

import (
	"fmt"
	"testing"
)

// BenchmarkDelZSet times DEL of zsets (two records per member, in the
// subkey and score CFs) of 10 and 1,000,000 members (see benchDel). The
// claim is that members=1000000 costs about what members=10 costs.
func BenchmarkDelZSet(b *testing.B) {
	benchDel(b, "members", []int{10, 1_000_000}, fillZSet)
}

// BenchmarkZAdd adds one new member per operation to a growing zset.
func BenchmarkZAdd(b *testing.B) {
	d := benchDB(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		elems := []ScoreMember{{fmt.Appendf(nil, "m%d", i), float64(i % 1000)}}
		if _, err := d.ZAdd([]byte("z"), 0, elems); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkZRangeByScore reads 10 and 100 consecutive members by score from
// a 100,000-member zset, at a different place each time: one seek and a
// short scan of the score CF.
func BenchmarkZRangeByScore(b *testing.B) {
	const size = 100_000
	d := benchDB(b)
	fillZSet(b, d, "z", size)
	if err := d.st.Flush(); err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{10, 100} {
		b.Run(fmt.Sprintf("members=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				lo := float64((i * 7919) % (size - n))
				i++
				sp := ZRangeSpec{By: ByScore, Score: ScoreRange{Min: lo, Max: lo + float64(n) - 1}, Limit: -1}
				got, err := d.ZRange([]byte("z"), sp)
				if err != nil || len(got) != n {
					b.Fatalf("ZRANGEBYSCORE %v: %d members, %v", sp.Score, len(got), err)
				}
			}
		})
	}
}
