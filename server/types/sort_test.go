package types

import (
	"math"
	"testing"
)

func TestSortLimits(t *testing.T) {
	tests := []struct {
		offset, count, n int64
		start, end       int64
	}{
		{0, -1, 5, 0, 4},
		{1, 2, 5, 1, 2},
		{-3, 2, 5, 0, 1},
		{3, 10, 5, 3, 4},
		{5, 1, 5, 4, 3}, // past the end: empty
		{0, 0, 5, 0, -1},
		{0, -1, 0, -1, -2},
		{2, math.MaxInt64, 5, 2, 4}, // start+count would overflow
		{math.MaxInt64, math.MaxInt64, 5, 4, 3},
		{math.MinInt64, math.MinInt64, 5, 0, 4},
	}
	for _, tt := range tests {
		start, end := sortLimits(tt.offset, tt.count, tt.n)
		if start != tt.start || end != tt.end {
			t.Errorf("sortLimits(%d, %d, %d) = %d, %d; want %d, %d", tt.offset, tt.count, tt.n, start, end, tt.start, tt.end)
		}
	}
}

func TestLookupByPattern(t *testing.T) {
	d, clock := newTestDB(t)
	d.Set([]byte("w_a"), []byte("7"), SetOptions{})
	must[int64](t)(d.HSet([]byte("h_a"), [][]byte{[]byte("f"), []byte("fv"), []byte("x->y"), []byte("odd")}))
	tests := []struct {
		pattern, elem string
		want          string
		ok            bool
	}{
		{"#", "a", "a", true},
		{"w_*", "a", "7", true},
		{"w_*", "b", "", false},
		{"nostar", "a", "", false},
		{"h_*->f", "a", "fv", true},
		{"h_*->x->y", "a", "odd", true}, // the first "->" after '*' splits
		{"h_*->", "a", "", false},       // "->" with no field reads the key "h_a->" as a string
		{"w_*->f", "a", "", false},      // a field of a string key
		{"h_*", "a", "", false},         // a hash read as a string
	}
	for _, tt := range tests {
		v, ok, err := d.lookupByPattern([]byte(tt.pattern), []byte(tt.elem), *clock)
		if err != nil || ok != tt.ok || string(v) != tt.want {
			t.Errorf("lookupByPattern(%q, %q) = %q, %v, %v; want %q, %v", tt.pattern, tt.elem, v, ok, err, tt.want, tt.ok)
		}
	}
}

func TestParseSortScore(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"", 0, true}, {"  2.5", 2.5, true}, {"1e3", 1000, true}, {"-inf", math.Inf(-1), true},
		{"2.5 ", 0, false}, {"nan", 0, false}, {"abc", 0, false}, {"1e400", 0, false}, {"1_0", 0, false},
		{"0x10", 16, true}, {"1\x00x", 1, true}, {"1e-400", 0, false}, {"   ", 0, false}, {"infinity", math.Inf(1), true},
	}
	for _, tt := range tests {
		got, ok := parseSortScore([]byte(tt.in))
		if ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("parseSortScore(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
