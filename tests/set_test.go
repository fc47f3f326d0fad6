package tests

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// The set commands' own error texts, as Redis 7.0.15 answers them.
const (
	errMustBePositive = "ERR value is out of range, must be positive"
	errLongRange      = "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"
	errCountRange     = "ERR value is out of range"
	errNumkeys        = "ERR numkeys should be greater than 0"
	errNumkeysArgs    = "ERR Number of keys can't be greater than number of args"
	errLimitNeg       = "ERR LIMIT can't be negative"
)

// setArgs returns "SADD key m..." for members.
func setArgs(key string, members []string) []any {
	args := []any{"SADD", key}
	for _, m := range members {
		args = append(args, m)
	}
	return args
}

// setMembersOf returns an unordered matcher for exactly these members.
func setMembersOf(members ...string) matcher { return unordered(strsToAny(members)) }

// memberSet turns members into the map randFields (hash_test.go) checks
// replies against: a member maps to "" and values are never asked for.
func memberSet(members []string) map[string]string {
	m := make(map[string]string, len(members))
	for _, s := range members {
		m[s] = ""
	}
	return m
}

// numbered returns n members "<prefix><i>" formatted with format.
func numbered(format string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(format, i)
	}
	return out
}

// strList reads an array-of-strings reply.
func strList(t *testing.T, got any) []string {
	t.Helper()
	arr, isArr := got.([]any)
	if !isArr {
		t.Fatalf("got %s, want an array", fmtVal(got))
	}
	out := make([]string, len(arr))
	for i, v := range arr {
		s, isStr := v.(string)
		if !isStr {
			t.Fatalf("element %d of %s is not a string", i, fmtVal(got))
		}
		out[i] = s
	}
	return out
}

func TestSetBasics(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("SADD", "s", "a", "b", "a", "c", "b"), 3}, // repeats count once
			{cmd("SADD", "s", "a", "d"), 1},
			{cmd("SADD", "s", "", "bin\x00\r\n"), 2},
			{cmd("SADD", "s"), errText("ERR wrong number of arguments for 'sadd' command")},
			{cmd("SCARD", "s"), 6},
			{cmd("SCARD", "nokey"), 0},
			{cmd("TYPE", "s"), "set"},
			{cmd("SMEMBERS", "s"), setMembersOf("a", "b", "c", "d", "", "bin\x00\r\n")},
			{cmd("SMEMBERS", "nokey"), emptyArr},
			{cmd("SISMEMBER", "s", "a"), 1},
			{cmd("SISMEMBER", "s", ""), 1},
			{cmd("SISMEMBER", "s", "bin\x00\r\n"), 1},
			{cmd("SISMEMBER", "s", "z"), 0},
			{cmd("SISMEMBER", "nokey", "a"), 0},
			{cmd("SISMEMBER", "s"), errText("ERR wrong number of arguments for 'sismember' command")},
			{cmd("SMISMEMBER", "s", "a", "z", "a", ""), []any{1, 0, 1, 1}},
			{cmd("SMISMEMBER", "nokey", "a", "b"), []any{0, 0}},
			{cmd("SMISMEMBER", "s"), errText("ERR wrong number of arguments for 'smismember' command")},

			// SREM
			{cmd("SREM", "s", "a", "a", "z"), 1},
			{cmd("SREM", "nokey", "a"), 0},
			{cmd("SREM", "s", "z"), 0},
			{cmd("SREM", "s"), errText("ERR wrong number of arguments for 'srem' command")},
			{cmd("SCARD", "s"), 5},
			{cmd("SREM", "s", "b", "c", "d", "", "bin\x00\r\n", "x"), 5}, // the last members: the key goes
			{cmd("EXISTS", "s"), 0},
			{cmd("TYPE", "s"), "none"},
			{cmd("SCARD", "s"), 0},
			{cmd("SMEMBERS", "s"), emptyArr},
			{cmd("DBSIZE"), 0},
			{cmd("SADD", "s", "again"), 1},
			{cmd("SMEMBERS", "s"), []any{"again"}},
			{cmd("DBSIZE"), 1},
		})
	})
}

