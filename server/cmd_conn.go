package server

import (
	"crypto/subtle"

	"github.com/shaledb/shale/server/types"
)

// Connection commands: PING, ECHO, QUIT, SELECT, AUTH and HELLO. The rows
// of CLIENT (cmd_client.go) and COMMAND (cmd_command.go) are here too.

// PING [message]; the row's Shape allows at most the message.
func cmdPing(c *Ctx, args [][]byte) error {
	if c.Client.subscribed() && !c.resp3 {
		replySubscribedPing(c, args)
		return nil
	}
	if len(args) == 1 {
		c.Reply().Status("PONG")
		return nil
	}
	c.Reply().Bulk(args[1])
	return nil
}

// ECHO message
func cmdEcho(c *Ctx, args [][]byte) error {
	c.Reply().Bulk(args[1])
	return nil
}

// QUIT: +OK, then the connection closes; commands pipelined after it are
// dropped, as Redis drops them.
func cmdQuit(c *Ctx, _ [][]byte) error {
	c.Reply().OK()
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
	c.Reply().OK()
	return nil
}

// AUTH [username] password; the row's Shape allows at most the two.
func cmdAuth(c *Ctx, args [][]byte) error {
	var err error
	if len(args) == 2 {
		err = c.authenticate(nil, args[1], false)
	} else {
		err = c.authenticate(args[1], args[2], true)
	}
	if err != nil {
		return err
	}
	c.Reply().OK()
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

// HELLO [protover [AUTH username password] [SETNAME clientname]]: protover
// 2 or 3 switches the connection's protocol once every option succeeded,
// and the reply is already in the new one, as in Redis.
func cmdHello(c *Ctx, args [][]byte) error {
	i := 1
	resp3 := c.Client.resp3.Load()
	if len(args) > 1 {
		v, ok := types.ParseInt(args[1])
		if !ok {
			return errHelloNotInteger
		}
		if v != 2 && v != 3 {
			return errNoProto
		}
		resp3 = v == 3
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
			return errHelloOption(args[i])
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
	c.Client.resp3.Store(resp3)
	c.resp3 = resp3
	proto := int64(2)
	if resp3 {
		proto = 3
	}
	r := c.Reply()
	r.Map(7)
	r.BulkString("server")
	r.BulkString("redis")
	r.BulkString("version")
	r.BulkString(redisVersion)
	r.BulkString("proto")
	r.Int(proto)
	r.BulkString("id")
	r.Int(c.Client.ID)
	r.BulkString("mode")
	r.BulkString("standalone")
	r.BulkString("role")
	r.BulkString("master")
	r.BulkString("modules")
	r.Array(0)
	return nil
}

// connectionCommands are the connection commands' rows.
var connectionCommands = []Command{
	cmd("ping", -1, Fast|NoKeyspace, 0, 0, 0, cmdPing).shaped(atMost(2, shapeArity)).tips("request_policy:all_shards", "response_policy:all_succeeded").
		doc("Ping the server", "1.0.0", "connection", "O(1)", "[message]"),
	cmd("echo", 2, Loading|Stale|Fast|NoKeyspace, 0, 0, 0, cmdEcho).
		doc("Echo the given string", "1.0.0", "connection", "O(1)", "message"),
	cmd("quit", -1, NoScript|Loading|Stale|Fast|NoAuth|AllowBusy, 0, 0, 0, cmdQuit).
		doc("Close the connection", "1.0.0", "connection", "O(1)", ""),
	cmd("select", 2, Loading|Stale|Fast, 0, 0, 0, cmdSelect).
		doc("Change the selected database for the current connection", "1.0.0", "connection", "O(1)", "index"),
	cmd("auth", -2, NoScript|Loading|Stale|Fast|NoAuth|AllowBusy, 0, 0, 0, cmdAuth).shaped(atMost(3, shapeSyntax)).
		doc("Authenticate to the server", "1.0.0", "connection", "O(N) where N is the number of passwords defined for the user", "[username] password"),
	cmd("hello", -1, NoScript|Loading|Stale|Fast|NoAuth|AllowBusy, 0, 0, 0, cmdHello).
		doc("Handshake with Redis", "6.0.0", "connection", "O(1)", "[protover [AUTH username password] [SETNAME clientname]]"),
	cmd("client", -2, 0, 0, 0, 0, nil).withSubcommands(clientSubcommands).
		doc("A container for client connection commands", "2.4.0", "connection", "Depends on subcommand.", ""),
	cmd("command", -1, Loading|Stale, 0, 0, 0, cmdCommandAll).withSubcommands(commandSubcommands).acl(ACLConnection).tips("nondeterministic_output_order").
		doc("Get array of Redis command details", "2.8.13", "server", "O(N) where N is the total number of Redis commands", ""),
}
