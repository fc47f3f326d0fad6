package tests

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// runTool runs bin with args against addr (as -h HOST -p PORT) for at most
// limit and returns its combined output and exit error. A tool killed at
// the limit is not an error here; callers that expect it to end check err.
func runTool(t *testing.T, limit time.Duration, addr, bin string, args ...string) (string, error) {
	t.Helper()
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"-h", "127.0.0.1", "-p", port}, args...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	if ctx.Err() != nil {
		err = ctx.Err()
	}
	return out.String(), err
}

// toolErrors returns the lines of out that report an error.
func toolErrors(out string) []string {
	var bad []string
	for _, line := range strings.FieldsFunc(out, func(r rune) bool { return r == '\n' || r == '\r' }) {
		l := strings.ToLower(line)
		if strings.Contains(l, "err") || strings.Contains(l, "warning") || strings.Contains(l, "could not") {
			bad = append(bad, line)
		}
	}
	return bad
}

// populateForTools writes a few keys of every type, one of each clearly the
// biggest, and returns every key written.
func populateForTools(t *testing.T, c *redis.Client) []string {
	t.Helper()
	ctx := ctxT(t)
	pipe := c.Pipeline()
	var keys []string
	for i := range 120 {
		k := fmt.Sprintf("user:%d", i)
		pipe.Set(ctx, k, strings.Repeat("u", i%7+1), 0)
		keys = append(keys, k)
	}
	pipe.Set(ctx, "str:big", strings.Repeat("x", 300), 0)
	for i := range 50 {
		pipe.RPush(ctx, "list:big", i)
	}
	pipe.RPush(ctx, "list:small", "a")
	for i := range 40 {
		pipe.HSet(ctx, "hash:big", fmt.Sprint("f", i), i)
	}
	pipe.HSet(ctx, "hash:small", "f", "v")
	for i := range 30 {
		pipe.SAdd(ctx, "set:big", i)
	}
	pipe.SAdd(ctx, "set:small", "m")
	for i := range 20 {
		pipe.ZAdd(ctx, "zset:big", redis.Z{Score: float64(i), Member: i})
	}
	pipe.ZAdd(ctx, "zset:small", redis.Z{Score: 1, Member: "m"})
	pipe.Set(ctx, "ttl:key", "v", time.Hour)
	keys = append(keys, "str:big", "list:big", "list:small", "hash:big", "hash:small",
		"set:big", "set:small", "zset:big", "zset:small", "ttl:key")
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatalf("populate: %v", err)
	}
	slices.Sort(keys)
	return keys
}

func sortedLines(s string) []string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) == 1 && lines[0] == "" {
		lines = nil
	}
	slices.Sort(lines)
	return lines
}

// TestToolsRedisCliScanBigkeys: `redis-cli --scan` lists every key (and a
// pattern's keys) and `redis-cli --bigkeys` finds the biggest key of each
// type, with no error in the output.
func TestToolsRedisCliScanBigkeys(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		keys := populateForTools(t, c)

		out, err := runTool(t, 30*time.Second, b.Addr, redisCliBin, "--scan")
		if err != nil {
			t.Fatalf("redis-cli --scan: %v\n%s", err, out)
		}
		if got := sortedLines(out); !slices.Equal(got, keys) {
			t.Fatalf("redis-cli --scan listed %d keys, want %d:\n%s", len(got), len(keys), out)
		}
		out, err = runTool(t, 30*time.Second, b.Addr, redisCliBin, "--scan", "--pattern", "*:big")
		if err != nil {
			t.Fatalf("redis-cli --scan --pattern: %v\n%s", err, out)
		}
		want := []string{"hash:big", "list:big", "set:big", "str:big", "zset:big"}
		if got := sortedLines(out); !slices.Equal(got, want) {
			t.Fatalf("redis-cli --scan --pattern '*:big' = %q, want %q", got, want)
		}

		out, err = runTool(t, 30*time.Second, b.Addr, redisCliBin, "--bigkeys")
		if err != nil {
			t.Fatalf("redis-cli --bigkeys: %v\n%s", err, out)
		}
		if bad := toolErrors(out); len(bad) > 0 {
			t.Fatalf("redis-cli --bigkeys reported errors: %q\n%s", bad, out)
		}
		for _, line := range []string{
			fmt.Sprintf("Sampled %d keys in the keyspace!", len(keys)),
			`Biggest string found '"str:big"' has 300 bytes`,
			`Biggest   list found '"list:big"' has 50 items`,
			`Biggest   hash found '"hash:big"' has 40 fields`,
			`Biggest    set found '"set:big"' has 30 members`,
			`Biggest   zset found '"zset:big"' has 20 members`,
			"2 lists with 51 items",
			"2 hashs with 41 fields",
			"2 sets with 31 members",
			"2 zsets with 21 members",
		} {
			if !strings.Contains(out, line) {
				t.Errorf("redis-cli --bigkeys output lacks %q", line)
			}
		}
		if t.Failed() {
			t.Logf("redis-cli --bigkeys output:\n%s", out)
		}
	})
}

