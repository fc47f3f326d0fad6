package tests

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

const (
	errNotHLL     = "WRONGTYPE Key is not a valid HyperLogLog string value."
	errCorruptHLL = "INVALIDOBJ Corrupted HLL object detected"
)

// hllHeader is the 16-byte header of a HyperLogLog value: "HYLL", the
// encoding (0 dense, 1 sparse), three zero bytes, and the cached
// cardinality, little-endian, its top bit set when stale.
func hllHeader(enc byte, card uint64, stale bool) string {
	h := []byte{'H', 'Y', 'L', 'L', enc, 0, 0, 0}
	for i := 0; i < 8; i++ {
		h = append(h, byte(card>>(8*i)))
	}
	if stale {
		h[15] |= 0x80
	}
	return string(h)
}

// TestHLLCommands: PFADD, PFCOUNT, PFMERGE and PFDEBUG's replies and the
// bytes they leave, which are Redis's own; their type checks and errors.
func TestHLLCommands(t *testing.T) {
	t.Parallel()
	opts := backendOpts{RedisArgs: []string{"--enable-debug-command", "yes"}, Shale: shaleOpts{Config: debugConfig}}
	xyz := hllHeader(1, 0, true) + "a\x84\x80X\xcd\x88E\xa0\x84\x08"
	empty := hllHeader(1, 0, true) + "\x7f\xff"
	forEachBackendOpts(t, opts, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("PFADD", "h", "x", "y", "z"), 1},
			{cmd("GET", "h"), xyz},
			{cmd("TYPE", "h"), "string"},
			{cmd("PFADD", "h", "x"), 0},
			{cmd("PFADD", "h"), 0},
			{cmd("PFCOUNT", "h"), 3},
			// PFCOUNT of one key stores the count in the value's cache.
			{cmd("GETRANGE", "h", "8", "15"), "\x03\x00\x00\x00\x00\x00\x00\x00"},
			{cmd("PFADD", "h", "w"), 1},
			{cmd("GETRANGE", "h", "15", "15"), "\x80"},
			{cmd("PFCOUNT", "h"), 4},
			// PFADD with no element creates an empty HyperLogLog.
			{cmd("PFADD", "e"), 1},
			{cmd("GET", "e"), empty},
			{cmd("PFCOUNT", "e"), 0},
			{cmd("PFCOUNT", "nokey"), 0},
			{cmd("EXISTS", "nokey"), 0},
			// The union of several keys, missing ones empty; nothing stored.
			{cmd("PFADD", "h2", "a", "b", "x"), 1},
			{cmd("PFCOUNT", "h", "h2", "nokey"), 6},
			{cmd("GETRANGE", "h2", "15", "15"), "\x80"},
			{cmd("PFMERGE", "m", "h", "h2"), ok},
			{cmd("PFCOUNT", "m"), 6},
			{cmd("PFMERGE", "m2"), ok},
			{cmd("GET", "m2"), empty},
			{cmd("PFMERGE", "h2", "h"), ok},
			{cmd("PFCOUNT", "h2"), 6},
			// Expiry survives PFADD, PFCOUNT's cache and PFMERGE.
			{cmd("EXPIRE", "h2", "1000"), 1},
			{cmd("PFADD", "h2", "q"), 1},
			{cmd("PFCOUNT", "h2"), 7},
			{cmd("PFMERGE", "h2", "h"), ok},
			{cmd("TTL", "h2"), between(990, 1000)},
			// Types: a string that is not a HyperLogLog, another type.
			{cmd("SET", "s", "foo"), ok},
			{cmd("PFADD", "s", "a"), errText(errNotHLL)},
			{cmd("PFCOUNT", "s"), errText(errNotHLL)},
			{cmd("PFCOUNT", "h", "s"), errText(errNotHLL)},
			{cmd("PFMERGE", "s", "h"), errText(errNotHLL)},
			{cmd("PFMERGE", "m", "s"), errText(errNotHLL)},
			{cmd("SET", "n", "12345678901234567"), ok},
			{cmd("PFCOUNT", "n"), errText(errNotHLL)},
			{cmd("SET", "v2", hllHeader(2, 0, true)+"\x7f\xff"), ok},
			{cmd("PFADD", "v2", "a"), errText(errNotHLL)},
			{cmd("SET", "d", hllHeader(0, 0, true)+"\x00"), ok}, // dense, too short
			{cmd("PFCOUNT", "d"), errText(errNotHLL)},
			{cmd("SET", "short", "HYLL\x01"), ok},
			{cmd("PFCOUNT", "short"), errText(errNotHLL)},
			{cmd("RPUSH", "l", "a"), 1},
			{cmd("PFADD", "l", "a"), errText(wrongType)},
			{cmd("PFCOUNT", "l"), errText(wrongType)},
			{cmd("PFCOUNT", "h", "l"), errText(wrongType)},
			{cmd("PFMERGE", "l", "h"), errText(wrongType)},
			{cmd("PFMERGE", "m", "l"), errText(wrongType)},
			{cmd("PFDEBUG", "encoding", "l"), errText(wrongType)},
			// Corrupt values: registers that do not add up to 16384.
			{cmd("SET", "c", hllHeader(1, 0, true)+"\x7f\xfe"), ok},
			{cmd("PFCOUNT", "c"), errText(errCorruptHLL)},
			{cmd("PFCOUNT", "c", "h"), errText(errCorruptHLL)},
			{cmd("PFMERGE", "m", "c"), errText(errCorruptHLL)},
			{cmd("PFDEBUG", "todense", "c"), errText(errCorruptHLL)},
			{cmd("PFDEBUG", "getreg", "c"), errText(errCorruptHLL)},
			{cmd("SET", "c", hllHeader(1, 0, true)+"\x7f\xff\x83"), ok}, // a VAL past the end
			{cmd("PFMERGE", "m", "c"), errText(errCorruptHLL)},
			{cmd("PFDEBUG", "todense", "c"), errText(errCorruptHLL)},
			{cmd("PFDEBUG", "decode", "c"), "Z:16384 v:1,4"},
			// A forged dense value whose registers all hold 63: Redis's
			// estimate is LLONG_MIN, its top bit the stale bit.
			{cmd("SET", "f", hllHeader(0, 0, true)+string(bytes.Repeat([]byte{0xff}, 12288))), ok},
			{cmd("PFCOUNT", "f"), int64(-1 << 63)},
			{cmd("PFCOUNT", "f", "nokey"), int64(-1 << 63)},
			// PFDEBUG: the key is checked before the subcommand.
			{cmd("PFDEBUG", "encoding", "h"), "sparse"},
			{cmd("PFDEBUG", "decode", "e"), "Z:16384"},
			{cmd("PFDEBUG", "decode", "h"), "Z:4168 v:2,1 Z:4412 v:1,1 Z:6350 v:3,1 Z:1441 v:2,1 z:9"},
			{cmd("PFDEBUG", "nosuch", "h"), errText("ERR Unknown PFDEBUG subcommand 'nosuch'")},
			{cmd("PFDEBUG", "nosuch", "nokey"), errText("ERR The specified key does not exist")},
			{cmd("PFDEBUG", "getreg", "nokey"), errText("ERR The specified key does not exist")},
			{cmd("PFDEBUG", "todense", "h"), 1},
			{cmd("PFDEBUG", "todense", "h"), 0},
			{cmd("PFDEBUG", "encoding", "h"), "dense"},
			{cmd("PFDEBUG", "decode", "h"), errText("ERR HLL encoding is not sparse")},
			{cmd("STRLEN", "h"), 12304},
			{cmd("PFCOUNT", "h"), 4},
			{cmd("PFDEBUG", "encoding", "h2"), "sparse"},
			{cmd("PFDEBUG", "encoding", "m"), "sparse"},
			{cmd("PFMERGE", "m", "h"), ok}, // a dense source makes the destination dense
			{cmd("PFDEBUG", "encoding", "m"), "dense"},
			{cmd("PFCOUNT", "m"), 6},
			{cmd("PFSELFTEST"), ok},
			// PFCOUNT may write: read-only scripts refuse it, as a write.
			{cmd("EVAL_RO", "return redis.call('pfcount', KEYS[1])", "1", "h"), errPrefix("ERR Write commands are not allowed from read-only scripts.")},
			{cmd("EVAL", "return redis.call('pfcount', KEYS[1])", "1", "h"), 4},
			{cmd("PFADD"), errText("ERR wrong number of arguments for 'pfadd' command")},
			{cmd("PFCOUNT"), errText("ERR wrong number of arguments for 'pfcount' command")},
			{cmd("PFMERGE"), errText("ERR wrong number of arguments for 'pfmerge' command")},
			{cmd("PFDEBUG", "encoding"), errText("ERR wrong number of arguments for 'pfdebug' command")},
			{cmd("PFSELFTEST", "x"), errText("ERR wrong number of arguments for 'pfselftest' command")},
		})
		regs, err := c.Do(ctxT(t), "PFDEBUG", "GETREG", "e").Slice()
		if err != nil || len(regs) != 16384 {
			t.Fatalf("PFDEBUG GETREG: %d registers, %v", len(regs), err)
		}
		run(t, c, []step{{cmd("PFDEBUG", "encoding", "e"), "dense"}}) // GETREG converted it
	})
}

