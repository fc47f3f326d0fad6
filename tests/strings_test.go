package tests

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

const wrongType = "WRONGTYPE Operation against a key holding the wrong kind of value"

func TestStringsGetSet(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("GET", "k"), isNil},
			{cmd("SET", "k", "v"), ok},
			{cmd("GET", "k"), "v"},
			{cmd("SET", "k", "v2"), ok},
			{cmd("GET", "k"), "v2"},
			{cmd("SET", "empty", ""), ok},
			{cmd("GET", "empty"), ""},
			{cmd("EXISTS", "empty"), 1},
			{cmd("SET", "bin", "a\x00b\r\nc"), ok},
			{cmd("GET", "bin"), "a\x00b\r\nc"},
			{cmd("SET", "", "empty key"), ok},
			{cmd("GET", ""), "empty key"},
			{cmd("SET", "big", strings.Repeat("x", 100000)), ok},
			{cmd("STRLEN", "big"), 100000},
			{cmd("GET", "big"), strings.Repeat("x", 100000)},
			// Command names are case-insensitive; arity errors name the
			// command in lower case, whatever case it was sent in.
			{cmd("gEt", "k"), "v2"},
			{cmd("GET"), errText("ERR wrong number of arguments for 'get' command")},
			{cmd("GET", "a", "b"), errText("ERR wrong number of arguments for 'get' command")},
			{cmd("SET", "k"), errText("ERR wrong number of arguments for 'set' command")},
			{cmd("GETSET", "k"), errText("ERR wrong number of arguments for 'getset' command")},
			{cmd("STRLEN"), errText("ERR wrong number of arguments for 'strlen' command")},
		})
	})
}

