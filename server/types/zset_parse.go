package types

import (
	"math"
	"strconv"
	"strings"
)

// This file parses the numeric and range arguments of the sorted-set
// commands exactly as Redis 7.0 does. Redis reads scores with C's strtod,
// in two ways that differ at the edges:
//
//   - scores, increments and weights (string2d): the whole argument must be
//     a number, with no leading space; a value that overflows to ±inf or
//     underflows to zero is refused, and so is NaN. Hex floats ("0x10") and
//     "inf"/"infinity" are numbers.
//   - score-range items (zslParseRange): plain strtod up to the first NUL.
//     Leading spaces are skipped, an empty item reads as 0, an overflow
//     reads as ±inf and an underflow as 0; only NaN and trailing bytes are
//     refused.

// ParseScore parses a score, ZINCRBY increment or WEIGHTS value as Redis's
// string2d does. ok is false for anything Redis answers "not a valid float"
// to.
func ParseScore(b []byte) (float64, bool) {
	if len(b) == 0 || isCSpace(b[0]) {
		return 0, false
	}
	f, n, rangeErr := strtod(string(b))
	if n != len(b) || rangeErr || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// ScoreRange is a ZRANGEBYSCORE-style interval. MinEx and MaxEx mark a
// bound given with "(", which excludes it.
type ScoreRange struct {
	Min, Max     float64
	MinEx, MaxEx bool
}

// Empty reports whether no score can lie in r, as Redis's zslIsInRange
// decides before looking at the data.
func (r ScoreRange) Empty() bool {
	return r.Min > r.Max || (r.Min == r.Max && (r.MinEx || r.MaxEx))
}

// gteMin and lteMax are Redis's zslValueGteMin and zslValueLteMax.
func (r ScoreRange) gteMin(s float64) bool {
	if r.MinEx {
		return s > r.Min
	}
	return s >= r.Min
}

func (r ScoreRange) lteMax(s float64) bool {
	if r.MaxEx {
		return s < r.Max
	}
	return s <= r.Max
}

// ParseScoreRange parses the min and max of ZCOUNT, ZRANGEBYSCORE and the
// like. ok is false when Redis answers "min or max is not a float".
func ParseScoreRange(min, max []byte) (r ScoreRange, ok bool) {
	if r.Min, r.MinEx, ok = parseScoreBound(min); !ok {
		return r, false
	}
	r.Max, r.MaxEx, ok = parseScoreBound(max)
	return r, ok
}

// parseScoreBound parses one range item: "(" makes it exclusive, and the
// rest goes through plain strtod (see the file comment).
func parseScoreBound(b []byte) (f float64, ex, ok bool) {
	s := string(b)
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i] // a C string ends at its first NUL
	}
	if strings.HasPrefix(s, "(") {
		s, ex = s[1:], true
	}
	f, n, _ := strtod(s)
	if n != len(s) || math.IsNaN(f) {
		return 0, false, false
	}
	return f, ex, true
}

// LexBound is one end of a ZRANGEBYLEX range: "-" (Inf -1, below every
// member), "+" (Inf 1, above every member), or a member after "[" (inclusive)
// or "(" (Excl).
type LexBound struct {
	Inf   int8
	Excl  bool
	Value []byte
}

// LexRange is a ZRANGEBYLEX-style interval of members.
type LexRange struct {
	Min, Max LexBound
}

// ParseLexRange parses the min and max of ZLEXCOUNT, ZRANGEBYLEX and the
// like. ok is false when Redis answers "min or max not valid string range
// item".
func ParseLexRange(min, max []byte) (r LexRange, ok bool) {
	if r.Min, ok = parseLexBound(min); !ok {
		return r, false
	}
	r.Max, ok = parseLexBound(max)
	return r, ok
}

func parseLexBound(b []byte) (LexBound, bool) {
	if len(b) == 0 {
		return LexBound{}, false
	}
	switch b[0] {
	case '+', '-':
		if len(b) != 1 {
			return LexBound{}, false
		}
		if b[0] == '+' {
			return LexBound{Inf: 1, Excl: true}, true
		}
		return LexBound{Inf: -1, Excl: true}, true
	case '(':
		return LexBound{Excl: true, Value: b[1:]}, true
	case '[':
		return LexBound{Value: b[1:]}, true
	}
	return LexBound{}, false
}

// cmpLex compares member m with bound x as Redis's sdscmplex does: "-" is
// below and "+" above every member.
func cmpLex(m []byte, x LexBound) int {
	switch x.Inf {
	case -1:
		return 1
	case 1:
		return -1
	}
	return strings.Compare(string(m), string(x.Value))
}