func TestSetWrongType(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		steps := []step{
			{cmd("SET", "str", "v"), ok},
			{cmd("HSET", "h", "f", "v"), 1},
			{cmd("SADD", "s", "a"), 1},
		}
		for _, args := range [][]any{
			cmd("SADD", "str", "a"), cmd("SREM", "str", "a"), cmd("SCARD", "str"),
			cmd("SISMEMBER", "str", "a"), cmd("SMISMEMBER", "str", "a"), cmd("SMEMBERS", "str"),
			cmd("SPOP", "str"), cmd("SPOP", "str", 0), cmd("SPOP", "str", 2),
			cmd("SRANDMEMBER", "str"), cmd("SRANDMEMBER", "str", 0), cmd("SRANDMEMBER", "str", -2),
			cmd("SRANDMEMBER", "str", "-9223372036854775807"),
			cmd("SSCAN", "str", 0), cmd("SSCAN", "str", 0, "COUNT", 0), // the type before the options
			cmd("SMOVE", "str", "s", "a"), cmd("SMOVE", "s", "str", "a"), cmd("SMOVE", "s", "h", "nope"),
			cmd("SMOVE", "str", "str", "a"),
			// A wrong type anywhere among the sources, even after a missing key.
			cmd("SINTER", "s", "str"), cmd("SINTER", "nokey", "str"), cmd("SINTER", "str", "nokey"),
			cmd("SUNION", "s", "h"), cmd("SDIFF", "s", "str"), cmd("SDIFF", "nokey", "h"),
			cmd("SINTERCARD", 2, "s", "str"), cmd("SINTERCARD", 2, "nokey", "str"),
			cmd("SINTERSTORE", "dst", "s", "str"), cmd("SUNIONSTORE", "dst", "str"),
			cmd("SDIFFSTORE", "dst", "nokey", "h"), cmd("SDIFFSTORE", "s", "s", "h"),
		} {
			steps = append(steps, step{args, errText(wrongType)})
		}
		steps = append(steps,
			// A missing source answers 0 before the destination's type counts.
			step{cmd("SMOVE", "nokey", "str", "a"), 0},
			// Bad counts and options are reported before the type.
			step{cmd("SPOP", "str", -1), errText(errMustBePositive)},
			step{cmd("SRANDMEMBER", "str", "x"), errText(errNotInt)},
			step{cmd("SRANDMEMBER", "str", "-9223372036854775808"), errText(errLongRange)},
			step{cmd("SINTERCARD", 1, "str", "LIMIT", -1), errText(errLimitNeg)},
			step{cmd("SSCAN", "str", "x"), errText("ERR invalid cursor")},
			// Cursors parse as strtoul does: signs are accepted (-1 is the
			// largest cursor; where it lands is undefined, so it is not
			// checked here), spaces and bare signs are invalid, and the
			// empty string is cursor 0.
			step{cmd("SSCAN", "s", "+0"), []any{"0", []any{"a"}}},
			step{cmd("SSCAN", "s", ""), []any{"0", []any{"a"}}},
			step{cmd("SSCAN", "s", "-"), errText("ERR invalid cursor")},
			step{cmd("SSCAN", "s", " 1"), errText("ERR invalid cursor")},
			step{cmd("SSCAN", "s", "18446744073709551616"), errText("ERR invalid cursor")},
			// A failed STORE leaves everything as it was.
			step{cmd("GET", "str"), "v"},
			step{cmd("SMEMBERS", "s"), []any{"a"}},
			step{cmd("EXISTS", "dst"), 0},
			step{cmd("DBSIZE"), 3},
		)
		run(t, c, steps)
	})
}

func TestSetMove(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("SADD", "src", "a", "b", "c"), 3},
			{cmd("SADD", "dst", "c", "x"), 2},
			{cmd("SMOVE", "src", "dst", "a"), 1},
			{cmd("SMEMBERS", "src"), setMembersOf("b", "c")},
			{cmd("SMEMBERS", "dst"), setMembersOf("a", "c", "x")},
			{cmd("SMOVE", "src", "dst", "c"), 1}, // already in dst: it only leaves src
			{cmd("SMEMBERS", "src"), []any{"b"}},
			{cmd("SCARD", "dst"), 3},
			{cmd("SMOVE", "src", "dst", "nope"), 0},
			{cmd("SMOVE", "nokey", "dst", "a"), 0},
			{cmd("SMOVE", "src", "new", "b"), 1}, // the last member: src goes, new is created
			{cmd("EXISTS", "src"), 0},
			{cmd("SMEMBERS", "new"), []any{"b"}},
			{cmd("SMOVE", "new", "new", "b"), 1}, // same key: a membership test
			{cmd("SMOVE", "new", "new", "z"), 0},
			{cmd("SMEMBERS", "new"), []any{"b"}},
			{cmd("SMOVE", "dst", "gone", "zz"), 0},
			{cmd("EXISTS", "gone"), 0},
			{cmd("SMOVE", "dst", "new"), errText("ERR wrong number of arguments for 'smove' command")},
			{cmd("DBSIZE"), 2},
		})
	})
}

