package tests

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

const (
	errDBRange   = "ERR DB index is out of range"
	errNotInt    = "ERR value is not an integer or out of range"
	errSameObj   = "ERR source and destination objects are the same"
	errSyntax    = "ERR syntax error"
	errNoSuchKey = "ERR no such key"
)

func TestKeyspaceDelExistsType(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("MSET", "a", "1", "b", "2", "c", "3", "d", "4"), ok},
			{cmd("HSET", "h", "f", "v"), 1},
			{cmd("EXISTS", "a"), 1},
			{cmd("EXISTS", "a", "a", "b", "nope", "h"), 4}, // repeats count
			{cmd("EXISTS", "nope"), 0},
			{cmd("EXISTS"), errText("ERR wrong number of arguments for 'exists' command")},
			{cmd("TYPE", "a"), "string"},
			{cmd("TYPE", "h"), "hash"},
			{cmd("TYPE", "nope"), "none"},
			{cmd("TOUCH", "a", "b", "nope", "a"), 3},
			{cmd("TOUCH", "nope"), 0},
			{cmd("TOUCH"), errText("ERR wrong number of arguments for 'touch' command")},
			{cmd("DEL", "a", "b", "nope"), 2},
			{cmd("DEL", "a"), 0},
			{cmd("DEL", "c", "c"), 1},
			{cmd("EXISTS", "a", "b", "c"), 0},
			{cmd("DEL", "h"), 1},
			{cmd("TYPE", "h"), "none"},
			{cmd("DEL"), errText("ERR wrong number of arguments for 'del' command")},
			{cmd("MSET", "x", "1", "y", "2"), ok},
			{cmd("HSET", "hx", "f", "v", "g", "w"), 2},
			{cmd("UNLINK", "x", "y", "hx", "nope"), 3},
			{cmd("UNLINK", "x"), 0},
			{cmd("UNLINK"), errText("ERR wrong number of arguments for 'unlink' command")},
			{cmd("KEYS", "*"), []any{"d"}},
			{cmd("DBSIZE"), 1},
		})
	})
}

