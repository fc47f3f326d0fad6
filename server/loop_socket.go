package server

import (
	"io"
	"net"
	"os"
	"sync"
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
// Others write through it: guardConn's replies and messages (through
// SyscallConn, without waiting) and its drain goroutine (Write, which
// waits for the socket in poll). Close shuts the socket down and tells
// the loop. Once the loop has handed the connection to a goroutine of its
// own, the loop still reads the socket and Read hands the goroutine what
// it read.
type loopSocket struct {
	fd            int
	loop          *eventLoop
	lc            *loopConn
	local, remote net.Addr

	mu       sync.Mutex
	closed   bool // Close was called: reads and writes fail
	released bool // the loop is done with fd: the last user closes it
	users    int  // writers using fd now
	// For a connection handed to a goroutine: what the loop read and
	// Read has not returned, the read side's end, and a channel closed
	// (and replaced) when either changes or a deadline moves.
	in              []byte
	inErr           error
	changed         chan struct{}
	readDL, writeDL time.Time
	paused          bool // the loop stopped reading: in is full
}

// maxHeldInput bounds what the loop reads ahead for a connection handed
// to a goroutine; the guard's own limits apply as the goroutine reads.
const maxHeldInput = 1 << 20

func newLoopSocket(fd int, local, remote net.Addr) *loopSocket {
	return &loopSocket{fd: fd, local: local, remote: remote, changed: make(chan struct{})}
}

// signal wakes a Read waiting for a change. ls.mu is held.
func (ls *loopSocket) signal() {
	close(ls.changed)
	ls.changed = make(chan struct{})
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
	ls.signal()
	closeNow := ls.users == 0
	ls.mu.Unlock()
	if closeNow {
		unix.Close(ls.fd)
	}
}

// Read returns what the loop read for a connection handed to a
// goroutine, waiting for it.
func (ls *loopSocket) Read(p []byte) (int, error) {
	for {
		ls.mu.Lock()
		if len(ls.in) > 0 {
			n := copy(p, ls.in)
			ls.in = ls.in[n:]
			resume := ls.paused && len(ls.in) < maxHeldInput/2
			if resume {
				ls.paused = false
			}
			ls.mu.Unlock()
			if resume {
				ls.loop.resume(ls.lc)
			}
			return n, nil
		}
		if ls.inErr != nil || ls.closed {
			err := ls.inErr
			ls.mu.Unlock()
			if err == nil {
				err = net.ErrClosed
			}
			return 0, err
		}
		dl, ch := ls.readDL, ls.changed
		ls.mu.Unlock()
		if !dl.IsZero() {
			wait := time.Until(dl)
			if wait <= 0 {
				return 0, os.ErrDeadlineExceeded
			}
			t := time.NewTimer(wait)
			select {
			case <-ch:
			case <-t.C:
			}
			t.Stop()
			continue
		}
		<-ch
	}
}

// received is the loop's: it read b for a goroutine, or the read side
// ended (err). It reports whether the loop may read more now.
func (ls *loopSocket) received(b []byte, err error) bool {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ls.in = append(ls.in, b...)
	if err != nil && ls.inErr == nil {
		ls.inErr = err
	}
	ls.signal()
	ls.paused = len(ls.in) >= maxHeldInput
	return !ls.paused
}

// Write writes all of p, waiting for the socket as long as the write
// deadline allows.
func (ls *loopSocket) Write(p []byte) (int, error) {
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
	if ls.shutdown(unix.SHUT_RDWR, true) {
		ls.loop.closedElsewhere(ls.lc)
	}
	return nil
}

// CloseRead stops the reading: the loop sees the end of the input.
func (ls *loopSocket) CloseRead() error {
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
	ls.signal()
	ls.mu.Unlock()
	return first
}

func (ls *loopSocket) LocalAddr() net.Addr  { return ls.local }
func (ls *loopSocket) RemoteAddr() net.Addr { return ls.remote }

func (ls *loopSocket) SetDeadline(t time.Time) error {
	_ = ls.SetReadDeadline(t)
	return ls.SetWriteDeadline(t)
}

func (ls *loopSocket) SetReadDeadline(t time.Time) error {
	ls.mu.Lock()
	ls.readDL = t
	ls.signal()
	ls.mu.Unlock()
	return nil
}

func (ls *loopSocket) SetWriteDeadline(t time.Time) error {
	ls.mu.Lock()
	ls.writeDL = t
	ls.mu.Unlock()
	return nil
}

// SyscallConn gives guardConn's writes and CLIENT LIST the descriptor,
// held against its close while they use it.
func (ls *loopSocket) SyscallConn() (syscall.RawConn, error) { return loopRaw{ls}, nil }

type loopRaw struct{ ls *loopSocket }

func (r loopRaw) Control(f func(fd uintptr)) error {
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

// Read is not used: the loop reads the socket itself.
func (r loopRaw) Read(f func(fd uintptr) bool) error { return io.ErrNoProgress }
