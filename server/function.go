package server

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc64"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/shaledb/shale/server/types"
)

// FUNCTION and FCALL: Redis 7.0's functions. A library is Lua code that
// starts with "#!lua name=<lib>" and, when FUNCTION LOAD runs it once,
// registers functions with redis.register_function; FCALL calls one.
//
// Every library runs in one dedicated interpreter state (functionLibs.vm):
// its functions are closures of that state. FCALL runs a function as EVAL
// runs a script (runLua, script.go): in one group holding the world lock,
// with the same redis object, conversions, BUSY and kill. A function sees
// no KEYS or ARGV: it gets its keys and arguments as its two parameters.
//
// Libraries are persistent: each is a record of the default column family,
// "shale:function:<lib>" -> its code (store.Batch.PutLibrary), written
// in one batch by every FUNCTION LOAD, DELETE, FLUSH and RESTORE, and
// loaded and compiled at start (loadFunctions), so BGSAVE's checkpoints
// hold them too. A stored library that no longer loads is logged and
// left out.

// functionChunk is the chunk name of every library, as Redis names it in
// its error messages.
const functionChunk = "user_function"

// functionLoadTimeout bounds the run of a library's body, as Redis's
// LOAD_TIMEOUT_MS does.
const functionLoadTimeout = 500 * time.Millisecond

// luaEngine is the one engine's name, as FUNCTION LIST and STATS show it.
const luaEngine = "LUA"

// library is one loaded library.
type library struct {
	name  string
	code  string
	funcs []*libFunction // in the order the library registered them
}

// libFunction is one function a library registered.
type libFunction struct {
	name string
	desc string // "" with hasDesc unset: none given
	// hasDesc: a description was given, so FUNCTION LIST shows it rather
	// than nil.
	hasDesc bool
	flags   uint8 // bit i: scriptFlagNames[i]
	fn      *lua.LFunction
	lib     *library
}

// noWrites reports whether the function has the no-writes flag, so that
// FCALL_RO may call it and it may call no write command.
func (f *libFunction) noWrites() bool { return f.flags&1 != 0 } // scriptFlagNames[0]

// functionLibs is the server's libraries and their interpreter state.
//
// Lock order: the world lock (FCALL's group), then mu. FCALL holds both
// for its whole run; FUNCTION LOAD, DELETE, FLUSH, RESTORE, LIST and DUMP
// take mu alone, so they wait for a running function, and never take the
// world lock. FUNCTION STATS and KILL take neither: they run while a
// function does.
type functionLibs struct {
	mu    sync.Mutex
	vm    *luaVM                  // nil until the first library loads
	libs  map[string]*library     // by name, case-sensitive as in Redis
	funcs map[string]*libFunction // by lower-case name: FCALL ignores case
	// loadEnv is what a library's body sees while it runs: only a redis
	// table with register_function and log (Redis's library API).
	loadEnv *lua.LTable
	// loading is the library whose body runs now: register_function adds
	// its functions to it.
	loading *library
	// libCount and fnCount are FUNCTION STATS's counts, kept apart so that
	// it reads them while a function holds mu.
	libCount, fnCount atomic.Int64
}

// state returns the libraries' interpreter state, making it the first
// time. Call with mu held.
func (f *functionLibs) state(s *Server) *luaVM {
	if f.vm != nil {
		return f.vm
	}
	vm := newLuaVM()
	L := vm.L
	api := L.NewTable()
	api.RawSetString("register_function", L.NewFunction(f.registerFunction))
	api.RawSetString("log", L.NewFunction(func(L *lua.LState) int {
		if L.GetTop() < 2 {
			raiseTable(L, "ERR redis.log() requires two arguments or more.")
		}
		level := L.CheckInt(1)
		var parts []string
		for i := 2; i <= L.GetTop(); i++ {
			parts = append(parts, L.ToStringMeta(L.Get(i)).String())
		}
		(&scriptRun{s: s}).log(level, strings.Join(parts, " "))
		return 0
	}))
	redis := vm.globals.RawGetString("redis")
	for _, name := range []string{"REDIS_VERSION", "REDIS_VERSION_NUM", "LOG_DEBUG", "LOG_VERBOSE", "LOG_NOTICE", "LOG_WARNING"} {
		api.RawSetString(name, L.GetField(redis, name))
	}
	f.loadEnv = L.NewTable()
	f.loadEnv.RawSetString("redis", strictTable(L, api))
	f.vm = vm
	return vm
}

// strictTable is a read-only view of t in which reading a missing name is
// Redis's error, as its library API's tables do.
func strictTable(L *lua.LState, t *lua.LTable) *lua.LTable {
	proxy, mt := readOnly(L, t)
	mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		name := L.CheckAny(2)
		v := t.RawGet(name)
		if v == lua.LNil {
			L.RaiseError("Script attempted to access nonexistent global variable '%s'", name.String())
		}
		L.Push(v)
		return 1
	}))
	return proxy
}

