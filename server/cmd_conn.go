package server

import (
	"crypto/subtle"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/shaledb/shale/server/types"
)

// Connection commands: PING, ECHO, QUIT, SELECT, AUTH, HELLO, CLIENT and
// COMMAND, and the runSubcommand dispatcher of container commands.

const (
	errHelloNotInteger replyError = "ERR Protocol version is not an integer or out of range"
	errHelloNoAuth     replyError = "NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time"
	errBadClientName   replyError = "ERR Client names cannot contain spaces, newlines or special characters."
	errInvalidClientID replyError = "ERR Invalid client ID"
)

// PING [message]
func cmdPing(c *Ctx, args [][]byte) error {
	switch len(args) {
	case 1:
		c.Conn.WriteString("PONG")
	case 2:
		c.Conn.WriteBulk(args[1])
	default:
		// Arity -1 cannot say "at most 2"; Redis checks this in the command too.
		return errWrongArity("ping")
	}
	return nil
}

// ECHO message
func cmdEcho(c *Ctx, args [][]byte) error {
	c.Conn.WriteBulk(args[1])
	return nil
}

// QUIT: +OK, then the connection closes; commands pipelined after it are
// dropped, as Redis drops them.
func cmdQuit(c *Ctx, _ [][]byte) error {
	c.ok()
	c.Conn.ReadPipeline()
	c.Conn.Close()
	return nil
}

// SELECT index
func cmdSelect(c *Ctx, args [][]byte) error {
	n, err := parseCInt(args[1])
	if err != nil {
		return err
	}
	db, err := c.Srv.eng.DB(n)
	if err != nil {
		return errOutOfRangeDB
	}
	c.Client.setDB(db)
	c.ok()
	return nil
}

// AUTH [username] password
func cmdAuth(c *Ctx, args [][]byte) error {
	var err error
	switch len(args) {
	case 2:
		err = c.authenticate(nil, args[1], false)
	case 3:
		err = c.authenticate(args[1], args[2], true)
	default:
		return errSyntax
	}
	if err != nil {
		return err
	}
	c.ok()
	return nil
}

// authenticate checks a password for the only user, "default". Without
// requirepass the default user takes any password, but the one-argument
// AUTH is refused, as in Redis. A failed attempt leaves the client's state
// as it was.
func (c *Ctx) authenticate(user, pass []byte, withUser bool) error {
	if withUser && string(user) != "default" {
		c.authFailed(user)
		return errWrongPass
	}
	want := c.Srv.requirePass()
	if want == "" {
		if !withUser {
			return errNoPassword
		}
		c.Client.setAuthed(true)
		return nil
	}
	if subtle.ConstantTimeCompare(pass, []byte(want)) != 1 {
		c.authFailed(user)
		return errWrongPass
	}
	c.Client.setAuthed(true)
	return nil
}

// authFailed logs a failed authentication: who and from where, never the
// password given.
func (c *Ctx) authFailed(user []byte) {
	name := "default"
	if user != nil {
		name = truncate(string(user), 128)
	}
	c.Srv.log.Warn().Int64("client_id", c.Client.ID).Str("addr", c.Client.addr).Str("user", name).
		Msg("authentication failed")
}

