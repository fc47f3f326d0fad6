package server

import (
	"math"
	"testing"
)

var inf = math.Inf(1)

// TestReplyGoldenBytes pins every Reply shape's encoding in both
// protocols, as Redis 7.0.15 sends it (checked byte for byte against it in
// tests/resp3_test.go).
func TestReplyGoldenBytes(t *testing.T) {
	cases := []struct {
		name         string
		write        func(r Reply)
		resp2, resp3 string
	}{
		{"map", func(r Reply) { r.BulkMap([][]byte{[]byte("k"), []byte("v")}) }, "*2\r\n$1\r\nk\r\n$1\r\nv\r\n", "%1\r\n$1\r\nk\r\n$1\r\nv\r\n"},
		{"set", func(r Reply) { r.BulkSet([][]byte{[]byte("m")}) }, "*1\r\n$1\r\nm\r\n", "~1\r\n$1\r\nm\r\n"},
		{"push", func(r Reply) { r.Push(0) }, "*0\r\n", ">0\r\n"},
		{"pairs", func(r Reply) { r.BulkPairs([][]byte{[]byte("a"), []byte("1"), []byte("b"), nil}) },
			"*4\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n$-1\r\n", "*2\r\n*2\r\n$1\r\na\r\n$1\r\n1\r\n*2\r\n$1\r\nb\r\n_\r\n"},
		{"null", func(r Reply) { r.Null() }, "$-1\r\n", "_\r\n"},
		{"null array", func(r Reply) { r.NullArray() }, "*-1\r\n", "_\r\n"},
		{"double", func(r Reply) { r.Double(0.1) }, "$19\r\n0.10000000000000001\r\n", ",0.10000000000000001\r\n"},
		{"double integral", func(r Reply) { r.Double(2) }, "$1\r\n2\r\n", ",2\r\n"},
		{"double big", func(r Reply) { r.Double(1e20) }, "$5\r\n1e+20\r\n", ",1e+20\r\n"},
		{"double inf", func(r Reply) { r.Double(inf) }, "$3\r\ninf\r\n", ",inf\r\n"},
		{"double -inf", func(r Reply) { r.Double(-inf) }, "$4\r\n-inf\r\n", ",-inf\r\n"},
		{"bool true", func(r Reply) { r.Bool(true) }, ":1\r\n", "#t\r\n"},
		{"bool false", func(r Reply) { r.Bool(false) }, ":0\r\n", "#f\r\n"},
		{"int bool", func(r Reply) { r.IntBool(true) }, ":1\r\n", ":1\r\n"},
		{"verbatim", func(r Reply) { r.Verbatim("a\r\nb") }, "$4\r\na\r\nb\r\n", "=8\r\ntxt:a\r\nb\r\n"},
		{"verbatim format", func(r Reply) { r.VerbatimFormat("mkdown", "x") }, "$1\r\nx\r\n", "=5\r\nmkd:x\r\n"},
		{"verbatim short format", func(r Reply) { r.VerbatimFormat("m", "x") }, "$1\r\nx\r\n", "=5\r\nm  :x\r\n"},
		{"big number", func(r Reply) { r.BigNumber("123456789012345678901234567890") },
			"$30\r\n123456789012345678901234567890\r\n", "(123456789012345678901234567890\r\n"},
		{"bulk", func(r Reply) { r.Bulk([]byte("x")) }, "$1\r\nx\r\n", "$1\r\nx\r\n"},
		{"status", func(r Reply) { r.OK() }, "+OK\r\n", "+OK\r\n"},
		{"error", func(r Reply) { r.Error("ERR x") }, "-ERR x\r\n", "-ERR x\r\n"},
		{"int", func(r Reply) { r.Int(-7) }, ":-7\r\n", ":-7\r\n"},
	}
	for _, tc := range cases {
		for _, resp3 := range []bool{false, true} {
			conn := &captureConn{}
			tc.write(Reply{conn: conn, resp3: resp3})
			want := tc.resp2
			if resp3 {
				want = tc.resp3
			}
			if string(conn.b) != want {
				t.Errorf("%s (resp3 %v): got %q, want %q", tc.name, resp3, conn.b, want)
			}
		}
	}
}