// raiseTable raises an {err=text} table: an error of Redis's library API,
// which keeps its text and gets no position.
func raiseTable(L *lua.LState, text string) {
	t := L.NewTable()
	t.RawSetString("err", lua.LString(text))
	L.Error(t, 0)
}

// luaIsString is Lua's lua_isstring: a string, or a number (which Redis
// then reads as its string).
func luaIsString(v lua.LValue) (string, bool) {
	switch v.(type) {
	case lua.LString, lua.LNumber:
		return v.String(), true
	}
	return "", false
}

// registerFunction is redis.register_function, in the two forms Redis
// takes: (name, callback) and {function_name=, callback=, flags=,
// description=}.
func (f *functionLibs) registerFunction(L *lua.LState) int {
	fn := &libFunction{lib: f.loading}
	var ok bool
	switch L.GetTop() {
	case 1:
		t, isTable := L.Get(1).(*lua.LTable)
		if !isTable {
			raiseTable(L, "ERR calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments).")
		}
		var named bool
		t.ForEach(func(k, v lua.LValue) {
			key, isStr := luaIsString(k)
			if !isStr {
				raiseTable(L, "ERR named argument key given to redis.register_function is not a string")
			}
			switch key {
			case "function_name":
				if fn.name, ok = luaIsString(v); !ok {
					raiseTable(L, "ERR function_name argument given to redis.register_function must be a string")
				}
				named = true
			case "description":
				if fn.desc, ok = luaIsString(v); !ok {
					raiseTable(L, "ERR description argument given to redis.register_function must be a string")
				}
				fn.hasDesc = true
			case "callback":
				if fn.fn, ok = v.(*lua.LFunction); !ok {
					raiseTable(L, "ERR callback argument given to redis.register_function must be a function")
				}
			case "flags":
				fn.flags = functionFlags(L, v)
			default:
				raiseTable(L, "ERR unknown argument given to redis.register_function")
			}
		})
		if !named {
			raiseTable(L, "ERR redis.register_function must get a function name argument")
		}
		if fn.fn == nil {
			raiseTable(L, "ERR redis.register_function must get a callback argument")
		}
	case 2:
		if fn.name, ok = luaIsString(L.Get(1)); !ok {
			raiseTable(L, "ERR first argument to redis.register_function must be a string")
		}
		if fn.fn, ok = L.Get(2).(*lua.LFunction); !ok {
			raiseTable(L, "ERR second argument to redis.register_function must be a function")
		}
	default:
		raiseTable(L, "ERR wrong number of arguments to redis.register_function")
	}
	if !validName(fn.name) {
		// Redis 7.0 names libraries in this error, for functions too.
		raiseTable(L, string(errLibraryName))
	}
	for _, other := range fn.lib.funcs {
		// Case-sensitive, as Redis's library dict is; FCALL's lookup is
		// not, and finds the last of two names that differ in case only.
		if other.name == fn.name {
			raiseTable(L, "ERR Function already exists in the library")
		}
	}
	fn.lib.funcs = append(fn.lib.funcs, fn)
	return 0
}

// functionFlags reads register_function's flags table.
func functionFlags(L *lua.LState, v lua.LValue) uint8 {
	t, ok := v.(*lua.LTable)
	if !ok {
		raiseTable(L, "ERR flags argument to redis.register_function must be a table representing function flags")
	}
	var flags uint8
	for i := 1; ; i++ {
		item := t.RawGetInt(i)
		if item == lua.LNil {
			return flags
		}
		name, _ := luaIsString(item)
		at := slices.Index(scriptFlagNames, name)
		if at < 0 {
			raiseTable(L, "ERR unknown flag given")
		}
		flags |= 1 << at
	}
}

// validName is Redis's functionsVerifyName: letters, digits and
// underscores, at least one.
func validName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// libraryName reads a library's "#!<engine> name=<lib>" first line, as
// Redis 7.0 does (functionExtractLibMetaData), and checks the engine and
// the name.
func libraryName(code string) (string, error) {
	if !strings.HasPrefix(code, "#!") {
		return "", errMissingLibMetadata
	}
	end := strings.IndexByte(code, '\n')
	if end < 0 {
		return "", errInvalidLibMetadata
	}
	parts, ok := splitShebang(code[:end])
	if !ok || len(parts) == 0 {
		return "", errInvalidLibMetadata
	}
	engine := strings.TrimPrefix(parts[0], "#!")
	var name string
	named := false
	for _, p := range parts[1:] {
		if len(p) < 5 || !strings.EqualFold(p[:5], "name=") {
			return "", replyError("ERR Invalid metadata value given: " + sanitize(p))
		}
		if named {
			return "", errLibNameRepeated
		}
		name, named = p[5:], true
	}
	switch {
	case !named:
		return "", errLibNameNotGiven
	case !validName(name):
		return "", errLibraryName
	case !strings.EqualFold(engine, luaEngine):
		return "", replyError("ERR Engine '" + sanitize(engine) + "' not found")
	}
	return name, nil
}

