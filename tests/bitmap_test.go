package tests

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

const (
	errBitOffset  = "ERR bit offset is not an integer or out of range"
	errBitValue   = "ERR bit is not an integer or out of range"
	errBitfieldTy = "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is."
)

// TestBitmapSetGetBit: SETBIT and GETBIT, their offset and bit checks (the
// offset's byte below proto-max-bulk-len) and their order, and the string
// SETBIT builds.
func TestBitmapSetGetBit(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("SETBIT", "k", "7", "1"), 0},
			{cmd("SETBIT", "k", "7", "1"), 1},
			{cmd("SETBIT", "k", "7", "0"), 1},
			{cmd("SETBIT", "k", "0", "1"), 0},
			{cmd("SETBIT", "k", "17", "1"), 0},
			{cmd("GET", "k"), "\x80\x00\x40"},
			{cmd("GETBIT", "k", "0"), 1},
			{cmd("GETBIT", "k", "1"), 0},
			{cmd("GETBIT", "k", "17"), 1},
			{cmd("GETBIT", "k", "4294967295"), 0},
			{cmd("GETBIT", "nokey", "3"), 0},
			{cmd("EXISTS", "nokey"), 0},
			// Offsets: an integer, not negative, its byte below 512 MiB.
			{cmd("SETBIT", "k", "-1", "1"), errText(errBitOffset)},
			{cmd("SETBIT", "k", "4294967296", "1"), errText(errBitOffset)},
			{cmd("SETBIT", "k", "1.5", "1"), errText(errBitOffset)},
			{cmd("SETBIT", "k", "01", "1"), errText(errBitOffset)},
			{cmd("SETBIT", "k", "#1", "1"), errText(errBitOffset)},
			{cmd("GETBIT", "k", "4294967296"), errText(errBitOffset)},
			{cmd("GETBIT", "k", "x"), errText(errBitOffset)},
			// The bit: 0 or 1, checked after the offset, before the type.
			{cmd("SETBIT", "k", "1", "2"), errText(errBitValue)},
			{cmd("SETBIT", "k", "1", "-1"), errText(errBitValue)},
			{cmd("SETBIT", "k", "1", "x"), errText(errBitValue)},
			{cmd("SETBIT", "k", "x", "x"), errText(errBitOffset)},
			{cmd("RPUSH", "l", "a"), 1},
			{cmd("SETBIT", "l", "1", "1"), errText(wrongType)},
			{cmd("SETBIT", "l", "1", "2"), errText(errBitValue)},
			{cmd("GETBIT", "l", "1"), errText(wrongType)},
			{cmd("GETBIT", "l", "x"), errText(errBitOffset)},
			{cmd("SETBIT", "k"), errText("ERR wrong number of arguments for 'setbit' command")},
			{cmd("GETBIT", "k", "1", "2"), errText("ERR wrong number of arguments for 'getbit' command")},
			// A bitmap is a string: the string commands work on it, and
			// SETBIT on a string SET built; the TTL stays.
			{cmd("TYPE", "k"), "string"},
			{cmd("STRLEN", "k"), 3},
			{cmd("APPEND", "k", "A"), 4},
			{cmd("GETRANGE", "k", "2", "3"), "\x40A"},
			{cmd("SETRANGE", "k", "1", "\xff"), 4},
			{cmd("GETBIT", "k", "15"), 1},
			{cmd("SET", "s", "a", "EX", "100"), ok},
			{cmd("SETBIT", "s", "6", "1"), 0},
			{cmd("GET", "s"), "c"},
			{cmd("TTL", "s"), between(90, 100)},
			{cmd("SETBIT", "s", "23", "1"), 0},
			{cmd("GET", "s"), "c\x00\x01"},
			{cmd("SETBIT", "big", "400", "1"), 0},
			{cmd("OBJECT", "ENCODING", "big"), "raw"},
			// Redis holds a string a write changed in place raw, however
			// short; a new value (SET, INCR) is int or embstr again.
			{cmd("OBJECT", "ENCODING", "s"), "raw"},
			{cmd("SET", "e", "12"), ok},
			{cmd("OBJECT", "ENCODING", "e"), "int"},
			{cmd("BITFIELD", "e", "SET", "u1", "6", "1"), []any{int64(0)}},
			{cmd("OBJECT", "ENCODING", "e"), "raw"},
			{cmd("EXPIRE", "e", "100"), 1},
			{cmd("COPY", "e", "e2"), 1},
			{cmd("OBJECT", "ENCODING", "e2"), "raw"},
			{cmd("RENAME", "e2", "e3"), ok},
			{cmd("OBJECT", "ENCODING", "e3"), "raw"},
			{cmd("INCR", "e"), 33},
			{cmd("OBJECT", "ENCODING", "e"), "int"},
			{cmd("BITOP", "OR", "o", "e", "nokey"), 2},
			{cmd("OBJECT", "ENCODING", "o"), "raw"},
			{cmd("SET", "o", "x"), ok},
			{cmd("OBJECT", "ENCODING", "o"), "embstr"},
			{cmd("APPEND", "a", "x"), 1},
			{cmd("OBJECT", "ENCODING", "a"), "embstr"},
			{cmd("APPEND", "a", "y"), 2},
			{cmd("OBJECT", "ENCODING", "a"), "raw"},
			{cmd("SETRANGE", "r", "0", "1"), 1},
			{cmd("OBJECT", "ENCODING", "r"), "raw"},
			{cmd("INCRBYFLOAT", "r", "1.5"), "2.5"},
			{cmd("OBJECT", "ENCODING", "r"), "embstr"},
			{cmd("SET", "n", "10"), ok},
			{cmd("SETBIT", "n", "6", "1"), 0},
			{cmd("INCR", "n"), 31},
			{cmd("SETBIT", "n2", "2", "1"), 0},
			{cmd("GET", "n2"), " "},
			{cmd("INCR", "n2"), errText("ERR value is not an integer or out of range")},
		})
	})
}