// TestHLLDebugDisabled: PFDEBUG needs the debug switch on Shale, as DEBUG
// does, from a script and in a transaction too (Redis 7.0 lets it run).
func TestHLLDebugDisabled(t *testing.T) {
	t.Parallel()
	p := startShale(t, shaleOpts{})
	run(t, newConn(t, p.Addr), []step{ // one connection: MULTI
		{cmd("PFADD", "h", "a"), 1},
		{cmd("PFDEBUG", "encoding", "h"), errPrefix("ERR DEBUG command not allowed")},
		{cmd("EVAL", "return redis.call('pfdebug', 'encoding', KEYS[1])", "1", "h"), errPrefix("ERR DEBUG command not allowed")},
		{cmd("MULTI"), ok},
		{cmd("PFDEBUG", "encoding", "h"), "QUEUED"}, // the gate is the command's, after AUTH
		{cmd("EXEC"), matchFunc{"<EXEC with PFDEBUG's refusal>", func(got any) string {
			if !strings.Contains(fmt.Sprint(got), "DEBUG command not allowed") {
				return fmt.Sprintf("got %v", got)
			}
			return ""
		}}},
		{cmd("PFSELFTEST"), ok},
	})
}

// TestHLLSparseMaxBytes: hll-sparse-max-bytes decides when a sparse value
// turns dense, so it changes the bytes; CONFIG takes Redis's memory units.
func TestHLLSparseMaxBytes(t *testing.T) {
	t.Parallel()
	opts := backendOpts{RedisArgs: []string{"--enable-debug-command", "yes"}, Shale: shaleOpts{Config: debugConfig}}
	forEachBackendOpts(t, opts, func(t *testing.T, c *redis.Client, b backend) {
		steps := []step{
			{cmd("CONFIG", "GET", "hll-sparse-max-bytes"), []any{"hll-sparse-max-bytes", "3000"}},
			{cmd("CONFIG", "SET", "hll-sparse-max-bytes", "1kb"), ok},
			{cmd("CONFIG", "GET", "hll-sparse-max-bytes"), []any{"hll-sparse-max-bytes", "1024"}},
			{cmd("CONFIG", "SET", "hll-sparse-max-bytes", "-1"), errPrefix("ERR CONFIG SET failed")},
			{cmd("CONFIG", "SET", "hll-sparse-max-bytes", "40"), ok},
		}
		for i := 0; i < 12; i++ {
			steps = append(steps, step{cmd("PFADD", "h", "e"+strconv.Itoa(i)), 1})
		}
		steps = append(steps, step{cmd("PFDEBUG", "encoding", "h"), "dense"},
			step{cmd("PFCOUNT", "h"), 12})
		run(t, c, steps)
	})
}

