package subkey

import (
	"bytes"
	"cmp"
	"math"
	"testing"
)

var negZero = math.Copysign(0, -1)

func TestScoreRoundTrip(t *testing.T) {
	tests := []struct {
		name        string
		score, want float64
	}{
		{"zero", 0, 0},
		{"-0 folds", negZero, 0},
		{"1.5", 1.5, 1.5},
		{"-1.5", -1.5, -1.5},
		{"+inf", math.Inf(1), math.Inf(1)},
		{"-inf", math.Inf(-1), math.Inf(-1)},
		{"max", math.MaxFloat64, math.MaxFloat64},
		{"-max", -math.MaxFloat64, -math.MaxFloat64},
		{"denormal", math.SmallestNonzeroFloat64, math.SmallestNonzeroFloat64},
		{"-denormal", -math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeScore(AppendScore([]byte{0xaa}, tt.score)[1:])
			if err != nil || math.Float64bits(got) != math.Float64bits(tt.want) {
				t.Fatalf("DecodeScore(AppendScore(%v)) = %v, %v; want %v", tt.score, got, err, tt.want)
			}
		})
	}
}

// TestScoreGolden fails if and only if the on-disk format changed.
func TestScoreGolden(t *testing.T) {
	tests := []struct {
		name  string
		score float64
		hex   string
	}{
		{"-inf", math.Inf(-1), "000fffffffffffff"},
		{"-max", -math.MaxFloat64, "0010000000000000"},
		{"-1.5", -1.5, "4007ffffffffffff"},
		{"-1", -1, "400fffffffffffff"},
		{"-denormal", -math.SmallestNonzeroFloat64, "7ffffffffffffffe"},
		{"-0", negZero, "8000000000000000"},
		{"+0", 0, "8000000000000000"},
		{"denormal", math.SmallestNonzeroFloat64, "8000000000000001"},
		{"1", 1, "bff0000000000000"},
		{"1.5", 1.5, "bff8000000000000"},
		{"max", math.MaxFloat64, "ffefffffffffffff"},
		{"+inf", math.Inf(1), "fff0000000000000"},
		{"nan", math.NaN(), "fff8000000000001"}, // Go's NaN; DecodeScore rejects it
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, want := AppendScore(nil, tt.score), unhex(t, tt.hex); !bytes.Equal(got, want) {
				t.Fatalf("encoding changed: got %x, want %x", got, want)
			}
		})
	}
}

// TestScoreOrder checks that encodings sort like the scores, for a list in
// ascending numeric order.
func TestScoreOrder(t *testing.T) {
	asc := []float64{math.Inf(-1), -math.MaxFloat64, -1e300, -2, -1.5, -1, -math.SmallestNonzeroFloat64,
		negZero, 0, math.SmallestNonzeroFloat64, 1e-300, 1, 1.5, 2, 1 << 53, 1e300, math.MaxFloat64, math.Inf(1)}
	for i, a := range asc {
		for j, b := range asc {
			want := cmp.Compare(a, b)
			if got := bytes.Compare(AppendScore(nil, a), AppendScore(nil, b)); got != want {
				t.Errorf("asc[%d]=%v vs asc[%d]=%v: bytes.Compare = %d, want %d", i, a, j, b, got, want)
			}
		}
	}
}

func TestDecodeScoreCorrupt(t *testing.T) {
	tests := []struct {
		name string
		hex  string
	}{
		{"empty", ""},
		{"short", "bff80000000000"},
		{"trailing", "bff8000000000000 00"},
		{"nan", "fff8000000000000"},
		{"nan max", "ffffffffffffffff"},
		{"negative nan", "0007ffffffffffff"},
		{"negative nan min", "0000000000000000"},
		{"non-canonical -0", "7fffffffffffffff"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeScore(unhex(t, tt.hex))
			wantCorrupt(t, err)
		})
	}
}

func TestScoreKeyRoundTrip(t *testing.T) {
	tests := []struct {
		name   string
		uid    uint64
		score  float64
		member []byte
	}{
		{"simple", 1, 1.5, []byte("m")},
		{"empty member", 2, -1, []byte{}},
		{"inf binary", math.MaxUint64, math.Inf(1), []byte{0, 0xff}},
		{"-inf", 0, math.Inf(-1), []byte("x")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := AppendScoreKey([]byte{0xaa}, tt.uid, tt.score, tt.member)
			uid, score, member, err := DecodeScoreKey(b[1:])
			if err != nil {
				t.Fatalf("DecodeScoreKey: %v", err)
			}
			if uid != tt.uid || score != tt.score || !bytes.Equal(member, tt.member) || member == nil {
				t.Fatalf("DecodeScoreKey = %d, %v, %q; want %d, %v, %q (non-nil)", uid, score, member, tt.uid, tt.score, tt.member)
			}
			if u, err := UID(b[1:]); err != nil || u != tt.uid {
				t.Fatalf("UID = %d, %v", u, err)
			}
		})
	}
}

// TestScoreKeyGolden fails if and only if the on-disk format changed.
func TestScoreKeyGolden(t *testing.T) {
	tests := []struct {
		name   string
		uid    uint64
		score  float64
		member string
		hex    string // uid, score, member
	}{
		{"1.5 m", 1, 1.5, "m", "0000000000000001 bff8000000000000 6d"},
		{"-0 empty", 2, negZero, "", "0000000000000002 8000000000000000"},
		{"-1.5 bar", 1, -1.5, "bar", "0000000000000001 4007ffffffffffff 626172"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := unhex(t, tt.hex)
			if got := AppendScoreKey(nil, tt.uid, tt.score, []byte(tt.member)); !bytes.Equal(got, want) {
				t.Fatalf("encoding changed: got %x, want %x", got, want)
			}
		})
	}
}