func TestKeyspaceExpire(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		now := time.Now()
		at := now.Unix() + 1000
		atMs := now.UnixMilli() + 2000000
		run(t, c, []step{
			{cmd("TTL", "nope"), -2},
			{cmd("PTTL", "nope"), -2},
			{cmd("EXPIRETIME", "nope"), -2},
			{cmd("PEXPIRETIME", "nope"), -2},
			{cmd("SET", "k", "v"), ok},
			{cmd("TTL", "k"), -1},
			{cmd("PTTL", "k"), -1},
			{cmd("EXPIRETIME", "k"), -1},
			{cmd("PEXPIRETIME", "k"), -1},
			{cmd("EXPIRE", "nope", 100), 0},
			{cmd("EXPIRE", "k", 100), 1},
			{cmd("TTL", "k"), between(99, 100)},
			{cmd("PTTL", "k"), between(98000, 100000)},
			{cmd("PEXPIRE", "k", 50000), 1},
			{cmd("PTTL", "k"), between(48000, 50000)},
			{cmd("TTL", "k"), between(49, 50)},
			{cmd("EXPIREAT", "k", at), 1},
			{cmd("EXPIRETIME", "k"), at},
			{cmd("PEXPIRETIME", "k"), at * 1000},
			{cmd("PEXPIREAT", "k", atMs), 1},
			{cmd("PEXPIRETIME", "k"), atMs},
			{cmd("EXPIRETIME", "k"), (atMs + 500) / 1000}, // rounded, not truncated
			// TTL and EXPIRETIME round to the nearest second: 2.6s left is 3.
			{cmd("PEXPIRE", "k", 2700), 1},
			{cmd("TTL", "k"), 3},
			{cmd("PEXPIREAT", "k", (atMs/1000)*1000+400), 1},
			{cmd("EXPIRETIME", "k"), atMs / 1000},
			{cmd("PEXPIREAT", "k", (atMs/1000)*1000+600), 1},
			{cmd("EXPIRETIME", "k"), atMs/1000 + 1},
			{cmd("PERSIST", "k"), 1},
			{cmd("PERSIST", "k"), 0},
			{cmd("PERSIST", "nope"), 0},
			{cmd("TTL", "k"), -1},
			{cmd("GET", "k"), "v"},

			// NX XX GT LT; a key without a TTL counts as an infinite TTL
			{cmd("EXPIRE", "k", 100, "XX"), 0},
			{cmd("EXPIRE", "k", 100, "GT"), 0},
			{cmd("TTL", "k"), -1},
			{cmd("EXPIRE", "k", 100, "LT"), 1},
			{cmd("TTL", "k"), between(99, 100)},
			{cmd("EXPIRE", "k", 200, "NX"), 0},
			{cmd("EXPIRE", "k", 200, "XX"), 1},
			{cmd("TTL", "k"), between(199, 200)},
			{cmd("EXPIRE", "k", 100, "GT"), 0},
			{cmd("EXPIRE", "k", 300, "GT"), 1},
			{cmd("TTL", "k"), between(299, 300)},
			{cmd("EXPIRE", "k", 400, "LT"), 0},
			{cmd("EXPIRE", "k", 150, "lt"), 1},
			{cmd("TTL", "k"), between(149, 150)},
			{cmd("PERSIST", "k"), 1},
			{cmd("EXPIRE", "k", 100, "NX"), 1},
			{cmd("TTL", "k"), between(99, 100)},
			{cmd("PEXPIRE", "k", 500000, "GT"), 1},
			{cmd("EXPIREAT", "k", at, "LT"), 0},
			{cmd("PEXPIREAT", "k", atMs, "XX"), 1},
			{cmd("PEXPIRETIME", "k"), atMs},
			{cmd("EXPIRE", "nope", 100, "LT"), 0},
			{cmd("EXPIRE", "k", 100, "NX", "XX"), errText("ERR NX and XX, GT or LT options at the same time are not compatible")},
			{cmd("EXPIRE", "k", 100, "NX", "GT"), errText("ERR NX and XX, GT or LT options at the same time are not compatible")},
			{cmd("PEXPIRE", "k", 100, "NX", "LT"), errText("ERR NX and XX, GT or LT options at the same time are not compatible")},
			{cmd("EXPIRE", "k", 100, "GT", "LT"), errText("ERR GT and LT options at the same time are not compatible")},
			{cmd("EXPIRE", "k", 100, "FOO"), errText("ERR Unsupported option FOO")},
			{cmd("EXPIRE", "k", "abc"), errText(errNotInt)},
			{cmd("EXPIRE", "k", "1.5"), errText(errNotInt)},
			{cmd("EXPIRE", "k", "9223372036854775807"), errText("ERR invalid expire time in 'expire' command")},
			{cmd("PEXPIRE", "k", "9223372036854775807"), errText("ERR invalid expire time in 'pexpire' command")},
			{cmd("EXPIREAT", "k", "9223372036854775807"), errText("ERR invalid expire time in 'expireat' command")},
			{cmd("EXPIRE", "k"), errText("ERR wrong number of arguments for 'expire' command")},
			{cmd("PEXPIRETIME", "k"), atMs}, // nothing changed
		})
	})
}

func TestKeyspaceExpireDeletes(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			// A zero, negative or past expiry deletes the key at once.
			{cmd("SET", "a", "v"), ok},
			{cmd("EXPIRE", "a", -1), 1},
			{cmd("EXISTS", "a"), 0},
			{cmd("SET", "b", "v"), ok},
			{cmd("PEXPIRE", "b", 0), 1},
			{cmd("GET", "b"), isNil},
			{cmd("SET", "c", "v"), ok},
			{cmd("EXPIREAT", "c", 1), 1},
			{cmd("TTL", "c"), -2},
			{cmd("SET", "d", "v"), ok},
			{cmd("PEXPIREAT", "d", 1000), 1},
			{cmd("EXISTS", "d"), 0},
			{cmd("HSET", "h", "f", "v", "g", "w"), 2},
			{cmd("EXPIRE", "h", 0), 1},
			{cmd("EXISTS", "h"), 0},
			{cmd("HLEN", "h"), 0},
			{cmd("HSET", "h", "x", "1"), 1},
			{cmd("HGETALL", "h"), pairs(map[string]string{"x": "1"})},
			// The conditions still apply.
			{cmd("SET", "e", "v"), ok},
			{cmd("EXPIREAT", "e", 1, "XX"), 0}, // no TTL: XX fails, the key stays
			{cmd("EXISTS", "e"), 1},
			{cmd("EXPIRE", "e", -5, "GT"), 0}, // -5 is not greater than infinity
			{cmd("EXISTS", "e"), 1},
			{cmd("EXPIREAT", "e", 1, "NX"), 1},
			{cmd("EXISTS", "e"), 0},
			{cmd("DBSIZE"), 1},
		})
	})
}

