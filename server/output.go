package server

import (
	"errors"
	"io"
	"net"
	"reflect"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/tidwall/redcon"
)

// Replies leave through guardConn.Write, which never blocks redcon's
// connection goroutine on a slow reader. It writes what the kernel takes at
// once; the rest waits in an outQueue, which a writer goroutine drains, while
// the connection goes on reading and running commands as Redis does. A client
// that sends commands but does not read its replies makes the queue grow;
// once the queue passes client_output_buffer_limit the connection is closed,
// as Redis closes a normal client that passes its hard output buffer limit.
// redcon buffers the replies of a whole pipeline before it flushes them, so
// the handlers write through a replyCounter, and the dispatcher checks the
// limit after every command (checkOutputLimit): memory per connection is
// bounded by the limit plus one reply.
//
// A client in subscribed mode belongs to Redis's pubsub class instead
// (guardConn.pubsub): a hard limit and a soft one it may pass for a while
// (server.pubsub_output_buffer_*). Publishers queue their messages through
// sendMessage, which never waits for the subscriber either.

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
	// softSince is when the unsent bytes last went above the soft limit
	// (pubsub class); zero while they are below it.
	softSince time.Time
}

// classLimits are one client class's output limits, as Redis's
// client-output-buffer-limit gives them: the unsent bytes at which a client
// is cut off at once (hard), and those it may stay above for softTime
// (soft). 0 means no such limit.
type classLimits struct {
	hard, soft int64
	softTime   time.Duration
}

// classLimits returns the limits of the client's class now: the pubsub
// class's in subscribed mode, else the normal class's, which Shale gives a
// hard limit only.
func (c *guardConn) classLimits() classLimits {
	l := c.currentLimits()
	if c.pubsub.Load() {
		return l.pubsub
	}
	return classLimits{hard: l.outputBuffer}
}

// overLimit reports whether pending unsent bytes put the client over its
// class's limits, and which limit, as Redis's
// checkClientOutputBufferLimits decides: the hard limit at once, the soft
// one when the bytes have stayed above it for longer than softTime. q.mu is
// held.
func (c *guardConn) overLimit(q *outQueue, pending int64) (limit int64, over bool) {
	cl := c.classLimits()
	if cl.hard > 0 && pending > cl.hard {
		return cl.hard, true
	}
	if cl.soft <= 0 || pending <= cl.soft {
		q.softSince = time.Time{}
		return 0, false
	}
	now := time.Now()
	if q.softSince.IsZero() {
		q.softSince = now
		return 0, false
	}
	return cl.soft, now.Sub(q.softSince) > cl.softTime
}

// Write sends p, or queues what the kernel does not take at once. redcon's
// connection goroutine calls it when it flushes; a close from elsewhere may
// flush too, and publishers send messages (sendMessage), hence wmu.
func (c *guardConn) Write(p []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.batch.Store(0)
	return c.send(p, false)
}

// sendMessage sends or queues p, whole frames of pub/sub messages, for a
// publisher: as Write, but redcon's buffer is not flushed by it, so the
// count of its bytes (batch) stays. An error means the connection is
// closed or being cut off: the subscriber is gone.
func (c *guardConn) sendMessage(p []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.send(p, true)
	return err
}

// send is Write without the lock: c.wmu is held. A reply is written at
// once when nothing is queued; a message (queue set) is always queued for
// the writer goroutine, so that the messages of a burst leave in one write,
// as Redis writes a subscriber's pending messages once per event-loop pass.
func (c *guardConn) send(p []byte, queue bool) (int, error) {
	if c.stats != nil {
		c.stats.netOut.Add(int64(len(p))) // INFO's total_net_output_bytes
	}
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
	if !q.writing && !queue {
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
			q.softSince = time.Time{} // nothing unsent
			q.mu.Unlock()
			return n, nil
		}
	}
	pending := int64(len(q.buf) + q.inflight + len(rest))
	if limit, over := c.overLimit(q, pending); over {
		q.mu.Unlock()
		c.cutOff(pending, limit)
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

// checkOutputLimit cuts the client off when the replies redcon buffered
// since its last flush and the queued ones pass client_output_buffer_limit.
// The dispatcher calls it after every command.
func (c *guardConn) checkOutputLimit() {
	cl := c.classLimits()
	bound := cl.hard
	if cl.soft > 0 && (bound <= 0 || cl.soft < bound) {
		bound = cl.soft
	}
	batch := c.batch.Load()
	if bound <= 0 || batch <= bound/2 && batch < 64<<10 && !c.replies.busy() {
		return // the common case: a small batch and nothing queued
	}
	q := &c.replies
	q.mu.Lock()
	pending := batch + int64(len(q.buf)+q.inflight)
	limit, over := c.overLimit(q, pending)
	q.mu.Unlock()
	if over {
		c.cutOff(pending, limit)
	}
}

// busy reports whether a writer runs (bytes may be queued).
func (q *outQueue) busy() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.writing
}

// cutOff closes the connection for passing the output buffer limit: nothing
// more is written, the commands still pipelined are not run, and redcon's
// next read fails.
func (c *guardConn) cutOff(pending, limit int64) {
	q := &c.replies
	q.mu.Lock()
	if q.err == nil {
		q.err = errOutputLimit
	}
	q.buf = nil
	q.mu.Unlock()
	if c.cut.CompareAndSwap(false, true) {
		class := "normal"
		if c.pubsub.Load() {
			class = "pubsub"
		}
		c.log.Warn().Str("addr", c.RemoteAddr().String()).Str("class", class).Int64("pending_bytes", pending).Int64("limit", limit).
			Msg("client closed for overcoming of output buffer limits")
	}
	_ = c.Conn.Close()
}

