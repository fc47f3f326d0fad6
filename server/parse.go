package server

import (
	"math"
	"strconv"
	"strings"

	"github.com/shaledb/shale/server/types"
)

// parseInt parses an integer argument with Redis's strictness.
func parseInt(b []byte) (int64, error) {
	n, ok := types.ParseInt(b)
	if !ok {
		return 0, errNotInteger
	}
	return n, nil
}

// parseCursor parses a SCAN cursor: an unsigned 64-bit decimal.
func parseCursor(b []byte) (uint64, error) {
	// Redis parses cursors with strtoul: an optional sign, then digits; a
	// minus wraps modulo 2^64, so "-1" is the largest cursor, and the empty
	// string is cursor 0.
	neg := false
	digits := b
	if len(digits) > 0 && (digits[0] == '+' || digits[0] == '-') {
		neg = digits[0] == '-'
		digits = digits[1:]
		if len(digits) == 0 {
			return 0, errInvalidCursor
		}
	}
	if len(digits) == 0 {
		return 0, nil
	}
	n, err := strconv.ParseUint(string(digits), 10, 64)
	if err != nil {
		return 0, errInvalidCursor
	}
	if neg {
		n = -n
	}
	return n, nil
}

// is reports whether arg equals the upper-case option name, ignoring case.
func is(arg []byte, opt string) bool {
	return len(arg) == len(opt) && strings.EqualFold(string(arg), opt)
}

// lower returns the ASCII lower-case form of a command name.
func lower(b []byte) string {
	for _, c := range b {
		if c >= 'A' && c <= 'Z' {
			return strings.ToLower(string(b))
		}
	}
	return string(b)
}

// scanOptions parses SCAN-family options from args: MATCH pattern, COUNT n
// and, when allowType is set, TYPE name.
func scanOptions(args [][]byte, allowType bool) (o types.ScanOptions, err error) {
	o.Count = 10
	for i := 0; i < len(args); i++ {
		switch {
		case is(args[i], "MATCH") && i+1 < len(args):
			i++
			o.Match = args[i]
			if len(o.Match) == 1 && o.Match[0] == '*' {
				o.Match = nil
			}
		case is(args[i], "COUNT") && i+1 < len(args):
			i++
			n, err := parseInt(args[i])
			if err != nil {
				return o, err
			}
			if n < 1 {
				return o, errSyntax
			}
			o.Count = int(min(n, 1<<20))
		case allowType && is(args[i], "TYPE") && i+1 < len(args):
			i++
			o.Type, o.FilterType = strings.ToLower(string(args[i])), true
		default:
			return o, errSyntax
		}
	}
	return o, nil
}

// keyScanOptions parses the options of HSCAN, SSCAN and ZSCAN (args[3:]).
// Redis looks the key up before it reads them: a missing key answers an
// empty scan and a key of another type WRONGTYPE, whatever the options. So
// on bad options, size (HLEN, SCARD or ZCARD) decides: empty is set for a
// missing key, its error is returned for the wrong type, and the options'
// error otherwise.
func keyScanOptions(args [][]byte, size func(key []byte) (int64, error)) (o types.ScanOptions, empty bool, err error) {
	o, optErr := scanOptions(args[3:], false)
	if optErr == nil {
		return o, false, nil
	}
	n, err := size(args[1])
	switch {
	case err != nil:
		return o, false, err
	case n == 0:
		return o, true, nil
	}
	return o, false, optErr
}

// parseCInt parses an argument Redis reads as a C int, such as SELECT's
// index: errNotInteger when it is no integer, errIntRange when it does not
// fit 32 bits.
func parseCInt(b []byte) (int, error) {
	n, err := parseInt(b)
	if err != nil {
		return 0, err
	}
	if n < math.MinInt32 || n > math.MaxInt32 {
		return 0, errIntRange
	}
	return int(n), nil
}

// parseStartStop parses the integer range bounds of "CMD key start stop"
// (LRANGE, LTRIM, GETRANGE, ZREMRANGEBYRANK): args[2] and args[3].
func parseStartStop(args [][]byte) (start, stop int64, err error) {
	if start, err = parseInt(args[2]); err != nil {
		return 0, 0, err
	}
	stop, err = parseInt(args[3])
	return start, stop, err
}
