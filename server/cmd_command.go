package server

import (
	"slices"
	"strings"

	"github.com/shaledb/shale/server/types"
)

// COMMAND and its subcommands (COUNT, INFO, DOCS, LIST, GETKEYS, HELP),
// which read the command table; and docArgs, which turns a row's syntax
// hint into COMMAND DOCS's arguments.

var commandSubcommands = []Subcommand{
	sub("count", 2, Loading|Stale, cmdCommandCount, cmdDoc{"Get total number of Redis commands", "2.8.13", "server", "O(1)", ""}).acl(ACLConnection),
	sub("info", -2, Loading|Stale, cmdCommandInfo, cmdDoc{"Get array of specific Redis command details, or all when no argument is given.", "2.8.13", "server", "O(N) where N is the number of commands to look up", "[command-name [command-name ...]]"}).acl(ACLConnection).tips("nondeterministic_output_order"),
	sub("docs", -2, Loading|Stale, cmdCommandDocs, cmdDoc{"Get array of specific Redis command documentation", "7.0.0", "server", "O(N) where N is the number of commands to look up", "[command-name [command-name ...]]"}).acl(ACLConnection).tips("nondeterministic_output_order"),
	sub("list", -2, Loading|Stale, cmdCommandList, cmdDoc{"Get an array of Redis command names", "7.0.0", "server", "O(N) where N is the total number of Redis commands", "[FILTERBY MODULE module-name|ACLCAT category|PATTERN pattern]"}).acl(ACLConnection).tips("nondeterministic_output_order"),
	sub("getkeys", -4, Loading|Stale, cmdCommandGetKeys, cmdDoc{"Extract keys given a full Redis command", "2.8.13", "server", "O(N) where N is the number of arguments to the command", "command [arg [arg ...]]"}).acl(ACLConnection),
	sub("getkeysandflags", -4, Loading|Stale, cmdCommandGetKeysAndFlags, cmdDoc{"Extract keys and access flags given a full Redis command", "7.0.0", "server", "O(N) where N is the number of arguments to the command", "command [arg [arg ...]]"}).acl(ACLConnection),
	sub("help", 2, Loading|Stale, cmdCommandHelp, cmdDoc{"Show helpful text about the different subcommands", "5.0.0", "server", "O(1)", ""}).acl(ACLConnection),
}

// COMMAND GETKEYS command [arg ...]: the keys a call would touch.
func cmdCommandGetKeys(c *Ctx, args [][]byte) error {
	call := args[2:]
	_, keys, err := callKeys(c, call)
	if err != nil {
		return err
	}
	c.Reply().Array(len(keys))
	for _, i := range keys {
		c.Reply().Bulk(call[i])
	}
	return nil
}

// COMMAND GETKEYSANDFLAGS command [arg ...]: the keys a call would touch,
// each with its key spec flags (RW, access, update, ...).
func cmdCommandGetKeysAndFlags(c *Ctx, args [][]byte) error {
	call := args[2:]
	cmd, keys, err := callKeys(c, call)
	if err != nil {
		return err
	}
	flags := callKeyFlags(cmd, call, keys)
	r := c.Reply()
	r.Array(len(keys))
	for i, pos := range keys {
		r.Array(2)
		r.Bulk(call[pos])
		writeStatusSet(c, flags[i].names())
	}
	return nil
}

// callKeys finds the keys of call for COMMAND GETKEYS and GETKEYSANDFLAGS
// as Redis's getKeysSubcommandImpl does: call names a command, or a
// container and one of its subcommands (OBJECT ENCODING), which must have
// keys and take that many arguments, in this order of errors. A call
// whose arguments locate no key is an error, save for commands whose keys
// are optional (EVAL with numkeys 0): no keys then.
func callKeys(c *Ctx, call [][]byte) (*Command, []int, error) {
	cmd := c.Srv.table.lookup(call[0])
	if cmd == nil {
		return nil, nil, errInvalidCommandSpecified
	}
	arity, hasKeys := cmd.Arity, cmd.FirstKey != 0 || cmd.Keys != nil
	if cmd.Subcommands != nil && !cmd.PrivateSubcommands && len(call) > 1 {
		i := cmd.subcommandIndex(call)
		if i < 0 {
			return nil, nil, errInvalidCommandSpecified
		}
		// A subcommand has its container's key range when its arguments
		// reach it: OBJECT ENCODING's do, OBJECT HELP's do not.
		arity = cmd.Subcommands[i].Arity
		hasKeys = hasKeys && max(arity, -arity) > cmd.FirstKey
	}
	switch {
	case !hasKeys:
		return nil, nil, errCommandHasNoKeys
	case !arityFits(arity, len(call)):
		return nil, nil, errInvalidCommandArgCount
	}
	keys := keyPositions(cmd, call)
	if len(keys) == 0 && cmd.Flags&NoMandatoryKeys == 0 {
		return nil, nil, errInvalidCommandArgs
	}
	return cmd, keys, nil
}