// splitShebang splits a shebang line into words as Redis's sdssplitargs
// does: on blanks, with "double" (backslash escapes) and 'single' quoted
// words; false for an unbalanced quote or a quote not followed by a
// blank.
func splitShebang(line string) ([]string, bool) {
	var parts []string
	i := 0
	for {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r') {
			i++
		}
		if i == len(line) {
			return parts, true
		}
		var word []byte
		for i < len(line) && line[i] != ' ' && line[i] != '\t' && line[i] != '\r' {
			q := line[i]
			if q != '"' && q != '\'' {
				word = append(word, q)
				i++
				continue
			}
			i++
			for {
				if i >= len(line) {
					return nil, false
				}
				c := line[i]
				i++
				if c == q {
					break
				}
				if c == '\\' && q == '"' && i < len(line) {
					c = line[i]
					i++
				}
				word = append(word, c)
			}
			if i < len(line) && line[i] != ' ' && line[i] != '\t' {
				return nil, false
			}
		}
		parts = append(parts, string(word))
	}
}

// evalLibrary compiles code and runs its body, which registers its
// functions. It changes no library: the caller installs the one it
// returns. Call with mu held.
func (f *functionLibs) evalLibrary(s *Server, name, code string) (*library, error) {
	// Lua compiles the code after the shebang's line, its newline
	// included, so that line numbers stay, as Redis does.
	proto, msg := compileLua(code[strings.IndexByte(code, '\n'):], functionChunk)
	if proto == nil {
		return nil, replyError("ERR Error compiling function: " + msg)
	}
	vm := f.state(s)
	L := vm.L
	lib := &library{name: name, code: code}
	// The body sees only Redis's library API; its functions, later,
	// everything a script sees.
	globals := vm.globals
	vm.globals, f.loading = f.loadEnv, lib
	defer func() { vm.globals, f.loading = globals, nil }()
	fn := L.NewFunctionFromProto(proto)
	fn.Env = vm.env
	ctx, cancel := context.WithTimeout(context.Background(), functionLoadTimeout)
	defer cancel()
	L.SetContext(ctx)
	L.Push(fn)
	err := L.PCall(0, 0, nil)
	L.RemoveContext()
	L.SetTop(0)
	if err != nil {
		msg := "ERR " + err.Error()
		var apiErr *lua.ApiError
		switch {
		case ctx.Err() != nil:
			msg = "ERR FUNCTION LOAD timeout"
		case errors.As(err, &apiErr):
			switch o := apiErr.Object.(type) {
			case *lua.LTable:
				msg = o.RawGetString("err").String()
			case lua.LString:
				msg = "ERR " + string(o)
			}
		}
		return nil, replyError("ERR Error registering functions: " + sanitize(msg))
	}
	if len(lib.funcs) == 0 {
		return nil, errNoFunctions
	}
	return lib, nil
}

// functionSet is a set of libraries being built: by FUNCTION LOAD and
// RESTORE from the current one, at start from the stored ones.
type functionSet struct {
	libs  map[string]*library
	funcs map[string]*libFunction
}

func (f *functionLibs) current() functionSet {
	set := functionSet{libs: make(map[string]*library, len(f.libs)), funcs: make(map[string]*libFunction, len(f.funcs))}
	for k, v := range f.libs {
		set.libs[k] = v
	}
	for k, v := range f.funcs {
		set.funcs[k] = v
	}
	return set
}

// add puts lib in the set, replacing the library of the same name when
// replace is set; it fails, changing nothing, on a name that is taken.
// quoted: the library error's name is quoted, as FUNCTION LOAD's is and
// RESTORE's join's is not.
func (set functionSet) add(lib *library, replace, quoted bool) error {
	old := set.libs[lib.name]
	if old != nil && !replace {
		if quoted {
			return replyError("ERR Library '" + lib.name + "' already exists")
		}
		return replyError("ERR Library " + lib.name + " already exists")
	}
	for _, fn := range lib.funcs {
		if other := set.funcs[strings.ToLower(fn.name)]; other != nil && other.lib != old {
			return replyError("ERR Function " + fn.name + " already exists")
		}
	}
	set.remove(old)
	set.libs[lib.name] = lib
	for _, fn := range lib.funcs {
		set.funcs[strings.ToLower(fn.name)] = fn
	}
	return nil
}

func (set functionSet) remove(lib *library) {
	if lib == nil {
		return
	}
	delete(set.libs, lib.name)
	for _, fn := range lib.funcs {
		delete(set.funcs, strings.ToLower(fn.name))
	}
}