func TestKeyspaceRename(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("RENAME", "nope", "x"), errText(errNoSuchKey)},
			{cmd("RENAME", "nope", "nope"), errText(errNoSuchKey)},
			{cmd("RENAMENX", "nope", "x"), errText(errNoSuchKey)},
			{cmd("SET", "a", "1"), ok},
			{cmd("RENAME", "a", "b"), ok},
			{cmd("EXISTS", "a"), 0},
			{cmd("GET", "b"), "1"},
			{cmd("RENAME", "b", "b"), ok},
			{cmd("GET", "b"), "1"},
			{cmd("RENAMENX", "b", "b"), 0},
			{cmd("SET", "c", "2"), ok},
			{cmd("RENAMENX", "b", "c"), 0},
			{cmd("GET", "b"), "1"},
			{cmd("RENAMENX", "b", "d"), 1},
			{cmd("EXISTS", "b"), 0},
			{cmd("GET", "d"), "1"},
			{cmd("RENAME", "d", "c"), ok}, // overwrites
			{cmd("GET", "c"), "1"},
			{cmd("DBSIZE"), 1},

			// TTLs move with the key; the destination's TTL goes.
			{cmd("SET", "t", "v", "EX", 100), ok},
			{cmd("RENAME", "t", "t2"), ok},
			{cmd("TTL", "t2"), between(99, 100)},
			{cmd("SET", "t3", "v", "EX", 500), ok},
			{cmd("SET", "plain", "p"), ok},
			{cmd("RENAME", "plain", "t3"), ok},
			{cmd("TTL", "t3"), -1},
			{cmd("GET", "t3"), "p"},

			// hashes, and renames across types
			{cmd("HSET", "h", "f1", "v1", "f2", "v2"), 2},
			{cmd("RENAME", "h", "h2"), ok},
			{cmd("HGETALL", "h2"), pairs(map[string]string{"f1": "v1", "f2": "v2"})},
			{cmd("EXISTS", "h"), 0},
			{cmd("HSET", "h", "new", "x"), 1}, // a new key under the old name
			{cmd("HGETALL", "h"), pairs(map[string]string{"new": "x"})},
			{cmd("HGETALL", "h2"), pairs(map[string]string{"f1": "v1", "f2": "v2"})},
			{cmd("RENAME", "c", "h2"), ok}, // a string over a hash
			{cmd("TYPE", "h2"), "string"},
			{cmd("GET", "h2"), "1"},
			{cmd("HSET", "h3", "a", "b"), 1},
			{cmd("SET", "s", "str"), ok},
			{cmd("RENAME", "h3", "s"), ok}, // a hash over a string
			{cmd("TYPE", "s"), "hash"},
			{cmd("HGET", "s", "a"), "b"},
			{cmd("RENAME", "s", "h"), ok}, // a hash over a hash: no merge
			{cmd("HGETALL", "h"), pairs(map[string]string{"a": "b"})},
			{cmd("RENAME", "h"), errText("ERR wrong number of arguments for 'rename' command")},
			{cmd("KEYS", "*"), unordered([]any{"t2", "t3", "h", "h2"})},
		})
	})
}

