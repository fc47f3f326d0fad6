package server

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidwall/redcon"
)

// MONITOR: the client gets a line for every command any client runs, in
// Redis's format,
//
//	+1700000000.123456 [0 127.0.0.1:50000] "set" "k" "v"
//
// (unix time with microseconds, the database after the command, the
// client's address, and each argument quoted as Redis's sdscatrepr does).
// Admin commands (CONFIG, SLOWLOG, DEBUG...) are not shown, and AUTH's and
// HELLO's credentials read "(redacted)", as in Redis.
//
// A monitor's connection is detached from redcon: its own goroutine reads
// its commands, and a writer goroutine sends the lines that observe queues.
// Like Redis, a monitor may still run commands that touch no keys (PING,
// INFO, QUIT); keyed ones are refused. Monitors are not subject to the idle
// timeout. One whose client reads too slowly, so that monitorMaxPending
// bytes pile up, is disconnected, as Redis's output buffer limit does.
//
// RESET takes a client out of MONITOR mode (leave): the feed stops, and its
// connection, which cannot go back to redcon, stays with its read goroutine,
// which runs every command from then on, keyed ones too; a MONITOR from it
// then turns the feed back on (rejoin).

// monitorMaxPending bounds the bytes queued for one monitor.
const monitorMaxPending = 64 << 20

// monitorSet is the server's monitors.
type monitorSet struct {
	count atomic.Int64 // the monitors in list that have not left: observe's fast path
	mu    sync.Mutex
	list  []*monitor
	wg    sync.WaitGroup // one per monitor goroutine
}

// monitor is one client in MONITOR mode.
type monitor struct {
	s    *Server
	cl   *Client
	conn redcon.DetachedConn

	wmu sync.Mutex // guards conn's writer: the writer goroutine and replies

	mu      sync.Mutex // guards pending and over
	pending []byte
	over    bool          // monitorMaxPending reached: being closed
	wake    chan struct{} // capacity 1: pending has bytes
	stop    chan struct{} // closed when the monitor ends (stopOnce)

	stopOnce sync.Once
	left     atomic.Bool // RESET: not fed until it rejoins; its commands all run
}

// end stops the monitor's writer goroutine, once.
func (m *monitor) end() { m.stopOnce.Do(func() { close(m.stop) }) }

func (ms *monitorSet) add(m *monitor) {
	ms.mu.Lock()
	ms.list = append(ms.list, m)
	ms.count.Add(1)
	ms.wg.Add(2)
	ms.mu.Unlock()
	go m.read(ms)
	go m.write(ms)
}

func (ms *monitorSet) remove(m *monitor) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	for i, x := range ms.list {
		if x == m {
			ms.list = append(ms.list[:i], ms.list[i+1:]...)
			if !m.left.Load() {
				ms.count.Add(-1)
			}
			break
		}
	}
}

// leave takes cl out of MONITOR mode, for RESET; it does nothing to a
// client that is not a monitor. The monitor stays in the list, so that
// close still ends its connection, but is fed no more.
func (ms *monitorSet) leave(cl *Client) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	for _, m := range ms.list {
		if m.cl == cl && !m.left.Load() {
			m.left.Store(true)
			ms.count.Add(-1)
		}
	}
	cl.setMonitor(false)
}

// rejoin turns the feed back on for cl if it is a monitor that left, and
// reports whether it was: MONITOR from it must not detach its connection
// again, which its read goroutine already serves.
func (ms *monitorSet) rejoin(cl *Client) bool {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	for _, m := range ms.list {
		if m.cl == cl && m.left.Load() {
			m.left.Store(false)
			ms.count.Add(1)
			cl.setMonitor(true)
			return true
		}
	}
	return false
}

// close disconnects every monitor and waits for their goroutines.
func (ms *monitorSet) close() {
	ms.mu.Lock()
	list := append([]*monitor(nil), ms.list...)
	ms.mu.Unlock()
	for _, m := range list {
		m.conn.NetConn().Close()
	}
	ms.wg.Wait()
}