// install makes set the server's libraries, after writing the change to
// RocksDB in one batch: flush deletes every stored library first, and
// each library of set that differs from the stored one is written, each
// stored one set lacks deleted. Call with mu held.
func (f *functionLibs) install(s *Server, set functionSet, flush bool) error {
	b := s.st.NewBatch()
	defer b.Release()
	if flush {
		b.DeleteLibraries()
	}
	for name, lib := range set.libs {
		if flush || f.libs[name] != lib {
			b.PutLibrary(name, []byte(lib.code))
		}
	}
	for name := range f.libs {
		if _, ok := set.libs[name]; !ok && !flush {
			b.DeleteLibrary(name)
		}
	}
	if b.Len() > 0 {
		if err := s.st.Write(b); err != nil {
			return err
		}
	}
	f.use(set)
	return nil
}

// use makes set the server's libraries, in memory.
func (f *functionLibs) use(set functionSet) {
	f.libs, f.funcs = set.libs, set.funcs
	n := 0
	for _, lib := range set.libs {
		n += len(lib.funcs)
	}
	f.libCount.Store(int64(len(set.libs)))
	f.fnCount.Store(int64(n))
}

// loadFunctions loads the libraries stored in RocksDB, at start. One that
// no longer loads (or whose function another took) is logged and left
// out, and stays stored, for an operator to see.
func (s *Server) loadFunctions() error {
	f := &s.functions
	f.mu.Lock()
	defer f.mu.Unlock()
	set := functionSet{libs: map[string]*library{}, funcs: map[string]*libFunction{}}
	stored, err := s.st.Libraries()
	if err != nil {
		return err
	}
	for _, st := range stored {
		code := string(st.Code)
		name, err := libraryName(code)
		if err == nil && name != st.Name {
			err = replyError("ERR the code names library '" + sanitize(name) + "'")
		}
		var lib *library
		if err == nil {
			lib, err = f.evalLibrary(s, name, code)
		}
		if err == nil {
			err = set.add(lib, false, true)
		}
		if err != nil {
			s.log.Error().Err(err).Str("library", st.Name).Msg("stored function library does not load: left out")
		}
	}
	f.use(set)
	if len(set.libs) > 0 {
		s.log.Info().Int("libraries", len(set.libs)).Int("functions", len(set.funcs)).Msg("function libraries loaded")
	}
	return nil
}

// FCALL function numkeys [key ...] [arg ...]
func cmdFCall(c *Ctx, args [][]byte) error { return fcall(c, args, false) }

// FCALL_RO function numkeys [key ...] [arg ...]
func cmdFCallRO(c *Ctx, args [][]byte) error { return fcall(c, args, true) }

func fcall(c *Ctx, args [][]byte, readOnly bool) error {
	s := c.Srv
	f := &s.functions
	g, own := s.scriptGroup(c) // first, for the lock order (functionLibs)
	f.mu.Lock()
	defer f.mu.Unlock()
	fn := f.funcs[strings.ToLower(string(args[1]))]
	keys, argv, err := functionArgs(args)
	switch {
	case fn == nil:
		err = errFunctionNotFound
	case err == nil && !fn.noWrites() && s.isReplica():
		err = errReadOnlyReplica
	case err == nil && readOnly && !fn.noWrites():
		err = errFunctionWriteFlag
	}
	if err != nil {
		if own {
			g.Abort()
		}
		return err
	}
	L := f.vm.L
	command := make([][]byte, len(args))
	for i, a := range args {
		command[i] = slices.Clone(a) // FUNCTION STATS reads it from another connection
	}
	return s.runLua(c, f.vm, g, own, luaCall{
		name: fn.name, chunk: functionChunk, fn: fn.fn,
		args:     []lua.LValue{luaStrings(L, keys), luaStrings(L, argv)},
		readOnly: fn.noWrites(), function: true, command: command,
	})
}

// functionArgs splits FCALL's arguments after the function's name into
// its keys and its arguments, with FCALL's errors.
func functionArgs(args [][]byte) (keys, argv [][]byte, err error) {
	n, err := parseInt(args[2])
	switch {
	case err != nil:
		return nil, nil, errBadNumKeys
	case n > int64(len(args)-3):
		return nil, nil, errTooManyKeys
	case n < 0:
		return nil, nil, errNegativeKeys
	}
	return args[3 : 3+n], args[3+n:], nil
}