// TestBitmapCount: BITCOUNT with BYTE and BIT ranges, negative indexes,
// and Redis 7.0's order: a missing key counts 0 before its range is read.
func TestBitmapCount(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("SET", "s", "foobar"), ok},
			{cmd("BITCOUNT", "s"), 26},
			{cmd("BITCOUNT", "s", "0", "0"), 4},
			{cmd("BITCOUNT", "s", "1", "1"), 6},
			{cmd("BITCOUNT", "s", "1", "1", "byte"), 6},
			{cmd("BITCOUNT", "s", "5", "30", "BIT"), 17},
			{cmd("BITCOUNT", "s", "-1", "-1", "bit"), 0},
			{cmd("BITCOUNT", "s", "-2", "-1", "bit"), 1},
			{cmd("BITCOUNT", "s", "0", "-1", "BIT"), 26},
			{cmd("BITCOUNT", "s", "3", "2"), 0},
			{cmd("BITCOUNT", "s", "-100", "100"), 26},
			// Both negative, start past end: 0 before clamping.
			{cmd("BITCOUNT", "s", "-100", "-200"), 0},
			{cmd("BITCOUNT", "s", "-2", "-100"), 0},
			{cmd("BITCOUNT", "s", "0", "-1", "bits"), errText("ERR syntax error")},
			{cmd("BITCOUNT", "s", "0"), errText("ERR syntax error")},
			{cmd("BITCOUNT", "s", "0", "1", "bit", "x"), errText("ERR syntax error")},
			{cmd("BITCOUNT", "s", "a", "1"), errText("ERR value is not an integer or out of range")},
			{cmd("BITCOUNT", "s", "0", "a"), errText("ERR value is not an integer or out of range")},
			{cmd("BITCOUNT", "nokey"), 0},
			{cmd("BITCOUNT", "nokey", "a", "b"), 0},
			{cmd("BITCOUNT", "nokey", "0"), 0},
			{cmd("SET", "e", ""), ok},
			{cmd("BITCOUNT", "e"), 0},
			{cmd("BITCOUNT", "e", "0", "-1", "bit"), 0},
			{cmd("RPUSH", "l", "a"), 1},
			{cmd("BITCOUNT", "l", "a"), errText(wrongType)},
			{cmd("BITCOUNT"), errText("ERR wrong number of arguments for 'bitcount' command")},
		})
	})
}