// writeNow writes what the socket takes without waiting. Where there is no
// raw socket (not TCP), it blocks instead. c.wmu is held.
func (c *guardConn) writeNow(p []byte) (int, error) {
	if c.raw == nil {
		return c.Conn.Write(p)
	}
	if c.writeFn == nil {
		c.writeFn = c.writeFd // bound once: a closure per write allocated
	}
	c.wbuf, c.wn, c.werr = p, 0, nil
	err := c.raw.Write(c.writeFn)
	n, werr := c.wn, c.werr
	c.wbuf, c.werr = nil, nil
	if werr != nil {
		return n, werr
	}
	return n, err
}

// writeFd is writeNow's callback for the raw socket: it writes c.wbuf,
// counting in c.wn, until the socket would block.
func (c *guardConn) writeFd(fd uintptr) bool {
	for c.wn < len(c.wbuf) {
		m, e := syscall.Write(int(fd), c.wbuf[c.wn:])
		if m > 0 {
			c.wn += m
		}
		switch {
		case e == syscall.EINTR:
			continue
		case e == syscall.EAGAIN:
			return true
		case e != nil:
			c.werr = &net.OpError{Op: "write", Net: "tcp", Addr: c.RemoteAddr(), Err: e}
			return true
		case m == 0:
			return true
		}
	}
	return true
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

// replyCounter is the redcon.Conn the handlers write to. It counts, roughly,
// the reply bytes redcon buffers until its next flush (guardConn.batch), for
// checkOutputLimit. Only the connection's goroutine uses it.
type replyCounter struct {
	redcon.Conn
	g *guardConn
}

// replyOverhead is a generous size for a reply's type byte, length and CRLFs.
const replyOverhead = 16

func (r *replyCounter) WriteError(msg string) {
	r.g.batch.Add(int64(len(msg)) + replyOverhead)
	r.Conn.WriteError(msg)
}

func (r *replyCounter) WriteString(str string) {
	r.g.batch.Add(int64(len(str)) + replyOverhead)
	r.Conn.WriteString(str)
}

func (r *replyCounter) WriteBulk(bulk []byte) {
	r.g.batch.Add(int64(len(bulk)) + replyOverhead)
	r.Conn.WriteBulk(bulk)
}

func (r *replyCounter) WriteBulkString(bulk string) {
	r.g.batch.Add(int64(len(bulk)) + replyOverhead)
	r.Conn.WriteBulkString(bulk)
}

func (r *replyCounter) WriteInt(num int) {
	r.g.batch.Add(replyOverhead + 8)
	r.Conn.WriteInt(num)
}

func (r *replyCounter) WriteInt64(num int64) {
	r.g.batch.Add(replyOverhead + 8)
	r.Conn.WriteInt64(num)
}

func (r *replyCounter) WriteUint64(num uint64) {
	r.g.batch.Add(replyOverhead + 8)
	r.Conn.WriteUint64(num)
}

func (r *replyCounter) WriteArray(count int) {
	r.g.batch.Add(replyOverhead)
	r.Conn.WriteArray(count)
}

func (r *replyCounter) WriteNull() {
	r.g.batch.Add(replyOverhead)
	r.Conn.WriteNull()
}

func (r *replyCounter) WriteRaw(data []byte) {
	r.g.batch.Add(int64(len(data)))
	r.Conn.WriteRaw(data)
}

func (r *replyCounter) WriteAny(v any) {
	var n int64
	switch v := v.(type) {
	case string:
		n = int64(len(v))
	case []byte:
		n = int64(len(v))
	}
	r.g.batch.Add(n + replyOverhead)
	r.Conn.WriteAny(v)
}

// baseWriter is redcon's reply buffer of the connection, for a handler that
// must flush before it waits (blocking.go).
func (c *Ctx) baseWriter() *redcon.Writer {
	if rc, ok := c.Conn.(*replyCounter); ok {
		return redcon.BaseWriter(rc.Conn)
	}
	return redcon.BaseWriter(c.Conn)
}

// bufferedLen is len(w.Buffer()): the reply bytes redcon holds unflushed.
// Buffer returns a copy, and the pipeline asks for this length twice per
// grouped command, which copied a whole pipeline's replies for each of its
// commands. So the length is read from redcon's Writer itself, through
// writerMirror, when writerLayoutMatches says its fields are the ones
// mirrored; otherwise it falls back to Buffer.
func bufferedLen(w *redcon.Writer) int {
	if !writerLayoutMatches {
		return len(w.Buffer())
	}
	m := (*writerMirror)(unsafe.Pointer(w))
	if m.err != nil {
		return 0 // as Buffer
	}
	return len(m.b)
}

// writerMirror has the fields of redcon.Writer (v1.6.2).
type writerMirror struct {
	w   io.Writer
	b   []byte
	err error
}

// writerLayoutMatches reports whether redcon.Writer's fields have the
// names, types and offsets of writerMirror's.
var writerLayoutMatches = sameLayout(reflect.TypeFor[redcon.Writer](), reflect.TypeFor[writerMirror]())

func sameLayout(a, b reflect.Type) bool {
	if a.Size() != b.Size() || a.NumField() != b.NumField() {
		return false
	}
	for i := range a.NumField() {
		fa, fb := a.Field(i), b.Field(i)
		if fa.Name != fb.Name || fa.Type != fb.Type || fa.Offset != fb.Offset {
			return false
		}
	}
	return true
}