var functionSubcommands = []Subcommand{
	sub("delete", 3, Write|NoScript, cmdFunctionDelete, cmdDoc{"Delete a function by name", "7.0.0", "scripting", "O(1)", "library-name"}).
		tips("request_policy:all_shards", "response_policy:all_succeeded"),
	sub("dump", 2, NoScript, cmdFunctionDump, cmdDoc{"Dump all functions into a serialized binary payload", "7.0.0", "scripting", "O(N) where N is the number of functions", ""}),
	sub("flush", -2, Write|NoScript, cmdFunctionFlush, cmdDoc{"Deleting all functions", "7.0.0", "scripting", "O(N) where N is the number of functions deleted", "[ASYNC|SYNC]"}).
		shaped(atMost(3, shapeSubcommandSyntax)).
		tips("request_policy:all_shards", "response_policy:all_succeeded"),
	sub("help", 2, Loading|Stale, cmdFunctionHelp, cmdDoc{"Show helpful text about the different subcommands", "7.0.0", "scripting", "O(1)", ""}),
	sub("kill", 2, NoScript|AllowBusy, cmdFunctionKill, cmdDoc{"Kill the function currently in execution.", "7.0.0", "scripting", "O(1)", ""}).
		tips("request_policy:all_shards", "response_policy:one_succeeded"),
	sub("list", -2, NoScript, cmdFunctionList, cmdDoc{"List information about all the functions", "7.0.0", "scripting", "O(N) where N is the number of functions", "[LIBRARYNAME library-name-pattern] [WITHCODE]"}).
		tips("nondeterministic_output_order"),
	sub("load", -3, Write|DenyOOM|NoScript, cmdFunctionLoad, cmdDoc{"Create a function with the given arguments (name, code, description)", "7.0.0", "scripting", "O(1) (considering compilation time is redundant)", "[REPLACE] function-code"}).
		tips("request_policy:all_shards", "response_policy:all_succeeded"),
	sub("restore", -3, Write|DenyOOM|NoScript, cmdFunctionRestore, cmdDoc{"Restore all the functions on the given payload", "7.0.0", "scripting", "O(N) where N is the number of functions on the payload", "serialized-value [FLUSH|APPEND|REPLACE]"}).
		shaped(atMost(4, shapeSubcommandSyntax)).
		tips("request_policy:all_shards", "response_policy:all_succeeded"),
	sub("stats", 2, NoScript|AllowBusy, cmdFunctionStats, cmdDoc{"Return information about the function currently running (name, description, duration)", "7.0.0", "scripting", "O(1)", ""}).
		tips("nondeterministic_output", "request_policy:all_shards", "response_policy:special"),
}

// FUNCTION LOAD [REPLACE] code
func cmdFunctionLoad(c *Ctx, args [][]byte) error {
	replace := false
	for _, a := range args[2 : len(args)-1] {
		if !strings.EqualFold(string(a), "replace") {
			return replyError("ERR Unknown option given: " + sanitize(string(a)))
		}
		replace = true
	}
	code := string(args[len(args)-1])
	name, err := libraryName(code)
	if err != nil {
		return err
	}
	s := c.Srv
	f := &s.functions
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.libs[name] != nil && !replace {
		return replyError("ERR Library '" + name + "' already exists")
	}
	lib, err := f.evalLibrary(s, name, code)
	if err != nil {
		return err
	}
	set := f.current()
	if err := set.add(lib, replace, true); err != nil {
		return err
	}
	if err := f.install(s, set, false); err != nil {
		return err
	}
	c.Reply().BulkString(name)
	return nil
}

// FUNCTION DELETE library-name
func cmdFunctionDelete(c *Ctx, args [][]byte) error {
	s := c.Srv
	f := &s.functions
	f.mu.Lock()
	defer f.mu.Unlock()
	lib := f.libs[string(args[2])]
	if lib == nil {
		return errLibraryNotFound
	}
	set := f.current()
	set.remove(lib)
	if err := f.install(s, set, false); err != nil {
		return err
	}
	c.Reply().OK()
	return nil
}

// FUNCTION FLUSH [ASYNC|SYNC]: both are synchronous; the libraries are
// few and small.
func cmdFunctionFlush(c *Ctx, args [][]byte) error {
	if len(args) == 3 && !strings.EqualFold(string(args[2]), "async") && !strings.EqualFold(string(args[2]), "sync") {
		return errFunctionFlushOption
	}
	s := c.Srv
	f := &s.functions
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.install(s, functionSet{libs: map[string]*library{}, funcs: map[string]*libFunction{}}, true); err != nil {
		return err
	}
	c.Reply().OK()
	return nil
}