func TestSetPop(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("SPOP", "nokey"), isNil},
			{cmd("SPOP", "nokey", 3), emptyArr},
			{cmd("SPOP", "nokey", 0), emptyArr},
			{cmd("SPOP", "nokey", -1), errText(errMustBePositive)},
			{cmd("SADD", "s", "a", "b", "c"), 3},
			{cmd("SPOP", "s", -1), errText(errMustBePositive)},
			{cmd("SPOP", "s", "abc"), errText(errMustBePositive)},
			{cmd("SPOP", "s", "1.5"), errText(errMustBePositive)},
			{cmd("SPOP", "s", "-9223372036854775808"), errText(errMustBePositive)},
			{cmd("SPOP", "s", 1, 2), errText(errSyntax)},
			{cmd("SPOP", "s", 0), emptyArr},
			{cmd("SCARD", "s"), 3},
			{cmd("SPOP", "s"), oneOf("a", "b", "c")},
			{cmd("SCARD", "s"), 2},
			{cmd("SPOP", "s", "9223372036854775807"), randFields(memberSet([]string{"a", "b", "c"}), 2, true, false)},
			{cmd("EXISTS", "s"), 0},
			{cmd("SPOP", "s"), isNil},
			{cmd("SADD", "one", "x"), 1},
			{cmd("SPOP", "one"), "x"},
			{cmd("EXISTS", "one"), 0},
			{cmd("SPOP"), errText("ERR wrong number of arguments for 'spop' command")},
		})

		// Popped and remaining members partition the set, for every count and
		// on small and big sets (the big one is sampled by seeks in shale).
		for _, tc := range []struct {
			n     int
			count int
		}{{10, 1}, {10, 3}, {10, 8}, {10, 10}, {300, 1}, {300, 5}, {300, 150}, {300, 299}, {5000, 1}, {5000, 39}, {5000, 100}} {
			key := fmt.Sprintf("p%d-%d", tc.n, tc.count)
			members := numbered("member:%05d", tc.n)
			doInt(t, c, setArgs(key, members)...)
			popped := strList(t, do(t, c, "SPOP", key, tc.count))
			rest := []string{}
			if tc.count < tc.n {
				rest = strList(t, do(t, c, "SMEMBERS", key))
			}
			if len(popped) != tc.count {
				t.Errorf("SPOP %s %d returned %d members", key, tc.count, len(popped))
			}
			all := append(append([]string{}, popped...), rest...)
			sort.Strings(all)
			if strings.Join(all, ",") != strings.Join(members, ",") {
				t.Errorf("SPOP %s %d: popped %v and remaining %d members do not partition the set", key, tc.count, popped, len(rest))
			}
			if got := doInt(t, c, "SCARD", key); got != int64(tc.n-tc.count) {
				t.Errorf("SCARD %s after SPOP %d = %d, want %d", key, tc.count, got, tc.n-tc.count)
			}
		}

		// SPOP keeps the key's TTL, also when it pops most of the set.
		run(t, c, []step{
			{setArgs("ttl", numbered("m%d", 10)), 10},
			{cmd("EXPIRE", "ttl", 1000), 1},
			{cmd("SPOP", "ttl", 8), randFields(memberSet(numbered("m%d", 10)), 8, true, false)},
			{cmd("TTL", "ttl"), between(990, 1000)},
			{cmd("SCARD", "ttl"), 2},
			{cmd("SPOP", "ttl"), anyString},
			{cmd("TTL", "ttl"), between(990, 1000)},
		})
	})
}