// TestScoreKeyOrder checks that the keys of one uid sort by score, then
// bytewise by member, as Redis orders a zset.
func TestScoreKeyOrder(t *testing.T) {
	asc := []struct {
		score  float64
		member string
	}{
		{math.Inf(-1), "z"},
		{-1.5, ""},
		{-1.5, "a"},
		{-1.5, "a\x00"},
		{-1.5, "b"},
		{0, "a"},
		{0, "b"},
		{1, ""},
		{1, "\xff"},
		{1.5, "a"},
		{math.Inf(1), ""},
	}
	for i := 1; i < len(asc); i++ {
		a := AppendScoreKey(nil, 9, asc[i-1].score, []byte(asc[i-1].member))
		b := AppendScoreKey(nil, 9, asc[i].score, []byte(asc[i].member))
		if bytes.Compare(a, b) >= 0 {
			t.Errorf("(%v, %q) sorts at or after (%v, %q)", asc[i-1].score, asc[i-1].member, asc[i].score, asc[i].member)
		}
	}
}

func TestDecodeScoreKeyCorrupt(t *testing.T) {
	tests := []struct {
		name string
		hex  string
	}{
		{"empty", ""},
		{"uid only", "0000000000000001"},
		{"short", "0000000000000001 bff80000000000"},
		{"nan", "0000000000000001 fff8000000000000 6d"},
		{"negative nan", "0000000000000001 0000000000000000"},
		{"non-canonical -0", "0000000000000001 7fffffffffffffff 6d"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, _, err := DecodeScoreKey(unhex(t, tt.hex))
			wantCorrupt(t, err)
		})
	}
}

// FuzzScoreOrder checks that for non-NaN scores the encodings sort like the
// scores (-0 equal to +0) and decode back to them.
func FuzzScoreOrder(f *testing.F) {
	seeds := []float64{0, negZero, 1, -1, 1.5, -1.5, math.Inf(1), math.Inf(-1),
		math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64}
	for i, a := range seeds {
		f.Add(a, seeds[(i+1)%len(seeds)])
	}
	f.Fuzz(func(t *testing.T, a, b float64) {
		if math.IsNaN(a) || math.IsNaN(b) {
			return
		}
		ea, eb := AppendScore(nil, a), AppendScore(nil, b)
		if got, want := bytes.Compare(ea, eb), cmp.Compare(a, b); got != want {
			t.Fatalf("%v (%x) vs %v (%x): bytes.Compare = %d, want %d", a, ea, b, eb, got, want)
		}
		for _, s := range []struct {
			f   float64
			enc []byte
		}{{a, ea}, {b, eb}} {
			got, err := DecodeScore(s.enc)
			if err != nil || got != s.f || math.Signbit(got) && got == 0 {
				t.Fatalf("DecodeScore(AppendScore(%v)) = %v, %v", s.f, got, err)
			}
		}
	})
}

// FuzzDecodeScoreKey checks that DecodeScoreKey never panics, wraps
// ErrCorrupt on error and accepts only canonical input, and that any
// (uid, score, member) with a non-NaN score round-trips and stays inside its
// uid's range.
func FuzzDecodeScoreKey(f *testing.F) {
	f.Add(AppendScoreKey(nil, 1, 1.5, []byte("m")), uint64(1), 1.5)
	f.Add(AppendScoreKey(nil, 2, negZero, nil), uint64(math.MaxUint64), negZero)
	f.Add(AppendScoreKey(nil, 3, math.NaN(), []byte("x")), uint64(0), math.Inf(-1))
	f.Add([]byte("short"), uint64(7), math.Inf(1))
	f.Fuzz(func(t *testing.T, b []byte, uid uint64, score float64) {
		if len(b) > maxFuzzLen {
			return
		}
		in := bytes.Clone(b)
		u, s, member, err := DecodeScoreKey(b)
		fuzzCheckErr(t, err)
		if err == nil {
			if got := AppendScoreKey(nil, u, s, member); !bytes.Equal(got, in) {
				t.Fatalf("accepted non-canonical input %x: re-encoded %x", in, got)
			}
			if math.IsNaN(s) {
				t.Fatalf("accepted NaN score in %x", in)
			}
		}

		if math.IsNaN(score) {
			return
		}
		// b as a member.
		key := AppendScoreKey(nil, uid, score, in)
		u, s, member, err = DecodeScoreKey(key)
		if err != nil || u != uid || s != score || !bytes.Equal(member, in) {
			t.Fatalf("DecodeScoreKey(AppendScoreKey(%d, %v, %x)) = %d, %v, %x, %v", uid, score, in, u, s, member, err)
		}
		if !bytes.HasPrefix(key, AppendPrefix(nil, uid)) {
			t.Fatalf("score key %x lacks its uid prefix", key)
		}
		if uid < math.MaxUint64 && bytes.Compare(key, AppendUpperBound(nil, uid)) >= 0 {
			t.Fatalf("score key %x at or above its uid's upper bound", key)
		}
	})
}
