package server

import (
	"errors"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/shaledb/shale/conf"
)

// Redis's protocol limits. redcon enforces none of them, and a bulk length
// near MaxInt64 would overflow its bounds arithmetic, so every byte a client
// sends passes through a respGuard before redcon parses it. The limits that
// can be configured are in connLimits.
const (
	protoInlineMax      = 64 << 10 // PROTO_INLINE_MAX_SIZE
	unauthMaxMultibulk  = 10       // before AUTH, as Redis
	unauthMaxBulkLength = 16384
)

// connLimits are the configurable per-connection limits of the [server]
// section. The server replaces them as a whole when CONFIG SET changes one;
// a command being read keeps the limits it started with.
type connLimits struct {
	maxBulk      int64 // proto_max_bulk_len: bytes of one bulk string
	maxMultibulk int64 // proto_max_multibulk_len: arguments of one command
	queryBuffer  int64 // client_query_buffer_limit: bytes of one command
	outputBuffer int64 // client_output_buffer_limit: unsent reply bytes; 0 = no limit
}

func limitsOf(s conf.Server) *connLimits {
	return &connLimits{
		maxBulk:      int64(s.ProtoMaxBulkLen),
		maxMultibulk: s.ProtoMaxMultibulkLen,
		queryBuffer:  int64(s.ClientQueryBufferLimit),
		outputBuffer: int64(s.ClientOutputBufferLimit),
	}
}

// defaultLimits are conf.Default's, for guards that have no server.
var defaultLimits = limitsOf(conf.Default().Server)

type respState uint8

const (
	stStart respState = iota
	stInline
	stMultiHeader
	stBulkHeader
	stBulkBody
	stBulkCRLF
)

// respGuard follows the RESP stream of one connection and rewrites it into
// the canonical form redcon parses, so that redcon sees only what Redis
// would accept:
//   - the limits above, with Redis's error texts;
//   - inline commands split as Redis's sdssplitargs splits them (quotes and
//     \xHH escapes), sent on as multibulk;
//   - empty multibulks (*0, *-1) and empty inline lines skipped;
//   - a bulk's trailing two bytes taken as its CRLF, whatever they are.
type respGuard struct {
	state     respState
	line      []byte // the header or inline line being read
	args      int64  // bulk strings left in the current command
	body      int64  // bytes left of the current bulk
	crlf      int    // bytes left of the current bulk's CRLF
	qbuf      int64  // bytes Redis's query buffer would hold: the line or bulk being read
	needsAuth func() bool
	limits    *atomic.Pointer[connLimits] // nil: defaultLimits
	cur       *connLimits                 // the current command's limits
}

// loadLimits takes the limits for the command that starts now.
func (g *respGuard) loadLimits() {
	g.cur = defaultLimits
	if g.limits != nil {
		if l := g.limits.Load(); l != nil {
			g.cur = l
		}
	}
}

// errQueryBuffer closes the connection without a reply, as Redis does.
const errQueryBuffer replyError = "-"

// feed consumes in and appends to out what redcon should see. When it
// returns an error, the connection must get that reply (unless it is
// errQueryBuffer) and be closed; out still holds the good bytes before it.
func (g *respGuard) feed(in, out []byte) ([]byte, replyError) {
	for i := 0; i < len(in); i++ {
		if g.state == stBulkBody {
			n := int(min(int64(len(in)-i), g.body))
			out = append(out, in[i:i+n]...)
			g.body -= int64(n)
			g.qbuf += int64(n)
			if g.qbuf > g.cur.queryBuffer {
				return out, errQueryBuffer
			}
			i += n - 1
			if g.body == 0 {
				g.state, g.crlf = stBulkCRLF, 2
			}
			continue
		}
		c := in[i]
		if g.state == stStart {
			g.qbuf = 0
			g.loadLimits()
		}
		g.qbuf++
		if g.qbuf > g.cur.queryBuffer {
			return out, errQueryBuffer
		}
		switch g.state {
		case stStart:
			g.line = g.line[:0]
			if c == '*' {
				g.state = stMultiHeader
				continue
			}
			g.state = stInline
			fallthrough
		case stInline:
			if c != '\n' {
				if g.line = append(g.line, c); len(g.line) > protoInlineMax {
					return out, "ERR Protocol error: too big inline request"
				}
				continue
			}
			var err replyError
			if out, err = g.endInline(out); err != "" {
				return out, err
			}
			g.state = stStart
		case stMultiHeader, stBulkHeader:
			if c != '\n' {
				if g.line = append(g.line, c); len(g.line) > protoInlineMax {
					if g.state == stMultiHeader {
						return out, "ERR Protocol error: too big mbulk count string"
					}
					return out, "ERR Protocol error: too big bulk count string"
				}
				continue
			}
			var err replyError
			if out, err = g.endHeader(out); err != "" {
				return out, err
			}
		case stBulkCRLF:
			if g.crlf--; g.crlf == 0 {
				g.qbuf = 0 // Redis moves a parsed argument out of its query buffer
				out = append(out, '\r', '\n')
				if g.args--; g.args == 0 {
					g.state = stStart
				} else {
					g.state = stBulkHeader
				}
			}
		}
	}
	return out, ""
}

