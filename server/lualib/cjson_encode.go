package lualib

import (
	"math"

	lua "github.com/yuin/gopher-lua"
)

// jsonEscapes is lua-cjson 2.1.0's char2escape: control characters,
// DEL, '"', '\\' and '/' are escaped; every other byte, UTF-8 or not,
// is copied as is.
var jsonEscapes = func() [256]string {
	var t [256]string
	for c := range 32 {
		const hex = "0123456789abcdef"
		t[c] = `\u00` + string(hex[c>>4]) + string(hex[c&15])
	}
	t['\b'], t['\t'], t['\n'], t['\f'], t['\r'] = `\b`, `\t`, `\n`, `\f`, `\r`
	t['"'], t['\\'], t['/'], t[0x7f] = `\"`, `\\`, `\/`, `\u007f`
	return t
}()

type jsonEncoder struct {
	L   *lua.LState
	cfg *jsonConfig
	buf []byte
}

// cjson.encode(value)
func (cfg *jsonConfig) encode(L *lua.LState) int {
	if L.GetTop() != 1 {
		argError(L, 1, "expected 1 argument")
	}
	e := jsonEncoder{L: L, cfg: cfg}
	// The argument is the one stack slot json_encode holds to start with.
	e.value(L.Get(1), 0, 1)
	L.Push(lua.LString(e.buf))
	return 1
}

// fail is json_encode_exception.
func (e *jsonEncoder) fail(v lua.LValue, reason string) {
	raise(e.L, "Cannot serialise %s: %s", luaTypeName(v), reason)
}

// grow refuses output past maxJSONBytes.
func (e *jsonEncoder) grow() {
	if len(e.buf) > maxJSONBytes {
		raise(e.L, "not enough memory")
	}
}

// value is json_append_data. depth counts the tables around v; slots
// counts the Lua stack slots the C encoder would hold with v on top, for
// its lua_checkstack(l, 3) before each table.
func (e *jsonEncoder) value(v lua.LValue, depth, slots int) {
	switch v := v.(type) {
	case lua.LString:
		e.appendString(string(v))
	case lua.LNumber:
		e.appendNumber(v)
	case lua.LBool:
		if v {
			e.buf = append(e.buf, "true"...)
		} else {
			e.buf = append(e.buf, "false"...)
		}
	case *lua.LNilType:
		e.buf = append(e.buf, "null"...)
	case *lua.LTable:
		depth++
		if depth > e.cfg.encodeMaxDepth || slots+3 > luaiMaxCStack {
			raise(e.L, "Cannot serialise, excessive nesting (%d)", depth)
		}
		if n := e.arrayLength(v); n > 0 {
			e.appendArray(v, n, depth, slots)
		} else {
			e.appendObject(v, depth, slots)
		}
	default:
		if isJSONNull(v) {
			e.buf = append(e.buf, "null"...)
			return
		}
		e.fail(v, "type not supported")
	}
}

// arrayLength is lua_array_length: the largest key if every key is an
// integer >= 1, else -1 (an object). Too sparse an array is an object or
// an error, as configured. max is a C int: a key past 2^31 turns it into
// INT_MIN, as the x86 conversion does.
func (e *jsonEncoder) arrayLength(t *lua.LTable) int {
	var maxKey, items int32
	for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
		n, ok := k.(lua.LNumber)
		d := float64(n)
		if !ok || d == 0 || math.Floor(d) != d || d < 1 {
			return -1
		}
		if d > float64(maxKey) {
			maxKey = toInt32(d)
		}
		items++
	}
	ratio := int32(e.cfg.sparseRatio)
	if ratio > 0 && maxKey > items*ratio && maxKey > int32(e.cfg.sparseSafe) {
		if e.cfg.sparseConvert == 0 {
			e.fail(t, "excessively sparse array")
		}
		return -1
	}
	return int(maxKey)
}

// appendArray writes t[1..n] (holes as null), with rawgeti.
func (e *jsonEncoder) appendArray(t *lua.LTable, n, depth, slots int) {
	e.buf = append(e.buf, '[')
	for i := 1; i <= n; i++ {
		if i > 1 {
			e.buf = append(e.buf, ',')
		}
		e.value(t.RawGetInt(i), depth, slots+1)
		e.grow()
	}
	e.buf = append(e.buf, ']')
}

// appendObject writes t's pairs in iteration order; keys must be numbers
// (written as quoted numbers) or strings.
func (e *jsonEncoder) appendObject(t *lua.LTable, depth, slots int) {
	e.buf = append(e.buf, '{')
	first := true
	for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
		if !first {
			e.buf = append(e.buf, ',')
		}
		first = false
		switch k := k.(type) {
		case lua.LNumber:
			e.buf = append(e.buf, '"')
			e.appendNumber(k)
			e.buf = append(e.buf, '"', ':')
		case lua.LString:
			e.appendString(string(k))
			e.buf = append(e.buf, ':')
		default:
			e.fail(k, "table key must be a number or string")
		}
		e.value(v, depth, slots+2)
		e.grow()
	}
	e.buf = append(e.buf, '}')
}

// appendNumber is json_append_number: "%.<precision>g", with NaN and
// Inf refused, written as C prints them, or written as null.
func (e *jsonEncoder) appendNumber(n lua.LNumber) {
	d := float64(n)
	if math.IsInf(d, 0) || d != d {
		switch e.cfg.encodeInvalid {
		case 0:
			e.fail(n, "must not be NaN or Inf")
		case 2:
			e.buf = append(e.buf, "null"...)
			return
		}
	}
	if d != d {
		// Redis's cjson prints every NaN as "nan", whatever its sign bit
		// (printf would print 0/0, which is negative on x86, as "-nan").
		e.buf = append(e.buf, "nan"...)
		return
	}
	e.buf = append(e.buf, formatG(d, e.cfg.precision)...)
}

func (e *jsonEncoder) appendString(s string) {
	e.buf = append(e.buf, '"')
	for i := range len(s) {
		if esc := jsonEscapes[s[i]]; esc != "" {
			e.buf = append(e.buf, esc...)
		} else {
			e.buf = append(e.buf, s[i])
		}
	}
	e.buf = append(e.buf, '"')
}
