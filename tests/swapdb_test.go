package tests

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestSwapDB: SWAPDB's errors, and what the clients of either database see
// after it: the other database's keys, TTLs, counts and INFO keyspace line,
// and FLUSHDB, MOVE and COPY acting on the swapped data; inside MULTI
// (later commands of the transaction see the swap) and from a script.
func TestSwapDB(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		conn := newConn(t, b.Addr)
		run(t, conn, []step{
			{cmd("SWAPDB", "0"), errText("ERR wrong number of arguments for 'swapdb' command")},
			{cmd("SWAPDB", "0", "1", "2"), errText("ERR wrong number of arguments for 'swapdb' command")},
			{cmd("SWAPDB", "a", "1"), errText("ERR invalid first DB index")},
			{cmd("SWAPDB", "a", "b"), errText("ERR invalid first DB index")},
			{cmd("SWAPDB", "1", "a"), errText("ERR invalid second DB index")},
			{cmd("SWAPDB", "1.5", "0"), errText("ERR invalid first DB index")},
			{cmd("SWAPDB", " 1", "0"), errText("ERR invalid first DB index")},
			{cmd("SWAPDB", "", "0"), errText("ERR invalid first DB index")},
			// Beyond a C int: the parse error, not the range error.
			{cmd("SWAPDB", "99999999999", "0"), errText("ERR invalid first DB index")},
			{cmd("SWAPDB", "0", "99999999999"), errText("ERR invalid second DB index")},
			{cmd("SWAPDB", "0", "16"), errText("ERR DB index is out of range")},
			{cmd("SWAPDB", "-1", "0"), errText("ERR DB index is out of range")},
			{cmd("SWAPDB", "0", "-1"), errText("ERR DB index is out of range")},
			{cmd("SWAPDB", "16", "16"), errText("ERR DB index is out of range")},
			{cmd("SWAPDB", "0", "0"), ok},

			{cmd("SET", "a", "in0"), ok},
			{cmd("SET", "t", "v", "EX", 1000), ok},
			{cmd("HSET", "h", "f", "v0"), 1},
			{cmd("SELECT", 1), ok},
			{cmd("SET", "a", "in1"), ok},
			{cmd("RPUSH", "l", "x", "y"), 2},
			{cmd("SELECT", 0), ok},
			{cmd("DBSIZE"), 3},
			{cmd("SWAPDB", "0", "1"), ok},
			// The connection stays in db 0, which now holds db 1's keys.
			{cmd("DBSIZE"), 2},
			{cmd("GET", "a"), "in1"},
			{cmd("LRANGE", "l", 0, -1), []any{"x", "y"}},
			{cmd("EXISTS", "t", "h"), 0},
			{cmd("KEYS", "*"), unordered([]any{"a", "l"})},
			{cmd("SCAN", 0, "COUNT", 100), []any{"0", unordered([]any{"a", "l"})}},
			{cmd("SELECT", 1), ok},
			{cmd("DBSIZE"), 3},
			{cmd("GET", "a"), "in0"},
			{cmd("TTL", "t"), between(990, 1000)},
			{cmd("HGET", "h", "f"), "v0"},
			{cmd("RANDOMKEY"), anyString},
			// Writes go to the swapped data, expiries and all.
			{cmd("SET", "u", "v", "EX", 500), ok},
			{cmd("PERSIST", "t"), 1},
			{cmd("DBSIZE"), 4},
			{cmd("SWAPDB", "1", "0"), ok},
			{cmd("DBSIZE"), 2},
			{cmd("SELECT", 0), ok},
			{cmd("DBSIZE"), 4},
			{cmd("TTL", "u"), between(490, 500)},
			{cmd("TTL", "t"), -1},
			{cmd("GET", "a"), "in0"},

			// FLUSHDB after a swap flushes the data the client sees.
			{cmd("SWAPDB", "0", "2"), ok},
			{cmd("SET", "in2", "x"), ok},
			{cmd("FLUSHDB"), ok},
			{cmd("SELECT", 2), ok},
			{cmd("DBSIZE"), 4},
			{cmd("GET", "a"), "in0"},
			{cmd("SWAPDB", "2", "0"), ok},
			{cmd("DBSIZE"), 0},
			{cmd("SELECT", 0), ok},
			{cmd("DBSIZE"), 4},

			// MOVE and COPY name logical databases.
			{cmd("SWAPDB", "1", "3"), ok},
			{cmd("MOVE", "a", 3), 0}, // db 3 holds db 1's a
			{cmd("MOVE", "a", 1), 1}, // db 1 holds db 3's keys: none
			{cmd("COPY", "h", "h2", "DB", 3), 1},
			{cmd("SELECT", 3), ok},
			{cmd("GET", "a"), "in1"},
			{cmd("LLEN", "l"), 2},
			{cmd("HGET", "h2", "f"), "v0"},
			{cmd("SWAPDB", "3", "1"), ok},
			{cmd("DBSIZE"), 1},
			{cmd("GET", "a"), "in0"},
			{cmd("SELECT", 1), ok},
			{cmd("DBSIZE"), 3},
			{cmd("SELECT", 0), ok},
			{cmd("DBSIZE"), 3},
		})
		// INFO keyspace follows the data.
		info := doStr(t, c, "INFO", "keyspace")
		for _, want := range []string{"db0:keys=3,expires=1,", "db1:keys=3,expires=0,", "db3:keys=1,expires=0,"} {
			if !strings.Contains(info, want) {
				t.Errorf("INFO keyspace has no %q:\n%s", want, info)
			}
		}
		run(t, conn, []step{
			{cmd("SWAPDB", "0", "1"), ok},
		})
		info = doStr(t, c, "INFO", "keyspace")
		for _, want := range []string{"db0:keys=3,expires=0,", "db1:keys=3,expires=1,"} {
			if !strings.Contains(info, want) {
				t.Errorf("after SWAPDB 0 1, INFO keyspace has no %q:\n%s", want, info)
			}
		}
		run(t, conn, []step{
			{cmd("SWAPDB", "0", "1"), ok},
			// Inside a transaction: the commands after it see the swap.
			{cmd("MULTI"), ok},
			{cmd("SET", "m", "before"), "QUEUED"},
			{cmd("SWAPDB", "0", "5"), "QUEUED"},
			{cmd("GET", "m"), "QUEUED"},
			{cmd("SET", "m", "after"), "QUEUED"},
			{cmd("DBSIZE"), "QUEUED"},
			{cmd("SWAPDB", "x", "5"), "QUEUED"},
			{cmd("EXEC"), []any{ok, ok, nil, ok, 1, errText("ERR invalid first DB index")}},
			{cmd("GET", "m"), "after"},
			{cmd("SELECT", 5), ok},
			{cmd("GET", "m"), "before"},
			{cmd("DBSIZE"), 4},
			{cmd("SWAPDB", "0", "5"), ok},
			{cmd("SELECT", 0), ok},
			// From a script: SWAPDB is no noscript command.
			{cmd("EVAL", "redis.call('set', 'e', 'in0') return redis.call('swapdb', 0, 6)", 0), ok},
			{cmd("EVAL", "return redis.call('get', 'e')", 0), nil},
			{cmd("SELECT", 6), ok},
			{cmd("GET", "e"), "in0"},
			{cmd("SWAPDB", "6", "0"), ok},
			{cmd("SELECT", 0), ok},
			{cmd("DBSIZE"), 5},
		})
	})
}

