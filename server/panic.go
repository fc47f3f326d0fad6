package server

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/tidwall/redcon"

	"github.com/shaledb/shale/server/types"
)

// A panic while a command runs is a bug in Shale. It must cost the client
// that sent the command its connection, never the server and its other
// clients. dispatchSafely recovers it. By then the handler's deferred
// unlocks and batch releases have run, and store.Group.Add has rolled
// back the panicking command's writes, so its keys are free and nothing of
// it reached the disk. The client gets errInternal in place of whatever part
// of the reply the handler had written, and the connection closes after it,
// since its state (a MULTI, a subscription, a pipeline's remaining
// commands) can no longer be trusted.

// dispatchSafely is dispatch with a panic turned into errInternal.
func (s *Server) dispatchSafely(c *Client, conn redcon.Conn, args [][]byte) {
	mark := -1
	if c.pipe.wr != nil {
		mark = bufferedLen(c.pipe.wr)
	}
	defer func() {
		if r := recover(); r != nil {
			s.recoverCommand(c, conn, args, r, mark)
		}
	}()
	s.dispatch(c, conn, args)
}

// recoverCommand logs and counts panic r of the command args, drops what
// its reply had written after mark (-1: nothing to drop), replies
// errInternal and marks the connection to close.
func (s *Server) recoverCommand(c *Client, conn redcon.Conn, args [][]byte, r any, mark int) {
	name := "unknown"
	cmd := s.table.lookup(args[0])
	if cmd != nil {
		name = cmd.Name
	}
	s.stats.panics.Add(1)
	// The arguments stay out of the log: they may hold secrets. So may a
	// panic value of our own making; a runtime error's text does not.
	s.log.Error().Str("cmd", name).Str("panic", panicText(r)).Str("stack", string(debug.Stack())).
		Msg("command panicked; closing its connection")
	if mark >= 0 && bufferedLen(c.pipe.wr) > mark {
		c.pipe.wr.SetBuffer(c.pipe.wr.Buffer()[:mark])
	}
	if cmd != nil {
		c.ctx.grouped = false // it never joins its group's replies: record it now
		s.observe(&c.ctx, cmd, cmd.subcommandIndex(args), args, 0, errInternal)
	}
	s.replyError(conn, errInternal)
	conn.ReadPipeline() // the commands pipelined after it never run
	c.closeAfterReply = true
}

// panicText is what the log may say of a panic value: a runtime error's
// text, or, in the invariants build (tests), anything; otherwise its type.
func panicText(r any) string {
	if err, ok := r.(runtime.Error); ok {
		return err.Error()
	}
	if types.Invariants {
		return fmt.Sprint(r)
	}
	return fmt.Sprintf("%T (value withheld: it may hold client data)", r)
}

// DEBUG PANIC key: a panic inside a keyed command, for the tests of the
// recovery above.
func cmdDebugPanic(c *Ctx, args [][]byte) error {
	return c.DB.DebugPanic(args[2])
}