// HELLO [protover [AUTH username password] [SETNAME clientname]]: only RESP2
// is spoken, so protover 3 gets NOPROTO and clients fall back to RESP2.
func cmdHello(c *Ctx, args [][]byte) error {
	i := 1
	if len(args) > 1 {
		v, ok := types.ParseInt(args[1])
		if !ok {
			return errHelloNotInteger
		}
		if v != 2 {
			return errNoProto
		}
		i = 2
	}
	var user, pass, name []byte
	var withAuth, withName bool
	for ; i < len(args); i++ {
		more := len(args) - 1 - i
		switch {
		case is(args[i], "AUTH") && more >= 2:
			user, pass, withAuth = args[i+1], args[i+2], true
			i += 2
		case is(args[i], "SETNAME") && more >= 1:
			// Checked as it is read, as Redis does: a bad name fails
			// before AUTH is tried, and leaves the client as it was.
			if !validClientName(args[i+1]) {
				return errBadClientName
			}
			name, withName = args[i+1], true
			i++
		default:
			return replyError("ERR Syntax error in HELLO option '" + string(args[i]) + "'")
		}
	}
	if withAuth {
		if err := c.authenticate(user, pass, true); err != nil {
			return err
		}
	}
	if !c.Client.isAuthed() {
		return errHelloNoAuth
	}
	if withName {
		c.Client.setName(string(name))
	}
	c.Conn.WriteArray(14)
	c.Conn.WriteBulkString("server")
	c.Conn.WriteBulkString("redis")
	c.Conn.WriteBulkString("version")
	c.Conn.WriteBulkString(redisVersion)
	c.Conn.WriteBulkString("proto")
	c.Conn.WriteInt(2)
	c.Conn.WriteBulkString("id")
	c.Conn.WriteInt64(c.Client.ID)
	c.Conn.WriteBulkString("mode")
	c.Conn.WriteBulkString("standalone")
	c.Conn.WriteBulkString("role")
	c.Conn.WriteBulkString("master")
	c.Conn.WriteBulkString("modules")
	c.Conn.WriteArray(0)
	return nil
}

// runSubcommand dispatches a container command (CLIENT, CONFIG, COMMAND) to
// its subcommand in args[1], checking the subcommand's arity. The client's
// last command becomes "container|sub", as CLIENT LIST shows it in Redis.
func runSubcommand(c *Ctx, args [][]byte, container string, subs []Subcommand) error {
	name := lower(args[1])
	for i := range subs {
		sc := &subs[i]
		if sc.Name != name {
			continue
		}
		if !arityFits(sc.Arity, len(args)) {
			return errWrongArity(container + "|" + name)
		}
		c.Client.setLastCmd(container + "|" + name)
		return sc.Run(c, args)
	}
	return errUnknownSubcommand(string(args[1]), container)
}

// errSubcommandSyntax is Redis's addReplySubcommandSyntaxError: the reply
// of a container command whose subcommand takes fewer arguments than the
// table's arity lets through (CLIENT PAUSE, SLOWLOG GET), or that does not
// exist (DEBUG).
func errSubcommandSyntax(args [][]byte) replyError {
	return replyError("ERR unknown subcommand or wrong number of arguments for '" + truncate(string(args[1]), 128) +
		"'. Try " + strings.ToUpper(string(args[0])) + " HELP.")
}

// arityFits is Command.arityOK for a bare arity.
func arityFits(arity, n int) bool {
	if arity >= 0 {
		return n == arity
	}
	return n >= -arity
}

// withSubcommands attaches a container command's subcommands to its row.
func (c Command) withSubcommands(subs []Subcommand) Command {
	c.Subcommands = subs
	return c
}

