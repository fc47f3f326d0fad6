package types

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestParseInt(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"-1", -1, true}, {"9223372036854775807", 1<<63 - 1, true},
		{"-9223372036854775808", -1 << 63, true}, {"9223372036854775808", 0, false},
		{"+1", 0, false}, {"01", 0, false}, {"-0", 0, false}, {" 1", 0, false},
		{"1 ", 0, false}, {"", 0, false}, {"-", 0, false}, {"1a", 0, false},
	}
	for _, tt := range tests {
		got, ok := ParseInt([]byte(tt.in))
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseInt(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// TestLongDouble pins replies checked against redis-server 7.0.
func TestLongDouble(t *testing.T) {
	tests := []struct {
		name  string
		start string
		incrs []string
		want  string
	}{
		{"0.1+0.2", "", []string{"0.1", "0.2"}, "0.3"},
		{"10.5 chain", "10.5", []string{"0.1", "-5", "5.0e3"}, "5005.60000000000000009"},
		{"integer result", "", []string{"3"}, "3"},
		{"big", "", []string{"1e20"}, "100000000000000000000"},
		{"small", "", []string{"1.5e-5"}, "0.000015"},
		{"negative zero", "", []string{"-0"}, "0"},
		{"beyond double range", "", []string{"1e400", "-1e400"}, "0"},
		{"hex without exponent", "", []string{"0x10", "-0X.8", "0x1p1"}, "17.5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cur := []byte(tt.start)
			for _, s := range tt.incrs {
				incr, ok := ParseLongDouble([]byte(s))
				if !ok {
					t.Fatalf("ParseLongDouble(%q) failed", s)
				}
				var err error
				if cur, err = incrLongDouble(cur, len(cur) > 0, incr, ErrNotFloat); err != nil {
					t.Fatal(err)
				}
			}
			if string(cur) != tt.want {
				t.Fatalf("got %q, want %q", cur, tt.want)
			}
		})
	}
	inf, _ := ParseLongDouble([]byte("inf"))
	if _, err := incrLongDouble(nil, false, inf, ErrNotFloat); err != ErrNaNOrInfinity {
		t.Fatalf("inf increment: %v", err)
	}
	huge := new(big.Float).SetMantExp(big.NewFloat(1), longDoubleMaxExp)
	if _, err := addLongDouble(huge, huge); err != ErrNaNOrInfinity {
		t.Fatalf("overflow: %v", err)
	}
	for _, bad := range []string{"", " 1", "nan", "abc", "1_0", "0x", "0x1p", "+-0x1", "0xg"} {
		if _, ok := ParseLongDouble([]byte(bad)); ok {
			t.Errorf("ParseLongDouble(%q) accepted", bad)
		}
	}
}

// FuzzParseNumbers feeds client bytes to the number parsers: none panics,
// ParseInt accepts exactly the canonical decimal int64 (Redis's string2ll),
// and no float parser returns NaN.
func FuzzParseNumbers(f *testing.F) {
	for _, s := range []string{"0", "-1", "+1", "01", "-0", "9223372036854775807", "-9223372036854775808",
		"9223372036854775808", "1.5", "inf", "-inf", "nan", "1e400", "0x10", "1_000", " 1", "(1", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, ok := ParseInt(b)
		want, err := strconv.ParseInt(string(b), 10, 64)
		canonical := err == nil && strconv.FormatInt(want, 10) == string(b)
		if ok != canonical || ok && v != want {
			t.Fatalf("ParseInt(%q) = %d, %v; want %d, %v", b, v, ok, want, canonical)
		}
		if f, ok := ParseFloat(b); ok && math.IsNaN(f) {
			t.Fatalf("ParseFloat(%q) = NaN", b)
		}
		if f, ok := ParseScore(b); ok && math.IsNaN(f) {
			t.Fatalf("ParseScore(%q) = NaN", b)
		}
		ParseLongDouble(b)
	})
}

