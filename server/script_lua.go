package server

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/shaledb/shale/server/lualib"
)

func init() {
	// gopher-lua grows a table's array part up to its largest integer
	// key: t[60000000] = 1 would allocate about a gigabyte. Past this
	// index, keys go to the hash part, as in Lua 5.1.
	lua.MaxArrayIndex = 1 << 20
}

// The Lua side of scripting: interpreter states with Redis 7.0's sandbox
// and its redis object, and the conversions between Lua values and
// replies, as Redis documents them.
//
// Sandbox: a script's functions run with an environment table that holds
// nothing: reading a name it lacks looks in the state's globals and fails
// with Redis's error when they lack it too, and every write fails, so a
// script can create no global and nothing leaks into the next script. The
// library tables (string, math, table, redis...) are read-only the same
// way. No library reaches the filesystem, the network or the OS.

// scriptChunk is the chunk name of every script, as Redis names it in its
// error messages.
const scriptChunk = "user_script"

// Redis 7.0.15's version, as scripts read it.
const (
	luaRedisVersion    = "7.0.15"
	luaRedisVersionNum = 0x07000f
)

// luaVM is one interpreter state and the script run it serves now.
type luaVM struct {
	L   *lua.LState
	env *lua.LTable // the environment of the scripts run on it
	// globals are the names scripts may read (KEYS and ARGV set per run).
	globals *lua.LTable
	run     *scriptRun // the run in progress; nil between runs
}

// newLuaVM makes an interpreter state with Redis's libraries and sandbox.
func newLuaVM() *luaVM {
	// The Lua stack starts at 4,096 slots (64 KiB) and grows by as many:
	// keyed script runs keep up to maxIdleVMs states, about 210 KB each
	// (470 KB with 20,480 slots at first), and the stack grows by copying,
	// so a step of gopher-lua's default 32 made deep stacks quadratic.
	L := lua.NewState(lua.Options{SkipOpenLibs: true, CallStackSize: 256, RegistrySize: 4096, RegistryGrowStep: 4096, RegistryMaxSize: 1024 * 1024})
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
		{lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath},
		{lua.CoroutineLibName, lua.OpenCoroutine},
	} {
		L.Push(L.NewFunction(lib.open))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	vm := &luaVM{L: L}
	g := L.G.Global
	// What Redis leaves out of base: the file and module loaders, print.
	for _, name := range []string{"dofile", "loadfile", "print", "require", "module", "setfenv", "getfenv", "newproxy"} {
		g.RawSetString(name, lua.LNil)
	}
	// gopher-lua's math.huge is the largest finite number; Lua's is +inf.
	if m, ok := g.RawGetString(lua.MathLibName).(*lua.LTable); ok {
		m.RawSetString("huge", lua.LNumber(math.Inf(1)))
	}
	g.RawSetString("redis", vm.redisObject())
	lualib.Open(L) // cjson, cmsgpack, struct, bit
	vm.guardRawWrites()
	// gcinfo, which gopher-lua lacks: the memory in use, in KiB.
	g.RawSetString("gcinfo", L.NewFunction(func(L *lua.LState) int {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		L.Push(lua.LNumber(ms.HeapAlloc / 1024))
		return 1
	}))
	vm.globals = L.NewTable()
	g.ForEach(func(k, v lua.LValue) {
		if t, ok := v.(*lua.LTable); ok && k.String() != "_G" {
			v, _ = readOnly(L, t)
		}
		vm.globals.RawSet(k, v)
	})
	var mt *lua.LTable
	vm.env, mt = readOnly(L, vm.globals)
	vm.globals.RawSetString("_G", vm.env)
	// Reading a global that does not exist is an error in Redis's scripts.
	mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		name := L.CheckAny(2)
		v := vm.globals.RawGet(name)
		if v == lua.LNil {
			L.RaiseError("Script attempted to access nonexistent global variable '%s'", name.String())
		}
		L.Push(v)
		return 1
	}))
	// The strings' metatable, which getmetatable('') reaches: its
	// __index is the read-only string library, and getmetatable returns
	// a read-only view of it (its __metatable), as Redis's read-only
	// tables make it. Writable, it let a script or a function change
	// string.upper for the scripts after it, or keep the redis object
	// where a library's body, which must not reach it, could call it.
	if smt, ok := L.GetMetatable(lua.LString("")).(*lua.LTable); ok {
		smt.RawSetString("__index", vm.globals.RawGetString("string"))
		view, _ := readOnly(L, smt)
		smt.RawSetString("__metatable", view)
	}
	return vm
}

