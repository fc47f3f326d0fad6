package tests

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

func TestHashBasics(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("HSET", "h", "f1", "v1", "f2", "v2"), 2},
			{cmd("HSET", "h", "f1", "x", "f3", "v3"), 1}, // counts added fields only
			{cmd("HSET", "h", "f1", "x"), 0},
			{cmd("HSET", "h", "dup", "1", "dup", "2"), 1}, // the last value wins
			{cmd("HGET", "h", "dup"), "2"},
			{cmd("HSET", "h", "f"), errText("ERR wrong number of arguments for 'hset' command")},
			{cmd("HSET", "h", "f1", "v1", "f2"), errText("ERR wrong number of arguments for 'hset' command")},
			{cmd("HSET", "h"), errText("ERR wrong number of arguments for 'hset' command")},
			{cmd("HGET", "h", "f1"), "x"},
			{cmd("HGET", "h", "nope"), isNil},
			{cmd("HGET", "nokey", "f"), isNil},
			{cmd("HSET", "h", "", "empty field"), 1},
			{cmd("HGET", "h", ""), "empty field"},
			{cmd("HSET", "h", "bin\x00\r\n", ""), 1},
			{cmd("HGET", "h", "bin\x00\r\n"), ""},

			{cmd("HSETNX", "h", "f1", "y"), 0},
			{cmd("HGET", "h", "f1"), "x"},
			{cmd("HSETNX", "h", "f4", "v4"), 1},
			{cmd("HSETNX", "new", "f", "v"), 1},
			{cmd("HGET", "new", "f"), "v"},
			{cmd("HSETNX", "new", "f"), errText("ERR wrong number of arguments for 'hsetnx' command")},

			{cmd("HMSET", "m", "a", "1", "b", "2"), ok},
			{cmd("HMSET", "m", "a", "3"), ok},
			{cmd("HMSET", "m", "a"), errText("ERR wrong number of arguments for 'hmset' command")},
			{cmd("HMSET", "m", "a", "1", "b"), errText("ERR wrong number of arguments for 'hmset' command")},
			{cmd("HGETALL", "m"), pairs(map[string]string{"a": "3", "b": "2"})},

			{cmd("HMGET", "h", "f1", "nope", "f2"), []any{"x", nil, "v2"}},
			{cmd("HMGET", "nokey", "a", "b"), []any{nil, nil}},
			{cmd("HMGET", "h"), errText("ERR wrong number of arguments for 'hmget' command")},

			{cmd("HGETALL", "h"), pairs(map[string]string{
				"f1": "x", "f2": "v2", "f3": "v3", "dup": "2", "": "empty field", "bin\x00\r\n": "", "f4": "v4",
			})},
			{cmd("HGETALL", "nokey"), emptyArr},
			{cmd("HLEN", "h"), 7},
			{cmd("HLEN", "nokey"), 0},
			{cmd("HEXISTS", "h", "f1"), 1},
			{cmd("HEXISTS", "h", "nope"), 0},
			{cmd("HEXISTS", "nokey", "f1"), 0},
			{cmd("HKEYS", "h"), unordered([]any{"f1", "f2", "f3", "dup", "", "bin\x00\r\n", "f4"})},
			{cmd("HKEYS", "nokey"), emptyArr},
			{cmd("HVALS", "h"), unordered([]any{"x", "v2", "v3", "2", "empty field", "", "v4"})},
			{cmd("HVALS", "nokey"), emptyArr},
			{cmd("HSTRLEN", "h", "f2"), 2},
			{cmd("HSTRLEN", "h", ""), 11},
			{cmd("HSTRLEN", "h", "nope"), 0},
			{cmd("HSTRLEN", "nokey", "f"), 0},

			// HDEL
			{cmd("HDEL", "h", "f1", "f2", "nope"), 2},
			{cmd("HDEL", "h", "f3", "f3"), 1},
			{cmd("HDEL", "nokey", "f"), 0},
			{cmd("HLEN", "h"), 4},
			{cmd("HDEL", "h"), errText("ERR wrong number of arguments for 'hdel' command")},
			{cmd("HDEL", "h", "dup", "", "bin\x00\r\n", "f4"), 4}, // the last field: the key goes
			{cmd("EXISTS", "h"), 0},
			{cmd("TYPE", "h"), "none"},
			{cmd("HLEN", "h"), 0},
			{cmd("HGETALL", "h"), emptyArr},
			{cmd("DBSIZE"), 2},
			{cmd("HSET", "h", "again", "1"), 1},
			{cmd("HGETALL", "h"), pairs(map[string]string{"again": "1"})},
			{cmd("HDEL", "new", "f"), 1},
			{cmd("KEYS", "*"), unordered([]any{"h", "m"})},
		})
	})
}