// writeHelp replies with Redis's HELP layout: a heading, the lines, and the
// HELP entry every container has.
func writeHelp(c *Ctx, container string, lines []string) {
	c.Conn.WriteArray(len(lines) + 3)
	c.Conn.WriteString(strings.ToUpper(container) + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:")
	for _, l := range lines {
		c.Conn.WriteString(l)
	}
	c.Conn.WriteString("HELP")
	c.Conn.WriteString("    Prints this help.")
}

// ---- CLIENT ----

var clientSubcommands = []Subcommand{
	{"setname", 3, 0, cmdClientSetName},
	{"getname", 2, 0, cmdClientGetName},
	{"id", 2, 0, cmdClientID},
	{"info", 2, 0, cmdClientInfo},
	{"list", -2, Admin, cmdClientList},
	{"kill", -3, Admin, cmdClientKill},
	{"pause", -3, Admin, cmdClientPause},
	{"unpause", 2, Admin, cmdClientUnpause},
	{"reply", 3, 0, cmdClientReply},
	{"no-evict", 3, Admin, cmdClientNoEvict},
	{"setinfo", 4, 0, cmdClientSetInfo},
	{"getredir", 2, 0, cmdClientGetRedir},
	{"help", 2, 0, cmdClientHelp},
}

// CLIENT subcommand [arg ...]
func cmdClient(c *Ctx, args [][]byte) error {
	return runSubcommand(c, args, "client", clientSubcommands)
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
	c.ok()
	return nil
}

// CLIENT GETNAME: null when no name is set.
func cmdClientGetName(c *Ctx, _ [][]byte) error {
	n := c.Client.getName()
	c.writeBulkOrNull([]byte(n), n != "")
	return nil
}

// CLIENT ID
func cmdClientID(c *Ctx, _ [][]byte) error {
	c.Conn.WriteInt64(c.Client.ID)
	return nil
}

// CLIENT INFO: this client's CLIENT LIST line.
func cmdClientInfo(c *Ctx, _ [][]byte) error {
	c.Conn.WriteBulkString(c.Client.infoLine(time.Now()))
	return nil
}

// CLIENT LIST [TYPE NORMAL|MASTER|REPLICA|PUBSUB] [ID client-id ...]. Every
// Shale client is a normal one. TYPE and ID cannot be combined, as in
// Redis 7.0.
func cmdClientList(c *Ctx, args [][]byte) error {
	var ids map[int64]bool // a set: CLIENT LIST ID may name a million ids
	onlyNone := false
	switch {
	case len(args) == 2:
	case len(args) == 4 && is(args[2], "TYPE"):
		switch lower(args[3]) {
		case "normal":
		case "master", "replica", "slave", "pubsub":
			onlyNone = true
		default:
			return replyError("ERR Unknown client type '" + string(args[3]) + "'")
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
			if ids == nil || ids[cl.ID] {
				b.WriteString(cl.infoLine(now))
			}
		}
	}
	c.Conn.WriteBulkString(b.String())
	return nil
}

// CLIENT HELP
func cmdClientHelp(c *Ctx, _ [][]byte) error {
	writeHelp(c, "client", []string{
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
	b = append(b, " sub=0 psub=0 ssub=0 multi=-1 qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 rbs=0 rbp=0 obl=0 oll=0 omem=0 tot-mem=0 events=r cmd="...)
	if lastCmd == "" {
		lastCmd = "NULL"
	}
	b = append(b, lastCmd...)
	b = append(b, " user=default redir=-1 resp=2"...)
	if libName != "" || libVer != "" { // Redis 7.2's fields, after SETINFO
		b = append(b, " lib-name="...)
		b = append(b, libName...)
		b = append(b, " lib-ver="...)
		b = append(b, libVer...)
	}
	b = append(b, '\n')
	return string(b)
}

// connFD is the client's socket descriptor, or -1 when it is unknown.
func connFD(cl *Client) int {
	if cl.conn == nil {
		return -1
	}
	nc := cl.conn.NetConn()
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

// ---- COMMAND ----

var commandSubcommands = []Subcommand{
	{"count", 2, 0, cmdCommandCount},
	{"info", -2, 0, cmdCommandInfo},
	{"docs", -2, 0, cmdCommandDocs},
	{"list", -2, 0, cmdCommandList},
	{"getkeys", -4, 0, cmdCommandGetKeys},
	{"help", 2, 0, cmdCommandHelp},
}

// COMMAND GETKEYS command [arg ...]: the keys a call would touch.
func cmdCommandGetKeys(c *Ctx, args [][]byte) error {
	call := args[2:]
	cmd := c.Srv.table[lower(call[0])]
	switch {
	case cmd == nil:
		return errInvalidCommandSpecified
	case !cmd.arityOK(len(call)):
		return errInvalidCommandArgCount
	case cmd.FirstKey == 0 && movableKeys[cmd.Name] == nil:
		return errCommandHasNoKeys
	}
	keys := keyPositions(cmd, call)
	if len(keys) == 0 {
		return errInvalidCommandArgs
	}
	c.Conn.WriteArray(len(keys))
	for _, i := range keys {
		c.Conn.WriteBulk(call[i])
	}
	return nil
}

// COMMAND [subcommand [arg ...]]: with no subcommand, every command's info.
func cmdCommand(c *Ctx, args [][]byte) error {
	if len(args) == 1 {
		writeAllCommandInfo(c)
		return nil
	}
	return runSubcommand(c, args, "command", commandSubcommands)
}

func writeAllCommandInfo(c *Ctx) {
	names := c.Srv.table.sortedNames()
	c.Conn.WriteArray(len(names))
	for _, n := range names {
		writeCommandInfo(c, c.Srv.table[n])
	}
}

// COMMAND COUNT: the number of top-level commands.
func cmdCommandCount(c *Ctx, _ [][]byte) error {
	c.Conn.WriteInt(len(c.Srv.table))
	return nil
}

// COMMAND INFO [name ...]: a null for each unknown name; "container|sub"
// names a subcommand.
func cmdCommandInfo(c *Ctx, args [][]byte) error {
	if len(args) == 2 {
		writeAllCommandInfo(c)
		return nil
	}
	c.Conn.WriteArray(len(args) - 2)
	for _, a := range args[2:] {
		name := lower(a)
		container, sub, isSub := strings.Cut(name, "|")
		cmd := c.Srv.table[container]
		switch {
		case cmd == nil:
			c.Conn.WriteNull()
		case !isSub:
			writeCommandInfo(c, cmd)
		default:
			i := slices.IndexFunc(cmd.Subcommands, func(s Subcommand) bool { return s.Name == sub })
			if i < 0 {
				c.Conn.WriteNull()
				continue
			}
			writeSubcommandInfo(c, cmd, &cmd.Subcommands[i])
		}
	}
	return nil
}

// writeCommandInfo writes Redis 7's ten-element COMMAND INFO entry: name,
// arity, flags, first key, last key, step, ACL categories, tips, key specs
// and subcommands.
func writeCommandInfo(c *Ctx, cmd *Command) {
	c.Conn.WriteArray(10)
	c.Conn.WriteBulkString(cmd.Name)
	c.Conn.WriteInt(cmd.Arity)
	flags := flagNames(cmd.Flags)
	if movableKeys[cmd.Name] != nil {
		flags = append(flags, "movablekeys")
	}
	writeStatuses(c, flags)
	c.Conn.WriteInt(cmd.FirstKey)
	c.Conn.WriteInt(cmd.LastKey)
	c.Conn.WriteInt(cmd.Step)
	writeStatuses(c, aclCategories(cmd.Flags, docs[cmd.Name].group))
	c.Conn.WriteArray(0) // tips
	c.Conn.WriteArray(0) // key specs
	c.Conn.WriteArray(len(cmd.Subcommands))
	for i := range cmd.Subcommands {
		writeSubcommandInfo(c, cmd, &cmd.Subcommands[i])
	}
}

func writeSubcommandInfo(c *Ctx, cmd *Command, sc *Subcommand) {
	c.Conn.WriteArray(10)
	c.Conn.WriteBulkString(cmd.Name + "|" + sc.Name)
	c.Conn.WriteInt(sc.Arity)
	writeStatuses(c, flagNames(sc.Flags))
	c.Conn.WriteInt(0)
	c.Conn.WriteInt(0)
	c.Conn.WriteInt(0)
	writeStatuses(c, aclCategories(sc.Flags, docs[cmd.Name].group))
	c.Conn.WriteArray(0)
	c.Conn.WriteArray(0)
	c.Conn.WriteArray(0)
}

func writeStatuses(c *Ctx, items []string) {
	c.Conn.WriteArray(len(items))
	for _, it := range items {
		c.Conn.WriteString(it)
	}
}

// flagNames are the COMMAND INFO flags, named and ordered as Redis names them.
func flagNames(f Flags) []string {
	names := make([]string, 0, 3)
	for _, fl := range []struct {
		flag Flags
		name string
	}{{Write, "write"}, {ReadOnly, "readonly"}, {Admin, "admin"}, {Fast, "fast"}, {NoAuth, "no_auth"}} {
		if f&fl.flag != 0 {
			names = append(names, fl.name)
		}
	}
	return names
}

// aclCategories derives Redis's ACL categories from the flags and the doc
// group (Shale has no ACLs; clients only display these).
func aclCategories(f Flags, group string) []string {
	var cats []string
	if f&Write != 0 {
		cats = append(cats, "@write")
	}
	if f&ReadOnly != 0 {
		cats = append(cats, "@read")
	}
	if f&Admin != 0 {
		cats = append(cats, "@admin")
	}
	switch group {
	case "generic":
		cats = append(cats, "@keyspace")
	case "string", "hash", "list", "set", "connection":
		cats = append(cats, "@"+group)
	case "sorted-set":
		cats = append(cats, "@sortedset")
	}
	if f&Fast != 0 {
		cats = append(cats, "@fast")
	} else {
		cats = append(cats, "@slow")
	}
	if f&Admin != 0 {
		cats = append(cats, "@dangerous")
	}
	return cats
}

// COMMAND DOCS [name ...]: a flat map of name to docs; unknown names are
// left out, as in Redis.
func cmdCommandDocs(c *Ctx, args [][]byte) error {
	var cmds []*Command
	if len(args) == 2 {
		for _, n := range c.Srv.table.sortedNames() {
			cmds = append(cmds, c.Srv.table[n])
		}
	} else {
		for _, a := range args[2:] {
			if cmd := c.Srv.table[lower(a)]; cmd != nil {
				cmds = append(cmds, cmd)
			}
		}
	}
	c.Conn.WriteArray(2 * len(cmds))
	for _, cmd := range cmds {
		c.Conn.WriteBulkString(cmd.Name)
		writeDoc(c, cmd.Name, cmd.Subcommands)
	}
	return nil
}

// writeDoc writes one command's docs map: summary, since, group, the
// arguments redis-cli turns back into its hint, and the subcommands.
func writeDoc(c *Ctx, name string, subs []Subcommand) {
	d := docs[name]
	args := docArgs(d.args)
	n := 6
	if len(args) > 0 {
		n += 2
	}
	if len(subs) > 0 {
		n += 2
	}
	c.Conn.WriteArray(n)
	c.Conn.WriteBulkString("summary")
	c.Conn.WriteBulkString(d.summary)
	c.Conn.WriteBulkString("since")
	c.Conn.WriteBulkString(d.since)
	c.Conn.WriteBulkString("group")
	c.Conn.WriteBulkString(d.group)
	if len(args) > 0 {
		c.Conn.WriteBulkString("arguments")
		c.Conn.WriteArray(len(args))
		for _, a := range args {
			var flags []string
			if a.optional {
				flags = append(flags, "optional")
			}
			if a.multiple {
				flags = append(flags, "multiple")
			}
			m := 4
			if flags != nil {
				m = 6
			}
			c.Conn.WriteArray(m)
			c.Conn.WriteBulkString("name")
			c.Conn.WriteBulkString(a.name)
			c.Conn.WriteBulkString("type")
			c.Conn.WriteBulkString(a.typ)
			if flags != nil {
				c.Conn.WriteBulkString("flags")
				writeStatuses(c, flags)
			}
		}
	}
	if len(subs) > 0 {
		c.Conn.WriteBulkString("subcommands")
		c.Conn.WriteArray(2 * len(subs))
		for _, s := range subs {
			full := name + "|" + s.Name
			c.Conn.WriteBulkString(full)
			writeDoc(c, full, nil)
		}
	}
}

// COMMAND LIST [FILTERBY MODULE name|ACLCAT category|PATTERN pattern]:
// command and subcommand names.
func cmdCommandList(c *Ctx, args [][]byte) error {
	keep := func(string, Flags, string) bool { return true }
	switch {
	case len(args) == 2:
	case len(args) == 5 && is(args[2], "FILTERBY") && is(args[3], "MODULE"):
		keep = func(string, Flags, string) bool { return false }
	case len(args) == 5 && is(args[2], "FILTERBY") && is(args[3], "ACLCAT"):
		want := "@" + lower(args[4])
		keep = func(_ string, f Flags, group string) bool { return slices.Contains(aclCategories(f, group), want) }
	case len(args) == 5 && is(args[2], "FILTERBY") && is(args[3], "PATTERN"):
		pattern := []byte(lower(args[4]))
		keep = func(name string, _ Flags, _ string) bool { return types.Match(pattern, []byte(name)) }
	default:
		return errSyntax
	}
	var names [][]byte
	for _, n := range c.Srv.table.sortedNames() {
		cmd := c.Srv.table[n]
		group := docs[n].group
		if keep(n, cmd.Flags, group) {
			names = append(names, []byte(n))
		}
		for _, s := range cmd.Subcommands {
			if full := n + "|" + s.Name; keep(full, s.Flags, group) {
				names = append(names, []byte(full))
			}
		}
	}
	c.writeBulks(names)
	return nil
}

// COMMAND HELP
func cmdCommandHelp(c *Ctx, _ [][]byte) error {
	writeHelp(c, "command", []string{
		"(no subcommand)",
		"    Return details about all commands.",
		"COUNT",
		"    Return the total number of commands in this server.",
		"LIST [FILTERBY (MODULE <module-name>|ACLCAT <category>|PATTERN <pattern>)]",
		"    Return a list of all commands in this server.",
		"INFO [<command-name> ...]",
		"    Return details about multiple commands.",
		"    If no command names are given, documentation details for all",
		"    commands are returned.",
		"DOCS [<command-name> ...]",
		"    Return documentation details about multiple commands.",
		"    If no command names are given, documentation details for all",
		"    commands are returned.",
		"GETKEYS <full-command>",
		"    Return the keys from a full Redis command.",
	})
	return nil
}

// docArg is one argument as COMMAND DOCS describes it.
type docArg struct {
	name, typ          string
	optional, multiple bool
}

// docArgs splits a hint such as "key field value [field value ...]" into
// arguments from which redis-cli rebuilds exactly that hint: top-level
// words, "[...]" groups as optional arguments, and "X [X ...]" as one
// multiple argument.
func docArgs(syntax string) []docArg {
	var out []docArg
	for _, tok := range splitTopLevel(syntax) {
		if rep, ok := strings.CutSuffix(tok, " ...]"); ok && strings.HasPrefix(rep, "[") {
			rep = rep[1:]
			n := len(splitTopLevel(rep))
			if n <= len(out) && plainNames(out[len(out)-n:]) == rep {
				out = append(out[:len(out)-n], docArg{name: rep, typ: argType(rep), multiple: true})
				continue
			}
		}
		if enclosed(tok) {
			out = append(out, docArg{name: tok[1 : len(tok)-1], typ: "string", optional: true})
			continue
		}
		out = append(out, docArg{name: tok, typ: argType(tok)})
	}
	return out
}

// splitTopLevel splits s at the spaces outside brackets.
func splitTopLevel(s string) []string {
	var toks []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			depth--
		case ' ':
			if depth == 0 {
				if i > start {
					toks = append(toks, s[start:i])
				}
				start = i + 1
			}
		}
	}
	if start < len(s) {
		toks = append(toks, s[start:])
	}
	return toks
}

// enclosed reports whether tok is one bracketed group, "[...]".
func enclosed(tok string) bool {
	if len(tok) < 2 || tok[0] != '[' || tok[len(tok)-1] != ']' {
		return false
	}
	depth := 0
	for i := 0; i < len(tok)-1; i++ {
		switch tok[i] {
		case '[':
			depth++
		case ']':
			depth--
		}
		if depth == 0 {
			return false
		}
	}
	return true
}

// plainNames joins the names of args that are neither optional nor
// multiple, or returns "" when one of them is.
func plainNames(args []docArg) string {
	names := make([]string, len(args))
	for i, a := range args {
		if a.optional || a.multiple {
			return ""
		}
		names[i] = a.name
	}
	return strings.Join(names, " ")
}

func argType(name string) string {
	if name == "key" {
		return "key"
	}
	return "string"
}

// connectionCommands are the connection commands' rows.
var connectionCommands = []Command{
	cmd("ping", -1, Fast, 0, 0, 0, cmdPing),
	cmd("echo", 2, Fast, 0, 0, 0, cmdEcho),
	cmd("quit", -1, NoAuth|Fast, 0, 0, 0, cmdQuit),
	cmd("select", 2, Fast, 0, 0, 0, cmdSelect),
	cmd("auth", -2, NoAuth|Fast, 0, 0, 0, cmdAuth),
	cmd("hello", -1, NoAuth|Fast, 0, 0, 0, cmdHello),
	cmd("client", -2, 0, 0, 0, 0, cmdClient).withSubcommands(clientSubcommands),
	cmd("command", -1, 0, 0, 0, 0, cmdCommand).withSubcommands(commandSubcommands),
}