func TestStringsSetOptions(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		now := time.Now()
		exat := now.Unix() + 100
		pxat := now.UnixMilli() + 100000
		run(t, c, []step{
			// NX and XX
			{cmd("SET", "k", "v"), ok},
			{cmd("SET", "k", "v2", "NX"), isNil},
			{cmd("GET", "k"), "v"},
			{cmd("SET", "nx", "v", "NX"), ok},
			{cmd("GET", "nx"), "v"},
			{cmd("SET", "xx", "v", "XX"), isNil},
			{cmd("EXISTS", "xx"), 0},
			{cmd("SET", "k", "v3", "XX"), ok},
			{cmd("GET", "k"), "v3"},
			{cmd("set", "k", "v4", "xx"), ok}, // options are case-insensitive

			// EX, PX, EXAT, PXAT, KEEPTTL
			{cmd("SET", "k", "v", "EX", 100), ok},
			{cmd("TTL", "k"), between(99, 100)},
			{cmd("SET", "k", "v", "PX", 100000), ok},
			{cmd("PTTL", "k"), between(98000, 100000)},
			{cmd("SET", "k", "v", "EXAT", exat), ok},
			{cmd("TTL", "k"), between(97, 100)},
			{cmd("EXPIRETIME", "k"), exat},
			{cmd("SET", "k", "v", "PXAT", pxat), ok},
			{cmd("PTTL", "k"), between(97000, 100000)},
			{cmd("PEXPIRETIME", "k"), pxat},
			{cmd("SET", "k", "kept", "KEEPTTL"), ok},
			{cmd("PEXPIRETIME", "k"), pxat},
			{cmd("GET", "k"), "kept"},
			{cmd("SET", "k", "v"), ok}, // a plain SET clears the TTL
			{cmd("TTL", "k"), -1},
			{cmd("SET", "k", "v", "XX", "EX", 100), ok},
			{cmd("TTL", "k"), between(99, 100)},
			{cmd("SET", "k", "v", "NX", "EX", 100), isNil},
			{cmd("SET", "k", "v", "KEEPTTL", "XX"), ok},
			{cmd("TTL", "k"), between(99, 100)},
			{cmd("SET", "newttl", "v", "KEEPTTL"), ok}, // nothing to keep
			{cmd("TTL", "newttl"), -1},

			// GET returns the old value
			{cmd("SET", "g", "old"), ok},
			{cmd("SET", "g", "new", "GET"), "old"},
			{cmd("GET", "g"), "new"},
			{cmd("SET", "g2", "v", "GET"), isNil},
			{cmd("GET", "g2"), "v"},
			{cmd("SET", "g", "newer", "NX", "GET"), "new"}, // NX+GET is allowed since 7.0; not set
			{cmd("GET", "g"), "new"},
			{cmd("SET", "g3", "v", "NX", "GET"), isNil},
			{cmd("GET", "g3"), "v"},
			{cmd("SET", "g4", "v", "XX", "GET"), isNil},
			{cmd("EXISTS", "g4"), 0},
			{cmd("SET", "g", "v", "GET", "EX", 100), "new"},
			{cmd("TTL", "g"), between(99, 100)},
			{cmd("SET", "g", "v", "GET", "KEEPTTL"), "v"},
			{cmd("TTL", "g"), between(99, 100)},

			// SET on another type: GET refuses it, plain SET replaces it
			{cmd("HSET", "h", "f", "v"), 1},
			{cmd("SET", "h", "v", "GET"), errText(wrongType)},
			{cmd("TYPE", "h"), "hash"},
			{cmd("HGET", "h", "f"), "v"},
			{cmd("SET", "h", "str"), ok},
			{cmd("TYPE", "h"), "string"},
			{cmd("GET", "h"), "str"},
			{cmd("HSET", "h2", "f", "v"), 1},
			{cmd("SET", "h2", "v", "XX"), ok},
			{cmd("GET", "h2"), "v"},
			{cmd("HSET", "h3", "f", "v"), 1},
			{cmd("SET", "h3", "v", "NX"), isNil},
			{cmd("TYPE", "h3"), "hash"},

			// invalid combinations
			{cmd("SET", "k", "v", "EX", 10, "PX", 100), errText("ERR syntax error")},
			{cmd("SET", "k", "v", "NX", "XX"), errText("ERR syntax error")},
			{cmd("SET", "k", "v", "KEEPTTL", "EX", 5), errText("ERR syntax error")},
			{cmd("SET", "k", "v", "PXAT", 5, "KEEPTTL"), errText("ERR syntax error")},
			{cmd("SET", "k", "v", "EXAT", 5, "PXAT", 5), errText("ERR syntax error")},
			{cmd("SET", "k", "v", "EX"), errText("ERR syntax error")},
			{cmd("SET", "k", "v", "FOO"), errText("ERR syntax error")},
			{cmd("SET", "k", "v", "EX", "abc"), errText("ERR value is not an integer or out of range")},
			{cmd("SET", "k", "v", "EX", "1.5"), errText("ERR value is not an integer or out of range")},
			{cmd("SET", "k", "v", "EX", 0), errText("ERR invalid expire time in 'set' command")},
			{cmd("SET", "k", "v", "EX", -1), errText("ERR invalid expire time in 'set' command")},
			{cmd("SET", "k", "v", "PX", 0), errText("ERR invalid expire time in 'set' command")},
			{cmd("SET", "k", "v", "EXAT", 0), errText("ERR invalid expire time in 'set' command")},
			{cmd("SET", "k", "v", "PXAT", -5), errText("ERR invalid expire time in 'set' command")},
			{cmd("SET", "k", "v", "EX", "9223372036854775807"), errText("ERR invalid expire time in 'set' command")},
			{cmd("SET", "k", "v", "PX", "9223372036854775807"), errText("ERR invalid expire time in 'set' command")},
			// failed commands changed nothing
			{cmd("GET", "k"), "v"},
			{cmd("TTL", "k"), between(99, 100)},
			// Redis accepts an option twice; the last value wins.
			{cmd("SET", "k", "v", "EX", 10, "EX", 1000), ok},
			{cmd("TTL", "k"), between(999, 1000)},
			{cmd("SET", "k", "v", "NX", "NX"), isNil},
			{cmd("SET", "k", "v", "XX", "XX", "KEEPTTL", "KEEPTTL"), ok},
			{cmd("TTL", "k"), between(999, 1000)},
		})
	})
}