// read runs the monitor's own commands until its connection ends.
func (m *monitor) read(ms *monitorSet) {
	defer ms.wg.Done()
	m.wmu.Lock()
	_ = m.conn.Flush() // MONITOR's +OK
	m.wmu.Unlock()
	for {
		rc, err := m.conn.ReadCommand()
		if err != nil {
			break
		}
		if len(rc.Args) == 0 {
			continue
		}
		m.wmu.Lock()
		if cmd := m.s.table.lookup(rc.Args[0]); cmd != nil && cmd.Flags&(Write|ReadOnly) != 0 && !m.left.Load() {
			m.s.replyError(m.conn, errMonitorKeyspace)
		} else {
			m.s.handle(m.conn, rc)
		}
		err = m.conn.Flush()
		m.wmu.Unlock()
		if err != nil {
			break
		}
	}
	ms.remove(m)
	m.end()
	m.wmu.Lock() // Close flushes, as write may be doing
	m.conn.Close()
	m.wmu.Unlock()
	m.s.dropClient(m.cl)
}

// write sends the queued lines until the monitor ends.
func (m *monitor) write(ms *monitorSet) {
	defer ms.wg.Done()
	var buf []byte
	for {
		select {
		case <-m.stop:
			return
		case <-m.wake:
		}
		m.mu.Lock()
		buf, m.pending = m.pending, buf[:0]
		over := m.over
		m.mu.Unlock()
		if over {
			m.s.log.Warn().Int64("client", m.cl.ID).Msg("monitor output limit reached, disconnecting")
			m.conn.NetConn().Close()
			continue
		}
		m.wmu.Lock()
		// Raw, not through Reply: buf is a batch of status replies that
		// feed encoded once for every monitor (appendMonitorLine); Redis
		// sends them as status replies under RESP3 too.
		m.conn.WriteRaw(buf)
		err := m.conn.Flush()
		m.wmu.Unlock()
		if err != nil {
			m.conn.NetConn().Close()
		}
	}
}

// feed queues one command's line for every monitor.
func (ms *monitorSet) feed(c *Ctx, args [][]byte, now time.Time) {
	db := c.Client.currentDB().Index()
	line := appendMonitorLine(nil, now, db, c.Client.addr, redactArgs(args))
	ms.mu.Lock()
	defer ms.mu.Unlock()
	for _, m := range ms.list {
		if m.left.Load() {
			continue
		}
		m.mu.Lock()
		if !m.over {
			m.pending = append(m.pending, line...)
			m.over = len(m.pending) > monitorMaxPending
		}
		m.mu.Unlock()
		select {
		case m.wake <- struct{}{}:
		default:
		}
	}
}

// appendMonitorLine formats one MONITOR line, CRLF included.
func appendMonitorLine(dst []byte, now time.Time, db int, addr string, args [][]byte) []byte {
	us := now.UnixMicro()
	dst = append(dst, '+')
	dst = strconv.AppendInt(dst, us/1e6, 10)
	dst = append(dst, '.')
	frac := strconv.AppendInt(nil, us%1e6, 10)
	for range 6 - len(frac) {
		dst = append(dst, '0')
	}
	dst = append(dst, frac...)
	dst = append(dst, " ["...)
	dst = strconv.AppendInt(dst, int64(db), 10)
	dst = append(dst, ' ')
	dst = append(dst, addr...)
	dst = append(dst, ']')
	for _, a := range args {
		dst = append(dst, ' ')
		dst = appendRepr(dst, a)
	}
	return append(dst, '\r', '\n')
}

// appendRepr quotes b as Redis's sdscatrepr: printable bytes as they are,
// \\ \" \n \r \t \a \b escaped, anything else as \xHH.
func appendRepr(dst, b []byte) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for _, c := range b {
		switch c {
		case '\\', '"':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\a':
			dst = append(dst, '\\', 'a')
		case '\b':
			dst = append(dst, '\\', 'b')
		default:
			if c >= 0x20 && c < 0x7f {
				dst = append(dst, c)
			} else {
				dst = append(dst, '\\', 'x', hex[c>>4], hex[c&15])
			}
		}
	}
	return append(dst, '"')
}
