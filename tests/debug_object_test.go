package tests

import (
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestDebugObject: DEBUG OBJECT's line, with the fields tools parse. The
// address and the access clock differ between servers; encoding,
// refcount and, for these small values, which Redis does not compress,
// serializedlength and a list's quicklist figures are Redis's own.
func TestDebugObject(t *testing.T) {
	t.Parallel()
	opts := backendOpts{RedisArgs: []string{"--enable-debug-command", "yes"}, Shale: shaleOpts{Config: debugConfig}}
	forEachBackendOpts(t, opts, func(t *testing.T, c *redis.Client, b backend) {
		line := func(refcount, enc, length, rest string) matcher {
			return matchesRe(`^Value at:0x[0-9a-f]+ refcount:` + refcount + ` encoding:` + enc +
				` serializedlength:` + length + ` lru:\d+ lru_seconds_idle:\d+` + rest + `$`)
		}
		run(t, c, []step{
			{cmd("SET", "str", "hello"), ok},
			{cmd("DEBUG", "OBJECT", "str"), line("1", "embstr", "6", "")},
			{cmd("SET", "int", "12345"), ok},
			{cmd("debug", "object", "int"), line("1", "int", "3", "")},
			{cmd("SET", "shared", "5"), ok},
			{cmd("DEBUG", "OBJECT", "shared"), line("2147483647", "int", "2", "")},
			{cmd("SET", "long", strings.Repeat("ab", 8)), ok}, // 16 bytes: below LZF's threshold
			{cmd("DEBUG", "OBJECT", "long"), line("1", "embstr", "17", "")},
			{cmd("RPUSH", "list", "a", "b", "c", "1", "200"), 5},
			{cmd("DEBUG", "OBJECT", "list"), line("1", "quicklist", "24",
				` ql_nodes:1 ql_avg_node:5\.00 ql_listpack_max:-2 ql_compressed:0 ql_uncompressed_size:21`)},
			{cmd("HSET", "hash", "f", "v"), 1},
			{cmd("DEBUG", "OBJECT", "hash"), line("1", "listpack", "14", "")},
			{cmd("SADD", "intset", "1", "2"), 2},
			{cmd("DEBUG", "OBJECT", "intset"), line("1", "intset", "13", "")},
			{cmd("SADD", "set", "1", "2", "a"), 3},
			{cmd("DEBUG", "OBJECT", "set"), line("1", "hashtable", "7", "")},
			{cmd("ZADD", "zset", "1", "a", "2.5", "b"), 2},
			{cmd("DEBUG", "OBJECT", "zset"), line("1", "listpack", "21", "")},
			{cmd("DEBUG", "OBJECT", "nosuch"), errText("ERR no such key")},
			{cmd("DEBUG", "object"), errText("ERR unknown subcommand or wrong number of arguments for 'object'. Try DEBUG HELP.")},
			{cmd("DEBUG", "object", "str", "x"), errText("ERR unknown subcommand or wrong number of arguments for 'object'. Try DEBUG HELP.")},
			{cmd("DEBUG", "SLEEP", "0.01"), ok},
		})
	})
}

// TestDebugObjectIdle: lru_seconds_idle is OBJECT IDLETIME's figure, and
// DEBUG OBJECT does not touch the key.
func TestDebugObjectIdle(t *testing.T) {
	t.Parallel()
	opts := backendOpts{RedisArgs: []string{"--enable-debug-command", "yes"}, Shale: shaleOpts{Config: debugConfig}}
	forEachBackendOpts(t, opts, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{{cmd("SET", "k", "v"), ok}})
		pollUntil(t, 5*time.Second, func() (bool, string) {
			idle := doInt(t, c, "OBJECT", "IDLETIME", "k")
			return idle >= 2, "waiting for the key to be idle 2s"
		})
		run(t, c, []step{
			{cmd("DEBUG", "OBJECT", "k"), matchesRe(` lru_seconds_idle:[2-9]$`)},
			{cmd("OBJECT", "IDLETIME", "k"), between(2, 9)},
		})
	})
}