func TestStringsSetVariants(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("SETNX", "k", "v"), 1},
			{cmd("SETNX", "k", "v2"), 0},
			{cmd("GET", "k"), "v"},
			{cmd("HSET", "h", "f", "v"), 1},
			{cmd("SETNX", "h", "v"), 0},
			{cmd("SETNX", "k"), errText("ERR wrong number of arguments for 'setnx' command")},

			{cmd("SETEX", "e", 100, "v"), ok},
			{cmd("GET", "e"), "v"},
			{cmd("TTL", "e"), between(99, 100)},
			{cmd("SETEX", "e", 0, "v"), errText("ERR invalid expire time in 'setex' command")},
			{cmd("SETEX", "e", -5, "v"), errText("ERR invalid expire time in 'setex' command")},
			{cmd("SETEX", "e", "abc", "v"), errText("ERR value is not an integer or out of range")},
			{cmd("SETEX", "h", 100, "v"), ok}, // overwrites any type
			{cmd("TYPE", "h"), "string"},
			{cmd("SETEX", "e", 100), errText("ERR wrong number of arguments for 'setex' command")},

			{cmd("PSETEX", "p", 100000, "v"), ok},
			{cmd("PTTL", "p"), between(98000, 100000)},
			{cmd("GET", "p"), "v"},
			{cmd("PSETEX", "p", 0, "v"), errText("ERR invalid expire time in 'psetex' command")},
			{cmd("PSETEX", "p", -1, "v"), errText("ERR invalid expire time in 'psetex' command")},

			// GETSET returns the old value and clears the TTL
			{cmd("GETSET", "e", "new"), "v"},
			{cmd("GET", "e"), "new"},
			{cmd("TTL", "e"), -1},
			{cmd("GETSET", "missing", "v"), isNil},
			{cmd("GET", "missing"), "v"},
			{cmd("HSET", "h2", "f", "v"), 1},
			{cmd("GETSET", "h2", "v"), errText(wrongType)},

			// GETDEL
			{cmd("GETDEL", "missing"), "v"},
			{cmd("EXISTS", "missing"), 0},
			{cmd("GETDEL", "missing"), isNil},
			{cmd("GETDEL", "h2"), errText(wrongType)},
			{cmd("EXISTS", "h2"), 1},
		})
	})
}

func TestStringsMulti(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("MSET", "a", "1", "b", "2", "c", "3"), ok},
			{cmd("MGET", "a", "b", "c", "nope"), []any{"1", "2", "3", nil}},
			{cmd("MGET", "nope"), []any{nil}},
			{cmd("MGET", "a", "a"), []any{"1", "1"}},
			{cmd("HSET", "h", "f", "v"), 1},
			{cmd("MGET", "a", "h"), []any{"1", nil}}, // no WRONGTYPE from MGET
			{cmd("MSET", "d", "1", "d", "2"), ok},    // the last one wins
			{cmd("GET", "d"), "2"},
			{cmd("MSET", "h", "now a string"), ok},
			{cmd("TYPE", "h"), "string"},
			{cmd("SET", "t", "v", "EX", 100), ok},
			{cmd("MSET", "t", "v2"), ok}, // clears the TTL
			{cmd("TTL", "t"), -1},
			{cmd("MSET", "a"), errText("ERR wrong number of arguments for 'mset' command")},
			{cmd("MSET", "a", "1", "b"), errText("ERR wrong number of arguments for 'mset' command")},
			{cmd("MSET"), errText("ERR wrong number of arguments for 'mset' command")},
			{cmd("MGET"), errText("ERR wrong number of arguments for 'mget' command")},

			{cmd("MSETNX", "a", "x", "new", "y"), 0}, // a exists: nothing is set
			{cmd("EXISTS", "new"), 0},
			{cmd("GET", "a"), "1"},
			{cmd("MSETNX", "x", "1", "y", "2"), 1},
			{cmd("MGET", "x", "y"), []any{"1", "2"}},
			{cmd("HSET", "h2", "f", "v"), 1},
			{cmd("MSETNX", "z", "1", "h2", "2"), 0},
			{cmd("EXISTS", "z"), 0},
			{cmd("MSETNX", "x"), errText("ERR wrong number of arguments for 'msetnx' command")},
			{cmd("MSETNX", "q", "1", "r"), errText("ERR wrong number of arguments for 'msetnx' command")},
		})
	})
}