// callKeyFlags are the flags of the keys of call at positions keys, as
// Redis's getKeysFromCommandWithSpecs gives them: each key its key spec's
// flags when the specs locate every key; else those of the command's own
// key procedure, which Redis writes for SET (whose spec's flags vary) and
// SORT and SORT_RO (whose BY, GET and STORE specs are "unknown") and leaves
// empty for the others (a numkeys that is no strict integer: ZUNIONSTORE d
// 2x a b).
func callKeyFlags(cmd *Command, call [][]byte, keys []int) []KeyFlags {
	flags := make([]KeyFlags, len(keys)) // keys: at most one per argument
	switch cmd.Name {
	case "set": // setGetKeys
		f := KeyOW | KeyUpdate
		if slices.ContainsFunc(call[min(3, len(call)):], func(a []byte) bool { return is(a, "GET") }) {
			f = KeyRW | KeyAccess | KeyUpdate
		}
		for i := range flags {
			flags[i] = f
		}
		return flags
	case "sort", "sort_ro": // sortGetKeys, sortROGetKeys: the sorted key, then SORT's STORE destination
		for i, pos := range keys {
			flags[i] = KeyOW | KeyUpdate
			if pos == 1 {
				flags[i] = KeyRO | KeyAccess
			}
		}
		return flags
	}
	if len(cmd.KeySpecs) == 0 {
		// OBJECT keeps Redis 6's layout: a read-only key range on the
		// container, where Redis 7 gives each subcommand an RO key spec.
		if cmd.Flags&ReadOnly != 0 {
			for i := range flags {
				flags[i] = KeyRO
			}
		}
		return flags
	}
	byPos := make(map[int]KeyFlags, len(keys))
	for _, k := range cmd.KeySpecs {
		if k.Flags&KeyNotKey != 0 {
			continue
		}
		first, last, step, ok := k.locate(call)
		if !ok {
			return flags // Redis falls back to the command's procedure
		}
		for pos := first; pos <= last && pos < len(call); pos += step {
			if _, seen := byPos[pos]; !seen {
				byPos[pos] = k.Flags
			}
		}
	}
	for i, pos := range keys {
		flags[i] = byPos[pos]
	}
	return flags
}

// locate finds the keys of key spec k in call as Redis's
// getKeysUsingKeySpecs does: the positions first..last, step apart (none
// when last < first: a keyword that is absent); ok is false when the spec
// cannot say, where Redis gives up on the specs (an unknown or incomplete
// spec, a numkeys that is no strict integer or exceeds the arguments).
func (k KeySpec) locate(call [][]byte) (first, last, step int, ok bool) {
	if k.Flags&KeyIncomplete != 0 {
		return 0, 0, 0, false
	}
	switch b := k.Begin; {
	case b.Index > 0:
		first = b.Index
	case b.Keyword != "":
		start, end, dir := b.StartFrom, len(call)-1, 1
		if start <= 0 {
			start, end, dir = len(call)+start, 0, -1
		}
		for i := start; i != end && i >= 1 && i < len(call); i += dir {
			if is(call[i], b.Keyword) {
				first = i + 1
				break
			}
		}
		if first == 0 {
			return 0, -1, 1, true // the keyword is absent: no keys
		}
	default:
		return 0, 0, 0, false
	}
	switch f := k.Find; {
	case f.KeyStep == 0:
		return 0, 0, 0, false
	case f.KeyNum:
		if first+f.KeyNumIdx >= len(call) {
			return 0, 0, 0, false
		}
		n, valid := specNumKeys(call[first+f.KeyNumIdx])
		first += f.FirstKey
		if !valid || n > len(call)-first {
			return 0, 0, 0, false
		}
		return first, first + n - 1, f.KeyStep, true
	case f.LastKey >= 0:
		return first, first + f.LastKey, f.KeyStep, true
	case f.Limit == 0:
		return first, len(call) + f.LastKey, f.KeyStep, true
	default:
		return first, first + (len(call)-first)/f.Limit + f.LastKey, f.KeyStep, true
	}
}

// COMMAND, with no subcommand: every command's info.
func cmdCommandAll(c *Ctx, _ [][]byte) error {
	writeAllCommandInfo(c)
	return nil
}

