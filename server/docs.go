package server

// cmdDoc is what COMMAND DOCS reports about a command: enough for
// redis-cli's help and hints. Each row carries its own (Command.doc);
// summaries follow Redis's.
type cmdDoc struct {
	summary string
	since   string // the Redis (or, for Shale's own commands, Shale) version that added it
	group   string // Redis's group: generic, string, hash, connection, server...
	// complexity is Redis's time complexity text ("O(1)"); "" for none (MONITOR).
	complexity string
	args       string // the argument syntax redis-cli shows as a hint, e.g. "key field [field ...]"
}

// noDoc is the doc of a subcommand Redis does not declare (DEBUG's): COMMAND
// DOCS never shows it, DEBUG HELP describes it.
var noDoc cmdDoc

// doc sets a row's COMMAND DOCS entry.
func (c Command) doc(summary, since, group, complexity, args string) Command {
	c.Doc = cmdDoc{summary: summary, since: since, group: group, complexity: complexity, args: args}
	return c
}