func TestStringsGetEx(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		now := time.Now()
		exat := now.Unix() + 200
		pxat := now.UnixMilli() + 300000
		run(t, c, []step{
			{cmd("GETEX", "missing"), isNil},
			{cmd("GETEX", "missing", "EX", 100), isNil},
			{cmd("EXISTS", "missing"), 0},
			{cmd("SET", "k", "v"), ok},
			{cmd("GETEX", "k"), "v"},
			{cmd("TTL", "k"), -1},
			{cmd("GETEX", "k", "EX", 100), "v"},
			{cmd("TTL", "k"), between(99, 100)},
			{cmd("GETEX", "k"), "v"}, // no option: the TTL stays
			{cmd("TTL", "k"), between(99, 100)},
			{cmd("GETEX", "k", "PX", 50000), "v"},
			{cmd("PTTL", "k"), between(48000, 50000)},
			{cmd("GETEX", "k", "EXAT", exat), "v"},
			{cmd("EXPIRETIME", "k"), exat},
			{cmd("GETEX", "k", "PXAT", pxat), "v"},
			{cmd("PEXPIRETIME", "k"), pxat},
			{cmd("GETEX", "k", "PERSIST"), "v"},
			{cmd("TTL", "k"), -1},
			{cmd("GETEX", "k", "persist"), "v"},

			{cmd("GETEX", "k", "EX", 0), errText("ERR invalid expire time in 'getex' command")},
			{cmd("GETEX", "k", "PX", -1), errText("ERR invalid expire time in 'getex' command")},
			{cmd("GETEX", "k", "EX", "abc"), errText("ERR value is not an integer or out of range")},
			{cmd("GETEX", "k", "PERSIST", "EX", 5), errText("ERR syntax error")},
			{cmd("GETEX", "k", "EX", 5, "PX", 5000), errText("ERR syntax error")},
			{cmd("GETEX", "k", "EX"), errText("ERR syntax error")},
			{cmd("GETEX", "k", "KEEPTTL"), errText("ERR syntax error")},
			{cmd("GETEX", "k", "FOO"), errText("ERR syntax error")},
			{cmd("TTL", "k"), -1},

			// an EXAT in the past returns the value and deletes the key
			{cmd("GETEX", "k", "EXAT", 1), "v"},
			{cmd("EXISTS", "k"), 0},
			{cmd("SET", "k", "v"), ok},
			{cmd("GETEX", "k", "PXAT", 1000), "v"},
			{cmd("GET", "k"), isNil},

			{cmd("HSET", "h", "f", "v"), 1},
			{cmd("GETEX", "h"), errText(wrongType)},
			{cmd("GETEX", "h", "PERSIST"), errText(wrongType)},
			{cmd("GETEX"), errText("ERR wrong number of arguments for 'getex' command")},
		})
	})
}

func TestStringsRanges(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			// APPEND and STRLEN
			{cmd("APPEND", "a", "ab"), 2},
			{cmd("APPEND", "a", "cd"), 4},
			{cmd("GET", "a"), "abcd"},
			{cmd("APPEND", "a", ""), 4},
			{cmd("STRLEN", "a"), 4},
			{cmd("STRLEN", "nope"), 0},
			{cmd("SET", "n", 10), ok},
			{cmd("APPEND", "n", 5), 3},
			{cmd("GET", "n"), "105"},
			{cmd("INCR", "n"), 106},
			{cmd("SET", "t", "x", "EX", 100), ok},
			{cmd("APPEND", "t", "y"), 2}, // keeps the TTL
			{cmd("TTL", "t"), between(99, 100)},

			// GETRANGE and SUBSTR
			{cmd("SET", "s", "Hello World"), ok},
			{cmd("GETRANGE", "s", 0, 4), "Hello"},
			{cmd("GETRANGE", "s", -5, -1), "World"},
			{cmd("GETRANGE", "s", 0, -1), "Hello World"},
			{cmd("GETRANGE", "s", 6, 100), "World"},
			{cmd("GETRANGE", "s", -100, 3), "Hell"},
			{cmd("GETRANGE", "s", -100, -100), "H"}, // both clamp to 0 (Redis 7.0)
			{cmd("GETRANGE", "s", 5, 2), ""},
			{cmd("GETRANGE", "s", 11, 20), ""},
			{cmd("GETRANGE", "s", 20, 30), ""},
			{cmd("GETRANGE", "s", -1, -5), ""},
			{cmd("GETRANGE", "s", 3, 3), "l"},
			// Redis 7.0: a negative end clamps to 0 once start is >= 0, so
			// this is the first byte, not "" (Redis 7.2+ returns "").
			{cmd("GETRANGE", "s", 0, -100), "H"},
			{cmd("GETRANGE", "nope", 0, -1), ""},
			{cmd("GETRANGE", "s", "a", 1), errText("ERR value is not an integer or out of range")},
			{cmd("GETRANGE", "s", 0), errText("ERR wrong number of arguments for 'getrange' command")},
			{cmd("SUBSTR", "s", 0, 4), "Hello"},
			{cmd("SUBSTR", "s", -5, -1), "World"},
			{cmd("SUBSTR", "nope", 0, 4), ""},

			// SETRANGE
			{cmd("SETRANGE", "s", 6, "Redis"), 11},
			{cmd("GET", "s"), "Hello Redis"},
			{cmd("SETRANGE", "s", 9, "xyz"), 12},
			{cmd("GET", "s"), "Hello Redxyz"},
			{cmd("SETRANGE", "s", 100, ""), 12}, // empty value: no padding
			{cmd("STRLEN", "s"), 12},
			{cmd("SETRANGE", "pad", 5, "x"), 6},
			{cmd("GET", "pad"), "\x00\x00\x00\x00\x00x"},
			{cmd("SETRANGE", "pad", 8, "yz"), 10},
			{cmd("GET", "pad"), "\x00\x00\x00\x00\x00x\x00\x00yz"},
			{cmd("SETRANGE", "s", -1, "x"), errText("ERR offset is out of range")},
			{cmd("SETRANGE", "nope", 0, ""), 0}, // creates nothing
			{cmd("EXISTS", "nope"), 0},
			{cmd("SETRANGE", "nope", 10, ""), 0},
			{cmd("EXISTS", "nope"), 0},
			{cmd("SETRANGE", "s", 536870912, "x"), errText("ERR string exceeds maximum allowed size (proto-max-bulk-len)")},
			{cmd("SETRANGE", "s", "a", "x"), errText("ERR value is not an integer or out of range")},
			{cmd("SETRANGE", "t", 0, "z"), 2}, // keeps the TTL
			{cmd("TTL", "t"), between(99, 100)},

			// WRONGTYPE
			{cmd("HSET", "h", "f", "v"), 1},
			{cmd("APPEND", "h", "x"), errText(wrongType)},
			{cmd("STRLEN", "h"), errText(wrongType)},
			{cmd("GETRANGE", "h", 0, -1), errText(wrongType)},
			{cmd("SETRANGE", "h", 0, "x"), errText(wrongType)},
			{cmd("SETRANGE", "h", 0, ""), errText(wrongType)},
		})
	})
}

