package lualib

import (
	"encoding/binary"
	"math"

	lua "github.com/yuin/gopher-lua"
)

// struct is lua_struct.c as Redis ships it. Formats: '>' big endian,
// '<' little endian, '![n]' alignment, 'x' padding, 'b'/'B' char, 'h'/'H'
// short, 'l'/'L' long, 'T' size_t, 'i[n]'/'I[n]' integer of n bytes (4 by
// default, at most 32), 'c[n]' n chars (0: the whole string when packing,
// the previous result when unpacking), 's' zero-terminated string, 'f'
// float, 'd' double, ' ' ignored. Sizes and the default endianness are
// x86-64's: Redis is built there.

const (
	structMaxIntSize = 32 // MAXINTSIZE
	structMaxAlign   = 8  // MAXALIGN: the padding before a double in a struct
)

func newStruct(L *lua.LState) *lua.LTable {
	return newLib(L, map[string]lua.LGFunction{
		"pack":   structPack,
		"unpack": structUnpack,
		"size":   structSize,
	})
}

// structFormat walks a format string as the C code walks its char *: up to
// the first NUL.
type structFormat struct {
	s      string
	i      int
	big    bool // endianness; native (little) by default
	align  int  // h->align, 1 by default
	option byte // the option just read
}

func newStructFormat(L *lua.LState) *structFormat {
	return &structFormat{s: cString(checkLString(L, 1)), align: 1}
}

func (f *structFormat) more() bool { return f.i < len(f.s) }

// next reads one option and returns the size optsize gives it.
func (f *structFormat) next(L *lua.LState) int {
	f.option = f.s[f.i]
	f.i++
	switch f.option {
	case 'B', 'b', 'x':
		return 1
	case 'H', 'h':
		return 2
	case 'L', 'l', 'T', 'd':
		return 8
	case 'f':
		return 4
	case 'c':
		return f.num(L, 1)
	case 'i', 'I':
		sz := f.num(L, 4)
		if sz > structMaxIntSize {
			raise(L, "integral size %d is larger than limit of %d", sz, structMaxIntSize)
		}
		return sz
	}
	return 0 // the other options need no alignment
}

// num is getnum: a decimal number, refused before it overflows an int.
func (f *structFormat) num(L *lua.LState, def int) int {
	if !f.more() || !isDigit(f.s[f.i]) {
		return def
	}
	a := 0
	for f.more() && isDigit(f.s[f.i]) {
		d := int(f.s[f.i] - '0')
		if a > math.MaxInt32/10 || a*10 > math.MaxInt32-d {
			raise(L, "integral size overflow")
		}
		a = a*10 + d
		f.i++
	}
	return a
}

// toAlign is gettoalign: the padding an item of this size needs at pos.
// Sizes that are not powers of two give odd paddings, as in C.
func (f *structFormat) toAlign(pos uint64, size int) uint64 {
	if size == 0 || f.option == 'c' {
		return 0
	}
	s := uint64(min(size, f.align))
	return (s - (pos & (s - 1))) & (s - 1)
}

// control is controloptions: endianness, alignment and spaces; anything
// else is an invalid option.
func (f *structFormat) control(L *lua.LState) {
	switch f.option {
	case ' ':
	case '>':
		f.big = true
	case '<':
		f.big = false
	case '!':
		a := f.num(L, structMaxAlign)
		if a <= 0 || a&(a-1) != 0 {
			raise(L, "alignment %d is not a power of 2", a)
		}
		f.align = a
	default:
		argError(L, 1, "invalid format option '"+string([]byte{f.option})+"'")
	}
}

// byteOrder is what binary.BigEndian and binary.LittleEndian both are.
type byteOrder interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