// hllPair runs the same commands on a real redis-server and on Shale and
// fails on any difference of reply.
type hllPair struct {
	t            *testing.T
	redis, shale *redis.Client
	note         string // what a failure report adds: the value under test
}

func newHLLPair(t *testing.T, redisArgs []string, shale shaleOpts) *hllPair {
	return &hllPair{t: t, redis: startRedis(t, redisArgs...).Client, shale: startShale(t, shale).Client}
}

// do runs args on both servers and returns Redis's reply.
func (p *hllPair) do(args ...any) any {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	want, werr := p.redis.Do(ctx, args...).Result()
	got, gerr := p.shale.Do(ctx, args...).Result()
	if fmt.Sprint(werr) != fmt.Sprint(gerr) || !reflect.DeepEqual(want, got) {
		p.t.Fatalf("%s:\n\tredis: %s\n\tshale: %s\n\t%s", fmtArgs(args), fmtReply(want, werr), fmtReply(got, gerr), p.note)
	}
	return want
}

// pipe runs the commands in one pipeline on both servers and compares the
// replies.
func (p *hllPair) pipe(cmds [][]any) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	replies := func(c *redis.Client) []*redis.Cmd {
		out := make([]*redis.Cmd, len(cmds))
		pl := c.Pipeline()
		for i, a := range cmds {
			out[i] = pl.Do(ctx, a...)
		}
		_, _ = pl.Exec(ctx)
		return out
	}
	want, got := replies(p.redis), replies(p.shale)
	for i := range cmds {
		w, werr := want[i].Result()
		g, gerr := got[i].Result()
		if fmt.Sprint(werr) != fmt.Sprint(gerr) || !reflect.DeepEqual(w, g) {
			p.t.Fatalf("%s:\n\tredis: %s\n\tshale: %s", fmtArgs(cmds[i]), fmtReply(w, werr), fmtReply(g, gerr))
		}
	}
}

