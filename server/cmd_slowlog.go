package server

import "github.com/shaledb/shale/server/types"

// SLOWLOG GET, LEN, RESET and HELP, over the slow log of slowlog.go.

var slowlogSubcommands = []Subcommand{
	sub("get", -2, Admin|Loading|Stale, cmdSlowlogGet, cmdDoc{"Get the slow log's entries", "2.2.12", "server", "O(N) where N is the number of entries returned", "[count]"}).shaped(atMost(3, shapeSubcommandSyntax)).tips("request_policy:all_nodes", "nondeterministic_output"),
	sub("len", 2, Admin|Loading|Stale, cmdSlowlogLen, cmdDoc{"Get the slow log's length", "2.2.12", "server", "O(1)", ""}).tips("request_policy:all_nodes", "response_policy:agg_sum", "nondeterministic_output"),
	sub("reset", 2, Admin|Loading|Stale, cmdSlowlogReset, cmdDoc{"Clear all entries from the slow log", "2.2.12", "server", "O(N) where N is the number of entries in the slowlog", ""}).tips("request_policy:all_nodes", "response_policy:all_succeeded"),
	sub("help", 2, Loading|Stale, cmdSlowlogHelp, cmdDoc{"Show helpful text about the different subcommands", "6.2.0", "server", "O(1)", ""}),
}

// SLOWLOG GET [count]: the newest count entries (10 by default, -1: all).
func cmdSlowlogGet(c *Ctx, args [][]byte) error {
	r := c.Reply()
	n := int64(10)
	if len(args) == 3 {
		v, ok := types.ParseInt(args[2])
		if !ok || v < -1 {
			return errSlowlogCount
		}
		n = v
	}
	entries := c.Srv.slowlog.newest(int(min(n, 1<<31-1)))
	r.Array(len(entries))
	for _, e := range entries {
		r.Array(6)
		r.Int(e.id)
		r.Int(e.at)
		r.Int(e.usec)
		r.Bulks(e.args)
		r.BulkString(e.client)
		r.BulkString(e.name)
	}
	return nil
}

// SLOWLOG LEN
func cmdSlowlogLen(c *Ctx, _ [][]byte) error {
	c.Reply().Int(int64(c.Srv.slowlog.len()))
	return nil
}

// SLOWLOG RESET
func cmdSlowlogReset(c *Ctx, _ [][]byte) error {
	c.Srv.slowlog.reset()
	c.Reply().OK()
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
