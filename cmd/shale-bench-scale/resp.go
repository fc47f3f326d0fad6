package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// conn is one raw RESP connection. The harness speaks RESP itself rather
// than through a client library so that the load generator's own cost per
// request stays small and equal for every server: on two shared cores the
// client competes with the server for CPU.
type conn struct {
	c   net.Conn
	r   *bufio.Reader
	w   *bufio.Writer
	buf []byte // the command being built, reused
}

func dial(addr string) (*conn, error) {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	return &conn{c: c, r: bufio.NewReaderSize(c, 64<<10), w: bufio.NewWriterSize(c, 64<<10)}, nil
}

func (c *conn) Close() error { return c.c.Close() }

// appendCommand appends args as a RESP array of bulk strings to dst.
func appendCommand(dst []byte, args ...[]byte) []byte {
	dst = appendHeader(dst, '*', len(args))
	for _, a := range args {
		dst = appendBulk(dst, a)
	}
	return dst
}

func appendHeader(dst []byte, kind byte, n int) []byte {
	dst = append(dst, kind)
	dst = strconv.AppendInt(dst, int64(n), 10)
	return append(dst, '\r', '\n')
}

func appendBulk(dst, b []byte) []byte {
	dst = appendHeader(dst, '$', len(b))
	dst = append(dst, b...)
	return append(dst, '\r', '\n')
}

// replyError is an error reply of the server, its text without the '-'.
type replyError string

func (e replyError) Error() string { return string(e) }

// errProtocol marks a reply the harness cannot parse.
var errProtocol = errors.New("resp: protocol error")

// readLine returns one CRLF-terminated line without the CRLF. The slice
// points into the reader's buffer: use it before the next read.
func readLine(r *bufio.Reader) ([]byte, error) {
	line, err := r.ReadSlice('\n')
	if err != nil {
		return nil, err
	}
	if len(line) < 3 || line[len(line)-2] != '\r' {
		return nil, fmt.Errorf("%w: line %q", errProtocol, line)
	}
	return line[:len(line)-2], nil
}

// discardReply reads one reply and throws its content away, allocating
// nothing for the replies the load generator gets (status, integer, bulk,
// error). It reports a null bulk or array as isNil; an error reply comes
// back as a replyError.
func discardReply(r *bufio.Reader) (isNil bool, err error) {
	line, err := readLine(r)
	if err != nil {
		return false, err
	}
	switch line[0] {
	case '+', ':':
		return false, nil
	case '-':
		return false, replyError(line[1:])
	case '$':
		n, err := strconv.Atoi(string(line[1:]))
		if err != nil {
			return false, fmt.Errorf("%w: bulk length %q", errProtocol, line)
		}
		if n < 0 {
			return true, nil
		}
		_, err = r.Discard(n + 2)
		return false, err
	case '*':
		n, err := strconv.Atoi(string(line[1:]))
		if err != nil {
			return false, fmt.Errorf("%w: array length %q", errProtocol, line)
		}
		if n < 0 {
			return true, nil
		}
		for range n {
			if _, err := discardReply(r); err != nil {
				var re replyError
				if !errors.As(err, &re) {
					return false, err
				}
			}
		}
		return false, nil
	}
	return false, fmt.Errorf("%w: reply type %q", errProtocol, line[0])
}

// readValue reads one reply as a Go value for the control path: a string for
// a status or bulk, int64, []any, nil for a null, or a replyError.
func readValue(r *bufio.Reader) (any, error) {
	line, err := readLine(r)
	if err != nil {
		return nil, err
	}
	switch line[0] {
	case '+':
		return string(line[1:]), nil
	case '-':
		return nil, replyError(line[1:])
	case ':':
		n, err := strconv.ParseInt(string(line[1:]), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%w: integer %q", errProtocol, line)
		}
		return n, nil
	case '$':
		n, err := strconv.Atoi(string(line[1:]))
		if err != nil {
			return nil, fmt.Errorf("%w: bulk length %q", errProtocol, line)
		}
		if n < 0 {
			return nil, nil
		}
		b := make([]byte, n+2)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, err
		}
		return string(b[:n]), nil
	case '*':
		n, err := strconv.Atoi(string(line[1:]))
		if err != nil {
			return nil, fmt.Errorf("%w: array length %q", errProtocol, line)
		}
		if n < 0 {
			return nil, nil
		}
		vals := make([]any, n)
		for i := range vals {
			v, err := readValue(r)
			var re replyError
			if err != nil && !errors.As(err, &re) {
				return nil, err
			}
			vals[i] = v
		}
		return vals, nil
	}
	return nil, fmt.Errorf("%w: reply type %q", errProtocol, line[0])
}

// Do sends one command and returns its reply as readValue does; the
// control path's calls (INFO, CONFIG GET, SAVE) go through it.
func (c *conn) Do(deadline time.Duration, args ...string) (any, error) {
	bs := make([][]byte, len(args))
	for i, a := range args {
		bs[i] = []byte(a)
	}
	_ = c.c.SetDeadline(time.Now().Add(deadline))
	defer c.c.SetDeadline(time.Time{})
	if _, err := c.w.Write(appendCommand(nil, bs...)); err != nil {
		return nil, err
	}
	if err := c.w.Flush(); err != nil {
		return nil, err
	}
	return readValue(c.r)
}

// doString runs a command that replies with a status or bulk string.
func doString(addr string, deadline time.Duration, args ...string) (string, error) {
	c, err := dial(addr)
	if err != nil {
		return "", err
	}
	defer c.Close()
	v, err := c.Do(deadline, args...)
	if err != nil {
		return "", fmt.Errorf("%v: %w", args, err)
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%v: got %T, want a string", args, v)
	}
	return s, nil
}

// info returns the name: value fields of INFO section.
func info(addr, section string) (map[string]string, error) {
	text, err := doString(addr, 30*time.Second, "INFO", section)
	if err != nil {
		return nil, err
	}
	return parseInfo(text), nil
}

// parseInfo splits INFO text into its fields; section headers and blank
// lines are skipped.
func parseInfo(text string) map[string]string {
	fields := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		if name, value, found := strings.Cut(line, ":"); found && !strings.HasPrefix(line, "#") {
			fields[name] = value
		}
	}
	return fields
}
