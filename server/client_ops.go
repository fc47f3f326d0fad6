package server

import (
	"math"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidwall/redcon"

	"github.com/shaledb/shale/server/types"
)

// CLIENT KILL, PAUSE, UNPAUSE, REPLY, NO-EVICT, SETINFO and GETREDIR; the
// idle timeout; TCP keepalive.

// ---- CLIENT KILL ----

// killFilter is one CLIENT KILL: every set field must match.
type killFilter struct {
	id          int64 // 0 = any
	addr, laddr string
	typ         string // "" = any; "normal" matches every Shale client
	skipMe      bool
}

// CLIENT KILL addr:port | CLIENT KILL <filter> <value> [<filter> <value> ...]
func cmdClientKill(c *Ctx, args [][]byte) error {
	if len(args) == 3 { // the old form: one address, +OK or an error
		for _, cl := range c.Srv.clientList() {
			if cl.addr == string(args[2]) {
				c.Srv.kill(c, cl)
				c.ok()
				return nil
			}
		}
		return replyError("ERR No such client")
	}
	f := killFilter{skipMe: true}
	noMatch := false
	// Option by option, as Redis reads them: a bad value before a dangling
	// option is the value's error, not a syntax error.
	for i := 2; i < len(args); i += 2 {
		if i+1 == len(args) {
			return errSyntax
		}
		v := args[i+1]
		switch {
		case is(args[i], "ID"):
			id, ok := types.ParseInt(v)
			if !ok || id <= 0 {
				return replyError("ERR client-id should be greater than 0")
			}
			f.id = id
		case is(args[i], "TYPE"):
			switch t := lower(v); t {
			case "normal":
				f.typ = t
			case "master", "replica", "slave", "pubsub":
				noMatch = true
			default:
				return replyError("ERR Unknown client type '" + string(v) + "'")
			}
		case is(args[i], "USER"):
			if string(v) != "default" {
				return replyError("ERR No such user '" + string(v) + "'")
			}
		case is(args[i], "ADDR"):
			f.addr = string(v)
		case is(args[i], "LADDR"):
			f.laddr = string(v)
		case is(args[i], "SKIPME"):
			switch {
			case is(v, "yes"):
				f.skipMe = true
			case is(v, "no"):
				f.skipMe = false
			default:
				return errSyntax
			}
		default:
			return errSyntax
		}
	}
	killed := int64(0)
	if !noMatch {
		for _, cl := range c.Srv.clientList() {
			if (f.id != 0 && cl.ID != f.id) || (f.addr != "" && cl.addr != f.addr) ||
				(f.laddr != "" && cl.laddr != f.laddr) || (f.skipMe && cl == c.Client) {
				continue
			}
			c.Srv.kill(c, cl)
			killed++
		}
	}
	c.Conn.WriteInt64(killed)
	return nil
}

// kill closes cl's connection. The caller's own connection closes after
// the reply, as in Redis; another one is closed now, which also ends a
// blocking command it waits in.
func (s *Server) kill(c *Ctx, cl *Client) {
	cl.killed.Store(true)
	if cl == c.Client {
		c.Client.closeAfterReply = true
		return
	}
	if nc := cl.conn.NetConn(); nc != nil {
		_ = nc.Close()
	}
	s.log.Debug().Int64("client", cl.ID).Str("addr", cl.addr).Msg("client killed")
}

// ---- CLIENT PAUSE ----

// pauseMode is what CLIENT PAUSE holds back.
type pauseMode int

const (
	pauseNone  pauseMode = iota
	pauseWrite           // commands that may write
	pauseAll             // every command
)

// pauser holds the CLIENT PAUSE state. Paused commands wait in their
// connection's goroutine for changed, which is closed (and replaced) on
// every change, or for the pause to end.
type pauser struct {
	active  atomic.Bool // a pause may be on: the dispatcher's fast check
	mu      sync.Mutex
	mode    pauseMode
	until   time.Time
	changed chan struct{}
	closing bool // the server is shutting down: nothing waits any more
}

// pause starts or extends a pause: the stricter mode and the later end win.
func (p *pauser) pause(mode pauseMode, until time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.mode == pauseNone || time.Now().After(p.until) {
		p.mode, p.until = mode, until
	} else {
		p.mode = max(p.mode, mode)
		if until.After(p.until) {
			p.until = until
		}
	}
	p.notify()
}

func (p *pauser) unpause() {
	p.mu.Lock()
	p.mode = pauseNone
	p.notify()
	p.mu.Unlock()
}

