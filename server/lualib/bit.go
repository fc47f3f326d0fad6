package lualib

import (
	"math"

	lua "github.com/yuin/gopher-lua"
)

// bit is LuaBitOp 1.0.2: every argument is normalised to 32 bits, every
// result is returned as a signed 32-bit number.

func newBit(L *lua.LState) *lua.LTable {
	return newLib(L, map[string]lua.LGFunction{
		"tobit":   func(L *lua.LState) int { return bitRet(L, bitArg(L, 1)) },
		"bnot":    func(L *lua.LState) int { return bitRet(L, ^bitArg(L, 1)) },
		"band":    bitFold(func(a, b uint32) uint32 { return a & b }),
		"bor":     bitFold(func(a, b uint32) uint32 { return a | b }),
		"bxor":    bitFold(func(a, b uint32) uint32 { return a ^ b }),
		"lshift":  bitShift(func(b, n uint32) uint32 { return b << n }),
		"rshift":  bitShift(func(b, n uint32) uint32 { return b >> n }),
		"arshift": bitShift(func(b, n uint32) uint32 { return uint32(int32(b) >> n) }),
		"rol":     bitShift(func(b, n uint32) uint32 { return b<<n | b>>(32-n) }),
		"ror":     bitShift(func(b, n uint32) uint32 { return b<<(32-n) | b>>n }),
		"bswap":   bitSwap,
		"tohex":   bitToHex,
	})
}

// bitArg is barg: adding 2^52+2^51 to a double leaves the number, rounded
// to an integer (ties to even) and taken modulo 2^32, in the low 32 bits
// of its representation; that is LuaBitOp's definition of normalisation.
// A value lua_tonumber cannot convert is 0, which barg refuses.
func bitArg(L *lua.LState, n int) uint32 {
	d, ok := toNumber(L.Get(n))
	b := uint32(math.Float64bits(d + 6755399441055744.0))
	if b == 0 && !ok {
		typeError(L, n, "number")
	}
	return b
}

// bitRet is BRET: the bits as a signed 32-bit number.
func bitRet(L *lua.LState, b uint32) int {
	L.Push(lua.LNumber(int32(b)))
	return 1
}

// bitFold is BIT_OP: the first argument combined with all the others, the
// last one first (the order only shows in which bad argument is named).
func bitFold(op func(a, b uint32) uint32) lua.LGFunction {
	return func(L *lua.LState) int {
		b := bitArg(L, 1)
		for i := L.GetTop(); i > 1; i-- {
			b = op(b, bitArg(L, i))
		}
		return bitRet(L, b)
	}
}

// bitShift is BIT_SH: the count is taken modulo 32.
func bitShift(op func(b, n uint32) uint32) lua.LGFunction {
	return func(L *lua.LState) int {
		b := bitArg(L, 1)
		n := bitArg(L, 2) & 31
		return bitRet(L, op(b, n))
	}
}

func bitSwap(L *lua.LState) int {
	b := bitArg(L, 1)
	return bitRet(L, b>>24|(b>>8)&0xff00|(b&0xff00)<<8|b<<24)
}

// bitToHex is bit.tohex(x [,n]): n digits (8 by default, at most 8),
// upper case for a negative n.
func bitToHex(L *lua.LState) int {
	b := bitArg(L, 1)
	n := int32(8)
	if L.GetTop() >= 2 {
		n = int32(bitArg(L, 2))
	}
	digits := "0123456789abcdef"
	if n < 0 {
		// -MinInt32 overflows in C; Redis answers 8 upper-case digits,
		// which is what LuaBitOp 1.0.3's explicit clamp gives too.
		if n == math.MinInt32 {
			n++
		}
		n = -n
		digits = "0123456789ABCDEF"
	}
	n = min(n, 8)
	buf := make([]byte, n)
	for i := n - 1; i >= 0; i-- {
		buf[i] = digits[b&15]
		b >>= 4
	}
	L.Push(lua.LString(buf))
	return 1
}
