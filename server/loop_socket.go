package server

import (
	"errors"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// loopSocket is the net.Conn under the guardConn of a connection an event
// loop serves (loop.go). The loop owns the descriptor, outside Go's
// netpoller, which would otherwise wake a thread for every request the
// loop reads: only the loop reads it, and it is closed once neither the
// loop nor a writer uses it, so that no goroutine ever touches a number
// the kernel has given to another socket since.
//
// Others write through it: guardConn's replies (through SyscallConn,
// without waiting) and its drain goroutine (Write, which waits for the
// socket in poll). Close shuts the socket down and tells the loop. When
// the loop hands the connection to a goroutine, the socket goes back to
// Go's netpoller (toNetpoller) and every method uses that connection from
// then on.
type loopSocket struct {
	fd            int
	loop          *eventLoop
	lc            *loopConn
	local, remote net.Addr
	// handed is the netpoller's connection once the loop handed the
	// socket over, with its raw connection; nil before.
	handed atomic.Pointer[handedConn]

	mu       sync.Mutex
	closed   bool // Close was called: writes fail
	released bool // the loop is done with fd: the last user closes it
	users    int  // writers using fd now
	writeDL  time.Time
}

type handedConn struct {
	net.Conn
	raw syscall.RawConn
}

func newLoopSocket(fd int, local, remote net.Addr) *loopSocket {
	return &loopSocket{fd: fd, local: local, remote: remote}
}

// goConn is the netpoller's connection of a handed socket, or nil.
func (ls *loopSocket) goConn() net.Conn {
	if h := ls.handed.Load(); h != nil {
		return h.Conn
	}
	return nil
}

// toNetpoller hands the socket to Go's netpoller, for a goroutine to
// serve. The loop releases its descriptor after.
func (ls *loopSocket) toNetpoller() error {
	fd, ok := ls.hold()
	if !ok {
		return net.ErrClosed
	}
	defer ls.unhold()
	dup, err := unix.Dup(fd)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(dup), "")
	nc, err := net.FileConn(f) // a descriptor of its own, in the netpoller
	f.Close()
	if err != nil {
		return err
	}
	sc, ok := nc.(syscall.Conn)
	if !ok {
		nc.Close()
		return errors.New("server: a handed socket has no descriptor")
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		nc.Close()
		return err
	}
	ls.handed.Store(&handedConn{nc, raw})
	return nil
}

// hold returns fd for a writer, unless the socket is closed.
func (ls *loopSocket) hold() (int, bool) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.closed || ls.released && ls.users == 0 {
		return -1, false
	}
	ls.users++
	return ls.fd, true
}

func (ls *loopSocket) unhold() {
	ls.mu.Lock()
	ls.users--
	closeNow := ls.released && ls.users == 0
	ls.mu.Unlock()
	if closeNow {
		unix.Close(ls.fd)
	}
}

// release is the loop's last use of fd.
func (ls *loopSocket) release() {
	ls.mu.Lock()
	ls.released = true
	closeNow := ls.users == 0
	ls.mu.Unlock()
	if closeNow {
		unix.Close(ls.fd)
	}
}

// Read is for a handed socket only: the loop reads its sockets itself.
func (ls *loopSocket) Read(p []byte) (int, error) {
	if gc := ls.goConn(); gc != nil {
		return gc.Read(p)
	}
	return 0, net.ErrClosed
}

// Write writes all of p, waiting for the socket as long as the write
// deadline allows.
func (ls *loopSocket) Write(p []byte) (int, error) {
	if gc := ls.goConn(); gc != nil {
		return gc.Write(p)
	}
	fd, ok := ls.hold()
	if !ok {
		return 0, net.ErrClosed
	}
	defer ls.unhold()
	n := 0
	for n < len(p) {
		m, err := unix.Write(fd, p[n:])
		if m > 0 {
			n += m
		}
		switch {
		case err == unix.EINTR:
		case err == unix.EAGAIN:
			ls.mu.Lock()
			dl, closed := ls.writeDL, ls.closed
			ls.mu.Unlock()
			if closed {
				return n, net.ErrClosed
			}
			wait := 100 * time.Millisecond // then look at closed again
			if !dl.IsZero() {
				if left := time.Until(dl); left <= 0 {
					return n, os.ErrDeadlineExceeded
				} else if left < wait {
					wait = left
				}
			}
			fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
			_, _ = unix.Poll(fds, int(wait/time.Millisecond)+1)
		case err != nil:
			return n, &net.OpError{Op: "write", Net: "tcp", Addr: ls.remote, Err: err}
		}
	}
	return n, nil
}