func TestKeyspaceMoveCopy(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		conn := newConn(t, b.Addr) // SELECT is per connection
		run(t, conn, []step{
			{cmd("SET", "k", "v", "EX", 100), ok},
			{cmd("MOVE", "k", 0), errText(errSameObj)},
			{cmd("MOVE", "k", 16), errText(errDBRange)},
			{cmd("MOVE", "k", -1), errText(errDBRange)},
			{cmd("MOVE", "k", "abc"), errText(errNotInt)},
			{cmd("MOVE", "nope", 1), 0},
			{cmd("MOVE", "k", 1), 1},
			{cmd("EXISTS", "k"), 0},
			{cmd("SELECT", 1), ok},
			{cmd("GET", "k"), "v"},
			{cmd("TTL", "k"), between(98, 100)},
			{cmd("SET", "k2", "db1"), ok},
			{cmd("SELECT", 0), ok},
			{cmd("SET", "k2", "db0"), ok},
			{cmd("MOVE", "k2", 1), 0}, // exists there: nothing moves
			{cmd("GET", "k2"), "db0"},
			{cmd("HSET", "h", "f", "v"), 1},
			{cmd("MOVE", "h", 15), 1},
			{cmd("SELECT", 15), ok},
			{cmd("HGETALL", "h"), pairs(map[string]string{"f": "v"})},
			{cmd("DBSIZE"), 1},
			{cmd("SELECT", 0), ok},
			{cmd("DBSIZE"), 1},

			// COPY
			{cmd("SET", "src", "v", "EX", 100), ok},
			{cmd("COPY", "src", "dst"), 1},
			{cmd("GET", "dst"), "v"},
			{cmd("TTL", "dst"), between(99, 100)}, // the TTL is copied
			{cmd("COPY", "src", "dst"), 0},
			{cmd("SET", "dst", "other"), ok},
			{cmd("COPY", "src", "dst"), 0},
			{cmd("GET", "dst"), "other"},
			{cmd("COPY", "src", "dst", "REPLACE"), 1},
			{cmd("GET", "dst"), "v"},
			{cmd("COPY", "nope", "x"), 0},
			{cmd("EXISTS", "x"), 0},
			{cmd("COPY", "src", "src"), errText(errSameObj)},
			{cmd("COPY", "src", "src", "DB", 1), 1},
			{cmd("COPY", "src", "x", "DB", 16), errText(errDBRange)},
			{cmd("COPY", "src", "x", "DB", "abc"), errText(errNotInt)},
			{cmd("COPY", "src", "x", "FOO"), errText(errSyntax)},
			{cmd("COPY", "src", "x", "DB"), errText(errSyntax)},
			{cmd("SELECT", 1), ok},
			{cmd("GET", "src"), "v"},
			{cmd("SELECT", 0), ok},

			// a hash copy is deep
			{cmd("HSET", "hs", "f1", "v1", "f2", "v2"), 2},
			{cmd("COPY", "hs", "hc"), 1},
			{cmd("HSET", "hc", "f1", "changed", "f3", "v3"), 1},
			{cmd("HDEL", "hc", "f2"), 1},
			{cmd("HGETALL", "hs"), pairs(map[string]string{"f1": "v1", "f2": "v2"})},
			{cmd("HGETALL", "hc"), pairs(map[string]string{"f1": "changed", "f3": "v3"})},
			{cmd("DEL", "hs"), 1},
			{cmd("HGETALL", "hc"), pairs(map[string]string{"f1": "changed", "f3": "v3"})},
			{cmd("COPY", "hc", "dst", "REPLACE"), 1}, // a hash over a string
			{cmd("TYPE", "dst"), "hash"},
			{cmd("COPY", "hc", "hc1", "DB", 1), 1},
			{cmd("DEL", "hc"), 1},
			{cmd("SELECT", 1), ok},
			{cmd("HGETALL", "hc1"), pairs(map[string]string{"f1": "changed", "f3": "v3"})},
			{cmd("SELECT", 0), ok},
		})
	})
}