// TestSwapDBCommandInfo: SWAPDB's row reads as Redis's.
func TestSwapDBCommandInfo(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("COMMAND", "INFO", "swapdb"), []any{[]any{
				"swapdb", 3, []any{"write", "fast"}, 0, 0, 0,
				[]any{"@keyspace", "@write", "@fast", "@dangerous"}, []any{}, []any{}, []any{},
			}}},
		})
	})
}

// TestSwapDBWatch: a SWAPDB fails the EXEC of a client watching a key that
// exists in either database, as Redis's touchAllWatchedKeysInDb does, and
// not that of a client watching a key of neither, or of another database.
func TestSwapDBWatch(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		one := newConn(t, b.Addr)
		run(t, one, []step{
			{cmd("SET", "only0", "x"), ok},
			{cmd("SELECT", 1), ok},
			{cmd("SET", "only1", "y"), ok},
			{cmd("SELECT", 0), ok},
		})
		watch := func(db int, key string) *redis.Conn {
			w := newConn(t, b.Addr)
			run(t, w, []step{
				{cmd("SELECT", db), ok},
				{cmd("WATCH", key), ok},
				{cmd("MULTI"), ok},
				{cmd("PING"), "QUEUED"},
			})
			return w
		}
		w0 := watch(0, "only0")   // exists in its own db
		w1 := watch(0, "only1")   // exists in the other db
		w2 := watch(1, "neither") // exists in neither
		w3 := watch(2, "only0")   // another db
		w4 := watch(1, "only0")   // db 1, key in db 0
		run(t, one, []step{{cmd("SWAPDB", 0, 1), ok}})
		run(t, w0, []step{{cmd("EXEC"), nil}})
		run(t, w1, []step{{cmd("EXEC"), nil}})
		run(t, w2, []step{{cmd("EXEC"), []any{"PONG"}}})
		run(t, w3, []step{{cmd("EXEC"), []any{"PONG"}}})
		run(t, w4, []step{{cmd("EXEC"), nil}})
		// Swapping a database with itself touches nothing.
		w5 := watch(0, "only1")
		run(t, one, []step{{cmd("SWAPDB", 0, 0), ok}})
		run(t, w5, []step{{cmd("EXEC"), []any{"PONG"}}})
	})
}

