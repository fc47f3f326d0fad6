package tests

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// The consumer groups' errors, as Redis 7.0 words them.
const (
	errXGroupNoKey = errText("ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.")
	errBusyGroup   = errText("BUSYGROUP Consumer Group name already exists")
	errSyntaxTxt   = errText("ERR syntax error")
)

// anyArr matches any array reply.
var anyArr matcher = matchFunc{"<any array>", func(got any) string {
	if _, isArr := got.([]any); !isArr {
		return "want an array"
	}
	return ""
}}

// recent matches an idle time in ms of a delivery made during the test.
var recent = between(0, 60000)

// groupInfo is one group of XINFO GROUPS in RESP2.
func groupInfo(name string, consumers, pending int64, last string, entriesRead, lag any) []any {
	return []any{"name", name, "consumers", consumers, "pending", pending, "last-delivered-id", last, "entries-read", entriesRead, "lag", lag}
}

// pendingEntry is one entry of XPENDING's extended form.
func pendingEntry(id, consumer string, deliveries int64) []any {
	return []any{id, consumer, recent, deliveries}
}

func TestStreamXGroup(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("XGROUP", "HELP"), []any{"XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
				"CREATE <key> <groupname> <id|$> [option]",
				"    Create a new consumer group. Options are:",
				"    * MKSTREAM",
				"      Create the empty stream if it does not exist.",
				"    * ENTRIESREAD entries_read",
				"      Set the group's entries_read counter (internal use).",
				"CREATECONSUMER <key> <groupname> <consumer>",
				"    Create a new consumer in the specified group.",
				"DELCONSUMER <key> <groupname> <consumer>",
				"    Remove the specified consumer.",
				"DESTROY <key> <groupname>",
				"    Remove the specified group.",
				"SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
				"    Set the current group ID and entries_read counter.",
				"HELP",
				"    Prints this help."}},
			// Options are read first, then the key, then the ID.
			{cmd("XGROUP", "CREATE", "nokey", "g", "bad"), errXGroupNoKey},
			{cmd("XGROUP", "CREATE", "nokey", "g", "0", "foo"), errText("ERR unknown subcommand or wrong number of arguments for 'CREATE'. Try XGROUP HELP.")},
			{cmd("XGROUP", "CREATE", "nokey", "g", "0", "ENTRIESREAD", "-5"), errText("ERR value for ENTRIESREAD must be positive or -1")},
			{cmd("XGROUP", "CREATE", "nokey", "g", "0", "ENTRIESREAD", "x"), errText("ERR value is not an integer or out of range")},
			{cmd("XGROUP", "CREATE", "nokey", "g", "bad", "MKSTREAM"), errStreamID},
			{cmd("XGROUP", "CREATE", "nokey", "g", "-", "MKSTREAM"), errStreamID}, // strict
			{cmd("EXISTS", "nokey"), 0},
			{cmd("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"), ok},
			{cmd("XLEN", "s"), 0},
			{cmd("XINFO", "GROUPS", "s"), []any{groupInfo("g", 0, 0, "0-0", nil, 0)}},
			{cmd("XGROUP", "CREATE", "s", "g", "0"), errBusyGroup},
			{cmd("XGROUP", "CREATE", "s", "g", "bad"), errStreamID}, // the ID before the group
			{cmd("XGROUP", "CREATE", "s", "g", "0", "MKSTREAM", "MKSTREAM", "MKSTREAM", "MKSTREAM"), errText("ERR unknown subcommand or wrong number of arguments for 'CREATE'. Try XGROUP HELP.")},
			{cmd("XGROUP", "CREATE", "s", "g"), errText("ERR wrong number of arguments for 'xgroup|create' command")},
			{cmd("XGROUP", "SETID", "s", "nog", "0"), errText("NOGROUP No such consumer group 'nog' for key name 's'")},
			{cmd("XGROUP", "SETID", "nokey", "nog", "0"), errXGroupNoKey},
			{cmd("XGROUP", "SETID", "s", "g", "0", "a", "b", "c"), errText("ERR unknown subcommand or wrong number of arguments for 'SETID'. Try XGROUP HELP.")},
			{cmd("XGROUP", "SETID", "s", "g", "0", "MKSTREAM"), errText("ERR unknown subcommand or wrong number of arguments for 'SETID'. Try XGROUP HELP.")},
			{cmd("XGROUP", "SETID", "s", "g", "bad"), errStreamID},
			{cmd("XGROUP", "CREATECONSUMER", "s", "g", "c"), 1},
			{cmd("XGROUP", "CREATECONSUMER", "s", "g", "c"), 0},
			{cmd("XGROUP", "CREATECONSUMER", "s", "nog", "c"), errText("NOGROUP No such consumer group 'nog' for key name 's'")},
			{cmd("XGROUP", "CREATECONSUMER", "nokey", "g", "c"), errXGroupNoKey},
			{cmd("XGROUP", "DELCONSUMER", "s", "g", "nobody"), 0},
			{cmd("XGROUP", "DELCONSUMER", "s", "nog", "c"), errText("NOGROUP No such consumer group 'nog' for key name 's'")},
			{cmd("XGROUP", "foo", "s", "g"), errText("ERR unknown subcommand 'foo'. Try XGROUP HELP.")},
			{cmd("XGROUP", "DESTROY", "nokey", "g"), errXGroupNoKey},
			{cmd("SET", "str", "x"), ok},
			{cmd("XGROUP", "CREATE", "str", "g", "0"), errWrongTypeTxt},
			{cmd("XGROUP", "CREATE", "str", "g", "0", "bad"), errText("ERR unknown subcommand or wrong number of arguments for 'CREATE'. Try XGROUP HELP.")},
			{cmd("XADD", "s", "1-1", "a", "1"), "1-1"},
			{cmd("XADD", "s", "1-2", "b", "2"), "1-2"},
			{cmd("XADD", "s", "1-3", "c", "3"), "1-3"},
			{cmd("XADD", "s", "2-1", "d", "4"), "2-1"},
			{cmd("XGROUP", "CREATE", "s", "g2", "$"), ok},
			{cmd("XGROUP", "CREATE", "s", "g3", "1-2"), ok},
			{cmd("XGROUP", "CREATE", "s", "g4", "0", "ENTRIESREAD", "2"), ok},
			{cmd("XGROUP", "CREATE", "s", "", "0"), ok}, // an empty name is a name
			{cmd("XINFO", "GROUPS", "s"), []any{
				groupInfo("", 0, 0, "0-0", nil, 4),
				groupInfo("g", 1, 0, "0-0", nil, 4),
				groupInfo("g2", 0, 0, "2-1", nil, 0),
				groupInfo("g3", 0, 0, "1-2", nil, nil),
				groupInfo("g4", 0, 0, "0-0", 2, 2)}},
			{cmd("XINFO", "STREAM", "s"), containsPair("groups", 5)},
			{cmd("XGROUP", "SETID", "s", "g", "$"), ok},
			{cmd("XGROUP", "SETID", "s", "g3", "-"), ok}, // not strict
			{cmd("XGROUP", "SETID", "s", "g4", "1-1", "ENTRIESREAD", "1"), ok},
			{cmd("XINFO", "GROUPS", "s"), []any{
				groupInfo("", 0, 0, "0-0", nil, 4),
				groupInfo("g", 1, 0, "2-1", nil, 0),
				groupInfo("g2", 0, 0, "2-1", nil, 0),
				groupInfo("g3", 0, 0, "0-0", nil, 4),
				groupInfo("g4", 0, 0, "1-1", 1, 3)}},
			{cmd("XGROUP", "DESTROY", "s", "g"), 1},
			{cmd("XGROUP", "DESTROY", "s", "g"), 0},
			{cmd("XGROUP", "CREATE", "s", "g", "0"), ok}, // created again: empty
			{cmd("XINFO", "CONSUMERS", "s", "g"), emptyArr},
			{cmd("XINFO", "STREAM", "s"), containsPair("groups", 5)},
		})
	})
}