// add PFADDs n random elements to key on both servers, in PFADDs of at
// most batch elements, pipelined.
func (p *hllPair) add(rng *rand.Rand, key string, n, batch int) {
	p.t.Helper()
	var cmds [][]any
	for n > 0 {
		k := min(n, batch)
		c := []any{"PFADD", key}
		for range k {
			c = append(c, strconv.FormatUint(rng.Uint64()>>rng.IntN(64), 36))
		}
		cmds = append(cmds, c)
		n -= k
		if len(cmds) == 200 {
			p.pipe(cmds)
			cmds = nil
		}
	}
	p.pipe(cmds)
}

// TestHLLRandomCounts: PFCOUNT of random sets of 1 to 1,000,000 elements
// is Redis's number, and GET shows Redis's bytes, through the sparse
// encoding, its promotion, and the dense one; so are PFMERGE's and the
// union's.
func TestHLLRandomCounts(t *testing.T) {
	t.Parallel()
	p := newHLLPair(t, nil, shaleOpts{})
	rng := rand.New(rand.NewPCG(20, uint64(time.Now().UnixNano())))
	sizes := []int{1, 2, 7, 40, 150, 600, 1500, 3000, 10000, 60000, 250000, 1000000}
	var keys []any
	for i, n := range sizes {
		key := "h" + strconv.Itoa(i)
		keys = append(keys, key)
		// Small sets one element a command (PFADD's 0 or 1 each time),
		// the others in batches.
		batch := 1
		if n > 3000 {
			batch = 1000
		}
		p.add(rng, key, n, batch)
		p.do("GET", key)
		p.do("PFCOUNT", key)
		p.do("GET", key) // with the cached count
		p.do("PFCOUNT", key)
	}
	p.do(append([]any{"PFCOUNT"}, keys...)...)
	for range 10 {
		src := make([]any, 0, 4)
		for range 1 + rng.IntN(4) {
			src = append(src, keys[rng.IntN(len(keys))])
		}
		dst := "m" + strconv.Itoa(rng.IntN(3))
		if rng.IntN(2) == 0 {
			dst = keys[rng.IntN(len(keys))].(string)
		}
		p.do(append([]any{"PFMERGE", dst}, src...)...)
		p.do("GET", dst)
		p.do("PFCOUNT", dst)
		p.do(append([]any{"PFCOUNT"}, src...)...)
	}
}

// TestHLLTransfer: a HyperLogLog moved between Redis and Shale with GET and
// SET keeps working on the other side, byte for byte.
func TestHLLTransfer(t *testing.T) {
	t.Parallel()
	ctx := ctxT(t)
	r, s := startRedis(t).Client, startShale(t, shaleOpts{}).Client
	rng := rand.New(rand.NewPCG(21, uint64(time.Now().UnixNano())))
	for _, n := range []int{5, 500, 5000} {
		for _, dir := range [][2]*redis.Client{{r, s}, {s, r}} {
			from, to := dir[0], dir[1]
			var elems []any
			for range n {
				elems = append(elems, strconv.FormatUint(rng.Uint64(), 16))
			}
			from.Del(ctx, "h")
			from.Do(ctx, append([]any{"PFADD", "h"}, elems[:n/2]...)...)
			v, err := from.Get(ctx, "h").Result()
			if err != nil {
				t.Fatal(err)
			}
			if err := to.Set(ctx, "h", v, 0).Err(); err != nil {
				t.Fatal(err)
			}
			for _, c := range []*redis.Client{from, to} {
				if err := c.Do(ctx, append([]any{"PFADD", "h"}, elems[n/2:]...)...).Err(); err != nil {
					t.Fatal(err)
				}
			}
			a, b := from.PFCount(ctx, "h").Val(), to.PFCount(ctx, "h").Val()
			va, vb := from.Get(ctx, "h").Val(), to.Get(ctx, "h").Val()
			if a != b || va != vb {
				t.Fatalf("n=%d: counts %d and %d; bytes equal: %v", n, a, b, va == vb)
			}
		}
	}
}

