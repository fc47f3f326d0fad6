package tests

import (
	"strconv"
	"testing"

	"github.com/redis/go-redis/v9"
)

func TestListPushPop(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("RPUSH", "l", "a", "b", "c"), 3},
			{cmd("LPUSH", "l", "x", "y"), 5}, // y x a b c
			{cmd("LRANGE", "l", 0, -1), []any{"y", "x", "a", "b", "c"}},
			{cmd("LPUSH", "l"), errText("ERR wrong number of arguments for 'lpush' command")},
			{cmd("RPUSH", "l"), errText("ERR wrong number of arguments for 'rpush' command")},
			{cmd("LLEN", "l"), 5},
			{cmd("LLEN", "nokey"), 0},
			{cmd("TYPE", "l"), "list"},
			{cmd("OBJECT", "ENCODING", "l"), "quicklist"},

			// LPUSHX and RPUSHX create nothing.
			{cmd("LPUSHX", "nokey", "a"), 0},
			{cmd("RPUSHX", "nokey", "a", "b"), 0},
			{cmd("EXISTS", "nokey"), 0},
			{cmd("LPUSHX", "l", "p1", "p2"), 7},
			{cmd("RPUSHX", "l", "q1", "q2"), 9},
			{cmd("LRANGE", "l", 0, -1), []any{"p2", "p1", "y", "x", "a", "b", "c", "q1", "q2"}},

			// LPOP and RPOP, with and without a count.
			{cmd("LPOP", "l"), "p2"},
			{cmd("RPOP", "l"), "q2"},
			{cmd("LPOP", "l", 2), []any{"p1", "y"}},
			{cmd("RPOP", "l", 2), []any{"q1", "c"}},
			{cmd("LPOP", "l", 0), emptyArr},
			{cmd("RPOP", "l", 0), emptyArr},
			{cmd("LPOP", "l", -1), errText("ERR value is out of range, must be positive")},
			{cmd("LPOP", "l", "x"), errText("ERR value is out of range, must be positive")},
			{cmd("LPOP", "l", "9223372036854775808"), errText("ERR value is out of range, must be positive")},
			{cmd("LPOP", "l", 1, 2), errText("ERR wrong number of arguments for 'lpop' command")},
			{cmd("RPOP", "l", 1, 2), errText("ERR wrong number of arguments for 'rpop' command")},
			{cmd("LPOP", "nokey"), isNil},
			{cmd("RPOP", "nokey"), isNil},
			{cmd("LPOP", "nokey", 2), isNil}, // a null array
			{cmd("LPOP", "nokey", 0), isNil},
			{cmd("RPOP", "nokey", 0), isNil},
			{cmd("LPOP", "l", "9223372036854775807"), []any{"x", "a", "b"}}, // a huge count takes what there is
			// The last element gone, the key is gone.
			{cmd("EXISTS", "l"), 0},
			{cmd("LLEN", "l"), 0},
			{cmd("LPOP", "l"), isNil},
			{cmd("RPUSH", "l", "again"), 1},
			{cmd("RPOP", "l", 1), []any{"again"}},
			{cmd("EXISTS", "l"), 0},
			{cmd("DBSIZE"), 0},

			// Binary-safe elements, empty ones included.
			{cmd("RPUSH", "bin", "", "a\x00b\r\n", ""), 3},
			{cmd("LRANGE", "bin", 0, -1), []any{"", "a\x00b\r\n", ""}},
			{cmd("LPOP", "bin"), ""},

			// WRONGTYPE everywhere, and the count is parsed first.
			{cmd("SET", "s", "v"), ok},
			{cmd("LPUSH", "s", "a"), errText(wrongType)},
			{cmd("RPUSH", "s", "a"), errText(wrongType)},
			{cmd("LPUSHX", "s", "a"), errText(wrongType)},
			{cmd("RPUSHX", "s", "a"), errText(wrongType)},
			{cmd("LPOP", "s"), errText(wrongType)},
			{cmd("RPOP", "s", 0), errText(wrongType)},
			{cmd("LPOP", "s", -1), errText("ERR value is out of range, must be positive")},
			{cmd("LLEN", "s"), errText(wrongType)},
			{cmd("GET", "s"), "v"},
		})
	})
}