// containsPair matches a flat RESP2 map that holds key -> value.
func containsPair(key string, value any) matcher {
	return matchFunc{desc: "a map with " + key, fn: func(got any) string {
		arr, isArr := got.([]any)
		if !isArr {
			return "want an array"
		}
		for i := 0; i+1 < len(arr); i += 2 {
			if arr[i] == key {
				return matchValue(value, arr[i+1])
			}
		}
		return "no " + key
	}}
}

func TestStreamXReadGroup(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("XREADGROUP", "GROUP", "g", "c", "STREAMS", "s"), errText("ERR wrong number of arguments for 'xreadgroup' command")},
			{cmd("XREADGROUP", "COUNT", "1", "NOACK", "STREAMS", "s", ">"), errText("ERR Missing GROUP option for XREADGROUP")},
			{cmd("XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", "s", ">"), errText("ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.")},
			{cmd("XREADGROUP", "GROUP", "g", "c", "STREAMS", "nokey", ">"), errText("NOGROUP No such key 'nokey' or consumer group 'g' in XREADGROUP with GROUP option")},
			{cmd("XREADGROUP", "GROUP", "g", "c", "FOO", "STREAMS", "s", ">"), errSyntaxTxt},
			{cmd("XREADGROUP", "GROUP", "g", "c", "COUNT", "x", "STREAMS", "s", ">"), errText("ERR value is not an integer or out of range")},
			{cmd("XREADGROUP", "GROUP", "g", "c", "BLOCK", "-1", "STREAMS", "s", ">"), errText("ERR timeout is negative")},
			{cmd("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"), ok},
			{cmd("EVAL", "return redis.pcall('XREADGROUP', 'GROUP', 'g', 'c', 'BLOCK', '0', 'STREAMS', 's', '>')", "0"), errText("ERR XREADGROUP command is not allowed with BLOCK option from scripts")},
			{cmd("XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", "$"), errText("ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set.")},
			{cmd("XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", "bad"), errStreamID},
			{cmd("XREADGROUP", "GROUP", "nog", "c", "STREAMS", "s", ">"), errText("NOGROUP No such key 's' or consumer group 'nog' in XREADGROUP with GROUP option")},
			{cmd("SET", "str", "x"), ok},
			{cmd("XREADGROUP", "GROUP", "g", "c", "STREAMS", "str", ">"), errWrongTypeTxt},
			{cmd("XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">"), isNil}, // nothing new: no consumer is made
			{cmd("XINFO", "CONSUMERS", "s", "g"), emptyArr},
			{cmd("XADD", "s", "1-1", "a", "1"), "1-1"},
			{cmd("XADD", "s", "1-2", "b", "2"), "1-2"},
			{cmd("XADD", "s", "1-3", "c", "3"), "1-3"},
			{cmd("XADD", "s", "2-1", "d", "4"), "2-1"},
			{cmd("XREADGROUP", "GROUP", "g", "c", "COUNT", "1", "STREAMS", "s", ">"), []any{[]any{"s", entries(entry("1-1", "a", "1"))}}},
			{cmd("XINFO", "GROUPS", "s"), []any{groupInfo("g", 1, 1, "1-1", 1, 3)}},
			{cmd("XREADGROUP", "GROUP", "g", "c2", "NOACK", "COUNT", "1", "STREAMS", "s", ">"), []any{[]any{"s", entries(entry("1-2", "b", "2"))}}},
			{cmd("XREADGROUP", "GROUP", "g", "c2", "COUNT", "0", "STREAMS", "s", ">"), []any{[]any{"s", entries(entry("1-3", "c", "3"), entry("2-1", "d", "4"))}}},
			{cmd("XINFO", "GROUPS", "s"), []any{groupInfo("g", 2, 3, "2-1", 4, 0)}},
			{cmd("XREADGROUP", "GROUP", "g", "c2", "STREAMS", "s", ">"), isNil},
			// History: the consumer's own pending entries after the ID.
			{cmd("XREADGROUP", "GROUP", "g", "c2", "STREAMS", "s", "0"), []any{[]any{"s", entries(entry("1-3", "c", "3"), entry("2-1", "d", "4"))}}},
			{cmd("XREADGROUP", "GROUP", "g", "c2", "COUNT", "1", "STREAMS", "s", "1-3"), []any{[]any{"s", entries(entry("2-1", "d", "4"))}}},
			{cmd("XREADGROUP", "GROUP", "g", "c2", "STREAMS", "s", "2-1"), []any{[]any{"s", emptyArr}}},
			{cmd("XREADGROUP", "GROUP", "g", "new", "STREAMS", "s", "0"), []any{[]any{"s", emptyArr}}},
			{cmd("XPENDING", "s", "g", "-", "+", "10"), []any{pendingEntry("1-1", "c", 1), pendingEntry("1-3", "c2", 2), pendingEntry("2-1", "c2", 3)}},
			// A deleted entry reads as its ID and a null.
			{cmd("XDEL", "s", "1-3"), 1},
			{cmd("XREADGROUP", "GROUP", "g", "c2", "STREAMS", "s", "0"), []any{[]any{"s", []any{[]any{"1-3", nil}, entry("2-1", "d", "4")}}}},
			{cmd("XPENDING", "s", "g", "-", "+", "10", "c2"), []any{pendingEntry("1-3", "c2", 2), pendingEntry("2-1", "c2", 4)}}, // a deleted entry counts no delivery
			// Moved back, the group delivers again: the entries pass to
			// the reader, delivered once.
			{cmd("XGROUP", "SETID", "s", "g", "0"), ok},
			{cmd("XREADGROUP", "GROUP", "g", "c3", "STREAMS", "s", ">"), []any{[]any{"s", entries(entry("1-1", "a", "1"), entry("1-2", "b", "2"), entry("2-1", "d", "4"))}}},
			{cmd("XPENDING", "s", "g"), []any{4, "1-1", "2-1", []any{[]any{"c2", "1"}, []any{"c3", "3"}}}},
			{cmd("XINFO", "CONSUMERS", "s", "g"), []any{
				[]any{"name", "c", "pending", 0, "idle", recent},
				[]any{"name", "c2", "pending", 1, "idle", recent},
				[]any{"name", "c3", "pending", 3, "idle", recent},
				[]any{"name", "new", "pending", 0, "idle", recent}}},
			{cmd("XINFO", "GROUPS", "s"), []any{groupInfo("g", 4, 4, "2-1", 4, 0)}}, // the last entry's count is known
			// XCLAIM FORCE makes pending an entry the group has not
			// delivered yet: its delivery passes it to the reader.
			{cmd("XADD", "f", "1-1", "a", "1"), "1-1"},
			{cmd("XADD", "f", "2-1", "b", "2"), "2-1"},
			{cmd("XADD", "f", "3-1", "c", "3"), "3-1"},
			{cmd("XGROUP", "CREATE", "f", "g", "0"), ok},
			{cmd("XCLAIM", "f", "g", "c1", "0", "2-1", "FORCE", "JUSTID"), []any{"2-1"}},
			{cmd("XREADGROUP", "GROUP", "g", "c2", "COUNT", "3", "STREAMS", "f", ">"), []any{[]any{"f", entries(entry("1-1", "a", "1"), entry("2-1", "b", "2"), entry("3-1", "c", "3"))}}},
			{cmd("XPENDING", "f", "g"), []any{3, "1-1", "3-1", []any{[]any{"c2", "3"}}}},
			{cmd("XPENDING", "f", "g", "-", "+", "10"), []any{pendingEntry("1-1", "c2", 1), pendingEntry("2-1", "c2", 1), pendingEntry("3-1", "c2", 1)}},
			// Several streams: only those with news, in order.
			{cmd("XGROUP", "CREATE", "t", "g", "0", "MKSTREAM"), ok},
			{cmd("XADD", "t", "5-1", "x", "y"), "5-1"},
			{cmd("XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", "t", ">", ">"), []any{[]any{"t", entries(entry("5-1", "x", "y"))}}},
			{cmd("XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", "t", "0", ">"), []any{[]any{"s", emptyArr}}},
			{cmd("XREADGROUP", "GROUP", "g", "c", "STREAMS", "t", "s", "0", "0"), []any{[]any{"t", entries(entry("5-1", "x", "y"))}, []any{"s", emptyArr}}},
		})
	})
}