// statRow is one data row of `redis-cli --stat`:
// keys, mem, clients, blocked, "requests (+delta)", connections.
var statRow = regexp.MustCompile(`^(\d+)\s+(\S+)\s+(\d+)\s+(\d+)\s+(\d+) \(\+(\d+)\)\s+(\d+)\s*$`)

// humanBytes is redis-cli's bytesToHuman: "512B", "1.50K", "10.76M".
var humanBytes = regexp.MustCompile(`^\d+(B|\.\d\d[KMGTP])$`)

// TestToolsRedisCliStat runs `redis-cli --stat -i 0.1` for a second. Each
// row must parse: the key count from INFO keyspace, used_memory in human
// form, clients, blocked clients, total commands, total connections.
func TestToolsRedisCliStat(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		keys := populateForTools(t, c)
		_, port, _ := net.SplitHostPort(b.Addr)
		// redis-cli fully buffers a pipe and is killed at the end: stdbuf
		// makes it write each row as it prints it.
		ctx, cancel := context.WithTimeout(context.Background(), 1200*time.Millisecond)
		defer cancel()
		cmd := exec.CommandContext(ctx, "stdbuf", "-oL", redisCliBin, "-h", "127.0.0.1", "-p", port, "--stat", "-i", "0.1")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		if ctx.Err() == nil {
			t.Fatalf("redis-cli --stat ended by itself: %v\n%s", err, out.String())
		}
		text := out.String()
		if bad := toolErrors(text); len(bad) > 0 {
			t.Fatalf("redis-cli --stat reported errors: %q\n%s", bad, text)
		}
		lines := strings.Split(strings.TrimSpace(text), "\n")
		if len(lines) < 2 || !regexp.MustCompile(`^keys\s+mem\s+clients\s+blocked\s+requests\s+connections`).MatchString(lines[1]) {
			t.Fatalf("redis-cli --stat: no header:\n%s", text)
		}
		var rows int
		var lastRequests int64 = -1
		for _, line := range lines[2:] {
			if strings.HasPrefix(line, "keys") || strings.HasPrefix(line, "---") {
				continue // the header repeats every 20 rows
			}
			m := statRow.FindStringSubmatch(line)
			if m == nil {
				t.Fatalf("redis-cli --stat: row %q does not parse\n%s", line, text)
			}
			if m[1] != strconv.Itoa(len(keys)) {
				t.Errorf("redis-cli --stat: keys %s, want %d", m[1], len(keys))
			}
			if !humanBytes.MatchString(m[2]) || m[2] == "0B" {
				t.Errorf("redis-cli --stat: mem %q is not used_memory in human form", m[2])
			}
			if m[3] == "0" {
				t.Errorf("redis-cli --stat: clients 0, want at least redis-cli itself")
			}
			requests, _ := strconv.ParseInt(m[5], 10, 64)
			if requests <= lastRequests {
				t.Errorf("redis-cli --stat: requests %d did not grow from %d (each row sends INFO)", requests, lastRequests)
			}
			lastRequests = requests
			rows++
		}
		if rows < 3 {
			t.Fatalf("redis-cli --stat printed %d rows in 1.2s at -i 0.1, want at least 3:\n%s", rows, text)
		}
	})
}

// benchmarkDefaultTests are the tests redis-benchmark 7.0 runs when given
// no -t, in its order. (7.2 adds XADD, which Shale lacks: no streams.)
var benchmarkDefaultTests = []string{
	"PING_INLINE", "PING_MBULK", "SET", "GET", "INCR", "LPUSH", "RPUSH", "LPOP", "RPOP",
	"SADD", "HSET", "SPOP", "ZADD", "ZPOPMIN", "LPUSH (needed to benchmark LRANGE)",
	"LRANGE_100 (first 100 elements)", "LRANGE_300 (first 300 elements)",
	"LRANGE_500 (first 500 elements)", "LRANGE_600 (first 600 elements)", "MSET (10 keys)",
}

var benchmarkResult = regexp.MustCompile(`^(.+): [\d.]+ requests per second`)

