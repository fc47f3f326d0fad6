package server

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidwall/redcon"
	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"

	"github.com/shaledb/shale/server/store"
)

// EVAL, EVALSHA, their _RO forms and SCRIPT. A script runs as a
// transaction does (multi.go): in one store.BeginTxn group, so that its
// commands read its own writes and its writes reach RocksDB as one batch,
// all or none. Its redis.call runs a command through the dispatcher's
// call, with a connection that captures the reply for the conversion to
// Lua (script_lua.go).
//
// No other command may see or change a key the script uses while it runs.
// A script first runs under its declared keys' locks, on a Lua state of a
// pool, so that scripts on other keys run beside it and their writes join
// (keyed). It gives up, writing nothing, when it calls a command that may
// touch keys its table row does not name (KEYS, SELECT, FLUSHALL...),
// when a key it did not declare is locked by another client (Redis lets
// scripts use undeclared keys; waiting for one while holding others could
// deadlock), or when it has run for keyedScriptBudget; it then runs again
// holding the world lock, as every function and every script inside EXEC
// does, and so excludes every other command as Redis's single thread
// does. SCRIPT KILL and BUSY concern only such runs: a keyed run is never
// older than the budget.

// scriptCache holds the scripts EVAL and SCRIPT LOAD were given, compiled,
// by the SHA1 of their body, in memory as Redis keeps them.
type scriptCache struct {
	mu     sync.RWMutex
	protos map[string]*compiledScript
	// vm runs the scripts that hold the world lock, made at the first: one
	// at a time, so one state is enough, and, as in Redis, what a script
	// leaves in a library's settings (cjson.encode_sparse_array) holds for
	// the next. Keyed runs take a state of idle, which vmMu guards.
	vm   *luaVM
	vmMu sync.Mutex
	idle []*luaVM
}

// maxIdleVMs bounds the states kept for keyed runs: as many as scripts
// ran at once, up to this.
const maxIdleVMs = 64

// borrowVM is a state for a keyed run.
func (sc *scriptCache) borrowVM() *luaVM {
	sc.vmMu.Lock()
	defer sc.vmMu.Unlock()
	if n := len(sc.idle); n > 0 {
		vm := sc.idle[n-1]
		sc.idle = sc.idle[:n-1]
		return vm
	}
	return newLuaVM()
}

// idleVMs is the number of states kept for keyed runs (INFO's
// script_idle_states).
func (sc *scriptCache) idleVMs() int {
	sc.vmMu.Lock()
	defer sc.vmMu.Unlock()
	return len(sc.idle)
}

// returnVM gives a keyed run's state back.
func (sc *scriptCache) returnVM(vm *luaVM) {
	sc.vmMu.Lock()
	defer sc.vmMu.Unlock()
	if len(sc.idle) < maxIdleVMs {
		sc.idle = append(sc.idle, vm)
	}
}

// count is the number of cached scripts (INFO's number_of_cached_scripts).
func (sc *scriptCache) count() int {
	sc.mu.RLock()
	defer sc.mu.RUnlock()
	return len(sc.protos)
}

func (sc *scriptCache) get(sha string) *compiledScript {
	sc.mu.RLock()
	defer sc.mu.RUnlock()
	return sc.protos[sha]
}

// load compiles body, caches it and returns its SHA1.
func (sc *scriptCache) load(body string) (string, *compiledScript, error) {
	sha := sha1Hex(body)
	if p := sc.get(sha); p != nil {
		return sha, p, nil
	}
	script, err := compileScript(body)
	if err != nil {
		return "", nil, err
	}
	sc.mu.Lock()
	if sc.protos == nil {
		sc.protos = make(map[string]*compiledScript)
	}
	sc.protos[sha] = script
	sc.mu.Unlock()
	return sha, script, nil
}

func (sc *scriptCache) flush() {
	sc.mu.Lock()
	sc.protos = nil
	sc.mu.Unlock()
}

// compiledScript is a script ready to run, and what its shebang says.
type compiledScript struct {
	proto *lua.FunctionProto
	// noWrites: its shebang has flags=no-writes, so write commands are
	// refused, as in EVAL_RO.
	noWrites bool
	// flagged: it has a shebang, so its flags are known before it runs
	// (Redis's scripts out of "eval compatibility mode").
	flagged bool
	// needsWorld: a run of it called a command that needs the world lock,
	// so later runs take it at once instead of giving up on the way.
	// worldRuns: how many of the next runs take it at once, after one gave
	// up for a key another client held or for its time (worldRunsAfter).
	needsWorld atomic.Bool
	worldRuns  atomic.Int32
}

// worldRunsAfter is how many runs of a script take the world lock at once
// after one gave up for a held key or for its time: a script on a key
// every client uses, or one that always runs long, would otherwise give
// up nearly every time, paying for two runs, and now pays for one in 65.
const worldRunsAfter = 64

