package tests

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestLCS: LCS's replies and errors, Redis's documented examples first.
func TestLCS(t *testing.T) {
	t.Parallel()
	const notStrings = "ERR The specified keys must contain string values"
	const lenAndIdx = "ERR If you want both the length and indexes, please just use IDX."
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("MSET", "key1", "ohmytext", "key2", "mynewtext"), ok},
			{cmd("LCS", "key1", "key2"), "mytext"},
			{cmd("LCS", "key1", "key2", "LEN"), 6},
			{cmd("lcs", "key1", "key2", "idx"), []any{"matches", []any{
				[]any{[]any{4, 7}, []any{5, 8}},
				[]any{[]any{2, 3}, []any{0, 1}},
			}, "len", 6}},
			{cmd("LCS", "key1", "key2", "IDX", "MINMATCHLEN", 4, "WITHMATCHLEN"), []any{"matches", []any{
				[]any{[]any{4, 7}, []any{5, 8}, 4},
			}, "len", 6}},
			// A negative MINMATCHLEN is 0; the last one given counts.
			{cmd("LCS", "key1", "key2", "IDX", "MINMATCHLEN", -5, "WITHMATCHLEN"), []any{"matches", []any{
				[]any{[]any{4, 7}, []any{5, 8}, 4},
				[]any{[]any{2, 3}, []any{0, 1}, 2},
			}, "len", 6}},
			{cmd("LCS", "key1", "key2", "IDX", "MINMATCHLEN", 9, "MINMATCHLEN", 3), []any{"matches", []any{
				[]any{[]any{4, 7}, []any{5, 8}},
			}, "len", 6}},
			// WITHMATCHLEN and MINMATCHLEN without IDX change nothing.
			{cmd("LCS", "key1", "key2", "WITHMATCHLEN", "MINMATCHLEN", 3), "mytext"},
			{cmd("LCS", "key1", "key2", "LEN", "WITHMATCHLEN"), 6},
			// The same string: one match over all of it.
			{cmd("LCS", "key1", "key1", "IDX", "WITHMATCHLEN"), []any{"matches", []any{
				[]any{[]any{0, 7}, []any{0, 7}, 8},
			}, "len", 8}},
			// A missing key is the empty string.
			{cmd("LCS", "key1", "nosuch"), ""},
			{cmd("LCS", "nosuch", "key1", "LEN"), 0},
			{cmd("LCS", "x", "y", "IDX"), []any{"matches", []any{}, "len", 0}},
			// Binary-safe.
			{cmd("SET", "bin1", "a\x00b\xffc"), ok},
			{cmd("SET", "bin2", "\x00\xff"), ok},
			{cmd("LCS", "bin1", "bin2"), "\x00\xff"},
			// Errors. The keys' types are checked before the options.
			{cmd("RPUSH", "list", "a"), 1},
			{cmd("LCS", "key1", "list"), errText(notStrings)},
			{cmd("LCS", "list", "nosuch"), errText(notStrings)},
			{cmd("LCS", "list", "key1", "BADOPT"), errText(notStrings)},
			{cmd("LCS", "key1", "key2", "LEN", "IDX"), errText(lenAndIdx)},
			{cmd("LCS", "key1", "key2", "IDX", "LEN"), errText(lenAndIdx)},
			{cmd("LCS", "nosuch", "nosuch", "IDX", "LEN"), errText(lenAndIdx)},
			{cmd("LCS", "key1", "key2", "MINMATCHLEN"), errText("ERR syntax error")},
			{cmd("LCS", "key1", "key2", "MINMATCHLEN", "x", "LEN", "IDX"), errText("ERR value is not an integer or out of range")},
			{cmd("LCS", "key1", "key2", "MINMATCHLEN", "99999999999999999999"), errText("ERR value is not an integer or out of range")},
			{cmd("LCS", "key1", "key2", "LEN", "IDX", "BADOPT"), errText("ERR syntax error")},
			{cmd("LCS", "key1"), errText("ERR wrong number of arguments for 'lcs' command")},
		})
	})
}