// TestBitmapPos: BITPOS's ranges, the clear bit past the end when no end
// was given, and its order of checks: the bit first, then the key.
func TestBitmapPos(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("SET", "s", "\x00\xff\xf0"), ok},
			{cmd("BITPOS", "s", "1"), 8},
			{cmd("BITPOS", "s", "0"), 0},
			{cmd("BITPOS", "s", "1", "2"), 16},
			{cmd("BITPOS", "s", "0", "1"), 20},
			{cmd("BITPOS", "s", "1", "7", "15", "bit"), 8},
			{cmd("BITPOS", "s", "0", "7", "15", "BIT"), 7},
			{cmd("BITPOS", "s", "0", "9", "15", "BIT"), -1},
			{cmd("BITPOS", "s", "1", "17", "-3", "bit"), 17},
			{cmd("BITPOS", "s", "1", "-100", "-200"), -1},
			{cmd("BITPOS", "s", "1", "-1", "-200"), -1},
			{cmd("BITPOS", "s", "0", "-100", "-200"), 0},
			{cmd("BITPOS", "s", "1", "3"), -1},
			{cmd("BITPOS", "s", "0", "1", "1"), -1},
			{cmd("SET", "ff", "\xff\xff"), ok},
			{cmd("BITPOS", "ff", "0"), 16},
			{cmd("BITPOS", "ff", "0", "1"), 16},
			{cmd("BITPOS", "ff", "0", "0", "-1"), -1},
			{cmd("BITPOS", "ff", "0", "3", "-1", "bit"), -1},
			{cmd("BITPOS", "ff", "1", "3", "-1", "bit"), 3},
			{cmd("SET", "e", ""), ok},
			{cmd("BITPOS", "e", "0"), -1},
			{cmd("BITPOS", "e", "1"), -1},
			{cmd("BITPOS", "nokey", "0"), 0},
			{cmd("BITPOS", "nokey", "1"), -1},
			{cmd("BITPOS", "nokey", "1", "a"), -1},
			{cmd("BITPOS", "nokey", "2"), errText("ERR The bit argument must be 1 or 0.")},
			{cmd("BITPOS", "s", "2"), errText("ERR The bit argument must be 1 or 0.")},
			{cmd("BITPOS", "s", "x"), errText("ERR value is not an integer or out of range")},
			{cmd("BITPOS", "s", "1", "7", "15", "bot"), errText("ERR syntax error")},
			{cmd("BITPOS", "s", "1", "a", "15", "bot"), errText("ERR value is not an integer or out of range")},
			// The unit is read before the end.
			{cmd("BITPOS", "s", "1", "7", "a", "bot"), errText("ERR syntax error")},
			{cmd("BITPOS", "s", "1", "7", "a", "bit"), errText("ERR value is not an integer or out of range")},
			{cmd("BITPOS", "s", "1", "0", "1", "bit", "x"), errText("ERR syntax error")},
			{cmd("RPUSH", "l", "a"), 1},
			{cmd("BITPOS", "l", "1"), errText(wrongType)},
			{cmd("BITPOS", "l", "3"), errText("ERR The bit argument must be 1 or 0.")},
		})
	})
}

// TestBitmapOp: BITOP's operations, padding, missing sources, NOT's single
// source, and its result: a string without TTL, or no key when empty.
func TestBitmapOp(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("SET", "a", "\x0f\xf0\xaa"), ok},
			{cmd("SET", "b", "\xff\x0f"), ok},
			{cmd("BITOP", "AND", "d", "a", "b"), 3},
			{cmd("GET", "d"), "\x0f\x00\x00"},
			{cmd("BITOP", "or", "d", "a", "b", "nokey"), 3},
			{cmd("GET", "d"), "\xff\xff\xaa"},
			{cmd("BITOP", "Xor", "d", "a", "b"), 3},
			{cmd("GET", "d"), "\xf0\xff\xaa"},
			{cmd("BITOP", "AND", "d", "a", "nokey"), 3},
			{cmd("GET", "d"), "\x00\x00\x00"},
			{cmd("BITOP", "NOT", "d", "a"), 3},
			{cmd("GET", "d"), "\xf0\x0f\x55"},
			{cmd("BITOP", "NOT", "a", "a"), 3},
			{cmd("GET", "a"), "\xf0\x0f\x55"},
			{cmd("SET", "t", "x", "EX", "100"), ok},
			{cmd("BITOP", "OR", "t", "b"), 2},
			{cmd("TTL", "t"), -1},
			{cmd("RPUSH", "l", "x"), 1},
			{cmd("BITOP", "OR", "l", "b"), 2},
			{cmd("TYPE", "l"), "string"},
			{cmd("BITOP", "AND", "d", "nokey", "nokey2"), 0},
			{cmd("EXISTS", "d"), 0},
			{cmd("BITOP", "AND", "d", "nokey"), 0},
			{cmd("SET", "e", ""), ok},
			{cmd("BITOP", "OR", "d", "e"), 0},
			{cmd("EXISTS", "d"), 0},
			{cmd("BITOP", "NOT", "d", "a", "b"), errText("ERR BITOP NOT must be called with a single source key.")},
			{cmd("BITOP", "NAND", "d", "a"), errText("ERR syntax error")},
			{cmd("BITOP", "NAND", "d", "a", "b"), errText("ERR syntax error")},
			{cmd("RPUSH", "l2", "x"), 1},
			{cmd("BITOP", "AND", "d", "a", "l2"), errText(wrongType)},
			{cmd("BITOP", "AND", "l2", "a"), 3},
			{cmd("BITOP", "AND", "d"), errText("ERR wrong number of arguments for 'bitop' command")},
		})
	})
}