// FUNCTION LIST [LIBRARYNAME pattern] [WITHCODE]. Libraries come sorted by
// name, functions in their library's order (Redis's order is its hash
// tables', which it says is not to be relied on).
func cmdFunctionList(c *Ctx, args [][]byte) error {
	var pattern []byte
	withCode, byName := false, false
	for i := 2; i < len(args); i++ {
		switch a := string(args[i]); {
		case strings.EqualFold(a, "withcode") && !withCode:
			withCode = true
		case strings.EqualFold(a, "libraryname") && !byName:
			if i+1 == len(args) {
				return errLibNameArgMissing
			}
			i++
			pattern, byName = args[i], true
		default:
			return replyError("ERR Unknown argument " + sanitize(a))
		}
	}
	f := &c.Srv.functions
	f.mu.Lock()
	defer f.mu.Unlock()
	// Redis matches the pattern without case (stringmatchlen's nocase),
	// which lower-casing both does, ranges included.
	pattern = bytes.ToLower(pattern)
	var libs []*library
	for _, lib := range f.libs {
		if !byName || types.Match(pattern, bytes.ToLower([]byte(lib.name))) {
			libs = append(libs, lib)
		}
	}
	slices.SortFunc(libs, func(a, b *library) int { return strings.Compare(a.name, b.name) })
	r := c.Reply()
	r.Array(len(libs))
	for _, lib := range libs {
		if withCode {
			r.Map(4)
		} else {
			r.Map(3)
		}
		r.BulkString("library_name")
		r.BulkString(lib.name)
		r.BulkString("engine")
		r.BulkString(luaEngine)
		r.BulkString("functions")
		r.Array(len(lib.funcs))
		for _, fn := range lib.funcs {
			r.Map(3)
			r.BulkString("name")
			r.BulkString(fn.name)
			r.BulkString("description")
			if fn.hasDesc {
				r.BulkString(fn.desc)
			} else {
				r.Null()
			}
			r.BulkString("flags")
			var names []string
			for i, name := range scriptFlagNames {
				if fn.flags&(1<<i) != 0 {
					names = append(names, name)
				}
			}
			r.Set(len(names))
			for _, name := range names {
				r.Status(name) // Redis sends the flags as simple strings
			}
		}
		if withCode {
			r.BulkString("library_code")
			r.BulkString(lib.code)
		}
	}
	return nil
}

// FUNCTION STATS: the running function, if any, and the engine's counts.
// While a script (EVAL) runs, Redis answers BUSY, once the script has run
// busy-reply-threshold (it answers nothing before): STATS waits as long.
func cmdFunctionStats(c *Ctx, _ [][]byte) error {
	s := c.Srv
	run := s.scriptRunning.current()
	if run != nil && run.function == "" {
		s.scriptRunning.waitBusy(time.Duration(s.config().Server.BusyReplyThresholdMs) * time.Millisecond)
		if run = s.scriptRunning.current(); run != nil && run.function == "" {
			return errBusyScript
		}
	}
	r := c.Reply()
	r.Map(2)
	r.BulkString("running_script")
	if run == nil {
		r.Null()
	} else {
		r.Map(3)
		r.BulkString("name")
		r.BulkString(run.function)
		r.BulkString("command")
		r.Bulks(run.args)
		r.BulkString("duration_ms")
		started := s.scriptRunning.started.Load()
		r.Int(max(0, time.Since(time.Unix(0, started)).Milliseconds()))
	}
	r.BulkString("engines")
	r.Map(1)
	r.BulkString(luaEngine)
	r.Map(2)
	r.BulkString("libraries_count")
	r.Int(s.functions.libCount.Load())
	r.BulkString("functions_count")
	r.Int(s.functions.fnCount.Load())
	return nil
}

// FUNCTION KILL: stops the running function, unless it wrote; as SCRIPT
// KILL, it takes no lock.
func cmdFunctionKill(c *Ctx, _ [][]byte) error { return killRunning(c, true) }

// The FUNCTION DUMP payload is Redis 7.0's, so that a dump moves between
// Shale and Redis both ways:
//
//	| 0xF5 | code: RDB string | ... (one per library) | rdb version u16 LE | CRC-64 u64 LE |
//
// An RDB string is a length (6 bits; 14 bits, big-endian; 0x80 and 32 bits
// or 0x81 and 64 bits, big-endian) and the bytes, or an LZF-compressed
// string (0xC3, compressed length, length, data) or an integer (0xC0-0xC2,
// little-endian), which Shale reads and never writes. The CRC is Redis's
// CRC-64/Jones (reflected, initial value 0) of everything before it.
const (
	rdbOpFunctionPreGA = 246 // RDB_OPCODE_FUNCTION, Redis 7.0's release candidates
	rdbOpFunction      = 245 // RDB_OPCODE_FUNCTION2
	rdbVersion         = 10  // Redis 7.0's
)

// crcJones is the table of Redis's CRC-64/Jones; hash/crc64 takes the
// polynomial reversed, and inverts the value before and after, which
// redisCRC64 undoes.
var crcJones = crc64.MakeTable(0x95ac9329ac4bc9b5)

func redisCRC64(b []byte) uint64 { return ^crc64.Update(^uint64(0), crcJones, b) }

// FUNCTION DUMP
func cmdFunctionDump(c *Ctx, _ [][]byte) error {
	f := &c.Srv.functions
	f.mu.Lock()
	names := make([]string, 0, len(f.libs))
	for name := range f.libs {
		names = append(names, name)
	}
	slices.Sort(names)
	var b []byte
	for _, name := range names {
		b = append(b, rdbOpFunction)
		b = appendRDBString(b, f.libs[name].code)
	}
	f.mu.Unlock()
	b = binary.LittleEndian.AppendUint16(b, rdbVersion)
	b = binary.LittleEndian.AppendUint64(b, redisCRC64(b))
	c.Reply().Bulk(b)
	return nil
}