// TestSetDrainedAtRandom drains sets as job pools do: SPOP one member at a
// time, and SRANDMEMBER then SREM in a script. Shale rewrites such a set
// under a new uid once its tombstones reach half its members (churn.go in
// server/types), several times over each drain here; every member comes
// out exactly once, and the TTL stays.
func TestSetDrainedAtRandom(t *testing.T) {
	t.Parallel()
	const takeOne = "local m = redis.call('SRANDMEMBER', KEYS[1]) " +
		"if m then redis.call('SREM', KEYS[1], m) end return m"
	forEachBackend(t, func(t *testing.T, c *redis.Client, _ backend) {
		for _, take := range []string{"spop", "script"} {
			key := "pool:" + take
			members := numbered("job:%04d", 1500)
			doInt(t, c, setArgs(key, members)...)
			doInt(t, c, "EXPIRE", key, 1000)
			left := memberSet(members)
			for i := range len(members) {
				var got any
				if take == "spop" {
					got = do(t, c, "SPOP", key)
				} else {
					got = do(t, c, "EVAL", takeOne, 1, key)
				}
				m, ok := got.(string)
				if _, there := left[m]; !ok || !there {
					t.Fatalf("%s %d: got %v, not a member left", take, i, got)
				}
				delete(left, m)
				if i%250 == 249 && len(left) > 0 {
					if n := doInt(t, c, "SCARD", key); n != int64(len(left)) {
						t.Fatalf("%s %d: SCARD %d, want %d", take, i, n, len(left))
					}
					if ttl := doInt(t, c, "TTL", key); ttl < 900 {
						t.Fatalf("%s %d: TTL %d", take, i, ttl)
					}
					rest := strList(t, do(t, c, "SMEMBERS", key))
					if len(rest) != len(left) {
						t.Fatalf("%s %d: SMEMBERS has %d, want %d", take, i, len(rest), len(left))
					}
					for _, r := range rest {
						if _, there := left[r]; !there {
							t.Fatalf("%s %d: SMEMBERS holds %s, popped before", take, i, r)
						}
					}
				}
			}
			run(t, c, []step{{cmd("EXISTS", key), 0}})
		}
	})
}

func TestSetRandMember(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		small := []string{"a", "b", "c"}
		big := numbered("user:%06d", 5000)
		ints := numbered("%d", 10000)
		steps := []step{
			{cmd("SRANDMEMBER", "nokey"), isNil},
			{cmd("SRANDMEMBER", "nokey", 5), emptyArr},
			{cmd("SRANDMEMBER", "nokey", -5), emptyArr},
			{cmd("SRANDMEMBER", "nokey", 0), emptyArr},
			{cmd("SRANDMEMBER", "nokey", "x"), errText(errNotInt)},
			// A huge negative count on a missing key: Redis looks the key up
			// before it streams |count| members.
			{cmd("SRANDMEMBER", "nokey", "-9223372036854775807"), emptyArr},
			{cmd("SRANDMEMBER", "nokey", "-9223372036854775808"), errText(errLongRange)},
			{setArgs("s", small), 3},
			{setArgs("big", big), 5000},
			{setArgs("ints", ints), 10000},
			{cmd("SRANDMEMBER", "s", 0), emptyArr},
			{cmd("SRANDMEMBER", "s", "abc"), errText(errNotInt)},
			{cmd("SRANDMEMBER", "s", "1.5"), errText(errNotInt)},
			{cmd("SRANDMEMBER", "s", "-9223372036854775808"), errText(errLongRange)},
			{cmd("SRANDMEMBER", "s", "9223372036854775807"), randFields(memberSet(small), 3, true, false)},
			{cmd("SRANDMEMBER", "s", 1, 2), errText(errSyntax)},
			{cmd("SRANDMEMBER"), errText("ERR wrong number of arguments for 'srandmember' command")},
		}
		// Repeat the random cases: a wrong answer should not pass by luck.
		for range 10 {
			steps = append(steps,
				step{cmd("SRANDMEMBER", "s"), oneOf("a", "b", "c")},
				step{cmd("SRANDMEMBER", "s", 1), randFields(memberSet(small), 1, true, false)},
				step{cmd("SRANDMEMBER", "s", 2), randFields(memberSet(small), 2, true, false)},
				step{cmd("SRANDMEMBER", "s", 3), randFields(memberSet(small), 3, true, false)},
				step{cmd("SRANDMEMBER", "s", 10), randFields(memberSet(small), 3, true, false)},
				step{cmd("SRANDMEMBER", "s", -5), randFields(memberSet(small), 5, false, false)},
				step{cmd("SRANDMEMBER", "s", -1), randFields(memberSet(small), 1, false, false)},
				step{cmd("SRANDMEMBER", "big"), oneOf(strsToAny(big)...)},
				step{cmd("SRANDMEMBER", "big", 5), randFields(memberSet(big), 5, true, false)},
				step{cmd("SRANDMEMBER", "big", 200), randFields(memberSet(big), 200, true, false)},
				step{cmd("SRANDMEMBER", "big", 4000), randFields(memberSet(big), 4000, true, false)},
				step{cmd("SRANDMEMBER", "big", -7), randFields(memberSet(big), 7, false, false)},
				step{cmd("SRANDMEMBER", "big", -9000), randFields(memberSet(big), 9000, false, false)},
				step{cmd("SRANDMEMBER", "ints", 30), randFields(memberSet(ints), 30, true, false)},
				step{cmd("SRANDMEMBER", "ints", -30), randFields(memberSet(ints), 30, false, false)},
			)
		}
		steps = append(steps,
			step{cmd("SCARD", "big"), 5000}, // SRANDMEMBER removes nothing
			step{cmd("SCARD", "s"), 3},
		)
		run(t, c, steps)
		if b.isShale() {
			// Shale's own bound on a count with repeats, whose reply it
			// builds in memory; Redis tries and runs out of memory.
			run(t, c, []step{
				{cmd("SRANDMEMBER", "s", -(1<<24)-1), errText(errCountRange)},
				{cmd("SRANDMEMBER", "s", "-9223372036854775807"), errText(errCountRange)},
			})
		}

		// With many draws every member of a small set shows up.
		seen := map[string]bool{}
		for _, m := range strList(t, do(t, c, "SRANDMEMBER", "s", -300)) {
			seen[m] = true
		}
		if len(seen) != 3 {
			t.Errorf("SRANDMEMBER s -300 returned members %v, want all of a, b, c", seen)
		}
		// Single draws from big sets spread over the set: 400 uniform draws
		// from 5000 members give about 385 different ones, and 400 from
		// 10000 about 392. A sampler stuck on a few members fails this.
		for key, n := range map[string]int{"big": 5000, "ints": 10000} {
			distinct := map[string]bool{}
			for range 400 {
				distinct[doStr(t, c, "SRANDMEMBER", key)] = true
			}
			t.Logf("400 SRANDMEMBER %s (of %d members): %d different members", key, n, len(distinct))
			if len(distinct) < 350 {
				t.Errorf("400 SRANDMEMBER %s (of %d members) gave only %d different members", key, n, len(distinct))
			}
		}
	})
}

