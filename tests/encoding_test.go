package tests

import (
	"fmt"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// OBJECT ENCODING of hashes, sets and sorted sets, from Redis 7.0's limits
// (hash-max-listpack-*, set-max-intset-entries, zset-max-listpack-*) and
// its rules: convert on the write that outgrows a limit, never back.

func encodingLimits(hashEntries, hashValue, intset, zsetEntries, zsetValue int) step {
	return step{cmd("CONFIG", "SET",
		"hash-max-listpack-entries", hashEntries, "hash-max-listpack-value", hashValue,
		"set-max-intset-entries", intset,
		"zset-max-listpack-entries", zsetEntries, "zset-max-listpack-value", zsetValue), ok}
}

func enc(key, want string) step { return step{cmd("OBJECT", "ENCODING", key), want} }

// fieldsArgs is HSET key f0 v0 ... for n fields.
func fieldsArgs(name, key string, n int) []any {
	args := []any{name, key}
	for i := range n {
		args = append(args, fmt.Sprint("f", i), i)
	}
	return args
}

func TestEncodingDefaults(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		zadd := []any{"ZADD", "z"}
		sadd := []any{"SADD", "s"}
		for i := range 129 {
			zadd = append(zadd, i, fmt.Sprint("m", i))
			sadd = append(sadd, i)
		}
		run(t, c, []step{
			// Redis 7.0's built-in default is 512 fields, not redis.conf's 128.
			{fieldsArgs("HSET", "h", 200), 200},
			enc("h", "listpack"),
			{cmd("HSET", "h2", "f", strings.Repeat("v", 64)), 1},
			enc("h2", "listpack"),
			{cmd("HSET", "h2", "f", strings.Repeat("v", 65)), 0},
			enc("h2", "hashtable"),
			{zadd[:len(zadd)-2], 128},
			enc("z", "listpack"),
			{zadd, 1},
			enc("z", "skiplist"),
			{sadd, 129},
			enc("s", "intset"),
			{cmd("RPUSH", "l", "a"), 1},
			enc("l", "quicklist"),
			{cmd("CONFIG", "GET", "hash-max-listpack-entries"), []any{"hash-max-listpack-entries", "512"}},
			{cmd("CONFIG", "GET", "hash-max-ziplist-value"), []any{"hash-max-ziplist-value", "64"}},
			{cmd("CONFIG", "GET", "set-max-intset-entries"), []any{"set-max-intset-entries", "512"}},
			{cmd("CONFIG", "GET", "zset-max-listpack-entries"), []any{"zset-max-listpack-entries", "128"}},
			{cmd("CONFIG", "GET", "zset-max-ziplist-value"), []any{"zset-max-ziplist-value", "64"}},
			{cmd("CONFIG", "GET", "list-max-listpack-size"), []any{"list-max-listpack-size", "-2"}},
			{cmd("CONFIG", "GET", "list-compress-depth"), []any{"list-compress-depth", "0"}},
		})
	})
}