func TestHashIncr(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("HINCRBY", "h", "n", 5), 5},
			{cmd("HINCRBY", "h", "n", -10), -5},
			{cmd("HGET", "h", "n"), "-5"},
			{cmd("HINCRBY", "h", "n", 0), -5},
			{cmd("HSET", "h", "s", "abc", "f", "1.5", "sp", " 1", "big", "9223372036854775807"), 4},
			{cmd("HINCRBY", "h", "s", 1), errText("ERR hash value is not an integer")},
			{cmd("HINCRBY", "h", "f", 1), errText("ERR hash value is not an integer")},
			{cmd("HINCRBY", "h", "sp", 1), errText("ERR hash value is not an integer")},
			{cmd("HINCRBY", "h", "n", "abc"), errText("ERR value is not an integer or out of range")},
			{cmd("HINCRBY", "h", "n", "1.5"), errText("ERR value is not an integer or out of range")},
			{cmd("HINCRBY", "h", "big", 1), errText("ERR increment or decrement would overflow")},
			{cmd("HINCRBY", "h", "n", "-9223372036854775808"), errText("ERR increment or decrement would overflow")},
			{cmd("HGET", "h", "big"), "9223372036854775807"},
			{cmd("HINCRBY", "h", "big", "-9223372036854775807"), 0},
			{cmd("HINCRBY", "new", "f", 3), 3},
			{cmd("HGETALL", "new"), pairs(map[string]string{"f": "3"})},
			{cmd("HINCRBY", "h", "n"), errText("ERR wrong number of arguments for 'hincrby' command")},

			{cmd("HINCRBYFLOAT", "h", "fl", "10.5"), "10.5"},
			{cmd("HINCRBYFLOAT", "h", "fl", "0.25"), "10.75"},
			{cmd("HINCRBYFLOAT", "h", "fl", "5.0e3"), "5010.75"},
			{cmd("HINCRBYFLOAT", "h", "fl", "-10.75"), "5000"},
			{cmd("HINCRBYFLOAT", "h", "f", "1.5"), "3"}, // not "3.0"
			{cmd("HINCRBY", "h", "f", 1), 4},
			{cmd("HINCRBYFLOAT", "h", "n", "1"), "-4"},
			{cmd("HINCRBYFLOAT", "h", "e", "1e20"), "100000000000000000000"},
			{cmd("HINCRBYFLOAT", "h", "s", "1"), errText("ERR hash value is not a float")},
			{cmd("HINCRBYFLOAT", "h", "fl", "abc"), errText("ERR value is not a valid float")},
			{cmd("HINCRBYFLOAT", "h", "fl", "nan"), errText("ERR value is not a valid float")},
			{cmd("HINCRBYFLOAT", "h", "hx", "0x10"), "16"}, // strtold reads hex
			// Unlike INCRBYFLOAT, HINCRBYFLOAT rejects the increment itself.
			{cmd("HINCRBYFLOAT", "h", "fl", "inf"), errText("ERR value is NaN or Infinity")},
			{cmd("HINCRBYFLOAT", "h", "fl", "-inf"), errText("ERR value is NaN or Infinity")},
			{cmd("HGET", "h", "fl"), "5000"},
			{cmd("HINCRBYFLOAT", "new2", "f", "2.5"), "2.5"},
			{cmd("HINCRBYFLOAT", "h", "fl"), errText("ERR wrong number of arguments for 'hincrbyfloat' command")},
		})
	})
}

