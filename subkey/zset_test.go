package subkey

import (
	"bytes"
	"math"
	"testing"
)

func TestZSetValueRoundTrip(t *testing.T) {
	for _, s := range []float64{0, math.Copysign(0, -1), 1.5, -1.5, math.Inf(1), math.Inf(-1),
		math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64} {
		got, err := DecodeZSetValue(AppendZSetValue([]byte{0xaa}, s)[1:])
		if err != nil || math.Float64bits(got) != math.Float64bits(s) {
			t.Fatalf("DecodeZSetValue(AppendZSetValue(%v)) = %v, %v", s, got, err)
		}
	}
}

// TestZSetValueGolden fails if and only if the on-disk format changed.
func TestZSetValueGolden(t *testing.T) {
	tests := []struct {
		name  string
		score float64
		hex   string
	}{
		{"1.5", 1.5, "3ff8000000000000"},
		{"-1.5", -1.5, "bff8000000000000"},
		{"-0 kept", math.Copysign(0, -1), "8000000000000000"},
		{"+inf", math.Inf(1), "7ff0000000000000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, want := AppendZSetValue(nil, tt.score), unhex(t, tt.hex); !bytes.Equal(got, want) {
				t.Fatalf("encoding changed: got %x, want %x", got, want)
			}
		})
	}
}

func TestDecodeZSetValueCorrupt(t *testing.T) {
	tests := []struct {
		name string
		hex  string
	}{
		{"empty", ""},
		{"short", "3ff80000000000"},
		{"trailing", "3ff8000000000000 00"},
		{"nan", "7ff8000000000000"},
		{"negative nan", "fff8000000000001"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeZSetValue(unhex(t, tt.hex))
			wantCorrupt(t, err)
		})
	}
}