func TestListRangeIndexSet(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("RPUSH", "l", "a", "b", "c", "d", "e"), 5},
			{cmd("LRANGE", "l", 0, -1), []any{"a", "b", "c", "d", "e"}},
			{cmd("LRANGE", "l", 1, 2), []any{"b", "c"}},
			{cmd("LRANGE", "l", -100, 100), []any{"a", "b", "c", "d", "e"}},
			{cmd("LRANGE", "l", 3, 1), emptyArr},
			{cmd("LRANGE", "l", 5, 10), emptyArr},
			{cmd("LRANGE", "l", -1, -2), emptyArr},
			{cmd("LRANGE", "l", -2, -1), []any{"d", "e"}},
			{cmd("LRANGE", "l", -1, -1), []any{"e"}},
			{cmd("LRANGE", "l", "0", "9223372036854775807"), []any{"a", "b", "c", "d", "e"}},
			{cmd("LRANGE", "l", "-9223372036854775808", 1), []any{"a", "b"}},
			{cmd("LRANGE", "nokey", 0, -1), emptyArr},
			{cmd("LRANGE", "l", "x", 1), errText("ERR value is not an integer or out of range")},
			{cmd("LRANGE", "l", 0, "1.5"), errText("ERR value is not an integer or out of range")},
			{cmd("LRANGE", "l", 0), errText("ERR wrong number of arguments for 'lrange' command")},

			{cmd("LINDEX", "l", 0), "a"},
			{cmd("LINDEX", "l", 4), "e"},
			{cmd("LINDEX", "l", -1), "e"},
			{cmd("LINDEX", "l", -5), "a"},
			{cmd("LINDEX", "l", 5), isNil},
			{cmd("LINDEX", "l", -6), isNil},
			{cmd("LINDEX", "l", "9223372036854775807"), isNil},
			{cmd("LINDEX", "l", "-9223372036854775808"), isNil},
			{cmd("LINDEX", "nokey", 0), isNil},
			{cmd("LINDEX", "l", "x"), errText("ERR value is not an integer or out of range")},
			{cmd("LINDEX", "nokey", "x"), isNil}, // the key is looked up first

			{cmd("LSET", "l", 0, "A"), ok},
			{cmd("LSET", "l", -1, "E"), ok},
			{cmd("LSET", "l", 2, ""), ok},
			{cmd("LRANGE", "l", 0, -1), []any{"A", "b", "", "d", "E"}},
			{cmd("LSET", "l", 5, "x"), errText("ERR index out of range")},
			{cmd("LSET", "l", -6, "x"), errText("ERR index out of range")},
			{cmd("LSET", "nokey", 0, "x"), errText("ERR no such key")},
			{cmd("LSET", "nokey", "x", "y"), errText("ERR no such key")},
			{cmd("LSET", "l", "x", "y"), errText("ERR value is not an integer or out of range")},
			{cmd("EXISTS", "nokey"), 0},

			{cmd("SET", "s", "v"), ok},
			{cmd("LRANGE", "s", 0, 1), errText(wrongType)},
			{cmd("LRANGE", "s", 0, "x"), errText("ERR value is not an integer or out of range")},
			{cmd("LINDEX", "s", 0), errText(wrongType)},
			{cmd("LINDEX", "s", "x"), errText(wrongType)},
			{cmd("LSET", "s", 0, "x"), errText(wrongType)},
			{cmd("LSET", "s", "x", "y"), errText(wrongType)},
		})
	})
}