func writeAllCommandInfo(c *Ctx) {
	names := c.Srv.table.sortedNames()
	c.Reply().Array(len(names))
	for _, n := range names {
		writeCommandInfo(c, c.Srv.table[n])
	}
}

// COMMAND COUNT: the number of top-level commands.
func cmdCommandCount(c *Ctx, _ [][]byte) error {
	c.Reply().Int(int64(len(c.Srv.table)))
	return nil
}

// COMMAND INFO [name ...]: a null for each unknown name; "container|sub"
// names a subcommand.
func cmdCommandInfo(c *Ctx, args [][]byte) error {
	if len(args) == 2 {
		writeAllCommandInfo(c)
		return nil
	}
	c.Reply().Array(len(args) - 2)
	for _, a := range args[2:] {
		name := lower(a)
		container, sub, isSub := strings.Cut(name, "|")
		cmd := c.Srv.table[container]
		switch {
		case cmd == nil:
			c.Reply().Null()
		case !isSub:
			writeCommandInfo(c, cmd)
		default:
			subs := cmd.declaredSubcommands()
			i := slices.IndexFunc(subs, func(s Subcommand) bool { return s.Name == sub })
			if i < 0 {
				c.Reply().Null()
				continue
			}
			writeSubcommandInfo(c, cmd, &subs[i])
		}
	}
	return nil
}

// writeCommandInfo writes Redis 7's ten-element COMMAND INFO entry: name,
// arity, flags, first key, last key, step, ACL categories, tips, key specs
// and subcommands.
func writeCommandInfo(c *Ctx, cmd *Command) {
	r := c.Reply()
	r.Array(10)
	r.BulkString(cmd.Name)
	r.Int(int64(cmd.Arity))
	writeStatusSet(c, flagNames(cmd.Flags, cmd.Keys != nil))
	r.Int(int64(cmd.FirstKey))
	r.Int(int64(cmd.LastKey))
	r.Int(int64(cmd.Step))
	writeStatusSet(c, cmd.aclCategories().names())
	writeTips(c, cmd.Tips)
	writeKeySpecs(c, cmd.KeySpecs)
	subs := cmd.declaredSubcommands()
	// Redis 7.0 (addReplyCommandSubCommands): an empty set when there are
	// none, else an array, under RESP3 too.
	if len(subs) == 0 {
		r.Set(0)
	} else {
		r.Array(len(subs))
	}
	for i := range subs {
		writeSubcommandInfo(c, cmd, &subs[i])
	}
}

func writeSubcommandInfo(c *Ctx, cmd *Command, sc *Subcommand) {
	r := c.Reply()
	r.Array(10)
	r.BulkString(cmd.Name + "|" + sc.Name)
	r.Int(int64(sc.Arity))
	writeStatusSet(c, flagNames(sc.Flags, false))
	r.Int(0)
	r.Int(0)
	r.Int(0)
	writeStatusSet(c, sc.aclCategories().names())
	writeTips(c, sc.Tips)
	r.Set(0) // key specs
	r.Set(0) // subcommands
}

// writeStatusSet writes a set of simple strings: COMMAND INFO's flags and
// ACL categories, COMMAND DOCS' argument flags.
func writeStatusSet(c *Ctx, items []string) {
	r := c.Reply()
	r.Set(len(items))
	for _, it := range items {
		r.Status(it)
	}
}

// writeTips writes COMMAND INFO's tips, a set of bulk strings.
func writeTips(c *Ctx, tips []string) {
	r := c.Reply()
	r.Set(len(tips))
	for _, t := range tips {
		r.BulkString(t)
	}
}

// writeKeySpecs writes COMMAND INFO's key specs as Redis 7.0 does
// (addReplyCommandKeySpecs): a set of maps of notes (when there are),
// flags, begin_search and find_keys.
func writeKeySpecs(c *Ctx, specs []KeySpec) {
	r := c.Reply()
	r.Set(len(specs))
	for _, k := range specs {
		if k.Notes != "" {
			r.Map(4)
			r.BulkString("notes")
			r.BulkString(k.Notes)
		} else {
			r.Map(3)
		}
		r.BulkString("flags")
		writeStatusSet(c, k.Flags.names())
		r.BulkString("begin_search")
		switch b := k.Begin; {
		case b.Index > 0:
			writeSearchSpec(c, "index", specField{"index", b.Index})
		case b.Keyword != "":
			r.Map(2)
			r.BulkString("type")
			r.BulkString("keyword")
			r.BulkString("spec")
			r.Map(2)
			r.BulkString("keyword")
			r.BulkString(b.Keyword)
			r.BulkString("startfrom")
			r.Int(int64(b.StartFrom))
		default:
			writeSearchSpec(c, "unknown")
		}
		r.BulkString("find_keys")
		switch f := k.Find; {
		case f.KeyStep == 0:
			writeSearchSpec(c, "unknown")
		case f.KeyNum:
			writeSearchSpec(c, "keynum", specField{"keynumidx", f.KeyNumIdx}, specField{"firstkey", f.FirstKey}, specField{"keystep", f.KeyStep})
		default:
			writeSearchSpec(c, "range", specField{"lastkey", f.LastKey}, specField{"keystep", f.KeyStep}, specField{"limit", f.Limit})
		}
	}
}

