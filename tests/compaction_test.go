package tests

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// fill builds key from n elements through pipelined commands of 1000
// elements each, 20 commands to a round trip: command is HSET, SADD, ZADD or
// RPUSH, and elem(i) gives element i's arguments.
func fill(t testing.TB, c *redis.Client, command, key string, n int, elem func(i int) []any) {
	t.Helper()
	ctx := ctxT(t)
	const perCmd, perPipe = 1000, 20
	pipe := c.Pipeline()
	for start := 0; start < n; start += perCmd {
		args := []any{command, key}
		for i := start; i < min(start+perCmd, n); i++ {
			args = append(args, elem(i)...)
		}
		pipe.Do(ctx, args...)
		if pipe.Len() == perPipe || start+perCmd >= n {
			if _, err := pipe.Exec(ctx); err != nil {
				t.Fatalf("%s %s: %v", command, key, err)
			}
		}
	}
}

// fillHash adds n fields f<i> = v<i> to key.
func fillHash(t *testing.T, c *redis.Client, key string, n int) {
	t.Helper()
	fill(t, c, "HSET", key, n, func(i int) []any { return []any{"f" + strconv.Itoa(i), "v" + strconv.Itoa(i)} })
}

// arrayOfLen matches an array of n elements.
func arrayOfLen(n int) matcher {
	return matchFunc{fmt.Sprintf("<array of %d>", n), func(got any) string {
		if g, isArr := got.([]any); !isArr || len(g) != n {
			return "want an array of this length"
		}
		return ""
	}}
}

// cfRecords returns DEBUG CF-RECORDS <cf>: the number of records in a
// column family.
func cfRecords(t *testing.T, c *redis.Client, cf string) int64 {
	t.Helper()
	return doInt(t, c, "DEBUG", "CF-RECORDS", cf)
}

// TestCompactionManual: after DEL, the orphaned sub-keys of a 200,000-field
// hash survive until COMPACT, which drops them all and keeps the sub-keys
// of the key re-created under the same name, also across a restart.
func TestCompactionManual(t *testing.T) {
	t.Parallel()
	// The reclaimer is held off so that this test measures COMPACT alone.
	config := debugConfig + "[compaction]\nreclaim_min_elements = 1000000000\n"
	p := startShale(t, shaleOpts{Config: config})
	c := p.Client
	const n = 200000
	fillHash(t, c, "big", n)
	run(t, c, []step{
		{cmd("HLEN", "big"), n},
		{cmd("HGET", "big", "f199999"), "v199999"},
		{cmd("DEBUG", "CF-RECORDS", "subkey"), n},
		{cmd("DEL", "big"), 1},
		{cmd("HLEN", "big"), 0},
		{cmd("HSET", "big", "a", "1", "b", "2", "c", "3"), 3},
		{cmd("HGET", "big", "f0"), isNil},
		{cmd("COMPACT"), ok},
		{cmd("DEBUG", "CF-RECORDS", "subkey"), 3},
		{cmd("HGETALL", "big"), pairs(map[string]string{"a": "1", "b": "2", "c": "3"})},
		{cmd("HLEN", "big"), 3},
	})
	p.Stop()

	p2 := startShale(t, shaleOpts{Config: config, Dir: p.Dir})
	run(t, p2.Client, []step{
		{cmd("DEBUG", "CF-RECORDS", "subkey"), 3},
		{cmd("HGETALL", "big"), pairs(map[string]string{"a": "1", "b": "2", "c": "3"})},
		{cmd("DBSIZE"), 1},
		{cmd("COMPACT"), ok}, // idempotent
		{cmd("DEBUG", "CF-RECORDS", "subkey"), 3},
	})
}