func (f *structFormat) order() byteOrder {
	if f.big {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

// struct.pack(fmt, v1, v2, ...)
func structPack(L *lua.LState) int {
	f := newStructFormat(L)
	// The C pushes a nil to separate the arguments from its buffer, so a
	// missing argument right after the last one reads as nil.
	L.Push(lua.LNil)
	arg := 2
	var out []byte
	total := uint64(0)
	for f.more() {
		size := f.next(L)
		pad := f.toAlign(total, size)
		total += pad
		for range pad {
			out = append(out, 0)
		}
		switch f.option {
		case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I':
			out = appendStructInt(out, checkNumber(L, arg), size, f.big)
			arg++
		case 'x':
			out = append(out, 0)
		case 'f':
			out = f.order().AppendUint32(out, math.Float32bits(float32(checkNumber(L, arg))))
			arg++
		case 'd':
			out = f.order().AppendUint64(out, math.Float64bits(checkNumber(L, arg)))
			arg++
		case 'c', 's':
			s := checkLString(L, arg)
			arg++
			if size == 0 {
				size = len(s)
			}
			if len(s) < size {
				// The C checks after arg++: it names the next argument.
				argError(L, arg, "string too short")
			}
			out = append(out, s[:size]...)
			if f.option == 's' {
				out = append(out, 0)
				size++
			}
		default:
			f.control(L)
		}
		total += uint64(size)
	}
	L.Push(lua.LString(out))
	return 1
}

// appendStructInt is putinteger: the number as an unsigned long (through
// long when negative), written in size bytes; bytes past the eighth are
// zero, even for negative numbers.
func appendStructInt(out []byte, n float64, size int, big bool) []byte {
	var v uint64
	if n < 0 {
		v = uint64(toInt64(n))
	} else {
		v = toUint64(n)
	}
	start := len(out)
	for range size {
		out = append(out, 0)
	}
	b := out[start:]
	for i := range size {
		j := i
		if big {
			j = size - 1 - i
		}
		b[j] = byte(v)
		v >>= 8
	}
	return out
}

// struct.unpack(fmt, data [, pos]): the values, then the position after
// them.
func structUnpack(L *lua.LState) int {
	f := newStructFormat(L)
	data := checkLString(L, 2)
	ld := uint64(len(data))
	start := optInteger(L, 3, 1)
	if start == 0 {
		argError(L, 3, "offset must be 1 or greater")
	}
	// pos is a size_t in C: a negative offset wraps around and then fails
	// the length checks.
	pos := uint64(start) - 1
	used := L.GetTop()
	var results []lua.LValue
	for f.more() {
		size := uint64(f.next(L))
		pos += f.toAlign(pos, int(size))
		if size > ld || pos > ld-size {
			argError(L, 2, "data string too short")
		}
		// Room for this item and the next position.
		checkStack(L, used+len(results), 2, "too many results")
		switch f.option {
		case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I':
			signed := 'a' <= f.option && f.option <= 'z'
			results = append(results, lua.LNumber(structInt(data[pos:pos+size], signed, f.big)))
		case 'x':
		case 'f':
			bits := f.order().Uint32([]byte(data[pos : pos+4]))
			results = append(results, lua.LNumber(math.Float32frombits(bits)))
		case 'd':
			bits := f.order().Uint64([]byte(data[pos : pos+8]))
			results = append(results, lua.LNumber(math.Float64frombits(bits)))
		case 'c':
			if size == 0 {
				prev, ok := lua.LValue(lua.LNil), false
				if len(results) > 0 {
					prev = results[len(results)-1]
					_, ok = toNumber(prev)
				}
				if !ok {
					raise(L, "format 'c0' needs a previous size")
				}
				d, _ := toNumber(prev)
				size = toUint64(d)
				results = results[:len(results)-1]
				if size > ld || pos > ld-size {
					argError(L, 2, "data string too short")
				}
			}
			results = append(results, lua.LString(data[pos:pos+size]))
		case 's':
			end := pos
			for end < ld && data[end] != 0 {
				end++
			}
			if end == ld {
				raise(L, "unfinished string in data")
			}
			results = append(results, lua.LString(data[pos:end]))
			size = end - pos + 1
		default:
			f.control(L)
		}
		pos += size
	}
	for _, v := range results {
		L.Push(v)
	}
	L.Push(lua.LNumber(int64(pos + 1)))
	return len(results) + 1
}

// structInt is getinteger: the bytes into an unsigned long (only the last
// eight count), sign-extended from the item's top bit for a signed format.
func structInt(b string, signed, big bool) float64 {
	var l uint64
	for i := range len(b) {
		j := i
		if !big {
			j = len(b) - 1 - i
		}
		l = l<<8 | uint64(b[j])
	}
	if !signed {
		return float64(l)
	}
	// ~0 << (size*8 - 1): x86 takes the shift count modulo 64.
	mask := ^uint64(0) << (uint(len(b)*8-1) & 63)
	if l&mask != 0 {
		l |= mask
	}
	return float64(int64(l))
}

// struct.size(fmt): the size of a format with no variable-length item.
func structSize(L *lua.LState) int {
	f := newStructFormat(L)
	pos := uint64(0)
	for f.more() {
		size := f.next(L)
		pos += f.toAlign(pos, size)
		switch {
		case f.option == 's':
			argError(L, 1, "option 's' has no fixed size")
		case f.option == 'c' && size == 0:
			argError(L, 1, "option 'c0' has no fixed size")
		}
		// Unlike pack and unpack, size lets unknown letters and digits
		// through: only the other characters go to controloptions.
		if !isAlnum(f.option) {
			f.control(L)
		}
		pos += uint64(size)
	}
	L.Push(lua.LNumber(int64(pos)))
	return 1
}