// readOnly returns a table that reads t and refuses writes, as Redis's
// read-only tables do, and its metatable.
func readOnly(L *lua.LState, t *lua.LTable) (*lua.LTable, *lua.LTable) {
	proxy := L.NewTable()
	mt := L.NewTable()
	mt.RawSetString("__index", t)
	mt.RawSetString("__newindex", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("Attempt to modify a readonly table")
		return 0
	}))
	mt.RawSetString("__metatable", lua.LFalse)
	mt.RawSetString(readOnlyMark, lua.LTrue)
	L.SetMetatable(proxy, mt)
	return proxy, mt
}

// readOnlyMark marks the metatables of readOnly's tables, for isReadOnly.
// Scripts never see those metatables (their __metatable hides them).
const readOnlyMark = "__shale_readonly"

// isReadOnly reports whether t is one of readOnly's tables.
func isReadOnly(t *lua.LTable) bool {
	mt, ok := t.Metatable.(*lua.LTable)
	return ok && mt.RawGetString(readOnlyMark) == lua.LTrue
}

// guardRawWrites closes the ways around readOnly's __newindex, before
// the globals are copied for scripts: rawset, setmetatable and
// table.insert, which write raw, refuse a read-only table, as they do in
// Redis (they let a script change _G or a library for every script after
// it on this state; table.remove and table.sort write only the array
// part, which a read-only table never gets); and the chunks of
// loadstring and load run in the scripts' environment, not in the
// state's own globals, which are not read-only.
func (vm *luaVM) guardRawWrites() {
	L, g := vm.L, vm.L.G.Global
	wrap := func(t *lua.LTable, name string, fn func(orig lua.LGFunction) lua.LGFunction) {
		if orig, ok := t.RawGetString(name).(*lua.LFunction); ok && orig.IsG {
			t.RawSetString(name, L.NewFunction(fn(orig.GFunction)))
		}
	}
	refuseReadOnly := func(orig lua.LGFunction) lua.LGFunction {
		return func(L *lua.LState) int {
			if t, ok := L.Get(1).(*lua.LTable); ok && isReadOnly(t) {
				// Raised without a position, as Redis's C functions do.
				L.Error(lua.LString("Attempt to modify a readonly table"), 0)
			}
			return orig(L)
		}
	}
	wrap(g, "rawset", refuseReadOnly)
	wrap(g, "setmetatable", refuseReadOnly)
	if tbl, ok := g.RawGetString(lua.TabLibName).(*lua.LTable); ok {
		wrap(tbl, "insert", refuseReadOnly)
	}
	inSandbox := func(orig lua.LGFunction) lua.LGFunction {
		return func(L *lua.LState) int {
			n := orig(L)
			if fn, ok := L.Get(-n).(*lua.LFunction); ok && n > 0 {
				fn.Env = vm.env
			}
			return n
		}
	}
	wrap(g, "loadstring", inSandbox)
	wrap(g, "load", inSandbox)
}