// endInline splits a complete inline line and emits it as a multibulk.
func (g *respGuard) endInline(out []byte) ([]byte, replyError) {
	line := g.line
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	args, ok := splitArgs(line)
	if !ok {
		return out, "ERR Protocol error: unbalanced quotes in request"
	}
	if len(args) == 0 {
		return out, ""
	}
	out = append(out, '*')
	out = strconv.AppendInt(out, int64(len(args)), 10)
	out = append(out, '\r', '\n')
	for _, a := range args {
		out = append(out, '$')
		out = strconv.AppendInt(out, int64(len(a)), 10)
		out = append(out, '\r', '\n')
		out = append(out, a...)
		out = append(out, '\r', '\n')
	}
	return out, ""
}

// endHeader handles a complete "*N" or "$N" line (without its '\n').
func (g *respGuard) endHeader(out []byte) ([]byte, replyError) {
	line := g.line
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	g.line = g.line[:0]
	authed := g.needsAuth == nil || !g.needsAuth()
	if g.state == stMultiHeader {
		n, err := strconv.ParseInt(string(line), 10, 64)
		if err != nil || n > g.cur.maxMultibulk {
			return out, "ERR Protocol error: invalid multibulk length"
		}
		if !authed && n > unauthMaxMultibulk {
			return out, "ERR Protocol error: unauthenticated multibulk length"
		}
		if n <= 0 {
			g.state = stStart
			return out, ""
		}
		g.args, g.state, g.qbuf = n, stBulkHeader, 0
		out = append(out, '*')
		out = strconv.AppendInt(out, n, 10)
		return append(out, '\r', '\n'), ""
	}
	if len(line) == 0 || line[0] != '$' {
		got := "\\x00"
		if len(line) > 0 {
			got = string(line[:1])
		}
		return out, replyError("ERR Protocol error: expected '$', got '" + got + "'")
	}
	n, err := strconv.ParseInt(string(line[1:]), 10, 64)
	if err != nil || n < 0 || n > g.cur.maxBulk {
		return out, "ERR Protocol error: invalid bulk length"
	}
	if !authed && n > unauthMaxBulkLength {
		return out, "ERR Protocol error: unauthenticated bulk length"
	}
	out = append(out, '$')
	out = strconv.AppendInt(out, n, 10)
	out = append(out, '\r', '\n')
	if n == 0 {
		g.state, g.crlf = stBulkCRLF, 2
	} else {
		g.state, g.body = stBulkBody, n
	}
	return out, ""
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func hexVal(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// splitArgs splits an inline command line exactly as Redis's sdssplitargs:
// blanks separate arguments; "double quotes" allow \xHH, \n, \r, \t, \b, \a
// and \<char> escapes; 'single quotes' allow \'; a closing quote must be
// followed by a blank or the end. A NUL byte ends the line, as in C.
func splitArgs(line []byte) ([][]byte, bool) {
	at := func(i int) byte {
		if i < len(line) {
			return line[i]
		}
		return 0
	}
	var args [][]byte
	p := 0
	for {
		for at(p) != 0 && isSpace(at(p)) {
			p++
		}
		if at(p) == 0 {
			return args, true
		}
		inq, insq, done := false, false, false
		cur := []byte{}
		for !done {
			c := at(p)
			switch {
			case inq:
				switch {
				case c == '\\' && at(p+1) == 'x' && isHex(at(p+2)) && isHex(at(p+3)):
					cur = append(cur, hexVal(at(p+2))<<4|hexVal(at(p+3)))
					p += 3
				case c == '\\' && at(p+1) != 0:
					p++
					switch e := at(p); e {
					case 'n':
						cur = append(cur, '\n')
					case 'r':
						cur = append(cur, '\r')
					case 't':
						cur = append(cur, '\t')
					case 'b':
						cur = append(cur, '\b')
					case 'a':
						cur = append(cur, '\a')
					default:
						cur = append(cur, e)
					}
				case c == '"':
					if at(p+1) != 0 && !isSpace(at(p+1)) {
						return nil, false
					}
					done = true
				case c == 0:
					return nil, false
				default:
					cur = append(cur, c)
				}
			case insq:
				switch {
				case c == '\\' && at(p+1) == '\'':
					p++
					cur = append(cur, '\'')
				case c == '\'':
					if at(p+1) != 0 && !isSpace(at(p+1)) {
						return nil, false
					}
					done = true
				case c == 0:
					return nil, false
				default:
					cur = append(cur, c)
				}
			default:
				switch c {
				case ' ', '\n', '\r', '\t', 0:
					done = true
				case '"':
					inq = true
				case '\'':
					insq = true
				default:
					cur = append(cur, c)
				}
			}
			if at(p) != 0 {
				p++
			}
		}
		args = append(args, cur)
	}
}

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
	g := &guardConn{Conn: c, stats: l.stats, limits: l.limits, log: l.log}
	g.guard.limits = l.limits
	if sc, ok := c.(syscall.Conn); ok {
		g.raw, _ = sc.SyscallConn()
	}
	return g, nil
}

// guardConn passes what it reads through a respGuard. On a violation it
// lets redcon have the good bytes first, so earlier commands are answered,
// then writes the error itself and fails the next read, which closes the
// connection as Redis does. Only redcon's connection goroutine calls Read.
type guardConn struct {
	net.Conn
	guard   respGuard
	in      []byte // raw bytes from the socket
	out     []byte // canonical bytes not yet handed to redcon
	outBuf  []byte // out's buffer, reused by each feed
	pending replyError
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
	limit := c.currentLimits().queryBuffer
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
			if c.pending == errQueryBuffer {
				c.log.Warn().Str("addr", c.RemoteAddr().String()).Int64("limit", c.guard.cur.queryBuffer).
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
			c.outBuf, c.pending = c.guard.feed(c.in[:n], c.outBuf[:0])
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
