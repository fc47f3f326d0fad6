package server

import (
	"fmt"
	"sort"
	"strings"
)

// Flags describe a command, as COMMAND INFO reports them.
type Flags uint16

// Command flags. Exactly one of Write and ReadOnly is set on keyed commands;
// server commands may carry Admin and neither.
const (
	Write    Flags = 1 << iota // may modify data
	ReadOnly                   // never modifies data
	Admin                      // server administration
	NoAuth                     // allowed before AUTH (AUTH, HELLO, QUIT)
	Fast                       // O(1) or O(log N)
	// Grouped commands may join a pipeline group (pipeline.go): they touch
	// nothing but the keys their row names, through one lock and one write,
	// and signal blocked clients only through Ctx.signalKeyReady. Not a
	// Redis flag: COMMAND INFO does not show it. Setting it on a row needs a
	// row in TestPipelineGroupedCommands, which the invariants build fails
	// if the command locks a key its row does not name.
	Grouped
)

// Command is one row of the command table. Arity and keys follow Redis's
// COMMAND INFO: Arity counts the name and -N means "at least N"; FirstKey 0
// means no keys; LastKey -1 means the last argument.
type Command struct {
	Name                    string
	Arity                   int
	Flags                   Flags
	FirstKey, LastKey, Step int
	// Keys finds the keys of a command whose keys a fixed first/last/step
	// range cannot describe (keys.go): COMMAND INFO flags it movablekeys
	// and COMMAND GETKEYS asks it. Such rows keep Redis's legacy range. nil
	// for other commands.
	Keys keyFinder
	// Doc is the command's COMMAND DOCS entry.
	Doc cmdDoc
	// Shape is the rule on its arguments that Arity cannot express.
	Shape Shape
	// Run is the handler; for a container, it serves the container called
	// without a subcommand (COMMAND), and is nil when the arity forbids that.
	Run func(c *Ctx, args [][]byte) error
	// Subcommands are a container command's subcommands (CLIENT SETNAME):
	// the dispatcher resolves args[1] among them (one level, as Redis),
	// checks its arity and runs its handler. nil for other commands.
	Subcommands []Subcommand
	// PrivateSubcommands marks a container whose subcommands Redis does not
	// declare (DEBUG's are arguments to it there): COMMAND INFO, DOCS and
	// LIST, INFO commandstats and CLIENT LIST show the container alone, and
	// an unknown subcommand or a wrong arity is a failed run of the
	// container, replied with Redis's subcommand syntax error.
	PrivateSubcommands bool

	stats *commandStats // this server's counters for the command (stats.go)
}

// Subcommand is one subcommand of a container command. Arity counts the
// container and the subcommand, as Redis's COMMAND INFO does: CLIENT SETNAME
// name is 3.
type Subcommand struct {
	Name  string // lower-case, without the container: "setname"
	Arity int
	Flags Flags
	Run   func(c *Ctx, args [][]byte) error
	Doc   cmdDoc // its COMMAND DOCS entry, under "container|name"
	Shape Shape  // the rule on its arguments that Arity cannot express
}

func cmd(name string, arity int, flags Flags, first, last, step int, run func(*Ctx, [][]byte) error) Command {
	return Command{Name: name, Arity: arity, Flags: flags, FirstKey: first, LastKey: last, Step: step, Run: run}
}

// sub is a subcommand's row, as cmd is a command's.
func sub(name string, arity int, flags Flags, run func(*Ctx, [][]byte) error, doc cmdDoc) Subcommand {
	return Subcommand{Name: name, Arity: arity, Flags: flags, Run: run, Doc: doc}
}

// shaped gives a subcommand its Shape.
func (s Subcommand) shaped(sh Shape) Subcommand {
	s.Shape = sh
	return s
}

// shaped gives a row its Shape.
func (c Command) shaped(s Shape) Command {
	c.Shape = s
	return c
}

// arityOK reports whether n arguments (the name included) fit the arity.
func (c *Command) arityOK(n int) bool { return arityFits(c.Arity, n) }

// arityFits reports whether n arguments fit arity, as COMMAND INFO gives it.
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

// keysBy gives a movable-keys row its key finder: see Command.Keys.
func (c Command) keysBy(find keyFinder) Command {
	c.Keys = find
	return c
}

// withPrivateSubcommands attaches subcommands Redis does not declare
// (DEBUG's) to a container's row: see PrivateSubcommands.
func (c Command) withPrivateSubcommands(subs []Subcommand) Command {
	c.Subcommands, c.PrivateSubcommands = subs, true
	return c
}

