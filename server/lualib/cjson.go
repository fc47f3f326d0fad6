package lualib

import (
	"math"
	"strconv"

	lua "github.com/yuin/gopher-lua"
)

// cjson is lua-cjson 2.1.0 as Redis 7.0 ships it: encode, decode, the
// configuration functions (each instance made by cjson.new has its own
// settings) and the null sentinel.

// jsonNull marks the userdata that stands for JSON null: lua-cjson uses
// the NULL lightuserdata, which gopher-lua does not have.
type jsonNull struct{}

// newJSONNull makes the cjson.null sentinel. Every instance from one Open
// shares it, as every NULL lightuserdata is the same value in C Lua.
func newJSONNull(L *lua.LState) *lua.LUserData {
	ud := L.NewUserData()
	ud.Value = jsonNull{}
	mt := L.CreateTable(0, 2)
	mt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString("userdata: (nil)"))
		return 1
	}))
	// Scripts must not reach a table shared by every script that runs on
	// this state.
	mt.RawSetString("__metatable", lua.LFalse)
	ud.Metatable = mt
	return ud
}

func isJSONNull(v lua.LValue) bool {
	ud, ok := v.(*lua.LUserData)
	if !ok {
		return false
	}
	_, ok = ud.Value.(jsonNull)
	return ok
}

// jsonConfig is json_config_t's settings, with lua-cjson 2.1.0's
// defaults set by newJSONConfig.
type jsonConfig struct {
	sparseConvert  int // encode excessively sparse arrays as objects (1) or fail (0)
	sparseRatio    int // 0: never sparse
	sparseSafe     int // arrays up to this index are never sparse
	encodeMaxDepth int
	decodeMaxDepth int
	encodeInvalid  int // NaN and Inf: 0 fail, 1 "nan"/"inf", 2 "null"
	decodeInvalid  int // 1: accept NaN, Infinity, hexadecimal, leading zeros, '+'
	keepBuffer     int // no effect on results; kept for the option's reply
	precision      int // significant digits of encoded numbers, 1 to 14

	null *lua.LUserData // what decode gives for null: cjson.null
}

func newJSONConfig() *jsonConfig {
	return &jsonConfig{
		sparseRatio:    2,
		sparseSafe:     10,
		encodeMaxDepth: 1000,
		decodeMaxDepth: 1000,
		decodeInvalid:  1,
		keepBuffer:     1,
		precision:      14,
	}
}

// maxJSONBytes bounds encode's output. lua-cjson has no bound: a sparse
// array allowed by encode_sparse_array, or a table reached many times,
// grows its buffer until Redis's allocator aborts. Past this size the
// encoder fails with Lua's out-of-memory message instead.
const maxJSONBytes = 512 << 20

// newCJSON is lua_cjson_new: a module table with a fresh configuration.
func newCJSON(L *lua.LState, null *lua.LUserData) *lua.LTable {
	cfg := newJSONConfig()
	cfg.null = null
	t := newLib(L, map[string]lua.LGFunction{
		"encode":                  cfg.encode,
		"decode":                  cfg.decode,
		"encode_sparse_array":     cfg.optSparseArray,
		"encode_max_depth":        intOption(&cfg.encodeMaxDepth, 1, math.MaxInt32),
		"decode_max_depth":        intOption(&cfg.decodeMaxDepth, 1, math.MaxInt32),
		"encode_number_precision": intOption(&cfg.precision, 1, 14),
		"encode_keep_buffer":      enumOption(&cfg.keepBuffer, nil),
		"encode_invalid_numbers":  enumOption(&cfg.encodeInvalid, []string{"off", "on", "null"}),
		"decode_invalid_numbers":  enumOption(&cfg.decodeInvalid, nil),
		"new": func(L *lua.LState) int {
			L.Push(newCJSON(L, null))
			return 1
		},
	})
	t.RawSetString("null", null)
	t.RawSetString("_NAME", lua.LString("cjson"))
	t.RawSetString("_VERSION", lua.LString("2.1.0"))
	return t
}

// ===== configuration =====

// jsonArgInit is json_arg_init: at most n arguments, padded with nils so
// that the values the options push land after them.
func jsonArgInit(L *lua.LState, n int) {
	if L.GetTop() > n {
		argError(L, n+1, "found too many arguments")
	}
	L.SetTop(n)
}

// intOption is a configuration function over json_integer_option.
func intOption(setting *int, lo, hi int) lua.LGFunction {
	return func(L *lua.LState) int {
		jsonArgInit(L, 1)
		jsonIntegerOption(L, 1, setting, lo, hi)
		return 1
	}
}

// jsonIntegerOption is json_integer_option: its range check always names
// argument 1, whichever argument it checks.
func jsonIntegerOption(L *lua.LState, idx int, setting *int, lo, hi int) {
	if L.Get(idx) != lua.LNil {
		v := int(int32(checkInteger(L, idx))) // lua_Integer into an int
		if v < lo || v > hi {
			argError(L, 1, "expected integer between "+strconv.Itoa(lo)+" and "+strconv.Itoa(hi))
		}
		*setting = v
	}
	L.Push(lua.LNumber(*setting))
}

// enumOption is a configuration function over json_enum_option; nil
// options mean {"off", "on"}.
func enumOption(setting *int, options []string) lua.LGFunction {
	return func(L *lua.LState) int {
		jsonArgInit(L, 1)
		jsonEnumOption(L, 1, setting, options)
		return 1
	}
}

// jsonEnumOption is json_enum_option with bool_true 1: a boolean sets 0
// or 1, a string sets its index in options; the reply is a boolean for 0
// and 1, the option's name otherwise.
func jsonEnumOption(L *lua.LState, idx int, setting *int, options []string) {
	if options == nil {
		options = []string{"off", "on"}
	}
	switch v := L.Get(idx).(type) {
	case *lua.LNilType:
	case lua.LBool:
		*setting = 0
		if v {
			*setting = 1
		}
	default:
		*setting = checkOption(L, idx, options)
	}
	if *setting == 0 || *setting == 1 {
		L.Push(lua.LBool(*setting == 1))
	} else {
		L.Push(lua.LString(options[*setting]))
	}
}

// checkOption is luaL_checkoption with no default.
func checkOption(L *lua.LState, idx int, options []string) int {
	name := cString(checkLString(L, idx))
	for i, o := range options {
		if o == name {
			return i
		}
	}
	argError(L, idx, "invalid option '"+name+"'")
	return 0
}

// cjson.encode_sparse_array([convert [, ratio [, safe]]])
func (cfg *jsonConfig) optSparseArray(L *lua.LState) int {
	jsonArgInit(L, 3)
	jsonEnumOption(L, 1, &cfg.sparseConvert, nil)
	jsonIntegerOption(L, 2, &cfg.sparseRatio, 0, math.MaxInt32)
	jsonIntegerOption(L, 3, &cfg.sparseSafe, 0, math.MaxInt32)
	return 3
}
