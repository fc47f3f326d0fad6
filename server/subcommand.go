package server

import "strings"

// The container commands' HELP reply (CLIENT, COMMAND, CONFIG, DEBUG,
// OBJECT, SLOWLOG). The dispatcher resolves their subcommands (server.go,
// with Command.subcommandIndex).

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