// specField is one integer field of a key spec's begin_search or
// find_keys spec map.
type specField struct {
	name  string
	value int
}

// writeSearchSpec writes a key spec's begin_search or find_keys map: its
// type and a spec map of integer fields (empty for "unknown").
func writeSearchSpec(c *Ctx, typ string, fields ...specField) {
	r := c.Reply()
	r.Map(2)
	r.BulkString("type")
	r.BulkString(typ)
	r.BulkString("spec")
	r.Map(len(fields))
	for _, f := range fields {
		r.BulkString(f.name)
		r.Int(int64(f.value))
	}
}

// COMMAND DOCS [name ...]: a flat map of name to docs; unknown names are
// left out, as in Redis.
func cmdCommandDocs(c *Ctx, args [][]byte) error {
	var cmds []*Command
	if len(args) == 2 {
		for _, n := range c.Srv.table.sortedNames() {
			cmds = append(cmds, c.Srv.table[n])
		}
	} else {
		for _, a := range args[2:] {
			if cmd := c.Srv.table[lower(a)]; cmd != nil {
				cmds = append(cmds, cmd)
			}
		}
	}
	c.Reply().Map(len(cmds))
	for _, cmd := range cmds {
		c.Reply().BulkString(cmd.Name)
		writeDoc(c, cmd.Doc, cmd.Name, cmd.declaredSubcommands())
	}
	return nil
}

// writeDoc writes the docs map d of the command name: summary, since,
// group, the arguments redis-cli turns back into its hint, and the
// subcommands'.
func writeDoc(c *Ctx, d cmdDoc, name string, subs []Subcommand) {
	r := c.Reply()
	args := docArgs(d.args)
	n := 3
	if d.complexity != "" {
		n++
	}
	if len(args) > 0 {
		n++
	}
	if len(subs) > 0 {
		n++
	}
	dep, isDeprecated := deprecatedCommands[name]
	if isDeprecated {
		n += 3
	}
	isSyscmd := systemCommands[name]
	if isSyscmd {
		n++
	}
	r.Map(n)
	r.BulkString("summary")
	r.BulkString(d.summary)
	r.BulkString("since")
	r.BulkString(d.since)
	r.BulkString("group")
	r.BulkString(d.group)
	if d.complexity != "" {
		r.BulkString("complexity")
		r.BulkString(d.complexity)
	}
	if isSyscmd {
		r.BulkString("doc_flags")
		writeStatusSet(c, []string{"syscmd"})
	}
	if isDeprecated { // in Redis's order: after complexity
		r.BulkString("doc_flags")
		writeStatusSet(c, []string{"deprecated"})
		r.BulkString("deprecated_since")
		r.BulkString(dep.since)
		r.BulkString("replaced_by")
		r.BulkString(dep.replacedBy)
	}
	if len(args) > 0 {
		r.BulkString("arguments")
		r.Array(len(args))
		for _, a := range args {
			var flags []string
			if a.optional {
				flags = append(flags, "optional")
			}
			if a.multiple {
				flags = append(flags, "multiple")
			}
			m := 2
			if flags != nil {
				m = 3
			}
			r.Map(m)
			r.BulkString("name")
			r.BulkString(a.name)
			r.BulkString("type")
			r.BulkString(a.typ)
			if flags != nil {
				r.BulkString("flags")
				writeStatusSet(c, flags)
			}
		}
	}
	if len(subs) > 0 {
		r.BulkString("subcommands")
		r.Map(len(subs))
		for _, s := range subs {
			full := name + "|" + s.Name
			r.BulkString(full)
			writeDoc(c, s.Doc, full, nil)
		}
	}
}

