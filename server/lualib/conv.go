package lualib

import (
	"math"
	"strconv"
)

// x86 conversions. C leaves a float-to-integer conversion out of range
// undefined; Redis runs on x86-64, where cvttsd2si answers the "integer
// indefinite" value (the most negative one) instead. Go's own conversions
// are implementation-defined there, so the libraries use these.

// toInt64 is (int64_t)d on x86-64: truncation toward zero, and
// math.MinInt64 for NaN and anything out of range.
func toInt64(d float64) int64 {
	if d != d || d >= 1<<63 || d < -(1<<63) {
		return math.MinInt64
	}
	return int64(d)
}

// toInt32 is (int)d on x86-64: truncation toward zero, and math.MinInt32
// for NaN and anything out of range.
func toInt32(d float64) int32 {
	if d != d || d >= 1<<31 || d <= -(1<<31)-1 {
		return math.MinInt32
	}
	return int32(d)
}

// toUint64 is (uint64_t)d as gcc compiles it for x86-64: values from
// 2^63 up are shifted down by 2^63, converted, and get the top bit back
// with an XOR (so 2^64 gives 0); the rest, NaN included, go through the
// signed conversion (so NaN gives 2^63).
func toUint64(d float64) uint64 {
	if d >= 1<<63 {
		return uint64(toInt64(d-(1<<63))) ^ 1<<63
	}
	return uint64(toInt64(d))
}

// formatG is C's printf("%.<prec>g", d) as glibc prints it, which is also
// how Lua 5.1 turns numbers into strings (prec 14).
func formatG(d float64, prec int) string {
	switch {
	case math.IsInf(d, 1):
		return "inf"
	case math.IsInf(d, -1):
		return "-inf"
	case d != d:
		if math.Signbit(d) {
			return "-nan"
		}
		return "nan"
	}
	return strconv.FormatFloat(d, 'g', prec, 64)
}

// numberToString is lua_tolstring of a number: LUA_NUMBER_FMT, "%.14g".
func numberToString(d float64) string {
	return formatG(d, 14)
}

// strtod parses the longest prefix of s that glibc's strtod (C locale)
// accepts, after no leading white space: an optional sign, then a
// decimal number with optional exponent, a hexadecimal one ("0x1.8p3"),
// "inf", "infinity" or "nan" with an optional "(chars)". It returns the
// value and the prefix's length; n == 0 means no conversion, as when
// strtod sets endptr to its input.
func strtod(s string) (d float64, n int) {
	i := 0
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	sign := func(d float64) float64 {
		if neg {
			return -d
		}
		return d
	}
	switch {
	case hasPrefixFold(s[i:], "inf"):
		i += 3
		if hasPrefixFold(s[i:], "inity") {
			i += 5
		}
		return sign(math.Inf(1)), i
	case hasPrefixFold(s[i:], "nan"):
		i += 3
		bits := uint64(0x7ff8000000000000) // glibc's NaN, not Go's
		if i < len(s) && s[i] == '(' {
			j := i + 1
			for j < len(s) && (isAlnum(s[j]) || s[j] == '_') {
				j++
			}
			if j < len(s) && s[j] == ')' {
				if payload, ok := nanPayload(s[i+1 : j]); ok {
					bits |= payload & (1<<51 - 1)
				}
				i = j + 1
			}
		}
		return sign(math.Float64frombits(bits)), i
	}
	if i+1 < len(s) && s[i] == '0' && (s[i+1]|0x20) == 'x' {
		if d, m := hexFloat(s[i+2:]); m > 0 {
			return sign(d), i + 2 + m
		}
		// "0x" without hex digits: strtod reads the "0" alone.
		return sign(0), i + 1
	}
	start := i
	i, digits := mantissa(s, i, isDigit)
	if digits == 0 {
		return 0, 0
	}
	i = exponent(s, i, 'e')
	// The prefix is valid Go syntax too; out of range it parses to ±Inf
	// or 0 with ErrRange, which is what strtod returns (HUGE_VAL, 0).
	d, _ = strconv.ParseFloat(s[start:i], 64)
	return sign(d), i
}