func TestStreamXAckXPending(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("XACK", "nokey", "g", "bad"), 0}, // the key and group before the IDs
			{cmd("XPENDING", "nokey", "g"), errText("NOGROUP No such key 'nokey' or consumer group 'g'")},
			{cmd("XPENDING", "nokey", "g", "x"), errSyntaxTxt}, // the arguments first
			{cmd("XPENDING", "nokey", "g", "x", "y", "z"), errText("ERR value is not an integer or out of range")},
			{cmd("XPENDING", "nokey", "g", "x", "y", "1"), errStreamID},
			{cmd("XPENDING", "nokey", "g", "IDLE", "5", "-", "+"), errSyntaxTxt},
			{cmd("XPENDING", "nokey", "g", "IDLE", "x", "-", "+", "1"), errText("ERR value is not an integer or out of range")},
			{cmd("XPENDING", "nokey", "g", "(18446744073709551615-18446744073709551615", "+", "1"), errText("ERR invalid start ID for the interval")},
			{cmd("XPENDING", "nokey", "g", "-", "(0-0", "1"), errText("ERR invalid end ID for the interval")},
			{cmd("XPENDING", "nokey", "g", "-", "+", "1", "c", "extra"), errText("NOGROUP No such key 'nokey' or consumer group 'g'")}, // extra is ignored
			{cmd("XPENDING", "nokey", "g", "-", "+", "1", "c", "extra", "more", "and"), errSyntaxTxt},
			{cmd("XGROUP", "CREATE", "s", "g", "0", "MKSTREAM"), ok},
			{cmd("XACK", "s", "g", "bad"), errStreamID},
			{cmd("XACK", "s", "nog", "bad"), 0},
			{cmd("XPENDING", "s", "g"), []any{0, nil, nil, nil}},
			{cmd("XPENDING", "s", "g", "-", "+", "10"), emptyArr},
			{cmd("XADD", "s", "1-1", "a", "1"), "1-1"},
			{cmd("XADD", "s", "1-2", "b", "2"), "1-2"},
			{cmd("XADD", "s", "1-3", "c", "3"), "1-3"},
			{cmd("XREADGROUP", "GROUP", "g", "c1", "COUNT", "2", "STREAMS", "s", ">"), anyArr},
			{cmd("XREADGROUP", "GROUP", "g", "c2", "STREAMS", "s", ">"), anyArr},
			{cmd("XPENDING", "s", "g"), []any{3, "1-1", "1-3", []any{[]any{"c1", "2"}, []any{"c2", "1"}}}},
			{cmd("XPENDING", "s", "g", "-", "+", "10"), []any{pendingEntry("1-1", "c1", 1), pendingEntry("1-2", "c1", 1), pendingEntry("1-3", "c2", 1)}},
			{cmd("XPENDING", "s", "g", "-", "+", "-5"), emptyArr},
			{cmd("XPENDING", "s", "g", "(1-1", "+", "1"), []any{pendingEntry("1-2", "c1", 1)}},
			{cmd("XPENDING", "s", "g", "-", "(1-3", "10"), []any{pendingEntry("1-1", "c1", 1), pendingEntry("1-2", "c1", 1)}},
			{cmd("XPENDING", "s", "g", "1-2", "1", "10"), []any{pendingEntry("1-2", "c1", 1), pendingEntry("1-3", "c2", 1)}}, // 1 is 1-18446744073709551615
			{cmd("XPENDING", "s", "g", "1-2", "1-1", "10"), emptyArr},
			{cmd("XPENDING", "s", "g", "-", "+", "10", "c2"), []any{pendingEntry("1-3", "c2", 1)}},
			{cmd("XPENDING", "s", "g", "-", "+", "10", "nobody"), emptyArr},
			{cmd("XPENDING", "s", "g", "IDLE", "0", "-", "+", "10", "c2"), []any{pendingEntry("1-3", "c2", 1)}},
			{cmd("XPENDING", "s", "g", "IDLE", "1000000", "-", "+", "10"), emptyArr},
			{cmd("XACK", "s", "g", "1-1", "1-1", "9-9"), 1},
			{cmd("XACK", "s", "g", "1-1"), 0},
			{cmd("XPENDING", "s", "g"), []any{2, "1-2", "1-3", []any{[]any{"c1", "1"}, []any{"c2", "1"}}}},
			{cmd("XACK", "s", "g", "1-3"), 1},
			{cmd("XPENDING", "s", "g"), []any{1, "1-2", "1-2", []any{[]any{"c1", "1"}}}},
			{cmd("XINFO", "CONSUMERS", "s", "g"), []any{[]any{"name", "c1", "pending", 1, "idle", recent}, []any{"name", "c2", "pending", 0, "idle", recent}}},
			{cmd("XGROUP", "DELCONSUMER", "s", "g", "c1"), 1},
			{cmd("XPENDING", "s", "g"), []any{0, nil, nil, nil}},
			{cmd("XINFO", "GROUPS", "s"), []any{groupInfo("g", 1, 0, "1-3", 3, 0)}},
			{cmd("SET", "str", "x"), ok},
			{cmd("XACK", "str", "g", "1-1"), errWrongTypeTxt},
			{cmd("XPENDING", "str", "g"), errWrongTypeTxt},
		})
	})
}

