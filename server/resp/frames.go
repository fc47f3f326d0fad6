package resp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// Frames are the messages of a replication link (docs/REPLICATION.md): each
// one a RESP array of bulk strings, the form of a command, in both
// directions. A replica sends its handshake as commands and reads its
// primary's stream as frames; FrameReader reads them with the link's own
// limits, since one frame may carry a write batch of many megabytes.

// AppendFrame appends the frame of args to dst and returns the extended
// slice.
func AppendFrame(dst []byte, args ...[]byte) []byte {
	dst = append(dst, '*')
	dst = strconv.AppendInt(dst, int64(len(args)), 10)
	dst = append(dst, '\r', '\n')
	for _, a := range args {
		dst = append(dst, '$')
		dst = strconv.AppendInt(dst, int64(len(a)), 10)
		dst = append(dst, '\r', '\n')
		dst = append(dst, a...)
		dst = append(dst, '\r', '\n')
	}
	return dst
}

// ErrBadFrame is input that is not a frame, or one over the reader's limits.
var ErrBadFrame = errors.New("resp: malformed replication frame")

// FrameReader reads frames, and the simple lines a server answers a
// handshake command with, from a buffered stream.
type FrameReader struct {
	R *bufio.Reader
	// MaxArgs and MaxBulk bound one frame's arguments and each one's bytes.
	MaxArgs int
	MaxBulk int
}

// Line reads one reply line ("+OK", "-ERR ...", "+FULLRESYNC ..."), without
// its CRLF.
func (f *FrameReader) Line() (string, error) {
	line, err := f.R.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return "", ErrBadFrame
		}
		return "", err
	}
	if len(line) < 2 || line[len(line)-2] != '\r' {
		return "", ErrBadFrame
	}
	return string(line[:len(line)-2]), nil
}

// Next reads one frame. Its arguments are fresh memory.
func (f *FrameReader) Next() ([][]byte, error) {
	n, err := f.header('*', f.MaxArgs)
	if err != nil {
		return nil, err
	}
	args := make([][]byte, n)
	for i := range args {
		size, err := f.header('$', f.MaxBulk)
		if err != nil {
			return nil, err
		}
		b := make([]byte, size+2)
		if _, err := io.ReadFull(f.R, b); err != nil {
			return nil, err
		}
		if b[size] != '\r' || b[size+1] != '\n' {
			return nil, ErrBadFrame
		}
		args[i] = b[:size:size]
	}
	return args, nil
}

// header reads a "<kind><n>\r\n" line with 0 <= n <= max.
func (f *FrameReader) header(kind byte, max int) (int, error) {
	line, err := f.Line()
	if err != nil {
		return 0, err
	}
	if len(line) < 2 || line[0] != kind {
		return 0, fmt.Errorf("%w: %q", ErrBadFrame, truncate(line))
	}
	n, err := strconv.Atoi(line[1:])
	if err != nil || n < 0 || n > max || line[1] == '+' {
		return 0, fmt.Errorf("%w: %q", ErrBadFrame, truncate(line))
	}
	return n, nil
}

func truncate(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}