func TestHashWrongType(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		steps := []step{{cmd("SET", "s", "v"), ok}}
		for _, args := range [][]any{
			cmd("HSET", "s", "f", "v"), cmd("HSETNX", "s", "f", "v"), cmd("HMSET", "s", "f", "v"),
			cmd("HGET", "s", "f"), cmd("HMGET", "s", "f"), cmd("HGETALL", "s"), cmd("HDEL", "s", "f"),
			cmd("HLEN", "s"), cmd("HEXISTS", "s", "f"), cmd("HKEYS", "s"), cmd("HVALS", "s"),
			cmd("HINCRBY", "s", "f", 1), cmd("HINCRBYFLOAT", "s", "f", 1), cmd("HSTRLEN", "s", "f"),
			cmd("HRANDFIELD", "s"), cmd("HRANDFIELD", "s", 2), cmd("HSCAN", "s", 0),
		} {
			steps = append(steps, step{args, errText(wrongType)})
		}
		steps = append(steps, step{cmd("GET", "s"), "v"})
		run(t, c, steps)
	})
}

// randFields matches an HRANDFIELD reply with a count: n elements (pairs
// with WITHVALUES), each a field of h with its value, all distinct when
// distinct is set.
func randFields(h map[string]string, n int, distinct, withValues bool) matcher {
	desc := fmt.Sprintf("<%d random fields of %v, distinct=%v, withvalues=%v>", n, h, distinct, withValues)
	return matchFunc{desc, func(got any) string {
		g, isArr := got.([]any)
		if !isArr {
			return "want an array"
		}
		per := 1
		if withValues {
			per = 2
		}
		if len(g) != n*per {
			return fmt.Sprintf("length %d, want %d", len(g), n*per)
		}
		seen := map[string]bool{}
		for i := 0; i < len(g); i += per {
			f, isStr := g[i].(string)
			if !isStr {
				return fmt.Sprintf("element %d is not a string", i)
			}
			v, exists := h[f]
			if !exists {
				return fmt.Sprintf("%q is not a field", f)
			}
			if withValues && g[i+1] != v {
				return fmt.Sprintf("field %q has value %v, want %q", f, g[i+1], v)
			}
			if distinct && seen[f] {
				return fmt.Sprintf("field %q repeated", f)
			}
			seen[f] = true
		}
		return ""
	}}
}