// takesWorldAtOnce reports whether a run of the script should skip its
// keyed run, counting it against worldRuns.
func (cs *compiledScript) takesWorldAtOnce() bool {
	if cs.needsWorld.Load() {
		return true
	}
	for {
		n := cs.worldRuns.Load()
		if n <= 0 {
			return false
		}
		if cs.worldRuns.CompareAndSwap(n, n-1) {
			return true
		}
	}
}

// scriptFlagNames are the flags a script's shebang may give
// (#!lua flags=no-writes,allow-stale); Shale acts on no-writes, and has
// no memory limit, replicas or cluster for the others to change anything.
var scriptFlagNames = []string{"no-writes", "allow-oom", "allow-stale", "no-cluster", "allow-cross-slot-keys"}

// parseShebang reads a script's "#!lua [flags=a,b]" first line, as Redis
// 7.0 does: the body to compile (the shebang's line left empty, so that
// line numbers stay), and whether it has no-writes.
func parseShebang(body string) (rest string, noWrites bool, err error) {
	if !strings.HasPrefix(body, "#!") {
		return body, false, nil
	}
	end := strings.IndexByte(body, '\n')
	if end < 0 {
		return "", false, errInvalidShebang
	}
	parts := strings.Fields(body[:end])
	if parts[0] != "#!lua" {
		return "", false, replyError("ERR Unexpected engine in script shebang: " + sanitize(parts[0]))
	}
	for _, p := range parts[1:] {
		list, ok := strings.CutPrefix(p, "flags=")
		if !ok {
			return "", false, replyError("ERR Unknown lua shebang option: " + sanitize(p))
		}
		for _, f := range strings.Split(list, ",") {
			switch {
			case f == "" && list == "":
			case !slices.Contains(scriptFlagNames, f):
				return "", false, replyError("ERR Unexpected flag in script shebang: " + sanitize(f))
			case f == "no-writes":
				noWrites = true
			}
		}
	}
	return body[end:], noWrites, nil
}

// compileScript compiles a script body, with Redis's error for a script
// that does not compile.
func compileScript(source string) (*compiledScript, error) {
	body, noWrites, err := parseShebang(source)
	if err != nil {
		return nil, err
	}
	proto, msg := compileLua(body, scriptChunk)
	if proto == nil {
		return nil, replyError("ERR Error compiling script (new function): " + msg)
	}
	return &compiledScript{proto: proto, noWrites: noWrites, flagged: strings.HasPrefix(source, "#!")}, nil
}

// compileLua compiles Lua code as the chunk named chunk (scriptChunk,
// functionChunk); when it does not compile, it returns Lua's message as
// Redis words it ("user_script:1: ... near 'x'"), sanitized.
func compileLua(body, chunk string) (*lua.FunctionProto, string) {
	tree, err := parse.Parse(strings.NewReader(body), chunk)
	if err == nil {
		var proto *lua.FunctionProto
		if proto, err = lua.Compile(tree, chunk); err == nil {
			return proto, ""
		}
	}
	msg := err.Error()
	var pe *parse.Error
	if errors.As(err, &pe) {
		msg = chunk + ":" + strconv.Itoa(pe.Pos.Line) + ": " + pe.Message
		if pe.Token != "" {
			msg += " near '" + pe.Token + "'"
		}
	}
	return nil, sanitize(msg)
}

// scriptRun is one run of a script: its caller, its group, its rules.
type scriptRun struct {
	s        *Server
	c        *Ctx
	g        *store.Group
	readOnly bool // EVAL_RO, no-writes: write commands are refused
	resp3    bool // redis.setresp(3): redis.call's replies come in RESP3
	// function is the name of the function FCALL runs, "" for EVAL's
	// script; args is its call, for FUNCTION STATS.
	function string
	args     [][]byte
	// wrote: the script ran a write command, so SCRIPT KILL may not stop
	// it; killed: SCRIPT KILL or SHUTDOWN stopped it (through cancel),
	// and shutdown: SHUTDOWN did, and nothing of it is written.
	wrote, killed, shutdown atomic.Bool
	// outOfMemory: guardScript stopped it.
	outOfMemory atomic.Bool
	// keyed: it holds its keys' locks (luaCall.keyed); exclusive, once
	// set, that it gave up and must run again under the world lock.
	keyed     bool
	exclusive atomic.Bool
	// needsWorld: it gave up for a command that needs the world lock.
	needsWorld bool
	cancel     context.CancelFunc
	// raised is the text of the last error the redis object raised, to
	// tell it from a Lua error when it ends the script.
	raised string
	// panicked is the panic of a command the script called (callSafely),
	// which runLua panics with again once the interpreter has unwound.
	panicked any
}