func TestEncodingHash(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			encodingLimits(3, 4, 512, 128, 64),
			{cmd("HSET", "h", "a", 1, "b", 2, "c", 3), 3},
			enc("h", "listpack"),
			{cmd("HSET", "h", "d", 4), 1},
			enc("h", "hashtable"),
			{cmd("HDEL", "h", "a", "b", "c"), 3},
			enc("h", "hashtable"), // never back
			{cmd("HINCRBY", "h1", "longfield", 1), 1},
			enc("h1", "hashtable"), // the field is longer than 4
			{cmd("HSET", "h2", "a", 1), 1},
			{cmd("HSETNX", "h2", "a", "longvalue"), 0},
			enc("h2", "listpack"), // an HSETNX that sets nothing converts nothing
			{cmd("HINCRBYFLOAT", "h2", "a", "1.1234"), "2.1234"},
			enc("h2", "hashtable"), // the new value is longer than 4
			{cmd("HSETNX", "h3", "abcdef", 1), 1},
			enc("h3", "hashtable"),
			// A lower limit converts on the next write only, an update too.
			{cmd("HSET", "h4", "a", 1, "b", 2, "c", 3), 3},
			{cmd("CONFIG", "SET", "hash-max-ziplist-entries", 2), ok},
			enc("h4", "listpack"),
			{cmd("HSET", "h4", "a", 5), 0},
			enc("h4", "hashtable"),
			{cmd("CONFIG", "SET", "hash-max-listpack-entries", 0), ok},
			{cmd("HSET", "h5", "a", 1), 1},
			enc("h5", "hashtable"),
			{cmd("CONFIG", "SET", "hash-max-listpack-entries", 3, "hash-max-listpack-value", 0), ok},
			{cmd("HSET", "h6", "", ""), 1},
			enc("h6", "listpack"),
			// COPY and RENAME keep the encoding, whatever the limits say now.
			{cmd("CONFIG", "SET", "hash-max-listpack-value", 64), ok},
			{cmd("HSET", "h7", "a", 1), 1},
			{cmd("CONFIG", "SET", "hash-max-listpack-entries", 0), ok},
			{cmd("COPY", "h7", "h8"), 1},
			enc("h8", "listpack"),
			{cmd("COPY", "h", "h9"), 1},
			enc("h9", "hashtable"),
			{cmd("RENAME", "h7", "h10"), ok},
			enc("h10", "listpack"),
		})
	})
}

func TestEncodingSet(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			encodingLimits(512, 64, 3, 128, 64),
			{cmd("SADD", "s", 1, 2, 3), 3},
			enc("s", "intset"),
			{cmd("SADD", "s", 3), 0},
			enc("s", "intset"),
			{cmd("SADD", "s", 4), 1},
			enc("s", "hashtable"),
			{cmd("SREM", "s", 4), 1},
			enc("s", "hashtable"), // never back
			{cmd("SADD", "s2", "a"), 1},
			enc("s2", "hashtable"),
			{cmd("SADD", "s3", 1, 2, "a"), 3},
			{cmd("SREM", "s3", "a"), 1},
			enc("s3", "hashtable"),
			{cmd("SADD", "s4", "01"), 1},
			enc("s4", "hashtable"),
			{cmd("SADD", "s5", "-0"), 1},
			enc("s5", "hashtable"),
			// SMOVE to a new set, and the *STORE results, are judged on
			// what they hold.
			{cmd("SADD", "m1", "a", 1), 2},
			{cmd("SMOVE", "m1", "m2", 1), 1},
			enc("m2", "intset"),
			{cmd("SADD", "x", 1, 2, 3, "a"), 4},
			{cmd("SADD", "y", 1, 2, 3, "b"), 4},
			{cmd("SINTERSTORE", "d1", "x", "y"), 3},
			enc("d1", "intset"),
			{cmd("SUNIONSTORE", "d2", "x", "y"), 5},
			enc("d2", "hashtable"),
			{cmd("SDIFFSTORE", "d3", "x", "y"), 1},
			enc("d3", "hashtable"),
			// SPOP keeps the encoding of what stays.
			{cmd("SADD", "p", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, "a", "b"), 12},
			{cmd("SREM", "p", "a", "b"), 2},
			{cmd("SPOP", "p", 8), anyArrayLen(8)},
			enc("p", "hashtable"),
			// A lower limit converts on the next added member only.
			{cmd("CONFIG", "SET", "set-max-intset-entries", 512), ok},
			{cmd("SADD", "ss", 1, 2), 2},
			{cmd("CONFIG", "SET", "set-max-intset-entries", 1), ok},
			{cmd("SADD", "ss", 2), 0},
			enc("ss", "intset"),
			{cmd("SADD", "ss", 3), 1},
			enc("ss", "hashtable"),
			{cmd("CONFIG", "SET", "set-max-intset-entries", 0), ok},
			{cmd("SADD", "s0", 1), 1},
			enc("s0", "hashtable"),
		})
	})
}