// TestBitmapField: BITFIELD's types and offsets ("#n"), SET, INCRBY and
// GET, the three OVERFLOW modes at the edges of i64 and u63, the growth a
// refused write still makes, and BITFIELD_RO.
func TestBitmapField(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		a := func(v ...any) []any { return v }
		run(t, c, []step{
			{cmd("BITFIELD", "bf", "SET", "i8", "0", "-100"), a(0)},
			{cmd("BITFIELD", "bf", "GET", "i8", "0", "GET", "u8", "0", "GET", "u4", "4", "get", "i4", "#1"), a(-100, 156, 12, -4)},
			{cmd("BITFIELD", "bf", "INCRBY", "i8", "0", "-100"), a(56)},
			{cmd("BITFIELD", "bf", "OVERFLOW", "SAT", "INCRBY", "i8", "0", "-200", "INCRBY", "i8", "0", "1000"), a(-128, 127)},
			{cmd("BITFIELD", "bf", "OVERFLOW", "FAIL", "INCRBY", "i8", "0", "1", "INCRBY", "i8", "0", "-1"), a(nil, 126)},
			{cmd("BITFIELD", "bf", "overflow", "wrap", "incrby", "u8", "0", "300"), a(170)},
			{cmd("BITFIELD", "bf", "SET", "u63", "#3", "-1", "GET", "u63", "#3", "GET", "i64", "#3"), a(0, int64(math.MaxInt64), -16)},
			{cmd("BITFIELD", "bf", "SET", "i64", "0", "9223372036854775807", "INCRBY", "i64", "0", "1"), a(int64(-6196953087261802496), math.MinInt64)},
			{cmd("BITFIELD", "bf", "OVERFLOW", "SAT", "INCRBY", "i64", "0", "-1", "INCRBY", "i64", "0", "-1"), a(math.MinInt64, math.MinInt64)},
			{cmd("BITFIELD", "bf", "OVERFLOW", "SAT", "INCRBY", "u63", "0", "9223372036854775807"), a(int64(math.MaxInt64))},
			{cmd("BITFIELD", "bf", "SET", "u1", "0", "2", "SET", "u1", "1", "-1", "OVERFLOW", "SAT", "SET", "u1", "2", "2", "SET", "u1", "3", "-1", "SET", "i1", "4", "1", "SET", "i1", "5", "-2"), a(1, 1, 1, 1, -1, -1)},
			{cmd("BITFIELD", "bf", "OVERFLOW", "SAT", "SET", "i8", "0", "-1000", "SET", "u8", "8", "-5"), a(119, 255)},
			{cmd("STRLEN", "bf"), 32},
			// A refused write still grows the string to hold its field.
			{cmd("BITFIELD", "bf", "OVERFLOW", "FAIL", "SET", "u2", "1000", "5"), a(nil)},
			{cmd("STRLEN", "bf"), 126},
			{cmd("BITFIELD", "nk", "OVERFLOW", "FAIL", "SET", "u2", "0", "9"), a(nil)},
			{cmd("GET", "nk"), "\x00"},
			// Reads alone leave a missing key missing.
			{cmd("BITFIELD", "nokey", "GET", "u8", "0", "GET", "i64", "#100"), a(0, 0)},
			{cmd("BITFIELD", "nokey"), a()},
			{cmd("EXISTS", "nokey"), 0},
			// Types and offsets.
			{cmd("BITFIELD", "bf", "GET", "u64", "0"), errText(errBitfieldTy)},
			{cmd("BITFIELD", "bf", "GET", "i65", "0"), errText(errBitfieldTy)},
			{cmd("BITFIELD", "bf", "GET", "I8", "0"), errText(errBitfieldTy)},
			{cmd("BITFIELD", "bf", "GET", "i0", "0"), errText(errBitfieldTy)},
			{cmd("BITFIELD", "bf", "GET", "i+8", "0"), errText(errBitfieldTy)},
			{cmd("BITFIELD", "bf", "GET", "", "0"), errText(errBitfieldTy)},
			{cmd("BITFIELD", "bf", "GET", "i8", "-1"), errText(errBitOffset)},
			{cmd("BITFIELD", "bf", "GET", "i8", "#-1"), errText(errBitOffset)},
			{cmd("BITFIELD", "bf", "GET", "i8", "#536870912"), errText(errBitOffset)},
			{cmd("BITFIELD", "bf", "GET", "i8", "#536870911"), a(0)},
			{cmd("BITFIELD", "bf", "GET", "i8", "4294967295"), a(0)},
			{cmd("BITFIELD", "bf", "GET", "i8", "4294967296"), errText(errBitOffset)},
			{cmd("BITFIELD", "bf", "GET", "i8", "##1"), errText(errBitOffset)},
			// "#n" wraps in Redis's multiplication: 2^61 fields of 64
			// bits wrap to 0, one of 8 bits is past the bound.
			{cmd("BITFIELD", "bf", "GET", "i64", "#288230376151711744"), a(int64(-9151314442816847874))},
			{cmd("BITFIELD", "bf", "GET", "i8", "#9223372036854775807"), errText(errBitOffset)},
			{cmd("BITFIELD", "bf", "OVERFLOW", "what", "SET", "i8", "0", "1"), errText("ERR Invalid OVERFLOW type specified")},
			{cmd("BITFIELD", "bf", "OVERFLOW"), errText("ERR syntax error")},
			{cmd("BITFIELD", "bf", "GET", "i8"), errText("ERR syntax error")},
			{cmd("BITFIELD", "bf", "SET", "i8", "0"), errText("ERR syntax error")},
			{cmd("BITFIELD", "bf", "foo"), errText("ERR syntax error")},
			{cmd("BITFIELD", "bf", "SET", "i8", "0", "abc"), errText("ERR value is not an integer or out of range")},
			{cmd("BITFIELD", "bf", "GET", "x8", "0", "SET", "i8", "0", "abc"), errText(errBitfieldTy)},
			{cmd("BITFIELD_RO", "bf", "GET", "i8", "0"), a(-128)},
			{cmd("BITFIELD_RO", "bf", "SET", "i8", "0", "1"), errText("ERR BITFIELD_RO only supports the GET subcommand")},
			{cmd("BITFIELD_RO", "bf", "INCRBY", "i8", "0", "1", "GET", "x", "0"), errText(errBitfieldTy)},
			{cmd("BITFIELD_RO", "bf", "GET", "i8", "0", "foo"), errText("ERR syntax error")},
			{cmd("BITFIELD_RO", "nokey", "GET", "i8", "0"), a(0)},
			{cmd("BITFIELD_RO", "bf"), a()},
			{cmd("RPUSH", "l", "a"), 1},
			{cmd("BITFIELD_RO", "l", "GET", "i8", "0"), errText(wrongType)},
			{cmd("BITFIELD", "l", "GET", "i8", "0"), errText(wrongType)},
			{cmd("BITFIELD", "l", "SET", "i8", "0", "1"), errText(wrongType)},
			{cmd("BITFIELD_RO", "l", "SET", "i8", "0", "1"), errText("ERR BITFIELD_RO only supports the GET subcommand")},
			{cmd("BITFIELD", "l", "GET", "i8", "x"), errText(errBitOffset)},
			{cmd("BITFIELD"), errText("ERR wrong number of arguments for 'bitfield' command")},
		})
	})
}