// cmpBounds orders two bounds the same way, for the empty-range test.
func cmpBounds(a, b LexBound) int {
	if a.Inf != 0 || b.Inf != 0 {
		switch {
		case a.Inf == b.Inf:
			return 0
		case a.Inf < b.Inf:
			return -1
		}
		return 1
	}
	return strings.Compare(string(a.Value), string(b.Value))
}

// Empty reports whether no member can lie in r (Redis's zslIsInLexRange
// test on the bounds alone).
func (r LexRange) Empty() bool {
	c := cmpBounds(r.Min, r.Max)
	return c > 0 || (c == 0 && (r.Min.Excl || r.Max.Excl))
}

func (r LexRange) gteMin(m []byte) bool {
	c := cmpLex(m, r.Min)
	if r.Min.Excl {
		return c > 0
	}
	return c >= 0
}

func (r LexRange) lteMax(m []byte) bool {
	c := cmpLex(m, r.Max)
	if r.Max.Excl {
		return c < 0
	}
	return c <= 0
}

// isCSpace is C's isspace in the "C" locale.
func isCSpace(c byte) bool {
	return c == ' ' || (c >= '\t' && c <= '\r')
}

// strtod emulates glibc's strtod on s: it returns the value of the longest
// prefix that is a number, the length of that prefix (0 when there is none:
// strtod then leaves its end pointer at the start, before any space), and
// whether the value overflowed to ±inf or underflowed to zero (ERANGE with
// HUGE_VAL or zero).
func strtod(s string) (f float64, n int, rangeErr bool) {
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	start := i
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	rest := strings.ToLower(s[i:])
	sign := 1.0
	if neg {
		sign = -1
	}
	switch {
	case strings.HasPrefix(rest, "infinity"):
		return math.Inf(int(sign)), i + 8, false
	case strings.HasPrefix(rest, "inf"):
		return math.Inf(int(sign)), i + 3, false
	case strings.HasPrefix(rest, "nan"):
		j := i + 3
		if j < len(s) && s[j] == '(' {
			k := j + 1
			for k < len(s) && (cAlnum(s[k]) || s[k] == '_') {
				k++
			}
			if k < len(s) && s[k] == ')' {
				j = k + 1
			}
		}
		return math.NaN(), j, false
	}
	if len(rest) >= 2 && rest[0] == '0' && rest[1] == 'x' {
		if end, nonzero, ok := scanMantissa(s, i+2, cHexDigit); ok {
			end = scanExponent(s, end, 'p')
			text := s[start:end]
			if !strings.ContainsAny(text, "pP") {
				text += "p0" // Go insists on a binary exponent
			}
			return strtodValue(text, nonzero, end)
		}
		// "0x" with no hex digits: strtod reads the "0" alone.
		return math.Copysign(0, sign), i + 1, false
	}
	end, nonzero, ok := scanMantissa(s, i, cDigit)
	if !ok {
		return 0, 0, false
	}
	end = scanExponent(s, end, 'e')
	return strtodValue(s[start:end], nonzero, end)
}

// strtodValue converts a numeric prefix that strtod accepts.
func strtodValue(text string, nonzero bool, end int) (float64, int, bool) {
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			return 0, 0, false // cannot happen: text was scanned as a number
		}
		return f, end, true // ±inf
	}
	// Go rounds a tiny value to zero silently; strtod reports ERANGE.
	return f, end, f == 0 && nonzero
}

// scanMantissa scans digits with at most one '.' from i; ok is false when
// there is no digit. nonzero tells whether a digit other than '0' was seen.
func scanMantissa(s string, i int, digit func(byte) bool) (end int, nonzero, ok bool) {
	digits, dot := 0, false
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case digit(c):
			digits++
			if c != '0' {
				nonzero = true
			}
		case c == '.' && !dot:
			dot = true
		default:
			return i, nonzero, digits > 0
		}
	}
	return i, nonzero, digits > 0
}

// scanExponent consumes an exponent (e.g. "e-12", "p+3") at i if one is
// complete, and returns where the number ends.
func scanExponent(s string, i int, mark byte) int {
	if i >= len(s) || (s[i]|0x20) != mark {
		return i
	}
	j := i + 1
	if j < len(s) && (s[j] == '+' || s[j] == '-') {
		j++
	}
	k := j
	for k < len(s) && cDigit(s[k]) {
		k++
	}
	if k == j {
		return i // "1e" or "1e+": the exponent is not part of the number
	}
	return k
}

func cDigit(c byte) bool    { return c >= '0' && c <= '9' }
func cHexDigit(c byte) bool { return cDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f') }
func cAlnum(c byte) bool    { return cDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'z') }