// TestHLLCorruptValues: random damage to valid values, sparse and dense,
// gets the same replies and leaves the same bytes on Shale as on Redis:
// INVALIDOBJ or WRONGTYPE where Redis says so, never a crash.
func TestHLLCorruptValues(t *testing.T) {
	t.Parallel()
	p := newHLLPair(t, []string{"--enable-debug-command", "yes"}, shaleOpts{Config: debugConfig})
	rng := rand.New(rand.NewPCG(22, uint64(time.Now().UnixNano())))
	var seeds []string
	for i, n := range []int{0, 3, 30, 300, 2000} {
		key := "seed" + strconv.Itoa(i)
		p.add(rng, key, n, 100)
		p.do("PFADD", key)
		seeds = append(seeds, p.do("GET", key).(string))
	}
	p.do("PFDEBUG", "TODENSE", "seed2")
	seeds = append(seeds, p.do("GET", "seed2").(string))
	deadline := time.Now().Add(3 * time.Second)
	for round := 0; time.Now().Before(deadline); round++ {
		v := []byte(seeds[rng.IntN(len(seeds))])
		for range 1 + rng.IntN(4) {
			switch op := rng.IntN(10); {
			case op < 5 && len(v) > 16: // flip a byte of the registers
				v[16+rng.IntN(len(v)-16)] = byte(rng.UintN(256))
			case op < 7 && len(v) > 16: // cut
				v = v[:16+rng.IntN(len(v)-16)]
			case op < 9: // insert
				i := 16 + rng.IntN(max(len(v)-15, 1))
				i = min(i, len(v))
				v = append(v[:i:i], append([]byte{byte(rng.UintN(256))}, v[i:]...)...)
			default: // the header
				v[rng.IntN(16)] ^= 1 << rng.IntN(8)
			}
		}
		key := "c" + strconv.Itoa(round%4)
		p.note = fmt.Sprintf("value %x", v)
		p.do("SET", key, string(v))
		switch rng.IntN(5) {
		case 0:
			p.do("PFCOUNT", key)
		case 1:
			p.do("PFCOUNT", key, "seed3")
		case 2:
			p.do("PFMERGE", "dst", key, "seed1")
			p.do("GET", "dst")
		case 3:
			p.do("PFDEBUG", "DECODE", key)
			p.do("PFDEBUG", "TODENSE", key)
		default:
			args := []any{"PFADD", key}
			for range 1 + rng.IntN(20) {
				args = append(args, strconv.Itoa(rng.IntN(100000)))
			}
			p.do(args...)
		}
		p.do("GET", key)
	}
}

// TestHLLCountWatch: a PFCOUNT that stores the count it computed
// changes the value: a transaction watching the key fails, as in Redis;
// one that reads the cached count changes nothing.
func TestHLLCountWatch(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		ctx := ctxT(t)
		watcher := newConn(t, b.Addr)
		run(t, c, []step{{cmd("PFADD", "h", "a", "b"), 1}})
		run(t, watcher, []step{{cmd("WATCH", "h"), ok}})
		run(t, c, []step{{cmd("PFCOUNT", "h"), 2}})
		run(t, watcher, []step{{cmd("MULTI"), ok}, {cmd("PING"), "QUEUED"}})
		if got, err := watcher.Do(ctx, "EXEC").Result(); err != redis.Nil {
			t.Fatalf("EXEC after a PFCOUNT that wrote the cache: %v, %v; want nil", got, err)
		}
		run(t, watcher, []step{{cmd("WATCH", "h"), ok}})
		run(t, c, []step{{cmd("PFCOUNT", "h"), 2}, {cmd("PFCOUNT", "h", "nokey"), 2}})
		run(t, watcher, []step{{cmd("MULTI"), ok}, {cmd("PING"), "QUEUED"}, {cmd("EXEC"), []any{"PONG"}}})
	})
}

// TestHLLRegisterIndexOverflow: a sparse value of so many XZERO opcodes
// that their registers pass 2^31, then a VAL: Redis 7.0 counts them in an
// int and writes out of bounds (CVE-2025-32023); Shale, like Redis's fixed
// releases, finds it corrupt. Shale only: the unfixed Redis may crash.
func TestHLLRegisterIndexOverflow(t *testing.T) {
	t.Parallel()
	p := startShale(t, shaleOpts{Config: debugConfig})
	v := hllHeader(1, 0, true) + string(bytes.Repeat([]byte{0x7f, 0xff}, 1<<31/16384+1)) + "\x80"
	run(t, p.Client, []step{
		{cmd("SET", "h", v), ok},
		{cmd("PFCOUNT", "h"), errText(errCorruptHLL)},
		{cmd("PFCOUNT", "h", "nokey"), errText(errCorruptHLL)},
		{cmd("PFMERGE", "m", "h"), errText(errCorruptHLL)},
		{cmd("PFDEBUG", "TODENSE", "h"), errText(errCorruptHLL)},
		{cmd("EXISTS", "m"), 0},
	})
}
