package lualib

import (
	"fmt"
	"maps"
	"slices"

	lua "github.com/yuin/gopher-lua"
)

// Open loads cjson, cmsgpack, struct and bit into L's globals, as Redis
// 7.0 does.
func Open(L *lua.LState) {
	L.SetGlobal("cjson", newCJSON(L, newJSONNull(L)))
	L.SetGlobal("cmsgpack", newCMsgpack(L))
	L.SetGlobal("struct", newStruct(L))
	L.SetGlobal("bit", newBit(L))
}

// newLib builds a library table from its functions, inserted in name
// order so that pairs() over a library is the same in every state.
func newLib(L *lua.LState, funcs map[string]lua.LGFunction) *lua.LTable {
	t := L.CreateTable(0, len(funcs))
	for _, name := range slices.Sorted(maps.Keys(funcs)) {
		t.RawSetString(name, L.NewFunction(funcs[name]))
	}
	return t
}

// luaiMaxCStack is Lua 5.1's LUAI_MAXCSTACK: lua_checkstack refuses to
// let a C function hold more than this many stack slots. The libraries
// that grow the stack with their input (struct.unpack, cmsgpack.unpack)
// fail at this bound, with luaL_checkstack's message.
const luaiMaxCStack = 8000

// raise is luaL_error: the message gets the position of the function
// that called the library function (luaL_where(L, 1)), and none when that
// caller is not Lua code, e.g. pcall(cjson.decode, s).
func raise(L *lua.LState, format string, a ...any) {
	msg := format
	if len(a) > 0 {
		msg = fmt.Sprintf(format, a...)
	}
	L.Error(lua.LString(where(L)+msg), 0)
}

// raiseHere is an error the Lua core raises inside a C function
// (luaG_runerror, e.g. "table index is nil"): it gets no position.
func raiseHere(L *lua.LState, msg string) {
	L.Error(lua.LString(msg), 0)
}

// where is luaL_where(L, 1): "source:line: " of the caller if it is a Lua
// function, "" otherwise. gopher-lua's own level-1 errors skip Go frames
// to the nearest Lua one, which C Lua does not.
func where(L *lua.LState) string {
	dbg, ok := L.GetStack(1)
	if !ok {
		return ""
	}
	if _, err := L.GetInfo("Sl", dbg, lua.LNil); err != nil || dbg.CurrentLine <= 0 {
		return ""
	}
	return fmt.Sprintf("%s:%d: ", dbg.Source, dbg.CurrentLine)
}

// checkStack is luaL_checkstack for a function that holds used slots.
func checkStack(L *lua.LState, used, space int, msg string) {
	if used+space > luaiMaxCStack {
		raise(L, "stack overflow (%s)", msg)
	}
}

// argError is luaL_argerror: the name is the one the calling Lua code
// used for the function (the field name in "struct.pack(...)"), "?" when
// a C function such as pcall called it. gopher-lua names those cases
// "(anonymous)", "main chunk" or "corountine" [sic].
func argError(L *lua.LState, n int, msg string) {
	name := "?"
	if dbg, ok := L.GetStack(0); ok {
		if _, err := L.GetInfo("n", dbg, lua.LNil); err == nil {
			switch dbg.Name {
			case "", "(anonymous)", "main chunk", "corountine":
			default:
				name = dbg.Name
			}
		}
	}
	raise(L, "bad argument #%d to '%s' (%s)", n, name, msg)
}

// typeError is luaL_typerror.
func typeError(L *lua.LState, n int, want string) {
	argError(L, n, want+" expected, got "+typeName(L, n))
}

// typeName is luaL_typename: "no value" past the last argument.
func typeName(L *lua.LState, n int) string {
	if n > L.GetTop() {
		return "no value"
	}
	return luaTypeName(L.Get(n))
}

// luaTypeName is lua_typename of a value's type.
func luaTypeName(v lua.LValue) string {
	return v.Type().String()
}

// toNumber is lua_tonumber: numbers, and strings Lua can convert.
func toNumber(v lua.LValue) (float64, bool) {
	switch v := v.(type) {
	case lua.LNumber:
		return float64(v), true
	case lua.LString:
		return str2number(string(v))
	}
	return 0, false
}

// checkNumber is luaL_checknumber.
func checkNumber(L *lua.LState, n int) float64 {
	d, ok := toNumber(L.Get(n))
	if !ok {
		typeError(L, n, "number")
	}
	return d
}

// checkInteger is luaL_checkinteger: lua_Integer is ptrdiff_t, and the
// conversion truncates (lua_number2integer is a plain cast).
func checkInteger(L *lua.LState, n int) int64 {
	return toInt64(checkNumber(L, n))
}

// optInteger is luaL_optinteger: def for a missing or nil argument.
func optInteger(L *lua.LState, n int, def int64) int64 {
	if L.Get(n) == lua.LNil {
		return def
	}
	return checkInteger(L, n)
}

// checkLString is luaL_checklstring: strings, and numbers converted with
// "%.14g".
func checkLString(L *lua.LState, n int) string {
	switch v := L.Get(n).(type) {
	case lua.LString:
		return string(v)
	case lua.LNumber:
		return numberToString(float64(v))
	}
	typeError(L, n, "string")
	return ""
}

// cString is what C code that walks a Lua string as a C string sees: the
// bytes up to the first NUL.
func cString(s string) string {
	for i := range len(s) {
		if s[i] == 0 {
			return s[:i]
		}
	}
	return s
}
