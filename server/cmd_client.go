package server

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tidwall/redcon"

	"github.com/shaledb/shale/server/types"
)

// CLIENT and its subcommands. Their per-connection state is Client's
// (client.go); CLIENT PAUSE's pauser is in pause.go.

var clientSubcommands = []Subcommand{
	sub("setname", 3, NoScript|Loading|Stale, cmdClientSetName, cmdDoc{"Set the current connection name", "2.6.9", "connection", "O(1)", "connection-name"}),
	sub("getname", 2, NoScript|Loading|Stale, cmdClientGetName, cmdDoc{"Get the current connection name", "2.6.9", "connection", "O(1)", ""}),
	sub("id", 2, NoScript|Loading|Stale, cmdClientID, cmdDoc{"Returns the client ID for the current connection", "5.0.0", "connection", "O(1)", ""}),
	sub("info", 2, NoScript|Loading|Stale, cmdClientInfo, cmdDoc{"Returns information about the current client connection.", "6.2.0", "connection", "O(1)", ""}).tips("nondeterministic_output"),
	sub("list", -2, Admin|NoScript|Loading|Stale, cmdClientList, cmdDoc{"Get the list of client connections", "2.4.0", "connection", "O(N) where N is the number of client connections", "[TYPE NORMAL|MASTER|REPLICA|PUBSUB] [ID client-id [client-id ...]]"}).tips("nondeterministic_output"),
	sub("kill", -3, Admin|NoScript|Loading|Stale, cmdClientKill, cmdDoc{"Kill the connection of a client", "2.4.0", "connection", "O(N) where N is the number of client connections", "ip:port|[ID client-id] [TYPE NORMAL|MASTER|SLAVE|REPLICA|PUBSUB] [USER username] [ADDR ip:port] [LADDR ip:port] [SKIPME yes/no]"}),
	sub("pause", -3, Admin|NoScript|Loading|Stale, cmdClientPause, cmdDoc{"Stop processing commands from clients for some time", "2.9.50", "connection", "O(1)", "timeout [WRITE|ALL]"}).shaped(atMost(4, shapeSubcommandSyntax)),
	sub("unpause", 2, Admin|NoScript|Loading|Stale, cmdClientUnpause, cmdDoc{"Resume processing of clients that were paused", "6.2.0", "connection", "O(N) Where N is the number of paused clients", ""}),
	sub("reply", 3, NoScript|Loading|Stale, cmdClientReply, cmdDoc{"Instruct the server whether to reply to commands", "3.2.0", "connection", "O(1)", "ON|OFF|SKIP"}),
	sub("no-evict", 3, Admin|NoScript|Loading|Stale, cmdClientNoEvict, cmdDoc{"Set client eviction mode for the current connection", "7.0.0", "connection", "O(1)", "ON|OFF"}),
	sub("setinfo", 4, NoScript|Loading|Stale, cmdClientSetInfo, cmdDoc{"Set client or connection specific info", "7.2.0", "connection", "O(1)", "LIB-NAME libname|LIB-VER libver"}),
	sub("getredir", 2, NoScript|Loading|Stale, cmdClientGetRedir, cmdDoc{"Get tracking notifications redirection client ID if any", "6.0.0", "connection", "O(1)", ""}),
	sub("tracking", -3, NoScript|Loading|Stale, cmdClientTracking, cmdDoc{"Enable or disable server assisted client side caching support", "6.0.0", "connection", "O(1). Some options may introduce additional complexity.", "ON|OFF [REDIRECT client-id] [PREFIX prefix [PREFIX prefix ...]] [BCAST] [OPTIN] [OPTOUT] [NOLOOP]"}),
	sub("caching", 3, NoScript|Loading|Stale, cmdClientCaching, cmdDoc{"Instruct the server about tracking or not keys in the next request", "6.0.0", "connection", "O(1)", "YES|NO"}),
	sub("trackinginfo", 2, NoScript|Loading|Stale, cmdClientTrackingInfo, cmdDoc{"Return information about server assisted client side caching for the current connection", "6.2.0", "connection", "O(1)", ""}),
	sub("unblock", -3, Admin|NoScript|Loading|Stale, cmdClientUnblock, cmdDoc{"Unblock a client blocked in a blocking command from a different connection", "5.0.0", "connection", "O(log N) where N is the number of client connections", "client-id [TIMEOUT|ERROR]"}).shaped(atMost(4, shapeSubcommandSyntax)),
	sub("help", 2, Loading|Stale, cmdClientHelp, cmdDoc{"Show helpful text about the different subcommands", "5.0.0", "connection", "O(1)", ""}),
}