func TestHashRandField(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		small := map[string]string{"a": "1", "b": "2", "c": "3"}
		big := map[string]string{}
		bigArgs := []any{"HSET", "big"}
		for i := range 300 {
			f := "f" + strconv.Itoa(i)
			big[f] = "v" + strconv.Itoa(i)
			bigArgs = append(bigArgs, f, big[f])
		}
		steps := []step{
			{cmd("HRANDFIELD", "nokey"), isNil},
			{cmd("HRANDFIELD", "nokey", 5), emptyArr},
			{cmd("HRANDFIELD", "nokey", -5, "WITHVALUES"), emptyArr},
			{cmd("HSET", "h", "a", "1", "b", "2", "c", "3"), 3},
			{bigArgs, 300},
			{cmd("HRANDFIELD", "h", 0), emptyArr},
			{cmd("HRANDFIELD", "h", 0, "WITHVALUES"), emptyArr},
			{cmd("HRANDFIELD", "h", "abc"), errText("ERR value is not an integer or out of range")},
			{cmd("HRANDFIELD", "h", 1, "FOO"), errText("ERR syntax error")},
			{cmd("HRANDFIELD", "h", 1, "WITHVALUES", "x"), errText("ERR syntax error")},
			// Counts at the edges, checked in Redis's order: a long in
			// ±LONG_MAX before anything else, then the syntax, then, with
			// WITHVALUES, a count whose doubled reply would overflow; only
			// then the key.
			{cmd("HRANDFIELD", "h", "-9223372036854775808"), errText(errLongRange)},
			{cmd("HRANDFIELD", "nokey", "-9223372036854775808", "WITHVALUES"), errText(errLongRange)},
			{cmd("HRANDFIELD", "h", "9223372036854775808"), errText(errNotInt)},
			{cmd("HRANDFIELD", "h", "-4611686018427387904", "FOO"), errText(errSyntax)},
			{cmd("HRANDFIELD", "h", "9223372036854775807"), randFields(small, 3, true, false)},
			{cmd("HRANDFIELD", "h", "4611686018427387904"), randFields(small, 3, true, false)},
			{cmd("HRANDFIELD", "h", "4611686018427387903", "WITHVALUES"), randFields(small, 3, true, true)},
			{cmd("HRANDFIELD", "h", "4611686018427387904", "WITHVALUES"), errText(errCountRange)},
			{cmd("HRANDFIELD", "h", "-4611686018427387904", "WITHVALUES"), errText(errCountRange)},
			{cmd("HRANDFIELD", "nokey", "-4611686018427387904", "WITHVALUES"), errText(errCountRange)},
			// A huge negative count: a missing key and a key of another type
			// answer before any draw (Redis streams |count| fields).
			{cmd("HRANDFIELD", "nokey", "-9223372036854775807"), emptyArr},
			{cmd("SET", "str", "v"), ok},
			{cmd("HRANDFIELD", "str", "-9223372036854775807"), errText(wrongType)},
			{cmd("HRANDFIELD", "str", "-9223372036854775808"), errText(errLongRange)},
		}
		// Repeat the random cases: a wrong answer should not pass by luck.
		for range 10 {
			steps = append(steps,
				step{cmd("HRANDFIELD", "h"), oneOf("a", "b", "c")},
				step{cmd("HRANDFIELD", "h", 1), randFields(small, 1, true, false)},
				step{cmd("HRANDFIELD", "h", 2), randFields(small, 2, true, false)},
				step{cmd("HRANDFIELD", "h", 3), randFields(small, 3, true, false)},
				step{cmd("HRANDFIELD", "h", 10), randFields(small, 3, true, false)}, // capped at the size
				step{cmd("HRANDFIELD", "h", -5), randFields(small, 5, false, false)},
				step{cmd("HRANDFIELD", "h", -1), randFields(small, 1, false, false)},
				step{cmd("HRANDFIELD", "h", 2, "WITHVALUES"), randFields(small, 2, true, true)},
				step{cmd("HRANDFIELD", "h", -7, "withvalues"), randFields(small, 7, false, true)},
				step{cmd("HRANDFIELD", "big", 50), randFields(big, 50, true, false)},
				step{cmd("HRANDFIELD", "big", 250, "WITHVALUES"), randFields(big, 250, true, true)},
				step{cmd("HRANDFIELD", "big", 1000), randFields(big, 300, true, false)},
				step{cmd("HRANDFIELD", "big", -400, "WITHVALUES"), randFields(big, 400, false, true)},
			)
		}
		run(t, c, steps)
		if b.isShale() {
			// Shale's own bound on a count with repeats (types.MaxRandCount),
			// whose reply it builds in memory; Redis 7.0 streams |count|
			// fields, for ever at these counts, so only Shale runs these.
			run(t, c, []step{
				{cmd("HRANDFIELD", "h", -(1<<24)-1), errText(errCountRange)},
				{cmd("HRANDFIELD", "h", "-4611686018427387904"), errText(errCountRange)},
				{cmd("HRANDFIELD", "big", "-4611686018427387903", "WITHVALUES"), errText(errCountRange)},
				{cmd("HRANDFIELD", "h", "-9223372036854775807"), errText(errCountRange)},
			})
		}

		// With many draws every field of a small hash shows up.
		seen := map[string]bool{}
		for _, f := range do(t, c, "HRANDFIELD", "h", -300).([]any) {
			seen[f.(string)] = true
		}
		if len(seen) != 3 {
			t.Errorf("HRANDFIELD h -300 returned fields %v, want all of a, b, c", seen)
		}
	})
}