func TestStringsIncr(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("INCR", "n"), 1},
			{cmd("INCR", "n"), 2},
			{cmd("GET", "n"), "2"},
			{cmd("INCRBY", "n", 10), 12},
			{cmd("DECR", "n"), 11},
			{cmd("DECRBY", "n", 20), -9},
			{cmd("INCRBY", "n", -1), -10},
			{cmd("DECRBY", "n", -10), 0},
			{cmd("DECR", "m"), -1},
			{cmd("INCRBY", "o", 0), 0},
			{cmd("GET", "o"), "0"},
			{cmd("SET", "n", "-5"), ok},
			{cmd("INCR", "n"), -4},

			// TTL survives
			{cmd("SET", "t", 1, "EX", 100), ok},
			{cmd("INCR", "t"), 2},
			{cmd("TTL", "t"), between(99, 100)},

			// not integers
			{cmd("SET", "s", "abc"), ok},
			{cmd("INCR", "s"), errText("ERR value is not an integer or out of range")},
			{cmd("SET", "s", "1.5"), ok},
			{cmd("INCR", "s"), errText("ERR value is not an integer or out of range")},
			{cmd("SET", "s", " 1"), ok},
			{cmd("INCR", "s"), errText("ERR value is not an integer or out of range")},
			{cmd("SET", "s", "01"), ok},
			{cmd("INCR", "s"), errText("ERR value is not an integer or out of range")},
			{cmd("SET", "s", "+1"), ok},
			{cmd("INCR", "s"), errText("ERR value is not an integer or out of range")},
			{cmd("SET", "s", ""), ok},
			{cmd("INCR", "s"), errText("ERR value is not an integer or out of range")},
			{cmd("SET", "s", "9223372036854775808"), ok},
			{cmd("INCR", "s"), errText("ERR value is not an integer or out of range")},
			{cmd("GET", "s"), "9223372036854775808"},
			{cmd("INCRBY", "n", "abc"), errText("ERR value is not an integer or out of range")},
			{cmd("INCRBY", "n", "9223372036854775808"), errText("ERR value is not an integer or out of range")},
			{cmd("INCRBY", "n", "1.0"), errText("ERR value is not an integer or out of range")},
			{cmd("DECRBY", "n", ""), errText("ERR value is not an integer or out of range")},

			// overflow
			{cmd("SET", "max", "9223372036854775807"), ok},
			{cmd("INCR", "max"), errText("ERR increment or decrement would overflow")},
			{cmd("INCRBY", "max", 1), errText("ERR increment or decrement would overflow")},
			{cmd("DECRBY", "max", -1), errText("ERR increment or decrement would overflow")},
			{cmd("GET", "max"), "9223372036854775807"},
			{cmd("SET", "min", "-9223372036854775808"), ok},
			{cmd("DECR", "min"), errText("ERR increment or decrement would overflow")},
			{cmd("INCRBY", "min", -1), errText("ERR increment or decrement would overflow")},
			{cmd("INCRBY", "min", "9223372036854775807"), -1},
			// DECRBY cannot negate the minimum: its own message
			{cmd("DECRBY", "n", "-9223372036854775808"), errText("ERR decrement would overflow")},

			{cmd("HSET", "h", "f", "1"), 1},
			{cmd("INCR", "h"), errText(wrongType)},
			{cmd("DECRBY", "h", 1), errText(wrongType)},
			{cmd("INCR"), errText("ERR wrong number of arguments for 'incr' command")},
			{cmd("INCRBY", "n"), errText("ERR wrong number of arguments for 'incrby' command")},
		})
	})
}