// validClientName is Redis's rule: printable ASCII without spaces. The
// empty name is valid and clears the name.
func validClientName(b []byte) bool {
	for _, ch := range b {
		if ch < '!' || ch > '~' {
			return false
		}
	}
	return true
}

// CLIENT SETNAME name
func cmdClientSetName(c *Ctx, args [][]byte) error {
	if !validClientName(args[2]) {
		return errBadClientName
	}
	c.Client.setName(string(args[2]))
	c.Reply().OK()
	return nil
}

// CLIENT GETNAME: null when no name is set.
func cmdClientGetName(c *Ctx, _ [][]byte) error {
	n := c.Client.getName()
	c.Reply().BulkOrNull([]byte(n), n != "")
	return nil
}

// CLIENT ID
func cmdClientID(c *Ctx, _ [][]byte) error {
	c.Reply().Int(c.Client.ID)
	return nil
}

// CLIENT INFO: this client's CLIENT LIST line.
func cmdClientInfo(c *Ctx, _ [][]byte) error {
	c.Reply().Verbatim(c.Client.infoLine(time.Now()))
	return nil
}

// CLIENT LIST [TYPE NORMAL|MASTER|REPLICA|PUBSUB] [ID client-id ...]. A
// Shale client is a replica's link, a normal one or, in subscribed mode, a
// pubsub one (clientType). TYPE and ID cannot be combined, as in Redis 7.0.
func cmdClientList(c *Ctx, args [][]byte) error {
	var ids map[int64]bool // a set: CLIENT LIST ID may name a million ids
	onlyNone := false
	typ := "" // any
	switch {
	case len(args) == 2:
	case len(args) == 4 && is(args[2], "TYPE"):
		switch t := lower(args[3]); t {
		case "normal", "pubsub", "replica":
			typ = t
		case "slave":
			typ = "replica"
		case "master":
			onlyNone = true
		default:
			return errUnknownClientType(args[3])
		}
	case len(args) >= 4 && is(args[2], "ID"):
		ids = make(map[int64]bool)
		for _, a := range args[3:] {
			id, ok := types.ParseInt(a)
			if !ok {
				return errInvalidClientID
			}
			ids[id] = true
		}
	default:
		return errSyntax
	}
	var b strings.Builder
	if !onlyNone {
		now := time.Now()
		for _, cl := range c.Srv.clientList() {
			if (ids == nil || ids[cl.ID]) && (typ == "" || cl.clientType() == typ) {
				b.WriteString(cl.infoLine(now))
			}
		}
	}
	c.Reply().Verbatim(b.String())
	return nil
}

// CLIENT HELP
func cmdClientHelp(c *Ctx, _ [][]byte) error {
	writeHelp(c, "client", []string{
		"CACHING (YES|NO)",
		"    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
		"GETNAME",
		"    Return the name of the current connection.",
		"ID",
		"    Return the ID of the current connection.",
		"GETREDIR",
		"    Return the client ID we are redirecting to when tracking is enabled.",
		"INFO",
		"    Return information about the current client connection.",
		"KILL <ip:port>",
		"    Kill connection made from <ip:port>.",
		"KILL <option> <value> [<option> <value> [...]]",
		"    Kill connections. Options are:",
		"    * ADDR (<ip:port>|<unixsocket>:0)",
		"      Kill connections made from the specified address",
		"    * LADDR (<ip:port>|<unixsocket>:0)",
		"      Kill connections made to specified local address",
		"    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
		"      Kill connections by type.",
		"    * USER <username>",
		"      Kill connections authenticated by <username>.",
		"    * SKIPME (YES|NO)",
		"      Skip killing current connection (default: yes).",
		"    * ID <client-id>",
		"      Kill connections by client id.",
		"LIST [options ...]",
		"    Return information about client connections. Options:",
		"    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
		"      Return clients of specified type.",
		"    * ID <client-id> [<client-id> ...]",
		"      Return clients with the given IDs.",
		"NO-EVICT (ON|OFF)",
		"    Protect current client connection from eviction.",
		"PAUSE <timeout> [WRITE|ALL]",
		"    Suspend all, or just write, clients for <timeout> milliseconds.",
		"REPLY (ON|OFF|SKIP)",
		"    Control the replies sent to the current connection.",
		"SETINFO <option> <value>",
		"    Set client meta attr. Options are: LIB-NAME, LIB-VER.",
		"SETNAME <name>",
		"    Assign the name <name> to the current connection.",
		"TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
		"         [OPTIN] [OPTOUT] [NOLOOP]",
		"    Control server assisted client side caching.",
		"TRACKINGINFO",
		"    Report tracking status for the current connection.",
		"UNBLOCK <clientid> [TIMEOUT|ERROR]",
		"    Unblock the specified blocked client.",
		"UNPAUSE",
		"    Stop the current client pause, resuming traffic.",
	})
	return nil
}

