package tests

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// blockedClients is INFO's blocked_clients.
func blockedClients(t *testing.T, c *redis.Client) int64 {
	t.Helper()
	info := doStr(t, c, "INFO", "clients")
	for _, line := range strings.Split(info, "\r\n") {
		if v, found := strings.CutPrefix(line, "blocked_clients:"); found {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatalf("INFO clients: %q", line)
			}
			return n
		}
	}
	t.Fatalf("INFO clients has no blocked_clients:\n%s", info)
	return 0
}

// waitBlocked waits until n clients are blocked.
func waitBlocked(t *testing.T, c *redis.Client, n int64) {
	t.Helper()
	pollUntil(t, 10*time.Second, func() (bool, string) {
		got := blockedClients(t, c)
		return got == n, fmt.Sprintf("blocked_clients %d, want %d", got, n)
	})
}

// reply is one command's outcome.
type reply struct {
	val any
	err error
}

// startBlocking sends a command on a connection of its own and returns the
// channel its reply arrives on. With wantBlocked > 0 it waits until that
// many clients are blocked, so that callers order the waiters.
func startBlocking(t *testing.T, b backend, c *redis.Client, wantBlocked int64, args ...any) <-chan reply {
	t.Helper()
	cn := newConn(t, b.Addr)
	ch := make(chan reply, 1)
	go func() {
		v, err := cn.Do(context.Background(), args...).Result()
		ch <- reply{v, err}
	}()
	if wantBlocked > 0 {
		waitBlocked(t, c, wantBlocked)
	}
	return ch
}

