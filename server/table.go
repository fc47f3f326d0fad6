package server

import (
	"fmt"
	"sort"
	"strings"
)

// Flags describe a command, as COMMAND INFO reports them: every flag Redis
// 7.0 gives a command (see flagNames for their names and order), plus
// Shale's own Grouped.
type Flags uint64

// Command flags. Exactly one of Write and ReadOnly is set on keyed commands
// that read or write values (WATCH, which only notes its keys, has neither);
// server commands may carry Admin and neither. Each row carries exactly the
// flags Redis 7.0 gives the command (TestCommandTable in tests/ compares
// them with real redis-server), including those Shale does not act on yet:
// the issues that bring transactions (NoMulti), scripts (NoScript, and
// Stale and Loading's script rules), pub/sub (PubSub) and replication
// (MayReplicate, Loading, Stale, NoAsyncLoading) read them from the row.
const (
	Write    Flags = 1 << iota // may modify data; refused in read-only mode
	ReadOnly                   // never modifies data
	Admin                      // server administration; MONITOR does not show it
	NoAuth                     // allowed before AUTH (AUTH, HELLO, QUIT)
	Fast                       // O(1) or O(log N); Redis files it under @fast, the others under @slow
	// Grouped commands may join a pipeline group (pipeline.go): they touch
	// nothing but the keys their row names, through one lock and one write,
	// and signal blocked clients only through Ctx.signalKeyReady. Not a
	// Redis flag: COMMAND INFO does not show it. Setting it on a row needs a
	// row in TestPipelineGroupedCommands, which the invariants build fails
	// if the command locks a key its row does not name.
	Grouped
	// DenyOOM: Redis refuses the command when used memory is over
	// maxmemory, because it may grow the dataset. Shale has no maxmemory;
	// not acted on.
	DenyOOM
	// PubSub: a publish/subscribe command (@pubsub). Read by the pub/sub
	// issue.
	PubSub
	// NoScript: not allowed in a Lua script or function. Read by the
	// scripting issue.
	NoScript
	// Blocking: may block the client (BLPOP), filed under @blocking.
	// Redis uses it to refuse blocking in scripts and MULTI; read by those
	// issues.
	Blocking
	// Loading: allowed while the server loads its dataset. Shale opens
	// RocksDB before it listens, so it is never loading; read by the
	// replication issue (async loading).
	Loading
	// Stale: allowed on a replica whose link to its master is down
	// (replica-serve-stale-data no). Read by the replication issue.
	Stale
	// SkipMonitor: MONITOR does not show the command (EXEC shows its
	// commands instead). Read by the MONITOR feed once a row carries it.
	SkipMonitor
	// SkipSlowlog: the slow log does not record the command (EXEC records
	// its commands instead). Read by the slow log once a row carries it.
	SkipSlowlog
	// MayReplicate: may propagate a write to replicas although not Write
	// (PUBLISH, EVAL, PFCOUNT). COMMAND INFO does not show it: Redis 7.0
	// hides it on purpose. CLIENT PAUSE WRITE and read-only scripts take
	// it for a write, as Redis does; the replication issue reads it too.
	MayReplicate
	// NoMandatoryKeys: its keys are optional (EVAL with numkeys 0), so
	// cluster routing may find none. Not acted on.
	NoMandatoryKeys
	// NoMulti: refused inside MULTI. Read by the transactions issue.
	NoMulti
	// AllowBusy: allowed while a script runs too long (BUSY). Read by the
	// scripting issue.
	AllowBusy
	// NoAsyncLoading: refused while a replica loads its dataset in the
	// background (repl-diskless-load swapdb). Read by the replication
	// issue.
	NoAsyncLoading
	// NoTouch: the command reads its keys without counting as an access
	// of them, so OBJECT IDLETIME goes on counting (access.go), as Redis's
	// LOOKUP_NOTOUCH lookups (EXISTS, TYPE, TTL, OBJECT, MEMORY USAGE). Not
	// a Redis flag: COMMAND INFO does not show it.
	NoTouch
	// UnnamedKeys: the command may touch keys that are not among those its
	// row names: SORT's BY and GET patterns, COPY and MOVE into another
	// database, a script's undeclared keys (EVAL, FCALL). Not a Redis
	// flag: COMMAND INFO does not show it. A transaction or script calling
	// it takes the world lock (namesItsKeys).
	UnnamedKeys
	// NoKeyspace: the command reads and changes no key and no database
	// state (PING, ECHO, TIME), so a transaction or script calling it
	// needs no lock for it (namesItsKeys). Not a Redis flag: COMMAND INFO
	// does not show it.
	NoKeyspace
)