func TestSetOps(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("SADD", "a", "1", "2", "3", "4", "5"), 5},
			{cmd("SADD", "b", "3", "4", "5", "6"), 4},
			{cmd("SADD", "c", "5", "6", "7"), 3},
			{cmd("SET", "str", "v"), ok},

			{cmd("SINTER", "a"), setMembersOf("1", "2", "3", "4", "5")},
			{cmd("SINTER", "a", "b"), setMembersOf("3", "4", "5")},
			{cmd("SINTER", "a", "b", "c"), []any{"5"}},
			{cmd("SINTER", "a", "a"), setMembersOf("1", "2", "3", "4", "5")},
			{cmd("SINTER", "a", "nokey"), emptyArr},
			{cmd("SINTER", "nokey"), emptyArr},
			{cmd("SINTER"), errText("ERR wrong number of arguments for 'sinter' command")},

			{cmd("SUNION", "a", "b", "c"), setMembersOf("1", "2", "3", "4", "5", "6", "7")},
			{cmd("SUNION", "c", "nokey", "c"), setMembersOf("5", "6", "7")},
			{cmd("SUNION", "nokey"), emptyArr},
			{cmd("SUNION"), errText("ERR wrong number of arguments for 'sunion' command")},

			{cmd("SDIFF", "a", "b"), setMembersOf("1", "2")},
			{cmd("SDIFF", "a", "b", "c"), setMembersOf("1", "2")},
			{cmd("SDIFF", "b", "a"), []any{"6"}},
			{cmd("SDIFF", "a", "nokey"), setMembersOf("1", "2", "3", "4", "5")},
			{cmd("SDIFF", "a"), setMembersOf("1", "2", "3", "4", "5")},
			{cmd("SDIFF", "a", "a"), emptyArr},
			{cmd("SDIFF", "nokey", "a"), emptyArr},
			{cmd("SDIFF"), errText("ERR wrong number of arguments for 'sdiff' command")},

			// SINTERCARD
			{cmd("SINTERCARD", 2, "a", "b"), 3},
			{cmd("SINTERCARD", 3, "a", "b", "c"), 1},
			{cmd("SINTERCARD", 1, "a"), 5},
			{cmd("SINTERCARD", 2, "a", "nokey"), 0},
			{cmd("SINTERCARD", 2, "a", "b", "LIMIT", 2), 2},
			{cmd("SINTERCARD", 2, "a", "b", "limit", 0), 3}, // 0: no limit
			{cmd("SINTERCARD", 2, "a", "b", "LIMIT", 100), 3},
			{cmd("SINTERCARD", 2, "a", "b", "LIMIT", 1, "LIMIT", 2), 2}, // the last LIMIT wins
			{cmd("SINTERCARD", 0, "a"), errText(errNumkeys)},
			{cmd("SINTERCARD", -1, "a"), errText(errNumkeys)},
			{cmd("SINTERCARD", "x", "a"), errText(errNumkeys)},
			{cmd("SINTERCARD", "99999999999999999999", "a"), errText(errNumkeys)},
			{cmd("SINTERCARD", 3, "a", "b"), errText(errNumkeysArgs)},
			{cmd("SINTERCARD", 2, "a", "b", "LIMIT", -1), errText(errLimitNeg)},
			{cmd("SINTERCARD", 2, "a", "b", "LIMIT", "x"), errText(errLimitNeg)},
			{cmd("SINTERCARD", 2, "a", "b", "LIMIT"), errText(errSyntax)},
			{cmd("SINTERCARD", 2, "a", "b", "FOO", 1), errText(errSyntax)},
			{cmd("SINTERCARD", 1, "a", "b"), errText(errSyntax)},
			{cmd("SINTERCARD", 1), errText("ERR wrong number of arguments for 'sintercard' command")},

			// STORE forms: the count, the destination overwritten whatever
			// its type, and no TTL on the result.
			{cmd("SINTERSTORE", "d", "a", "b"), 3},
			{cmd("SMEMBERS", "d"), setMembersOf("3", "4", "5")},
			{cmd("EXPIRE", "d", 1000), 1},
			{cmd("SUNIONSTORE", "d", "a", "c"), 7},
			{cmd("SMEMBERS", "d"), setMembersOf("1", "2", "3", "4", "5", "6", "7")},
			{cmd("TTL", "d"), -1},
			{cmd("SDIFFSTORE", "d", "a", "b"), 2},
			{cmd("SMEMBERS", "d"), setMembersOf("1", "2")},
			{cmd("SINTERSTORE", "str", "a", "b"), 3},
			{cmd("TYPE", "str"), "set"},
			{cmd("HSET", "h", "f", "v"), 1},
			{cmd("SUNIONSTORE", "h", "c"), 3},
			{cmd("SMEMBERS", "h"), setMembersOf("5", "6", "7")},
			// An empty result removes the destination.
			{cmd("SET", "str2", "v"), ok},
			{cmd("SINTERSTORE", "str2", "a", "nokey"), 0},
			{cmd("EXISTS", "str2"), 0},
			{cmd("SDIFFSTORE", "d", "a", "a"), 0},
			{cmd("EXISTS", "d"), 0},
			{cmd("SUNIONSTORE", "d", "nokey"), 0},
			{cmd("EXISTS", "d"), 0},
			{cmd("SINTERSTORE", "d"), errText("ERR wrong number of arguments for 'sinterstore' command")},
			// The destination may be a source.
			{cmd("SADD", "x", "1", "2", "3"), 3},
			{cmd("SADD", "y", "2", "3", "4"), 3},
			{cmd("SINTERSTORE", "x", "x", "y"), 2},
			{cmd("SMEMBERS", "x"), setMembersOf("2", "3")},
			{cmd("SUNIONSTORE", "x", "y", "x"), 3},
			{cmd("SMEMBERS", "x"), setMembersOf("2", "3", "4")},
			{cmd("SDIFFSTORE", "y", "y", "a"), 0}, // every member of y is in a
			{cmd("EXISTS", "y"), 0},
			{cmd("SDIFFSTORE", "x", "x", "nokey"), 3},
			{cmd("SMEMBERS", "x"), setMembersOf("2", "3", "4")},
			{cmd("SINTERSTORE", "x", "x"), 3},
			{cmd("SMEMBERS", "x"), setMembersOf("2", "3", "4")},
		})

		// Bigger sets, so that every algorithm runs: a small set against a
		// big one and the other way round, and results over many chunks.
		all := numbered("%d", 6000)
		var ev, od, thirds []string
		for i, m := range all {
			switch {
			case i%2 == 0:
				ev = append(ev, m)
			default:
				od = append(od, m)
			}
			if i%3 == 0 {
				thirds = append(thirds, m)
			}
		}
		doInt(t, c, setArgs("all", all)...)
		doInt(t, c, setArgs("ev", ev)...)
		doInt(t, c, setArgs("od", od)...)
		doInt(t, c, setArgs("thirds", thirds)...)
		doInt(t, c, "SADD", "tiny", "0", "1", "3", "nope")
		var sixths []string // even and a multiple of 3
		for i := 0; i < 6000; i += 6 {
			sixths = append(sixths, strconv.Itoa(i))
		}
		var thirdsOdd []string // multiples of 3 that are odd
		for i := 3; i < 6000; i += 6 {
			thirdsOdd = append(thirdsOdd, strconv.Itoa(i))
		}
		run(t, c, []step{
			{cmd("SINTER", "all", "ev"), setMembersOf(ev...)},
			{cmd("SINTER", "ev", "thirds", "all"), setMembersOf(sixths...)},
			{cmd("SINTER", "ev", "od"), emptyArr},
			{cmd("SINTER", "tiny", "all"), setMembersOf("0", "1", "3")},
			{cmd("SINTERCARD", 3, "ev", "thirds", "all"), len(sixths)},
			{cmd("SINTERCARD", 2, "ev", "thirds", "LIMIT", 700), 700},
			{cmd("SUNION", "ev", "od"), setMembersOf(all...)},
			{cmd("SUNION", "ev", "thirds", "tiny"), setMembersOf(append(append(append([]string{}, ev...), thirdsOdd...), "1", "nope")...)},
			{cmd("SDIFF", "all", "ev"), setMembersOf(od...)},
			{cmd("SDIFF", "all", "ev", "od"), emptyArr},
			{cmd("SDIFF", "tiny", "all"), []any{"nope"}},
			{cmd("SDIFF", "thirds", "ev"), setMembersOf(thirdsOdd...)},
			{cmd("SDIFF", "all", "tiny", "thirds", "od"), setMembersOf(diffStr(ev, append([]string{"0"}, sixths...))...)},
			{cmd("SUNIONSTORE", "u", "ev", "od"), 6000},
			{cmd("SCARD", "u"), 6000},
			{cmd("SDIFFSTORE", "u", "u", "ev"), 3000},
			{cmd("SMEMBERS", "u"), setMembersOf(od...)},
			{cmd("SINTERSTORE", "u", "u", "thirds"), len(thirdsOdd)},
			{cmd("SMEMBERS", "u"), setMembersOf(thirdsOdd...)},
		})
	})
}