// expectReply waits for a reply and matches it as a script step does.
func expectReply(t *testing.T, ch <-chan reply, want any) {
	t.Helper()
	select {
	case r := <-ch:
		if why := matchReply(want, r.val, r.err); why != "" {
			t.Fatalf("got %s, want %s (%s)", fmtReply(r.val, r.err), fmtVal(want), why)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("no reply within 10s, want %s", fmtVal(want))
	}
}

// expectNoReply checks that a blocked command is still waiting.
func expectNoReply(t *testing.T, ch <-chan reply) {
	t.Helper()
	select {
	case r := <-ch:
		t.Fatalf("a blocked client got %s", fmtReply(r.val, r.err))
	case <-time.After(50 * time.Millisecond):
	}
}

// TestBlockingImmediate: with data present the blocking commands do not
// wait, and they time out with a null array; their argument errors.
func TestBlockingImmediate(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("RPUSH", "l", "x", "y", "z"), 3},
			{cmd("BLPOP", "nokey", "l", "l", 0), []any{"l", "x"}},
			{cmd("BRPOP", "l", 0), []any{"l", "z"}},
			{cmd("RPUSH", "l", "1", "2"), 3},
			{cmd("BLMPOP", 0, 2, "nokey", "l", "LEFT", "COUNT", 2), []any{"l", []any{"y", "1"}}},
			{cmd("BLMOVE", "l", "d", "LEFT", "RIGHT", 0), "2"},
			{cmd("BRPOPLPUSH", "d", "e", 0), "2"},
			{cmd("EXISTS", "l", "d"), 0},
			{cmd("LRANGE", "e", 0, -1), []any{"2"}},
			{cmd("BRPOPLPUSH", "e", "e", 0), "2"}, // a rotation

			// Timeouts: a null array, whatever the command.
			{cmd("BLPOP", "k", 0.01), isNil},
			{cmd("BRPOP", "k", "k2", "0.01"), isNil},
			{cmd("BLMOVE", "a", "b", "LEFT", "RIGHT", 0.01), isNil},
			{cmd("BRPOPLPUSH", "a", "b", 0.01), isNil},
			{cmd("BLMPOP", 0.01, 1, "k", "LEFT"), isNil},
			{cmd("BLPOP", "k", "0.0001"), isNil}, // rounded up to 1ms, not 0 (for ever)
			{cmd("BLPOP", "k", "1e-10"), isNil},
			{cmd("BLPOP", "k", "+.01"), isNil},
			{cmd("BLPOP", "k", "0x0.04"), isNil}, // strtold reads hex: 1/64 s
			{cmd("BLPOP", "k", "0x"), errText("ERR timeout is not a float or out of range")},

			{cmd("BLPOP", "k", "x"), errText("ERR timeout is not a float or out of range")},
			{cmd("BLPOP", "k", ""), errText("ERR timeout is not a float or out of range")},
			{cmd("BLPOP", "k", " 1"), errText("ERR timeout is not a float or out of range")},
			{cmd("BLPOP", "k", "nan"), errText("ERR timeout is not a float or out of range")},
			{cmd("BLPOP", "k", "1e5000"), errText("ERR timeout is not a float or out of range")},
			{cmd("BLPOP", "k", -1), errText("ERR timeout is negative")},
			{cmd("BLPOP", "k", "inf"), errText("ERR timeout is negative")},
			{cmd("BLPOP", "k", "1e16"), errText("ERR timeout is negative")}, // its milliseconds overflow
			{cmd("BLPOP", "k", "9223372036854775807"), errText("ERR timeout is negative")},
			{cmd("BRPOP", "k", -0.5), errText("ERR timeout is negative")},
			{cmd("BLPOP", "k"), errText("ERR wrong number of arguments for 'blpop' command")},
			{cmd("BLMOVE", "a", "b", "UP", "RIGHT", 0.1), errText("ERR syntax error")},
			{cmd("BLMOVE", "a", "b", "UP", "RIGHT", "x"), errText("ERR syntax error")},
			{cmd("BLMOVE", "a", "b", "LEFT", "RIGHT", "x"), errText("ERR timeout is not a float or out of range")},
			{cmd("BLMOVE", "a", "b", "LEFT", "RIGHT", 0.01, "x"), errText("ERR wrong number of arguments for 'blmove' command")},
			{cmd("BRPOPLPUSH", "a", "b", -1), errText("ERR timeout is negative")},
			{cmd("BLMPOP", 0.01, 0, "k", "LEFT"), errText("ERR numkeys should be greater than 0")},
			{cmd("BLMPOP", "x", 0, "k", "LEFT"), errText("ERR numkeys should be greater than 0")}, // numkeys first
			{cmd("BLMPOP", "x", 1, "k", "LEFT"), errText("ERR timeout is not a float or out of range")},
			{cmd("BLMPOP", -1, 1, "k", "LEFT"), errText("ERR timeout is negative")},
			{cmd("BLMPOP", 0.01, 1, "k", "MIDDLE"), errText("ERR syntax error")},
			{cmd("BLMPOP", 0.01, 1, "k", "LEFT", "COUNT", 0), errText("ERR count should be greater than 0")},
			{cmd("BLMPOP", 0.01, 2, "k", "LEFT"), errText("ERR syntax error")},
			{cmd("BLMPOP", 0.01, 1, "k"), errText("ERR wrong number of arguments for 'blmpop' command")},

			// WRONGTYPE: the keys are checked in order until one serves.
			{cmd("SET", "s", "v"), ok},
			{cmd("RPUSH", "k", "a", "b"), 2},
			{cmd("BLPOP", "s", 0.01), errText(wrongType)},
			{cmd("BLPOP", "s", "k", 0.01), errText(wrongType)},
			{cmd("BLPOP", "k", "s", 0.01), []any{"k", "a"}},
			{cmd("BLMPOP", 0.01, 2, "s", "k", "LEFT"), errText(wrongType)},
			{cmd("BLMOVE", "k", "s", "LEFT", "RIGHT", 0.01), errText(wrongType)},
			{cmd("LLEN", "k"), 1},
			{cmd("BLMOVE", "nokey", "s", "LEFT", "RIGHT", 0.01), isNil}, // the destination is not looked at
		})
	})
}