func TestStreamXClaim(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("XCLAIM", "nokey", "g", "c", "bad", "1-1"), errText("NOGROUP No such key 'nokey' or consumer group 'g'")}, // the key first
			{cmd("XGROUP", "CREATE", "s", "g", "0", "MKSTREAM"), ok},
			{cmd("XCLAIM", "s", "nog", "c", "0", "1-1"), errText("NOGROUP No such key 's' or consumer group 'nog'")},
			{cmd("XCLAIM", "s", "g", "c", "bad", "1-1"), errText("ERR Invalid min-idle-time argument for XCLAIM")},
			{cmd("XCLAIM", "s", "g", "c", "0", "1-1", "foo"), errText("ERR Unrecognized XCLAIM option 'foo'")},
			{cmd("XCLAIM", "s", "g", "c", "0", "1-1", "IDLE", "x"), errText("ERR Invalid IDLE option argument for XCLAIM")},
			{cmd("XCLAIM", "s", "g", "c", "0", "1-1", "TIME", "x"), errText("ERR Invalid TIME option argument for XCLAIM")},
			{cmd("XCLAIM", "s", "g", "c", "0", "1-1", "RETRYCOUNT", "x"), errText("ERR Invalid RETRYCOUNT option argument for XCLAIM")},
			{cmd("XCLAIM", "s", "g", "c", "0", "1-1", "LASTID", "x"), errStreamID},
			{cmd("XCLAIM", "s", "g", "c", "0", "1-1", "IDLE"), errText("ERR Unrecognized XCLAIM option 'IDLE'")},
			{cmd("XADD", "s", "1-1", "a", "1"), "1-1"},
			{cmd("XADD", "s", "1-2", "b", "2"), "1-2"},
			{cmd("XADD", "s", "1-3", "c", "3"), "1-3"},
			{cmd("XADD", "s", "2-1", "d", "4"), "2-1"},
			{cmd("XREADGROUP", "GROUP", "g", "c", "COUNT", "1", "STREAMS", "s", ">"), anyArr},
			{cmd("XCLAIM", "s", "g", "c2", "0", "1-2"), emptyArr}, // not pending
			{cmd("XINFO", "CONSUMERS", "s", "g"), []any{[]any{"name", "c", "pending", 1, "idle", recent}}},
			{cmd("XCLAIM", "s", "g", "c2", "1000000", "1-1"), emptyArr}, // not idle enough
			{cmd("XCLAIM", "s", "g", "c2", "0", "1-1"), entries(entry("1-1", "a", "1"))},
			{cmd("XCLAIM", "s", "g", "c2", "0", "1-1", "JUSTID"), []any{"1-1"}}, // no delivery counted
			{cmd("XPENDING", "s", "g", "-", "+", "10"), []any{pendingEntry("1-1", "c2", 2)}},
			{cmd("XCLAIM", "s", "g", "c3", "0", "1-2", "FORCE", "JUSTID"), []any{"1-2"}},
			{cmd("XCLAIM", "s", "g", "c3", "0", "1-3", "FORCE"), entries(entry("1-3", "c", "3"))},
			{cmd("XCLAIM", "s", "g", "c3", "0", "9-9", "FORCE"), emptyArr}, // no such entry
			{cmd("XPENDING", "s", "g", "-", "+", "10"), []any{pendingEntry("1-1", "c2", 2), pendingEntry("1-2", "c3", 1), pendingEntry("1-3", "c3", 2)}},
			{cmd("XCLAIM", "s", "g", "c3", "0", "1-1", "1-3", "RETRYCOUNT", "7", "IDLE", "100000"), entries(entry("1-1", "a", "1"), entry("1-3", "c", "3"))},
			{cmd("XPENDING", "s", "g", "-", "+", "10"), []any{
				[]any{"1-1", "c3", between(100000, 160000), 7}, pendingEntry("1-2", "c3", 1), []any{"1-3", "c3", between(100000, 160000), 7}}},
			{cmd("XCLAIM", "s", "g", "c4", "50000", "1-1", "1-2", "1-3", "JUSTID"), []any{"1-1", "1-3"}},
			{cmd("XCLAIM", "s", "g", "c4", "0", "1-1", "TIME", "1", "JUSTID", "LASTID", "5-5"), []any{"1-1"}},
			{cmd("XPENDING", "s", "g", "IDLE", "1000000", "-", "+", "10"), []any{[]any{"1-1", "c4", atLeast(1000000), 7}}},
			{cmd("XINFO", "GROUPS", "s"), []any{groupInfo("g", 4, 3, "5-5", 1, 3)}},
			// A pending entry whose entry is gone leaves the list.
			{cmd("XDEL", "s", "1-3"), 1},
			{cmd("XCLAIM", "s", "g", "c5", "0", "1-3", "2-1", "JUSTID"), emptyArr},
			{cmd("XPENDING", "s", "g"), []any{2, "1-1", "1-2", []any{[]any{"c3", "1"}, []any{"c4", "1"}}}},
			{cmd("XINFO", "CONSUMERS", "s", "g"), []any{
				[]any{"name", "c", "pending", 0, "idle", recent},
				[]any{"name", "c2", "pending", 0, "idle", recent},
				[]any{"name", "c3", "pending", 1, "idle", recent},
				[]any{"name", "c4", "pending", 1, "idle", recent}}},
			// A repeated ID is claimed again, as Redis does, and counted
			// once in the pending list.
			{cmd("XCLAIM", "s", "g", "c6", "0", "1-1", "1-1", "1-2", "JUSTID"), []any{"1-1", "1-1", "1-2"}},
			{cmd("XCLAIM", "s", "g", "c7", "0", "1-1", "1-1", "FORCE"), entries(entry("1-1", "a", "1"), entry("1-1", "a", "1"))},
			{cmd("XPENDING", "s", "g"), []any{2, "1-1", "1-2", []any{[]any{"c6", "1"}, []any{"c7", "1"}}}},
			{cmd("XPENDING", "s", "g", "-", "+", "10"), []any{pendingEntry("1-1", "c7", 9), pendingEntry("1-2", "c6", 1)}},
			{cmd("XDEL", "s", "1-2"), 1},
			{cmd("XCLAIM", "s", "g", "c8", "0", "1-2", "1-2"), emptyArr},
			{cmd("XINFO", "GROUPS", "s"), []any{groupInfo("g", 6, 1, "5-5", 1, 3)}}, // c8 claimed nothing: not made
		})
	})
}