// TestSwapDBBlocked: a client blocked on a key is served when a SWAPDB
// brings the key, with the type it waits for, into its database; a client
// waiting for another type keeps waiting.
func TestSwapDBBlocked(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		inDB := func(db int, want int64, args ...any) <-chan reply {
			cn := newConn(t, b.Addr)
			run(t, cn, []step{{cmd("SELECT", db), ok}})
			ch := make(chan reply, 1)
			go func() {
				v, err := cn.Do(context.Background(), args...).Result()
				ch <- reply{v, err}
			}()
			waitBlocked(t, c, want)
			return ch
		}
		list := inDB(0, 1, "BLPOP", "k", 0)
		zset := inDB(0, 2, "BZPOPMIN", "k", 0)
		other := inDB(1, 3, "BLPOP", "k2", 0)
		one := newConn(t, b.Addr)
		run(t, one, []step{
			{cmd("SELECT", 1), ok},
			{cmd("RPUSH", "k", "a", "b"), 2},
			{cmd("SELECT", 0), ok},
			{cmd("RPUSH", "k2", "c"), 1},
			{cmd("SWAPDB", 0, 1), ok},
		})
		expectReply(t, list, []any{"k", "a"})
		expectReply(t, other, []any{"k2", "c"})
		expectNoReply(t, zset)
		run(t, one, []step{
			{cmd("LRANGE", "k", 0, -1), []any{"b"}},
			{cmd("SELECT", 1), ok},
			{cmd("EXISTS", "k2"), 0},
		})
		waitBlocked(t, c, 1)
		// A swap that brings the type it waits for serves it.
		run(t, one, []step{
			{cmd("ZADD", "k", 1, "m"), 1},
			{cmd("SWAPDB", 0, 1), ok},
		})
		expectReply(t, zset, []any{"k", "m", "1"})
		waitBlocked(t, c, 0)
		run(t, one, []step{{cmd("LRANGE", "k", 0, -1), []any{"b"}}})
	})
}

