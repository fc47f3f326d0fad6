package tests

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Hostile input over a real socket: the configurable limits, with the same
// settings on shale and on redis-server, get Redis's reply or Redis's close,
// and the server goes on serving other clients.

// bulkCmd encodes args as a RESP multibulk.
func bulkCmd(args ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	return b.String()
}

// expectGone fails unless the server ends the connection within 10s, by
// a close or a reset, after at most maxBytes more bytes; it returns what it
// read.
func (r *rawConn) expectGone(maxBytes int64) int64 {
	r.t.Helper()
	_ = r.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	n, err := io.Copy(io.Discard, io.LimitReader(r.r, maxBytes+1))
	var ne net.Error
	switch {
	case err == nil && n > maxBytes:
		r.t.Fatalf("read more than %d bytes: the connection was not cut", maxBytes)
	case errors.As(err, &ne) && ne.Timeout():
		r.t.Fatalf("connection still open after 10s (read %d bytes)", n)
	}
	return n
}

func TestLimitsProtocol(t *testing.T) {
	t.Parallel()
	const mib = 1 << 20
	opts := backendOpts{
		RedisArgs: []string{"--proto-max-bulk-len", "4mb", "--client-query-buffer-limit", "1mb"},
		Shale:     shaleOpts{Config: "[server]\nproto_max_bulk_len = \"4MiB\"\nclient_query_buffer_limit = \"1MiB\"\n"},
	}
	forEachBackendOpts(t, opts, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("CONFIG", "GET", "proto-max-bulk-len"), []any{"proto-max-bulk-len", strconv.Itoa(4 * mib)}},
			{cmd("CONFIG", "GET", "client-query-buffer-limit"), []any{"client-query-buffer-limit", strconv.Itoa(mib)}},
		})

		// A bulk longer than proto-max-bulk-len: Redis's error, then close.
		r := dialRaw(t, b.Addr)
		r.send("*2\r\n$4\r\nECHO\r\n$" + strconv.Itoa(4*mib+1) + "\r\n")
		if got := r.readLine(); got != "-ERR Protocol error: invalid bulk length\r\n" {
			t.Errorf("bulk over proto-max-bulk-len: got %q", got)
		}
		r.expectClosed()

		// An argument within proto-max-bulk-len but over the query buffer
		// limit: closed without a reply.
		r = dialRaw(t, b.Addr)
		big := strings.Repeat("x", 2*mib)
		go func() { _, _ = r.conn.Write([]byte(bulkCmd("SET", "big", big))) }()
		if n := r.expectGone(0); n != 0 {
			t.Errorf("argument over the query buffer limit: got %d bytes of reply, want none", n)
		}

		// Arguments already read leave the query buffer: a command longer
		// than the limit is fine when each argument fits.
		part := strings.Repeat("y", 900<<10)
		r = dialRaw(t, b.Addr)
		r.send(bulkCmd("RPUSH", "l", part, part) + bulkCmd("PING"))
		if got := r.readLine() + r.readLine(); got != ":2\r\n+PONG\r\n" {
			t.Errorf("RPUSH of two 900KiB elements: got %q", got)
		}

		// String values cannot outgrow proto-max-bulk-len.
		const tooBig = "ERR string exceeds maximum allowed size (proto-max-bulk-len)"
		run(t, c, []step{
			{cmd("SETRANGE", "s", 4*mib, "x"), errText(tooBig)},
			{cmd("SETRANGE", "s", 4*mib-1, "x"), int64(4 * mib)},
			{cmd("APPEND", "s", "x"), errText(tooBig)},
			{cmd("STRLEN", "s"), int64(4 * mib)},
		})

		// A blocked client that sends more than the query buffer limit while
		// it waits is closed.
		r = dialRaw(t, b.Addr)
		r.send(bulkCmd("BLPOP", "nolist", "0"))
		time.Sleep(200 * time.Millisecond) // let it block
		go func() {
			for i := 0; i < 30; i++ {
				if _, err := r.conn.Write([]byte(bulkCmd("ECHO", strings.Repeat("z", 64<<10)))); err != nil {
					return
				}
			}
		}()
		if n := r.expectGone(0); n != 0 {
			t.Errorf("blocked client over the query buffer limit: got %d bytes, want none", n)
		}

		run(t, c, []step{{cmd("PING"), "PONG"}, {cmd("LLEN", "l"), int64(2)}})
	})
}

// TestLimitsMultibulk: proto_max_multibulk_len (Redis fixes it at INT_MAX,
// which TestProtocolMalformed covers) is enforced when set lower.
func TestLimitsMultibulk(t *testing.T) {
	t.Parallel()
	p := startShale(t, shaleOpts{Config: "[server]\nproto_max_multibulk_len = 4\n"})
	r := dialRaw(t, p.Addr)
	r.send(bulkCmd("RPUSH", "l", "a", "b"))
	if got := r.readLine(); got != ":2\r\n" {
		t.Fatalf("4 arguments: got %q", got)
	}
	r.send(bulkCmd("RPUSH", "l", "a", "b", "c"))
	if got := r.readLine(); got != "-ERR Protocol error: invalid multibulk length\r\n" {
		t.Fatalf("5 arguments: got %q", got)
	}
	r.expectClosed()
	run(t, p.Client, []step{
		{cmd("CONFIG", "SET", "server.proto_max_multibulk_len", "5"), ok},
		{cmd("RPUSH", "l", "a", "b", "c"), int64(5)},
	})
}