func TestEncodingZSet(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			encodingLimits(512, 64, 512, 3, 4),
			{cmd("ZADD", "z", 1, "a", 2, "b", 3, "c"), 3},
			enc("z", "listpack"),
			{cmd("ZADD", "z", 4, "d"), 1},
			enc("z", "skiplist"),
			{cmd("ZREM", "z", "d", "c"), 2},
			enc("z", "skiplist"), // never back
			{cmd("ZADD", "z2", 1, "longmember"), 1},
			enc("z2", "skiplist"),
			// A new score converts nothing, even past a lowered limit.
			{cmd("ZADD", "z3", 1, "a", 2, "b", 3, "c"), 3},
			{cmd("CONFIG", "SET", "zset-max-ziplist-entries", 2), ok},
			{cmd("ZADD", "z3", 5, "a"), 0},
			enc("z3", "listpack"),
			{cmd("ZINCRBY", "z3", 1, "b"), "3"},
			enc("z3", "listpack"),
			{cmd("ZADD", "z3", 9, "d"), 1},
			enc("z3", "skiplist"),
			{cmd("CONFIG", "SET", "zset-max-listpack-entries", 0), ok},
			{cmd("ZADD", "z4", 1, "a"), 1},
			enc("z4", "skiplist"),
			{cmd("ZINCRBY", "z5", 1, "a"), "1"},
			enc("z5", "skiplist"),
			// The *STORE results are judged on what they hold.
			{cmd("CONFIG", "SET", "zset-max-listpack-entries", 3), ok},
			{cmd("ZADD", "big", 1, "a", 2, "b", 3, "c", 4, "d"), 4},
			{cmd("ZUNIONSTORE", "u1", 1, "big"), 4},
			enc("u1", "skiplist"),
			{cmd("ZRANGESTORE", "r1", "big", 0, 1), 2},
			enc("r1", "listpack"),
			{cmd("ZINTERSTORE", "i1", 1, "big"), 4},
			enc("i1", "skiplist"),
			{cmd("ZDIFFSTORE", "df1", 1, "big"), 4},
			enc("df1", "skiplist"),
			{cmd("ZADD", "lm", 1, "a", 2, "longmember"), 2},
			{cmd("ZREM", "lm", "longmember"), 1},
			{cmd("ZUNIONSTORE", "u2", 1, "lm"), 1},
			enc("u2", "listpack"),
			enc("lm", "skiplist"),
			{cmd("ZADD", "z6", 1, "a"), 1},
			{cmd("ZADD", "z6", "XX", 2, "longlonglong"), 0},
			enc("z6", "listpack"),
		})
	})
}

// TestEncodingList: Redis 7.0 keeps every list in a quicklist, whatever
// list-max-listpack-size says; the parameter is still taken and kept.
func TestEncodingList(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("CONFIG", "SET", "list-max-listpack-size", 1, "list-compress-depth", 1), ok},
			{cmd("CONFIG", "GET", "list-max-ziplist-size"), []any{"list-max-ziplist-size", "1"}},
			{cmd("CONFIG", "GET", "list-compress-depth"), []any{"list-compress-depth", "1"}},
			{cmd("RPUSH", "l", "a", "b", "c"), 3},
			enc("l", "quicklist"),
			{cmd("SORT", "l", "ALPHA", "STORE", "sl"), 3},
			enc("sl", "quicklist"),
		})
	})
}

// TestEncodingSurvivesRestart: the encoding is in the metadata record, so
// "never converts back" holds across a restart.
func TestEncodingSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	p := startShale(t, shaleOpts{Dir: dir})
	run(t, p.Client, []step{
		{cmd("CONFIG", "SET", "hash-max-listpack-entries", 2), ok},
		{cmd("HSET", "h", "a", 1, "b", 2, "c", 3), 3},
		{cmd("HDEL", "h", "a", "b"), 2},
		enc("h", "hashtable"),
	})
	p.Stop()
	p = startShale(t, shaleOpts{Dir: dir})
	run(t, p.Client, []step{
		{cmd("CONFIG", "GET", "hash-max-listpack-entries"), []any{"hash-max-listpack-entries", "512"}},
		enc("h", "hashtable"),
	})
}

// anyArrayLen matches an array (or RESP3 set) of n elements.
func anyArrayLen(n int) matcher {
	return matchFunc{fmt.Sprintf("<array of %d>", n), func(got any) string {
		a, isArr := got.([]any)
		if !isArr || len(a) != n {
			return fmt.Sprintf("want an array of %d", n)
		}
		return ""
	}}
}