// namesItsKeys reports whether cmd touches nothing but the keys its row
// names in the selected database, so that a transaction or a script may
// run it holding just their locks: a Grouped or NoKeyspace command, or one
// with keys and without UnnamedKeys. The invariants build panics when a
// command in such a group locks a key the group does not hold (the command
// fuzzer runs every command from scripts).
func namesItsKeys(cmd *Command) bool {
	if cmd.Flags&(Grouped|NoKeyspace) != 0 {
		return true
	}
	return (cmd.FirstKey != 0 || cmd.Keys != nil) && cmd.Flags&UnnamedKeys == 0
}

// flagOrder names the Redis flags in the order COMMAND INFO lists them
// (Redis's docFlagNames); movablekeys, which Shale derives from a row's
// key finder, sits between no_multi and allow_busy there.
var flagOrder = []struct {
	flag Flags
	name string
}{
	{Write, "write"}, {ReadOnly, "readonly"}, {DenyOOM, "denyoom"}, {Admin, "admin"},
	{PubSub, "pubsub"}, {NoScript, "noscript"}, {Blocking, "blocking"}, {Loading, "loading"},
	{Stale, "stale"}, {SkipMonitor, "skip_monitor"}, {SkipSlowlog, "skip_slowlog"},
	{Fast, "fast"}, {NoAuth, "no_auth"}, // may_replicate: Redis 7.0 hides it on purpose
	{NoMandatoryKeys, "no_mandatory_keys"}, {NoAsyncLoading, "no_async_loading"},
	{NoMulti, "no_multi"}, {0, "movablekeys"}, {AllowBusy, "allow_busy"},
}

// flagNames are the COMMAND INFO flags of a row, named and ordered as Redis
// names them; movable says whether the row has a key finder.
func flagNames(f Flags, movable bool) []string {
	var names []string
	for _, fl := range flagOrder {
		if (fl.flag == 0 && movable) || f&fl.flag != 0 {
			names = append(names, fl.name)
		}
	}
	return names
}

// ACLCategories is a set of Redis ACL categories. Shale has no ACLs: COMMAND
// INFO and COMMAND LIST FILTERBY ACLCAT show them, for clients that sort
// commands by them.
type ACLCategories uint32

// ACL categories, in Redis's order (ACLCommandCategories).
const (
	ACLKeyspace ACLCategories = 1 << iota
	ACLRead
	ACLWrite
	ACLSet
	ACLSortedSet
	ACLList
	ACLHash
	ACLString
	ACLBitmap
	ACLHyperLogLog
	ACLGeo
	ACLStream
	ACLPubSub
	ACLAdmin
	ACLFast
	ACLSlow
	ACLBlocking
	ACLDangerous
	ACLConnection
	ACLTransaction
	ACLScripting
)

var aclNames = []string{
	"@keyspace", "@read", "@write", "@set", "@sortedset", "@list", "@hash", "@string",
	"@bitmap", "@hyperloglog", "@geo", "@stream", "@pubsub", "@admin", "@fast", "@slow",
	"@blocking", "@dangerous", "@connection", "@transaction", "@scripting",
}

