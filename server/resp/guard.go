// Package resp owns the request side of RESP: a Guard follows the bytes one
// connection sends and rewrites them into the canonical multibulk form that
// redcon parses, enforcing Redis's protocol limits with Redis's error texts.
// It knows nothing of the server: the limits, and whether the client is
// authenticated, reach it through functions.
//
// It also reads and writes the frames of a replication link (frames.go).
//
// It imports nothing of ours and no third-party library (its tests use
// conf's defaults and redcon's parser, which the guard's output is for).
//
// Invariants:
//   - What Feed emits does not depend on how the input is chunked.
//   - Feed's output is canonical: fed again, it comes out unchanged, and it
//     parses into non-empty commands.
package resp

import "strconv"

// Redis's fixed protocol limits. redcon enforces none of them, and a bulk
// length near MaxInt64 would overflow its bounds arithmetic, so every byte a
// client sends passes through a Guard before redcon parses it. The limits
// that can be configured are in Limits.
const (
	protoInlineMax      = 64 << 10 // PROTO_INLINE_MAX_SIZE
	unauthMaxMultibulk  = 10       // before AUTH, as Redis
	unauthMaxBulkLength = 16384
)

// Limits are the configurable limits of one command: the [server] section's
// proto_max_bulk_len, proto_max_multibulk_len and client_query_buffer_limit.
type Limits struct {
	MaxBulk      int64 // bytes of one bulk string
	MaxMultibulk int64 // arguments of one command
	QueryBuffer  int64 // bytes of one command Redis's query buffer would hold
}

// Error is a protocol error, already the exact RESP error text; "" is no
// error. After one the connection must be closed.
type Error string

func (e Error) Error() string { return string(e) }

// The guard's errors, as Redis words them.
const (
	errTooBigInline        Error = "ERR Protocol error: too big inline request"
	errTooBigMbulkCount    Error = "ERR Protocol error: too big mbulk count string"
	errTooBigBulkCount     Error = "ERR Protocol error: too big bulk count string"
	errUnbalancedQuotes    Error = "ERR Protocol error: unbalanced quotes in request"
	errInvalidMultibulkLen Error = "ERR Protocol error: invalid multibulk length"
	errUnauthMultibulkLen  Error = "ERR Protocol error: unauthenticated multibulk length"
	errInvalidBulkLen      Error = "ERR Protocol error: invalid bulk length"
	errUnauthBulkLen       Error = "ERR Protocol error: unauthenticated bulk length"
	// ErrQueryBuffer closes the connection without a reply, as Redis does
	// when a client passes client_query_buffer_limit.
	ErrQueryBuffer Error = "-"
)

// errExpectedBulk is the reply for a multibulk element that is not a bulk
// string; got is the byte found instead of '$'.
func errExpectedBulk(got string) Error {
	return Error("ERR Protocol error: expected '$', got '" + got + "'")
}

type respState uint8

const (
	stStart respState = iota
	stInline
	stMultiHeader
	stBulkHeader
	stBulkBody
	stBulkCRLF
)

// Guard follows the RESP stream of one connection and rewrites it into
// the canonical form redcon parses, so that redcon sees only what Redis
// would accept:
//   - the limits above and Limits, with Redis's error texts;
//   - inline commands split as Redis's sdssplitargs splits them (quotes and
//     \xHH escapes), sent on as multibulk;
//   - empty multibulks (*0, *-1) and empty inline lines skipped;
//   - a bulk's trailing two bytes taken as its CRLF, whatever they are.
//
// Only one goroutine may call Feed.
type Guard struct {
	// NeedsAuth reports whether the client has yet to authenticate, when
	// the stricter limits apply; nil: it never has to.
	NeedsAuth func() bool
	// Limits returns the configurable limits, read as each command starts:
	// a command being read keeps the limits it started with. Required.
	Limits func() Limits

	state respState
	line  []byte // the header or inline line being read
	args  int64  // bulk strings left in the current command
	body  int64  // bytes left of the current bulk
	crlf  int    // bytes left of the current bulk's CRLF
	qbuf  int64  // bytes Redis's query buffer would hold: the line or bulk being read
	cur   Limits // the current command's limits
}

// Current returns the limits of the command being read.
func (g *Guard) Current() Limits { return g.cur }

// Feed consumes in and appends to out what redcon should see. When it
// returns an error, the connection must get that reply (unless it is
// ErrQueryBuffer) and be closed; out still holds the good bytes before it.
func (g *Guard) Feed(in, out []byte) ([]byte, Error) {
	for i := 0; i < len(in); i++ {
		if g.state == stBulkBody {
			n := int(min(int64(len(in)-i), g.body))
			out = append(out, in[i:i+n]...)
			g.body -= int64(n)
			g.qbuf += int64(n)
			if g.qbuf > g.cur.QueryBuffer {
				return out, ErrQueryBuffer
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
			g.cur = g.Limits()
		}
		g.qbuf++
		if g.qbuf > g.cur.QueryBuffer {
			return out, ErrQueryBuffer
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
					return out, errTooBigInline
				}
				continue
			}
			var err Error
			if out, err = g.endInline(out); err != "" {
				return out, err
			}
			g.state = stStart
		case stMultiHeader, stBulkHeader:
			if c != '\n' {
				if g.line = append(g.line, c); len(g.line) > protoInlineMax {
					if g.state == stMultiHeader {
						return out, errTooBigMbulkCount
					}
					return out, errTooBigBulkCount
				}
				continue
			}
			var err Error
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
func (g *Guard) endInline(out []byte) ([]byte, Error) {
	line := g.line
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	args, ok := splitArgs(line)
	if !ok {
		return out, errUnbalancedQuotes
	}
	if len(args) == 0 {
		return out, ""
	}
	// The canonical form of an inline command is its multibulk frame.
	return AppendFrame(out, args...), ""
}

// endHeader handles a complete "*N" or "$N" line (without its '\n').
func (g *Guard) endHeader(out []byte) ([]byte, Error) {
	line := g.line
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	g.line = g.line[:0]
	authed := g.NeedsAuth == nil || !g.NeedsAuth()
	if g.state == stMultiHeader {
		n, err := strconv.ParseInt(string(line), 10, 64)
		if err != nil || n > g.cur.MaxMultibulk {
			return out, errInvalidMultibulkLen
		}
		if !authed && n > unauthMaxMultibulk {
			return out, errUnauthMultibulkLen
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
		return out, errExpectedBulk(got)
	}
	n, err := strconv.ParseInt(string(line[1:]), 10, 64)
	if err != nil || n < 0 || n > g.cur.MaxBulk {
		return out, errInvalidBulkLen
	}
	if !authed && n > unauthMaxBulkLength {
		return out, errUnauthBulkLen
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
		var quote byte // the open quote, '"' or '\'', 0 outside quotes
		done := false
		cur := []byte{}
		for !done {
			c := at(p)
			switch {
			case quote != 0:
				switch {
				case quote == '"' && c == '\\' && at(p+1) == 'x' && isHex(at(p+2)) && isHex(at(p+3)):
					cur = append(cur, hexVal(at(p+2))<<4|hexVal(at(p+3)))
					p += 3
				case quote == '"' && c == '\\' && at(p+1) != 0:
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
				case quote == '\'' && c == '\\' && at(p+1) == '\'':
					p++
					cur = append(cur, '\'')
				case c == quote: // a closing quote must end the argument
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
				case '"', '\'':
					quote = c
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
