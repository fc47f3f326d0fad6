package tests

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestMemoryUsage covers MEMORY USAGE's replies and errors. The figures
// are estimates of different things (Redis's allocations, Shale's RocksDB
// records), so rows pin their order of magnitude only.
func TestMemoryUsage(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, _ backend) {
		steps := []step{
			{cmd("MEMORY", "USAGE", "nokey"), nil},
			{cmd("SET", "k", "v"), ok},
			{cmd("MEMORY", "USAGE", "k"), between(10, 200)},
			{cmd("MEMORY", "USAGE", "k", "SAMPLES", "0", "samples", "3"), between(10, 200)},
			{cmd("MEMORY", "USAGE", "k", "SAMPLES"), errText("ERR syntax error")},
			{cmd("MEMORY", "USAGE", "k", "SAMPLES", "-1"), errText("ERR syntax error")},
			{cmd("MEMORY", "USAGE", "k", "SAMPLES", "x"), errText("ERR value is not an integer or out of range")},
			// The options are read before the key is looked up.
			{cmd("MEMORY", "USAGE", "nokey", "SAMPLES", "x"), errText("ERR value is not an integer or out of range")},
			{cmd("MEMORY", "USAGE", "nokey", "foo"), errText("ERR syntax error")},
			{cmd("MEMORY", "USAGE"), errText("ERR wrong number of arguments for 'memory|usage' command")},
			{cmd("MEMORY"), errText("ERR wrong number of arguments for 'memory' command")},
			{cmd("MEMORY", "FOO"), errText("ERR unknown subcommand 'FOO'. Try MEMORY HELP.")},
			{cmd("MEMORY", "PURGE"), ok},
			{cmd("MEMORY", "PURGE", "x"), errText("ERR wrong number of arguments for 'memory|purge' command")},
			{cmd("MEMORY", "MALLOC-STATS"), anyString},
			{cmd("SET", "big", strings.Repeat("x", 10_000)), ok},
			{cmd("MEMORY", "USAGE", "big"), between(10_000, 11_000)},
			{cmd("EXPIRE", "big", "100"), 1},
			{cmd("MEMORY", "USAGE", "big"), between(10_000, 11_000)},
		}
		// A hash of 1000 fields of 100 bytes: sampled (5 fields, the
		// default) or read whole, about 100 kB.
		args := []any{"HSET", "h"}
		for i := range 1000 {
			args = append(args, fmt.Sprintf("f%03d", i), strings.Repeat("v", 100))
		}
		steps = append(steps,
			step{args, 1000},
			step{cmd("MEMORY", "USAGE", "h"), between(100_000, 400_000)},
			step{cmd("MEMORY", "USAGE", "h", "SAMPLES", "0"), between(100_000, 400_000)},
			step{cmd("RPUSH", "l", strings.Repeat("a", 1000), strings.Repeat("b", 1000)), 2},
			step{cmd("MEMORY", "USAGE", "l"), between(2000, 3000)},
			step{cmd("ZADD", "z", "1", strings.Repeat("m", 1000)), 1},
			step{cmd("MEMORY", "USAGE", "z"), between(1000, 3000)},
			step{cmd("SADD", "s", strings.Repeat("m", 1000)), 1},
			step{cmd("MEMORY", "USAGE", "s"), between(1000, 2000)},
		)
		run(t, c, steps)
	})
}