// command runs one redis.call of the script: its reply, or its error's
// text.
func (r *scriptRun) command(args [][]byte) (reply []byte, errText string) {
	s, cl := r.s, r.c.Client
	cmd := s.table.lookup(args[0])
	if cmd == nil {
		return nil, "ERR Unknown Redis command called from script"
	}
	if !cmd.arityOK(len(args)) {
		return nil, "ERR Wrong number of args calling Redis command from script"
	}
	run, flags, shape, shapeName, sub := cmd.Run, cmd.Flags, cmd.Shape, cmd.Name, -1
	if cmd.Subcommands != nil && len(args) > 1 {
		sub = cmd.subcommandIndex(args)
		switch {
		case sub >= 0 && arityFits(cmd.Subcommands[sub].Arity, len(args)):
			sc := &cmd.Subcommands[sub]
			run, shape, flags = sc.Run, sc.Shape, flags|sc.Flags
			if shape != (Shape{}) {
				shapeName = cmd.Name + "|" + sc.Name
			}
		case cmd.PrivateSubcommands:
			run = failWith(cmd.subcommandError(args, sub))
		case sub < 0:
			return nil, "ERR Unknown Redis command called from script"
		default:
			return nil, "ERR Wrong number of args calling Redis command from script"
		}
	}
	if flags&NoScript != 0 {
		return nil, "ERR This Redis command is not allowed from script"
	}
	// A read-only script refuses what may replicate a write as a write, as
	// Redis does (PFCOUNT, which may store its count in the value).
	if r.readOnly && flags&(Write|MayReplicate) != 0 {
		return nil, "ERR Write commands are not allowed from read-only scripts."
	}
	if flags&Write != 0 && s.isReplica() {
		return nil, string(errReadOnlyReplica)
	}
	if err := shape.check(shapeName, args); err != "" {
		run = failWith(err)
	}
	if r.keyed && !r.lockCommandKeys(cmd, args) {
		r.giveUp()
	}
	if r.exclusive.Load() {
		// Nothing more of this run may happen: its end throws it away.
		return nil, "ERR " + errRunExclusive.Error()
	}
	out := &captureConn{Conn: r.c.Conn}
	ctx := &Ctx{Conn: out, Srv: s, Client: cl, DB: cl.currentDB().InGroup(r.g), resp3: r.resp3}
	if flags&Write != 0 {
		r.wrote.Store(true)
	}
	r.callSafely(ctx, cmd, sub, run, args)
	if len(out.b) > 0 && out.b[0] == '-' {
		return nil, strings.TrimSuffix(string(out.b[1:]), "\r\n")
	}
	return out.b, ""
}

// giveUp stops a keyed run, so that it runs again under the world lock.
func (r *scriptRun) giveUp() {
	r.exclusive.Store(true)
	r.cancel()
}

// callSafely runs a command of the script. A panic in it is a bug in
// Shale: it is logged here, with the command's stack, and unwinds the
// script, and runLua panics with it again once the interpreter is out of
// the way, for dispatchSafely: the client gets ERR internal error and
// loses its connection, and nothing of the script is written. The
// interpreter's PCall, which recovers any panic, made it a script error
// that showed the panic's text and committed the script's writes.
func (r *scriptRun) callSafely(ctx *Ctx, cmd *Command, sub int, run func(*Ctx, [][]byte) error, args [][]byte) {
	defer func() {
		if p := recover(); p != nil {
			r.panicked = p
			r.s.log.Error().Str("cmd", cmd.Name).Str("panic", panicText(p)).Str("stack", string(debug.Stack())).
				Msg("command panicked in a script")
			panic(p)
		}
	}()
	r.s.call(ctx, cmd, sub, run, args)
}

// log is redis.log: into Shale's log at the matching level.
func (r *scriptRun) log(level int, msg string) {
	l := r.s.log
	switch level {
	case 0:
		l.Debug().Str("script", "user_script").Msg(msg)
	case 1, 2:
		l.Info().Str("script", "user_script").Msg(msg)
	default:
		l.Warn().Str("script", "user_script").Msg(msg)
	}
}

// captureConn is the connection of a command a script calls: its reply
// goes into b, for the conversion to Lua. Everything else is the script
// caller's connection.
type captureConn struct {
	redcon.Conn
	b []byte
}