func appendRDBString(b []byte, s string) []byte {
	switch n := len(s); {
	case n < 1<<6:
		b = append(b, byte(n))
	case n < 1<<14:
		b = append(b, 0x40|byte(n>>8), byte(n))
	case uint64(n) <= 0xffffffff:
		b = binary.BigEndian.AppendUint32(append(b, 0x80), uint32(n))
	default:
		b = binary.BigEndian.AppendUint64(append(b, 0x81), uint64(n))
	}
	return append(b, s...)
}

// parseFunctionDump reads a FUNCTION DUMP payload into its libraries'
// code, with Redis's errors.
func parseFunctionDump(p []byte) ([]string, error) {
	if len(p) < 10 {
		return nil, errFunctionPayload
	}
	body, footer := p[:len(p)-10], p[len(p)-10:]
	if binary.LittleEndian.Uint16(footer) > rdbVersion || binary.LittleEndian.Uint64(footer[2:]) != redisCRC64(p[:len(p)-8]) {
		return nil, errFunctionPayload
	}
	var codes []string
	for len(body) > 0 {
		switch body[0] {
		case rdbOpFunction:
		case rdbOpFunctionPreGA:
			return nil, errPreGAFunction
		default:
			return nil, errNotAFunction
		}
		code, rest, ok := readRDBString(body[1:])
		if !ok {
			return nil, errFunctionsPayload
		}
		codes, body = append(codes, code), rest
	}
	return codes, nil
}

// readRDBLen reads an RDB length; encoded: the byte is a special
// encoding's (0xC0 | its type), not a length.
func readRDBLen(b []byte) (n uint64, encoded bool, rest []byte, ok bool) {
	if len(b) == 0 {
		return 0, false, nil, false
	}
	switch b[0] >> 6 {
	case 0:
		return uint64(b[0] & 0x3f), false, b[1:], true
	case 1:
		if len(b) < 2 {
			return 0, false, nil, false
		}
		return uint64(b[0]&0x3f)<<8 | uint64(b[1]), false, b[2:], true
	case 3:
		return uint64(b[0] & 0x3f), true, b[1:], true
	}
	switch {
	case b[0] == 0x80 && len(b) >= 5:
		return uint64(binary.BigEndian.Uint32(b[1:])), false, b[5:], true
	case b[0] == 0x81 && len(b) >= 9:
		return binary.BigEndian.Uint64(b[1:]), false, b[9:], true
	}
	return 0, false, nil, false
}

// readRDBString reads an RDB string: plain, an integer or LZF-compressed.
// Every length is checked against what the payload holds before use.
func readRDBString(b []byte) (string, []byte, bool) {
	n, encoded, b, ok := readRDBLen(b)
	if !ok {
		return "", nil, false
	}
	if !encoded {
		if n > uint64(len(b)) {
			return "", nil, false
		}
		return string(b[:n]), b[n:], true
	}
	switch n {
	case 0, 1, 2: // RDB_ENC_INT8, 16, 32: little-endian
		size := 1 << n
		if len(b) < size {
			return "", nil, false
		}
		var v int64
		switch size {
		case 1:
			v = int64(int8(b[0]))
		case 2:
			v = int64(int16(binary.LittleEndian.Uint16(b)))
		default:
			v = int64(int32(binary.LittleEndian.Uint32(b)))
		}
		return strconv.FormatInt(v, 10), b[size:], true
	case 3: // RDB_ENC_LZF
		clen, _, b, ok := readRDBLen(b)
		if !ok {
			return "", nil, false
		}
		ulen, _, b, ok := readRDBLen(b)
		if !ok || clen > uint64(len(b)) || ulen > maxLZFBytes {
			return "", nil, false
		}
		out, ok := lzfDecompress(b[:clen], int(ulen))
		if !ok {
			return "", nil, false
		}
		return string(out), b[clen:], true
	}
	return "", nil, false
}

// maxLZFBytes bounds the length an LZF string in a payload may claim,
// before anything is allocated for it: a library's code is far smaller.
const maxLZFBytes = 64 << 20

// lzfDecompress is liblzf's lzf_decompress: it fails unless in expands to
// exactly n bytes.
func lzfDecompress(in []byte, n int) ([]byte, bool) {
	out := make([]byte, 0, min(n, 4*len(in))) // grown by what in really expands to
	for i := 0; i < len(in); {
		ctrl := int(in[i])
		i++
		if ctrl < 32 { // a literal run of ctrl+1 bytes
			ctrl++
			if i+ctrl > len(in) || len(out)+ctrl > n {
				return nil, false
			}
			out = append(out, in[i:i+ctrl]...)
			i += ctrl
			continue
		}
		length := ctrl >> 5 // a back reference
		if length == 7 {
			if i >= len(in) {
				return nil, false
			}
			length += int(in[i])
			i++
		}
		if i >= len(in) {
			return nil, false
		}
		ref := len(out) - ((ctrl&0x1f)<<8 | int(in[i])) - 1
		i++
		length += 2
		if ref < 0 || len(out)+length > n {
			return nil, false
		}
		for j := 0; j < length; j++ { // byte by byte: the reference may overlap
			out = append(out, out[ref+j])
		}
	}
	return out, len(out) == n
}

