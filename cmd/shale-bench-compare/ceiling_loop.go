package main

import (
	"runtime"

	"github.com/panjf2000/gnet/v2"
	"github.com/tidwall/redcon"
)

// serveCeilingLoop serves the ceiling's store from loops event loops
// (gnet's; 0 means one per CPU) instead of a goroutine per connection: each
// loop reads the connections epoll says are ready, runs their commands and
// writes their replies, with no goroutine switch in between. It measures
// what a Go server gains from an event-loop network layer (docs/
// BENCHMARKS.md, "An event loop's ceiling"); gnet is used because it is a
// maintained epoll loop for Go, which would be a project of its own.
func serveCeilingLoop(addr string, loops int) error {
	if loops <= 0 {
		loops = runtime.NumCPU()
	}
	h := &ceilingLoop{s: newCeilingStore()}
	return gnet.Run(h, "tcp://"+addr, gnet.WithMulticore(true), gnet.WithNumEventLoop(loops))
}

type ceilingLoop struct {
	gnet.BuiltinEventEngine
	s *ceilingStore
}

// loopConn is the redcon.Conn the store's commands write to: it appends
// their replies to out, which OnTraffic sends once per read. The methods
// the commands do not call are left to the embedded nil interface.
type loopConn struct {
	redcon.Conn
	out  []byte
	args [][]byte // parse buffer, reused
}

func (c *loopConn) WriteError(msg string)    { c.out = redcon.AppendError(c.out, msg) }
func (c *loopConn) WriteString(s string)     { c.out = redcon.AppendString(c.out, s) }
func (c *loopConn) WriteBulk(b []byte)       { c.out = redcon.AppendBulk(c.out, b) }
func (c *loopConn) WriteBulkString(s string) { c.out = redcon.AppendBulkString(c.out, s) }
func (c *loopConn) WriteInt(n int)           { c.out = redcon.AppendInt(c.out, int64(n)) }
func (c *loopConn) WriteInt64(n int64)       { c.out = redcon.AppendInt(c.out, n) }
func (c *loopConn) WriteUint64(n uint64)     { c.out = redcon.AppendUint(c.out, n) }
func (c *loopConn) WriteArray(n int)         { c.out = redcon.AppendArray(c.out, n) }
func (c *loopConn) WriteNull()               { c.out = redcon.AppendNull(c.out) }
func (c *loopConn) WriteRaw(b []byte)        { c.out = append(c.out, b...) }
func (c *loopConn) WriteAny(v any)           { c.out = redcon.AppendAny(c.out, v) }

func (h *ceilingLoop) OnOpen(c gnet.Conn) ([]byte, gnet.Action) {
	c.SetContext(&loopConn{})
	return nil, gnet.None
}

// OnTraffic runs every whole command c's input holds, in order, and sends
// their replies in one write; a partial command waits for more input.
func (h *ceilingLoop) OnTraffic(c gnet.Conn) gnet.Action {
	lc := c.Context().(*loopConn)
	in, err := c.Peek(-1)
	if err != nil {
		return gnet.Close
	}
	used := 0
	for {
		complete, args, _, rest, err := redcon.ReadNextCommand(in[used:], lc.args[:0])
		if err != nil {
			lc.WriteError(err.Error())
			c.Write(lc.out)
			return gnet.Close
		}
		if !complete {
			break
		}
		lc.args = args
		used = len(in) - len(rest)
		if len(args) > 0 {
			h.s.handle(lc, redcon.Command{Args: args})
		}
	}
	if used > 0 { // gnet's Discard(0) discards everything
		if _, err := c.Discard(used); err != nil {
			return gnet.Close
		}
	}
	if len(lc.out) > 0 {
		_, err := c.Write(lc.out)
		lc.out = lc.out[:0]
		if err != nil {
			return gnet.Close
		}
	}
	return gnet.None
}