func (c *captureConn) WriteError(msg string)       { c.b = redcon.AppendError(c.b, msg) }
func (c *captureConn) WriteString(str string)      { c.b = redcon.AppendString(c.b, str) }
func (c *captureConn) WriteBulk(bulk []byte)       { c.b = redcon.AppendBulk(c.b, bulk) }
func (c *captureConn) WriteBulkString(bulk string) { c.b = redcon.AppendBulkString(c.b, bulk) }
func (c *captureConn) WriteInt(num int)            { c.b = redcon.AppendInt(c.b, int64(num)) }
func (c *captureConn) WriteInt64(num int64)        { c.b = redcon.AppendInt(c.b, num) }
func (c *captureConn) WriteUint64(num uint64)      { c.b = redcon.AppendUint(c.b, num) }
func (c *captureConn) WriteArray(count int)        { c.b = redcon.AppendArray(c.b, count) }
func (c *captureConn) WriteNull()                  { c.b = redcon.AppendNull(c.b) }
func (c *captureConn) WriteRaw(data []byte)        { c.b = append(c.b, data...) }
func (c *captureConn) WriteAny(v any)              { c.b = redcon.AppendAny(c.b, v) }

// EVAL script numkeys [key ...] [arg ...]
func cmdEval(c *Ctx, args [][]byte) error { return evalBody(c, args, false) }

// EVAL_RO script numkeys [key ...] [arg ...]
func cmdEvalRO(c *Ctx, args [][]byte) error { return evalBody(c, args, true) }

// EVALSHA sha1 numkeys [key ...] [arg ...]
func cmdEvalSha(c *Ctx, args [][]byte) error { return evalSha(c, args, false) }

// EVALSHA_RO sha1 numkeys [key ...] [arg ...]
func cmdEvalShaRO(c *Ctx, args [][]byte) error { return evalSha(c, args, true) }

func evalBody(c *Ctx, args [][]byte, readOnly bool) error {
	keys, argv, err := scriptArgs(args)
	if err != nil {
		return err
	}
	sha, script, err := c.Srv.scripts.load(string(args[1]))
	if err != nil {
		return err
	}
	return c.Srv.runScript(c, sha, script, keys, argv, readOnly)
}

func evalSha(c *Ctx, args [][]byte, readOnly bool) error {
	keys, argv, err := scriptArgs(args)
	if err != nil {
		return err
	}
	sha := strings.ToLower(string(args[1]))
	script := c.Srv.scripts.get(sha)
	if script == nil {
		return errNoScript
	}
	return c.Srv.runScript(c, sha, script, keys, argv, readOnly)
}

// scriptArgs splits EVAL's arguments after the script into KEYS and ARGV.
func scriptArgs(args [][]byte) (keys, argv [][]byte, err error) {
	n, err := parseInt(args[2])
	switch {
	case err != nil:
		return nil, nil, err
	case n < 0:
		return nil, nil, errNegativeKeys
	case n > int64(len(args)-3):
		return nil, nil, errTooManyKeys
	}
	return args[3 : 3+n], args[3+n:], nil
}

// scriptErrorLine finds the line in a Lua error message ("user_script:3:
// ...", or a function's "user_function:3: ...").
var scriptErrorLine = regexp.MustCompile(`^(?:` + scriptChunk + `|` + functionChunk + `):(\d+):`)

// runScript runs a compiled script atomically and replies its result.
func (s *Server) runScript(c *Ctx, sha string, script *compiledScript, keys, argv [][]byte, readOnly bool) error {
	if script.flagged && !script.noWrites && s.isReplica() {
		// A script that may write is refused before it runs, as Redis
		// refuses one whose flags it knows.
		return errReadOnlyReplica
	}
	readOnly = readOnly || script.noWrites
	if g := s.keyedScriptGroup(c, script, keys); g != nil {
		vm := s.scripts.borrowVM()
		err := s.runLua(c, vm, g, true, scriptCall(vm, sha, script, keys, argv, readOnly, true))
		s.scripts.returnVM(vm)
		if !errors.Is(err, errRunExclusive) {
			return err
		}
		if errors.Is(err, errNeedsWorld) {
			script.needsWorld.Store(true)
		} else {
			script.worldRuns.Store(worldRunsAfter)
		}
		s.stats.scriptReruns.Add(1)
	}
	g, own := s.scriptGroup(c)
	if own {
		defer g.Abort() // a panic leaves no lock held; a no-op after Commit
	}
	vm := s.scripts.vm // the world lock, held now, guards it
	if vm == nil {
		vm = newLuaVM()
		s.scripts.vm = vm
	}
	return s.runLua(c, vm, g, own, scriptCall(vm, sha, script, keys, argv, readOnly, false))
}

// scriptCall is the luaCall of a script on vm, with KEYS and ARGV set.
// They are left there after the run, since runLua lets the locks go when
// it commits.
func scriptCall(vm *luaVM, sha string, script *compiledScript, keys, argv [][]byte, readOnly, keyed bool) luaCall {
	L := vm.L
	vm.globals.RawSetString("KEYS", luaStrings(L, keys))
	vm.globals.RawSetString("ARGV", luaStrings(L, argv))
	fn := L.NewFunctionFromProto(script.proto)
	fn.Env = vm.env
	return luaCall{name: sha, chunk: scriptChunk, fn: fn, readOnly: readOnly, keyed: keyed}
}