func TestListInsertRemTrim(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("RPUSH", "l", "a", "b", "c", "d", "e"), 5},
			{cmd("LINSERT", "l", "BEFORE", "c", "C"), 6},
			{cmd("LINSERT", "l", "after", "e", "F"), 7},
			{cmd("LINSERT", "l", "Before", "a", "0"), 8},
			{cmd("LINSERT", "l", "AFTER", "a", "a2"), 9},
			{cmd("LRANGE", "l", 0, -1), []any{"0", "a", "a2", "b", "C", "c", "d", "e", "F"}},
			{cmd("LINSERT", "l", "BEFORE", "zz", "x"), -1},
			{cmd("LINSERT", "nokey", "BEFORE", "a", "b"), 0},
			{cmd("EXISTS", "nokey"), 0},
			{cmd("LINSERT", "l", "MIDDLE", "a", "b"), errText("ERR syntax error")},
			{cmd("LINSERT", "l", "BEFORE", "a"), errText("ERR wrong number of arguments for 'linsert' command")},
			// Only the first pivot counts.
			{cmd("RPUSH", "dup", "p", "x", "p"), 3},
			{cmd("LINSERT", "dup", "AFTER", "p", "n"), 4},
			{cmd("LRANGE", "dup", 0, -1), []any{"p", "n", "x", "p"}},

			// LREM from the head, from the tail, and all.
			{cmd("RPUSH", "r", "a", "b", "a", "c", "a", "d", "a"), 7},
			{cmd("LREM", "r", 2, "a"), 2},
			{cmd("LRANGE", "r", 0, -1), []any{"b", "c", "a", "d", "a"}},
			{cmd("LREM", "r", -1, "a"), 1},
			{cmd("LRANGE", "r", 0, -1), []any{"b", "c", "a", "d"}},
			{cmd("LREM", "r", 0, "a"), 1},
			{cmd("LRANGE", "r", 0, -1), []any{"b", "c", "d"}},
			{cmd("LREM", "r", 0, "zz"), 0},
			{cmd("LREM", "r", "9223372036854775807", "b"), 1},
			{cmd("LREM", "r", "-9223372036854775808", "d"), 1},
			{cmd("LREM", "r", "x", "a"), errText("ERR value is not an integer or out of range")},
			{cmd("LREM", "nokey", 1, "a"), 0},
			{cmd("LREM", "r", 0, "c"), 1}, // the last one: the key goes
			{cmd("EXISTS", "r"), 0},

			// LTRIM
			{cmd("LTRIM", "l", 1, -2), ok},
			{cmd("LRANGE", "l", 0, -1), []any{"a", "a2", "b", "C", "c", "d", "e"}},
			{cmd("LTRIM", "l", -100, 100), ok},
			{cmd("LLEN", "l"), 7},
			{cmd("LTRIM", "l", 2, 3), ok},
			{cmd("LRANGE", "l", 0, -1), []any{"b", "C"}},
			{cmd("LTRIM", "l", 0, 0), ok},
			{cmd("LRANGE", "l", 0, -1), []any{"b"}},
			{cmd("LTRIM", "l", 5, 1), ok}, // an empty range empties the list
			{cmd("EXISTS", "l"), 0},
			{cmd("LTRIM", "nokey", 0, 1), ok},
			{cmd("EXISTS", "nokey"), 0},
			{cmd("RPUSH", "t", "a", "b", "c"), 3},
			{cmd("LTRIM", "t", -1, -1), ok},
			{cmd("LRANGE", "t", 0, -1), []any{"c"}},
			{cmd("LTRIM", "t", "x", 1), errText("ERR value is not an integer or out of range")},

			{cmd("SET", "s", "v"), ok},
			{cmd("LINSERT", "s", "BEFORE", "a", "b"), errText(wrongType)},
			{cmd("LINSERT", "s", "MIDDLE", "a", "b"), errText("ERR syntax error")},
			{cmd("LREM", "s", 1, "a"), errText(wrongType)},
			{cmd("LREM", "s", "x", "a"), errText("ERR value is not an integer or out of range")},
			{cmd("LTRIM", "s", 0, 1), errText(wrongType)},
			{cmd("LTRIM", "s", "x", 1), errText("ERR value is not an integer or out of range")},
		})
	})
}