// TestBlockingTimeout: a fractional timeout waits about that long.
func TestBlockingTimeout(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		start := time.Now()
		run(t, c, []step{{cmd("BLPOP", "k", "0.3"), isNil}})
		if d := time.Since(start); d < 250*time.Millisecond || d > 5*time.Second {
			t.Fatalf("BLPOP k 0.3 took %v", d)
		}
		waitBlocked(t, c, 0)
	})
}

// TestBlockingFIFO: clients blocked on one key are served in the order they
// blocked, one element each; the rest keep waiting, and the pusher sees the
// list as the blocked clients left it.
func TestBlockingFIFO(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		w1 := startBlocking(t, b, c, 1, "BLPOP", "k", 0)
		w2 := startBlocking(t, b, c, 2, "BRPOP", "other", "k", 0)
		w3 := startBlocking(t, b, c, 3, "BLMPOP", 0, 1, "k", "LEFT", "COUNT", 5)
		w4 := startBlocking(t, b, c, 4, "BLPOP", "k", 0)
		run(t, c, []step{
			{cmd("RPUSH", "k", "a"), 1},
			{cmd("LLEN", "k"), 0}, // served before RPUSH replied
		})
		expectReply(t, w1, []any{"k", "a"})
		expectNoReply(t, w2)
		run(t, c, []step{
			{cmd("RPUSH", "k", "b", "c", "d"), 3},
			{cmd("LLEN", "k"), 0},
		})
		expectReply(t, w2, []any{"k", "d"}) // BRPOP takes the tail
		expectReply(t, w3, []any{"k", []any{"b", "c"}})
		expectNoReply(t, w4)
		waitBlocked(t, c, 1)
		run(t, c, []step{{cmd("LPUSH", "k", "e", "f"), 2}})
		expectReply(t, w4, []any{"k", "f"})
		run(t, c, []step{
			{cmd("LRANGE", "k", 0, -1), []any{"e"}},
		})
		waitBlocked(t, c, 0)
	})
}

// TestBlockingWakers: LPUSHX, LINSERT's list, LMOVE, RPOPLPUSH, RENAME,
// MOVE and COPY all wake a client blocked on their destination; a key of
// another type does not, and the client keeps waiting.
func TestBlockingWakers(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		w := startBlocking(t, b, c, 1, "BLPOP", "k", 0)
		run(t, c, []step{
			{cmd("SET", "k", "string"), ok},
			{cmd("DEL", "k"), 1},
		})
		expectNoReply(t, w)
		run(t, c, []step{{cmd("LPUSHX", "k", "x"), 0}})
		expectNoReply(t, w)
		run(t, c, []step{
			{cmd("RPUSH", "src", "1", "2", "3", "4"), 4},
			{cmd("LMOVE", "src", "k", "LEFT", "LEFT"), "1"},
		})
		expectReply(t, w, []any{"k", "1"})

		w = startBlocking(t, b, c, 1, "BLPOP", "k", 0)
		run(t, c, []step{{cmd("RPOPLPUSH", "src", "k"), "4"}})
		expectReply(t, w, []any{"k", "4"})

		w = startBlocking(t, b, c, 1, "BLPOP", "k", 0)
		run(t, c, []step{{cmd("RENAME", "src", "k"), ok}})
		expectReply(t, w, []any{"k", "2"})
		run(t, c, []step{{cmd("LRANGE", "k", 0, -1), []any{"3"}}, {cmd("DEL", "k"), 1}})

		w = startBlocking(t, b, c, 1, "BRPOP", "k", 0)
		run(t, c, []step{
			{cmd("RPUSH", "tmp", "a", "b"), 2},
			{cmd("COPY", "tmp", "k"), 1},
		})
		expectReply(t, w, []any{"k", "b"})
		run(t, c, []step{{cmd("DEL", "k"), 1}})

		w = startBlocking(t, b, c, 1, "BLPOP", "k", 0)
		db1 := newConn(t, b.Addr)
		run(t, db1, []step{
			{cmd("SELECT", 1), ok},
			{cmd("RPUSH", "k", "from1"), 1},
			{cmd("MOVE", "k", 0), 1},
		})
		expectReply(t, w, []any{"k", "from1"})

		// SORT ... STORE writes a new list and wakes its waiters; an empty
		// result deletes the destination and wakes no one.
		w = startBlocking(t, b, c, 1, "BLPOP", "k", 0)
		run(t, c, []step{
			{cmd("SORT", "nokey", "STORE", "k"), 0},
		})
		expectNoReply(t, w)
		run(t, c, []step{
			{cmd("RPUSH", "unsorted", "2", "1"), 2},
			{cmd("SORT", "unsorted", "STORE", "k"), 2},
		})
		expectReply(t, w, []any{"k", "1"})
		run(t, c, []step{{cmd("LRANGE", "k", 0, -1), []any{"2"}}})
		waitBlocked(t, c, 0)
	})
}