// TestSwapDBNoEvents: SWAPDB sends no keyspace event, as in Redis.
func TestSwapDBNoEvents(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		ctx := ctxT(t)
		run(t, c, []step{
			{cmd("SET", "k", "v"), ok},
			{cmd("CONFIG", "SET", "notify-keyspace-events", "KEA"), ok},
		})
		ps := c.PSubscribe(ctx, "__key*__:*")
		defer ps.Close()
		if _, err := ps.Receive(ctx); err != nil {
			t.Fatal(err)
		}
		run(t, c, []step{
			{cmd("SWAPDB", 0, 1), ok},
			{cmd("SET", "marker", "1"), ok},
		})
		msg, err := ps.ReceiveMessage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if msg.Channel != "__keyspace@0__:marker" {
			t.Fatalf("first event after SWAPDB: %s %s, want the marker's", msg.Channel, msg.Payload)
		}
	})
}

// TestSwapDBRestart: the swap is in the store's database map, so it holds
// after a restart, and in a checkpoint, which copies the map with the keys.
func TestSwapDBRestart(t *testing.T) {
	t.Parallel()
	backupDir := filepath.Join(t.TempDir(), "backups")
	config := fmt.Sprintf("[storage]\nbackup_dir = %q\n", backupDir)
	p := startShale(t, shaleOpts{Config: config})
	conn := newConn(t, p.Addr)
	fillHash(t, p.Client, "h", 2000)
	run(t, conn, []step{
		{cmd("SET", "t", "v0", "EX", 1000), ok},
		{cmd("SELECT", 7), ok},
		{cmd("SET", "a", "v7"), ok},
		{cmd("SWAPDB", 0, 7), ok},
		{cmd("SAVE"), ok},
	})
	info := doStr(t, p.Client, "INFO", "persistence")
	cp := regexp.MustCompile(`last_checkpoint_dir:(\S+)`).FindStringSubmatch(info)
	if cp == nil {
		t.Fatalf("no checkpoint dir in\n%s", info)
	}
	run(t, conn, []step{
		{cmd("SWAPDB", 7, 3), ok},
		{cmd("SET", "b", "v3"), ok}, // in db 7, which holds db 3's keys
	})
	check := func(p *serverProc, want map[int][]step) {
		t.Helper()
		cn := newConn(t, p.Addr)
		for db := range 8 {
			steps := append([]step{{cmd("SELECT", db), ok}}, want[db]...)
			run(t, cn, steps)
		}
	}
	p.Stop()
	p2 := startShale(t, shaleOpts{Dir: p.Dir, Config: config})
	check(p2, map[int][]step{
		0: {{cmd("DBSIZE"), 1}, {cmd("GET", "a"), "v7"}},
		3: {{cmd("DBSIZE"), 2}, {cmd("HLEN", "h"), 2000}, {cmd("TTL", "t"), between(990, 1000)}},
		7: {{cmd("DBSIZE"), 1}, {cmd("GET", "b"), "v3"}},
	})
	p2.Stop()
	restored := filepath.Join(t.TempDir(), "restored")
	if out, err := exec.Command(shaleBinary(t), "--restore-from", cp[1], "--dir", restored).CombinedOutput(); err != nil {
		t.Fatalf("restore: %v\n%s", err, out)
	}
	r := startShale(t, shaleOpts{Dir: restored})
	check(r, map[int][]step{
		0: {{cmd("DBSIZE"), 1}, {cmd("GET", "a"), "v7"}},
		3: {{cmd("DBSIZE"), 0}},
		7: {{cmd("DBSIZE"), 2}, {cmd("HLEN", "h"), 2000}, {cmd("TTL", "t"), between(980, 1000)}},
	})
}