func TestListPos(t *testing.T) {
	t.Parallel()
	const rankZero = "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list"
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("RPUSH", "p", "a", "b", "c", "a", "b", "c"), 6},
			{cmd("LPOS", "p", "a"), 0},
			{cmd("LPOS", "p", "c"), 2},
			{cmd("LPOS", "p", "z"), isNil},
			{cmd("LPOS", "nokey", "a"), isNil},
			{cmd("LPOS", "p", "a", "RANK", 2), 3},
			{cmd("LPOS", "p", "a", "RANK", 3), isNil},
			{cmd("LPOS", "p", "a", "RANK", -1), 3},
			{cmd("LPOS", "p", "a", "rank", -2), 0},
			{cmd("LPOS", "p", "a", "RANK", 1, "RANK", 2), 3}, // the last one wins
			{cmd("LPOS", "p", "a", "RANK", "-9223372036854775808"), 3},
			{cmd("LPOS", "p", "a", "COUNT", 0), []any{0, 3}},
			{cmd("LPOS", "p", "a", "COUNT", 1), []any{0}},
			{cmd("LPOS", "p", "z", "COUNT", 0), emptyArr},
			{cmd("LPOS", "p", "z", "COUNT", 2), emptyArr},
			{cmd("LPOS", "nokey", "a", "COUNT", 1), emptyArr},
			{cmd("LPOS", "p", "a", "COUNT", 0, "MAXLEN", 3), []any{0}},
			{cmd("LPOS", "p", "a", "RANK", -1, "COUNT", 0), []any{3, 0}},
			{cmd("LPOS", "p", "a", "RANK", -2, "COUNT", 5, "MAXLEN", 4), emptyArr},
			{cmd("LPOS", "p", "a", "RANK", 2, "COUNT", 0, "MAXLEN", 0), []any{3}},
			{cmd("LPOS", "p", "a", "RANK", 2, "COUNT", 1), []any{3}},
			{cmd("LPOS", "p", "a", "RANK", -2, "COUNT", 1), []any{0}},
			{cmd("LPOS", "p", "a", "RANK", "9223372036854775807", "COUNT", 0), emptyArr},
			{cmd("LPOS", "p", "c", "RANK", 2, "MAXLEN", 3), isNil},
			{cmd("LPOS", "p", "b", "MAXLEN", 1, "RANK", -1), isNil},
			{cmd("LPOS", "p", "c", "MAXLEN", 1, "RANK", -1), 5},
			{cmd("LPOS", "p", "a", "MAXLEN", 0), 0},

			{cmd("LPOS", "p", "a", "RANK", 0), errText(rankZero)},
			{cmd("LPOS", "nokey", "a", "RANK", 0), errText(rankZero)},
			{cmd("LPOS", "p", "a", "RANK", "x"), errText("ERR value is not an integer or out of range")},
			{cmd("LPOS", "p", "a", "COUNT", -1), errText("ERR COUNT can't be negative")},
			{cmd("LPOS", "p", "a", "COUNT", "x"), errText("ERR COUNT can't be negative")},
			{cmd("LPOS", "p", "a", "MAXLEN", -1), errText("ERR MAXLEN can't be negative")},
			{cmd("LPOS", "p", "a", "MAXLEN", "x"), errText("ERR MAXLEN can't be negative")},
			{cmd("LPOS", "p", "a", "COUNT"), errText("ERR syntax error")},
			{cmd("LPOS", "p", "a", "FOO", 1), errText("ERR syntax error")},
			{cmd("SET", "s", "v"), ok},
			{cmd("LPOS", "s", "a"), errText(wrongType)},
			{cmd("LPOS", "s", "a", "RANK", 0), errText(rankZero)},
		})
	})
}

func TestListMove(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("RPUSH", "l", "a", "b", "c", "d", "e"), 5},
			{cmd("LMOVE", "l", "d", "LEFT", "RIGHT"), "a"},
			{cmd("LMOVE", "l", "d", "right", "left"), "e"},
			{cmd("LRANGE", "d", 0, -1), []any{"e", "a"}},
			{cmd("LRANGE", "l", 0, -1), []any{"b", "c", "d"}},
			{cmd("LMOVE", "l", "d", "LEFT", "MIDDLE"), errText("ERR syntax error")},
			{cmd("LMOVE", "l", "d", "UP", "RIGHT"), errText("ERR syntax error")},
			{cmd("LMOVE", "nokey", "d", "LEFT", "RIGHT"), isNil},
			// Rotations: source and destination are one list.
			{cmd("LMOVE", "l", "l", "LEFT", "RIGHT"), "b"},
			{cmd("LRANGE", "l", 0, -1), []any{"c", "d", "b"}},
			{cmd("RPOPLPUSH", "l", "l"), "b"},
			{cmd("LRANGE", "l", 0, -1), []any{"b", "c", "d"}},
			{cmd("LMOVE", "l", "l", "LEFT", "LEFT"), "b"},
			{cmd("LMOVE", "l", "l", "RIGHT", "RIGHT"), "d"},
			{cmd("LRANGE", "l", 0, -1), []any{"b", "c", "d"}},
			{cmd("RPUSH", "one", "x"), 1},
			{cmd("RPOPLPUSH", "one", "one"), "x"},
			{cmd("LRANGE", "one", 0, -1), []any{"x"}},
			// RPOPLPUSH; moving the last element removes the source.
			{cmd("RPOPLPUSH", "one", "new"), "x"},
			{cmd("EXISTS", "one"), 0},
			{cmd("LRANGE", "new", 0, -1), []any{"x"}},
			{cmd("RPOPLPUSH", "nokey", "new"), isNil},

			// A destination of another type: nothing moves.
			{cmd("SET", "s", "v"), ok},
			{cmd("LMOVE", "l", "s", "LEFT", "RIGHT"), errText(wrongType)},
			{cmd("RPOPLPUSH", "l", "s"), errText(wrongType)},
			{cmd("LRANGE", "l", 0, -1), []any{"b", "c", "d"}},
			{cmd("LMOVE", "s", "d", "LEFT", "RIGHT"), errText(wrongType)},
			{cmd("LMOVE", "nokey", "s", "LEFT", "RIGHT"), isNil}, // no source: the destination is not looked at
		})
	})
}

