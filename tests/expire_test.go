package tests

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestExpireLazy: once a TTL has passed, reads see no key at once, whether
// or not active expiry has reached it yet.
func TestExpireLazy(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		ttl := setExpiringKeys(t, c)
		// Every TTL was set by now; under load the last one may have been
		// set well after the first.
		sleepUntil(time.Now().Add(ttl + ttl/2))
		run(t, c, []step{
			{cmd("GET", "s"), isNil},
			{cmd("EXISTS", "s", "h", "n"), 0},
			{cmd("TTL", "s"), -2},
			{cmd("PTTL", "h"), -2},
			{cmd("TYPE", "h"), "none"},
			{cmd("HGET", "h", "a"), isNil},
			{cmd("HLEN", "h"), 0},
			{cmd("HGETALL", "h"), emptyArr},
			{cmd("EXPIRE", "s", 100), 0}, // nothing to expire
			{cmd("PERSIST", "s"), 0},
			{cmd("RENAME", "s", "x"), errText(errNoSuchKey)},
			// writes to an expired key start from nothing
			{cmd("INCR", "n"), 1},
			{cmd("TTL", "n"), -1},
			{cmd("APPEND", "s", "new"), 3},
			{cmd("GET", "s"), "new"},
			{cmd("TTL", "s"), -1},
			// an expired hash is re-created empty, without a TTL
			{cmd("HSET", "h", "x", "1"), 1},
			{cmd("HLEN", "h"), 1},
			{cmd("HGETALL", "h"), pairs(map[string]string{"x": "1"})},
			{cmd("TTL", "h"), -1},
			{cmd("DBSIZE"), 4},
		})
	})
}

// setExpiringKeys writes TestExpireLazy's keys s, h and n with a TTL, and
// keep without, and checks them before the TTL passes. A check whose reply
// came too late to tell is repeated on fresh keys with a ten times longer
// TTL, so a slow machine costs time, not the check; a wrong reply in time
// fails the test. It returns the TTL the checks passed with.
func setExpiringKeys(t *testing.T, c *redis.Client) time.Duration {
	t.Helper()
	for ttl := 100 * time.Millisecond; ttl <= 10*time.Second; ttl *= 10 {
		ms := ttl.Milliseconds()
		steps := []step{
			{cmd("SET", "s", "v", "PX", ms), ok},
			{cmd("HSET", "h", "a", "1", "b", "2", "c", "3"), 3},
			{cmd("PEXPIRE", "h", ms), 1},
			{cmd("SET", "n", "5", "PX", ms), ok},
			{cmd("SET", "keep", "v"), ok},
			{cmd("GET", "s"), "v"},
			{cmd("PTTL", "s"), between(1, ms)},
			{cmd("HLEN", "h"), 3},
		}
		start := time.Now()
		passed := true
		for i, s := range steps {
			got, err := c.Do(ctxT(t), s.args...).Result()
			why := matchReply(s.want, got, err)
			if why == "" {
				continue
			}
			// start is taken before the first SET, so a reply back within
			// 9/10 of the TTL was read before any key could expire and
			// is wrong (the tenth covers the server's millisecond clock).
			if late := time.Since(start); late >= ttl*9/10 {
				t.Logf("step %d replied %v after the first SET, too late to check against a %v TTL: again with a longer one", i, late, ttl)
				passed = false
				break
			}
			t.Fatalf("step %d: %s: got %s, want %s (%s)", i, fmtArgs(s.args), fmtReply(got, err), fmtVal(s.want), why)
		}
		if passed {
			return ttl
		}
		do(t, c, "FLUSHDB")
	}
	t.Fatal("the checks before the TTL passed came too late even with a 10s TTL")
	return 0
}

// TestExpireActive: expired keys leave DBSIZE, KEYS and SCAN without being
// touched, through active expiry.
func TestExpireActive(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		ctx := ctxT(t)
		pipe := c.Pipeline()
		for i := range 200 {
			if i%2 == 0 {
				pipe.Do(ctx, "SET", "s"+strconv.Itoa(i), "v", "PX", 200)
			} else {
				pipe.Do(ctx, "HSET", "h"+strconv.Itoa(i), "f", "v", "g", "w")
				pipe.Do(ctx, "PEXPIRE", "h"+strconv.Itoa(i), 200)
			}
		}
		if _, err := pipe.Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if n := doInt(t, c, "DBSIZE"); n != 200 {
			t.Fatalf("DBSIZE = %d right after the writes, want 200", n)
		}
		// DBSIZE counts keys without checking their TTLs, so it only drops
		// when something deletes them.
		pollUntil(t, 3*time.Second, func() (bool, string) {
			n := doInt(t, c, "DBSIZE")
			return n == 0, fmt.Sprintf("DBSIZE = %d, want 0", n)
		})
		run(t, c, []step{
			{cmd("KEYS", "*"), emptyArr},
			{cmd("SCAN", 0, "COUNT", 1000), []any{"0", emptyArr}},
			{cmd("RANDOMKEY"), isNil},
			{cmd("INFO", "keyspace"), "# Keyspace\r\n"},
		})
		if keys := scanAll(t, c); len(keys) != 0 {
			t.Fatalf("SCAN still returns %d keys", len(keys))
		}
	})
}

