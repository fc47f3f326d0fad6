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

// deprecation is what COMMAND DOCS adds about a command Redis 7.0
// deprecates: doc_flags deprecated, deprecated_since and replaced_by.
type deprecation struct {
	since      string // the Redis version that deprecated it
	replacedBy string // Redis's text, markdown and all
}

// systemCommands are the commands Redis's COMMAND DOCS flags syscmd: the
// ones servers send each other.
var systemCommands = map[string]bool{"replconf": true, "psync": true}

// deprecatedCommands are the commands of Shale's table that Redis 7.0
// deprecates, by name, with Redis's texts.
var deprecatedCommands = map[string]deprecation{
	"getset":               {"6.2.0", "`SET` with the `!GET` argument"},
	"substr":               {"2.0.0", "`GETRANGE`"},
	"hmset":                {"4.0.0", "`HSET` with multiple field-value pairs"},
	"rpoplpush":            {"6.2.0", "`LMOVE` with the `RIGHT` and `LEFT` arguments"},
	"brpoplpush":           {"6.2.0", "`BLMOVE` with the `RIGHT` and `LEFT` arguments"},
	"zrevrange":            {"6.2.0", "`ZRANGE` with the `REV` argument"},
	"zrangebyscore":        {"6.2.0", "`ZRANGE` with the `BYSCORE` argument"},
	"zrevrangebyscore":     {"6.2.0", "`ZRANGE` with the `REV` and `BYSCORE` arguments"},
	"zrangebylex":          {"6.2.0", "`ZRANGE` with the `BYLEX` argument"},
	"zrevrangebylex":       {"6.2.0", "`ZRANGE` with the `REV` and `BYLEX` arguments"},
	"georadius":            {"6.2.0", "`GEOSEARCH` and `GEOSEARCHSTORE` with the `BYRADIUS` argument"},
	"georadius_ro":         {"6.2.0", "`GEOSEARCH` with the `BYRADIUS` argument"},
	"georadiusbymember":    {"6.2.0", "`GEOSEARCH` and `GEOSEARCHSTORE` with the `BYRADIUS` and `FROMMEMBER` arguments"},
	"georadiusbymember_ro": {"6.2.0", "`GEOSEARCH` with the `BYRADIUS` and `FROMMEMBER` arguments"},
	"slaveof":              {"5.0.0", "`REPLICAOF`"},
}