// TestMemoryHelp pins MEMORY HELP: Redis's lines but those of STATS and
// DOCTOR, which Shale leaves out.
func TestMemoryHelp(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		got, err := c.Do(ctxT(t), "MEMORY", "HELP").StringSlice()
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"}
		if !b.isShale() {
			want = append(want, "DOCTOR", "    Return memory problems reports.")
		}
		want = append(want, "MALLOC-STATS", "    Return internal statistics report from the memory allocator.",
			"PURGE", "    Attempt to purge dirty pages for reclamation by the allocator.")
		if !b.isShale() {
			want = append(want, "STATS", "    Return information about the memory usage of the server.")
		}
		want = append(want, "USAGE <key> [SAMPLES <count>]",
			"    Return memory in bytes used by <key> and its value. Nested values are",
			"    sampled up to <count> times (default: 5, 0 means sample all).",
			"HELP", "    Prints this help.")
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("MEMORY HELP:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
}

// TestObjectIdleTime checks which commands reset a key's idle time, as
// Redis 7.0: reads and writes do, in MULTI and scripts too; EXISTS, TYPE,
// TTL, OBJECT and MEMORY USAGE do not; MOVE and COPY ... DB count as an
// access in the destination database; SWAPDB swaps idle times with the
// data.
func TestObjectIdleTime(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, _ backend) {
		conn := c.Conn()
		defer conn.Close()
		var sets []step
		for _, k := range []string{"k", "j", "m", "s", "x", "mv", "cp", "h"} {
			sets = append(sets, step{cmd("SET", k, "abc"), ok}) // not an integer: Redis shares those
		}
		run(t, conn, append(sets,
			step{cmd("SELECT", "3"), ok},
			step{cmd("SET", "sw", "abc"), ok},
			step{cmd("SELECT", "0"), ok},
			step{cmd("OBJECT", "IDLETIME", "k"), between(0, 1)},
			step{cmd("OBJECT", "IDLETIME", "nokey"), nil},
			step{cmd("OBJECT", "IDLETIME"), errText("ERR wrong number of arguments for 'object|idletime' command")},
			step{cmd("OBJECT", "IDLETIME", "k", "x"), errText("ERR wrong number of arguments for 'object|idletime' command")},
		))
		time.Sleep(2100 * time.Millisecond)
		idle, fresh := between(2, 3), between(0, 1)
		run(t, conn, []step{
			{cmd("OBJECT", "IDLETIME", "k"), idle},
			{cmd("EXISTS", "k"), 1},
			{cmd("TYPE", "k"), "string"},
			{cmd("TTL", "k"), -1},
			{cmd("PTTL", "k"), -1},
			{cmd("EXPIRETIME", "k"), -1},
			{cmd("OBJECT", "ENCODING", "k"), "embstr"},
			{cmd("MEMORY", "USAGE", "k"), anyInt},
			{cmd("WATCH", "k"), ok},
			{cmd("UNWATCH"), ok},
			{cmd("OBJECT", "IDLETIME", "k"), idle},
			{cmd("GET", "k"), "abc"},
			{cmd("OBJECT", "IDLETIME", "k"), fresh},
			{cmd("MULTI"), ok},
			{cmd("STRLEN", "j"), "QUEUED"},
			{cmd("EXEC"), []any{3}},
			{cmd("OBJECT", "IDLETIME", "j"), fresh},
			{cmd("EVAL", "return redis.call('GET', KEYS[1])", 1, "m"), "abc"},
			{cmd("OBJECT", "IDLETIME", "m"), fresh},
			{cmd("TOUCH", "s", "nokey"), 1},
			{cmd("OBJECT", "IDLETIME", "s"), fresh},
			{cmd("APPEND", "h", "d"), 4},
			{cmd("OBJECT", "IDLETIME", "h"), fresh},
			{cmd("OBJECT", "IDLETIME", "x"), idle},
			{cmd("MOVE", "mv", "3"), 1},
			{cmd("COPY", "cp", "cp2", "DB", "3"), 1},
			{cmd("SELECT", "3"), ok},
			{cmd("OBJECT", "IDLETIME", "mv"), fresh},
			{cmd("OBJECT", "IDLETIME", "cp2"), fresh},
			{cmd("OBJECT", "IDLETIME", "x"), nil},
			// SWAPDB swaps the data, and the idle times follow it.
			{cmd("SELECT", "0"), ok},
			{cmd("SET", "sw", "abc"), ok},
			{cmd("SWAPDB", "0", "3"), ok},
			{cmd("OBJECT", "IDLETIME", "sw"), idle},
			{cmd("SELECT", "3"), ok},
			{cmd("OBJECT", "IDLETIME", "sw"), fresh},
		})
	})
}

// TestToolsRedisCliMemkeys: `redis-cli --memkeys`, which sizes every key
// with MEMORY USAGE, finds the biggest key of each type.
func TestToolsRedisCliMemkeys(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		keys := populateForTools(t, c)
		out, err := runTool(t, 30*time.Second, b.Addr, redisCliBin, "--memkeys")
		if err != nil {
			t.Fatalf("redis-cli --memkeys: %v\n%s", err, out)
		}
		if bad := toolErrors(out); len(bad) > 0 {
			t.Fatalf("redis-cli --memkeys reported errors: %q\n%s", bad, out)
		}
		for _, re := range []string{
			fmt.Sprintf(`Sampled %d keys in the keyspace!`, len(keys)),
			`Biggest string found '"str:big"' has [1-9]\d* bytes`,
			`Biggest   list found '"list:big"' has [1-9]\d* bytes`,
			`Biggest   hash found '"hash:big"' has [1-9]\d* bytes`,
			// Redis keeps set:big, 30 integers, in a small intset.
			`Biggest    set found '"set:(big|small)"' has [1-9]\d* bytes`,
			`Biggest   zset found '"zset:big"' has [1-9]\d* bytes`,
		} {
			if !regexp.MustCompile(re).MatchString(out) {
				t.Errorf("redis-cli --memkeys output lacks %q", re)
			}
		}
		if t.Failed() {
			t.Logf("redis-cli --memkeys output:\n%s", out)
		}
	})
}
