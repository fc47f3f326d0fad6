package server

import (
	"strings"
	"testing"
)

// TestCommandTable checks every row of the table and every subcommand.
func TestCommandTable(t *testing.T) {
	cmds := allCommands()
	buildTable(cmds) // panics on a duplicate
	for _, c := range cmds {
		t.Run(c.Name, func(t *testing.T) {
			if c.Name != strings.ToLower(c.Name) || c.Name == "" {
				t.Errorf("name %q is not lower-case", c.Name)
			}
			if c.Arity == 0 {
				t.Error("arity 0")
			}
			if why := accessFlagsProblem(c.Flags, c.FirstKey != 0 || c.Keys != nil); why != "" {
				t.Error(why)
			}
			if c.Run == nil && c.Subcommands == nil {
				t.Error("no handler")
			}
			if c.Run != nil && c.Subcommands != nil && c.Arity < -1 {
				t.Error("a container that needs a subcommand has a handler of its own")
			}
			checkKeys(t, c.Arity, c.FirstKey, c.LastKey, c.Step)
			if c.Doc.summary == "" || c.Doc.since == "" || c.Doc.group == "" {
				t.Errorf("no docs for %q: give its row a doc(...)", c.Name)
			}
			for _, sc := range c.Subcommands {
				full := c.Name + "|" + sc.Name
				if sc.Name != strings.ToLower(sc.Name) || strings.Contains(sc.Name, "|") {
					t.Errorf("subcommand %q is not lower-case", full)
				}
				if sc.Arity == 0 || sc.Arity == 1 || sc.Arity == -1 {
					t.Errorf("%s: arity %d must count the container and the subcommand", full, sc.Arity)
				}
				if sc.Run == nil {
					t.Errorf("%s: no handler", full)
				}
				if why := accessFlagsProblem(sc.Flags, false); why != "" {
					t.Errorf("%s: %s", full, why)
				}
				if sc.Doc.summary == "" && !c.PrivateSubcommands {
					t.Errorf("no docs for %q: give its row a cmdDoc", full)
				}
			}
		})
	}
}

// accessFlagsProblem says what is wrong with a row's Write and ReadOnly
// flags, or returns "". A command with keys (a key range or a key finder)
// carries exactly one of them: the read-only mode and COMMAND INFO go by it.
// A keyless command may carry one when it reads or writes the whole keyspace
// (DBSIZE, FLUSHALL), or neither when it touches no data (PING, CONFIG), but
// never both.
func accessFlagsProblem(f Flags, keyed bool) string {
	write, readOnly := f&Write != 0, f&ReadOnly != 0
	switch {
	case write && readOnly:
		return "both Write and ReadOnly"
	case keyed && !write && !readOnly:
		return "a command with keys but neither Write nor ReadOnly"
	}
	return ""
}

// checkKeys checks that the key positions fit the arity, as Redis's
// COMMAND INFO requires.
func checkKeys(t *testing.T, arity, first, last, step int) {
	t.Helper()
	switch {
	case first == 0:
		if last != 0 || step != 0 {
			t.Errorf("no keys but last %d, step %d", last, step)
		}
	case first < 0 || (arity > 0 && first >= arity):
		// With a negative arity, a key may sit past the minimum (OBJECT
		// ENCODING key is -2 with its key at 2, as in Redis 6).
		t.Errorf("first key %d outside arity %d", first, arity)
	case step < 1:
		t.Errorf("step %d", step)
	case last > 0 && (last < first || (arity > 0 && last >= arity)):
		t.Errorf("last key %d outside arity %d", last, arity)
	case last < 0 && arity > 0 && arity+last < first:
		t.Errorf("last key %d outside arity %d", last, arity)
	}
}

// TestShapeCheck checks the argument shapes the dispatcher enforces, with
// the texts Redis replies.
func TestShapeCheck(t *testing.T) {
	for _, tc := range []struct {
		name  string
		shape Shape
		args  string
		want  replyError
	}{
		{"mset", pairsFrom(1, shapeArity), "mset k v", ""},
		{"mset", pairsFrom(1, shapeArity), "mset k v k2", errWrongArity("mset")},
		{"hset", pairsFrom(2, shapeArity), "hset h f v f2 v2", ""},
		{"hset", pairsFrom(2, shapeArity), "hset h f v f2", errWrongArity("hset")},
		{"spop", atMost(3, shapeSyntax), "spop s 1", ""},
		{"spop", atMost(3, shapeSyntax), "spop s 1 2", errSyntax},
		{"client|pause", atMost(4, shapeSubcommandSyntax), "client pause 10 all x", errSubcommandSyntax(bytesArgs("client", "pause"))},
		{"get", Shape{}, "get k", ""},
	} {
		if got := tc.shape.check(tc.name, bytesArgs(strings.Fields(tc.args)...)); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.args, got, tc.want)
		}
	}
}
