package server

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// groupScript uses every grouped command, with keys repeated so that groups
// are cut short (a key touched earlier in the group), errors in the middle
// of a group (WRONGTYPE, bad numbers), and a command that cannot join
// (PING). Run pipelined and one by one, it must get the same replies.
var groupScript = [][]any{
	{"set", "s1", "v1"}, {"set", "s2", "10"}, {"get", "s1"}, {"setnx", "s3", "x"}, {"setnx", "s3", "y"},
	{"setex", "s4", "100", "e"}, {"psetex", "s5", "100000", "p"}, {"getset", "s6", "new"},
	{"mset", "m1", "a", "m2", "b", "m1", "c"}, {"mget", "m1", "m2", "nosuch", "m1"},
	{"incr", "c1"}, {"decr", "c2"}, {"incrby", "c3", "5"}, {"decrby", "c4", "7"}, {"incrbyfloat", "c5", "1.5"},
	{"incr", "c1"}, {"incr", "s1"}, {"incrby", "c6", "notanumber"}, {"append", "a1", "xy"}, {"strlen", "a1"},
	{"getdel", "s3"}, {"getdel", "s3"},
	{"hset", "h1", "f1", "v1", "f2", "v2"}, {"hmset", "h2", "f", "v"}, {"hsetnx", "h3", "f", "v"},
	{"hget", "h1", "f1"}, {"hmget", "h1", "f1", "nosuch"}, {"hdel", "h2", "f"}, {"hlen", "h1"},
	{"hexists", "h3", "f"}, {"hstrlen", "h3", "f"}, {"hincrby", "h4", "n", "3"}, {"hincrbyfloat", "h5", "n", "0.5"},
	{"hset", "s2", "f", "v"},
	{"lpush", "l1", "a", "b"}, {"rpush", "l2", "c"}, {"lpushx", "l3", "x"}, {"rpushx", "l1", "z"},
	{"lpop", "l2"}, {"rpop", "l1"}, {"llen", "l1"}, {"lindex", "l1", "0"}, {"lpush", "h1", "x"},
	{"lrange", "l1", "0", "9"}, {"lpush", "l1", "y"}, {"lrange", "l1", "-3", "-1"}, {"lrange", "l1", "0", "-1"}, {"lrange", "l1", "x", "1"},
	{"ping"},
	{"sadd", "st1", "a", "b", "a"}, {"srem", "st2", "a"}, {"scard", "st3"}, {"sismember", "st1", "a"},
	{"smismember", "st1", "a", "q"},
	{"zadd", "z1", "1", "a", "2", "b"}, {"zincrby", "z2", "2.5", "m"}, {"zscore", "z1", "b"},
	{"zmscore", "z1", "a", "q"}, {"zcard", "z1"}, {"zrem", "z3", "a"}, {"zadd", "z4", "nan", "a"},
	{"zadd", "zq", "1", "a", "2", "b", "3", "c", "4", "d"}, {"zpopmin", "zq"}, {"zpopmax", "zq", "2"},
	{"zadd", "zq", "0", "low"}, {"zpopmin", "zq", "5"}, {"zpopmax", "zq"}, {"zpopmin", "h1"},
	{"zadd", "zr", "1", "a", "2", "b", "3", "c"}, {"zrange", "zr", "0", "1"}, {"zadd", "zr", "4", "d"},
	{"zrevrange", "zr", "0", "1", "withscores"}, {"zrange", "zr", "0", "-1"}, {"zrange", "zr", "-2", "-1", "rev"},
	{"zrangebyscore", "zr", "-inf", "+inf", "limit", "0", "2"}, {"zrevrangebyscore", "zr", "+inf", "-inf", "limit", "1", "2"},
	{"zrangebylex", "zr", "-", "+", "limit", "0", "1"}, {"zrevrangebylex", "zr", "+", "-", "limit", "0", "1"},
	{"zrange", "zr", "(1", "3", "byscore", "limit", "0", "5", "withscores"}, {"zrange", "zr", "x", "1"},
	{"zrange", "zr", "0", "1", "limit", "0", "1"}, {"zrangebyscore", "zr", "0", "1"}, {"zrange", "h1", "0", "1"},
	{"xadd", "x1", "1-1", "f", "v"}, {"xadd", "x1", "1-*", "g", "w"}, {"xadd", "x1", "1-1", "f", "v"},
	{"xadd", "x2", "MAXLEN", "1", "5-5", "a", "b"}, {"xadd", "x2", "MAXLEN", "1", "6-0", "c", "d"}, {"xlen", "x2"},
	{"xadd", "x3", "NOMKSTREAM", "1-1", "f", "v"}, {"xadd", "h1", "1-1", "f", "v"}, {"xlen", "x1"}, {"xlen", "h1"},
	{"del", "m1", "m2", "nosuch"}, {"unlink", "c1"}, {"exists", "s1", "s1", "h1", "nosuch"}, {"type", "z1"},
	{"expire", "h1", "1000"}, {"pexpire", "l1", "1000000"}, {"ttl", "h1"}, {"ttl", "z1"}, {"pttl", "nosuch"},
	{"persist", "h1"}, {"ttl", "h1"},
	{"expireat", "s4", "4000000000"}, {"pexpireat", "s5", "4000000000000"}, {"expiretime", "s4"},
	{"pexpiretime", "s5"}, {"expiretime", "nosuch"}, {"getex", "s6", "EX", "100"}, {"getex", "s2", "PERSIST"},
	{"msetnx", "n1", "a", "n2", "b"}, {"msetnx", "n2", "c", "n3", "d"}, {"setrange", "r1", "5", "xyz"},
	{"setrange", "r1", "0", "ab"}, {"setrange", "h1", "0", "x"},
	{"setbit", "b1", "7", "1"}, {"setbit", "b1", "300000", "1"}, {"getbit", "b1", "7"}, {"getbit", "b1", "300000"},
	{"setbit", "b1", "7", "0"}, {"setbit", "h1", "1", "1"}, {"bitfield", "b2", "INCRBY", "u8", "0", "200", "GET", "u8", "0"},
	{"bitfield", "b2", "OVERFLOW", "SAT", "INCRBY", "u8", "0", "100"}, {"bitfield_ro", "b2", "GET", "u8", "0"},
	{"geoadd", "g1", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"},
	{"geoadd", "g1", "CH", "13.4", "38.1", "Palermo"}, {"geopos", "g1", "Palermo", "nosuch"},
	{"geodist", "g1", "Palermo", "Catania", "km"}, {"geohash", "g1", "Catania"}, {"geoadd", "h1", "1", "1", "m"},
	{"pfadd", "p1", "a", "b", "c"}, {"pfadd", "p1", "a"}, {"pfadd", "h1", "a"},
	{"rpush", "q1", "a", "b", "c", "d"}, {"rpoplpush", "q1", "q2"}, {"rpoplpush", "q1", "q1"},
	{"lmove", "q1", "q2", "LEFT", "RIGHT"}, {"lmove", "nosuch", "q2", "LEFT", "LEFT"}, {"lset", "q2", "0", "z"},
	{"lset", "q2", "99", "z"}, {"ltrim", "q1", "0", "0"}, {"rpoplpush", "q2", "h1"}, {"ltrim", "h1", "0", "1"},
	{"sadd", "ms1", "a", "b"}, {"smove", "ms1", "ms2", "a"}, {"smove", "ms1", "ms2", "nosuch"}, {"smove", "ms1", "ms1", "b"},
	{"set", "s1", "again"}, {"get", "s1"}, {"dbsize"},
}

// replyText renders a go-redis reply for comparison.
func replyText(c *redis.Cmd) string {
	v, err := c.Result()
	if err != nil {
		return "ERR:" + err.Error()
	}
	return fmt.Sprintf("%#v", v)
}

// TestPipelineGroupedCommands runs groupScript one command at a time on one
// server and as one pipeline on another: the replies and the data left
// must be the same, and the pipelined run must have formed groups. With the
// invariants build, a grouped command that locks a key its table row does
// not name panics here.
func TestPipelineGroupedCommands(t *testing.T) {
	used := map[string]bool{}
	for _, args := range groupScript {
		used[args[0].(string)] = true
	}
	for _, row := range allCommands() {
		if row.Flags&Grouped != 0 && !used[row.Name] {
			t.Errorf("grouped command %s is not in groupScript", row.Name)
		}
	}
	ctx := context.Background()
	_, alone := startAdminServer(t, nil)
	var want []string
	for _, args := range groupScript {
		want = append(want, replyText(alone.Do(ctx, args...)))
	}

	s, piped := startAdminServer(t, nil)
	pipe := piped.Pipeline()
	cmds := make([]*redis.Cmd, len(groupScript))
	for i, args := range groupScript {
		cmds[i] = pipe.Do(ctx, args...)
	}
	_, _ = pipe.Exec(ctx)
	for i, c := range cmds {
		if got := replyText(c); got != want[i] {
			t.Errorf("%v: pipelined %s, alone %s", groupScript[i], got, want[i])
		}
	}
	if s.stats.groupCommits.Load() == 0 || s.stats.groupedCommands.Load() < int64(len(groupScript)/2) {
		t.Errorf("pipeline formed %d groups of %d commands in all; want groups", s.stats.groupCommits.Load(), s.stats.groupedCommands.Load())
	}
	// The data too: every key, read back one command at a time.
	for _, key := range []string{"s1", "s2", "s4", "s5", "s6", "c2", "c3", "c4", "c5", "a1", "n1", "n2", "n3", "r1", "b2"} {
		if a, b := replyText(alone.Do(ctx, "get", key)), replyText(piped.Do(ctx, "get", key)); a != b {
			t.Errorf("GET %s: pipelined left %s, alone %s", key, b, a)
		}
	}
	for _, args := range [][]any{{"hgetall", "h1"}, {"hgetall", "h4"}, {"lrange", "l1", "0", "-1"},
		{"xrange", "x1", "-", "+"}, {"xrange", "x2", "-", "+"}, {"exists", "x3"},
		{"smembers", "st1"}, {"zrange", "z1", "0", "-1", "withscores"}, {"zrange", "g1", "0", "-1", "withscores"},
		{"bitcount", "b1"}, {"strlen", "b1"}, {"pfcount", "p1"}, {"lrange", "q1", "0", "-1"}, {"lrange", "q2", "0", "-1"},
		{"smembers", "ms1"}, {"smembers", "ms2"}, {"dbsize"}} {
		if a, b := replyText(alone.Do(ctx, args...)), replyText(piped.Do(ctx, args...)); a != b {
			t.Errorf("%v: pipelined left %s, alone %s", args, b, a)
		}
	}
}

// TestHotKeyWritesReleaseEarly: clients that each send one command at a
// time to one key take turns on its lock. A Grouped command's group then
// releases the lock before its write lands, and the next command reads the
// queued write through the overlay (docs/WRITES.md); a command run alone
// holds the lock until its write lands, and a hot key of its type queues
// behind every write. Each write below must release early. (The
// invariants build recounts a hash's or a set's sub-keys after their write,
// under its lock (types.DB.checkSize): there HSET, SADD and SMOVE never
// release early, and are not in the list.)
func TestHotKeyWritesReleaseEarly(t *testing.T) {
	s, _ := startAdminServer(t, nil)
	ctx := context.Background()
	const clients, each = 16, 40
	conns := make([]*redis.Client, clients)
	for i := range conns {
		conns[i] = newAdminClient(t, s, "")
	}
	// The list the list moves rotate.
	if err := conns[0].RPush(ctx, "hot:q", "a", "b", "c", "d").Err(); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []func(i int) []any{
		func(i int) []any { return []any{"setbit", "hot:bits", i, 1} },
		func(i int) []any { return []any{"bitfield", "hot:field", "incrby", "u8", 0, 1} },
		func(i int) []any { return []any{"pfadd", "hot:hll", "e" + strconv.Itoa(i)} },
		func(i int) []any { return []any{"geoadd", "hot:geo", 13, 38, "m" + strconv.Itoa(i)} },
		func(i int) []any { return []any{"setrange", "hot:str", i % 100, "x" + strconv.Itoa(i)} },
		func(i int) []any { return []any{"getex", "hot:str", "px", 100000 + i} },
		func(i int) []any { return []any{"pexpireat", "hot:str", time.Now().UnixMilli() + 100000 + int64(i)} },
		func(i int) []any { return []any{"rpoplpush", "hot:q", "hot:q"} },
		func(i int) []any { return []any{"lmove", "hot:q", "hot:q", "left", "right"} },
		func(i int) []any { return []any{"lset", "hot:q", 0, "v" + strconv.Itoa(i)} },
		// Two members a ZADD, one a pop of either end.
		func(i int) []any { return []any{"zadd", "hot:z", i, "m" + strconv.Itoa(i), -i, "n" + strconv.Itoa(i)} },
		func(i int) []any { return []any{"zpopmin", "hot:z"} },
		func(i int) []any { return []any{"zpopmax", "hot:z"} },
	} {
		name := cmd(0)[0]
		var released uint64
		for attempt := 0; attempt < 5 && released == 0; attempt++ {
			before := s.st.EarlyCommits()
			var wg sync.WaitGroup
			for w := range clients {
				wg.Go(func() {
					for j := range each {
						if err := conns[w].Do(ctx, cmd(w*each+j)...).Err(); err != nil && err != redis.Nil {
							t.Errorf("%v: %v", cmd(w*each+j), err)
							return
						}
					}
				})
			}
			wg.Wait()
			released = s.st.EarlyCommits() - before
		}
		if released == 0 {
			t.Errorf("%s: %d clients on one key, and no group released its lock early: the command does not run in a group", name, clients)
		}
	}
}

// TestPipelineGroupsConcurrent: clients pipelining INCRs on shared counters
// while another flushes another database (FLUSHDB takes the world lock that
// groups hold shared) and a third pushes, mid-pipeline, to a list a blocked
// client waits on. No increment is lost, no group deadlocks with another
// or with FLUSHDB, and the blocked client is served.
func TestPipelineGroupsConcurrent(t *testing.T) {
	s, c := startAdminServer(t, nil)
	ctx := context.Background()
	const clients, rounds, depth, counters = 4, 30, 32, 8
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl := newAdminClient(t, s, "")
			for r := range rounds {
				pipe := cl.Pipeline()
				for j := range depth {
					// Distinct and shared keys, so that groups conflict with
					// each other and within themselves.
					pipe.Incr(ctx, "ctr"+strconv.Itoa((i+r+j)%counters))
					pipe.Set(ctx, "own"+strconv.Itoa(i)+"-"+strconv.Itoa(j), r, 0)
				}
				if _, err := pipe.Exec(ctx); err != nil {
					t.Errorf("client %d: %v", i, err)
					return
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		cl := newAdminClient(t, s, "")
		for range 20 {
			pipe := cl.Pipeline()
			pipe.Select(ctx, 1)
			pipe.Set(ctx, "other", "x", 0)
			pipe.FlushDB(ctx)
			if _, err := pipe.Exec(ctx); err != nil {
				t.Errorf("flusher: %v", err)
				return
			}
		}
	}()
	popped := make(chan string, 1)
	go func() {
		cl := newAdminClient(t, s, "")
		v, err := cl.BLPop(ctx, 10*time.Second, "wake").Result()
		if err != nil {
			popped <- "error: " + err.Error()
			return
		}
		popped <- v[1]
	}()
	// Let the BLPOP block, then push in the middle of a pipeline.
	time.Sleep(100 * time.Millisecond)
	pusher := newAdminClient(t, s, "")
	pipe := pusher.Pipeline()
	pipe.Set(ctx, "p1", "x", 0)
	pipe.RPush(ctx, "wake", "hello")
	pipe.Set(ctx, "p2", "y", 0)
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if v := <-popped; v != "hello" {
		t.Errorf("BLPOP got %q, want hello", v)
	}
	wg.Wait()
	var total int64
	for k := range counters {
		n, err := c.Get(ctx, "ctr"+strconv.Itoa(k)).Int64()
		if err != nil {
			t.Fatal(err)
		}
		total += n
	}
	if total != clients*rounds*depth {
		t.Errorf("counters add up to %d, want %d", total, clients*rounds*depth)
	}
	if n := c.DBSize(ctx).Val(); n != counters+clients*depth+2 {
		t.Errorf("DBSIZE %d, want %d", n, counters+clients*depth+2)
	}
}