// TestBitmapNotifications: SETBIT and BITFIELD's setbit event comes when
// a bit changed or the string grew (a BITFIELD refused by OVERFLOW FAIL
// grows it silently), BITOP's set or del, as Redis 7.0 sends them.
func TestBitmapNotifications(t *testing.T) {
	t.Parallel()
	script := [][]any{
		{"SETBIT", "k", "7", "0"}, {"SETBIT", "k", "7", "0"}, {"SETBIT", "k", "20", "0"}, {"SETBIT", "k", "20", "1"},
		{"BITFIELD", "k", "SET", "u2", "0", "0"}, {"BITFIELD", "k", "SET", "u2", "0", "1"}, {"BITFIELD", "k", "SET", "u2", "0", "1"},
		{"BITFIELD", "k", "INCRBY", "u2", "0", "0"}, {"BITFIELD", "k", "SET", "u2", "100", "0"},
		{"BITFIELD", "k", "OVERFLOW", "FAIL", "SET", "u2", "200", "9"}, {"BITFIELD", "k", "GET", "u2", "0"},
		{"BITFIELD", "nk", "OVERFLOW", "FAIL", "SET", "u2", "200", "9"}, {"BITFIELD", "nk2", "SET", "u2", "0", "0"},
		{"BITOP", "AND", "d", "k", "nk"}, {"BITOP", "AND", "d", "nokey"}, {"BITOP", "OR", "d2", "nokey"},
		{"RPUSH", "l", "x"}, {"BITOP", "OR", "l", "k"}, {"BITFIELD_RO", "k", "GET", "u8", "0"},
	}
	redisP, shale := startRedis(t), startShale(t, shaleOpts{})
	want := scriptNotifications(t, redisP.Client, "KEA"+"n", script)
	got := scriptNotifications(t, shale.Client, "KEA"+"n", script)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("notifications differ from redis-server's:\n%s", diffLines(want, got))
	}
}