// close releases every waiter for good (server shutdown).
func (p *pauser) close() {
	p.mu.Lock()
	p.closing = true
	p.notify()
	p.mu.Unlock()
}

func (p *pauser) notify() {
	p.active.Store(p.mode != pauseNone && !p.closing)
	if p.changed != nil {
		close(p.changed)
	}
	p.changed = make(chan struct{})
}

// wait returns once a command of this kind may run.
func (p *pauser) wait(write bool) {
	for {
		p.mu.Lock()
		active := p.mode != pauseNone && !p.closing && time.Now().Before(p.until)
		holds := active && (p.mode == pauseAll || write)
		if !holds {
			if !active && p.mode != pauseNone {
				p.mode = pauseNone
				p.notify()
			}
			p.mu.Unlock()
			return
		}
		if p.changed == nil {
			p.changed = make(chan struct{})
		}
		changed, until := p.changed, p.until
		p.mu.Unlock()
		t := time.NewTimer(time.Until(until))
		select {
		case <-changed:
		case <-t.C:
		}
		t.Stop()
	}
}

// mayWrite says whether a command is held back by CLIENT PAUSE WRITE:
// write commands, and those Redis flags may-replicate that Shale has.
func mayWrite(cmd *Command) bool {
	return cmd.Flags&Write != 0
}

// CLIENT PAUSE's errors, as Redis words them.
const (
	errPauseTimeoutNotInt replyError = "ERR timeout is not an integer or out of range"
	errPauseTimeoutRange  replyError = "ERR timeout is out of range"
	errPauseMode          replyError = "ERR CLIENT PAUSE mode must be WRITE or ALL"
)

// CLIENT PAUSE timeout [WRITE|ALL]. Redis reads the mode before the
// timeout, so a bad mode is the error even when the timeout is bad too.
func cmdClientPause(c *Ctx, args [][]byte) error {
	if len(args) > 4 {
		// The table allows more (arity -3); Redis's CLIENT takes 3 or 4.
		return errSubcommandSyntax(args)
	}
	mode := pauseAll
	if len(args) == 4 {
		switch {
		case is(args[3], "WRITE"):
			mode = pauseWrite
		case is(args[3], "ALL"):
		default:
			return errPauseMode
		}
	}
	now := time.Now()
	until, err := pauseDeadline(args[2], now)
	if err != nil {
		return err
	}
	c.Srv.pause.pause(mode, until)
	c.ok()
	return nil
}

// pauseDeadline turns CLIENT PAUSE's timeout, in milliseconds, into the
// pause's end. Redis 7.0 adds it to its clock unchecked: a timeout within a
// clock reading of the int64 limit overflows and the pause ends at once,
// which later Redis refuses as out of range, and so does Shale. A timeout
// beyond time.Duration's 292 years pauses for 292 years: as good as the
// forever Redis waits, and never wrapped to a short or negative wait.
func pauseDeadline(arg []byte, now time.Time) (time.Time, error) {
	ms, ok := types.ParseInt(arg)
	switch {
	case !ok:
		return time.Time{}, errPauseTimeoutNotInt
	case ms < 0:
		return time.Time{}, errTimeoutNegative
	case ms > math.MaxInt64-now.UnixMilli():
		return time.Time{}, errPauseTimeoutRange
	}
	return now.Add(time.Duration(min(ms, math.MaxInt64/int64(time.Millisecond))) * time.Millisecond), nil
}

// CLIENT UNPAUSE
func cmdClientUnpause(c *Ctx, _ [][]byte) error {
	c.Srv.pause.unpause()
	c.ok()
	return nil
}

// ---- CLIENT REPLY ----

// replyMode is a client's CLIENT REPLY setting.
type replyMode int32

const (
	replyOn   replyMode = iota
	replyOff            // no replies until CLIENT REPLY ON
	replySkip           // no reply to the next command
)

// CLIENT REPLY ON|OFF|SKIP: ON replies +OK; OFF and SKIP reply nothing.
func cmdClientReply(c *Ctx, args [][]byte) error {
	switch {
	case is(args[2], "ON"):
		c.Client.replyMode.Store(int32(replyOn))
		if m, ok := c.Conn.(mutedConn); ok {
			c.Conn = m.Conn
		}
		c.ok()
	case is(args[2], "OFF"):
		c.Client.replyMode.Store(int32(replyOff))
	case is(args[2], "SKIP"):
		c.Client.replyMode.Store(int32(replySkip))
		c.Client.skipSetNow = true
	default:
		return errSyntax
	}
	return nil
}