func TestListMPop(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("RPUSH", "l", "a", "b", "c", "d", "e"), 5},
			{cmd("LMPOP", 1, "l", "LEFT"), []any{"l", []any{"a"}}},
			{cmd("LMPOP", 2, "nokey", "l", "right", "COUNT", 2), []any{"l", []any{"e", "d"}}},
			{cmd("LMPOP", 1, "nokey", "LEFT"), isNil},
			{cmd("LMPOP", 2, "l", "l", "LEFT", "count", 100), []any{"l", []any{"b", "c"}}},
			{cmd("EXISTS", "l"), 0},
			{cmd("LMPOP", 1, "l", "LEFT", "COUNT", "9223372036854775807"), isNil},

			{cmd("LMPOP", 0, "l", "LEFT"), errText("ERR numkeys should be greater than 0")},
			{cmd("LMPOP", -1, "l", "LEFT"), errText("ERR numkeys should be greater than 0")},
			{cmd("LMPOP", "x", "l", "LEFT"), errText("ERR numkeys should be greater than 0")},
			{cmd("LMPOP", 1, "l", "MIDDLE"), errText("ERR syntax error")},
			{cmd("LMPOP", 1, "l", "LEFT", "COUNT", 0), errText("ERR count should be greater than 0")},
			{cmd("LMPOP", 1, "l", "LEFT", "COUNT", -1), errText("ERR count should be greater than 0")},
			{cmd("LMPOP", 1, "l", "LEFT", "COUNT", "x"), errText("ERR count should be greater than 0")},
			{cmd("LMPOP", 1, "l", "LEFT", "COUNT", 1, "COUNT", 2), errText("ERR syntax error")},
			{cmd("LMPOP", 1, "l", "LEFT", "COUNT", 0, "FOO"), errText("ERR count should be greater than 0")},
			{cmd("LMPOP", 1, "l", "LEFT", "FOO"), errText("ERR syntax error")},
			{cmd("LMPOP", 1, "l", "LEFT", "COUNT"), errText("ERR syntax error")},
			{cmd("LMPOP", 2, "l", "LEFT"), errText("ERR syntax error")},
			{cmd("LMPOP", 3, "l", "LEFT"), errText("ERR syntax error")},
			{cmd("LMPOP", "9223372036854775807", "l", "LEFT"), errText("ERR syntax error")},
			{cmd("LMPOP", 1, "l"), errText("ERR wrong number of arguments for 'lmpop' command")},

			{cmd("SET", "s", "v"), ok},
			{cmd("RPUSH", "k", "1"), 1},
			{cmd("LMPOP", 2, "s", "k", "LEFT"), errText(wrongType)},
			{cmd("LMPOP", 2, "k", "s", "LEFT"), []any{"k", []any{"1"}}},
		})
	})
}

// TestListBig checks LRANGE, LINDEX and LSET on a list built by many
// pushes from both ends, and LREM, LINSERT and LTRIM in its middle.
func TestListBig(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		ctx := ctxT(t)
		const n = 2000
		pipe := c.Pipeline()
		for i := range n {
			if i%2 == 0 {
				pipe.RPush(ctx, "big", strconv.Itoa(i))
			} else {
				pipe.LPush(ctx, "big", strconv.Itoa(i))
			}
		}
		if _, err := pipe.Exec(ctx); err != nil {
			t.Fatal(err)
		}
		// Odd numbers descending, then even numbers ascending.
		want := make([]any, 0, n)
		for i := n - 1; i >= 1; i -= 2 {
			want = append(want, strconv.Itoa(i))
		}
		for i := 0; i < n; i += 2 {
			want = append(want, strconv.Itoa(i))
		}
		run(t, c, []step{
			{cmd("LLEN", "big"), n},
			{cmd("LRANGE", "big", 0, -1), want},
			{cmd("LRANGE", "big", 995, 1004), want[995:1005]},
			{cmd("LINDEX", "big", 1000), want[1000]},
			{cmd("LINDEX", "big", -1), "1998"},
			{cmd("LSET", "big", 1000, "mid"), ok},
			{cmd("LINDEX", "big", 1000), "mid"},
			{cmd("LREM", "big", 0, "mid"), 1},
			{cmd("LINDEX", "big", 1000), want[1001]},
			{cmd("LINSERT", "big", "BEFORE", want[1001], "back"), n},
			{cmd("LINDEX", "big", 1000), "back"},
			{cmd("LPOS", "big", "back"), 1000},
			{cmd("LTRIM", "big", 999, 1001), ok},
			{cmd("LRANGE", "big", 0, -1), []any{want[999], "back", want[1001]}},
		})
	})
}
