package types

import (
	"bytes"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// ParseInt parses a Redis integer exactly as Redis's string2ll does: an
// optional '-', no '+', no spaces, no leading zeros, and within int64.
func ParseInt(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	if len(b) == 1 && b[0] == '0' {
		return 0, true
	}
	digits := b
	if b[0] == '-' {
		digits = b[1:]
	}
	if len(digits) == 0 || digits[0] < '1' || digits[0] > '9' {
		return 0, false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}

// ParseFloat parses a Redis float as strtold does for INCRBYFLOAT and scores:
// no surrounding spaces, and never NaN.
func ParseFloat(b []byte) (float64, bool) {
	// strtod knows no '_' digit separators, which Go's parser accepts.
	if len(b) == 0 || b[0] == ' ' || b[len(b)-1] == ' ' || bytes.IndexByte(b, '_') >= 0 {
		return 0, false
	}
	f, err := strconv.ParseFloat(cFloatText(b), 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			return 0, false
		}
	}
	if math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// cFloatText returns b for Go's float parsers, with "p0" added to a hex
// float that has no binary exponent: strtold reads "0x10" as 16, but Go
// insists on the exponent.
func cFloatText(b []byte) string {
	s := string(b)
	t := strings.TrimLeft(s, "+-")
	if len(s)-len(t) <= 1 && len(t) > 2 && t[0] == '0' && t[1]|0x20 == 'x' && !strings.ContainsAny(t, "pP") {
		return s + "p0"
	}
	return s
}

// addInt64 returns a+b, or false when it overflows.
func addInt64(a, b int64) (int64, bool) {
	c := a + b
	if (b > 0 && c < a) || (b < 0 && c > a) {
		return 0, false
	}
	return c, true
}

// longDoublePrec is the mantissa of the x87 80-bit long double that Redis
// computes INCRBYFLOAT and HINCRBYFLOAT in; emulating it gives the same
// digits Redis replies (0.1 + 0.2 is "0.3", not "0.30000000000000004").
const longDoublePrec = 64

// longDoubleMaxExp is the largest binary exponent a long double holds.
const longDoubleMaxExp = 16384

// ParseLongDouble parses an INCRBYFLOAT increment as Redis's string2ld
// does: the syntax of ParseFloat, under 5120 bytes, any magnitude a long
// double holds (beyond it, or rounding to zero, is refused), "inf"
// allowed, NaN refused.
func ParseLongDouble(b []byte) (*big.Float, bool) {
	if len(b) >= maxLongDoubleChars {
		return nil, false
	}
	f64, ok := ParseFloat(b)
	if !ok {
		return nil, false
	}
	s := string(b)
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if math.IsInf(f64, 0) && (strings.EqualFold(s, "inf") || strings.EqualFold(s, "infinity")) {
		return new(big.Float).SetInf(f64 < 0), true
	}
	f, _, err := big.ParseFloat(cFloatText(b), 0, longDoublePrec, big.ToNearestEven)
	if err != nil {
		return nil, false
	}
	// strtold's ERANGE, which Redis refuses: a finite literal too large for
	// a long double, or too small to round to anything but zero (big.Float
	// itself rounds 1e-999999999 to zero, hence the look at the digits).
	overflow := longDoubleRange(f).IsInf()
	underflow := new(big.Float).Abs(f).Cmp(longDoubleHalfMinDenormal) <= 0 && (f.Sign() != 0 || nonzeroMantissa(s))
	if overflow || underflow {
		return nil, false
	}
	return f, true
}

// nonzeroMantissa reports whether the unsigned decimal or hex float literal
// s has a digit other than 0 before its exponent.
func nonzeroMantissa(s string) bool {
	hex := len(s) > 1 && s[0] == '0' && s[1]|0x20 == 'x'
	if hex {
		s = s[2:]
	}
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20 // lower-cases letters, leaves digits
		switch {
		case c == 'e' && !hex, c == 'p' && hex:
			return false
		case c >= '1' && c <= '9', hex && c >= 'a' && c <= 'f':
			return true
		}
	}
	return false
}

// maxLongDoubleChars is Redis's MAX_LONG_DOUBLE_CHARS: string2ld refuses a
// number this long or longer before it parses it.
const maxLongDoubleChars = 5 * 1024

// longDoubleHalfMinDenormal is half the smallest long double denormal,
// 2^-16446: strtold rounds a literal of at most this magnitude to zero.
var longDoubleHalfMinDenormal = new(big.Float).SetMantExp(big.NewFloat(0.5), -16445)

// longDoubleRange turns a value beyond a long double's range into infinity.
func longDoubleRange(f *big.Float) *big.Float {
	if !f.IsInf() && f.MantExp(nil) > longDoubleMaxExp {
		return f.SetInf(f.Sign() < 0)
	}
	return f
}

// addLongDouble returns cur + incr as a long double, or ErrNaNOrInfinity.
func addLongDouble(cur, incr *big.Float) (*big.Float, error) {
	if cur.IsInf() || incr.IsInf() {
		return nil, ErrNaNOrInfinity // inf + x is inf, inf - inf is NaN
	}
	sum := new(big.Float).SetPrec(longDoublePrec).SetMode(big.ToNearestEven).Add(cur, incr)
	if longDoubleRange(sum).IsInf() {
		return nil, ErrNaNOrInfinity
	}
	return sum, nil
}

// FormatLongDouble formats as Redis's ld2string in human mode: "%.17Lf"
// with the trailing zeros (and a trailing point) removed, "-0" as "0".
func FormatLongDouble(f *big.Float) []byte {
	s := f.Text('f', 17)
	if strings.IndexByte(s, '.') >= 0 {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	if s == "-0" {
		s = "0"
	}
	return []byte(s)
}

// Strtod is C's strtod(b, NULL), as DEBUG SLEEP reads its time: the value
// of b's longest numeric prefix after leading spaces ("0.5s" is 0.5), and 0
// when there is none.
func Strtod(b []byte) float64 {
	f, _, _ := strtod(string(b))
	return f
}
