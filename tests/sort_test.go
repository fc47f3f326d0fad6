package tests

import (
	"testing"

	"github.com/redis/go-redis/v9"
)

func TestSortList(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("RPUSH", "l", "3", "1", "2", "10", "1.5"), 5},
			{cmd("SORT", "l"), []any{"1", "1.5", "2", "3", "10"}},
			{cmd("SORT", "l", "DESC"), []any{"10", "3", "2", "1.5", "1"}},
			{cmd("SORT", "l", "ALPHA"), []any{"1", "1.5", "10", "2", "3"}},
			{cmd("SORT", "l", "ALPHA", "DESC"), []any{"3", "2", "10", "1.5", "1"}},
			{cmd("SORT", "l", "LIMIT", "1", "2"), []any{"1.5", "2"}},
			{cmd("SORT", "l", "LIMIT", "-5", "2"), []any{"1", "1.5"}},
			{cmd("SORT", "l", "LIMIT", "3", "-1"), []any{"3", "10"}},
			{cmd("SORT", "l", "LIMIT", "10", "2"), emptyArr},
			{cmd("SORT", "l", "LIMIT", "0", "0"), emptyArr},
			{cmd("SORT", "l", "LIMIT", "x", "1"), errText("ERR value is not an integer or out of range")},
			{cmd("SORT", "l", "LIMIT", "1"), errText("ERR syntax error")},
			{cmd("SORT", "l", "BOGUS"), errText("ERR syntax error")},
			// LIMIT's offset and count are bounded by the length first, so
			// that offset+count cannot overflow: a huge count is "to the end".
			{cmd("SORT", "l", "LIMIT", "2", "9223372036854775807"), []any{"2", "3", "10"}},
			{cmd("SORT", "l", "LIMIT", "4", "9223372036854775807", "DESC"), []any{"1"}},
			{cmd("SORT", "l", "LIMIT", "9223372036854775807", "9223372036854775807"), emptyArr},
			{cmd("SORT", "l", "LIMIT", "-9223372036854775808", "-9223372036854775808"), []any{"1", "1.5", "2", "3", "10"}},
			{cmd("SORT", "l", "LIMIT", "2", "-9223372036854775808"), []any{"2", "3", "10"}},
			{cmd("SORT", "l", "LIMIT", "2", "9223372036854775807", "STORE", "lim"), 3},
			{cmd("LRANGE", "lim", "0", "-1"), []any{"2", "3", "10"}},
			{cmd("SORT", "l", "BY", "nosort", "LIMIT", "3", "9223372036854775807"), []any{"10", "1.5"}},
			{cmd("SORT", "l", "BY", "nosort", "LIMIT", "3", "9223372036854775807", "DESC"), []any{"1", "3"}},
			{cmd("SORT", "l", "LIMIT", "9223372036854775808", "1"), errText("ERR value is not an integer or out of range")},
			// Options are read before the key: a bad one on a key of another
			// type or a missing key is still the option's error.
			{cmd("SET", "str", "x"), ok},
			{cmd("SORT", "str", "LIMIT", "x", "1"), errText("ERR value is not an integer or out of range")},
			{cmd("SORT", "str", "BOGUS"), errText("ERR syntax error")},
			{cmd("SORT", "nokey", "LIMIT", "1", "x"), errText("ERR value is not an integer or out of range")},

			// BY nosort keeps list order; DESC and LIMIT still apply.
			{cmd("SORT", "l", "BY", "nosort"), []any{"3", "1", "2", "10", "1.5"}},
			{cmd("SORT", "l", "BY", "nosort", "DESC"), []any{"1.5", "10", "2", "1", "3"}},
			{cmd("SORT", "l", "BY", "nosort", "LIMIT", "1", "2"), []any{"1", "2"}},
			{cmd("SORT", "l", "BY", "nosort", "DESC", "LIMIT", "1", "2"), []any{"10", "2"}},

			// BY and GET patterns, string keys and hash fields.
			{cmd("MSET", "w_3", "30", "w_1", "10", "w_2", "20", "w_10", "5"), ok},
			{cmd("SORT", "l", "BY", "w_*"), []any{"1.5", "10", "1", "2", "3"}}, // missing w_1.5 sorts as 0
			{cmd("HSET", "h_1", "name", "one"), 1},
			{cmd("HSET", "h_2", "name", "two"), 1},
			{cmd("SORT", "l", "BY", "w_*", "GET", "#", "GET", "h_*->name"), []any{"1.5", nil, "10", nil, "1", "one", "2", "two", "3", nil}},
			{cmd("SORT", "l", "GET", "w_*", "LIMIT", "0", "2"), []any{"10", nil}},
			// Missing BY values sort first (their order among themselves is Redis's qsort's).
			{cmd("SORT", "l", "BY", "h_*->name", "ALPHA", "LIMIT", "3", "2"), []any{"1", "2"}},
			{cmd("SORT", "l", "BY", "h_*->name", "ALPHA", "DESC", "LIMIT", "0", "2"), []any{"2", "1"}},
			{cmd("SORT", "l", "GET", "fixed"), []any{nil, nil, nil, nil, nil}},

			// Non-numeric elements.
			{cmd("RPUSH", "words", "b", "a", "c"), 3},
			{cmd("SORT", "words"), errText("ERR One or more scores can't be converted into double")},
			{cmd("SORT", "words", "ALPHA"), []any{"a", "b", "c"}},
			{cmd("SORT", "words", "BY", "nosort"), []any{"b", "a", "c"}},
			// Scores are read with strtod: hex and inf are numbers, blanks-only
			// is not, a NUL ends the number. (Underflow, "1e-400", is refused
			// too, but Redis leaves errno at ERANGE afterwards and refuses
			// the next SORTs as well, so it is not in this script.)
			{cmd("RPUSH", "nums", "1.5", "-inf", "inf", "0x10", "1e3", " 2", "3\x00x"), 7},
			{cmd("SORT", "nums"), []any{"-inf", "1.5", " 2", "3\x00x", "0x10", "1e3", "inf"}},
			{cmd("RPUSH", "blank", "   "), 1},
			{cmd("SORT", "blank"), errText("ERR One or more scores can't be converted into double")},

			// Missing keys and wrong types.
			{cmd("SORT", "nokey"), emptyArr},
			{cmd("SORT", "w_1"), errPrefix("WRONGTYPE")},
			{cmd("SORT", "h_1"), errPrefix("WRONGTYPE")},

			// STORE writes a list, a missing GET as "", and deletes on empty.
			{cmd("SORT", "l", "STORE", "dst"), 5},
			{cmd("LRANGE", "dst", "0", "-1"), []any{"1", "1.5", "2", "3", "10"}},
			{cmd("SORT", "l", "GET", "h_*->name", "STORE", "dst"), 5},
			{cmd("LRANGE", "dst", "0", "-1"), []any{"one", "", "two", "", ""}},
			{cmd("SET", "strdst", "x"), ok},
			{cmd("EXPIRE", "strdst", "100"), 1},
			{cmd("SORT", "l", "LIMIT", "0", "1", "STORE", "strdst"), 1},
			{cmd("TYPE", "strdst"), "list"},
			{cmd("TTL", "strdst"), -1},
			{cmd("SORT", "nokey", "STORE", "dst"), 0},
			{cmd("EXISTS", "dst"), 0},
			{cmd("SORT", "l", "STORE", "l"), 5}, // onto itself
			{cmd("LRANGE", "l", "0", "-1"), []any{"1", "1.5", "2", "3", "10"}},
			{cmd("SORT_RO", "l", "STORE", "dst"), errText("ERR syntax error")},
			{cmd("SORT_RO", "l", "DESC", "LIMIT", "0", "1"), []any{"10"}},
		})
	})
}