// keyedScriptBudget is how long a keyed run may take before it gives up
// and runs again under the world lock: a script running longer is rare,
// and only under the world lock can BUSY and SCRIPT KILL reach it.
const keyedScriptBudget = 10 * time.Millisecond

// errRunExclusive ends a keyed run that gave up: nothing of it is written
// or sent, and the script runs again under the world lock. errNeedsWorld
// is one that gave up for a command that needs it.
var (
	errRunExclusive = errors.New("the script runs again under the world lock")
	errNeedsWorld   = fmt.Errorf("%w: it calls a command that needs it", errRunExclusive)
)

// keyedScriptGroup is the group of a keyed run of script, holding the
// locks of keys; nil inside EXEC, whose group holds the world lock
// already, and for a script that should take it at once.
func (s *Server) keyedScriptGroup(c *Ctx, script *compiledScript, keys [][]byte) *store.Group {
	if g := c.DB.Group(); (g != nil && g.Exclusive()) || script.takesWorldAtOnce() {
		return nil
	}
	return s.st.BeginTxn(false, lockKeys(c.Client.currentDB().Index(), keys)...)
}

// lockKeys are keys of logical database db, as the store locks them.
func lockKeys(db int, keys [][]byte) []store.LockKey {
	out := make([]store.LockKey, len(keys))
	for i, k := range keys {
		out[i] = store.LockKey{DB: db, Key: k}
	}
	return out
}

// lockCommandKeys takes, in a keyed run, the locks of the keys a command
// names, without waiting. It reports false when the run must give up:
// the command may touch other keys (namesItsKeys), or another client
// holds one of its keys.
func (r *scriptRun) lockCommandKeys(cmd *Command, args [][]byte) bool {
	if !namesItsKeys(cmd) {
		r.needsWorld = true
		return false
	}
	at := keyPositions(cmd, args)
	if len(at) == 0 {
		return true
	}
	db := r.c.Client.currentDB().Index()
	keys := make([]store.LockKey, len(at))
	for i, a := range at {
		keys[i] = store.LockKey{DB: db, Key: args[a]}
	}
	return r.g.TryAdd(keys...)
}

// luaCall is what runLua runs: EVAL's script or FCALL's function.
type luaCall struct {
	name     string // the script's SHA1, or the function's name
	chunk    string // scriptChunk or functionChunk, as errors name it
	fn       *lua.LFunction
	args     []lua.LValue // fn's arguments: FCALL's keys and args tables
	readOnly bool         // write commands are refused
	// keyed: the run holds its keys' locks, not the world lock's, and
	// gives up when it needs others (keyedScriptGroup).
	keyed bool
	// function: FCALL's, which FUNCTION KILL and STATS see and SCRIPT
	// KILL does not; command is its call, for FUNCTION STATS.
	function bool
	command  [][]byte
}

// scriptGroup is the group a script or function runs in, and whether the
// run owns it: inside EXEC, EXEC's, which holds the world lock already
// (EVAL and FCALL are not Grouped: a transaction with one takes it) and
// which EXEC ends, since taking the lock again would wait for ever; else a
// new group holding the world lock, which the run ends.
func (s *Server) scriptGroup(c *Ctx) (g *store.Group, own bool) {
	if g := c.DB.Group(); g != nil && g.Exclusive() {
		return g, false
	}
	return s.st.BeginTxn(true), true
}