// names lists the categories, "@keyspace" first, as COMMAND INFO does.
func (a ACLCategories) names() []string {
	var out []string
	for i, n := range aclNames {
		if a&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// groupACL is the explicit category Redis's command files give the commands
// of a doc group; a row's acl option replaces it for the exceptions.
var groupACL = map[string]ACLCategories{
	"generic":      ACLKeyspace,
	"string":       ACLString,
	"hash":         ACLHash,
	"list":         ACLList,
	"set":          ACLSet,
	"sorted-set":   ACLSortedSet,
	"connection":   ACLConnection,
	"bitmap":       ACLBitmap,
	"hyperloglog":  ACLHyperLogLog,
	"geo":          ACLGeo,
	"stream":       ACLStream,
	"transactions": ACLTransaction,
	"scripting":    ACLScripting,
}

// aclCategories are a command's ACL categories as Redis 7.0 computes them
// (setImplicitACLCategories): the explicit ones (explicit, or the group's
// when explicit is zero), plus those its flags imply: write, read, admin
// and dangerous, pubsub, fast, blocking, and slow when it is not fast.
func aclCategories(f Flags, explicit ACLCategories, group string) ACLCategories {
	cats := explicit
	if cats == 0 {
		cats = groupACL[group]
	}
	for _, imp := range []struct {
		flag Flags
		cats ACLCategories
	}{{Write, ACLWrite}, {ReadOnly, ACLRead}, {Admin, ACLAdmin | ACLDangerous}, {PubSub, ACLPubSub}, {Fast, ACLFast}, {Blocking, ACLBlocking}} {
		if f&imp.flag != 0 {
			cats |= imp.cats
		}
	}
	if cats&ACLScripting != 0 && f&Write == 0 {
		cats &^= ACLRead // Redis keeps scripting commands (EVAL_RO) out of @read
	}
	if cats&ACLFast == 0 {
		cats |= ACLSlow
	}
	return cats
}

// noACL is the explicit category set of a row that has none, though its
// group has. It is never shown: its bit is past the last category.
const noACL ACLCategories = 1 << 31

// aclCategories are the row's ACL categories. A container without a
// handler of its own (CLIENT, OBJECT) gets none from its group: Redis
// declares those on its subcommands.
func (c *Command) aclCategories() ACLCategories {
	explicit := c.ACL
	if explicit == 0 && c.Run == nil && c.Subcommands != nil {
		explicit = noACL
	}
	return aclCategories(c.Flags, explicit, c.Doc.group)
}

// aclCategories are the subcommand's ACL categories.
func (s *Subcommand) aclCategories() ACLCategories {
	return aclCategories(s.Flags, s.ACL, s.Doc.group)
}

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
	// ACL is the command's explicit ACL categories (see aclCategories);
	// zero: its doc group's.
	ACL ACLCategories
	// Tips are Redis's command tips, as COMMAND INFO lists them
	// ("nondeterministic_output", "request_policy:all_shards").
	Tips []string
	// KeySpecs are the command's key specifications, as COMMAND INFO shows
	// them (keys.go): from keyFlags, one per flag set along the key range,
	// or spelled out by keySpecs for movable keys. nil for keyless rows.
	KeySpecs []KeySpec
	// Doc is the command's COMMAND DOCS entry.
	Doc cmdDoc
	// Shape is the rule on its arguments that Arity cannot express.
	Shape Shape
	// GroupedIf, on a Grouped row, tells whether a call with these
	// arguments may join a group: a read whose walk only its arguments
	// bound (LRANGE) joins one only when they bound it, since a group
	// holds its keys' locks for the walk, and an event loop every other
	// connection. nil: every call may.
	GroupedIf func(args [][]byte) bool
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
	ACL   ACLCategories // explicit ACL categories; zero: the doc group's
	Tips  []string      // Redis's command tips
	Run   func(c *Ctx, args [][]byte) error
	Doc   cmdDoc // its COMMAND DOCS entry, under "container|name"
	Shape Shape  // the rule on its arguments that Arity cannot express
}

// flagsOf is the flags of the command, with those of its subcommand sub
// (-1: none).
func (c *Command) flagsOf(sub int) Flags {
	if sub >= 0 {
		return c.Flags | c.Subcommands[sub].Flags
	}
	return c.Flags
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

// acl gives a subcommand explicit ACL categories in place of its group's.
func (s Subcommand) acl(cats ACLCategories) Subcommand {
	s.ACL = cats
	return s
}

// tips gives a subcommand Redis's command tips.
func (s Subcommand) tips(tips ...string) Subcommand {
	s.Tips = tips
	return s
}

// shaped gives a row its Shape.
func (c Command) shaped(s Shape) Command {
	c.Shape = s
	return c
}

// groupedIf makes a row Grouped for the calls bounded accepts only
// (Command.GroupedIf).
func (c Command) groupedIf(bounded func(args [][]byte) bool) Command {
	c.Flags |= Grouped
	c.GroupedIf = bounded
	return c
}

// grouped reports whether this call may join a pipeline group (Grouped).
func (c *Command) grouped(args [][]byte) bool {
	return c.Flags&Grouped != 0 && (c.GroupedIf == nil || c.GroupedIf(args))
}

// acl gives a row explicit ACL categories in place of its group's (Redis's
// exceptions: KEYS is @keyspace and @dangerous, SORT @set, @sortedset,
// @list and @dangerous).
func (c Command) acl(cats ACLCategories) Command {
	c.ACL = cats
	return c
}

// tips gives a row Redis's command tips.
func (c Command) tips(tips ...string) Command {
	c.Tips = tips
	return c
}

// keyFlags gives a row with a key range its key specs, one per flag set:
// each but the last is one key, from FirstKey on, Step apart; the last
// covers the rest of the range up to LastKey. RENAME's (RW|access|delete,
// OW|update) are its source and its destination; SINTERSTORE's (RW|update,
// RO|access) its destination and its sources.
func (c Command) keyFlags(flags ...KeyFlags) Command {
	c.KeySpecs = rangeKeySpecs(c.FirstKey, c.LastKey, c.Step, flags)
	return c
}

// keySpecs gives a row key specs spelled out: those of movable-keys
// commands, and those with notes.
func (c Command) keySpecs(specs ...KeySpec) Command {
	c.KeySpecs = specs
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
		geoCommands,
		setCommands,
		listCommands,
		streamCommands,
		streamGroupCommands,
		transactionCommands,
		scriptCommands,
		functionCommands,
		pubsubCommands,
		resetCommands,
		latencyCommands,
		memoryCommands,
		lcsCommands,
		bitmapCommands,
		hllCommands,
		replicationCommands,
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
