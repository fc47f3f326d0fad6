package lualib

import (
	"encoding/binary"
	"math"

	lua "github.com/yuin/gopher-lua"
)

// cmsgpack is lua-cmsgpack 0.4.0 as Redis ships it: pack(...) encodes each
// argument and returns the concatenation; unpack, unpack_one and
// unpack_limit decode a stream of values.

// msgpackMaxNesting is LUACMSGPACK_MAX_NESTING: tables nested deeper are
// encoded as nil, which is how the C survives circular references.
const msgpackMaxNesting = 16

// maxMsgpackBytes bounds pack's output, as maxJSONBytes bounds encode's:
// a table reached through many paths multiplies at each of the 16 levels.
const maxMsgpackBytes = 512 << 20

func newCMsgpack(L *lua.LState) *lua.LTable {
	t := newLib(L, map[string]lua.LGFunction{
		"pack":         msgpackPack,
		"unpack":       msgpackUnpack,
		"unpack_one":   msgpackUnpackOne,
		"unpack_limit": msgpackUnpackLimit,
	})
	t.RawSetString("_NAME", lua.LString("cmsgpack"))
	t.RawSetString("_VERSION", lua.LString("lua-cmsgpack 0.4.0"))
	t.RawSetString("_COPYRIGHT", lua.LString("Copyright (C) 2012, Salvatore Sanfilippo"))
	t.RawSetString("_DESCRIPTION", lua.LString("MessagePack C implementation for Lua"))
	return t
}

// ===== encoding =====

// cmsgpack.pack(v1, v2, ...)
func msgpackPack(L *lua.LState) int {
	n := L.GetTop()
	if n == 0 {
		argError(L, 0, "MessagePack pack needs input.")
	}
	// lua_checkstack(L, nargs) with the nargs arguments already held.
	if 2*n > luaiMaxCStack {
		argError(L, 0, "Too many arguments for MessagePack pack.")
	}
	e := msgpackEncoder{L: L}
	for i := 1; i <= n; i++ {
		e.value(L.Get(i), 0)
	}
	L.Push(lua.LString(e.buf))
	return 1
}

type msgpackEncoder struct {
	L   *lua.LState
	buf []byte
}

// value is mp_encode_lua_type: anything but strings, booleans, numbers
// and tables (functions, userdata, cjson.null) is nil.
func (e *msgpackEncoder) value(v lua.LValue, level int) {
	if len(e.buf) > maxMsgpackBytes {
		raise(e.L, "not enough memory")
	}
	switch v := v.(type) {
	case lua.LString:
		e.bytes(string(v))
	case lua.LBool:
		if v {
			e.buf = append(e.buf, 0xc3)
		} else {
			e.buf = append(e.buf, 0xc2)
		}
	case lua.LNumber:
		e.number(float64(v))
	case *lua.LTable:
		if level == msgpackMaxNesting {
			e.buf = append(e.buf, 0xc0)
			return
		}
		if n, ok := msgpackArrayLen(v); ok {
			e.header(n, 0x90, 0xdc, 0xdd)
			for i := 1; i <= n; i++ {
				e.value(v.RawGetInt(i), level+1)
			}
			return
		}
		n := 0
		for k, _ := v.Next(lua.LNil); k != lua.LNil; k, _ = v.Next(k) {
			n++
		}
		e.header(n, 0x80, 0xde, 0xdf)
		for k, val := v.Next(lua.LNil); k != lua.LNil; k, val = v.Next(k) {
			e.value(k, level+1)
			e.value(val, level+1)
		}
	default:
		e.buf = append(e.buf, 0xc0)
	}
}

// msgpackArrayLen is table_is_an_array: true if the keys are exactly
// 1..n. Each key must be a number > 0 that a C int holds exactly.
func msgpackArrayLen(t *lua.LTable) (n int, ok bool) {
	maxKey, count := 0, 0
	for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
		num, isNum := k.(lua.LNumber)
		d := float64(num)
		if !isNum || d <= 0 || math.IsInf(d, 0) || float64(toInt32(d)) != d {
			return 0, false
		}
		maxKey = max(maxKey, int(d))
		count++
	}
	// No key repeats, so count keys with none above count are 1..count.
	// The C then takes lua_objlen, which is count for such a table;
	// gopher-lua's Len can differ (it only sees its array part).
	return count, maxKey == count
}

