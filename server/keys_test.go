package server

import (
	"slices"
	"strings"
	"testing"
)

func TestKeyPositions(t *testing.T) {
	table := buildTable(allCommands())
	for _, tc := range []struct {
		call string
		want []int
	}{
		{"get k", []int{1}},
		{"mset a 1 b 2", []int{1, 3}},
		{"blpop a b 0", []int{1, 2}},
		{"zunionstore d 2 a b weights 1 2", []int{1, 3, 4}},
		// Redis's key specs read numkeys strictly and list the
		// destination first; when they fail, its fallback parser reads it
		// with atoi (which stops at the x) and lists the destination last.
		{"zunionstore d 2x a b", []int{3, 4, 1}},
		{"zunionstore d 4294967298 a b", []int{1, 3, 4}}, // truncated to a C int: 2
		{"zunionstore d 9223372036854775807 a b", nil},   // -1 as a C int
		{"zunion 4294967297 a", []int{2}},
		{"zunion 18446744073709551617 a", nil}, // strtol saturates: -1
		{"blmpop 0 4294967297 a left", []int{3}},
		{"zunionstore d 0 a", nil},
		{"zunionstore d 2 a", nil},
		{"lmpop 1 a left", []int{2}},
		{"blmpop 0 2 a b left", []int{3, 4}},
		{"sort k limit 0 1 by store get store store d", []int{1, 10}},
		{"sort k get # store", []int{1}},
		{"ping", nil},
	} {
		args := make([][]byte, 0)
		for _, a := range strings.Fields(tc.call) {
			args = append(args, []byte(a))
		}
		got := keyPositions(table[string(args[0])], args)
		if !slices.Equal(got, tc.want) {
			t.Errorf("keyPositions(%q) = %v, want %v", tc.call, got, tc.want)
		}
	}
}