func TestExpireTTLChanges(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			// SET without KEEPTTL clears the TTL.
			{cmd("SET", "k", "v", "EX", 100), ok},
			{cmd("SET", "k", "v2"), ok},
			{cmd("TTL", "k"), -1},
			// Writes to a hash keep its TTL.
			{cmd("HSET", "h", "a", "1"), 1},
			{cmd("EXPIRE", "h", 100), 1},
			{cmd("HSET", "h", "b", "2"), 1},
			{cmd("HDEL", "h", "a"), 1},
			{cmd("HINCRBY", "h", "n", 1), 1},
			{cmd("TTL", "h"), between(99, 100)},
			// Overwriting a hash with SET drops the TTL and the fields.
			{cmd("SET", "h", "str"), ok},
			{cmd("TTL", "h"), -1},
			{cmd("DEL", "h"), 1},
			{cmd("HSET", "h", "c", "3"), 1},
			{cmd("HGETALL", "h"), pairs(map[string]string{"c": "3"})},
			{cmd("TTL", "h"), -1},
			// Removing the last field removes the TTL with the key.
			{cmd("EXPIRE", "h", 100), 1},
			{cmd("HDEL", "h", "c"), 1},
			{cmd("HSET", "h", "d", "4"), 1},
			{cmd("TTL", "h"), -1},
			// EXPIRETIME follows PERSIST and re-EXPIRE.
			{cmd("EXPIREAT", "k", 4102444800), 1},
			{cmd("EXPIRETIME", "k"), 4102444800},
			{cmd("PERSIST", "k"), 1},
			{cmd("EXPIRETIME", "k"), -1},
		})
	})
}

// TestExpireMany: many keys with staggered TTLs; each read agrees with the
// TTL and no key outlives its TTL for long.
func TestExpireMany(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		ctx := ctxT(t)
		start := time.Now()
		pipe := c.Pipeline()
		for i := range 100 {
			pipe.Do(ctx, "SET", "k"+strconv.Itoa(i), "v", "PX", 100+10*i) // 100ms .. 1090ms
			pipe.Do(ctx, "SET", "p"+strconv.Itoa(i), "v")                 // no TTL
		}
		if _, err := pipe.Exec(ctx); err != nil {
			t.Fatal(err)
		}
		setDone := time.Now()
		// Each key's deadline lies in [start+ttl, setDone+ttl]; a few ms of
		// slack cover the server's millisecond clock.
		const slack = 5 * time.Millisecond
		sleepUntil(start.Add(600 * time.Millisecond))
		for i := range 100 {
			ttl := time.Duration(100+10*i) * time.Millisecond
			before := time.Now()
			v, err := c.Get(ctx, "k"+strconv.Itoa(i)).Result()
			after := time.Now()
			if setDone.Add(ttl+slack).Before(before) && err != redis.Nil {
				t.Errorf("k%d (PX %v) readable %v after its SET: %q %v", i, ttl, before.Sub(setDone), v, err)
			}
			if start.Add(ttl-slack).After(after) && (err != nil || v != "v") {
				t.Errorf("k%d (PX %v) gone %v after its SET: %v", i, ttl, after.Sub(start), err)
			}
		}
		pollUntil(t, 3*time.Second, func() (bool, string) {
			n := doInt(t, c, "DBSIZE")
			return n == 100, fmt.Sprintf("DBSIZE = %d, want 100", n)
		})
		if keys := scanAll(t, c); len(keys) != 100 {
			t.Fatalf("SCAN returns %d keys, want the 100 without TTL", len(keys))
		}
	})
}

// TestExpireExtremes: expiry times at the int64 limits. EXPIRETIME rounds
// without overflowing, and EXPIRE's unknown flag is quoted whole.
func TestExpireExtremes(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		long := strings.Repeat("x", 300)
		run(t, c, []step{
			{cmd("SET", "k", "v"), ok},
			{cmd("PEXPIREAT", "k", "9223372036854775807"), 1},
			{cmd("PEXPIRETIME", "k"), int64(9223372036854775807)},
			{cmd("EXPIRETIME", "k"), int64(9223372036854776)},
			{cmd("TTL", "k"), atLeast(9223370000000000)},
			{cmd("PEXPIREAT", "k", "9223372036854775308"), 1},
			{cmd("EXPIRETIME", "k"), int64(9223372036854775)},
			{cmd("EXPIREAT", "k", "9223372036854775"), 1},
			{cmd("PEXPIRETIME", "k"), int64(9223372036854775000)},
			{cmd("EXPIREAT", "k", "9223372036854776"), errText("ERR invalid expire time in 'expireat' command")},
			{cmd("EXPIREAT", "k", "-9223372036854776"), errText("ERR invalid expire time in 'expireat' command")},
			{cmd("PEXPIRE", "k", "9223372036854775807"), errText("ERR invalid expire time in 'pexpire' command")},
			{cmd("SET", "k", "v", "PXAT", "9223372036854775807"), ok},
			{cmd("EXPIRETIME", "k"), int64(9223372036854776)},
			{cmd("EXPIRE", "k", 100, long), errText("ERR Unsupported option " + long)},
			{cmd("EXPIRE", "k", 100, "FOO\r\n"), errText("ERR Unsupported option FOO")},
			{cmd("PEXPIRE", "k", "-9223372036854775808"), 1}, // in the past: deleted
			{cmd("EXISTS", "k"), 0},
		})
	})
}