// TestToolsRedisBenchmark runs redis-benchmark's default tests with a small
// -n. redis-benchmark 7 exits at the first error reply, and warns when its
// start-up CONFIG GET save / appendonly fails; neither may happen.
func TestToolsRedisBenchmark(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		const requests = 1000
		start := time.Now()
		out, err := runTool(t, 3*time.Minute, b.Addr, redisBenchmarkBin, "-n", strconv.Itoa(requests), "-q")
		if err != nil {
			t.Fatalf("redis-benchmark: %v\n%s", err, out)
		}
		if bad := toolErrors(out); len(bad) > 0 {
			t.Fatalf("redis-benchmark reported errors: %q\n%s", bad, out)
		}
		var ran []string
		for _, line := range strings.FieldsFunc(out, func(r rune) bool { return r == '\n' || r == '\r' }) {
			if m := benchmarkResult.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
				ran = append(ran, m[1])
			}
		}
		if !slices.Equal(ran, benchmarkDefaultTests) {
			t.Fatalf("redis-benchmark ran %q,\nwant the 7.0 default tests %q\n%s", ran, benchmarkDefaultTests, out)
		}
		t.Logf("redis-benchmark -n %d -q (%d default tests) against %s: %v", requests, len(ran), b.Name, time.Since(start).Round(time.Millisecond))

		// The tests did their work: SET wrote a 3-byte value (-d 3 is the
		// default), the LRANGE fill and the counter exist.
		ctx := ctxT(t)
		if v, err := c.Get(ctx, "key:__rand_int__").Result(); err != nil || len(v) != 3 {
			t.Errorf("GET key:__rand_int__ = %q, %v; want the SET test's 3-byte value", v, err)
		}
		if n, err := c.LLen(ctx, "mylist").Result(); err != nil || n == 0 {
			t.Errorf("LLEN mylist = %d, %v; want the LRANGE fill", n, err)
		}
		if v, err := c.Get(ctx, "counter:__rand_int__").Int(); err != nil || v != requests {
			t.Errorf("GET counter:__rand_int__ = %d, %v; want %d INCRs", v, err, requests)
		}
		if n, err := c.HLen(ctx, "myhash").Result(); err != nil || n != 1 {
			t.Errorf("HLEN myhash = %d, %v; want 1 (HSET of one field)", n, err)
		}
	})
}

// TestToolsRedisCliResp3: `redis-cli -3` shows the RESP3 types Shale sends
// as it shows Redis's: maps (HGETALL, CONFIG GET), doubles (ZSCORE, the
// scores of ZRANGE WITHSCORES, as pairs), sets, nulls and booleans. The
// output of each command must be the same, line for line, on both servers.
func TestToolsRedisCliResp3(t *testing.T) {
	t.Parallel()
	procs := []*serverProc{startRedis(t), startShale(t, shaleOpts{})}
	script := [][]string{
		{"HSET", "h", "a", "1", "b", "2"},
		{"HGETALL", "h"},
		{"ZADD", "z", "1.5", "a", "2", "b", "-inf", "c"},
		{"ZRANGE", "z", "0", "-1", "WITHSCORES"},
		{"ZSCORE", "z", "a"},
		{"ZMSCORE", "z", "a", "nope"},
		{"SADD", "s", "x"},
		{"SMEMBERS", "s"},
		{"GET", "nope"},
		{"CONFIG", "GET", "maxclients"},
		{"HSET", "one", "a", "1"},
		// One field: a Lua table's order is its interpreter's.
		{"EVAL", "redis.setresp(3); return redis.call('hgetall', 'one')", "0"},
		{"EVAL", "redis.setresp(3); return true", "0"},
		{"HRANDFIELD", "one", "-2", "WITHVALUES"},
	}
	var outs [2][]string
	for i, p := range procs {
		for _, args := range script {
			// --no-raw: redis-cli shows the types even though its output
			// is not a terminal.
			out, err := runTool(t, 10*time.Second, p.Addr, redisCliBin, append([]string{"-3", "--no-raw"}, args...)...)
			if err != nil {
				t.Fatalf("%s: redis-cli -3 %v: %v\n%s", p.Name, args, err, out)
			}
			outs[i] = append(outs[i], fmt.Sprintf("%v:\n%s", args, out))
		}
	}
	for j := range script {
		if outs[0][j] != outs[1][j] {
			t.Errorf("redis-cli -3 differs.\nredis: %s\nshale: %s", outs[0][j], outs[1][j])
		}
	}
	if !strings.Contains(outs[1][1], `1# "a" => "1"`) || !strings.Contains(outs[1][3], `(double) 1.5`) {
		t.Errorf("redis-cli -3 shows no map or double:\n%s\n%s", outs[1][1], outs[1][3])
	}
}
