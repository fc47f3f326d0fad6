package tests

import (
	"strconv"
	"testing"

	"github.com/redis/go-redis/v9"
)

// fillList appends n elements e<i> to key.
func fillList(t *testing.T, c *redis.Client, key string, n int) {
	t.Helper()
	fill(t, c, "RPUSH", key, n, func(i int) []any { return []any{"e" + strconv.Itoa(i)} })
}

// TestCompactionList: the elements of a 200,000-element list survive its
// DEL until COMPACT, which drops them all and keeps the list re-created
// under the same name, also across a restart. LTRIM and pops delete their
// records at once, so they leave nothing for COMPACT.
func TestCompactionList(t *testing.T) {
	t.Parallel()
	config := debugConfig + "[compaction]\nreclaim_min_elements = 1000000000\n"
	p := startShale(t, shaleOpts{Config: config})
	c := p.Client
	const n = 200000
	fillList(t, c, "big", n)
	run(t, c, []step{
		{cmd("LLEN", "big"), n},
		{cmd("LINDEX", "big", -1), "e199999"},
		{cmd("DEBUG", "CF-RECORDS", "subkey"), n},
		{cmd("DEL", "big"), 1},
		{cmd("LLEN", "big"), 0},
		{cmd("RPUSH", "big", "a", "b", "c"), 3},
		{cmd("LINDEX", "big", 3), isNil},
		{cmd("DEBUG", "CF-RECORDS", "subkey"), n + 3},
		{cmd("COMPACT"), ok},
		{cmd("DEBUG", "CF-RECORDS", "subkey"), 3},
		{cmd("LRANGE", "big", 0, -1), []any{"a", "b", "c"}},

		// LTRIM, LPOP and LREM delete what they remove.
		{cmd("RPUSH", "t", "1", "2", "3", "4", "5", "6", "7", "8"), 8},
		{cmd("LTRIM", "t", 2, -3), ok},
		{cmd("LPOP", "t"), "3"},
		{cmd("LREM", "t", 0, "5"), 1},
		{cmd("DEBUG", "CF-RECORDS", "subkey"), 3 + 2},
		{cmd("LRANGE", "t", 0, -1), []any{"4", "6"}},
	})
	p.Stop()

	p2 := startShale(t, shaleOpts{Config: config, Dir: p.Dir})
	run(t, p2.Client, []step{
		{cmd("DEBUG", "CF-RECORDS", "subkey"), 5},
		{cmd("LRANGE", "big", 0, -1), []any{"a", "b", "c"}},
		{cmd("LRANGE", "t", 0, -1), []any{"4", "6"}},
		{cmd("DBSIZE"), 2},
		{cmd("COMPACT"), ok},
		{cmd("DEBUG", "CF-RECORDS", "subkey"), 5},
		{cmd("LPUSH", "big", "z"), 4},
		{cmd("LRANGE", "big", 0, -1), []any{"z", "a", "b", "c"}},
	})
}