// Close shuts the socket down and has the loop drop the connection.
func (ls *loopSocket) Close() error {
	if gc := ls.goConn(); gc != nil {
		return gc.Close()
	}
	if ls.shutdown(unix.SHUT_RDWR, true) {
		ls.loop.closedElsewhere(ls.lc)
	}
	return nil
}

// CloseRead stops the reading: the loop sees the end of the input.
func (ls *loopSocket) CloseRead() error {
	if gc := ls.goConn(); gc != nil {
		if tc, ok := gc.(interface{ CloseRead() error }); ok {
			return tc.CloseRead()
		}
		return nil
	}
	ls.shutdown(unix.SHUT_RD, false)
	return nil
}

// shutdown shuts the socket down how; with closing, it marks it closed
// and reports whether it was not already.
func (ls *loopSocket) shutdown(how int, closing bool) bool {
	fd, ok := ls.hold()
	if !ok {
		return false
	}
	defer ls.unhold()
	_ = unix.Shutdown(fd, how)
	if !closing {
		return false
	}
	ls.mu.Lock()
	first := !ls.closed
	ls.closed = true
	ls.mu.Unlock()
	return first
}

func (ls *loopSocket) LocalAddr() net.Addr  { return ls.local }
func (ls *loopSocket) RemoteAddr() net.Addr { return ls.remote }

func (ls *loopSocket) SetDeadline(t time.Time) error {
	_ = ls.SetReadDeadline(t)
	return ls.SetWriteDeadline(t)
}

// SetReadDeadline applies to a handed socket: the loop never waits to read.
func (ls *loopSocket) SetReadDeadline(t time.Time) error {
	if gc := ls.goConn(); gc != nil {
		return gc.SetReadDeadline(t)
	}
	return nil
}

func (ls *loopSocket) SetWriteDeadline(t time.Time) error {
	if gc := ls.goConn(); gc != nil {
		return gc.SetWriteDeadline(t)
	}
	ls.mu.Lock()
	ls.writeDL = t
	ls.mu.Unlock()
	return nil
}

// SyscallConn gives guardConn's writes and CLIENT LIST the descriptor,
// held against its close while they use it.
func (ls *loopSocket) SyscallConn() (syscall.RawConn, error) { return loopRaw{ls}, nil }

type loopRaw struct{ ls *loopSocket }

// goRaw is the netpoller's raw connection of a handed socket, or nil:
// taken once, at the hand-over, not on every write.
func (r loopRaw) goRaw() syscall.RawConn {
	if h := r.ls.handed.Load(); h != nil {
		return h.raw
	}
	return nil
}

func (r loopRaw) Control(f func(fd uintptr)) error {
	if raw := r.goRaw(); raw != nil {
		return raw.Control(f)
	}
	fd, ok := r.ls.hold()
	if !ok {
		return net.ErrClosed
	}
	defer r.ls.unhold()
	f(uintptr(fd))
	return nil
}

// Write calls f until it is done, waiting for the socket in between.
func (r loopRaw) Write(f func(fd uintptr) bool) error {
	if raw := r.goRaw(); raw != nil {
		return raw.Write(f)
	}
	fd, ok := r.ls.hold()
	if !ok {
		return net.ErrClosed
	}
	defer r.ls.unhold()
	for !f(uintptr(fd)) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
		_, _ = unix.Poll(fds, 100)
	}
	return nil
}

func (r loopRaw) Read(f func(fd uintptr) bool) error {
	if raw := r.goRaw(); raw != nil {
		return raw.Read(f)
	}
	return net.ErrClosed // the loop reads its sockets itself
}