// runLua runs lc on vm atomically, in g (scriptGroup), and replies its
// result: what EVAL and FCALL share. It ends g when it owns it.
func (s *Server) runLua(c *Ctx, vm *luaVM, g *store.Group, own bool, lc luaCall) error {
	cl := c.Client
	L := vm.L
	if own {
		defer g.Abort() // a panic leaves no lock held; a no-op after Commit
	}
	run := &scriptRun{s: s, c: c, g: g, readOnly: lc.readOnly, keyed: lc.keyed}
	if lc.function {
		run.function, run.args = lc.name, lc.command
	}
	vm.run = run
	running := cl.atomicRun.active
	cl.atomicRun.active = true // blocking commands try once; signals wait for the commit
	// A SELECT the script makes is its own, as in Redis: its caller's db
	// is selected again once it ends.
	callerDB := cl.currentDB()
	L.Push(lc.fn)
	for _, a := range lc.args {
		L.Push(a)
	}
	ctx, cancel := context.WithCancel(context.Background())
	run.cancel = cancel
	L.SetContext(ctx)
	stopGuard := guardScript(run)
	if !run.keyed {
		s.scriptRunning.begin(run)
	}
	var errLine string
	handler := L.NewFunction(func(L *lua.LState) int {
		// Where the error came from: the innermost line of the script.
		for level := 1; level < 16; level++ {
			if m := scriptErrorLine.FindStringSubmatch(L.Where(level)); m != nil {
				errLine = m[1]
				break
			}
		}
		return 1
	})
	err := L.PCall(len(lc.args), 1, handler)
	stopGuard()
	if !run.keyed {
		s.scriptRunning.end()
	}
	L.RemoveContext()
	cancel()
	cl.atomicRun.active = running
	cl.setDB(callerDB)
	vm.run = nil
	var result lua.LValue = lua.LNil
	if err == nil {
		result = L.Get(-1)
		L.Pop(1)
	}
	L.SetTop(0)
	if run.panicked != nil {
		panic(run.panicked) // callSafely's: nothing of the script is written
	}
	if run.exclusive.Load() {
		g.Abort()
		s.dropEvents(cl)
		cl.atomicRun.ready = nil
		if run.needsWorld {
			return errNeedsWorld
		}
		return errRunExclusive
	}
	if run.keyed {
		s.stats.scriptRunsKeyed.Add(1)
	} else {
		s.stats.scriptRunsExclusive.Add(1)
	}
	if run.shutdown.Load() {
		// SHUTDOWN stopped it: nothing of it is written, and its
		// connection closes without a reply, as in Redis.
		g.Abort()
		c.Conn = mutedConn{c.Conn}
		return nil
	}
	if run.outOfMemory.Load() {
		g.Abort() // nothing of it is written either
		return errScriptMemory
	}
	if own {
		if cerr := g.Commit(); cerr != nil {
			s.dropEvents(cl)
			return cerr
		}
		s.publishEvents(cl)
		ready := cl.atomicRun.ready
		cl.atomicRun.ready = nil
		for _, bk := range ready {
			s.keyReady(nil, bk.db, []byte(bk.key))
		}
	}
	if err != nil {
		if run.killed.Load() {
			return replyError("ERR Script killed by user with SCRIPT KILL... script: " + lc.name + ", on @" + lc.chunk + ":" + errLine + ".")
		}
		return scriptError(err, lc.name, lc.chunk, errLine, run.raised)
	}
	replyLua(c.Reply(), result, run.resp3, 0)
	return nil
}

// scriptError is Redis's reply for a script that raised an error: the
// error's text, then where: "script: <sha>, on @user_script:<line>."
// (a function's: "script: <name>, on @user_function:<line>.").
// A raised {err=...} table and an error of the redis object (raised, its
// text) keep their text; a Lua error gets ERR.
func scriptError(err error, name, chunk, line, raised string) error {
	var msg string
	var apiErr *lua.ApiError
	if errors.As(err, &apiErr) {
		switch o := apiErr.Object.(type) {
		case *lua.LTable:
			if e, ok := o.RawGetString("err").(lua.LString); ok {
				msg = string(e)
			}
		case lua.LString:
			msg = "ERR " + string(o)
			if string(o) == raised {
				msg = raised
			} else if m := scriptErrorLine.FindStringSubmatch(string(o)); m != nil {
				line = m[1]
			}
		}
	}
	if msg == "" {
		msg = "ERR " + err.Error()
	}
	if line != "" {
		msg += " script: " + name + ", on @" + chunk + ":" + line + "."
	}
	return replyError(sanitize(msg))
}

// luaStrings is a Lua array of strings: KEYS, ARGV.
func luaStrings(L *lua.LState, items [][]byte) *lua.LTable {
	t := L.CreateTable(len(items), 0)
	for i, it := range items {
		t.RawSetInt(i+1, lua.LString(it))
	}
	return t
}

var scriptSubcommands = []Subcommand{
	sub("load", 3, NoScript|Stale, cmdScriptLoad, cmdDoc{"Load the specified Lua script into the script cache.", "2.6.0", "scripting", "O(N) with N being the length in bytes of the script body.", "script"}).
		tips("request_policy:all_nodes", "response_policy:all_succeeded"),
	sub("exists", -3, NoScript, cmdScriptExists, cmdDoc{"Check existence of scripts in the script cache.", "2.6.0", "scripting", "O(N) with N being the number of scripts to check (so checking a single script is an O(1) operation).", "sha1 [sha1 ...]"}).
		tips("request_policy:all_shards", "response_policy:agg_logical_and"),
	sub("flush", -2, NoScript, cmdScriptFlush, cmdDoc{"Remove all the scripts from the script cache.", "2.6.0", "scripting", "O(N) with N being the number of scripts in cache", "[ASYNC|SYNC]"}).
		tips("request_policy:all_nodes", "response_policy:all_succeeded"),
	sub("kill", 2, NoScript|AllowBusy, cmdScriptKill, cmdDoc{"Kill the script currently in execution.", "2.6.0", "scripting", "O(1)", ""}).
		tips("request_policy:all_shards", "response_policy:one_succeeded"),
	sub("help", 2, Loading|Stale, cmdScriptHelp, cmdDoc{"Show helpful text about the different subcommands", "5.0.0", "scripting", "O(1)", ""}),
}