// diffStr returns the members of a that are not in b.
func diffStr(a, b []string) []string {
	skip := map[string]bool{}
	for _, s := range b {
		skip[s] = true
	}
	var out []string
	for _, s := range a {
		if !skip[s] {
			out = append(out, s)
		}
	}
	return out
}

// sscanAll iterates SSCAN until the cursor returns to "0" and returns the
// members seen. It fails on a non-numeric cursor or more than 10000 calls.
func sscanAll(t *testing.T, c doer, key string, extra ...any) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	cursor := "0"
	for calls := 0; ; calls++ {
		if calls > 10000 {
			t.Fatalf("SSCAN %s did not finish after %d calls", key, calls)
		}
		reply := do(t, c, append([]any{"SSCAN", key, cursor}, extra...)...)
		arr, isArr := reply.([]any)
		if !isArr || len(arr) != 2 {
			t.Fatalf("SSCAN reply %s, want [cursor, [...]]", fmtVal(reply))
		}
		cursor, _ = arr[0].(string)
		if _, err := strconv.ParseUint(cursor, 10, 64); err != nil {
			t.Fatalf("SSCAN cursor %s is not a numeric string", fmtVal(arr[0]))
		}
		for _, m := range strList(t, arr[1]) {
			out[m] = true
		}
		if cursor == "0" {
			return out
		}
	}
}