// clientList returns the connected clients in id (connection) order.
func (s *Server) clientList() []*Client {
	s.mu.Lock()
	list := make([]*Client, 0, len(s.clients))
	for _, cl := range s.clients {
		if !cl.killed.Load() {
			list = append(list, cl)
		}
	}
	s.mu.Unlock()
	slices.SortFunc(list, func(a, b *Client) int { return int(a.ID - b.ID) })
	return list
}

// infoLine is the client's CLIENT LIST line, newline included, with Redis
// 7.0's fields. Buffers and memory Shale does not track read 0.
func (cl *Client) infoLine(now time.Time) string {
	cl.mu.Lock()
	name, lastCmd, libName, libVer := cl.name, cl.lastCmd, cl.libName, cl.libVer
	db := 0
	if cl.db != nil {
		db = cl.db.Index()
	}
	cl.mu.Unlock()
	idle := now.UnixMilli() - cl.lastActive.Load()
	b := make([]byte, 0, 320)
	b = append(b, "id="...)
	b = strconv.AppendInt(b, cl.ID, 10)
	b = append(b, " addr="...)
	b = append(b, cl.addr...)
	b = append(b, " laddr="...)
	b = append(b, cl.laddr...)
	b = append(b, " fd="...)
	b = strconv.AppendInt(b, int64(connFD(cl)), 10)
	b = append(b, " name="...)
	b = append(b, name...)
	b = append(b, " age="...)
	b = strconv.AppendInt(b, int64(now.Sub(cl.created)/time.Second), 10)
	b = append(b, " idle="...)
	b = strconv.AppendInt(b, max(idle, 0)/1000, 10)
	b = append(b, " flags="...)
	b = append(b, cl.clientFlags()...)
	b = append(b, " db="...)
	b = strconv.AppendInt(b, int64(db), 10)
	b = append(b, " sub="...)
	b = strconv.AppendInt(b, int64(cl.subs.counts[channelSub].Load()), 10)
	b = append(b, " psub="...)
	b = strconv.AppendInt(b, int64(cl.subs.counts[patternSub].Load()), 10)
	b = append(b, " ssub="...)
	b = strconv.AppendInt(b, int64(cl.subs.counts[shardSub].Load()), 10)
	b = append(b, " multi="...)
	b = strconv.AppendInt(b, int64(cl.txn.queuedCount.Load()), 10)
	b = append(b, " qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 rbs=0 rbp=0 obl=0 oll=0 omem=0 tot-mem=0 events=r cmd="...)
	if lastCmd == "" {
		lastCmd = "NULL"
	}
	b = append(b, lastCmd...)
	b = append(b, " user=default redir="...)
	b = strconv.AppendInt(b, cl.trk.redirectReply(), 10)
	b = append(b, " resp="...)
	if cl.resp3.Load() {
		b = append(b, '3')
	} else {
		b = append(b, '2')
	}
	if libName != "" || libVer != "" { // Redis 7.2's fields, after SETINFO
		b = append(b, " lib-name="...)
		b = append(b, libName...)
		b = append(b, " lib-ver="...)
		b = append(b, libVer...)
	}
	b = append(b, '\n')
	return string(b)
}

// clientType is the client's class, as CLIENT LIST TYPE and CLIENT KILL
// TYPE name it: "replica" for a replica's link, "pubsub" in subscribed
// mode, else "normal" (a MONITOR client too, as in Redis). A replica's own
// link to its primary is no client of its server: TYPE MASTER matches
// nothing.
func (cl *Client) clientType() string {
	if cl.replica.Load() != nil {
		return "replica"
	}
	if cl.subscribed() {
		return "pubsub"
	}
	return "normal"
}