// SCRIPT LOAD script
func cmdScriptLoad(c *Ctx, args [][]byte) error {
	sha, _, err := c.Srv.scripts.load(string(args[2]))
	if err != nil {
		return err
	}
	c.Reply().BulkString(sha)
	return nil
}

// SCRIPT EXISTS sha1 [sha1 ...]
func cmdScriptExists(c *Ctx, args [][]byte) error {
	r := c.Reply()
	r.Array(len(args) - 2)
	for _, a := range args[2:] {
		r.IntBool(c.Srv.scripts.get(strings.ToLower(string(a))) != nil)
	}
	return nil
}

// SCRIPT FLUSH [ASYNC|SYNC]
func cmdScriptFlush(c *Ctx, args [][]byte) error {
	if len(args) > 3 || (len(args) == 3 && !strings.EqualFold(string(args[2]), "async") && !strings.EqualFold(string(args[2]), "sync")) {
		return errScriptFlushOption
	}
	c.Srv.scripts.flush()
	c.Reply().OK()
	return nil
}

// SCRIPT KILL: stops the running script, unless it wrote. It takes no
// lock, so it runs while the script holds the world lock.
func cmdScriptKill(c *Ctx, _ [][]byte) error { return killRunning(c, false) }

// killRunning is SCRIPT KILL (function false) and FUNCTION KILL: it stops
// the running script or function, unless it wrote (checked before its
// kind, as in Redis), or it is of the other kind, which the other KILL
// stops.
func killRunning(c *Ctx, function bool) error {
	run := c.Srv.scriptRunning.current()
	switch {
	case run == nil:
		return errNotBusy
	case run.wrote.Load():
		return errUnkillable
	case function && run.function == "":
		return errBusyScript
	case !function && run.function != "":
		return errBusyFunction
	}
	run.killed.Store(true)
	run.cancel()
	c.Reply().OK()
	return nil
}

// runningScript is the script running now, if any: SCRIPT KILL stops it,
// SHUTDOWN too, and the dispatcher answers BUSY to others once it has run
// for longer than busy-reply-threshold.
type runningScript struct {
	mu      sync.Mutex
	run     *scriptRun
	done    chan struct{} // closed when run ends
	started atomic.Int64  // unix ns it started; 0: none runs
}

// begin and end change run, done and started together, under mu, so
// that waitBusy never reads a start time that is not done's.
func (r *runningScript) begin(run *scriptRun) {
	r.mu.Lock()
	r.run, r.done = run, make(chan struct{})
	r.started.Store(time.Now().UnixNano())
	r.mu.Unlock()
}

func (r *runningScript) end() {
	r.mu.Lock()
	r.started.Store(0)
	close(r.done)
	r.run, r.done = nil, nil
	r.mu.Unlock()
}

// waitBusy waits, while a script runs, until it ends or has run for
// threshold, and reports whether it is still running then: a command
// that arrives during a script runs after it, as in Redis, or gets BUSY.
func (r *runningScript) waitBusy(threshold time.Duration) bool {
	r.mu.Lock()
	done, started := r.done, r.started.Load()
	r.mu.Unlock()
	if done == nil || started == 0 {
		return false
	}
	if wait := threshold - time.Since(time.Unix(0, started)); wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-done:
			return false
		case <-t.C:
		}
	}
	select {
	case <-done:
		return false
	default:
		return true
	}
}

func (r *runningScript) current() *scriptRun {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.run
}

// busyRefuses is called while a script runs: it reports whether cmd (sub:
// its subcommand, or -1) must get BUSY. An allow_busy command (SCRIPT
// KILL, SHUTDOWN...) runs at once; any other waits for the script to end,
// and gets BUSY once it has run for busy-reply-threshold.
func (s *Server) busyRefuses(cmd *Command, sub int) bool {
	if cmd.flagsOf(sub)&AllowBusy != 0 {
		return false
	}
	return s.scriptRunning.waitBusy(time.Duration(s.config().Server.BusyReplyThresholdMs) * time.Millisecond)
}

// busyError is the BUSY reply while a script runs: while a function runs,
// it names FUNCTION KILL, as in Redis.
func (r *runningScript) busyError() replyError {
	if run := r.current(); run != nil && run.function != "" {
		return errBusyFunction
	}
	return errBusyScript
}