// COMMAND LIST [FILTERBY MODULE name|ACLCAT category|PATTERN pattern]:
// command and subcommand names.
func cmdCommandList(c *Ctx, args [][]byte) error {
	keep := func(string, ACLCategories) bool { return true }
	switch {
	case len(args) == 2:
	case len(args) == 5 && is(args[2], "FILTERBY") && is(args[3], "MODULE"):
		keep = func(string, ACLCategories) bool { return false }
	case len(args) == 5 && is(args[2], "FILTERBY") && is(args[3], "ACLCAT"):
		want := "@" + lower(args[4])
		keep = func(_ string, cats ACLCategories) bool { return slices.Contains(cats.names(), want) }
	case len(args) == 5 && is(args[2], "FILTERBY") && is(args[3], "PATTERN"):
		pattern := []byte(lower(args[4]))
		keep = func(name string, _ ACLCategories) bool { return types.Match(pattern, []byte(name)) }
	default:
		return errSyntax
	}
	var names [][]byte
	for _, n := range c.Srv.table.sortedNames() {
		cmd := c.Srv.table[n]
		if keep(n, cmd.aclCategories()) {
			names = append(names, []byte(n))
		}
		for _, s := range cmd.declaredSubcommands() {
			if full := n + "|" + s.Name; keep(full, s.aclCategories()) {
				names = append(names, []byte(full))
			}
		}
	}
	c.Reply().Bulks(names)
	return nil
}

// COMMAND HELP
func cmdCommandHelp(c *Ctx, _ [][]byte) error {
	writeHelp(c, "command", []string{
		"(no subcommand)",
		"    Return details about all commands.",
		"COUNT",
		"    Return the total number of commands in this server.",
		"LIST [FILTERBY (MODULE <module-name>|ACLCAT <category>|PATTERN <pattern>)]",
		"    Return a list of all commands in this server.",
		"INFO [<command-name> ...]",
		"    Return details about multiple commands.",
		"    If no command names are given, documentation details for all",
		"    commands are returned.",
		"DOCS [<command-name> ...]",
		"    Return documentation details about multiple commands.",
		"    If no command names are given, documentation details for all",
		"    commands are returned.",
		"GETKEYS <full-command>",
		"    Return the keys from a full Redis command.",
		"GETKEYSANDFLAGS <full-command>",
		"    Return the keys and the access flags from a full Redis command.",
	})
	return nil
}

// docArg is one argument as COMMAND DOCS describes it.
type docArg struct {
	name, typ          string
	optional, multiple bool
}

// docArgs splits a hint such as "key field value [field value ...]" into
// arguments from which redis-cli rebuilds exactly that hint: top-level
// words, "[...]" groups as optional arguments, and "X [X ...]" as one
// multiple argument.
func docArgs(syntax string) []docArg {
	var out []docArg
	for _, tok := range splitTopLevel(syntax) {
		if rep, ok := strings.CutSuffix(tok, " ...]"); ok && strings.HasPrefix(rep, "[") {
			rep = rep[1:]
			n := len(splitTopLevel(rep))
			if n <= len(out) && plainNames(out[len(out)-n:]) == rep {
				out = append(out[:len(out)-n], docArg{name: rep, typ: argType(rep), multiple: true})
				continue
			}
		}
		if enclosed(tok) {
			out = append(out, docArg{name: tok[1 : len(tok)-1], typ: "string", optional: true})
			continue
		}
		out = append(out, docArg{name: tok, typ: argType(tok)})
	}
	return out
}

// splitTopLevel splits s at the spaces outside brackets.
func splitTopLevel(s string) []string {
	var toks []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			depth--
		case ' ':
			if depth == 0 {
				if i > start {
					toks = append(toks, s[start:i])
				}
				start = i + 1
			}
		}
	}
	if start < len(s) {
		toks = append(toks, s[start:])
	}
	return toks
}

// enclosed reports whether tok is one bracketed group, "[...]".
func enclosed(tok string) bool {
	if len(tok) < 2 || tok[0] != '[' || tok[len(tok)-1] != ']' {
		return false
	}
	depth := 0
	for i := 0; i < len(tok)-1; i++ {
		switch tok[i] {
		case '[':
			depth++
		case ']':
			depth--
		}
		if depth == 0 {
			return false
		}
	}
	return true
}

// plainNames joins the names of args that are neither optional nor
// multiple, or returns "" when one of them is.
func plainNames(args []docArg) string {
	names := make([]string, len(args))
	for i, a := range args {
		if a.optional || a.multiple {
			return ""
		}
		names[i] = a.name
	}
	return strings.Join(names, " ")
}

func argType(name string) string {
	if name == "key" {
		return "key"
	}
	return "string"
}
