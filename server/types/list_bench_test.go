package types

import (
	"fmt"
	"testing"
)

// fillList appends n elements to key in RPUSHes of 10,000.
func fillList(tb testing.TB, d *DB, key string, n int) {
	tb.Helper()
	const chunk = 10_000
	vals := make([][]byte, 0, chunk)
	for i := range n {
		vals = append(vals, fmt.Appendf(nil, "element-%09d", i))
		if len(vals) == chunk || i == n-1 {
			if _, err := d.RPush([]byte(key), vals); err != nil {
				tb.Fatal(err)
			}
			vals = vals[:0]
		}
	}
}

// BenchmarkDelList times DEL of lists of 10 and 1,000,000 elements, each
// built fresh with the timer stopped, flushed, and with no compaction
// running. DEL is O(1): both sizes should cost about the same.
func BenchmarkDelList(b *testing.B) {
	for _, n := range []int{10, 1_000_000} {
		b.Run(fmt.Sprintf("elements=%d", n), func(b *testing.B) {
			d := benchDB(b)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				b.StopTimer()
				key := fmt.Sprintf("l%d", i)
				i++
				fillList(b, d, key, n)
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

// BenchmarkLPush times LPUSH of one element onto a growing list.
func BenchmarkLPush(b *testing.B) {
	d := benchDB(b)
	b.ReportAllocs()
	v := [][]byte{[]byte("value-0123456789")}
	for b.Loop() {
		if _, err := d.LPush([]byte("l"), v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLPopRPush times a queue: RPUSH one element, LPOP one, over a
// list that keeps 1,000 elements, so the head's deletions pile up as
// tombstones the pops must step over.
func BenchmarkLPopRPush(b *testing.B) {
	d := benchDB(b)
	fillList(b, d, "q", 1000)
	v := [][]byte{[]byte("value-0123456789")}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.RPush([]byte("q"), v); err != nil {
			b.Fatal(err)
		}
		if _, ok, err := d.LPop([]byte("q"), 1, true); err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
}

// BenchmarkLRange times LRANGE of the first 100 elements of a 10,000-element
// list.
func BenchmarkLRange(b *testing.B) {
	d := benchDB(b)
	fillList(b, d, "l", 10_000)
	b.ReportAllocs()
	for b.Loop() {
		if vals, err := d.LRange([]byte("l"), 0, 99); err != nil || len(vals) != 100 {
			b.Fatal(len(vals), err)
		}
	}
}