func TestStreamXAutoClaim(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("XAUTOCLAIM", "nokey", "g", "c", "x", "0"), errText("ERR Invalid min-idle-time argument for XAUTOCLAIM")},
			{cmd("XAUTOCLAIM", "nokey", "g", "c", "0", "x"), errStreamID},
			{cmd("XAUTOCLAIM", "nokey", "g", "c", "0", "0", "COUNT", "0"), errText("ERR COUNT must be > 0")},
			{cmd("XAUTOCLAIM", "nokey", "g", "c", "0", "0", "COUNT", "x"), errText("ERR COUNT must be > 0")},
			{cmd("XAUTOCLAIM", "nokey", "g", "c", "0", "0", "COUNT", "576460752303423488"), errText("ERR COUNT must be > 0")},
			{cmd("XAUTOCLAIM", "nokey", "g", "c", "0", "0", "foo"), errSyntaxTxt},
			{cmd("XAUTOCLAIM", "nokey", "g", "c", "0", "0"), errText("NOGROUP No such key 'nokey' or consumer group 'g'")},
			{cmd("XGROUP", "CREATE", "s", "g", "0", "MKSTREAM"), ok},
			{cmd("XAUTOCLAIM", "s", "g", "c", "0", "0"), []any{"0-0", emptyArr, emptyArr}},
			{cmd("XADD", "s", "1-1", "a", "1"), "1-1"},
			{cmd("XADD", "s", "1-2", "b", "2"), "1-2"},
			{cmd("XADD", "s", "1-3", "c", "3"), "1-3"},
			{cmd("XADD", "s", "2-1", "d", "4"), "2-1"},
			{cmd("XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">"), anyArr},
			{cmd("XAUTOCLAIM", "s", "g", "z", "1000000", "0"), []any{"0-0", emptyArr, emptyArr}},
			{cmd("XAUTOCLAIM", "s", "g", "z", "0", "0", "COUNT", "1"), []any{"1-2", entries(entry("1-1", "a", "1")), emptyArr}},
			{cmd("XAUTOCLAIM", "s", "g", "z", "0", "(1-1", "COUNT", "2", "JUSTID"), []any{"2-1", []any{"1-2", "1-3"}, emptyArr}},
			{cmd("XDEL", "s", "1-3", "2-1"), 2},
			{cmd("XAUTOCLAIM", "s", "g", "y", "0", "0"), []any{"0-0", entries(entry("1-1", "a", "1"), entry("1-2", "b", "2")), []any{"1-3", "2-1"}}},
			{cmd("XPENDING", "s", "g", "-", "+", "10"), []any{pendingEntry("1-1", "y", 3), pendingEntry("1-2", "y", 2)}}, // JUSTID counts no delivery
			{cmd("XINFO", "CONSUMERS", "s", "g"), []any{
				[]any{"name", "c", "pending", 0, "idle", recent},
				[]any{"name", "y", "pending", 2, "idle", recent},
				[]any{"name", "z", "pending", 0, "idle", recent}}},
		})
	})
}

// TestStreamGroupInfo checks XINFO GROUPS and CONSUMERS' errors and the
// lag bookkeeping of Redis 7.0 through deletions and trims.
func TestStreamGroupInfo(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("XINFO", "GROUPS", "nokey"), errText("ERR no such key")},
			{cmd("XINFO", "CONSUMERS", "nokey", "g"), errText("ERR no such key")},
			{cmd("XGROUP", "CREATE", "s", "g", "0", "MKSTREAM"), ok},
			{cmd("XINFO", "CONSUMERS", "s", "nog"), errText("NOGROUP No such consumer group 'nog' for key name 's'")},
			{cmd("XINFO", "GROUPS", "s", "x"), errText("ERR wrong number of arguments for 'xinfo|groups' command")},
			{cmd("XADD", "s", "1-1", "a", "1"), "1-1"},
			{cmd("XADD", "s", "1-2", "a", "1"), "1-2"},
			{cmd("XADD", "s", "1-3", "a", "1"), "1-3"},
			{cmd("XADD", "s", "1-4", "a", "1"), "1-4"},
			{cmd("XINFO", "GROUPS", "s"), []any{groupInfo("g", 0, 0, "0-0", nil, 4)}},
			{cmd("XREADGROUP", "GROUP", "g", "c", "COUNT", "1", "STREAMS", "s", ">"), anyArr},
			{cmd("XINFO", "GROUPS", "s"), []any{groupInfo("g", 1, 1, "1-1", 1, 3)}},
			{cmd("XDEL", "s", "1-3"), 1},
			{cmd("XINFO", "GROUPS", "s"), []any{groupInfo("g", 1, 1, "1-1", 1, nil)}}, // a tombstone ahead
			{cmd("XREADGROUP", "GROUP", "g", "c", "COUNT", "1", "STREAMS", "s", ">"), anyArr},
			{cmd("XINFO", "GROUPS", "s"), []any{groupInfo("g", 1, 2, "1-2", nil, nil)}},
			{cmd("XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">"), anyArr},
			{cmd("XINFO", "GROUPS", "s"), []any{groupInfo("g", 1, 3, "1-4", 4, 0)}},
			{cmd("XTRIM", "s", "MAXLEN", "0"), 3},
			{cmd("XINFO", "GROUPS", "s"), []any{groupInfo("g", 1, 3, "1-4", 4, 0)}},
			{cmd("XADD", "s", "2-1", "a", "1"), "2-1"},
			{cmd("XINFO", "GROUPS", "s"), []any{groupInfo("g", 1, 3, "1-4", 4, 1)}},
			{cmd("XGROUP", "CREATE", "s", "g2", "0"), ok},
			{cmd("XINFO", "GROUPS", "s"), []any{groupInfo("g", 1, 3, "1-4", 4, 1), groupInfo("g2", 0, 0, "0-0", nil, 1)}},
		})
	})
}