func TestKeyspaceKeysPatterns(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("KEYS", "*"), emptyArr},
			{cmd("MSET", "hello", "1", "hallo", "1", "hxllo", "1", "hllo", "1", "heeeello", "1", "h*llo", "1", "h?llo", "1", "other", "1"), ok},
			{cmd("HSET", "hash", "f", "v"), 1},
			{cmd("KEYS", "*"), unordered([]any{"hello", "hallo", "hxllo", "hllo", "heeeello", "h*llo", "h?llo", "other", "hash"})},
			{cmd("KEYS", "h?llo"), unordered([]any{"hello", "hallo", "hxllo", "h*llo", "h?llo"})},
			{cmd("KEYS", "h*llo"), unordered([]any{"hello", "hallo", "hxllo", "hllo", "heeeello", "h*llo", "h?llo"})},
			{cmd("KEYS", "h[ae]llo"), unordered([]any{"hello", "hallo"})},
			{cmd("KEYS", "h[^e]llo"), unordered([]any{"hallo", "hxllo", "h*llo", "h?llo"})},
			{cmd("KEYS", "h[a-b]llo"), []any{"hallo"}},
			{cmd("KEYS", `h\*llo`), []any{"h*llo"}},
			{cmd("KEYS", `h\?llo`), []any{"h?llo"}},
			{cmd("KEYS", "hello"), []any{"hello"}},
			{cmd("KEYS", "nomatch*"), emptyArr},
			{cmd("KEYS", "?????"), unordered([]any{"hello", "hallo", "hxllo", "h*llo", "h?llo", "other"})},
			{cmd("KEYS", "*a*"), unordered([]any{"hallo", "hash"})},
			{cmd("KEYS"), errText("ERR wrong number of arguments for 'keys' command")},
			{cmd("FLUSHDB"), ok},
			// Plain backtracking takes hours over this pattern; Redis answers
			// at once.
			{cmd("SET", strings.Repeat("a", 40), "1"), ok},
			{cmd("KEYS", strings.Repeat("a*", 20)+"b"), emptyArr},
			{cmd("KEYS", strings.Repeat("a*", 20)), []any{strings.Repeat("a", 40)}},
			// Only the pattern "*" itself matches the empty key.
			{cmd("FLUSHDB"), ok},
			{cmd("SET", "", "1"), ok},
			{cmd("KEYS", "**"), emptyArr},
			{cmd("KEYS", "*"), []any{""}},
			// Range ends compare as C's signed chars: 0xff sorts below 'a'.
			{cmd("SET", "b", "1"), ok},
			{cmd("KEYS", "[a-\xff]"), emptyArr},
		})
	})
}

// scanAll iterates SCAN until the cursor returns to "0" and returns the set
// of keys seen, failing on a cursor that is not a numeric string.
func scanAll(t *testing.T, c doer, extra ...any) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	cursor := "0"
	for calls := 0; ; calls++ {
		if calls > 100000 {
			t.Fatalf("SCAN did not finish after %d calls", calls)
		}
		reply := do(t, c, append([]any{"SCAN", cursor}, extra...)...)
		arr, isArr := reply.([]any)
		if !isArr || len(arr) != 2 {
			t.Fatalf("SCAN reply %s, want [cursor, [...]]", fmtVal(reply))
		}
		cursor, _ = arr[0].(string)
		if _, err := strconv.ParseUint(cursor, 10, 64); err != nil {
			t.Fatalf("SCAN cursor %s is not a numeric string", fmtVal(arr[0]))
		}
		keys, isArr := arr[1].([]any)
		if !isArr {
			t.Fatalf("SCAN keys %s is not an array", fmtVal(arr[1]))
		}
		for _, k := range keys {
			s, isStr := k.(string)
			if !isStr {
				t.Fatalf("SCAN key %s is not a string", fmtVal(k))
			}
			out[s] = true
		}
		if cursor == "0" {
			return out
		}
	}
}