func TestStringsIncrByFloat(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("INCRBYFLOAT", "f", "10.5"), "10.5"},
			{cmd("GET", "f"), "10.5"},
			{cmd("INCRBYFLOAT", "f", "0.25"), "10.75"},
			{cmd("INCRBYFLOAT", "f", "-5"), "5.75"},
			{cmd("INCRBYFLOAT", "f", "5.0e3"), "5005.75"},
			{cmd("SET", "g", "5.0e3"), ok},
			{cmd("INCRBYFLOAT", "g", "2.0e2"), "5200"},
			{cmd("SET", "h", "1.5"), ok},
			{cmd("INCRBYFLOAT", "h", "1.5"), "3"}, // not "3.0"
			{cmd("INCR", "h"), 4},                 // the result is an integer string
			{cmd("INCRBYFLOAT", "h", "-4"), "0"},
			{cmd("INCRBYFLOAT", "i", "3"), "3"},
			{cmd("INCRBYFLOAT", "i", "-3.25"), "-0.25"},
			{cmd("INCRBYFLOAT", "j", "1e20"), "100000000000000000000"}, // fixed notation, no exponent
			{cmd("INCRBYFLOAT", "k", "1.5e-5"), "0.000015"},
			{cmd("INCRBYFLOAT", "l", "  1"), errText("ERR value is not a valid float")},
			{cmd("INCRBYFLOAT", "l", "abc"), errText("ERR value is not a valid float")},
			{cmd("INCRBYFLOAT", "l", ""), errText("ERR value is not a valid float")},
			{cmd("INCRBYFLOAT", "l", "nan"), errText("ERR value is not a valid float")},
			{cmd("EXISTS", "l"), 0},
			{cmd("SET", "s", "abc"), ok},
			{cmd("INCRBYFLOAT", "s", "1"), errText("ERR value is not a valid float")},
			// strtold reads hex floats, a binary exponent or not.
			{cmd("SET", "hx", "0x10"), ok},
			{cmd("INCRBYFLOAT", "hx", "0x.8"), "16.5"},
			{cmd("INCRBYFLOAT", "hx", "0x"), errText("ERR value is not a valid float")},
			{cmd("INCRBYFLOAT", "f", "inf"), errText("ERR increment would produce NaN or Infinity")},
			{cmd("INCRBYFLOAT", "f", "-inf"), errText("ERR increment would produce NaN or Infinity")},
			{cmd("GET", "f"), "5005.75"},
			// TTL survives
			{cmd("SET", "t", "1", "EX", 100), ok},
			{cmd("INCRBYFLOAT", "t", "0.5"), "1.5"},
			{cmd("TTL", "t"), between(99, 100)},
			{cmd("HSET", "hh", "f", "1"), 1},
			{cmd("INCRBYFLOAT", "hh", "1"), errText(wrongType)},
			{cmd("INCRBYFLOAT", "f"), errText("ERR wrong number of arguments for 'incrbyfloat' command")},
		})
	})
}

// TestStringsIncrByFloatPrecision pins what Redis's long double arithmetic
// gives for values with no exact binary form. Redis parses with strtold,
// adds in x87 long double (64-bit mantissa), prints with "%.17Lf" (17 digits
// after the point) and trims trailing zeros: 0.1 + 0.2 is "0.3", where
// float64 with the shortest round-trip format gives "0.30000000000000004",
// and 5.6 + 5000 is "5005.60000000000000009". math/big.Float with Prec 64
// and ToNearestEven, formatted with Text('f', 17), reproduces these exactly.
func TestStringsIncrByFloatPrecision(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("INCRBYFLOAT", "f", "0.1"), "0.1"},
			{cmd("INCRBYFLOAT", "f", "0.2"), "0.3"},
			// the example of the Redis documentation
			{cmd("SET", "g", "10.50"), ok},
			{cmd("INCRBYFLOAT", "g", "0.1"), "10.6"},
			{cmd("INCRBYFLOAT", "g", "-5"), "5.6"},
			{cmd("INCRBYFLOAT", "g", "5.0e3"), "5005.60000000000000009"},
			{cmd("GET", "g"), "5005.60000000000000009"},
			{cmd("HINCRBYFLOAT", "h", "f", "0.1"), "0.1"},
			{cmd("HINCRBYFLOAT", "h", "f", "0.2"), "0.3"},
		})
	})
}