// hscanAll iterates HSCAN until the cursor returns to "0" and returns the
// field/value pairs seen. It fails on a non-numeric cursor, a pair seen with
// two values, or more than 10000 calls.
func hscanAll(t *testing.T, c doer, key string, extra ...any) map[string]string {
	t.Helper()
	out := map[string]string{}
	cursor := "0"
	for calls := 0; ; calls++ {
		if calls > 10000 {
			t.Fatalf("HSCAN %s did not finish after %d calls", key, calls)
		}
		reply := do(t, c, append([]any{"HSCAN", key, cursor}, extra...)...)
		arr, isArr := reply.([]any)
		if !isArr || len(arr) != 2 {
			t.Fatalf("HSCAN reply %s, want [cursor, [...]]", fmtVal(reply))
		}
		cursor, _ = arr[0].(string)
		if _, err := strconv.ParseUint(cursor, 10, 64); err != nil {
			t.Fatalf("HSCAN cursor %s is not a numeric string", fmtVal(arr[0]))
		}
		m, err := toMapAllowRepeats(arr[1])
		if err != nil {
			t.Fatalf("HSCAN elements %s: %v", fmtVal(arr[1]), err)
		}
		for f, v := range m {
			if old, seen := out[f]; seen && old != v {
				t.Fatalf("HSCAN returned field %q with values %q and %q", f, old, v)
			}
			out[f] = v
		}
		if cursor == "0" {
			return out
		}
	}
}

// toMapAllowRepeats is toMap for SCAN-like replies, which may repeat.
func toMapAllowRepeats(got any) (map[string]string, error) {
	g, isArr := got.([]any)
	if !isArr || len(g)%2 != 0 {
		return nil, fmt.Errorf("want an even-length array")
	}
	m := map[string]string{}
	for i := 0; i < len(g); i += 2 {
		k, kStr := g[i].(string)
		v, vStr := g[i+1].(string)
		if !kStr || !vStr {
			return nil, fmt.Errorf("element %d or %d is not a string", i, i+1)
		}
		m[k] = v
	}
	return m, nil
}

// TestHashDrainedAtRandom takes a hash's fields at random, HRANDFIELD then
// HDEL in a script, as a work table is drained. Shale rewrites the hash
// under a new uid once its tombstones reach half its fields (churn.go in
// server/types), several times here; every field comes out once, with its
// value, and HGETALL and the TTL stay right.
func TestHashDrainedAtRandom(t *testing.T) {
	t.Parallel()
	const takeOne = "local f = redis.call('HRANDFIELD', KEYS[1], 1, 'WITHVALUES') " +
		"if f[1] then redis.call('HDEL', KEYS[1], f[1]) end return f"
	forEachBackend(t, func(t *testing.T, c *redis.Client, _ backend) {
		left := map[string]string{}
		args := []any{"HSET", "work"}
		for i := range 1500 {
			f, v := fmt.Sprintf("task:%04d", i), fmt.Sprintf("payload-%d", i*7)
			left[f] = v
			args = append(args, f, v)
		}
		doInt(t, c, args...)
		doInt(t, c, "EXPIRE", "work", 1000)
		for i := range 1500 {
			got := strList(t, do(t, c, "EVAL", takeOne, 1, "work"))
			if len(got) != 2 || left[got[0]] != got[1] {
				t.Fatalf("take %d: got %q, not a field left with its value", i, got)
			}
			delete(left, got[0])
			if i%250 != 249 || len(left) == 0 {
				continue
			}
			if ttl := doInt(t, c, "TTL", "work"); ttl < 900 {
				t.Fatalf("take %d: TTL %d", i, ttl)
			}
			all := strList(t, do(t, c, "HGETALL", "work"))
			if len(all) != 2*len(left) {
				t.Fatalf("take %d: HGETALL has %d fields, want %d", i, len(all)/2, len(left))
			}
			for j := 0; j < len(all); j += 2 {
				if v, there := left[all[j]]; !there || v != all[j+1] {
					t.Fatalf("take %d: HGETALL holds %s = %s", i, all[j], all[j+1])
				}
			}
		}
		run(t, c, []step{{cmd("EXISTS", "work"), 0}})
	})
}