// TestCompactionOverwriteAndExpire: COMPACT also drops the sub-keys of
// hashes overwritten by SET, expired, renamed over, or flushed, and keeps
// every live one.
func TestCompactionOverwriteAndExpire(t *testing.T) {
	t.Parallel()
	p := startShale(t, shaleOpts{Config: debugConfig})
	c := p.Client
	fillHash(t, c, "over", 500)
	fillHash(t, c, "exp", 500)
	fillHash(t, c, "src", 10)
	fillHash(t, c, "dst", 500)
	fillHash(t, c, "live", 700)
	run(t, c, []step{
		{cmd("DEBUG", "CF-RECORDS", "subkey"), 500 + 500 + 10 + 500 + 700},
		{cmd("SET", "over", "string"), ok},
		{cmd("PEXPIRE", "exp", 1), 1},
		{cmd("RENAME", "src", "dst"), ok}, // dst's 500 go, src's 10 stay
	})
	// Wait until active expiry has removed exp (DBSIZE counts removals), not
	// just until reads stop seeing it: the filters spare a key that expired
	// less than compaction.ExpiryGraceMs ago and is not yet removed.
	pollUntil(t, 5*time.Second, func() (bool, string) {
		n := doInt(t, c, "DBSIZE")
		return n == 3, fmt.Sprintf("DBSIZE = %d, want 3 (over, dst, live) once exp is reaped", n)
	})
	run(t, c, []step{
		{cmd("COMPACT"), ok},
		{cmd("DEBUG", "CF-RECORDS", "subkey"), 10 + 700},
		{cmd("HLEN", "dst"), 10},
		{cmd("HGET", "dst", "f9"), "v9"},
		{cmd("HLEN", "live"), 700},
		{cmd("HGET", "live", "f699"), "v699"},
		{cmd("GET", "over"), "string"},
		{cmd("FLUSHALL"), ok},
		{cmd("COMPACT"), ok},
		{cmd("DEBUG", "CF-RECORDS", "subkey"), 0},
		{cmd("HSET", "live", "x", "1"), 1},
		{cmd("COMPACT"), ok},
		{cmd("DEBUG", "CF-RECORDS", "subkey"), 1},
		{cmd("HGETALL", "live"), pairs(map[string]string{"x": "1"})},
	})
}

var reclaimFields = []string{
	"reclaim_dropped_subkey",
	"reclaim_dropped_score",
	"reclaim_dropped_bookkeeping",
	"reclaim_dead_cache_hits",
	"reclaim_queue_length",
	"reclaim_compactions",
}

// infoReclaim returns the integer fields of INFO reclaim.
func infoReclaim(t *testing.T, c *redis.Client) map[string]int64 {
	t.Helper()
	info := doStr(t, c, "INFO", "reclaim")
	out := map[string]int64{}
	for _, line := range strings.Split(info, "\r\n") {
		name, val, found := strings.Cut(line, ":")
		if !found || !strings.HasPrefix(name, "reclaim_") {
			continue
		}
		n, err := strconv.ParseInt(val, 10, 64)
		if err != nil {
			t.Fatalf("INFO reclaim: %q is not an integer", line)
		}
		out[name] = n
	}
	for _, f := range reclaimFields {
		if _, found := out[f]; !found {
			t.Fatalf("INFO reclaim lacks %s:\n%s", f, info)
		}
	}
	return out
}

// TestCompactionReclaimer: deleting a hash of at least reclaim_min_elements
// (default 10000) fields queues it for the background reclaimer, which
// drops its sub-keys within seconds with no COMPACT.
func TestCompactionReclaimer(t *testing.T) {
	t.Parallel()
	p := startShale(t, shaleOpts{Config: debugConfig})
	c := p.Client
	before := infoReclaim(t, c)
	if before["reclaim_queue_length"] != 0 {
		t.Errorf("reclaim_queue_length = %d at start, want 0", before["reclaim_queue_length"])
	}
	if !strings.Contains(doStr(t, c, "INFO"), "reclaim_queue_length:") {
		t.Errorf("plain INFO has no reclaim section")
	}

	const n = 20000
	fillHash(t, c, "big", n)
	fillHash(t, c, "small", 5) // a live neighbour that must survive
	run(t, c, []step{
		{cmd("DEBUG", "CF-RECORDS", "subkey"), n + 5},
		{cmd("DEL", "big"), 1},
	})
	start := time.Now()
	pollUntil(t, 30*time.Second, func() (bool, string) {
		got := cfRecords(t, c, "subkey")
		return got == 5, fmt.Sprintf("DEBUG CF-RECORDS subkey = %d, want 5 (the live hash's)", got)
	})
	t.Logf("reclaimed %d sub-keys in %v", n, time.Since(start).Round(time.Millisecond))

	// The records are gone once the compaction's output is installed; the
	// counters move when the compaction returns, a moment later.
	var after map[string]int64
	pollUntil(t, 10*time.Second, func() (bool, string) {
		after = infoReclaim(t, c)
		return after["reclaim_compactions"] > before["reclaim_compactions"],
			fmt.Sprintf("reclaim_compactions did not grow: %d -> %d", before["reclaim_compactions"], after["reclaim_compactions"])
	})
	if d := after["reclaim_dropped_subkey"] - before["reclaim_dropped_subkey"]; d < n {
		t.Errorf("reclaim_dropped_subkey grew by %d, want at least %d", d, n)
	}
	run(t, c, []step{
		{cmd("HGETALL", "small"), pairs(map[string]string{"f0": "v0", "f1": "v1", "f2": "v2", "f3": "v3", "f4": "v4"})},
		{cmd("EXISTS", "big"), 0},
		{cmd("DBSIZE"), 1},
	})
}
