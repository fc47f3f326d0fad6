package types

import "testing"

// BenchmarkDelList times DEL of lists of 10 and 1,000,000 elements (see
// benchDel). DEL is O(1): both sizes should cost about the same.
func BenchmarkDelList(b *testing.B) {
	benchDel(b, "elements", []int{10, 1_000_000}, fillList)
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
		if _, ok, err := d.LPop([]byte("q"), 1, Left); err != nil || !ok {
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
