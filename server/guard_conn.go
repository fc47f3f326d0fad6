package server

import (
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/shaledb/shale/conf"
	"github.com/shaledb/shale/server/resp"
)

// The connections' side of the wire: every byte a client sends passes
// through a resp.Guard (server/resp) before redcon parses it, and every
// reply byte through the output queue (output.go).

// connLimits are the configurable per-connection limits of the [server]
// section: the guard's, and the output buffer's. The server replaces them
// as a whole when CONFIG SET changes one; a command being read keeps the
// limits it started with.
type connLimits struct {
	resp.Limits              // proto_max_bulk_len, proto_max_multibulk_len, client_query_buffer_limit
	outputBuffer int64       // client_output_buffer_limit: unsent reply bytes; 0 = no limit
	pubsub       classLimits // the pubsub class's, for clients in subscribed mode (output.go)
}

func limitsOf(s conf.Server) *connLimits {
	return &connLimits{
		Limits: resp.Limits{
			MaxBulk:      int64(s.ProtoMaxBulkLen),
			MaxMultibulk: s.ProtoMaxMultibulkLen,
			QueryBuffer:  int64(s.ClientQueryBufferLimit),
		},
		outputBuffer: int64(s.ClientOutputBufferLimit),
		pubsub: classLimits{
			hard:     int64(s.PubsubOutputBufferLimit),
			soft:     int64(s.PubsubOutputBufferSoftLimit),
			softTime: s.PubsubOutputBufferSoftTime.Duration,
		},
	}
}

// defaultLimits are conf.Default's, for guards that have no server.
var defaultLimits = limitsOf(conf.Default().Server)

// guardListener wraps every accepted connection in a guardConn. Once the
// listener is closed, Accept holds its error back until drained is closed:
// redcon closes every connection as soon as Accept fails, and shutdown
// first lets the commands under way send their replies.
type guardListener struct {
	net.Listener
	drained <-chan struct{}
	stats   *serverStats                // counts the bytes read and written
	limits  *atomic.Pointer[connLimits] // the server's current limits
	log     zerolog.Logger
}

func (l guardListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		if l.drained != nil && errors.Is(err, net.ErrClosed) {
			<-l.drained
		}
		return nil, err
	}
	if g, ok := c.(*guardConn); ok {
		return g, nil // an event loop's, guarded already (loop.go)
	}
	g := newGuardConn(c, l.stats, l.limits, l.log)
	if sc, ok := c.(syscall.Conn); ok {
		g.raw, _ = sc.SyscallConn()
	}
	return g, nil
}

// guardConn passes what it reads through a resp.Guard. On a violation it
// lets redcon have the good bytes first, so earlier commands are answered,
// then writes the error itself and fails the next read, which closes the
// connection as Redis does. Only redcon's connection goroutine calls Read.
type guardConn struct {
	net.Conn
	guard   resp.Guard
	in      []byte // raw bytes from the socket
	out     []byte // canonical bytes not yet handed to redcon
	outBuf  []byte // out's buffer, reused by each feed
	pending resp.Error
	held    []byte       // raw bytes watch read while the handler waited
	heldErr error        // the read error watch met, returned once held is used up
	stats   *serverStats // nil in unit tests

	limits  *atomic.Pointer[connLimits] // nil: defaultLimits
	log     zerolog.Logger
	raw     syscall.RawConn // the socket, for writes that must not block; nil: block
	replies outQueue        // reply bytes the kernel has not taken yet (output.go)
	wmu     sync.Mutex      // serializes Write
	// writeNow's buffer, progress and error, for writeFn, the callback it
	// hands the raw socket; guarded by wmu.
	wbuf    []byte
	wn      int
	werr    error
	writeFn func(fd uintptr) bool
	batch   atomic.Int64 // reply bytes redcon buffered since its last flush, roughly (replyCounter)
	cut     atomic.Bool  // closed for passing the output buffer limit
	pubsub  atomic.Bool  // the client is in subscribed mode: the pubsub class's limits apply
	// handoff is the client of a connection an event loop hands to a
	// goroutine of its own (loop.go): accept keeps it rather than making
	// a new one.
	handoff *Client
}

