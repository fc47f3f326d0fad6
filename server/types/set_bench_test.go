package types

import (
	"fmt"
	"testing"
)

// BenchmarkDelSet times DEL of sets of 10 and 1,000,000 members (see
// benchDel). The claim is that members=1000000 costs about what members=10
// costs: DEL is O(1).
func BenchmarkDelSet(b *testing.B) {
	benchDel(b, "members", []int{10, 1_000_000}, fillSetN)
}

// BenchmarkSAdd adds one new member per operation to a growing set.
func BenchmarkSAdd(b *testing.B) {
	d := benchDB(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := d.SAdd([]byte("s"), [][]byte{fmt.Appendf(nil, "m%d", i)}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkSMembers reads whole sets of 16 and 1024 members.
func BenchmarkSMembers(b *testing.B) {
	for _, n := range []int{16, 1024} {
		b.Run(fmt.Sprintf("members=%d", n), func(b *testing.B) {
			d := benchDB(b)
			fillSetN(b, d, "s", n)
			b.ReportAllocs()
			for b.Loop() {
				if got, err := d.SMembers([]byte("s")); err != nil || len(got) != n {
					b.Fatalf("SMEMBERS = %d members, %v", len(got), err)
				}
			}
		})
	}
}

// BenchmarkSRandMember draws one member from a set of 100,000, by seeks, and
// 2,000 members, by a full read: the cost the sampler's thresholds weigh.
func BenchmarkSRandMember(b *testing.B) {
	d := benchDB(b)
	fillSetN(b, d, "s", 100_000)
	for _, count := range []int64{1, 2000} {
		b.Run(fmt.Sprintf("count=%d", count), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if got, err := d.SRandMember([]byte("s"), count); err != nil || int64(len(got)) != count {
					b.Fatalf("SRANDMEMBER = %d members, %v", len(got), err)
				}
			}
		})
	}
}
