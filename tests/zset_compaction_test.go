package tests

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// fillZSet adds n members m<i> with score i to key.
func fillZSet(t *testing.T, c *redis.Client, key string, n int) {
	t.Helper()
	fill(t, c, "ZADD", key, n, func(i int) []any { return []any{i, "m" + strconv.Itoa(i)} })
}

// TestZSetCompaction: after DEL, the orphaned records of a 200,000-member
// zset (one in the subkey CF and one in the score CF per member) survive
// until COMPACT, which drops them all and keeps those of the zset re-created
// under the same name, also across a restart.
func TestZSetCompaction(t *testing.T) {
	t.Parallel()
	// The reclaimer is held off so that this test measures COMPACT alone.
	config := debugConfig + "[compaction]\nreclaim_min_elements = 1000000000\n"
	p := startShale(t, shaleOpts{Config: config})
	c := p.Client
	const n = 200000
	fillZSet(t, c, "big", n)
	final := []any{"a", "1", "b", "2", "c", "3"}
	run(t, c, []step{
		{cmd("ZCARD", "big"), n},
		{cmd("ZSCORE", "big", "m199999"), "199999"},
		{cmd("DEBUG", "CF-RECORDS", "subkey"), n},
		{cmd("DEBUG", "CF-RECORDS", "score"), n},
		{cmd("DEL", "big"), 1},
		{cmd("ZCARD", "big"), 0},
		{cmd("ZADD", "big", 1, "a", 2, "b", 3, "c"), 3},
		{cmd("ZSCORE", "big", "m0"), isNil},
		{cmd("ZRANGEBYSCORE", "big", "-inf", "+inf", "WITHSCORES"), final},
		{cmd("COMPACT"), ok},
		{cmd("DEBUG", "CF-RECORDS", "subkey"), 3},
		{cmd("DEBUG", "CF-RECORDS", "score"), 3},
		{cmd("ZRANGE", "big", 0, -1, "WITHSCORES"), final},
		{cmd("ZCARD", "big"), 3},
	})
	p.Stop()

	p2 := startShale(t, shaleOpts{Config: config, Dir: p.Dir})
	run(t, p2.Client, []step{
		{cmd("DEBUG", "CF-RECORDS", "subkey"), 3},
		{cmd("DEBUG", "CF-RECORDS", "score"), 3},
		{cmd("ZRANGE", "big", 0, -1, "WITHSCORES"), final},
		{cmd("ZRANGEBYSCORE", "big", 2, "+inf"), []any{"b", "c"}},
		{cmd("DBSIZE"), 1},
		{cmd("COMPACT"), ok}, // idempotent
		{cmd("DEBUG", "CF-RECORDS", "subkey"), 3},
		{cmd("DEBUG", "CF-RECORDS", "score"), 3},
	})
}

// TestZSetCompactionStores: COMPACT also drops the records of zsets replaced
// by ZUNIONSTORE, ZRANGESTORE onto themselves, popped empty or overwritten
// by SET, and keeps every live one.
func TestZSetCompactionStores(t *testing.T) {
	t.Parallel()
	p := startShale(t, shaleOpts{Config: debugConfig})
	c := p.Client
	fillZSet(t, c, "self", 300)
	fillZSet(t, c, "over", 200)
	fillZSet(t, c, "live", 100)
	run(t, c, []step{
		{cmd("DEBUG", "CF-RECORDS", "score"), 600},
		{cmd("ZRANGESTORE", "self", "self", 0, 9), 10},    // 300 -> 10, new uid
		{cmd("ZUNIONSTORE", "u", 2, "live", "self"), 100}, // m0-m9 in both
		{cmd("SET", "over", "x"), ok},
		{cmd("ZPOPMIN", "live", 1000), arrayOfLen(200)},
		{cmd("ZADD", "live", 5, "again"), 1},
		{cmd("COMPACT"), ok},
		{cmd("DEBUG", "CF-RECORDS", "subkey"), 10 + 100 + 1},
		{cmd("DEBUG", "CF-RECORDS", "score"), 10 + 100 + 1},
		{cmd("ZRANGE", "u", 0, 1, "WITHSCORES"), []any{"m0", "0", "m1", "2"}},
		{cmd("ZRANGE", "live", 0, -1, "WITHSCORES"), []any{"again", "5"}},
	})
}

// TestZSetReclaimer: deleting a zset of at least reclaim_min_elements
// members queues it for the background reclaimer, which drops its records in
// both the subkey and score CFs within seconds, with no COMPACT.
func TestZSetReclaimer(t *testing.T) {
	t.Parallel()
	p := startShale(t, shaleOpts{Config: debugConfig})
	c := p.Client
	const n = 20000
	fillZSet(t, c, "big", n)
	fillZSet(t, c, "small", 5)
	run(t, c, []step{
		{cmd("DEBUG", "CF-RECORDS", "score"), n + 5},
		{cmd("DEL", "big"), 1},
	})
	pollUntil(t, 30*time.Second, func() (bool, string) {
		sub, score := cfRecords(t, c, "subkey"), cfRecords(t, c, "score")
		return sub == 5 && score == 5, fmt.Sprintf("CF-RECORDS subkey = %d, score = %d, want 5 and 5", sub, score)
	})
	run(t, c, []step{{cmd("ZCARD", "small"), 5}})
}