// number is mp_encode_lua_number: an integer if the number converts to
// int64 and back unchanged, else a float if the float holds it exactly,
// else a double.
func (e *msgpackEncoder) number(d float64) {
	if !math.IsInf(d, 0) && float64(toInt64(d)) == d {
		e.integer(toInt64(d))
		return
	}
	if f := float32(d); float64(f) == d {
		e.buf = binary.BigEndian.AppendUint32(append(e.buf, 0xca), math.Float32bits(f))
		return
	}
	e.buf = binary.BigEndian.AppendUint64(append(e.buf, 0xcb), math.Float64bits(d))
}

// integer is mp_encode_int: the smallest of fixnum, (u)int 8, 16, 32, 64.
func (e *msgpackEncoder) integer(n int64) {
	b := e.buf
	switch {
	case n >= 0 && n <= 127:
		b = append(b, byte(n))
	case n >= 0 && n <= 0xff:
		b = append(b, 0xcc, byte(n))
	case n >= 0 && n <= 0xffff:
		b = binary.BigEndian.AppendUint16(append(b, 0xcd), uint16(n))
	case n >= 0 && n <= 0xffffffff:
		b = binary.BigEndian.AppendUint32(append(b, 0xce), uint32(n))
	case n >= 0:
		b = binary.BigEndian.AppendUint64(append(b, 0xcf), uint64(n))
	case n >= -32:
		b = append(b, byte(n))
	case n >= -128:
		b = append(b, 0xd0, byte(n))
	case n >= -32768:
		b = binary.BigEndian.AppendUint16(append(b, 0xd1), uint16(n))
	case n >= -2147483648:
		b = binary.BigEndian.AppendUint32(append(b, 0xd2), uint32(n))
	default:
		b = binary.BigEndian.AppendUint64(append(b, 0xd3), uint64(n))
	}
	e.buf = b
}

// bytes is mp_encode_bytes: fixstr, str 8, str 16 or str 32.
func (e *msgpackEncoder) bytes(s string) {
	n := len(s)
	switch {
	case n < 32:
		e.buf = append(e.buf, 0xa0|byte(n))
	case n <= 0xff:
		e.buf = append(e.buf, 0xd9, byte(n))
	case n <= 0xffff:
		e.buf = binary.BigEndian.AppendUint16(append(e.buf, 0xda), uint16(n))
	default:
		e.buf = binary.BigEndian.AppendUint32(append(e.buf, 0xdb), uint32(n))
	}
	e.buf = append(e.buf, s...)
}

// header is mp_encode_array and mp_encode_map: fix, 16 or 32 bits.
func (e *msgpackEncoder) header(n int, fix, b16, b32 byte) {
	switch {
	case n <= 15:
		e.buf = append(e.buf, fix|byte(n))
	case n <= 0xffff:
		e.buf = binary.BigEndian.AppendUint16(append(e.buf, b16), uint16(n))
	default:
		e.buf = binary.BigEndian.AppendUint32(append(e.buf, b32), uint32(n))
	}
}

// ===== decoding =====

// msgpackStatus is mp_cur's err.
type msgpackStatus int

const (
	msgpackOK     msgpackStatus = iota
	msgpackEOF                  // MP_CUR_ERROR_EOF: not enough data
	msgpackBadFmt               // MP_CUR_ERROR_BADFMT: a byte no type starts with
)

type msgpackDecoder struct {
	L    *lua.LState
	data string
	pos  int
	err  msgpackStatus
}

func (d *msgpackDecoder) left() int { return len(d.data) - d.pos }

// need is mp_cur_need: false, with err set, if fewer than n bytes are left.
func (d *msgpackDecoder) need(n uint64) bool {
	if uint64(d.left()) < n {
		d.err = msgpackEOF
		return false
	}
	return true
}

func (d *msgpackDecoder) u8(i int) uint64 { return uint64(d.data[d.pos+i]) }
func (d *msgpackDecoder) u16() uint64     { return d.u8(1)<<8 | d.u8(2) }
func (d *msgpackDecoder) u32() uint64     { return d.u16()<<16 | d.u8(3)<<8 | d.u8(4) }
func (d *msgpackDecoder) u64() uint64 {
	return binary.BigEndian.Uint64([]byte(d.data[d.pos+1 : d.pos+9]))
}