// FUNCTION RESTORE payload [FLUSH|APPEND|REPLACE]
func cmdFunctionRestore(c *Ctx, args [][]byte) error {
	flush, replace := false, false
	if len(args) == 4 {
		switch p := string(args[3]); {
		case strings.EqualFold(p, "flush"):
			flush = true
		case strings.EqualFold(p, "replace"):
			replace = true
		case strings.EqualFold(p, "append"):
		default:
			return errRestorePolicy
		}
	}
	codes, err := parseFunctionDump(args[2])
	if err != nil {
		return err
	}
	s := c.Srv
	f := &s.functions
	f.mu.Lock()
	defer f.mu.Unlock()
	// The payload's libraries load on their own first, as in Redis; then
	// they join the current ones.
	loaded := functionSet{libs: map[string]*library{}, funcs: map[string]*libFunction{}}
	for _, code := range codes {
		name, err := libraryName(code)
		if err != nil {
			return err
		}
		if loaded.libs[name] != nil {
			return replyError("ERR Library '" + name + "' already exists")
		}
		lib, err := f.evalLibrary(s, name, code)
		if err == nil {
			err = loaded.add(lib, false, true)
		}
		if err != nil {
			return err
		}
	}
	set := loaded
	if !flush {
		set = f.current()
		names := make([]string, 0, len(loaded.libs))
		for name := range loaded.libs {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			if err := set.add(loaded.libs[name], replace, false); err != nil {
				return err
			}
		}
	}
	if err := f.install(s, set, flush); err != nil {
		return err
	}
	c.Reply().OK()
	return nil
}

// FUNCTION HELP
func cmdFunctionHelp(c *Ctx, _ [][]byte) error {
	writeHelp(c, "function", []string{
		"LOAD [REPLACE] <FUNCTION CODE>",
		"    Create a new library with the given library name and code.",
		"DELETE <LIBRARY NAME>",
		"    Delete the given library.",
		"LIST [LIBRARYNAME PATTERN] [WITHCODE]",
		"    Return general information on all the libraries:",
		"    * Library name",
		"    * The engine used to run the Library",
		"    * Library description",
		"    * Functions list",
		"    * Library code (if WITHCODE is given)",
		"    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
		"STATS",
		"    Return information about the current function running:",
		"    * Function name",
		"    * Command used to run the function",
		"    * Duration in MS that the function is running",
		"    If no function is running, return nil",
		"    In addition, returns a list of available engines.",
		"KILL",
		"    Kill the current running function.",
		"FLUSH [ASYNC|SYNC]",
		"    Delete all the libraries.",
		"    When called without the optional mode argument, the behavior is determined by the",
		"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
		"    * ASYNC: Asynchronously flush the libraries.",
		"    * SYNC: Synchronously flush the libraries.",
		"DUMP",
		"    Return a serialized payload representing the current libraries, can be restored using FUNCTION RESTORE command",
		"RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
		"    Restore the libraries represented by the given payload, it is possible to give a restore policy to",
		"    control how to handle existing libraries (default APPEND):",
		"    * FLUSH: delete all existing libraries.",
		"    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
		"    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old",
		"      libraries with the new libraries (notice that even on this option there is a chance of failure",
		"      in case of functions name collision with another library).",
	})
	return nil
}

// functionCommands are FCALL, FCALL_RO and FUNCTION; FCALL's key specs
// carry EVAL's notes, as in Redis.
var functionCommands = []Command{
	cmd("fcall", -3, NoScript|SkipMonitor|NoMandatoryKeys|Stale|UnnamedKeys, 0, 0, 0, cmdFCall).keysBy(numKeysAt(2)).
		keySpecs(numKeysSpec(2, KeyRW|KeyAccess|KeyUpdate).noted(evalKeyNotes)).
		doc("Invoke a function", "7.0.0", "scripting", "Depends on the function that is executed.", "function numkeys [key [key ...]] [arg [arg ...]]"),
	cmd("fcall_ro", -3, ReadOnly|NoScript|SkipMonitor|NoMandatoryKeys|Stale|UnnamedKeys, 0, 0, 0, cmdFCallRO).keysBy(numKeysAt(2)).
		keySpecs(numKeysSpec(2, KeyRO|KeyAccess).noted(evalROKeyNotes)).
		doc("Invoke a read-only function", "7.0.0", "scripting", "Depends on the function that is executed.", "function numkeys [key [key ...]] [arg [arg ...]]"),
	cmd("function", -2, 0, 0, 0, 0, nil).withSubcommands(functionSubcommands).
		doc("A container for function commands", "7.0.0", "scripting", "Depends on subcommand.", ""),
}