// stopForShutdown stops the running script, written or not: SHUTDOWN
// discards what it wrote, as SHUTDOWN NOSAVE loses it in Redis.
func (r *runningScript) stopForShutdown() {
	if run := r.current(); run != nil {
		run.shutdown.Store(true)
		run.cancel()
	}
}

// SCRIPT HELP
func cmdScriptHelp(c *Ctx, _ [][]byte) error {
	writeHelp(c, "script", []string{
		"EXISTS <sha1> [<sha1> ...]",
		"    Return information about the existence of the scripts in the script cache.",
		"FLUSH [ASYNC|SYNC]",
		"    Flush the Lua scripts cache. Very dangerous on replicas.",
		"    When called without the optional mode argument, the behavior is determined by the",
		"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
		"    * ASYNC: Asynchronously flush the scripts cache.",
		"    * SYNC: Synchronously flush the scripts cache.",
		"KILL",
		"    Kill the currently executing Lua script.",
		"LOAD <script>",
		"    Load a script into the scripts cache without executing it.",
	})
	return nil
}

// scriptKeyNotes is Redis's note on a script's keys.
const scriptKeyNotes = "We cannot tell how the keys will be used so we assume the worst, "

// The notes of EVAL's and EVAL_RO's key specs.
const (
	evalKeyNotes   = scriptKeyNotes + "RW and UPDATE"
	evalROKeyNotes = scriptKeyNotes + "RO and ACCESS"
)

var scriptCommands = []Command{
	cmd("eval", -3, NoScript|SkipMonitor|NoMandatoryKeys|Stale|UnnamedKeys, 0, 0, 0, cmdEval).keysBy(numKeysAt(2)).
		keySpecs(numKeysSpec(2, KeyRW|KeyAccess|KeyUpdate).noted(evalKeyNotes)).
		doc("Execute a Lua script server side", "2.6.0", "scripting", "Depends on the script that is executed.", "script numkeys [key [key ...]] [arg [arg ...]]"),
	cmd("eval_ro", -3, ReadOnly|NoScript|SkipMonitor|NoMandatoryKeys|Stale|UnnamedKeys, 0, 0, 0, cmdEvalRO).keysBy(numKeysAt(2)).
		keySpecs(numKeysSpec(2, KeyRO|KeyAccess).noted(evalROKeyNotes)).
		doc("Execute a read-only Lua script server side", "7.0.0", "scripting", "Depends on the script that is executed.", "script numkeys [key [key ...]] [arg [arg ...]]"),
	cmd("evalsha", -3, NoScript|SkipMonitor|NoMandatoryKeys|Stale|UnnamedKeys, 0, 0, 0, cmdEvalSha).keysBy(numKeysAt(2)).
		keySpecs(numKeysSpec(2, KeyRW|KeyAccess|KeyUpdate)).
		doc("Execute a Lua script server side", "2.6.0", "scripting", "Depends on the script that is executed.", "sha1 numkeys [key [key ...]] [arg [arg ...]]"),
	cmd("evalsha_ro", -3, ReadOnly|NoScript|SkipMonitor|NoMandatoryKeys|Stale|UnnamedKeys, 0, 0, 0, cmdEvalShaRO).keysBy(numKeysAt(2)).
		keySpecs(numKeysSpec(2, KeyRO|KeyAccess)).
		doc("Execute a read-only Lua script server side", "7.0.0", "scripting", "Depends on the script that is executed.", "sha1 numkeys [key [key ...]] [arg [arg ...]]"),
	cmd("script", -2, 0, 0, 0, 0, nil).withSubcommands(scriptSubcommands).
		doc("A container for Lua scripts management commands", "2.6.0", "scripting", "Depends on subcommand.", ""),
}

// scriptMemoryLimit is how far a script may grow the server's heap: past
// it, guardScript stops the script, written or not, and nothing of
// it is kept. Lua has no bound of its own on tables and strings, and
// Redis's scripts are bounded only by maxmemory, which Shale does not have.
const scriptMemoryLimit = 1 << 30

// guardScript watches run from keyedScriptBudget on (short scripts pay
// one timer): a keyed run gives up then; any other is stopped once the
// heap has grown past scriptMemoryLimit since it started. The heap is the
// whole server's: other clients' allocations count, which only makes the
// bound stricter.
func guardScript(run *scriptRun) (stop func()) {
	done := make(chan struct{})
	var start uint64
	if !run.keyed { // a keyed run gives up before its heap is looked at
		start = heapBytes()
	}
	t := time.AfterFunc(keyedScriptBudget, func() {
		if run.keyed {
			run.giveUp()
			return
		}
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			if heapBytes() > start+scriptMemoryLimit {
				run.outOfMemory.Store(true)
				run.cancel()
				return
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	})
	return func() {
		t.Stop()
		close(done)
	}
}

// heapBytes is the bytes of live and unswept heap objects, read without
// stopping the world.
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
