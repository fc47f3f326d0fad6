package types

import (
	"strconv"
	"strings"
	"testing"
)

// TestDebugObjectLayout pins the estimates to the figures redis-server
// 7.0.15's DEBUG OBJECT gave for the same values (uncompressible ones).
func TestDebugObjectLayout(t *testing.T) {
	for _, tt := range []struct {
		s    string
		rdb  int64 // rdbStringLen
		pack int64 // listpackEntryLen
	}{
		{"hello", 6, 7},
		{"5", 2, 2},
		{"12345", 3, 4},
		{"-129", 3, 3},
		{"2147483648", 11, 10},
		{"007", 4, 5},
		{strings.Repeat("x", 100), 102, 103},
		{strings.Repeat("x", 16380), 16382, 16388},
	} {
		if got := rdbStringLen([]byte(tt.s)); got != tt.rdb {
			t.Errorf("rdbStringLen(%.20q) = %d, want %d", tt.s, got, tt.rdb)
		}
		if got := listpackEntryLen([]byte(tt.s)); got != tt.pack {
			t.Errorf("listpackEntryLen(%.20q) = %d, want %d", tt.s, got, tt.pack)
		}
	}
	for _, tt := range []struct {
		name         string
		fill         int
		elems        []string
		nodes, bytes int64
		saved        int64
	}{
		// RPUSH list a b c 1 200: ql_nodes:1 ql_uncompressed_size:21, serializedlength:24.
		{"small", -2, []string{"a", "b", "c", "1", "200"}, 1, 21, 23},
		// list-max-listpack-size 5, RPUSH of 0..22: ql_nodes:5 ql_uncompressed_size:81.
		{"fill 5", 5, numbers(23), 5, 81, 91},
	} {
		q := quicklistShape{fill: tt.fill}
		for _, e := range tt.elems {
			q.add([]byte(e))
		}
		saved := q.done()
		if q.nodes != tt.nodes || q.bytes != tt.bytes || saved != tt.saved {
			t.Errorf("%s: %d nodes of %d bytes, %d saved; want %d, %d, %d", tt.name, q.nodes, q.bytes, saved, tt.nodes, tt.bytes, tt.saved)
		}
	}
}

func numbers(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = strconv.Itoa(i)
	}
	return out
}