// TestLCSMemoryBound: Redis refuses a comparison whose table, (len1+1) *
// (len2+1) uint32s, would exceed proto-max-bulk-len, before it allocates,
// and whatever the options; Shale answers the same.
func TestLCSMemoryBound(t *testing.T) {
	t.Parallel()
	const refused = "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len"
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		a600 := strings.Repeat("a", 600)
		run(t, c, []step{
			{cmd("CONFIG", "SET", "proto-max-bulk-len", "1mb"), ok},
			{cmd("SET", "s", a600), ok},
			// 601*601*4 bytes is past 1 MiB, 601*1*4 is not.
			{cmd("LCS", "s", "s", "LEN"), errText(refused)},
			{cmd("LCS", "s", "s"), errText(refused)},
			{cmd("LCS", "s", "nosuch"), ""},
			// Option errors come first.
			{cmd("LCS", "s", "s", "IDX", "LEN"), errText("ERR If you want both the length and indexes, please just use IDX.")},
			{cmd("SET", "t", strings.Repeat("a", 400)), ok},
			{cmd("LCS", "t", "t", "LEN"), 400}, // 401*401*4 fits
		})
	})
}

// TestLCSDifferential runs random comparisons on both servers and compares
// their replies: the walk's tie rule decides which subsequence and which
// ranges LCS reports, so only real Redis can say what is right.
func TestLCSDifferential(t *testing.T) {
	t.Parallel()
	shale := startShale(t, shaleOpts{})
	real := startRedis(t)
	r := rand.New(rand.NewPCG(17, uint64(time.Now().UnixNano())))
	gen := func() string {
		b := make([]byte, r.IntN(60))
		alpha := 1 + r.IntN(5)
		for i := range b {
			b[i] = 'a' + byte(r.IntN(alpha))
		}
		return string(b)
	}
	for i := 0; i < 300; i++ {
		a, bs := gen(), gen()
		var calls [][]any
		calls = append(calls, cmd("MSET", "a", a, "b", bs), cmd("LCS", "a", "b"), cmd("LCS", "b", "a", "LEN"))
		calls = append(calls, cmd("LCS", "a", "b", "IDX", "MINMATCHLEN", r.IntN(4), "WITHMATCHLEN"))
		calls = append(calls, cmd("LCS", "b", "a", "IDX"))
		for _, call := range calls {
			want, werr := real.Client.Do(ctxT(t), call...).Result()
			got, gerr := shale.Client.Do(ctxT(t), call...).Result()
			if fmt.Sprint(werr) != fmt.Sprint(gerr) || !reflect.DeepEqual(want, got) {
				t.Fatalf("%v with a=%q b=%q:\n\tredis: %v %v\n\tshale: %v %v", call, a, bs, want, werr, got, gerr)
			}
		}
	}
}

// TestLCSResp3: in RESP3, IDX's reply is a map, its matches arrays.
func TestLCSResp3(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		c3 := redis.NewClient(&redis.Options{Addr: b.Addr, Protocol: 3, DisableIdentity: true, MaxRetries: -1})
		t.Cleanup(func() { c3.Close() })
		run(t, c3, []step{
			{cmd("MSET", "key1", "ohmytext", "key2", "mynewtext"), ok},
			{cmd("LCS", "key1", "key2", "IDX", "WITHMATCHLEN"), matchFunc{
				desc: "map{matches: [[[4 7] [5 8] 4] [[2 3] [0 1] 2]], len: 6}",
				fn: func(got any) string {
					m, isMap := got.(map[any]any)
					if !isMap {
						return fmt.Sprintf("not a map: %T", got)
					}
					want := map[any]any{
						"matches": []any{
							[]any{[]any{int64(4), int64(7)}, []any{int64(5), int64(8)}, int64(4)},
							[]any{[]any{int64(2), int64(3)}, []any{int64(0), int64(1)}, int64(2)},
						},
						"len": int64(6),
					}
					if !reflect.DeepEqual(m, want) {
						return fmt.Sprintf("got %v", m)
					}
					return ""
				},
			}},
		})
	})
}
