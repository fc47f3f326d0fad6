package server

import "math"

// expireAt turns a relative or absolute expiry argument into absolute unix
// ms, with Redis's overflow checks. unitMs is 1000 for seconds, 1 for ms.
// Non-positive values are refused when positiveOnly (SET, GETEX, SETEX).
func expireAt(v, unitMs int64, absolute bool, now int64, positiveOnly bool, cmd string) (int64, error) {
	if positiveOnly && v <= 0 {
		return 0, errInvalidExpire(cmd)
	}
	if v > math.MaxInt64/unitMs || v < math.MinInt64/unitMs {
		return 0, errInvalidExpire(cmd)
	}
	ms := v * unitMs
	if !absolute {
		if (ms > 0 && now > math.MaxInt64-ms) || (ms < 0 && now < math.MinInt64-ms) {
			return 0, errInvalidExpire(cmd)
		}
		ms += now
	}
	return ms, nil
}

// expiryArg collects SET's and GETEX's EX, PX, EXAT or PXAT while parsing,
// as Redis does: the same option may repeat (the last value wins), two
// different ones may not, and the value is checked only after every option
// was read, so syntax errors come first.
type expiryArg struct {
	unit     int64 // 1000 for EX and EXAT, 1 for PX and PXAT; 0 = none given
	absolute bool
	value    []byte
}

// parse handles args[i] if it is one of the four options and reports
// whether it was; it returns the index of the option's last argument.
func (e *expiryArg) parse(args [][]byte, i int) (next int, matched bool, err error) {
	var unit int64
	var absolute bool
	switch {
	case is(args[i], "EX"):
		unit = 1000
	case is(args[i], "PX"):
		unit = 1
	case is(args[i], "EXAT"):
		unit, absolute = 1000, true
	case is(args[i], "PXAT"):
		unit, absolute = 1, true
	default:
		return i, false, nil
	}
	if i+1 >= len(args) || (e.unit != 0 && (e.unit != unit || e.absolute != absolute)) {
		return i, true, errSyntax
	}
	e.unit, e.absolute, e.value = unit, absolute, args[i+1]
	return i + 1, true, nil
}

func (e *expiryArg) given() bool { return e.unit != 0 }

// at returns the absolute unix-ms expiry the option asks for.
func (e *expiryArg) at(now int64, cmd string) (int64, error) {
	v, err := parseInt(e.value)
	if err != nil {
		return 0, err
	}
	return expireAt(v, e.unit, e.absolute, now, true, cmd)
}