// TestBlockingDisconnect: a client that disconnects while blocked leaves
// the queue, and the element goes to the next waiter rather than being
// lost.
func TestBlockingDisconnect(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		raw := dialRaw(t, b.Addr)
		raw.send("*3\r\n$5\r\nBLPOP\r\n$1\r\nk\r\n$1\r\n0\r\n")
		waitBlocked(t, c, 1)
		w := startBlocking(t, b, c, 2, "BLPOP", "k", 0)
		raw.conn.Close()
		waitBlocked(t, c, 1)
		run(t, c, []step{
			{cmd("RPUSH", "k", "v"), 1},
			{cmd("LLEN", "k"), 0},
		})
		expectReply(t, w, []any{"k", "v"})
		waitBlocked(t, c, 0)
	})
}

// TestBlockingPipelined: commands sent behind a blocked one wait for it and
// then run, in order.
func TestBlockingPipelined(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		raw := dialRaw(t, b.Addr)
		raw.send("*3\r\n$5\r\nBLPOP\r\n$1\r\nk\r\n$1\r\n0\r\n")
		waitBlocked(t, c, 1)
		raw.send("*1\r\n$4\r\nPING\r\n*2\r\n$4\r\nLLEN\r\n$1\r\nk\r\n")
		run(t, c, []step{{cmd("RPUSH", "k", "a", "b"), 2}})
		want := "*2\r\n$1\r\nk\r\n$1\r\na\r\n+PONG\r\n:1\r\n"
		got, err := raw.readBytes(len(want))
		if err != nil || got != want {
			t.Fatalf("read %q, %v; want %q", got, err, want)
		}
		// The replies of commands pipelined before a blocking one are sent
		// before it blocks.
		raw.send("*1\r\n$4\r\nPING\r\n*3\r\n$5\r\nBLPOP\r\n$1\r\nq\r\n$1\r\n0\r\n")
		if got := raw.readLine(); got != "+PONG\r\n" {
			t.Fatalf("read %q before the BLPOP is served, want +PONG", got)
		}
		waitBlocked(t, c, 1)
		run(t, c, []step{{cmd("RPUSH", "q", "x"), 1}})
		want = "*2\r\n$1\r\nq\r\n$1\r\nx\r\n"
		if got, err := raw.readBytes(len(want)); err != nil || got != want {
			t.Fatalf("read %q, %v; want %q", got, err, want)
		}
	})
}

