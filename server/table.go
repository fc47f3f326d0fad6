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
	// Redis flag: COMMAND INFO does not show it.
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
	Run                     func(c *Ctx, args [][]byte) error
	// Subcommands are a container command's subcommands (CLIENT SETNAME),
	// for its dispatch and for COMMAND INFO and DOCS; nil for other commands.
	Subcommands []Subcommand

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
}

func cmd(name string, arity int, flags Flags, first, last, step int, run func(*Ctx, [][]byte) error) Command {
	return Command{Name: name, Arity: arity, Flags: flags, FirstKey: first, LastKey: last, Step: step, Run: run}
}

// arityOK reports whether n arguments (the name included) fit the arity.
func (c *Command) arityOK(n int) bool {
	if c.Arity >= 0 {
		return n == c.Arity
	}
	return n >= -c.Arity
}

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
	markGrouped(all)
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
