package tests

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
)

// blockWithID sends a blocking command on a connection of its own, waits
// until wantBlocked clients are blocked, and returns the connection's
// client id and the channel its reply arrives on.
func blockWithID(t *testing.T, b backend, c *redis.Client, wantBlocked int64, args ...any) (int64, <-chan reply) {
	t.Helper()
	cn := newConn(t, b.Addr)
	id := doInt(t, cn, "CLIENT", "ID")
	ch := make(chan reply, 1)
	go func() {
		v, err := cn.Do(context.Background(), args...).Result()
		ch <- reply{v, err}
	}()
	waitBlocked(t, c, wantBlocked)
	return id, ch
}

// TestClientUnblock: CLIENT UNBLOCK ends a blocking command's wait, as a
// timeout (a null) or with an UNBLOCKED error, and answers 1; 0 for a
// client that is not blocked.
func TestClientUnblock(t *testing.T) {
	t.Parallel()
	const unblocked = "UNBLOCKED client unblocked via CLIENT UNBLOCK"
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		self := doInt(t, c, "CLIENT", "ID")
		run(t, c, []step{
			{cmd("CLIENT", "UNBLOCK", 999999), 0},
			{cmd("CLIENT", "UNBLOCK", self), 0},
			{cmd("CLIENT", "UNBLOCK", -1, "TIMEOUT"), 0},
			{cmd("CLIENT", "UNBLOCK", 999999, "error"), 0},
			// The reason is read before the id.
			{cmd("CLIENT", "UNBLOCK", "abc", "foo"), errText("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR")},
			{cmd("CLIENT", "UNBLOCK", 1, "foo"), errText("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR")},
			{cmd("CLIENT", "UNBLOCK", "abc"), errText("ERR value is not an integer or out of range")},
			{cmd("CLIENT", "unblock", "1", "TIMEOUT", "x"), errText("ERR unknown subcommand or wrong number of arguments for 'unblock'. Try CLIENT HELP.")},
			{cmd("CLIENT", "UNBLOCK"), errText("ERR wrong number of arguments for 'client|unblock' command")},
		})

		// TIMEOUT (the default): the blocked command replies as if its
		// timeout had passed.
		id, ch := blockWithID(t, b, c, 1, "BLPOP", "list", 0)
		run(t, c, []step{{cmd("CLIENT", "UNBLOCK", id), 1}})
		expectReply(t, ch, isNil)
		waitBlocked(t, c, 0)
		run(t, c, []step{{cmd("CLIENT", "UNBLOCK", id), 0}})

		id, ch = blockWithID(t, b, c, 1, "BZPOPMIN", "zset", 0)
		run(t, c, []step{{cmd("CLIENT", "UNBLOCK", id, "timeout"), 1}})
		expectReply(t, ch, isNil)

		// ERROR: the blocked command fails; the unblocked client no longer
		// waits, so a later push stays in the list.
		id, ch = blockWithID(t, b, c, 1, "BLMOVE", "src", "dst", "LEFT", "RIGHT", 0)
		run(t, c, []step{
			{cmd("CLIENT", "UNBLOCK", id, "ERROR"), 1},
			{cmd("CLIENT", "UNBLOCK", id, "ERROR"), 0},
		})
		expectReply(t, ch, errText(unblocked))
		run(t, c, []step{
			{cmd("RPUSH", "src", "a"), 1},
			{cmd("LLEN", "src"), 1},
			{cmd("EXISTS", "dst"), 0},
		})

		// Two clients on one key: unblocking the first leaves the second
		// first in line.
		id1, ch1 := blockWithID(t, b, c, 1, "BRPOP", "q", 0)
		_, ch2 := blockWithID(t, b, c, 2, "BRPOP", "q", 0)
		run(t, c, []step{{cmd("CLIENT", "UNBLOCK", id1, "ERROR"), 1}})
		expectReply(t, ch1, errText(unblocked))
		run(t, c, []step{{cmd("RPUSH", "q", "x"), 1}})
		expectReply(t, ch2, []any{"q", "x"})
	})
}
