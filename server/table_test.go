package server

import (
	"slices"
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
			// XREADGROUP writes (the group's pending list) but Redis 7.0
			// flags its keys RO; PFCOUNT is read-only but its key spec is
			// RW (it may store the count in the value): COMMAND INFO shows
			// Redis's.
			if why := accessFlagsProblem(c.Flags, c.FirstKey != 0 || c.Keys != nil, c.KeySpecs); why != "" && c.Name != "xreadgroup" && c.Name != "pfcount" {
				t.Error(why)
			}
			if c.Run == nil && c.Subcommands == nil {
				t.Error("no handler")
			}
			if c.Run != nil && c.Subcommands != nil && c.Arity < -1 {
				t.Error("a container that needs a subcommand has a handler of its own")
			}
			checkKeys(t, c.Arity, c.FirstKey, c.LastKey, c.Step)
			// Key specs describe the keys the range or the finder finds:
			// every keyed row has them, save OBJECT, whose Redis 7 specs
			// sit on its subcommands. A keyless row may have specs of
			// arguments that are no keys (SSUBSCRIBE's not_key shard
			// channels).
			notKeys := !slices.ContainsFunc(c.KeySpecs, func(k KeySpec) bool { return k.Flags&KeyNotKey == 0 })
			switch keyed := c.FirstKey != 0 || c.Keys != nil; {
			case keyed && c.Subcommands == nil && len(c.KeySpecs) == 0:
				t.Error("keys but no key specs: give the row keyFlags(...) or keySpecs(...)")
			case !keyed && len(c.KeySpecs) > 0 && !notKeys:
				t.Error("key specs but no keys")
			case keyed && c.Keys == nil && len(c.KeySpecs) > 0 && c.KeySpecs[0].Begin.Index != c.FirstKey:
				t.Errorf("first key spec begins at %d, first key %d", c.KeySpecs[0].Begin.Index, c.FirstKey)
			}
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
				if why := accessFlagsProblem(sc.Flags, false, nil); why != "" {
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
// carries exactly one of them, the read-only mode and COMMAND INFO go by
// it, and it agrees with the key specs: Write when one of them writes
// (RW, OW, RM). Only a command that reads no key's value (WATCH: its key
// specs are RO without access) may carry neither. A keyless command may
// carry one when it reads or writes the whole keyspace (DBSIZE, FLUSHALL),
// or neither when it touches no data (PING, CONFIG), but never both.
func accessFlagsProblem(f Flags, keyed bool, specs []KeySpec) string {
	write, readOnly := f&Write != 0, f&ReadOnly != 0
	writes, reads := false, false
	for _, k := range specs {
		writes = writes || k.Flags&(KeyRW|KeyOW|KeyRM) != 0
		reads = reads || k.Flags != KeyRO
	}
	switch {
	case write && readOnly:
		return "both Write and ReadOnly"
	case f&NoMandatoryKeys != 0 && !readOnly:
		// EVAL, FCALL: what the keys are used for is the script's
		// business, decided as it runs; Redis flags them neither.
		return ""
	case keyed && !write && !readOnly && (reads || writes):
		return "a command with keys but neither Write nor ReadOnly"
	case len(specs) > 0 && write != writes:
		return "Write disagrees with the key specs (RW, OW, RM)"
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

// TestRangeKeySpecs checks the key specs keyFlags derives from a key range
// against Redis 7.0's for the same commands.
func TestRangeKeySpecs(t *testing.T) {
	index := func(i int) BeginSearch { return BeginSearch{Index: i} }
	rng := func(last, step int) FindKeys { return FindKeys{LastKey: last, KeyStep: step} }
	for _, tc := range []struct {
		name              string
		first, last, step int
		flags             []KeyFlags
		want              []KeySpec
	}{
		{"get", 1, 1, 1, []KeyFlags{KeyRO | KeyAccess}, []KeySpec{{Flags: KeyRO | KeyAccess, Begin: index(1), Find: rng(0, 1)}}},
		{"mset", 1, -1, 2, []KeyFlags{KeyOW | KeyUpdate}, []KeySpec{{Flags: KeyOW | KeyUpdate, Begin: index(1), Find: rng(-1, 2)}}},
		{"blpop", 1, -2, 1, []KeyFlags{KeyRW}, []KeySpec{{Flags: KeyRW, Begin: index(1), Find: rng(-2, 1)}}},
		{"rename", 1, 2, 1, []KeyFlags{KeyRW | KeyDelete, KeyOW | KeyUpdate}, []KeySpec{
			{Flags: KeyRW | KeyDelete, Begin: index(1), Find: rng(0, 1)},
			{Flags: KeyOW | KeyUpdate, Begin: index(2), Find: rng(0, 1)},
		}},
		{"sinterstore", 1, -1, 1, []KeyFlags{KeyRW | KeyUpdate, KeyRO | KeyAccess}, []KeySpec{
			{Flags: KeyRW | KeyUpdate, Begin: index(1), Find: rng(0, 1)},
			{Flags: KeyRO | KeyAccess, Begin: index(2), Find: rng(-1, 1)},
		}},
	} {
		if got := rangeKeySpecs(tc.first, tc.last, tc.step, tc.flags); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestFlagAndCategoryNames checks the names and order COMMAND INFO gives
// flags and ACL categories, as Redis 7.0 lists them.
func TestFlagAndCategoryNames(t *testing.T) {
	for _, tc := range []struct {
		flags   Flags
		movable bool
		want    string
	}{
		{Write | DenyOOM | Grouped, true, "write denyoom movablekeys"},
		{NoScript | Loading | Stale | Fast | NoAuth | AllowBusy, false, "noscript loading stale fast no_auth allow_busy"},
		{Admin | NoScript | Loading | Stale | NoMulti | AllowBusy, true, "admin noscript loading stale no_multi movablekeys allow_busy"},
	} {
		if got := strings.Join(flagNames(tc.flags, tc.movable), " "); got != tc.want {
			t.Errorf("flagNames(%#x, %v) = %q, want %q", tc.flags, tc.movable, got, tc.want)
		}
	}
	for _, tc := range []struct {
		flags    Flags
		explicit ACLCategories
		group    string
		want     string
	}{
		{ReadOnly | Fast, 0, "string", "@read @string @fast"},
		{Write | Blocking, 0, "list", "@write @list @slow @blocking"},
		{Admin, 0, "connection", "@admin @slow @dangerous @connection"},
		{Write, ACLSet | ACLSortedSet | ACLList | ACLDangerous, "generic", "@write @set @sortedset @list @slow @dangerous"},
		{0, noACL, "connection", "@slow"},
	} {
		if got := strings.Join(aclCategories(tc.flags, tc.explicit, tc.group).names(), " "); got != tc.want {
			t.Errorf("aclCategories(%#x, %#x, %q) = %q, want %q", tc.flags, tc.explicit, tc.group, got, tc.want)
		}
	}
}
