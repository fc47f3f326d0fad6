package types

import (
	"fmt"
	"testing"
)

// fillZSet adds n members to key, member i with score i, in ZADDs of 10,000
// members.
func fillZSet(tb testing.TB, d *DB, key string, n int) {
	tb.Helper()
	const chunk = 10_000
	elems := make([]ScoreMember, 0, chunk)
	for i := 0; i < n; i++ {
		elems = append(elems, ScoreMember{fmt.Appendf(nil, "member:%09d", i), float64(i)})
		if len(elems) == chunk || i == n-1 {
			if _, err := d.ZAdd([]byte(key), 0, elems); err != nil {
				tb.Fatal(err)
			}
			elems = elems[:0]
		}
	}
}

// BenchmarkDelZSet times DEL of zsets of different sizes, as BenchmarkDel
// does for hashes: each iteration builds a fresh zset (two records per
// member, in the subkey and score CFs) with the timer stopped, flushes and
// waits for compactions, then times only the DEL. The claim is that
// members=1000000 costs about what members=10 costs.
func BenchmarkDelZSet(b *testing.B) {
	for _, n := range []int{10, 1_000_000} {
		b.Run(fmt.Sprintf("members=%d", n), func(b *testing.B) {
			d := benchDB(b)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				b.StopTimer()
				key := fmt.Sprintf("z%d", i)
				i++
				fillZSet(b, d, key, n)
				if err := d.st.Flush(); err != nil {
					b.Fatal(err)
				}
				waitCompactions(b, d.st)
				b.StartTimer()
				if got, err := d.Del([][]byte{[]byte(key)}); err != nil || got != 1 {
					b.Fatalf("DEL = %d, %v", got, err)
				}
			}
		})
	}
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
