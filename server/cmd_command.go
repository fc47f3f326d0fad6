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
	sub("count", 2, 0, cmdCommandCount, cmdDoc{"Get total number of commands", "2.8.13", "server", ""}),
	sub("info", -2, 0, cmdCommandInfo, cmdDoc{"Get array of specific command details, or all when no argument is given.", "2.8.13", "server", "[command-name [command-name ...]]"}),
	sub("docs", -2, 0, cmdCommandDocs, cmdDoc{"Get array of specific command documentation", "7.0.0", "server", "[command-name [command-name ...]]"}),
	sub("list", -2, 0, cmdCommandList, cmdDoc{"Get an array of command names", "7.0.0", "server", "[FILTERBY MODULE module-name|ACLCAT category|PATTERN pattern]"}),
	sub("getkeys", -4, 0, cmdCommandGetKeys, cmdDoc{"Extract keys given a full Redis command", "2.8.13", "server", "command [arg [arg ...]]"}),
	sub("help", 2, 0, cmdCommandHelp, cmdDoc{"Show helpful text about the different subcommands", "5.0.0", "server", ""}),
}

// COMMAND GETKEYS command [arg ...]: the keys a call would touch.
func cmdCommandGetKeys(c *Ctx, args [][]byte) error {
	call := args[2:]
	cmd := c.Srv.table[lower(call[0])]
	switch {
	case cmd == nil:
		return errInvalidCommandSpecified
	case !cmd.arityOK(len(call)):
		return errInvalidCommandArgCount
	case cmd.FirstKey == 0 && cmd.Keys == nil:
		return errCommandHasNoKeys
	}
	keys := keyPositions(cmd, call)
	if len(keys) == 0 {
		return errInvalidCommandArgs
	}
	c.Reply().Array(len(keys))
	for _, i := range keys {
		c.Reply().Bulk(call[i])
	}
	return nil
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
	flags := flagNames(cmd.Flags)
	if cmd.Keys != nil {
		flags = append(flags, "movablekeys")
	}
	writeStatusSet(c, flags)
	r.Int(int64(cmd.FirstKey))
	r.Int(int64(cmd.LastKey))
	r.Int(int64(cmd.Step))
	writeStatusSet(c, aclCategories(cmd.Flags, cmd.Doc.group))
	r.Array(0) // tips
	r.Array(0) // key specs
	subs := cmd.declaredSubcommands()
	r.Array(len(subs))
	for i := range subs {
		writeSubcommandInfo(c, cmd, &subs[i])
	}
}

func writeSubcommandInfo(c *Ctx, cmd *Command, sc *Subcommand) {
	r := c.Reply()
	r.Array(10)
	r.BulkString(cmd.Name + "|" + sc.Name)
	r.Int(int64(sc.Arity))
	writeStatusSet(c, flagNames(sc.Flags))
	r.Int(0)
	r.Int(0)
	r.Int(0)
	writeStatusSet(c, aclCategories(sc.Flags, cmd.Doc.group))
	r.Array(0)
	r.Array(0)
	r.Array(0)
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

// flagNames are the COMMAND INFO flags, named and ordered as Redis names them.
func flagNames(f Flags) []string {
	names := make([]string, 0, 3)
	for _, fl := range []struct {
		flag Flags
		name string
	}{{Write, "write"}, {ReadOnly, "readonly"}, {Admin, "admin"}, {Fast, "fast"}, {NoAuth, "no_auth"}} {
		if f&fl.flag != 0 {
			names = append(names, fl.name)
		}
	}
	return names
}

// aclCategories derives Redis's ACL categories from the flags and the doc
// group (Shale has no ACLs; clients only display these).
func aclCategories(f Flags, group string) []string {
	var cats []string
	if f&Write != 0 {
		cats = append(cats, "@write")
	}
	if f&ReadOnly != 0 {
		cats = append(cats, "@read")
	}
	if f&Admin != 0 {
		cats = append(cats, "@admin")
	}
	switch group {
	case "generic":
		cats = append(cats, "@keyspace")
	case "string", "hash", "list", "set", "connection":
		cats = append(cats, "@"+group)
	case "sorted-set":
		cats = append(cats, "@sortedset")
	}
	if f&Fast != 0 {
		cats = append(cats, "@fast")
	} else {
		cats = append(cats, "@slow")
	}
	if f&Admin != 0 {
		cats = append(cats, "@dangerous")
	}
	return cats
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
	if len(args) > 0 {
		n++
	}
	if len(subs) > 0 {
		n++
	}
	r.Map(n)
	r.BulkString("summary")
	r.BulkString(d.summary)
	r.BulkString("since")
	r.BulkString(d.since)
	r.BulkString("group")
	r.BulkString(d.group)
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
	keep := func(string, Flags, string) bool { return true }
	switch {
	case len(args) == 2:
	case len(args) == 5 && is(args[2], "FILTERBY") && is(args[3], "MODULE"):
		keep = func(string, Flags, string) bool { return false }
	case len(args) == 5 && is(args[2], "FILTERBY") && is(args[3], "ACLCAT"):
		want := "@" + lower(args[4])
		keep = func(_ string, f Flags, group string) bool { return slices.Contains(aclCategories(f, group), want) }
	case len(args) == 5 && is(args[2], "FILTERBY") && is(args[3], "PATTERN"):
		pattern := []byte(lower(args[4]))
		keep = func(name string, _ Flags, _ string) bool { return types.Match(pattern, []byte(name)) }
	default:
		return errSyntax
	}
	var names [][]byte
	for _, n := range c.Srv.table.sortedNames() {
		cmd := c.Srv.table[n]
		group := cmd.Doc.group
		if keep(n, cmd.Flags, group) {
			names = append(names, []byte(n))
		}
		for _, s := range cmd.declaredSubcommands() {
			if full := n + "|" + s.Name; keep(full, s.Flags, group) {
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