// scriptNotifications runs script on c with classes of notifications on,
// and returns the messages a __key*__:* subscriber got, one line each.
func scriptNotifications(t *testing.T, c *redis.Client, classes string, script [][]any) []string {
	t.Helper()
	ctx := ctxT(t)
	if err := c.ConfigSet(ctx, "notify-keyspace-events", classes).Err(); err != nil {
		t.Fatal(err)
	}
	ps := c.PSubscribe(ctx, "__key*__:*")
	defer ps.Close()
	if _, err := ps.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	for _, args := range append(script, []any{"SET", "zz-end", "1"}) {
		if err := c.Do(ctx, args...).Err(); err != nil && err != redis.Nil {
			t.Fatalf("%v: %v", args, err)
		}
	}
	var out []string
	for {
		msg, err := ps.ReceiveMessage(ctx)
		if err != nil {
			t.Fatalf("after %d messages: %v", len(out), err)
		}
		if msg.Payload == "zz-end" || msg.Channel == "__keyspace@0__:zz-end" {
			return out
		}
		out = append(out, msg.Channel+" "+msg.Payload)
	}
}

// TestBitmapDifferential runs random sequences of bit commands on both
// servers, compares every reply, and the values bit for bit with GET.
func TestBitmapDifferential(t *testing.T) {
	t.Parallel()
	shale := startShale(t, shaleOpts{})
	real := startRedis(t)
	seed := uint64(time.Now().UnixNano())
	r := rand.New(rand.NewPCG(20, seed))
	keys := []string{"a", "b", "c"}
	key := func() string { return keys[r.IntN(len(keys))] }
	off := func() string {
		switch r.IntN(10) {
		case 0:
			return strconv.Itoa(r.IntN(4000)) // now and then, a longer value
		case 1:
			// Past Shale's 4 KiB threshold (32768 bits): a fragmented
			// value, converted from a whole one or built fragmented.
			return strconv.Itoa(32000 + r.IntN(40000))
		}
		return strconv.Itoa(r.IntN(200))
	}
	idx := func() string { return strconv.Itoa(r.IntN(60) - 30) }
	unit := func() []any {
		switch r.IntN(3) {
		case 0:
			return nil
		case 1:
			return []any{"BYTE"}
		}
		return []any{"BIT"}
	}
	ftype := func() string {
		if r.IntN(2) == 0 {
			return "i" + strconv.Itoa(1+r.IntN(64))
		}
		return "u" + strconv.Itoa(1+r.IntN(63))
	}
	fval := func() string {
		switch r.IntN(4) {
		case 0:
			return strconv.FormatInt(int64(r.Uint64()), 10)
		case 1:
			return strconv.Itoa(r.IntN(600) - 300)
		}
		return strconv.FormatInt(r.Int64N(1<<40)-1<<39, 10)
	}
	ops := []string{"AND", "OR", "XOR"}
	deadline := time.Now().Add(3 * time.Second)
	for i := 0; i < 3000 && time.Now().Before(deadline); i++ {
		var call []any
		switch r.IntN(9) {
		case 0, 1:
			call = cmd("SETBIT", key(), off(), r.IntN(2))
		case 2:
			call = cmd("GETBIT", key(), off())
		case 3:
			call = append(cmd("BITCOUNT", key(), idx(), idx()), unit()...)
		case 4:
			call = cmd("BITPOS", key(), r.IntN(2))
			switch n := r.IntN(3); {
			case n >= 1:
				call = append(call, idx())
				if n == 2 {
					call = append(append(call, idx()), unit()...)
				}
			}
		case 5:
			if r.IntN(4) == 0 {
				call = cmd("BITOP", "NOT", key(), key())
			} else {
				call = cmd("BITOP", ops[r.IntN(3)], key(), key(), key())
			}
		case 6, 7:
			call = cmd("BITFIELD", key())
			for n := 1 + r.IntN(4); n > 0; n-- {
				if r.IntN(3) == 0 {
					call = append(call, "OVERFLOW", []string{"WRAP", "SAT", "FAIL"}[r.IntN(3)])
				}
				o := off()
				if r.IntN(4) == 0 {
					o = "#" + strconv.Itoa(r.IntN(20))
				}
				switch r.IntN(3) {
				case 0:
					call = append(call, "GET", ftype(), o)
				case 1:
					call = append(call, "SET", ftype(), o, fval())
				default:
					call = append(call, "INCRBY", ftype(), o, fval())
				}
			}
		default:
			call = cmd("SET", key(), fmt.Sprint(r.Uint64()))
		}
		for _, c := range [][]any{call, cmd("MGET", "a", "b", "c"), cmd("STRLEN", key())} {
			want, werr := real.Client.Do(ctxT(t), c...).Result()
			got, gerr := shale.Client.Do(ctxT(t), c...).Result()
			if fmt.Sprint(werr) != fmt.Sprint(gerr) || !reflect.DeepEqual(want, got) {
				t.Fatalf("seed %d, step %d: %v:\n\tredis: %q %v\n\tshale: %q %v", seed, i, c, want, werr, got, gerr)
			}
		}
	}
}