// nanPayload is how glibc reads the chars of "nan(chars)": strtoull in
// base 0 (0x hexadecimal, 0 octal), which must use them all; the payload
// saturates on overflow.
func nanPayload(chars string) (uint64, bool) {
	base, digits := uint64(10), chars
	switch {
	case len(chars) > 2 && chars[0] == '0' && chars[1]|0x20 == 'x':
		base, digits = 16, chars[2:]
	case len(chars) > 1 && chars[0] == '0':
		base, digits = 8, chars[1:]
	}
	var v uint64
	overflow := false
	for i := range len(digits) {
		c := digits[i]
		var d uint64
		switch {
		case isDigit(c):
			d = uint64(c - '0')
		case 'a' <= c|0x20 && c|0x20 <= 'z':
			d = uint64(c|0x20-'a') + 10
		default:
			return 0, false
		}
		if d >= base {
			return 0, false
		}
		if v > (math.MaxUint64-d)/base {
			overflow = true
		}
		v = v*base + d
	}
	if overflow {
		return math.MaxUint64, true
	}
	return v, true
}

// hexFloat parses the part of a hexadecimal float after "0x": hex digits
// with an optional point (at least one digit) and an optional binary
// exponent. m is the length read, 0 if there is no digit.
func hexFloat(s string) (d float64, m int) {
	i, digits := mantissa(s, 0, isHex)
	if digits == 0 {
		return 0, 0
	}
	mant := s[:i]
	exp := "p0"
	if end := exponent(s, i, 'p'); end > i {
		exp, i = s[i:end], end
	}
	d, _ = strconv.ParseFloat("0x"+mant+exp, 64)
	return d, i
}

// str2number is Lua 5.1's luaO_str2d, the conversion lua_isnumber and
// lua_tonumber apply to strings: the string up to its first NUL (it is a
// C string there), strtod after leading white space, a hexadecimal
// integer if strtod stopped at an 'x', then only white space.
func str2number(str string) (float64, bool) {
	s := cString(str)
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	d, n := strtod(s[i:])
	if n == 0 {
		return 0, false
	}
	end := i + n
	if end < len(s) && (s[end]|0x20) == 'x' {
		// glibc's strtod reads hexadecimal itself, so it only stops at an
		// 'x' for "0x" with no digits, where strtoul fails the same way.
		return 0, false
	}
	for end < len(s) && isSpace(s[end]) {
		end++
	}
	return d, end == len(s)
}

func hasPrefixFold(s, p string) bool {
	if len(s) < len(p) {
		return false
	}
	for i := range len(p) {
		if s[i]|0x20 != p[i] {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isHex(c byte) bool   { return isDigit(c) || ('a' <= c|0x20 && c|0x20 <= 'f') }
func isAlnum(c byte) bool { return isDigit(c) || ('a' <= c|0x20 && c|0x20 <= 'z') }

// isSpace is C's isspace in the C locale.
func isSpace(c byte) bool { return c == ' ' || ('\t' <= c && c <= '\r') }

// mantissa reads digits, an optional point and more digits from s[i:], as
// strtod does: where they end, and how many digits there were.
func mantissa(s string, i int, digit func(byte) bool) (end, digits int) {
	for i < len(s) && digit(s[i]) {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && digit(s[i]) {
			i++
			digits++
		}
	}
	return i, digits
}

// exponent reads an exponent, marker ('e' or 'p', in either case), an
// optional sign and digits, at s[i:], as strtod does: where it ends, or i
// when there is none.
func exponent(s string, i int, marker byte) int {
	if i >= len(s) || s[i]|0x20 != marker {
		return i
	}
	j := i + 1
	if j < len(s) && (s[j] == '+' || s[j] == '-') {
		j++
	}
	if j >= len(s) || !isDigit(s[j]) {
		return i
	}
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	return j
}