// str reads a string of n bytes after a header of h bytes.
func (d *msgpackDecoder) str(h int, n uint64) lua.LValue {
	d.pos += h
	if !d.need(n) {
		return lua.LNil
	}
	s := d.data[d.pos : d.pos+int(n)]
	d.pos += int(n)
	return lua.LString(s)
}

// value is mp_decode_to_lua_type. slots is the C decoder's stack use
// before it pushes this value: each value checks one more slot, which
// bounds both the number of top-level values and the nesting.
func (d *msgpackDecoder) value(slots int) lua.LValue {
	if !d.need(1) {
		return lua.LNil
	}
	checkStack(d.L, slots, 1, "too many return values at once; use unpack_one or unpack_limit instead.")
	c := d.data[d.pos]
	switch c {
	case 0xcc:
		if !d.need(2) {
			return lua.LNil
		}
		v := d.u8(1)
		d.pos += 2
		return lua.LNumber(v)
	case 0xd0:
		if !d.need(2) {
			return lua.LNil
		}
		v := int8(d.u8(1))
		d.pos += 2
		return lua.LNumber(v)
	case 0xcd:
		if !d.need(3) {
			return lua.LNil
		}
		v := d.u16()
		d.pos += 3
		return lua.LNumber(v)
	case 0xd1:
		if !d.need(3) {
			return lua.LNil
		}
		v := int16(d.u16())
		d.pos += 3
		return lua.LNumber(v)
	case 0xce:
		if !d.need(5) {
			return lua.LNil
		}
		v := d.u32()
		d.pos += 5
		return lua.LNumber(v)
	case 0xd2:
		if !d.need(5) {
			return lua.LNil
		}
		v := int32(d.u32())
		d.pos += 5
		return lua.LNumber(v)
	case 0xcf:
		if !d.need(9) {
			return lua.LNil
		}
		// lua_pushunsigned is lua_pushinteger in Lua 5.1's build of the
		// library: values from 2^63 up come back negative.
		v := int64(d.u64())
		d.pos += 9
		return lua.LNumber(v)
	case 0xd3:
		if !d.need(9) {
			return lua.LNil
		}
		v := int64(d.u64())
		d.pos += 9
		return lua.LNumber(v)
	case 0xc0:
		d.pos++
		return lua.LNil
	case 0xc3, 0xc2:
		d.pos++
		return lua.LBool(c == 0xc3)
	case 0xca:
		if !d.need(5) {
			return lua.LNil
		}
		v := math.Float32frombits(uint32(d.u32()))
		d.pos += 5
		return lua.LNumber(v)
	case 0xcb:
		if !d.need(9) {
			return lua.LNil
		}
		v := math.Float64frombits(d.u64())
		d.pos += 9
		return lua.LNumber(v)
	case 0xd9:
		if !d.need(2) {
			return lua.LNil
		}
		return d.str(2, d.u8(1))
	case 0xda:
		if !d.need(3) {
			return lua.LNil
		}
		return d.str(3, d.u16())
	case 0xdb:
		if !d.need(5) {
			return lua.LNil
		}
		return d.str(5, d.u32())
	case 0xdc:
		if !d.need(3) {
			return lua.LNil
		}
		n := d.u16()
		d.pos += 3
		return d.array(n, slots)
	case 0xdd:
		if !d.need(5) {
			return lua.LNil
		}
		n := d.u32()
		d.pos += 5
		return d.array(n, slots)
	case 0xde:
		if !d.need(3) {
			return lua.LNil
		}
		n := d.u16()
		d.pos += 3
		return d.hash(n, slots)
	case 0xdf:
		if !d.need(5) {
			return lua.LNil
		}
		n := d.u32()
		d.pos += 5
		return d.hash(n, slots)
	}
	switch {
	case c&0x80 == 0: // positive fixnum
		d.pos++
		return lua.LNumber(c)
	case c&0xe0 == 0xe0: // negative fixnum
		d.pos++
		return lua.LNumber(int8(c))
	case c&0xe0 == 0xa0: // fixstr
		return d.str(1, uint64(c&0x1f))
	case c&0xf0 == 0x90: // fixarray
		d.pos++
		return d.array(uint64(c&0xf), slots)
	case c&0xf0 == 0x80: // fixmap
		d.pos++
		return d.hash(uint64(c&0xf), slots)
	}
	d.err = msgpackBadFmt
	return lua.LNil
}

