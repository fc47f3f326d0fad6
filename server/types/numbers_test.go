package types

import (
	"math"
	"math/big"
	"strconv"
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
// range parsers: neither panics.
func FuzzParseRanges(f *testing.F) {
	for _, p := range [][2]string{{"(1", "+inf"}, {"-inf", "(2.5"}, {"[a", "(b"}, {"-", "+"}, {"(", "["}, {"", "x"}} {
		f.Add([]byte(p[0]), []byte(p[1]))
	}
	f.Fuzz(func(t *testing.T, min, max []byte) {
		ParseScoreRange(min, max)
		ParseLexRange(min, max)
	})
}