// TestBlockingOthersServed: while a client is blocked, other clients are
// served, and may block on other keys.
func TestBlockingOthersServed(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		w1 := startBlocking(t, b, c, 1, "BLPOP", "k", 0)
		w2 := startBlocking(t, b, c, 2, "BLMOVE", "k2", "k", "RIGHT", "LEFT", 0)
		run(t, c, []step{
			{cmd("PING"), "PONG"},
			{cmd("SET", "x", "1"), ok},
			{cmd("GET", "x"), "1"},
			{cmd("RPUSH", "other", "a"), 1},
			{cmd("LPOP", "other"), "a"},
		})
		expectNoReply(t, w1)
		// BLMOVE's push to k serves the client blocked on k.
		run(t, c, []step{{cmd("RPUSH", "k2", "moved"), 1}})
		expectReply(t, w2, "moved")
		expectReply(t, w1, []any{"k", "moved"})
		run(t, c, []step{{cmd("EXISTS", "k", "k2"), 0}})
		waitBlocked(t, c, 0)
	})
}

// TestBlockingMoveChain: BLMOVE clients in a chain each take the element in
// turn, and the last one keeps it.
func TestBlockingMoveChain(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		w1 := startBlocking(t, b, c, 1, "BLMOVE", "a", "b", "LEFT", "RIGHT", 0)
		w2 := startBlocking(t, b, c, 2, "BRPOPLPUSH", "b", "c", 0)
		w3 := startBlocking(t, b, c, 3, "BLMPOP", 0, 1, "c", "RIGHT")
		run(t, c, []step{
			{cmd("LPUSH", "a", "v"), 1},
			{cmd("EXISTS", "a", "b", "c"), 0},
		})
		expectReply(t, w1, "v")
		expectReply(t, w2, "v")
		expectReply(t, w3, []any{"c", []any{"v"}})
		waitBlocked(t, c, 0)
	})
}

// TestBlockingTimeoutThenServe: a client that timed out is not served
// later; the element stays for the next reader.
func TestBlockingTimeoutThenServe(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		// Not waiting to see it blocked: under load the 50 ms can pass
		// before a poll of INFO would see it.
		w := startBlocking(t, b, c, 0, "BLPOP", "k", "0.05")
		expectReply(t, w, isNil)
		waitBlocked(t, c, 0)
		run(t, c, []step{
			{cmd("RPUSH", "k", "v"), 1},
			{cmd("LLEN", "k"), 1},
		})
		if err := c.Do(ctxT(t), "BLPOP", "k", 0).Err(); errors.Is(err, redis.Nil) || err != nil {
			t.Fatalf("BLPOP with data: %v", err)
		}
	})
}

// TestBlockingShutdown: SHUTDOWN and SIGTERM stop the server promptly while
// clients are blocked for ever; the blocked clients see the connection go.
func TestBlockingShutdown(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"SHUTDOWN", "SIGTERM"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			p := startShale(t, shaleOpts{})
			b := backend{Name: "shale", Addr: p.Addr, Proc: p}
			w1 := startBlocking(t, b, p.Client, 1, "BLPOP", "k", 0)
			w2 := startBlocking(t, b, p.Client, 2, "BLMOVE", "a", "b", "LEFT", "RIGHT", 0)
			if how == "SHUTDOWN" {
				if err := p.Client.Do(ctxT(t), "SHUTDOWN").Err(); err == nil {
					t.Fatal("SHUTDOWN replied")
				}
				select {
				case <-p.done:
					if p.waitErr != nil {
						t.Fatalf("exit after SHUTDOWN: %v", p.waitErr)
					}
				case <-time.After(stopTimeout):
					t.Fatal("still running after SHUTDOWN with blocked clients")
				}
			} else {
				p.Stop() // fails the test unless the server exits cleanly
			}
			for _, w := range []<-chan reply{w1, w2} {
				select {
				case r := <-w:
					if r.err == nil || errors.Is(r.err, redis.Nil) {
						t.Fatalf("a blocked client got %s from a stopped server", fmtReply(r.val, r.err))
					}
				case <-time.After(10 * time.Second):
					t.Fatal("a blocked client is still waiting on a stopped server")
				}
			}
		})
	}
}