// TestBitmapBig: a bitmap past Shale's 4 KiB threshold, which it keeps in
// fragments, behaves as Redis's string: built by SETBIT on a fresh key or
// on a string SET built (converted), read by every string command, and
// written whole again by the others. Bit 2^32-1 makes a 512 MiB string.
func TestBitmapBig(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		a := func(v ...any) []any { return v }
		run(t, c, []step{
			{cmd("SETBIT", "huge", "4294967295", "1"), 0},
			{cmd("SETBIT", "huge", "4294967295", "1"), 1},
			{cmd("SETBIT", "huge", "7", "1"), 0},
			{cmd("STRLEN", "huge"), 1 << 29},
			{cmd("GETBIT", "huge", "4294967295"), 1},
			{cmd("GETBIT", "huge", "4294967294"), 0},
			{cmd("BITCOUNT", "huge", "-1", "-1"), 1},
			{cmd("BITCOUNT", "huge", "0", "0"), 1},
			{cmd("BITCOUNT", "huge", "4294967200", "-1", "BIT"), 1},
			{cmd("BITPOS", "huge", "1", "1"), 4294967295},
			{cmd("BITPOS", "huge", "1", "-4096"), 4294967295},
			{cmd("BITPOS", "huge", "0", "-1"), 4294967288},
			{cmd("BITFIELD", "huge", "GET", "u8", "#536870911", "SET", "i16", "#268435454", "-2", "INCRBY", "u4", "4294967288", "3"), a(1, 0, 3)},
			{cmd("GETRANGE", "huge", "-3", "-1"), "\xfe\x00\x31"},
			{cmd("TYPE", "huge"), "string"},
			{cmd("OBJECT", "ENCODING", "huge"), "raw"},
			{cmd("EXPIRE", "huge", "100"), 1},
			{cmd("SETBIT", "huge", "8", "1"), 0},
			{cmd("TTL", "huge"), between(90, 100)},
			{cmd("GETRANGE", "huge", "0", "1"), "\x01\x80"},
			{cmd("DEL", "huge"), 1},
			{cmd("EXISTS", "huge"), 0},
			// A string SET built, grown past the threshold by SETBIT.
			{cmd("SET", "s", "hello"), ok},
			{cmd("SETBIT", "s", "80000", "1"), 0},
			{cmd("STRLEN", "s"), 10001},
			{cmd("GETRANGE", "s", "0", "5"), "hello\x00"},
			{cmd("BITCOUNT", "s"), 22},
			{cmd("BITOP", "NOT", "n", "s"), 10001},
			{cmd("BITCOUNT", "n"), 10001*8 - 22},
			{cmd("BITOP", "AND", "n", "n", "s"), 10001},
			{cmd("BITCOUNT", "n"), 0},
			{cmd("GETRANGE", "n", "9998", "-1"), "\x00\x00\x00"},
			{cmd("COPY", "s", "c"), 1},
			{cmd("SETBIT", "c", "80000", "0"), 1},
			{cmd("BITCOUNT", "c"), 21},
			{cmd("BITCOUNT", "s"), 22},
			{cmd("RENAME", "c", "r"), ok},
			{cmd("BITCOUNT", "r"), 21},
			{cmd("GETRANGE", "r", "0", "4"), "hello"},
			{cmd("MOVE", "r", "1"), 1},
			{cmd("SETBIT", "s", "0", "1"), 0},
			{cmd("GETRANGE", "s", "0", "1"), "\xe8e"},
			{cmd("MGET", "s", "n"), a(helloBitmap("\xe8ello"), string(make([]byte, 10001)))},
			{cmd("LCS", "s", "s", "LEN"), 10001},
			// Writes of another kind store it whole again.
			{cmd("APPEND", "s", "!"), 10002},
			{cmd("GETRANGE", "s", "-2", "-1"), "\x80!"},
			{cmd("SETRANGE", "s", "10000", "ab"), 10002},
			{cmd("GETRANGE", "s", "-3", "-1"), "\x00ab"},
			{cmd("SETBIT", "s", "80000", "1"), 0},
			{cmd("GETRANGE", "s", "-3", "-1"), "\x00\xe1b"},
			{cmd("SETBIT", "num", "40000", "1"), 0},
			{cmd("SET", "num", "41", "KEEPTTL"), ok},
			{cmd("INCR", "num"), 42},
			{cmd("GETDEL", "s"), helloBitmap("\xe8ello")[:10000] + "\xe1b"},
			{cmd("BITFIELD", "bf", "SET", "u8", "#5000", "255"), a(0)},
			{cmd("GETEX", "bf", "PX", "100000"), string(make([]byte, 5000)) + "\xff"},
			{cmd("PTTL", "bf"), between(90000, 100000)},
		})
	})
}