func TestKeyspaceScan(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("SCAN", 0), []any{"0", emptyArr}},
			{cmd("SCAN", "abc"), errText("ERR invalid cursor")},
			{cmd("SCAN", 0, "COUNT", 0), errText(errSyntax)},
			{cmd("SCAN", 0, "COUNT", "x"), errText(errNotInt)},
			{cmd("SCAN", 0, "MATCH"), errText(errSyntax)},
			{cmd("SCAN", 0, "FOO", "x"), errText(errSyntax)},
			{cmd("SCAN"), errText("ERR wrong number of arguments for 'scan' command")},
		})
		ctx := ctxT(t)
		strs, hashes := map[string]bool{}, map[string]bool{}
		pipe := c.Pipeline()
		for i := range 400 {
			k := fmt.Sprintf("s:%d", i)
			strs[k] = true
			pipe.Do(ctx, "SET", k, i)
		}
		for i := range 150 {
			k := fmt.Sprintf("h:%d", i)
			hashes[k] = true
			pipe.Do(ctx, "HSET", k, "f", i)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			t.Fatal(err)
		}
		all := map[string]bool{}
		for k := range strs {
			all[k] = true
		}
		for k := range hashes {
			all[k] = true
		}
		filter := func(m map[string]bool, prefix string) map[string]bool {
			out := map[string]bool{}
			for k := range m {
				if strings.HasPrefix(k, prefix) {
					out[k] = true
				}
			}
			return out
		}
		for _, tc := range []struct {
			name  string
			extra []any
			want  map[string]bool
		}{
			{"plain", nil, all},
			{"COUNT 7", cmd("COUNT", 7), all},
			{"COUNT 1000", cmd("COUNT", 1000), all},
			{"MATCH s:1*", cmd("MATCH", "s:1*"), filter(strs, "s:1")},
			{"MATCH h:* COUNT 3", cmd("MATCH", "h:*", "COUNT", 3), hashes},
			{"TYPE hash", cmd("TYPE", "hash"), hashes},
			{"TYPE string COUNT 50", cmd("TYPE", "string", "COUNT", 50), strs},
			{"TYPE HASH MATCH h:1*", cmd("TYPE", "HASH", "MATCH", "h:1*"), filter(hashes, "h:1")},
			{"TYPE string MATCH h:*", cmd("TYPE", "string", "MATCH", "h:*"), map[string]bool{}},
			{"MATCH nomatch", cmd("MATCH", "nomatch"), map[string]bool{}},
		} {
			got := scanAll(t, c, tc.extra...)
			if len(got) != len(tc.want) {
				t.Errorf("SCAN %s: %d keys, want %d", tc.name, len(got), len(tc.want))
				continue
			}
			for k := range tc.want {
				if !got[k] {
					t.Errorf("SCAN %s: missing %q", tc.name, k)
					break
				}
			}
		}
	})
}

func TestKeyspaceRandomKey(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		steps := []step{
			{cmd("RANDOMKEY"), isNil},
			{cmd("MSET", "a", "1", "b", "2"), ok},
			{cmd("HSET", "h", "f", "v"), 1},
		}
		for range 20 {
			steps = append(steps, step{cmd("RANDOMKEY"), oneOf("a", "b", "h")})
		}
		steps = append(steps,
			step{cmd("FLUSHDB"), ok},
			step{cmd("RANDOMKEY"), isNil},
			step{cmd("RANDOMKEY", "x"), errText("ERR wrong number of arguments for 'randomkey' command")},
		)
		run(t, c, steps)
	})
}

// TestKeyspaceObjectEncoding pins the encoding names Redis reports for small
// values. If Shale settles on other names, mark this test with redisOnly.
func TestKeyspaceObjectEncoding(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("SET", "s", "abc"), ok},
			{cmd("OBJECT", "ENCODING", "s"), "embstr"},
			{cmd("SET", "n", "123"), ok},
			{cmd("OBJECT", "ENCODING", "n"), "int"},
			{cmd("SET", "m", strings.Repeat("x", 44)), ok},
			{cmd("OBJECT", "ENCODING", "m"), "embstr"},
			{cmd("SET", "l", strings.Repeat("x", 45)), ok},
			{cmd("OBJECT", "ENCODING", "l"), "raw"},
			{cmd("HSET", "h", "a", "1"), 1},
			{cmd("OBJECT", "ENCODING", "h"), "listpack"},
			{cmd("OBJECT", "ENCODING", "nope"), isNil},
			{cmd("OBJECT", "FOO", "s"), errText("ERR unknown subcommand 'FOO'. Try OBJECT HELP.")},
			{cmd("OBJECT", "ENCODING"), errText("ERR wrong number of arguments for 'object|encoding' command")},
		})
	})
}