// redisObject builds the redis table scripts call.
func (vm *luaVM) redisObject() *lua.LTable {
	L := vm.L
	t := L.NewTable()
	fns := map[string]lua.LGFunction{
		"call":  func(L *lua.LState) int { return vm.call(L, true) },
		"pcall": func(L *lua.LState) int { return vm.call(L, false) },
		// error_reply and status_reply take one string, and otherwise
		// return (not raise) Redis's error.
		"error_reply": func(L *lua.LState) int {
			text, ok := L.Get(1).(lua.LString)
			if L.GetTop() != 1 || !ok {
				L.Push(errorTable(L, errLuaReplyArgs))
				return 1
			}
			msg := string(text)
			if !strings.HasPrefix(msg, "-") {
				msg = "-" + msg
			}
			L.Push(errorTable(L, msg))
			return 1
		},
		"status_reply": func(L *lua.LState) int {
			text, ok := L.Get(1).(lua.LString)
			if L.GetTop() != 1 || !ok {
				L.Push(errorTable(L, errLuaReplyArgs))
				return 1
			}
			r := L.NewTable()
			r.RawSetString("ok", text)
			L.Push(r)
			return 1
		},
		"sha1hex": func(L *lua.LState) int {
			if L.GetTop() != 1 {
				vm.raise(L, "wrong number of arguments")
			}
			// Anything but a string or a number hashes as "", as
			// lua_tolstring's NULL does in Redis.
			L.Push(lua.LString(sha1Hex(L.ToString(1))))
			return 1
		},
		// breakpoint and debug serve Redis's script debugger, which Shale
		// lacks; outside a debugging session they do nothing there too.
		"breakpoint": func(L *lua.LState) int {
			L.Push(lua.LFalse)
			return 1
		},
		"debug": func(L *lua.LState) int { return 0 },
		"log": func(L *lua.LState) int {
			if L.GetTop() < 2 {
				vm.raise(L, "redis.log() requires two arguments or more.")
			}
			f, isNum := luaNumber(L.Get(1))
			if !isNum {
				vm.raise(L, "First argument must be a number (log level).")
			}
			level := int(f) // Redis casts it
			if level < 0 || level > 3 {
				vm.raise(L, "Invalid debug level.")
			}
			var parts []string
			for i := 2; i <= L.GetTop(); i++ {
				parts = append(parts, L.ToStringMeta(L.Get(i)).String())
			}
			if vm.run != nil {
				vm.run.log(level, strings.Join(parts, " "))
			}
			return 0
		},
		"setresp": func(L *lua.LState) int {
			v := L.CheckInt(1)
			if v != 2 && v != 3 {
				vm.raise(L, "RESP version must be 2 or 3.")
			}
			if vm.run != nil {
				vm.run.resp3 = v == 3
			}
			return 0
		},
		// Shale has no replication yet: every write is propagated (to the
		// WAL) as the script's own effects, which is what these select.
		"replicate_commands": func(L *lua.LState) int {
			L.Push(lua.LTrue)
			return 1
		},
		"set_repl": func(L *lua.LState) int {
			if n := L.CheckInt(1); n < 0 || n > 3 {
				vm.raise(L, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.")
			}
			return 0
		},
	}
	for name, fn := range fns {
		t.RawSetString(name, L.NewFunction(fn))
	}
	for name, v := range map[string]lua.LValue{
		"REDIS_VERSION": lua.LString(luaRedisVersion), "REDIS_VERSION_NUM": lua.LNumber(luaRedisVersionNum),
		"LOG_DEBUG": lua.LNumber(0), "LOG_VERBOSE": lua.LNumber(1), "LOG_NOTICE": lua.LNumber(2), "LOG_WARNING": lua.LNumber(3),
		"REPL_NONE": lua.LNumber(0), "REPL_AOF": lua.LNumber(1), "REPL_SLAVE": lua.LNumber(2), "REPL_REPLICA": lua.LNumber(2), "REPL_ALL": lua.LNumber(3),
	} {
		t.RawSetString(name, v)
	}
	return t
}

// errLuaReplyArgs is what redis.error_reply and redis.status_reply
// return when not given one string.
const errLuaReplyArgs = "-ERR wrong number or type of arguments"

// luaNumber is v as lua_isnumber and lua_tonumber see it: a number, or a
// string that reads as one (spaces around, hexadecimal).
func luaNumber(v lua.LValue) (float64, bool) {
	switch x := v.(type) {
	case lua.LNumber:
		return float64(x), true
	case lua.LString:
		s := strings.TrimSpace(string(x))
		if n, err := strconv.ParseInt(s, 0, 64); err == nil {
			return float64(n), true
		}
		f, err := strconv.ParseFloat(s, 64)
		return f, err == nil
	}
	return 0, false
}

// call is redis.call (raise set) and redis.pcall: it runs a command in the
// script's run and returns its reply as a Lua value; an error reply is
// raised by call and returned as an {err=...} table by pcall.
func (vm *luaVM) call(L *lua.LState, raise bool) int {
	n := L.GetTop()
	if n == 0 {
		vm.raise(L, "Please specify at least one argument for this redis lib call")
	}
	args := make([][]byte, n)
	for i := 1; i <= n; i++ {
		switch v := L.Get(i).(type) {
		case lua.LString:
			args[i-1] = []byte(v)
		case lua.LNumber:
			args[i-1] = luaNumberArg(float64(v))
		default:
			vm.fail(L, raise, "ERR Lua redis lib command arguments must be strings or integers")
			return 1
		}
	}
	reply, errText := vm.run.command(args)
	if errText != "" {
		vm.fail(L, raise, errText)
		return 1
	}
	L.Push(respToLua(L, reply))
	return 1
}

// luaNumberArg is Redis's text for a number argument of redis.call:
// %.17g as glibc prints it, whose infinities and NaNs are inf, -inf, nan
// and -nan (by the sign bit: 0/0 makes -nan on x86-64), where Go's are
// +Inf, -Inf and NaN.
func luaNumberArg(f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return []byte("inf")
	case math.IsInf(f, -1):
		return []byte("-inf")
	case math.IsNaN(f) && math.Signbit(f):
		return []byte("-nan")
	case math.IsNaN(f):
		return []byte("nan")
	}
	return strconv.AppendFloat(nil, f, 'g', 17, 64)
}