func TestHashScan(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		all := map[string]string{}
		args := []any{"HSET", "h"}
		for i := range 1000 {
			f := fmt.Sprintf("field:%d", i)
			all[f] = "v" + strconv.Itoa(i)
			args = append(args, f, all[f])
		}
		if n := doInt(t, c, args...); n != 1000 {
			t.Fatalf("HSET returned %d, want 1000", n)
		}
		matching := func(prefix string, length int) map[string]string {
			m := map[string]string{}
			for f, v := range all {
				if strings.HasPrefix(f, prefix) && (length == 0 || len(f) == length) {
					m[f] = v
				}
			}
			return m
		}
		check := func(name string, got, want map[string]string) {
			t.Helper()
			if len(got) != len(want) {
				t.Errorf("%s: %d fields, want %d", name, len(got), len(want))
				return
			}
			for f, v := range want {
				if got[f] != v {
					t.Errorf("%s: field %q = %q, want %q", name, f, got[f], v)
					return
				}
			}
		}
		check("HSCAN", hscanAll(t, c, "h"), all)
		check("HSCAN COUNT 10", hscanAll(t, c, "h", "COUNT", 10), all)
		check("HSCAN COUNT 1000", hscanAll(t, c, "h", "COUNT", 1000), all)
		check("HSCAN MATCH field:1*", hscanAll(t, c, "h", "MATCH", "field:1*"), matching("field:1", 0))
		check("HSCAN MATCH field:99? COUNT 7", hscanAll(t, c, "h", "MATCH", "field:99?", "COUNT", 7), matching("field:99", len("field:99?")))
		check("HSCAN MATCH nomatch*", hscanAll(t, c, "h", "MATCH", "nomatch*"), map[string]string{})

		// A small hash, a missing key, and bad arguments.
		run(t, c, []step{
			{cmd("HSET", "small", "a", "1", "b", "2"), 2},
			{cmd("HSCAN", "small", 0), []any{"0", unordered([]any{"a", "1", "b", "2"})}},
			{cmd("HSCAN", "small", 0, "MATCH", "a"), []any{"0", []any{"a", "1"}}},
			{cmd("HSCAN", "nokey", 0), []any{"0", emptyArr}},
			// The key is looked up before the options are read: a missing
			// key scans empty and a string is WRONGTYPE, whatever the options.
			{cmd("HSCAN", "nokey", 0, "COUNT", 0), []any{"0", emptyArr}},
			{cmd("HSCAN", "nokey", 0, "FOO"), []any{"0", emptyArr}},
			{cmd("HSCAN", "nokey", "abc"), errText("ERR invalid cursor")},
			{cmd("SET", "scanstr", "v"), ok},
			{cmd("HSCAN", "scanstr", 0, "COUNT", 0), errText(wrongType)},
			{cmd("HSCAN", "h", "abc"), errText("ERR invalid cursor")},
			{cmd("HSCAN", "h", 0, "COUNT", 0), errText("ERR syntax error")},
			{cmd("HSCAN", "h", 0, "COUNT", "abc"), errText("ERR value is not an integer or out of range")},
			{cmd("HSCAN", "h", 0, "MATCH"), errText("ERR syntax error")},
			{cmd("HSCAN", "h", 0, "FOO", "bar"), errText("ERR syntax error")},
			{cmd("HSCAN", "h"), errText("ERR wrong number of arguments for 'hscan' command")},
		})

		// Fields deleted during a scan are not returned after their delete;
		// fields present for the whole scan are returned.
		first := do(t, c, "HSCAN", "h", 0, "COUNT", 100).([]any)
		cursor := first[0].(string)
		if cursor == "0" {
			return // the whole hash came back in one call; nothing more to check
		}
		seen, _ := toMapAllowRepeats(first[1])
		var dels []any
		for i := range 1000 {
			if f := fmt.Sprintf("field:%d", i); i%2 == 0 {
				if _, done := seen[f]; !done {
					dels = append(dels, f)
				}
			}
		}
		doInt(t, c, append([]any{"HDEL", "h"}, dels...)...)
		deleted := map[string]bool{}
		for _, f := range dels {
			deleted[f.(string)] = true
		}
		for cursor != "0" {
			arr := do(t, c, "HSCAN", "h", cursor, "COUNT", 100).([]any)
			cursor = arr[0].(string)
			m, _ := toMapAllowRepeats(arr[1])
			for f, v := range m {
				if deleted[f] {
					t.Fatalf("HSCAN returned %q after HDEL", f)
				}
				seen[f] = v
			}
		}
		for f := range all {
			if !deleted[f] && seen[f] == "" {
				t.Fatalf("HSCAN never returned %q, present for the whole scan", f)
			}
		}
	})
}