func TestKeyspaceSelectFlush(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		conn := newConn(t, b.Addr)
		run(t, conn, []step{
			{cmd("SELECT", 16), errText(errDBRange)},
			{cmd("SELECT", -1), errText(errDBRange)},
			{cmd("SELECT", "abc"), errText(errNotInt)},
			{cmd("SELECT", "1.5"), errText(errNotInt)},
			{cmd("SELECT"), errText("ERR wrong number of arguments for 'select' command")},
			{cmd("DBSIZE"), 0},
			{cmd("MSET", "a", "1", "b", "2"), ok},
			{cmd("HSET", "h", "f", "v"), 1},
			{cmd("SET", "e", "v", "EX", 100), ok},
			{cmd("DBSIZE"), 4},
			{cmd("DBSIZE", "x"), errText("ERR wrong number of arguments for 'dbsize' command")},
			{cmd("SELECT", 15), ok},
			{cmd("DBSIZE"), 0},
			{cmd("SET", "a", "db15"), ok},
			{cmd("DBSIZE"), 1},
			{cmd("SELECT", 0), ok},
			{cmd("GET", "a"), "1"},
			{cmd("DEL", "b"), 1},
			{cmd("DBSIZE"), 3},

			{cmd("FLUSHDB"), ok},
			{cmd("DBSIZE"), 0},
			{cmd("KEYS", "*"), emptyArr},
			{cmd("GET", "a"), isNil},
			{cmd("HGETALL", "h"), emptyArr},
			{cmd("HSET", "h", "g", "w"), 1}, // re-created after a flush: none of the old fields
			{cmd("HGETALL", "h"), pairs(map[string]string{"g": "w"})},
			{cmd("SELECT", 15), ok},
			{cmd("GET", "a"), "db15"}, // FLUSHDB is per db
			{cmd("SELECT", 0), ok},
			{cmd("FLUSHDB", "ASYNC"), ok},
			{cmd("DBSIZE"), 0},
			{cmd("SET", "x", "1"), ok},
			{cmd("FLUSHDB", "SYNC"), ok},
			{cmd("DBSIZE"), 0},
			{cmd("FLUSHDB", "FOO"), errText(errSyntax)},
			{cmd("FLUSHDB", "SYNC", "ASYNC"), errText(errSyntax)},

			{cmd("SET", "x", "1"), ok},
			{cmd("FLUSHALL"), ok},
			{cmd("DBSIZE"), 0},
			{cmd("SELECT", 15), ok},
			{cmd("DBSIZE"), 0},
			{cmd("SET", "y", "1"), ok},
			{cmd("SELECT", 0), ok},
			{cmd("SET", "x", "1"), ok},
			{cmd("FLUSHALL", "ASYNC"), ok},
			{cmd("DBSIZE"), 0},
			{cmd("SELECT", 15), ok},
			{cmd("DBSIZE"), 0},
			{cmd("SET", "y", "1"), ok},
			{cmd("FLUSHALL", "SYNC"), ok},
			{cmd("DBSIZE"), 0},
			{cmd("FLUSHALL", "FOO"), errText(errSyntax)},
		})
	})
}

// TestKeyspaceDBIndexRange: Redis reads MOVE's and COPY's database index as
// a C int, so an index beyond 32 bits has its own error, before the range
// of databases is checked.
func TestKeyspaceDBIndexRange(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		const intRange = "ERR value is out of range, value must between -2147483648 and 2147483647"
		run(t, c, []step{
			{cmd("SET", "k", "v"), ok},
			{cmd("MOVE", "k", "2147483647"), errText(errDBRange)},
			{cmd("MOVE", "k", "-2147483648"), errText(errDBRange)},
			{cmd("MOVE", "k", "2147483648"), errText(intRange)},
			{cmd("MOVE", "k", "4294967296"), errText(intRange)},
			{cmd("MOVE", "k", "-9223372036854775808"), errText(intRange)},
			{cmd("MOVE", "k", "9223372036854775808"), errText(errNotInt)},
			{cmd("MOVE", "nope", "4294967296"), errText(intRange)}, // before the key is read
			{cmd("COPY", "k", "d", "DB", "4294967296"), errText(intRange)},
			{cmd("COPY", "k", "d", "DB", "-2147483649"), errText(intRange)},
			{cmd("COPY", "k", "d", "DB", "2147483647"), errText(errDBRange)},
			{cmd("COPY", "k", "k", "DB", "4294967296"), errText(intRange)}, // before "same object"
			{cmd("EXISTS", "d"), 0},
		})
	})
}

