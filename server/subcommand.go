package server

import "strings"

// The container commands' machinery (CLIENT, COMMAND, CONFIG, OBJECT,
// SLOWLOG): dispatch to a subcommand, and the HELP reply's layout.

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
	r := c.Reply()
	r.Array(len(lines) + 3)
	r.Status(strings.ToUpper(container) + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:")
	for _, l := range lines {
		r.Status(l)
	}
	r.Status("HELP")
	r.Status("    Prints this help.")
}