func TestHashLarge(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		ctx := ctxT(t)
		want := map[string]string{}
		pipe := c.Pipeline()
		for batch := range 10 {
			args := []any{"HSET", "big"}
			for i := range 500 {
				f := fmt.Sprintf("f%05d", batch*500+i)
				want[f] = strings.Repeat("v", i%37) + f
				args = append(args, f, want[f])
			}
			pipe.Do(ctx, args...)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			t.Fatal(err)
		}
		run(t, c, []step{
			{cmd("HLEN", "big"), 5000},
			{cmd("HGETALL", "big"), pairs(want)},
			{cmd("HGET", "big", "f04999"), want["f04999"]},
			{cmd("HSTRLEN", "big", "f00036"), len(want["f00036"])},
			{cmd("DEL", "big"), 1},
			{cmd("HLEN", "big"), 0},
			{cmd("HGETALL", "big"), emptyArr},
			{cmd("HSET", "big", "only", "1"), 1}, // re-created: none of the old fields
			{cmd("HGETALL", "big"), pairs(map[string]string{"only": "1"})},
		})
	})
}

// TestHashBigWriteKeepsCache: one command that writes more fields than a
// batch hands to the record cache (thousands) leaves the other keys' cached
// fields in the cache, and no old value of its own fields, on a key it
// creates and on one that exists; a pipelined rewrite of a field of the new
// key right behind it reads back too.
func TestHashBigWriteKeepsCache(t *testing.T) {
	t.Parallel()
	const fields = 6000
	hset := func(key, value string) []any {
		args := []any{"HSET", key}
		for i := range fields {
			args = append(args, fmt.Sprintf("f%05d", i), value)
		}
		return args
	}
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		ctx := ctxT(t)
		for i := range 100 {
			do(t, c, "HSET", "other", fmt.Sprintf("o%d", i), "x")
		}
		readOthers := func() {
			t.Helper()
			for i := range 100 {
				if v := doStr(t, c, "HGET", "other", fmt.Sprintf("o%d", i)); v != "x" {
					t.Fatalf("other o%d = %q", i, v)
				}
			}
		}
		readOthers() // cached now
		pipe := c.Pipeline()
		pipe.Do(ctx, hset("big", "v1")...)
		pipe.Do(ctx, "HSET", "big", "f00010", "rewritten")
		if _, err := pipe.Exec(ctx); err != nil {
			t.Fatal(err)
		}
		for f, want := range map[string]string{"f00010": "rewritten", "f00011": "v1", "f05999": "v1"} {
			if v := doStr(t, c, "HGET", "big", f); v != want {
				t.Fatalf("HGET big %s = %q, want %q", f, v, want)
			}
		}
		if n := doInt(t, c, hset("big", "v2")...); n != 0 {
			t.Fatalf("HSET of existing fields = %d, want 0", n)
		}
		var hitsBefore int64
		if b.isShale() {
			hitsBefore = infoInt(t, c, "stats", "subkey_cache_hits")
		}
		readOthers()
		if b.isShale() {
			if hits := infoInt(t, c, "stats", "subkey_cache_hits") - hitsBefore; hits != 100 {
				t.Fatalf("%d of 100 other fields read from the cache after big HSETs", hits)
			}
		}
		for _, f := range []string{"f00000", "f00010", "f04095", "f04096", "f05999"} {
			if v := doStr(t, c, "HGET", "big", f); v != "v2" {
				t.Fatalf("HGET big %s = %q, want v2", f, v)
			}
		}
	})
}