// clientFlags is the flags field of a CLIENT LIST line.
func (cl *Client) clientFlags() string {
	var f strings.Builder
	if cl.replica.Load() != nil {
		f.WriteByte('S')
	}
	if cl.subscribed() {
		f.WriteByte('P')
	}
	multi := cl.txn.queuedCount.Load() >= 0
	if multi {
		f.WriteByte('x')
	}
	if cl.blocked.Load() {
		f.WriteByte('b')
	}
	// Redis's order: tracking flags after b, before d.
	if cl.trk.has(trackOn) {
		f.WriteByte('t')
	}
	if cl.trk.has(trackBrokenRedir) {
		f.WriteByte('R')
	}
	if cl.trk.has(trackBcast) {
		f.WriteByte('B')
	}
	if multi && cl.txn.dirty.Load() {
		f.WriteByte('d')
	}
	if cl.noEvict.Load() {
		f.WriteByte('e')
	}
	if f.Len() == 0 {
		return "N"
	}
	return f.String()
}

// connFD is the client's socket descriptor, or -1 when it is unknown.
func connFD(cl *Client) int {
	nc := cl.netConn
	if g, ok := nc.(*guardConn); ok {
		nc = g.Conn
	}
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return -1
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return -1
	}
	fd := -1
	if err := raw.Control(func(f uintptr) { fd = int(f) }); err != nil {
		return -1
	}
	return fd
}

// ---- CLIENT KILL ----

// killFilter is one CLIENT KILL: every set field must match.
type killFilter struct {
	id          int64 // 0 = any
	addr, laddr string
	typ         string // "" = any; else "normal" or "pubsub" (clientType)
	skipMe      bool
}

// CLIENT KILL addr:port | CLIENT KILL <filter> <value> [<filter> <value> ...]
func cmdClientKill(c *Ctx, args [][]byte) error {
	if len(args) == 3 { // the old form: one address, +OK or an error
		for _, cl := range c.Srv.clientList() {
			if cl.addr == string(args[2]) {
				c.Srv.kill(c, cl)
				c.Reply().OK()
				return nil
			}
		}
		return errNoSuchClient
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
				return errClientIDPositive
			}
			f.id = id
		case is(args[i], "TYPE"):
			switch t := lower(v); t {
			case "normal", "pubsub", "replica":
				f.typ = t
			case "slave":
				f.typ = "replica"
			case "master":
				noMatch = true
			default:
				return errUnknownClientType(v)
			}
		case is(args[i], "USER"):
			if string(v) != "default" {
				return errNoSuchUser(v)
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
				(f.laddr != "" && cl.laddr != f.laddr) || (f.typ != "" && cl.clientType() != f.typ) ||
				(f.skipMe && cl == c.Client) {
				continue
			}
			c.Srv.kill(c, cl)
			killed++
		}
	}
	c.Reply().Int(killed)
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
	if nc := cl.netConn; nc != nil {
		_ = nc.Close()
	}
	s.log.Debug().Int64("client", cl.ID).Str("addr", cl.addr).Msg("client killed")
}

// ---- CLIENT PAUSE ----

// CLIENT PAUSE timeout [WRITE|ALL]. Redis reads the mode before the
// timeout, so a bad mode is the error even when the timeout is bad too.
func cmdClientPause(c *Ctx, args [][]byte) error {
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
	c.Reply().OK()
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
	c.Reply().OK()
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
		c.Reply().OK()
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
	c.Reply().OK()
	return nil
}

// CLIENT SETINFO LIB-NAME|LIB-VER value (Redis 7.2), which client libraries
// send on connect; CLIENT LIST shows the values.
func cmdClientSetInfo(c *Ctx, args [][]byte) error {
	attr, v := lower(args[2]), string(args[3])
	if attr != "lib-name" && attr != "lib-ver" {
		return errUnrecognizedOption(args[2])
	}
	if !validClientName(args[3]) {
		return errBadClientInfo(attr)
	}
	c.Client.mu.Lock()
	if attr == "lib-name" {
		c.Client.libName = v
	} else {
		c.Client.libVer = v
	}
	c.Client.mu.Unlock()
	c.Reply().OK()
	return nil
}

// CLIENT UNBLOCK client-id [TIMEOUT|ERROR]: ends the wait of a client
// blocked in BLPOP and the like (blocking.go), with the timeout's reply or
// an UNBLOCKED error; 1 if it was blocked, else 0. Redis reads the reason
// before the id.
func cmdClientUnblock(c *Ctx, args [][]byte) error {
	var reason error
	if len(args) == 4 {
		switch {
		case is(args[3], "TIMEOUT"):
		case is(args[3], "ERROR"):
			reason = errUnblocked
		default:
			return errUnblockReason
		}
	}
	id, err := parseInt(args[2])
	if err != nil {
		return err
	}
	// In EXEC the transaction holds its keys' locks, which a blocked
	// client's try under way may be waiting for.
	c.Reply().IntBool(c.Srv.blocking.unblock(id, reason, !c.Client.atomicRun.active))
	return nil
}
