package server

import "github.com/shaledb/shale/server/types"

// SLOWLOG GET, LEN, RESET and HELP, over the slow log of slowlog.go.

var slowlogSubcommands = []Subcommand{
	{"get", -2, Admin, cmdSlowlogGet},
	{"len", 2, Admin, cmdSlowlogLen},
	{"reset", 2, Admin, cmdSlowlogReset},
	{"help", 2, 0, cmdSlowlogHelp},
}

// SLOWLOG subcommand [arg ...]
func cmdSlowlog(c *Ctx, args [][]byte) error {
	return runSubcommand(c, args, "slowlog", slowlogSubcommands)
}

// SLOWLOG GET [count]: the newest count entries (10 by default, -1: all).
func cmdSlowlogGet(c *Ctx, args [][]byte) error {
	if len(args) > 3 {
		return errSubcommandSyntax(args)
	}
	n := int64(10)
	if len(args) == 3 {
		v, ok := types.ParseInt(args[2])
		if !ok || v < -1 {
			return errSlowlogCount
		}
		n = v
	}
	entries := c.Srv.slowlog.newest(int(min(n, 1<<31-1)))
	c.Conn.WriteArray(len(entries))
	for _, e := range entries {
		c.Conn.WriteArray(6)
		c.Conn.WriteInt64(e.id)
		c.Conn.WriteInt64(e.at)
		c.Conn.WriteInt64(e.usec)
		c.writeBulks(e.args)
		c.Conn.WriteBulkString(e.client)
		c.Conn.WriteBulkString(e.name)
	}
	return nil
}

// SLOWLOG LEN
func cmdSlowlogLen(c *Ctx, _ [][]byte) error {
	c.Conn.WriteInt(c.Srv.slowlog.len())
	return nil
}

// SLOWLOG RESET
func cmdSlowlogReset(c *Ctx, _ [][]byte) error {
	c.Srv.slowlog.reset()
	c.ok()
	return nil
}

// SLOWLOG HELP
func cmdSlowlogHelp(c *Ctx, _ [][]byte) error {
	writeHelp(c, "slowlog", []string{
		"GET [<count>]",
		"    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
		"    Entries are made of:",
		"    id, timestamp, time in microseconds, arguments array, client IP and port,",
		"    client name",
		"LEN",
		"    Return the length of the slowlog.",
		"RESET",
		"    Reset the slowlog.",
	})
	return nil
}