// fail raises text, a command's error reply, as a redis.call error, or
// pushes it as pcall's result.
func (vm *luaVM) fail(L *lua.LState, raise bool, text string) {
	t := errorTable(L, "-"+text)
	if raise {
		vm.raise(L, "-"+text)
	}
	t.RawSetString("ignore_error_stats_update", lua.LTrue)
	L.Push(t)
}

// raise raises an error of the redis object: as in Redis, the script sees
// its text (with its code, ERR by default) without a position, and an
// uncaught one ends the script with that text and the line of the call.
func (vm *luaVM) raise(L *lua.LState, text string) {
	msg := errorTable(L, text).RawGetString("err").String()
	if vm.run != nil {
		vm.run.raised = msg
	}
	L.Error(lua.LString(msg), 0)
}

// errorTable is Redis's {err=...} table for an error text: "-CODE msg"
// keeps its code, anything else gets ERR (luaPushErrorBuff).
func errorTable(L *lua.LState, text string) *lua.LTable {
	code, msg := "ERR", text
	if strings.HasPrefix(text, "-") {
		if c, m, ok := strings.Cut(text[1:], " "); ok {
			code, msg = c, m
		} else {
			msg = text[1:]
		}
	}
	t := L.NewTable()
	t.RawSetString("err", lua.LString(code+" "+strings.TrimRight(msg, "\r\n")))
	return t
}