// newGuardConn wraps c. stats, limits and log may be zero (unit tests):
// nothing is counted, conf.Default's limits apply, nothing is logged.
func newGuardConn(c net.Conn, stats *serverStats, limits *atomic.Pointer[connLimits], log zerolog.Logger) *guardConn {
	g := &guardConn{Conn: c, stats: stats, limits: limits, log: log}
	g.guard.Limits = func() resp.Limits { return g.currentLimits().Limits }
	return g
}

// maxKeptOutBuf bounds the guard's output buffer that a connection keeps
// between reads. A read of the 16 KiB input buffer rarely needs more.
const maxKeptOutBuf = 64 << 10

// currentLimits returns the server's limits now.
func (c *guardConn) currentLimits() *connLimits {
	if c.limits != nil {
		if l := c.limits.Load(); l != nil {
			return l
		}
	}
	return defaultLimits
}

// errHeldOverflow ends a connection that sent more than client_query_buffer_limit
// bytes while its command was blocked, as Redis closes a client whose query
// buffer outgrows client-query-buffer-limit.
var errHeldOverflow = errors.New("query buffer limit reached while blocked")

// watch reads the socket in the background while the connection's handler
// waits (a blocked BLPOP), so that a client that goes away is noticed: gone
// is closed when the read fails, or when the client sent more than
// client_query_buffer_limit bytes meanwhile. What it reads is kept for Read, so a
// command pipelined behind the blocked one runs afterwards. stop ends the
// watch and returns once the background read is over; the handler calls it
// before it returns, and only the handler's goroutine (which is redcon's
// reader) calls watch and stop. The read deadline redcon set for idle
// clients is lifted meanwhile, as Redis never times out a blocked client,
// and redcon sets it again before its next read.
func (c *guardConn) watch() (gone <-chan struct{}, stop func()) {
	g := make(chan struct{})
	exited := make(chan struct{})
	var stopping atomic.Bool
	_ = c.Conn.SetReadDeadline(time.Time{})
	limit := c.currentLimits().QueryBuffer
	go func() {
		defer close(exited)
		buf := make([]byte, 4<<10)
		for {
			n, err := c.Conn.Read(buf)
			c.held = append(c.held, buf[:n]...)
			if err != nil {
				if ne, ok := err.(net.Error); ok && ne.Timeout() && stopping.Load() {
					return // stop's deadline
				}
				c.heldErr = err
				close(g)
				return
			}
			if int64(len(c.held)) > limit {
				c.held, c.heldErr = nil, errHeldOverflow
				close(g)
				return
			}
		}
	}()
	return g, func() {
		stopping.Store(true)
		_ = c.Conn.SetReadDeadline(time.Unix(1, 0))
		<-exited
		_ = c.Conn.SetReadDeadline(time.Time{})
	}
}

// readRaw reads what watch kept, then the socket.
func (c *guardConn) readRaw(p []byte) (int, error) {
	if len(c.held) > 0 {
		n := copy(p, c.held)
		c.held = c.held[n:]
		return n, nil
	}
	if c.heldErr != nil {
		return 0, c.heldErr
	}
	return c.Conn.Read(p)
}

func (c *guardConn) Read(p []byte) (int, error) {
	for len(c.out) == 0 {
		if c.pending != "" {
			if c.pending == resp.ErrQueryBuffer {
				c.log.Warn().Str("addr", c.RemoteAddr().String()).Int64("limit", c.guard.Current().QueryBuffer).
					Msg("client closed: it reached the query buffer limit")
			} else {
				// Through Write: after the replies queued before it.
				_, _ = c.Write([]byte("-" + string(c.pending) + "\r\n"))
			}
			return 0, net.ErrClosed
		}
		if cap(c.in) == 0 {
			c.in = make([]byte, 16<<10)
		}
		n, err := c.readRaw(c.in[:cap(c.in)])
		if n > 0 && c.stats != nil {
			c.stats.netIn.Add(int64(n))
		}
		if n > 0 {
			if cap(c.outBuf) > maxKeptOutBuf {
				c.outBuf = nil // an inline burst grew it: do not keep it
			}
			c.outBuf, c.pending = c.guard.Feed(c.in[:n], c.outBuf[:0])
			c.out = c.outBuf
		}
		if len(c.out) == 0 && err != nil {
			if errors.Is(err, errHeldOverflow) {
				c.log.Warn().Str("addr", c.RemoteAddr().String()).Msg("client closed: it reached the query buffer limit while blocked")
			}
			return 0, err
		}
	}
	n := copy(p, c.out)
	c.out = c.out[n:]
	return n, nil
}