// TestKeyspaceScanTypeFilter: SCAN's TYPE filters by name whatever it is;
// an empty or unknown name matches no key (it used to match every key).
func TestKeyspaceScanTypeFilter(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("SET", "s", "v"), ok},
			{cmd("HSET", "h", "f", "v"), 1},
			{cmd("SCAN", 0, "TYPE", "", "COUNT", 100), []any{"0", emptyArr}},
			{cmd("SCAN", 0, "TYPE", "nosuchtype", "COUNT", 100), []any{"0", emptyArr}},
			{cmd("SCAN", 0, "TYPE", "Hash", "COUNT", 100), []any{"0", []any{"h"}}},
			{cmd("SCAN", 0, "COUNT", "9223372036854775807"), []any{"0", unordered([]any{"s", "h"})}},
			{cmd("SCAN", 0, "COUNT", "-9223372036854775808"), errText(errSyntax)},
			{cmd("SCAN", 0, "COUNT", "9223372036854775808"), errText(errNotInt)},
			{cmd("SCAN", "18446744073709551616"), errText("ERR invalid cursor")},
			{cmd("SCAN", " 0"), errText("ERR invalid cursor")},
		})
	})
}

// TestKeyspaceObjectSubcommands: OBJECT is a container, so each subcommand
// has its own arity error; FREQ and REFCOUNT answer as Redis does without
// an LFU policy or maxmemory.
func TestKeyspaceObjectSubcommands(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		const noLFU = "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust."
		run(t, c, []step{
			{cmd("SET", "n", "123"), ok},
			{cmd("SET", "big", "12345"), ok},
			{cmd("HSET", "h", "f", "v"), 1},
			{cmd("OBJECT", "HELP", "x"), errText("ERR wrong number of arguments for 'object|help' command")},
			{cmd("OBJECT", "ENCODING", "n", "x"), errText("ERR wrong number of arguments for 'object|encoding' command")},
			{cmd("OBJECT", "FREQ"), errText("ERR wrong number of arguments for 'object|freq' command")},
			{cmd("OBJECT", "refcount", "n", "x"), errText("ERR wrong number of arguments for 'object|refcount' command")},
			{cmd("OBJECT"), errText("ERR wrong number of arguments for 'object' command")},
			{cmd("OBJECT", "FREQ", "nope"), isNil},
			{cmd("OBJECT", "FREQ", "n"), errText(noLFU)},
			{cmd("OBJECT", "REFCOUNT", "nope"), isNil},
			{cmd("OBJECT", "REFCOUNT", "n"), 2147483647}, // a shared integer
			{cmd("OBJECT", "REFCOUNT", "big"), 1},
			{cmd("OBJECT", "REFCOUNT", "h"), 1},
			{cmd("OBJECT", "ENCODING", "n"), "int"},
		})
	})
}

// TestKeyspaceGetKeysNumKeys: COMMAND GETKEYS reads numkeys as Redis does:
// strictly, truncated to a C int, through the key specs (destination
// first); when they fail, with atoi (destination last).
func TestKeyspaceGetKeysNumKeys(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		const invalid = "ERR Invalid arguments specified for command"
		run(t, c, []step{
			{cmd("COMMAND", "GETKEYS", "zunionstore", "d", "2", "a", "b"), []any{"d", "a", "b"}},
			{cmd("COMMAND", "GETKEYS", "zunionstore", "d", "4294967298", "a", "b"), []any{"d", "a", "b"}},
			{cmd("COMMAND", "GETKEYS", "zunionstore", "d", "2x", "a", "b"), []any{"a", "b", "d"}},
			{cmd("COMMAND", "GETKEYS", "zunionstore", "d", " 2", "a", "b"), []any{"a", "b", "d"}},
			{cmd("COMMAND", "GETKEYS", "zunionstore", "d", "9223372036854775807", "a", "b"), errText(invalid)},
			{cmd("COMMAND", "GETKEYS", "zunion", "4294967297", "a"), []any{"a"}},
			{cmd("COMMAND", "GETKEYS", "zunion", "+4294967297", "a", "b"), []any{"a"}},
			{cmd("COMMAND", "GETKEYS", "zunion", "18446744073709551617", "a"), errText(invalid)},
			{cmd("COMMAND", "GETKEYS", "blmpop", "0", "4294967297", "a", "LEFT"), []any{"a"}},
			{cmd("COMMAND", "GETKEYS", "sintercard", "-4294967294", "a", "b"), []any{"a", "b"}}, // atoi: 2
			{cmd("COMMAND", "GETKEYS", "sintercard", "-1", "a", "b"), errText(invalid)},
		})
	})
}
