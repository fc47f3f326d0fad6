package tests

import (
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestCommandGetKeysAndFlags: each key of a call with its key spec flags,
// as Redis 7.0 finds them: from the key specs; from SET's and SORT's own
// procedures where the specs cannot say; none when the specs give up on a
// numkeys Redis's fallback parser reads (ZUNIONSTORE d 2x a b).
func TestCommandGetKeysAndFlags(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		key := func(name string, flags ...any) []any { return []any{name, flags} }
		run(t, c, []step{
			{cmd("COMMAND", "GETKEYSANDFLAGS", "get", "k"), []any{key("k", "RO", "access")}},
			{cmd("COMMAND", "GETKEYSANDFLAGS", "SET", "k", "v"), []any{key("k", "OW", "update")}},
			{cmd("COMMAND", "GETKEYSANDFLAGS", "set", "k", "v", "PX", 10, "get"), []any{key("k", "RW", "access", "update")}},
			{cmd("COMMAND", "GETKEYSANDFLAGS", "set", "k", "get", "v"), []any{key("k", "OW", "update")}},
			{cmd("COMMAND", "GETKEYSANDFLAGS", "getex", "k"), []any{key("k", "RW", "access", "update")}},
			{cmd("COMMAND", "GETKEYSANDFLAGS", "rename", "a", "b"), []any{key("a", "RW", "access", "delete"), key("b", "OW", "update")}},
			{cmd("COMMAND", "GETKEYSANDFLAGS", "mset", "a", 1, "b", 2), []any{key("a", "OW", "update"), key("b", "OW", "update")}},
			{cmd("COMMAND", "GETKEYSANDFLAGS", "blmove", "a", "b", "left", "right", 0), []any{key("a", "RW", "access", "delete"), key("b", "RW", "insert")}},
			{cmd("COMMAND", "GETKEYSANDFLAGS", "blpop", "a", "b", 0), []any{key("a", "RW", "access", "delete"), key("b", "RW", "access", "delete")}},
			{cmd("COMMAND", "GETKEYSANDFLAGS", "zunionstore", "d", 2, "a", "b"), []any{key("d", "OW", "update"), key("a", "RO", "access"), key("b", "RO", "access")}},
			{cmd("COMMAND", "GETKEYSANDFLAGS", "zunionstore", "d", "2x", "a", "b"), []any{key("a"), key("b"), key("d")}},
			{cmd("COMMAND", "GETKEYSANDFLAGS", "lmpop", 2, "a", "b", "left"), []any{key("a", "RW", "access", "delete"), key("b", "RW", "access", "delete")}},
			{cmd("COMMAND", "GETKEYSANDFLAGS", "eval", "x", 2, "a", "b"), []any{key("a", "RW", "access", "update"), key("b", "RW", "access", "update")}},
			{cmd("COMMAND", "GETKEYSANDFLAGS", "eval", "x", "2x", "a", "b"), []any{key("a"), key("b")}},
			{cmd("COMMAND", "GETKEYSANDFLAGS", "sort", "k", "BY", "x", "STORE", "d", "GET", "y", "STORE", "e"), []any{key("k", "RO", "access"), key("e", "OW", "update")}},
			{cmd("COMMAND", "GETKEYSANDFLAGS", "sort", "k", "STORE"), []any{key("k", "RO", "access")}},
			{cmd("COMMAND", "GETKEYSANDFLAGS", "sort_ro", "k"), []any{key("k", "RO", "access")}},
			{cmd("COMMAND", "GETKEYSANDFLAGS", "lcs", "a", "b"), []any{key("a", "RO", "access"), key("b", "RO", "access")}},
			{cmd("COMMAND", "GETKEYSANDFLAGS", "object", "encoding", "k"), []any{key("k", "RO")}},
			{cmd("COMMAND", "GETKEYSANDFLAGS", "OBJECT", "Encoding", "k"), []any{key("k", "RO")}},
			// Keys that are optional: none, not an error.
			{cmd("COMMAND", "GETKEYSANDFLAGS", "eval", "x", 0), []any{}},
			// Errors, in Redis's order: command, keys, arity, arguments.
			{cmd("COMMAND", "GETKEYSANDFLAGS", "nosuch", "a"), errText("ERR Invalid command specified")},
			{cmd("COMMAND", "GETKEYSANDFLAGS", "object", "nosuch", "k"), errText("ERR Invalid command specified")},
			{cmd("COMMAND", "GETKEYSANDFLAGS", "ping", "a", "b"), errText("ERR The command has no key arguments")},
			{cmd("COMMAND", "GETKEYSANDFLAGS", "multi", "a", "b"), errText("ERR The command has no key arguments")},
			{cmd("COMMAND", "GETKEYSANDFLAGS", "object", "help", "x"), errText("ERR The command has no key arguments")},
			{cmd("COMMAND", "GETKEYSANDFLAGS", "ssubscribe", "a", "b"), errText("ERR The command has no key arguments")},
			{cmd("COMMAND", "GETKEYSANDFLAGS", "get", "k", "x"), errText("ERR Invalid number of arguments specified for command")},
			{cmd("COMMAND", "GETKEYSANDFLAGS", "object", "encoding"), errText("ERR Invalid number of arguments specified for command")},
			{cmd("COMMAND", "GETKEYSANDFLAGS", "object", "encoding", "k", "x"), errText("ERR Invalid number of arguments specified for command")},
			{cmd("COMMAND", "GETKEYSANDFLAGS", "lmpop", 5, "a", "b", "left"), errText("ERR Invalid arguments specified for command")},
			{cmd("COMMAND", "GETKEYSANDFLAGS", "sintercard", 0, "a"), errText("ERR Invalid arguments specified for command")},
			{cmd("COMMAND", "GETKEYSANDFLAGS", "get"), errText("ERR wrong number of arguments for 'command|getkeysandflags' command")},
			// GETKEYS shares the rules.
			{cmd("COMMAND", "GETKEYS", "eval", "x", 0), []any{}},
			{cmd("COMMAND", "GETKEYS", "multi", "a", "b"), errText("ERR The command has no key arguments")},
			{cmd("COMMAND", "GETKEYS", "object", "nosuch", "k"), errText("ERR Invalid command specified")},
			{cmd("COMMAND", "GETKEYS", "object", "encoding"), errText("ERR Invalid number of arguments specified for command")},
			{cmd("COMMAND", "GETKEYS", "object", "encoding", "k", "x"), errText("ERR Invalid number of arguments specified for command")},
		})
	})
}