func TestSortSetAndZSet(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("SADD", "s", "5", "3", "9", "1"), 4},
			{cmd("SORT", "s"), []any{"1", "3", "5", "9"}},
			{cmd("SORT", "s", "DESC", "LIMIT", "0", "2"), []any{"9", "5"}},
			{cmd("SORT", "s", "BY", "nosort"), unordered([]any{"1", "3", "5", "9"})},
			// A set stored with nosort is sorted ALPHA, so the result is stable.
			{cmd("SADD", "s", "10"), 1},
			{cmd("SORT", "s", "BY", "nosort", "STORE", "dst"), 5},
			{cmd("LRANGE", "dst", "0", "-1"), []any{"1", "10", "3", "5", "9"}},

			{cmd("ZADD", "z", "3", "a", "1", "b", "2", "c"), 3},
			{cmd("SORT", "z", "ALPHA"), []any{"a", "b", "c"}},
			{cmd("SORT", "z", "BY", "nosort"), []any{"b", "c", "a"}},
			{cmd("SORT", "z", "BY", "nosort", "DESC"), []any{"a", "c", "b"}},
			{cmd("SORT", "z", "BY", "nosort", "LIMIT", "1", "5"), []any{"c", "a"}},
			{cmd("SORT", "z", "BY", "nosort", "DESC", "LIMIT", "1", "1"), []any{"c"}},
			{cmd("SORT", "z", "BY", "nosort", "LIMIT", "2", "9223372036854775807"), []any{"a"}},
			{cmd("SORT", "z", "BY", "nosort", "DESC", "LIMIT", "2", "9223372036854775807"), []any{"b"}},
			{cmd("SORT", "s", "LIMIT", "3", "9223372036854775807"), []any{"9", "10"}},
			{cmd("SORT", "z"), errText("ERR One or more scores can't be converted into double")},
			{cmd("MSET", "wa", "1", "wb", "3", "wc", "2"), ok},
			{cmd("SORT", "z", "BY", "w*", "GET", "#", "GET", "w*"), []any{"a", "1", "c", "2", "b", "3"}},
		})
	})
}