// mutedConn drops every reply: the connection of a client with CLIENT
// REPLY OFF, or SKIP for one command.
type mutedConn struct{ redcon.Conn }

func (mutedConn) WriteString(string)     {}
func (mutedConn) WriteBulk([]byte)       {}
func (mutedConn) WriteBulkString(string) {}
func (mutedConn) WriteInt(int)           {}
func (mutedConn) WriteInt64(int64)       {}
func (mutedConn) WriteUint64(uint64)     {}
func (mutedConn) WriteError(string)      {}
func (mutedConn) WriteArray(int)         {}
func (mutedConn) WriteNull()             {}
func (mutedConn) WriteRaw([]byte)        {}
func (mutedConn) WriteAny(any)           {}

// ---- CLIENT NO-EVICT, SETINFO, GETREDIR ----

// CLIENT NO-EVICT ON|OFF: Shale evicts nothing, so only the flag (e in
// CLIENT LIST) changes.
func cmdClientNoEvict(c *Ctx, args [][]byte) error {
	switch {
	case is(args[2], "ON"):
		c.Client.noEvict.Store(true)
	case is(args[2], "OFF"):
		c.Client.noEvict.Store(false)
	default:
		return errSyntax
	}
	c.ok()
	return nil
}

// CLIENT SETINFO LIB-NAME|LIB-VER value (Redis 7.2), which client libraries
// send on connect; CLIENT LIST shows the values.
func cmdClientSetInfo(c *Ctx, args [][]byte) error {
	attr, v := lower(args[2]), string(args[3])
	if attr != "lib-name" && attr != "lib-ver" {
		return replyError("ERR Unrecognized option '" + truncate(string(args[2]), 128) + "'")
	}
	if !validClientName(args[3]) {
		return replyError("ERR " + attr + " cannot contain spaces, newlines or special characters.")
	}
	c.Client.mu.Lock()
	if attr == "lib-name" {
		c.Client.libName = v
	} else {
		c.Client.libVer = v
	}
	c.Client.mu.Unlock()
	c.ok()
	return nil
}

// CLIENT GETREDIR: -1, as there is no client-side caching.
func cmdClientGetRedir(c *Ctx, _ [][]byte) error {
	c.Conn.WriteInt(-1)
	return nil
}

// ---- idle timeout and keepalive ----

// idleSweep is how often idle clients are looked for.
const idleSweep = time.Second

// closeIdle closes, every idleSweep, the connections idle for longer than
// server.timeout, as Redis's clientsCron does. A client inside a command
// (blocked in BLPOP, paused, or MONITOR-like long commands) is never idle.
func (s *Server) closeIdle(stop <-chan struct{}) {
	t := time.NewTicker(idleSweep)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		timeout := s.config().Server.Timeout.Duration
		if timeout <= 0 {
			continue
		}
		cutoff := time.Now().Add(-timeout).UnixMilli()
		for _, cl := range s.clientList() {
			if cl.inCmd.Load() > 0 || cl.lastActive.Load() > cutoff {
				continue
			}
			if nc := cl.conn.NetConn(); nc != nil {
				s.log.Debug().Int64("client", cl.ID).Str("addr", cl.addr).Msg("closing idle client")
				cl.killed.Store(true)
				_ = nc.Close()
			}
		}
	}
}

// setKeepAlive applies server.tcp_keepalive to a new connection as Redis
// does: the first probe after period idle, then every period/3, 3 probes.
func setKeepAlive(nc net.Conn, period time.Duration) {
	if g, ok := nc.(*guardConn); ok {
		nc = g.Conn
	}
	tc, ok := nc.(*net.TCPConn)
	if !ok {
		return
	}
	if period <= 0 {
		_ = tc.SetKeepAlive(false)
		return
	}
	_ = tc.SetKeepAliveConfig(net.KeepAliveConfig{
		Enable:   true,
		Idle:     period,
		Interval: max(period/3, time.Second),
		Count:    3,
	})
}

// clientFlags is the flags field of a CLIENT LIST line.
func (cl *Client) clientFlags() string {
	var f strings.Builder
	if cl.blocked.Load() {
		f.WriteByte('b')
	}
	if cl.noEvict.Load() {
		f.WriteByte('e')
	}
	if f.Len() == 0 {
		return "N"
	}
	return f.String()
}