func TestStringsWrongTypeEverywhere(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		steps := []step{{cmd("HSET", "h", "f", "v"), 1}}
		for _, args := range [][]any{
			cmd("GET", "h"), cmd("GETSET", "h", "v"), cmd("GETDEL", "h"), cmd("GETEX", "h", "EX", 5),
			cmd("APPEND", "h", "v"), cmd("STRLEN", "h"), cmd("GETRANGE", "h", 0, 1), cmd("SUBSTR", "h", 0, 1),
			cmd("SETRANGE", "h", 0, "v"), cmd("INCR", "h"), cmd("DECR", "h"), cmd("INCRBY", "h", 1),
			cmd("DECRBY", "h", 1), cmd("INCRBYFLOAT", "h", 1), cmd("SET", "h", "v", "GET"),
		} {
			steps = append(steps, step{args, errText(wrongType)})
		}
		steps = append(steps,
			step{cmd("HGETALL", "h"), pairs(map[string]string{"f": "v"})},
			step{cmd("TTL", "h"), -1},
		)
		run(t, c, steps)
	})
}

// TestStringsPipeline checks that pipelined commands each get the reply they
// would get alone, in order, including errors in the middle of a batch.
func TestStringsPipeline(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		ctx := ctxT(t)
		pipe := c.Pipeline()
		var cmds []*redis.Cmd
		for i := range 500 {
			k := "k" + strconv.Itoa(i%50)
			cmds = append(cmds, pipe.Do(ctx, "INCR", k))
			if i%100 == 99 {
				cmds = append(cmds, pipe.Do(ctx, "HSET", "h", "f", "v"), pipe.Do(ctx, "INCR", "h"))
			}
			cmds = append(cmds, pipe.Do(ctx, "GET", k))
		}
		_, _ = pipe.Exec(ctx)
		counts := map[string]int64{}
		i := 0
		for n := range 500 {
			k := "k" + strconv.Itoa(n%50)
			counts[k]++
			if v, err := cmds[i].Int64(); err != nil || v != counts[k] {
				t.Fatalf("INCR %s #%d: got %v %v, want %d", k, n, v, err, counts[k])
			}
			i++
			if n%100 == 99 {
				if _, err := cmds[i].Result(); err != nil {
					t.Fatalf("HSET: %v", err)
				}
				if err := cmds[i+1].Err(); err == nil || err.Error() != wrongType {
					t.Fatalf("INCR h: got %v, want %s", err, wrongType)
				}
				i += 2
			}
			if v, err := cmds[i].Text(); err != nil || v != strconv.FormatInt(counts[k], 10) {
				t.Fatalf("GET %s #%d: got %q %v, want %d", k, n, v, err, counts[k])
			}
			i++
		}
		run(t, c, []step{{cmd("DBSIZE"), 51}})
	})
}