// TestSwapDBCompaction: the compaction filters follow bookkeeping records
// to physical databases, so a hash deleted after a swap is still reclaimed,
// and one that moved with its database is kept; active expiry finds the
// keys of a swapped database too.
func TestSwapDBCompaction(t *testing.T) {
	t.Parallel()
	config := debugConfig + "[compaction]\nreclaim_min_elements = 1000000000\n"
	p := startShale(t, shaleOpts{Config: config})
	conn := newConn(t, p.Addr)
	const n = 5000
	fillHash(t, p.Client, "kept", n)
	run(t, conn, []step{
		{cmd("HSET", "gone", "a", "1", "b", "2"), 2},
		{cmd("HSET", "other", "a", "1"), 1},
		{cmd("SET", "soon", "v", "PX", 300), ok},
		{cmd("SWAPDB", 0, 1), ok},
		{cmd("SELECT", 1), ok},
		{cmd("DEL", "gone"), 1},
		{cmd("COMPACT"), ok},
		{cmd("DEBUG", "CF-RECORDS", "subkey"), n + 1},
		{cmd("HLEN", "kept"), n},
		{cmd("DEL", "kept"), 1},
		{cmd("SWAPDB", 1, 2), ok},
		{cmd("COMPACT"), ok},
		{cmd("DEBUG", "CF-RECORDS", "subkey"), 1},
		{cmd("SELECT", 2), ok},
		{cmd("HSET", "kept", "again", "1"), 1},
		{cmd("COMPACT"), ok},
		{cmd("HGETALL", "kept"), []any{"again", "1"}},
		{cmd("HGETALL", "other"), []any{"a", "1"}},
	})
	// The expiring key lives in db 2 now: active expiry removes it there.
	pollUntil(t, 10*time.Second, func() (bool, string) {
		n := doInt(t, conn, "DBSIZE")
		return n == 2, fmt.Sprintf("db 2 DBSIZE %d, want 2", n)
	})
}

// TestSwapDBKill: SIGKILL while SWAPDBs run back to back. The map and the
// counters change in one write, so after the restart each database holds
// one side whole, with that side's DBSIZE, as the acknowledged swaps left
// them or as the one in flight at the kill did.
func TestSwapDBKill(t *testing.T) {
	t.Parallel()
	p := startShale(t, shaleOpts{})
	conn := newConn(t, p.Addr)
	fill(t, p.Client, "RPUSH", "list", 100, func(i int) []any { return []any{i} })
	run(t, conn, []step{
		{cmd("SET", "side", "A"), ok},
		{cmd("SET", "x", "1", "EX", 1000), ok},
		{cmd("SELECT", 1), ok},
		{cmd("SET", "side", "B"), ok},
		{cmd("SELECT", 2), ok},
		{cmd("SET", "side", "C"), ok},
		{cmd("SET", "y", "1"), ok},
	})
	sizes := map[string]int{"A": 3, "B": 1, "C": 2}
	// The swaps alternate between SWAPDB 0 1 and SWAPDB 1 2, which cycle
	// the sides through six states: a count's parity alone says little.
	pairs := [2][2]int{{0, 1}, {1, 2}}
	after := func(n int) [3]string {
		st := [3]string{"A", "B", "C"}
		for i := range n {
			x, y := pairs[i%2][0], pairs[i%2][1]
			st[x], st[y] = st[y], st[x]
		}
		return st
	}
	swapper := newClient(p.Addr, "")
	defer swapper.Close()
	acked := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			pr := pairs[acked%2]
			if swapper.Do(context.Background(), "SWAPDB", pr[0], pr[1]).Err() != nil {
				return
			}
			acked++
		}
	}()
	time.Sleep(300 * time.Millisecond)
	p.Kill()
	<-done
	r := startShale(t, shaleOpts{Dir: p.Dir})
	rc := newConn(t, r.Addr)
	var got [3]string
	for db := range 3 {
		run(t, rc, []step{{cmd("SELECT", db), ok}})
		got[db] = doStr(t, rc, "GET", "side")
		run(t, rc, []step{{cmd("DBSIZE"), sizes[got[db]]}})
		if got[db] == "A" {
			run(t, rc, []step{
				{cmd("LLEN", "list"), 100},
				{cmd("TTL", "x"), between(900, 1000)},
			})
		}
	}
	if got != after(acked) && got != after(acked+1) {
		t.Fatalf("after %d acknowledged swaps the dbs hold sides %v; want %v or %v", acked, got, after(acked), after(acked+1))
	}
	t.Logf("%d swaps acknowledged before the kill; the dbs hold sides %v", acked, got)
}