// TestStreamGroupRESP3 checks the replies that are maps in RESP3, and the
// nulls.
func TestStreamGroupRESP3(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		c3 := redis.NewClient(&redis.Options{Addr: b.Addr, Protocol: 3})
		t.Cleanup(func() { c3.Close() })
		run(t, c3, []step{
			{cmd("XGROUP", "CREATE", "s", "g", "0", "MKSTREAM"), ok},
			{cmd("XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">"), isNil},
			{cmd("XPENDING", "s", "g"), []any{0, nil, nil, nil}},
			{cmd("XADD", "s", "1-1", "a", "1"), "1-1"},
			{cmd("XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">"), map[any]any{"s": entries(entry("1-1", "a", "1"))}},
			{cmd("XINFO", "GROUPS", "s"), []any{map[any]any{"name": "g", "consumers": int64(1), "pending": int64(1),
				"last-delivered-id": "1-1", "entries-read": int64(1), "lag": int64(0)}}},
			{cmd("XGROUP", "CREATE", "s", "g2", "$", "ENTRIESREAD", "-1"), ok},
			{cmd("XGROUP", "SETID", "s", "g2", "0-1"), ok},
			{cmd("XINFO", "GROUPS", "s"), []any{
				map[any]any{"name": "g", "consumers": int64(1), "pending": int64(1), "last-delivered-id": "1-1", "entries-read": int64(1), "lag": int64(0)},
				map[any]any{"name": "g2", "consumers": int64(0), "pending": int64(0), "last-delivered-id": "0-1", "entries-read": nil, "lag": int64(1)}}},
		})
		// XINFO CONSUMERS' idle varies: check its shape.
		got, err := c3.Do(context.Background(), "XINFO", "CONSUMERS", "s", "g").Result()
		if err != nil {
			t.Fatal(err)
		}
		arr, _ := got.([]any)
		if len(arr) != 1 {
			t.Fatalf("XINFO CONSUMERS = %v", got)
		}
		m, _ := arr[0].(map[any]any)
		if m["name"] != "c" || m["pending"] != int64(1) || len(m) != 3 {
			t.Fatalf("XINFO CONSUMERS = %v", got)
		}
	})
}

// TestStreamXReadGroupBlock checks that a blocked XREADGROUP is served by
// XADD, and unblocked with Redis's errors when its stream is deleted or
// overwritten or its group destroyed.
func TestStreamXReadGroupBlock(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		ctx := context.Background()
		reset := func() {
			run(t, c, []step{{cmd("FLUSHALL"), ok}, {cmd("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"), ok}})
		}
		for _, tt := range []struct {
			name string
			act  []any
			want any
		}{
			{"xadd", cmd("XADD", "s", "1-1", "a", "1"), []any{[]any{"s", entries(entry("1-1", "a", "1"))}}},
			{"del", cmd("DEL", "s"), errText("UNBLOCKED the stream key no longer exists")},
			{"set", cmd("SET", "s", "x"), errText("UNBLOCKED the stream key no longer exists")},
			{"unlink", cmd("UNLINK", "s"), errText("UNBLOCKED the stream key no longer exists")},
			{"expire", cmd("EXPIRE", "s", "0"), errText("UNBLOCKED the stream key no longer exists")},
			{"rename", cmd("RENAME", "s", "s2"), errText("UNBLOCKED the stream key no longer exists")},
			{"move", cmd("MOVE", "s", "1"), errText("UNBLOCKED the stream key no longer exists")},
			{"flushdb", cmd("FLUSHDB"), errText("UNBLOCKED the stream key no longer exists")},
			{"flushall", cmd("FLUSHALL"), errText("UNBLOCKED the stream key no longer exists")},
			{"swapdb", cmd("SWAPDB", "0", "1"), errText("UNBLOCKED the stream key no longer exists")},
			{"destroy", cmd("XGROUP", "DESTROY", "s", "g"), errText("NOGROUP the consumer group this client was blocked on no longer exists")},
		} {
			reset()
			blocked := redis.NewClient(&redis.Options{Addr: b.Addr, Protocol: 2})
			done := make(chan *redis.Cmd, 1)
			go func() { done <- blocked.Do(ctx, "XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">") }()
			pollUntil(t, 5*time.Second, func() (bool, string) {
				info := c.Info(ctx, "clients").Val()
				return strings.Contains(info, "blocked_clients:1\r\n"), "no blocked client"
			})
			if err := c.Do(ctx, tt.act...).Err(); err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			select {
			case r := <-done:
				got, err := r.Result()
				if why := matchReply(tt.want, got, err); why != "" {
					t.Errorf("%s: got %s: %s", tt.name, fmtReply(got, err), why)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("%s: XREADGROUP still blocked", tt.name)
			}
			blocked.Close()
		}
		// A timeout is a null.
		run(t, c, []step{{cmd("XREADGROUP", "GROUP", "g", "c", "BLOCK", "50", "STREAMS", "s", ">"), errText("NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option")}})
		reset()
		run(t, c, []step{
			{cmd("XREADGROUP", "GROUP", "g", "c", "BLOCK", "50", "STREAMS", "s", ">"), isNil},
			{cmd("XREADGROUP", "GROUP", "g", "c", "BLOCK", "50", "STREAMS", "s", "0"), []any{[]any{"s", emptyArr}}}, // history never blocks
		})
	})
}

// TestStreamGroupNotifications checks the consumer groups' keyspace
// events: each XGROUP subcommand that did something, and the consumers
// XREADGROUP, XCLAIM and XAUTOCLAIM make.
func TestStreamGroupNotifications(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{{cmd("CONFIG", "SET", "notify-keyspace-events", "Et"), ok}})
		sub := c.PSubscribe(context.Background(), "__keyevent@0__:*")
		t.Cleanup(func() { sub.Close() })
		if _, err := sub.Receive(context.Background()); err != nil {
			t.Fatal(err)
		}
		run(t, c, []step{
			{cmd("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"), ok},
			{cmd("XGROUP", "CREATE", "s", "g", "$"), errBusyGroup}, // nothing
			{cmd("XGROUP", "CREATECONSUMER", "s", "g", "c"), 1},
			{cmd("XGROUP", "CREATECONSUMER", "s", "g", "c"), 0}, // nothing
			{cmd("XADD", "s", "1-1", "a", "1"), "1-1"},
			{cmd("XREADGROUP", "GROUP", "g", "c2", "STREAMS", "s", ">"), anyArr},
			{cmd("XREADGROUP", "GROUP", "g", "c2", "STREAMS", "s", "0"), anyArr}, // nothing
			{cmd("XCLAIM", "s", "g", "c3", "0", "1-1"), anyArr},
			{cmd("XAUTOCLAIM", "s", "g", "c4", "0", "0"), anyArr},
			{cmd("XACK", "s", "g", "1-1"), 1}, // nothing
			{cmd("XGROUP", "SETID", "s", "g", "0"), ok},
			{cmd("XGROUP", "DELCONSUMER", "s", "g", "c"), 0},
			{cmd("XGROUP", "DELCONSUMER", "s", "g", "nobody"), 0}, // nothing
			{cmd("XGROUP", "DESTROY", "s", "g"), 1},
			{cmd("XGROUP", "DESTROY", "s", "g"), 0}, // nothing
		})
		want := []string{"xgroup-create", "xgroup-createconsumer", "xadd", "xgroup-createconsumer", "xgroup-createconsumer",
			"xgroup-createconsumer", "xgroup-setid", "xgroup-delconsumer", "xgroup-destroy"}
		for _, w := range want {
			msg, err := sub.ReceiveMessage(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if got := msg.Channel; got != "__keyevent@0__:"+w {
				t.Fatalf("event %s, want %s", got, w)
			}
		}
	})
}

// TestStreamXAutoClaimHugeCount: Redis 7.0 allocates COUNT IDs up front
// for the deleted entries, and fails on a COUNT it cannot allocate; Shale
// allocates by what it finds, and answers.
func TestStreamXAutoClaimHugeCount(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{{cmd("XGROUP", "CREATE", "s", "g", "0", "MKSTREAM"), ok}})
		if !b.isShale() {
			run(t, c, []step{{cmd("XAUTOCLAIM", "s", "g", "c", "0", "0", "COUNT", "576460752303423487"), errText("ERR Insufficient memory, failed allocating transient memory, COUNT too high.")}})
			return
		}
		run(t, c, []step{{cmd("XAUTOCLAIM", "s", "g", "c", "0", "0", "COUNT", "576460752303423487"), []any{"0-0", emptyArr, emptyArr}}})
	})
}