func TestSetScan(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		all := numbered("member:%d", 1000)
		doInt(t, c, setArgs("s", all)...)
		want := func(prefix string, length int) map[string]bool {
			m := map[string]bool{}
			for _, s := range all {
				if strings.HasPrefix(s, prefix) && (length == 0 || len(s) == length) {
					m[s] = true
				}
			}
			return m
		}
		check := func(name string, got, want map[string]bool) {
			t.Helper()
			if len(got) != len(want) {
				t.Errorf("%s: %d members, want %d", name, len(got), len(want))
				return
			}
			for m := range want {
				if !got[m] {
					t.Errorf("%s: member %q missing", name, m)
					return
				}
			}
		}
		check("SSCAN", sscanAll(t, c, "s"), want("", 0))
		check("SSCAN COUNT 7", sscanAll(t, c, "s", "COUNT", 7), want("", 0))
		check("SSCAN COUNT 5000", sscanAll(t, c, "s", "COUNT", 5000), want("", 0))
		check("SSCAN MATCH member:1*", sscanAll(t, c, "s", "MATCH", "member:1*"), want("member:1", 0))
		check("SSCAN MATCH member:99? COUNT 3", sscanAll(t, c, "s", "MATCH", "member:99?", "COUNT", 3), want("member:99", len("member:99?")))
		check("SSCAN MATCH nomatch*", sscanAll(t, c, "s", "MATCH", "nomatch*"), map[string]bool{})

		run(t, c, []step{
			{cmd("SADD", "small", "a", "b"), 2},
			{cmd("SSCAN", "small", 0), []any{"0", setMembersOf("a", "b")}},
			{cmd("SSCAN", "small", 0, "MATCH", "a"), []any{"0", []any{"a"}}},
			{cmd("SSCAN", "nokey", 0), []any{"0", emptyArr}},
			// A missing key answers an empty scan before its options are read.
			{cmd("SSCAN", "nokey", 0, "COUNT", 0), []any{"0", emptyArr}},
			{cmd("SSCAN", "nokey", 0, "FOO"), []any{"0", emptyArr}},
			{cmd("SSCAN", "nokey", "abc"), errText("ERR invalid cursor")},
			{cmd("SET", "scanstr", "v"), ok},
			{cmd("SSCAN", "scanstr", 0, "COUNT", 0), errText(wrongType)},
			{cmd("SSCAN", "s", "abc"), errText("ERR invalid cursor")},
			{cmd("SSCAN", "s", 0, "COUNT", 0), errText(errSyntax)},
			{cmd("SSCAN", "s", 0, "COUNT", "abc"), errText(errNotInt)},
			{cmd("SSCAN", "s", 0, "MATCH"), errText(errSyntax)},
			{cmd("SSCAN", "s", 0, "FOO", "bar"), errText(errSyntax)},
			{cmd("SSCAN", "s"), errText("ERR wrong number of arguments for 'sscan' command")},
		})

		// Members removed during a scan are not returned after their SREM;
		// members present for the whole scan are returned.
		first := do(t, c, "SSCAN", "s", 0, "COUNT", 100).([]any)
		cursor := first[0].(string)
		if cursor == "0" {
			return
		}
		seen := map[string]bool{}
		for _, m := range strList(t, first[1]) {
			seen[m] = true
		}
		var rems []any
		deleted := map[string]bool{}
		for i, m := range all {
			if i%2 == 0 && !seen[m] {
				rems = append(rems, m)
				deleted[m] = true
			}
		}
		doInt(t, c, append([]any{"SREM", "s"}, rems...)...)
		for cursor != "0" {
			arr := do(t, c, "SSCAN", "s", cursor, "COUNT", 100).([]any)
			cursor = arr[0].(string)
			for _, m := range strList(t, arr[1]) {
				if deleted[m] {
					t.Fatalf("SSCAN returned %q after SREM", m)
				}
				seen[m] = true
			}
		}
		for _, m := range all {
			if !deleted[m] && !seen[m] {
				t.Fatalf("SSCAN never returned %q, present for the whole scan", m)
			}
		}
	})
}

