package tests

import (
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestProtocolMalformed: malformed RESP gets Redis's protocol error and the
// server closes that connection; the server itself carries on.
func TestProtocolMalformed(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		for _, tc := range []struct{ name, send, want string }{
			{"bad bulk length", "*1\r\n$abc\r\n", "-ERR Protocol error: invalid bulk length\r\n"},
			{"negative bulk length", "*1\r\n$-1\r\n", "-ERR Protocol error: invalid bulk length\r\n"},
			{"bulk over 512MB", "*1\r\n$536870913\r\n", "-ERR Protocol error: invalid bulk length\r\n"},
			{"bad multibulk length", "*abc\r\n", "-ERR Protocol error: invalid multibulk length\r\n"},
			{"no $", "*1\r\nx\r\n", "-ERR Protocol error: expected '$', got 'x'\r\n"},
			{"unbalanced quotes", "SET \"a b\r\n", "-ERR Protocol error: unbalanced quotes in request\r\n"},
			// Replies to the commands before the bad one come first.
			{"after a good command", "*1\r\n$4\r\nPING\r\n*1\r\n$x\r\n", "+PONG\r\n-ERR Protocol error: invalid bulk length\r\n"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := dialRaw(t, b.Addr)
				r.send(tc.send)
				var got string
				for range strings.Count(tc.want, "\r\n") {
					got += r.readLine()
				}
				if !strings.Contains(got, "-ERR Protocol error") {
					t.Fatalf("sent %q: got %q, want a reply starting -ERR Protocol error", tc.send, got)
				}
				if got != tc.want {
					t.Errorf("sent %q: got %q, want %q", tc.send, got, tc.want)
				}
				r.expectClosed()
			})
		}
		run(t, c, []step{{cmd("PING"), "PONG"}})
	})
}

func TestProtocolInline(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		// Each case on its own connection, so that one failure does not
		// shift the replies of the next.
		for _, tc := range []struct{ send, want string }{
			{"PING\r\n", "+PONG\r\n"},
			{"ping\n", "+PONG\r\n"}, // a bare \n ends an inline command too
			{"\r\n\r\nPING\r\n", "+PONG\r\n"},
			{"  PING   x  \r\n", "$1\r\nx\r\n"},
			{"PING \"a b\"\r\n", "$3\r\na b\r\n"},
			{"PING 'a b'\r\n", "$3\r\na b\r\n"},
			{"PING \"a\\x41\\n\"\r\n", "$3\r\naA\n\r\n"},
			{"SET k v\r\nGET k\r\n", "+OK\r\n$1\r\nv\r\n"},
			{"*0\r\n*-1\r\n*1\r\n$4\r\nPING\r\n", "+PONG\r\n"}, // empty and null arrays are skipped
			{"*1\r\n$4\r\nPING\r\n*1\r\n$4\r\nPING\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n", "+PONG\r\n+PONG\r\n$1\r\nv\r\n"},
			{"*2\r\n$3\r\nGET\r\n$4\r\nnope\r\n", "$-1\r\n"},
			{"*2\r\n$4\r\nECHO\r\n$0\r\n\r\n", "$0\r\n\r\n"},
			{"foo a\r\n", "-ERR unknown command 'foo', with args beginning with: 'a' \r\n"},
		} {
			r := dialRaw(t, b.Addr)
			r.send(tc.send)
			if got, err := r.readBytes(len(tc.want)); got != tc.want {
				t.Errorf("sent %q: got %q (%v), want %q", tc.send, got, err, tc.want)
			}
		}
		r := dialRaw(t, b.Addr)
		// A command split across writes is assembled.
		for _, part := range []string{"*2\r\n$3", "\r\nGET\r", "\n$1\r\nk", "\r\n"} {
			r.send(part)
		}
		if got := r.readLine() + r.readLine(); got != "$1\r\nv\r\n" {
			t.Errorf("split GET: got %q", got)
		}
	})
}

func TestProtocolUnknownCommand(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		long := strings.Repeat("x", 200)
		run(t, c, []step{
			{cmd("foo", "a"), errText("ERR unknown command 'foo', with args beginning with: 'a' ")},
			{cmd("foo"), errText("ERR unknown command 'foo', with args beginning with: ")},
			{cmd("FOO", "a", "", "b c"), errText("ERR unknown command 'FOO', with args beginning with: 'a' '' 'b c' ")},
			// each argument is cut to 128 bytes
			{cmd("foo", long), errText("ERR unknown command 'foo', with args beginning with: '" + long[:128] + "' ")},
			{cmd("PING"), "PONG"},
		})
		if b.isShale() {
			// Modules are not planned: a real command Shale does not know.
			run(t, c, []step{
				{cmd("module", "list"), errText("ERR unknown command 'module', with args beginning with: 'list' ")},
			})
		}
	})
}