// TestStreamInfoFullGroups checks the groups part of XINFO STREAM FULL:
// each group's and consumer's first COUNT pending entries.
func TestStreamInfoFullGroups(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		unixMs := atLeast(1700000000000)
		run(t, c, []step{
			{cmd("XADD", "s", "1-1", "a", "1"), "1-1"},
			{cmd("XADD", "s", "1-2", "a", "1"), "1-2"},
			{cmd("XADD", "s", "1-3", "a", "1"), "1-3"},
			{cmd("XGROUP", "CREATE", "s", "g", "0"), ok},
			{cmd("XGROUP", "CREATE", "s", "g2", "$"), ok},
			{cmd("XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">"), anyArr},
			{cmd("XGROUP", "CREATECONSUMER", "s", "g", "c2"), 1},
			{cmd("XDEL", "s", "1-2"), 1},
			{cmd("XGROUP", "SETID", "s", "g2", "1-1"), ok},
			{cmd("XINFO", "STREAM", "s", "FULL", "COUNT", "2"), containsPair("groups", []any{
				[]any{"name", "g", "last-delivered-id", "1-3", "entries-read", 3, "lag", 0, "pel-count", 3,
					"pending", []any{[]any{"1-1", "c", unixMs, 1}, []any{"1-2", "c", unixMs, 1}},
					"consumers", []any{
						[]any{"name", "c", "seen-time", unixMs, "pel-count", 3, "pending", []any{[]any{"1-1", unixMs, 1}, []any{"1-2", unixMs, 1}}},
						[]any{"name", "c2", "seen-time", unixMs, "pel-count", 0, "pending", emptyArr}}},
				[]any{"name", "g2", "last-delivered-id", "1-1", "entries-read", nil, "lag", nil, "pel-count", 0, "pending", emptyArr, "consumers", emptyArr}})},
			{cmd("XINFO", "STREAM", "s", "FULL", "COUNT", "0"), containsPair("groups", []any{
				containsPair("pending", []any{anyArr, anyArr, anyArr}), anyArr})},
		})
	})
}

// TestStreamGroupDifferential runs random sequences of consumer-group
// commands on one stream against Redis and Shale side by side and compares
// every reply, idle times masked: the bookkeeping of pending lists,
// consumers, entries-read and lag through deletions, trims, SETID, claims
// and acknowledgements.
func TestStreamGroupDifferential(t *testing.T) {
	t.Parallel()
	rp := startRedis(t)
	sp := startShale(t, shaleOpts{})
	ctx := context.Background()
	for seed := uint64(1); seed <= 30; seed++ {
		r := rand.New(rand.NewPCG(seed, 9))
		rp.Client.FlushAll(ctx)
		sp.Client.FlushAll(ctx)
		ms := 1
		id := func() string { return fmt.Sprintf("%d-%d", 1+r.IntN(ms+1), r.IntN(2)) }
		grp := func() string { return []string{"g0", "g1"}[r.IntN(2)] }
		con := func() string { return []string{"c0", "c1", "c2"}[r.IntN(3)] }
		var hist []string
		for step := 0; step < 300; step++ {
			var args []any
			mask := -1 // the index of the idle time in each array of the reply
			switch x := r.IntN(20); x {
			case 0, 1, 2:
				ms++
				args = []any{"XADD", "s", fmt.Sprintf("%d-0", ms), "f", "v"}
			case 3:
				args = []any{"XDEL", "s", id()}
			case 4:
				args = []any{"XGROUP", "CREATE", "s", grp(), []string{"0", "$", id()}[r.IntN(3)], "MKSTREAM"}
			case 5:
				args = []any{"XGROUP", []string{"DESTROY", "SETID", "CREATECONSUMER", "DELCONSUMER"}[r.IntN(4)], "s", grp()}
				switch args[1] {
				case "SETID":
					args = append(args, []string{"0", "$", id()}[r.IntN(3)])
				case "CREATECONSUMER", "DELCONSUMER":
					args = append(args, con())
				}
			case 6, 7, 8:
				args = []any{"XREADGROUP", "GROUP", grp(), con(), "COUNT", r.IntN(4), "STREAMS", "s", ">"}
				if r.IntN(4) == 0 {
					args = []any{"XREADGROUP", "GROUP", grp(), con(), "COUNT", r.IntN(4), "NOACK", "STREAMS", "s", ">"}
				}
			case 9:
				args = []any{"XREADGROUP", "GROUP", grp(), con(), "COUNT", r.IntN(4), "STREAMS", "s", []string{"0", id()}[r.IntN(2)]}
			case 10, 11:
				args = []any{"XACK", "s", grp(), id(), id()}
			case 12:
				args = []any{"XPENDING", "s", grp()}
			case 13:
				args = []any{"XPENDING", "s", grp(), "-", "+", 1 + r.IntN(5)}
				if r.IntN(2) == 0 {
					args = append(args, con())
				}
				mask = 2
			case 14:
				args = []any{"XCLAIM", "s", grp(), con(), 0, id(), id()}
				for _, o := range []string{"FORCE", "JUSTID"} {
					if r.IntN(2) == 0 {
						args = append(args, o)
					}
				}
				if r.IntN(3) == 0 {
					args = append(args, "RETRYCOUNT", r.IntN(5))
				}
				if r.IntN(4) == 0 {
					args = append(args, "LASTID", id())
				}
			case 15:
				args = []any{"XAUTOCLAIM", "s", grp(), con(), 0, []string{"0", id()}[r.IntN(2)], "COUNT", 1 + r.IntN(4)}
				if r.IntN(2) == 0 {
					args = append(args, "JUSTID")
				}
			case 16:
				args = []any{"XINFO", "GROUPS", "s"}
			case 17:
				args = []any{"XINFO", "CONSUMERS", "s", grp()}
				mask = 5
			case 18:
				args = []any{"XTRIM", "s", "MAXLEN", r.IntN(5)}
			case 19:
				args = []any{"XINFO", "STREAM", "s"}
			}
			a, ea := rp.Client.Do(ctx, args...).Result()
			b, eb := sp.Client.Do(ctx, args...).Result()
			sa, sb := fmtReply(maskIdle(a, mask), ea), fmtReply(maskIdle(b, mask), eb)
			hist = append(hist, fmt.Sprint(args))
			if sa != sb {
				t.Fatalf("seed %d step %d: %v\nredis: %s\nshale: %s\nhistory:\n%v", seed, step, args, sa, sb, hist)
			}
		}
	}
}