// subcommandIndex resolves args[1], in any case, among c's subcommands: its
// index, or -1 when c is no container, args name no subcommand, or none
// matches. The dispatcher and the panic recovery are its only callers.
func (c *Command) subcommandIndex(args [][]byte) int {
	if len(args) < 2 {
		return -1
	}
	for i := range c.Subcommands {
		if strings.EqualFold(c.Subcommands[i].Name, string(args[1])) {
			return i
		}
	}
	return -1
}

// subcommandError is the reply to a call of container c whose args[1] is
// subcommand i (-1: unknown) and whose arity does not fit it.
func (c *Command) subcommandError(args [][]byte, i int) replyError {
	switch {
	case c.PrivateSubcommands:
		return errSubcommandSyntax(args)
	case i < 0:
		return errUnknownSubcommand(string(args[1]), c.Name)
	}
	return errWrongArity(c.Name + "|" + c.Subcommands[i].Name)
}

// declaredSubcommands are the subcommands COMMAND INFO, DOCS and LIST and
// INFO commandstats show: none for a container of PrivateSubcommands.
func (c *Command) declaredSubcommands() []Subcommand {
	if c.PrivateSubcommands {
		return nil
	}
	return c.Subcommands
}

// Shape is a rule on a command's arguments that its arity cannot express.
// The dispatcher checks it just before the handler would run, after
// authentication: a call that breaks it is a failed call, as in Redis,
// whose handlers check these. The zero Shape allows what the arity allows.
type Shape struct {
	PairsFrom int        // > 0: the arguments from this index on come in pairs (MSET 1, HSET 2)
	MaxArgs   int        // > 0: at most this many arguments, the name included
	Err       shapeError // the reply to a call that breaks the rule
}

// shapeError says how Redis words the reply to a call of the wrong shape.
type shapeError uint8

const (
	shapeArity            shapeError = iota // ERR wrong number of arguments for 'name' command
	shapeSyntax                             // ERR syntax error
	shapeSubcommandSyntax                   // ERR unknown subcommand or wrong number of arguments for 'sub'...
)

// check returns the reply to args, a call of the command or subcommand
// name ("client|pause"), when they break the rule; "" when they fit.
func (s Shape) check(name string, args [][]byte) replyError {
	if (s.PairsFrom == 0 || (len(args)-s.PairsFrom)%2 == 0) && (s.MaxArgs == 0 || len(args) <= s.MaxArgs) {
		return ""
	}
	switch s.Err {
	case shapeSyntax:
		return errSyntax
	case shapeSubcommandSyntax:
		return errSubcommandSyntax(args)
	}
	return errWrongArity(name)
}

// pairsFrom is the Shape of arguments that come in pairs from index i on.
func pairsFrom(i int, err shapeError) Shape { return Shape{PairsFrom: i, Err: err} }

// atMost is the Shape of at most n arguments, the name included.
func atMost(n int, err shapeError) Shape { return Shape{MaxArgs: n, Err: err} }

// allCommands is the command table, one slice per command family.
func allCommands() []Command {
	var all []Command
	for _, family := range [][]Command{
		connectionCommands,
		serverCommands,
		backupCommands,
		stringCommands,
		hashCommands,
		keyspaceCommands,
		sortCommands,
		zsetCommands,
		setCommands,
		listCommands,
	} {
		all = append(all, family...)
	}
	return all
}

// commandTable is the lookup map; building it panics on a duplicate name.
type commandTable map[string]*Command

func buildTable(cmds []Command) commandTable {
	t := make(commandTable, len(cmds))
	for i := range cmds {
		c := &cmds[i]
		if len(c.Name) > maxCommandName || c.Name != strings.ToLower(c.Name) {
			panic(fmt.Sprintf("server: command name %q is not lowercase or is longer than %d bytes", c.Name, maxCommandName))
		}
		if _, dup := t[c.Name]; dup {
			panic(fmt.Sprintf("server: command %q registered twice", c.Name))
		}
		t[c.Name] = c
	}
	return t
}

// maxCommandName bounds the length of a command's name, so that lookup can
// lower a name on the stack.
const maxCommandName = 32

// lookup returns the command named name, in any case, or nil. Unlike
// t[lower(name)], it does not allocate.
func (t commandTable) lookup(name []byte) *Command {
	var buf [maxCommandName]byte
	if len(name) > len(buf) {
		return nil
	}
	for i, c := range name {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	return t[string(buf[:len(name)])]
}

// sortedNames lists the table's names in order, for COMMAND and tests.
func (t commandTable) sortedNames() []string {
	names := make([]string, 0, len(t))
	for n := range t {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