// helloBitmap is prefix padded with zeros to 10001 bytes, with bit 80000
// set: the string TestBitmapBig builds.
func helloBitmap(prefix string) string {
	v := make([]byte, 10001)
	copy(v, prefix)
	v[10000] = 0x80
	return string(v)
}

// TestBitmapCompaction: the fragments of a bitmap that was deleted,
// overwritten or stored whole again are garbage to the compaction filters,
// and those of a live one survive, across a restart too.
func TestBitmapCompaction(t *testing.T) {
	t.Parallel()
	p := startShale(t, shaleOpts{Config: debugConfig})
	c := p.Client
	run(t, c, []step{
		{cmd("SETBIT", "del", "4294967295", "1"), 0},
		{cmd("SETBIT", "del", "0", "1"), 0},
		{cmd("SETBIT", "over", "100000", "1"), 0},
		{cmd("SETBIT", "app", "100000", "1"), 0},
		{cmd("SETBIT", "live", "100000", "1"), 0},
		{cmd("SETBIT", "live", "1", "1"), 0},
		{cmd("SETBIT", "exp", "100000", "1"), 0},
		{cmd("DEBUG", "CF-RECORDS", "subkey"), 7},
		// A fragment a write leaves all zeros is deleted, not written.
		{cmd("SETBIT", "zero", "100000", "1"), 0},
		{cmd("DEBUG", "CF-RECORDS", "subkey"), 8},
		{cmd("SETBIT", "zero", "100000", "0"), 1},
		{cmd("DEBUG", "CF-RECORDS", "subkey"), 7},
		{cmd("STRLEN", "zero"), 12501},
		{cmd("DEL", "zero"), 1},
		{cmd("DEL", "del"), 1},
		{cmd("SET", "over", "x"), ok},
		{cmd("APPEND", "app", "x"), 12502},
		{cmd("PEXPIRE", "exp", "1"), 1},
	})
	// Active expiry removes exp; the filters spare it for
	// compaction.ExpiryGraceMs after that.
	pollUntil(t, 5*time.Second, func() (bool, string) {
		n := doInt(t, c, "DBSIZE")
		return n == 3, fmt.Sprintf("DBSIZE = %d, want 3 (over, app, live) once exp is reaped", n)
	})
	run(t, c, []step{
		{cmd("COMPACT"), ok},
		{cmd("DEBUG", "CF-RECORDS", "subkey"), 2},
		{cmd("BITCOUNT", "live"), 2},
	})
	p.Stop()
	p2 := startShale(t, shaleOpts{Config: debugConfig, Dir: p.Dir})
	run(t, p2.Client, []step{
		{cmd("BITCOUNT", "live"), 2},
		{cmd("GETBIT", "live", "100000"), 1},
		{cmd("STRLEN", "app"), 12502},
		{cmd("COMPACT"), ok},
		{cmd("DEBUG", "CF-RECORDS", "subkey"), 2},
	})
}
