package tests

import (
	"strconv"
	"testing"

	"github.com/redis/go-redis/v9"
)

// fillSet adds n members m<i> to key.
func fillSet(t *testing.T, c *redis.Client, key string, n int) {
	t.Helper()
	fill(t, c, "SADD", key, n, func(i int) []any { return []any{"m" + strconv.Itoa(i)} })
}

// TestSetCompactionManual: after DEL, the orphaned sub-keys of a
// 200,000-member set survive until COMPACT, which drops them all and keeps
// the members of the set re-created under the same name, also across a
// restart.
func TestSetCompactionManual(t *testing.T) {
	t.Parallel()
	// The reclaimer is held off so that this test measures COMPACT alone.
	config := debugConfig + "[compaction]\nreclaim_min_elements = 1000000000\n"
	p := startShale(t, shaleOpts{Config: config})
	c := p.Client
	const n = 200000
	fillSet(t, c, "big", n)
	run(t, c, []step{
		{cmd("SCARD", "big"), n},
		{cmd("SISMEMBER", "big", "m199999"), 1},
		{cmd("DEBUG", "CF-RECORDS", "subkey"), n},
		{cmd("DEL", "big"), 1},
		{cmd("SCARD", "big"), 0},
		{cmd("SADD", "big", "a", "b", "c"), 3},
		{cmd("SISMEMBER", "big", "m0"), 0},
		{cmd("COMPACT"), ok},
		{cmd("DEBUG", "CF-RECORDS", "subkey"), 3},
		{cmd("SMEMBERS", "big"), setMembersOf("a", "b", "c")},
		{cmd("SCARD", "big"), 3},
	})
	p.Stop()

	p2 := startShale(t, shaleOpts{Config: config, Dir: p.Dir})
	run(t, p2.Client, []step{
		{cmd("DEBUG", "CF-RECORDS", "subkey"), 3},
		{cmd("SMEMBERS", "big"), setMembersOf("a", "b", "c")},
		{cmd("DBSIZE"), 1},
		{cmd("COMPACT"), ok}, // idempotent
		{cmd("DEBUG", "CF-RECORDS", "subkey"), 3},
	})
}

// TestSetCompactionRewrites: the set commands that give a key a new uid
// orphan the old one's sub-keys, and COMPACT drops them: a STORE over an
// existing set, an SPOP that pops most of a set (the rest is rewritten), and
// an SPOP of every member.
func TestSetCompactionRewrites(t *testing.T) {
	t.Parallel()
	p := startShale(t, shaleOpts{Config: debugConfig})
	c := p.Client
	fillSet(t, c, "dst", 1000)
	fillSet(t, c, "src", 50)
	fillSet(t, c, "pop", 1000)
	fillSet(t, c, "all", 500)
	run(t, c, []step{
		{cmd("DEBUG", "CF-RECORDS", "subkey"), 1000 + 50 + 1000 + 500},
		{cmd("SUNIONSTORE", "dst", "src"), 50},     // dst's 1000 go, 50 new
		{cmd("SPOP", "pop", 990), arrayOfLen(990)}, // 10 stay, under a new uid
		{cmd("SPOP", "all", 500), arrayOfLen(500)},
		{cmd("EXISTS", "all"), 0},
		{cmd("COMPACT"), ok},
		{cmd("DEBUG", "CF-RECORDS", "subkey"), 50 + 50 + 10},
		{cmd("SCARD", "dst"), 50},
		{cmd("SCARD", "src"), 50},
		{cmd("SCARD", "pop"), 10},
		{cmd("SISMEMBER", "dst", "m49"), 1},
	})
}