func sha1Hex(s string) string {
	sum := sha1.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

// respToLua converts one reply to a Lua value, as Redis does: an integer
// to a number, a bulk string to a string, a RESP2 nil bulk or array to
// false, an array to a table, a status to {ok=...} and an error to
// {err=...}; and, after redis.setresp(3), a null to nil, a boolean to a
// boolean, a map to {map={k=v...}}, a set to {set={m=true...}}, a double to
// {double=n} and a verbatim string to {verbatim_string={format=, string=}}.
func respToLua(L *lua.LState, b []byte) lua.LValue {
	v, _ := parseRESP(L, b)
	return v
}

// parseRESP converts the reply at the start of b and returns the rest.
// The replies are the server's own, so they are well formed.
func parseRESP(L *lua.LState, b []byte) (lua.LValue, []byte) {
	if len(b) == 0 {
		return lua.LFalse, nil
	}
	end := bytes.Index(b, []byte("\r\n"))
	line, rest := string(b[1:end]), b[end+2:]
	switch b[0] {
	case '+':
		t := L.NewTable()
		t.RawSetString("ok", lua.LString(line))
		return t, rest
	case '-':
		return errorTable(L, "-"+line), rest
	case ':':
		n, _ := strconv.ParseInt(line, 10, 64)
		return lua.LNumber(n), rest
	case '$':
		n, _ := strconv.Atoi(line)
		if n < 0 {
			return lua.LFalse, rest
		}
		return lua.LString(rest[:n]), rest[n+2:]
	case '*':
		n, _ := strconv.Atoi(line)
		if n < 0 {
			return lua.LFalse, rest
		}
		t := L.CreateTable(n, 0)
		for i := 1; i <= n; i++ {
			var v lua.LValue
			v, rest = parseRESP(L, rest)
			t.RawSetInt(i, v)
		}
		return t, rest
	case '_':
		return lua.LNil, rest
	case '#':
		return lua.LBool(line == "t"), rest
	case ',':
		f, _ := strconv.ParseFloat(line, 64) // inf, -inf and nan parse too
		return wrapLua(L, "double", lua.LNumber(f)), rest
	case '=':
		n, _ := strconv.Atoi(line)
		v := L.NewTable()
		v.RawSetString("format", lua.LString(rest[:3]))
		v.RawSetString("string", lua.LString(rest[4:n]))
		return wrapLua(L, "verbatim_string", v), rest[n+2:]
	case '%', '~':
		n, _ := strconv.Atoi(line)
		inner := L.CreateTable(0, n)
		for range n {
			var k, v lua.LValue = nil, lua.LTrue
			k, rest = parseRESP(L, rest)
			if b[0] == '%' {
				v, rest = parseRESP(L, rest)
			}
			if k != lua.LNil {
				inner.RawSet(k, v)
			}
		}
		if b[0] == '%' {
			return wrapLua(L, "map", inner), rest
		}
		return wrapLua(L, "set", inner), rest
	}
	panic(fmt.Sprintf("server: a reply of type %q in a script", b[0]))
}

// wrapLua is {field=v}, the table Redis makes of a RESP3 reply Lua has
// no type for.
func wrapLua(L *lua.LState, field string, v lua.LValue) *lua.LTable {
	t := L.CreateTable(0, 1)
	t.RawSetString(field, v)
	return t
}

// replyLua writes a script's result as Redis converts it, in the caller's
// protocol (r): a string as a bulk, a number as an integer (truncated),
// nil as a null, {err=...} as an error, {ok=...} as a status,
// {double=n}, {big_number=s}, {verbatim_string={format=, string=}},
// {map={...}} and {set={...}} as their RESP3 types (RESP2 callers get them
// as Reply encodes them), and any other table as an array, up to its first
// nil. A boolean follows the script's own protocol (resp3: it called
// redis.setresp(3)): a RESP3 boolean after setresp(3), else true as 1 and
// false as a null.
func replyLua(r Reply, v lua.LValue, resp3 bool, depth int) {
	switch x := v.(type) {
	case lua.LString:
		r.BulkString(string(x))
	case lua.LNumber:
		r.Int(luaInteger(float64(x)))
	case lua.LBool:
		switch {
		case resp3:
			r.Bool(bool(x))
		case bool(x):
			r.Int(1)
		default:
			r.Null()
		}
	case *lua.LTable:
		if depth > maxReplyDepth {
			r.Error("ERR reached lua stack limit")
			return
		}
		replyLuaTable(r, x, resp3, depth)
	default:
		r.Null()
	}
}

// replyLuaTable is replyLua of a table, its fields tried in Redis's order.
func replyLuaTable(r Reply, x *lua.LTable, resp3 bool, depth int) {
	if e, ok := x.RawGetString("err").(lua.LString); ok {
		r.Error(sanitize(string(e)))
		return
	}
	if s, ok := x.RawGetString("ok").(lua.LString); ok {
		r.Status(sanitize(string(s)))
		return
	}
	if d, ok := x.RawGetString("double").(lua.LNumber); ok {
		r.Double(float64(d))
		return
	}
	if s, ok := x.RawGetString("big_number").(lua.LString); ok {
		r.BigNumber(strings.NewReplacer("\r", " ", "\n", " ").Replace(string(s)))
		return
	}
	if vt, ok := x.RawGetString("verbatim_string").(*lua.LTable); ok {
		format, okf := vt.RawGetString("format").(lua.LString)
		s, oks := vt.RawGetString("string").(lua.LString)
		if okf && oks {
			r.VerbatimFormat(string(format), string(s))
			return
		}
	}
	if m, ok := x.RawGetString("map").(*lua.LTable); ok {
		var kv []lua.LValue
		m.ForEach(func(k, v lua.LValue) { kv = append(kv, k, v) })
		r.Map(len(kv) / 2)
		for _, e := range kv {
			replyLua(r, e, resp3, depth+1)
		}
		return
	}
	if set, ok := x.RawGetString("set").(*lua.LTable); ok {
		var members []lua.LValue
		set.ForEach(func(k, _ lua.LValue) { members = append(members, k) })
		r.Set(len(members))
		for _, m := range members {
			replyLua(r, m, resp3, depth+1)
		}
		return
	}
	n := 0
	for x.RawGetInt(n+1) != lua.LNil {
		n++
	}
	r.Array(n)
	for i := 1; i <= n; i++ {
		replyLua(r, x.RawGetInt(i), resp3, depth+1)
	}
}

// maxReplyDepth bounds the nesting of a script's reply, as Lua's C stack
// bounds Redis's conversion.
const maxReplyDepth = 200

// luaInteger is Redis's conversion of a Lua number to an integer reply: a
// cast to long long, which truncates.
func luaInteger(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return math.MinInt64
	case f >= math.MaxInt64:
		return math.MinInt64 // as the cast does on x86-64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}