// TestLimitsMaxClients: the connection after maxclients gets Redis's error
// and is closed; a slot freed is usable again.
func TestLimitsMaxClients(t *testing.T) {
	t.Parallel()
	const max = 4
	opts := backendOpts{
		RedisArgs: []string{"--maxclients", strconv.Itoa(max)},
		Shale:     shaleOpts{Config: fmt.Sprintf("[server]\nmaxclients = %d\n", max)},
	}
	forEachBackendOpts(t, opts, func(t *testing.T, c *redis.Client, b backend) {
		var open []*rawConn
		var refused *rawConn
		for i := 0; i < max+1 && refused == nil; i++ {
			r := dialRaw(t, b.Addr)
			r.send(bulkCmd("PING"))
			switch got := r.readLine(); got {
			case "+PONG\r\n":
				open = append(open, r)
			case "-ERR max number of clients reached\r\n":
				refused = r
			default:
				t.Fatalf("connection %d: got %q", i+1, got)
			}
		}
		// The harness's own client may hold one slot.
		if refused == nil || len(open) < max-1 {
			t.Fatalf("%d connections served, refused: %v; want %d or %d served, then refused", len(open), refused != nil, max-1, max)
		}
		refused.expectClosed()
		// Free a slot: a new connection is served once the server saw the close.
		open[0].conn.Close()
		pollUntil(t, 5*time.Second, func() (bool, string) {
			r := dialRaw(t, b.Addr)
			r.send(bulkCmd("PING"))
			got := r.readLine()
			r.conn.Close()
			return got == "+PONG\r\n", "new connection got " + got
		})
	})
}

// TestLimitsOutputBuffer: a client that sends commands but reads nothing is
// disconnected once its unread replies pass the output buffer limit, and the
// server's memory stays bounded.
func TestLimitsOutputBuffer(t *testing.T) {
	t.Parallel()
	opts := backendOpts{
		RedisArgs: []string{"--client-output-buffer-limit", "normal 1mb 0 0"},
		Shale:     shaleOpts{Config: "[server]\nclient_output_buffer_limit = \"1MiB\"\n"},
	}
	forEachBackendOpts(t, opts, func(t *testing.T, c *redis.Client, b backend) {
		const valueBytes, gets = 512 << 10, 400 // 200 MiB of replies if nobody cut them
		do(t, c, "SET", "big", strings.Repeat("v", valueBytes))
		rssBefore := infoInt(t, c, "memory", "used_memory_rss")

		r := dialRaw(t, b.Addr)
		_ = r.conn.(*net.TCPConn).SetReadBuffer(64 << 10)
		sent := make(chan error, 1)
		go func() {
			var err error
			for i := 0; i < gets && err == nil; i++ {
				_ = r.conn.SetWriteDeadline(time.Now().Add(20 * time.Second))
				_, err = r.conn.Write([]byte(bulkCmd("GET", "big")))
			}
			sent <- err
		}()
		// Read nothing until every command is sent (or the server cut us
		// off): the replies pile up in the server.
		select {
		case <-sent:
		case <-time.After(30 * time.Second):
			t.Fatal("the client could not send its commands within 30s: the server stopped reading")
		}
		got := r.expectGone(int64(gets) * valueBytes / 2)
		t.Logf("%s: the client got %d of %d reply bytes before the close", b.Name, got, gets*valueBytes)

		rssAfter := infoInt(t, c, "memory", "used_memory_rss")
		if grew := rssAfter - rssBefore; grew > 64<<20 {
			t.Errorf("RSS grew by %d MiB (from %d to %d): the unread replies were kept", grew>>20, rssBefore>>20, rssAfter>>20)
		}
		run(t, c, []step{{cmd("STRLEN", "big"), int64(valueBytes)}})
		if b.isShale() {
			// The server's output reaches the harness through a pipe,
			// after the close the client saw.
			pollUntil(t, 5*time.Second, func() (bool, string) {
				out := b.Proc.Output()
				return strings.Contains(out, "output buffer limits"), "no log line about the output buffer limit:\n" + out
			})
		}
	})
}

// infoInt reads one integer field of an INFO section.
func infoInt(t testing.TB, c *redis.Client, section, field string) int64 {
	t.Helper()
	info := doStr(t, c, "INFO", section)
	for _, line := range strings.Split(info, "\r\n") {
		if v, found := strings.CutPrefix(line, field+":"); found {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatalf("INFO %s: %s", section, line)
			}
			return n
		}
	}
	t.Fatalf("INFO %s has no %s:\n%s", section, field, info)
	return 0
}