// TestSetObjectEncoding pins the encodings Redis 7.0 reports for sets built
// by SADD and the STORE commands: "intset" for at most 512 integers,
// "hashtable" otherwise (7.0 has no listpack sets).
func TestSetObjectEncoding(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("SADD", "ints", "1", "-5", "9223372036854775807", "-9223372036854775808"), 4},
			{cmd("OBJECT", "ENCODING", "ints"), "intset"},
			{cmd("SADD", "words", "a", "1"), 2},
			{cmd("OBJECT", "ENCODING", "words"), "hashtable"},
			{cmd("SADD", "lead0", "01"), 1},
			{cmd("OBJECT", "ENCODING", "lead0"), "hashtable"},
			{cmd("SADD", "negzero", "-0"), 1},
			{cmd("OBJECT", "ENCODING", "negzero"), "hashtable"},
			{cmd("SADD", "toobig", "9223372036854775808"), 1},
			{cmd("OBJECT", "ENCODING", "toobig"), "hashtable"},
			{cmd("SADD", "space", " 1"), 1},
			{cmd("OBJECT", "ENCODING", "space"), "hashtable"},
			{append([]any{"SADD", "n512"}, strsToAny(numbered("%d", 512))...), 512},
			{cmd("OBJECT", "ENCODING", "n512"), "intset"},
			{cmd("SADD", "n512", "512"), 1},
			{cmd("OBJECT", "ENCODING", "n512"), "hashtable"},
			{cmd("SUNIONSTORE", "u", "ints"), 4},
			{cmd("OBJECT", "ENCODING", "u"), "intset"},
			{cmd("SINTERSTORE", "w", "words", "words"), 2},
			{cmd("OBJECT", "ENCODING", "w"), "hashtable"},
		})
	})
}