// maskIdle replaces element at of each array inside v (XPENDING's idle,
// XINFO CONSUMERS' idle) with a constant.
func maskIdle(v any, at int) any {
	arr, ok := v.([]any)
	if !ok || at < 0 {
		return v
	}
	out := make([]any, len(arr))
	for i, e := range arr {
		if inner, ok := e.([]any); ok && len(inner) > at {
			c := append([]any(nil), inner...)
			c[at] = "IDLE"
			out[i] = c
		} else {
			out[i] = e
		}
	}
	return out
}

// TestStreamRedeliveryPassesEveryPending: moved back with XGROUP SETID, a
// group redelivers more entries than one read of its pending list holds;
// each passes from the consumer that held it to the reader, so every
// earlier consumer ends with nothing pending.
func TestStreamRedeliveryPassesEveryPending(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		ctx := ctxT(t)
		const n = 40
		for i := range n {
			if err := c.XAdd(ctx, &redis.XAddArgs{Stream: "s", ID: fmt.Sprintf("%d-1", i+1), Values: []any{"f", i}}).Err(); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.XGroupCreate(ctx, "s", "g", "0").Err(); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			name := fmt.Sprintf("consumer-with-a-long-name-%02d", i)
			if err := c.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g", Consumer: name, Streams: []string{"s", ">"}, Count: 1}).Err(); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.XGroupSetID(ctx, "s", "g", "0").Err(); err != nil {
			t.Fatal(err)
		}
		if err := c.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g", Consumer: "reader", Streams: []string{"s", ">"}, Count: n}).Err(); err != nil {
			t.Fatal(err)
		}
		consumers, err := c.XInfoConsumers(ctx, "s", "g").Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, cons := range consumers {
			want := int64(0)
			if cons.Name == "reader" {
				want = n
			}
			if cons.Pending != want {
				t.Errorf("consumer %s: %d pending, want %d", cons.Name, cons.Pending, want)
			}
		}
		if len(consumers) != n+1 {
			t.Errorf("%d consumers, want %d", len(consumers), n+1)
		}
	})
}

// TestStreamPendingFrontAcknowledged: a worker acknowledges the front of
// its group's pending list, reads its own from 0 and recovers with
// XAUTOCLAIM from 0-0, which Shale starts past the acknowledged entries
// (store edges). Entries pending
// again before them (XGROUP SETID back) must show again in XPENDING and
// XAUTOCLAIM.
func TestStreamPendingFrontAcknowledged(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, _ backend) {
		ctx := ctxT(t)
		const n = 30
		for i := range n {
			if err := c.XAdd(ctx, &redis.XAddArgs{Stream: "s", ID: fmt.Sprintf("%d-1", i+1), Values: []any{"f", i}}).Err(); err != nil {
				t.Fatal(err)
			}
		}
		delivered := matchFunc{"<entries>", func(any) string { return "" }}
		// w1's own pending list from its start, past what it acknowledged.
		history := []any{[]any{"s", []any{[]any{"11-1", []any{"f", "10"}}, []any{"12-1", []any{"f", "11"}}}}}
		run(t, c, []step{
			{cmd("XGROUP", "CREATE", "s", "g", "0"), ok},
			{cmd("XREADGROUP", "GROUP", "g", "w1", "COUNT", n, "STREAMS", "s", ">"), delivered},
			{cmd("XACK", "s", "g", "1-1", "2-1", "3-1", "4-1", "5-1", "6-1", "7-1", "8-1", "9-1", "10-1"), 10},
			{cmd("XREADGROUP", "GROUP", "g", "w1", "COUNT", 2, "STREAMS", "s", "0"), history},
			{cmd("XREADGROUP", "GROUP", "g", "w1", "COUNT", 2, "STREAMS", "s", "0"), history},
			{cmd("XAUTOCLAIM", "s", "g", "w2", 0, "0-0", "COUNT", 2, "JUSTID"), []any{"13-1", []any{"11-1", "12-1"}, []any{}}},
			{cmd("XAUTOCLAIM", "s", "g", "w2", 0, "0-0", "COUNT", 2, "JUSTID"), []any{"13-1", []any{"11-1", "12-1"}, []any{}}},
			{cmd("XACK", "s", "g", "11-1", "12-1", "30-1"), 3},
			{cmd("XAUTOCLAIM", "s", "g", "w2", 0, "0-0", "COUNT", 1, "JUSTID"), []any{"14-1", []any{"13-1"}, []any{}}},
			{cmd("XPENDING", "s", "g"), []any{int64(17), "13-1", "29-1", []any{[]any{"w1", "16"}, []any{"w2", "1"}}}},
			{cmd("XGROUP", "SETID", "s", "g", "0"), ok},
			{cmd("XREADGROUP", "GROUP", "g", "w3", "COUNT", 2, "STREAMS", "s", ">"), delivered},
			{cmd("XPENDING", "s", "g"), []any{int64(19), "1-1", "29-1", []any{[]any{"w1", "16"}, []any{"w2", "1"}, []any{"w3", "2"}}}},
			{cmd("XAUTOCLAIM", "s", "g", "w2", 0, "0-0", "COUNT", 3, "JUSTID"), []any{"14-1", []any{"1-1", "2-1", "13-1"}, []any{}}},
		})
	})
}
