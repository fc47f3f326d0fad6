package server

import (
	"errors"
	"net"
	"sync"
	"syscall"
	"time"
)

// Replies leave through guardConn.Write, which never blocks redcon's
// connection goroutine on a slow reader. It writes what the kernel takes at
// once; the rest waits in an outQueue, which a writer goroutine drains, while
// the connection goes on reading and running commands as Redis does. A client
// that sends commands but does not read its replies makes the queue grow;
// once the queue passes client_output_buffer_limit the connection is closed,
// as Redis closes a normal client that passes its hard output buffer limit.
// Memory per connection is so bounded by the limit plus one reply batch.

// errOutputLimit ends a connection whose unsent replies passed
// client_output_buffer_limit.
var errOutputLimit = errors.New("client output buffer limit reached")

// closeLinger is how long a closed connection may still spend sending its
// queued replies (a QUIT's +OK, a protocol error) before the socket closes.
const closeLinger = 10 * time.Second

// outQueue holds the reply bytes of one connection that the kernel has not
// taken yet.
type outQueue struct {
	mu       sync.Mutex
	buf      []byte // queued bytes the writer has not picked up
	inflight int    // bytes the writer is writing now
	err      error  // sticky: once set, nothing more is written
	writing  bool   // the writer goroutine runs
	closing  bool   // Close came while writing: the writer closes the socket
}

// pending is the number of reply bytes not yet taken by the kernel.
func (q *outQueue) pending() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.buf) + q.inflight
}

// Write sends p, or queues what the kernel does not take at once. Only
// redcon's connection goroutine calls it.
func (c *guardConn) Write(p []byte) (int, error) {
	q := &c.replies
	q.mu.Lock()
	if q.err != nil {
		err := q.err
		q.mu.Unlock()
		return 0, err
	}
	if len(p) == 0 {
		q.mu.Unlock()
		return 0, nil
	}
	rest := p
	if !q.writing {
		// Nothing is queued and no writer runs: write directly.
		q.mu.Unlock()
		n, err := c.writeNow(p)
		q.mu.Lock()
		if err != nil {
			q.err = err
			q.mu.Unlock()
			return n, err
		}
		if rest = p[n:]; len(rest) == 0 {
			q.mu.Unlock()
			return n, nil
		}
	}
	if limit := c.currentLimits().outputBuffer; limit > 0 && int64(len(q.buf)+q.inflight+len(rest)) > limit {
		pending := len(q.buf) + q.inflight + len(rest)
		q.err, q.buf = errOutputLimit, nil
		q.mu.Unlock()
		c.log.Warn().Str("addr", c.RemoteAddr().String()).Int("pending_bytes", pending).Int64("limit", limit).
			Msg("client closed for overcoming of output buffer limits")
		_ = c.Conn.Close()
		return 0, errOutputLimit
	}
	q.buf = append(q.buf, rest...)
	if !q.writing {
		q.writing = true
		go c.drain()
	}
	q.mu.Unlock()
	return len(p), nil
}

// writeNow writes what the socket takes without waiting. Where there is no
// raw socket (not TCP), it blocks instead.
func (c *guardConn) writeNow(p []byte) (int, error) {
	if c.raw == nil {
		return c.Conn.Write(p)
	}
	n := 0
	var werr error
	err := c.raw.Write(func(fd uintptr) bool {
		for n < len(p) {
			m, e := syscall.Write(int(fd), p[n:])
			if m > 0 {
				n += m
			}
			switch {
			case e == syscall.EINTR:
				continue
			case e == syscall.EAGAIN:
				return true
			case e != nil:
				werr = &net.OpError{Op: "write", Net: "tcp", Addr: c.RemoteAddr(), Err: e}
				return true
			case m == 0:
				return true
			}
		}
		return true
	})
	if werr != nil {
		return n, werr
	}
	return n, err
}

// drain writes the queue until it is empty, blocking as long as the client
// does not read. On a write error the socket is closed, so that redcon's
// read ends too.
func (c *guardConn) drain() {
	q := &c.replies
	q.mu.Lock()
	for len(q.buf) > 0 && q.err == nil {
		b := q.buf
		q.buf = nil
		q.inflight = len(b)
		q.mu.Unlock()
		_, err := c.Conn.Write(b)
		q.mu.Lock()
		q.inflight = 0
		if err != nil && q.err == nil {
			q.err = err
		}
	}
	q.writing = false
	q.buf = nil
	closeNow := q.closing || q.err != nil
	q.mu.Unlock()
	if closeNow {
		_ = c.Conn.Close()
	}
}

// Close closes the socket, or, while queued replies are still being sent,
// stops reading at once and leaves the close to the writer, which gets
// closeLinger to finish.
func (c *guardConn) Close() error {
	q := &c.replies
	q.mu.Lock()
	if q.writing && q.err == nil {
		q.closing = true
		q.mu.Unlock()
		_ = c.Conn.SetWriteDeadline(time.Now().Add(closeLinger))
		if tc, ok := c.Conn.(interface{ CloseRead() error }); ok {
			_ = tc.CloseRead()
		}
		return nil
	}
	q.mu.Unlock()
	return c.Conn.Close()
}