// TestStringsExtremeArgs: integer arguments at the int64 limits get Redis's
// replies instead of crashing the server (SETRANGE's offset plus the value's
// length overflowed and panicked).
func TestStringsExtremeArgs(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		const (
			tooBig      = "ERR string exceeds maximum allowed size (proto-max-bulk-len)"
			errNotFloat = "ERR value is not a valid float"
		)
		run(t, c, []step{
			{cmd("SETRANGE", "nope", "9223372036854775807", "x"), errText(tooBig)},
			{cmd("SETRANGE", "nope", "9223372036854775806", "xy"), errText(tooBig)},
			{cmd("SETRANGE", "nope", "4611686018427387904", "x"), errText(tooBig)},
			{cmd("SETRANGE", "nope", "9223372036854775807", ""), 0},
			{cmd("EXISTS", "nope"), 0},
			{cmd("SETRANGE", "nope", "-9223372036854775808", "x"), errText("ERR offset is out of range")},
			{cmd("SETRANGE", "nope", "9223372036854775808", "x"), errText(errNotInt)},
			{cmd("SET", "s", "abc"), ok},
			{cmd("SETRANGE", "s", "9223372036854775807", "x"), errText(tooBig)},
			{cmd("SETRANGE", "s", "9223372036854775807", ""), 3},
			{cmd("GET", "s"), "abc"},
			{cmd("RPUSH", "l", "a"), 1},
			{cmd("SETRANGE", "l", "9223372036854775807", "x"), errText(wrongType)},
			{cmd("SETRANGE", "l", "-1", "x"), errText("ERR offset is out of range")}, // checked before the type
			{cmd("GETRANGE", "s", "-9223372036854775808", "9223372036854775807"), "abc"},
			{cmd("GETRANGE", "s", "9223372036854775807", "-9223372036854775808"), ""},
			// INCRBYFLOAT refuses what strtold reports as out of range,
			// and numbers of 5120 bytes or more.
			{cmd("INCRBYFLOAT", "f", "1e4933"), errText(errNotFloat)},
			{cmd("INCRBYFLOAT", "f", "1e999999999"), errText(errNotFloat)},
			{cmd("INCRBYFLOAT", "f", "1e-4951"), errText(errNotFloat)},
			{cmd("INCRBYFLOAT", "f", "-1e-999999999"), errText(errNotFloat)},
			{cmd("INCRBYFLOAT", "f", "0x1p16384"), errText(errNotFloat)},
			{cmd("INCRBYFLOAT", "f", strings.Repeat("0", 5119)+"1"), errText(errNotFloat)},
			{cmd("EXISTS", "f"), 0},
			{cmd("INCRBYFLOAT", "f", "0e-999999999"), "0"},
			{cmd("INCRBYFLOAT", "f", "1e-4950"), "0"}, // a denormal: no error
			{cmd("INCRBYFLOAT", "f", strings.Repeat("0", 5118)+"1"), "1"},
			{cmd("SET", "huge", "1e5000"), ok},
			{cmd("INCRBYFLOAT", "huge", "1"), errText(errNotFloat)},
			{cmd("HSET", "h", "f", "1e5000"), 1},
			{cmd("HINCRBYFLOAT", "h", "f", "1"), errText("ERR hash value is not a float")},
			{cmd("HINCRBYFLOAT", "h", "g", "1e5000"), errText(errNotFloat)},
		})
	})
}

// TestStringsPrecedence: Redis checks the key's type before some numeric
// arguments, so a key of the wrong type answers WRONGTYPE whatever the
// number, and GETEX on a missing key answers nil whatever its time.
func TestStringsPrecedence(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("RPUSH", "l", "a"), 1},
			{cmd("HSET", "h", "f", "v"), 1},
			{cmd("SET", "s", "1.5"), ok},
			// INCRBYFLOAT reads the key before the increment
			{cmd("INCRBYFLOAT", "l", "abc"), errText(wrongType)},
			{cmd("INCRBYFLOAT", "h", ""), errText(wrongType)},
			{cmd("INCRBYFLOAT", "h", "nan"), errText(wrongType)},
			{cmd("INCRBYFLOAT", "nope", "abc"), errText("ERR value is not a valid float")},
			{cmd("INCRBYFLOAT", "s", "abc"), errText("ERR value is not a valid float")},
			{cmd("EXISTS", "nope"), 0},
			// but INCRBY and DECRBY parse first
			{cmd("INCRBY", "l", "abc"), errText(errNotInt)},
			{cmd("DECRBY", "l", "-9223372036854775808"), errText("ERR decrement would overflow")},
			// GETEX: syntax, then the key, then the time
			{cmd("GETEX", "nope", "EX", "abc"), isNil},
			{cmd("GETEX", "nope", "PX", 0), isNil},
			{cmd("GETEX", "nope", "EX", "9223372036854775807"), isNil},
			{cmd("GETEX", "nope", "EX", "abc", "FOO"), errText(errSyntax)},
			{cmd("GETEX", "l", "EX", "abc"), errText(wrongType)},
			{cmd("GETEX", "l", "PXAT", -1), errText(wrongType)},
			{cmd("GETEX", "s", "EX", "abc"), errText(errNotInt)},
			{cmd("GETEX", "s", "EX", "9223372036854775807"), errText("ERR invalid expire time in 'getex' command")},
			{cmd("GETEX", "s", "EXAT", "9223372036854776"), errText("ERR invalid expire time in 'getex' command")},
			{cmd("TTL", "s"), -1},
			// SET parses its time before GET reads the key
			{cmd("SET", "l", "v", "GET", "EX", "abc"), errText(errNotInt)},
			{cmd("SET", "l", "v", "GET", "EX", 0), errText("ERR invalid expire time in 'set' command")},
			{cmd("SET", "l", "v", "GET", "EX", 10), errText(wrongType)},
		})
	})
}