// array is mp_decode_to_lua_array: it holds the table and an index. The
// count comes from the input; each element takes at least one byte, so
// running out of input ends the loop long before a large count does.
func (d *msgpackDecoder) array(n uint64, slots int) lua.LValue {
	t := d.L.CreateTable(0, 0) // not presized: n is the input's claim

	checkStack(d.L, slots+1, 1, "in function mp_decode_to_lua_array")
	for i := uint64(1); i <= n; i++ {
		v := d.value(slots + 2)
		if d.err != msgpackOK {
			return t
		}
		// Setting an absent index to nil does nothing in Lua; gopher-lua
		// would store a nil in its array part.
		if v != lua.LNil {
			t.RawSet(lua.LNumber(i), v)
		}
	}
	return t
}

// hash is mp_decode_to_lua_hash: it holds the table and a key.
func (d *msgpackDecoder) hash(n uint64, slots int) lua.LValue {
	t := d.L.CreateTable(0, 0)
	for range n {
		k := d.value(slots + 1)
		if d.err != msgpackOK {
			return t
		}
		v := d.value(slots + 2)
		if d.err != msgpackOK {
			return t
		}
		switch k := k.(type) {
		case *lua.LNilType:
			raiseHere(d.L, "table index is nil")
		case lua.LNumber:
			if k != k {
				raiseHere(d.L, "table index is NaN")
			}
		}
		t.RawSet(k, v)
	}
	return t
}

// cmsgpack.unpack(s): every value in s.
func msgpackUnpack(L *lua.LState) int {
	return msgpackUnpackFull(L, 0, 0)
}

// cmsgpack.unpack_one(s [, offset]): the next offset (-1 at the end),
// then one value.
func msgpackUnpackOne(L *lua.LState) int {
	offset := optInteger(L, 2, 0)
	keepFirst(L)
	return msgpackUnpackFull(L, 1, offset)
}

// cmsgpack.unpack_limit(s, limit [, offset]): the next offset, then up to
// limit values.
func msgpackUnpackLimit(L *lua.LState) int {
	limit := checkInteger(L, 2)
	offset := optInteger(L, 3, 0)
	keepFirst(L)
	return msgpackUnpackFull(L, limit, offset)
}

// keepFirst drops every argument but the first, without padding: called
// with none, the C still reports the string as "no value".
func keepFirst(L *lua.LState) {
	if L.GetTop() > 1 {
		L.SetTop(1)
	}
}

// msgpackUnpackFull is mp_unpack_full; limit and offset are lua_Integers,
// printed as C ints. A limit and offset of 0 both mean "everything,
// without the offset".
func msgpackUnpackFull(L *lua.LState, limit, offset int64) int {
	s := checkLString(L, 1)
	if offset < 0 || limit < 0 {
		// The C passes the length where it means the limit.
		raise(L, "Invalid request to unpack with offset of %d and limit of %d.", int32(offset), int32(len(s)))
	}
	if offset > int64(len(s)) {
		raise(L, "Start offset %d greater than input length %d.", int32(offset), int32(len(s)))
	}
	decodeAll := limit == 0 && offset == 0
	if decodeAll {
		limit = math.MaxInt32
	}
	d := msgpackDecoder{L: L, data: s, pos: int(offset)}
	base := L.GetTop()
	var results []lua.LValue
	for cnt := int64(0); d.left() > 0 && cnt < limit; cnt++ {
		v := d.value(base + len(results))
		switch d.err {
		case msgpackEOF:
			raise(L, "Missing bytes in input.")
		case msgpackBadFmt:
			raise(L, "Bad data format in input.")
		}
		results = append(results, v)
	}
	if !decodeAll {
		checkStack(L, base+len(results), 1, "in function mp_unpack_full")
		next := lua.LNumber(-1)
		if d.left() > 0 {
			next = lua.LNumber(d.pos)
		}
		L.Push(next)
	}
	for _, v := range results {
		L.Push(v)
	}
	if !decodeAll {
		return len(results) + 1
	}
	return len(results)
}