// FuzzParseRanges feeds client bytes to the ZRANGEBYSCORE and ZRANGEBYLEX
// range parsers and checks each bound against refScoreBound and
// refLexBound, and the range against its two bounds.
func FuzzParseRanges(f *testing.F) {
	for _, p := range [][2]string{
		{"(1", "+inf"}, {"-inf", "(2.5"}, {"[a", "(b"}, {"-", "+"}, {"(", "["}, {"", "x"},
		{"1e400", "(-1e-400"}, {"1.", ".5e-3"}, {"+1e+5", "1e"}, {".", "-.e1"},
		{" 1", "1\x00x"}, {"(nan", "0x1p3"}, {"++", "1..2"},
	} {
		f.Add([]byte(p[0]), []byte(p[1]))
	}
	f.Fuzz(func(t *testing.T, min, max []byte) {
		sr, ok := ParseScoreRange(min, max)
		minF, minEx, minOK := parseScoreBound(min)
		maxF, maxEx, maxOK := parseScoreBound(max)
		if want := (ScoreRange{Min: minF, Max: maxF, MinEx: minEx, MaxEx: maxEx}); ok != (minOK && maxOK) || ok && sr != want {
			t.Fatalf("ParseScoreRange(%q, %q) = %+v, %v; its bounds give %+v, %v, %v", min, max, sr, ok, want, minOK, maxOK)
		}
		for _, b := range [][]byte{min, max} {
			checkScoreBound(t, b)
		}
		lr, ok := ParseLexRange(min, max)
		lmin, lminOK := refLexBound(min)
		lmax, lmaxOK := refLexBound(max)
		if ok != (lminOK && lmaxOK) || ok && !(sameLexBound(lr.Min, lmin) && sameLexBound(lr.Max, lmax)) {
			t.Fatalf("ParseLexRange(%q, %q) = %+v, %v; want %+v, %+v, %v", min, max, lr, ok, lmin, lmax, lminOK && lmaxOK)
		}
	})
}

// checkScoreBound checks parseScoreBound(b) against the rules any strtod
// input obeys, and against refScoreBound where that decides.
func checkScoreBound(t *testing.T, b []byte) {
	t.Helper()
	f, ex, ok := parseScoreBound(b)
	if ok && math.IsNaN(f) {
		t.Fatalf("parseScoreBound(%q) accepted NaN", b)
	}
	s := string(b)
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	if ok && ex != strings.HasPrefix(s, "(") {
		t.Fatalf("parseScoreBound(%q): exclusive = %v", b, ex)
	}
	// A C string ends at its first NUL: what follows changes nothing.
	if f2, ex2, ok2 := parseScoreBound(append([]byte(s), "\x00tail"...)); ok2 != ok || ok && (f2 != f || ex2 != ex) {
		t.Fatalf("parseScoreBound(%q) = %v, %v, %v, but with a NUL after it %v, %v, %v", s, f, ex, ok, f2, ex2, ok2)
	}
	// A score ParseScore accepts is read the same as a range item.
	if sf, sok := ParseScore(b); sok && (!ok || f != sf || ex) {
		t.Fatalf("ParseScore(%q) = %v, but parseScoreBound = %v, %v, %v", b, sf, f, ex, ok)
	}
	body, _ := strings.CutPrefix(s, "(")
	if wantF, wantOK, decided := refScoreBound(body); decided && (ok != wantOK || ok && f != wantF) {
		t.Fatalf("parseScoreBound(%q) = %v, %v; the reference gives %v, %v", b, f, ok, wantF, wantOK)
	}
}

// plainDecimal is the decimal form strtod reads whole: digits with an
// optional point and exponent, at least one digit before the exponent.
var plainDecimal = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

// refScoreBound is a reference reading of a range item (after "(") made only
// of the characters of plain decimals: decided is false for any other
// input, which needs the rest of strtod (spaces, hex, inf, nan). Such an
// item is a number when it is empty (strtod reads nothing, Redis takes 0)
// or a whole plain decimal, which overflows to ±inf and underflows to 0 as
// strconv does.
func refScoreBound(body string) (f float64, ok, decided bool) {
	if strings.Trim(body, "0123456789+-.eE") != "" {
		return 0, false, false
	}
	if body == "" {
		return 0, true, true
	}
	if !plainDecimal.MatchString(body) {
		return 0, false, true
	}
	f, err := strconv.ParseFloat(body, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		panic(fmt.Sprintf("plain decimal %q: %v", body, err))
	}
	return f, true, true
}

// refLexBound is a reference reading of a ZRANGEBYLEX item: "-" and "+"
// alone, or "[" or "(" and a member.
func refLexBound(b []byte) (LexBound, bool) {
	switch {
	case string(b) == "-":
		return LexBound{Inf: -1, Excl: true}, true
	case string(b) == "+":
		return LexBound{Inf: 1, Excl: true}, true
	case len(b) > 0 && b[0] == '[':
		return LexBound{Value: b[1:]}, true
	case len(b) > 0 && b[0] == '(':
		return LexBound{Excl: true, Value: b[1:]}, true
	}
	return LexBound{}, false
}

func sameLexBound(a, b LexBound) bool {
	return a.Inf == b.Inf && a.Excl == b.Excl && bytes.Equal(a.Value, b.Value)
}
