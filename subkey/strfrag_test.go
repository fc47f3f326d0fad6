package subkey

import (
	"bytes"
	"math"
	"testing"
)

func TestFragKeyRoundTrip(t *testing.T) {
	tests := []struct {
		name       string
		uid, index uint64
	}{
		{"first", 1, 0},
		{"last of 512 MiB", 7, 1<<29/FragBytes - 1},
		{"max", math.MaxUint64, math.MaxUint64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := AppendFragKey([]byte{0xaa}, tt.uid, tt.index)
			uid, index, err := DecodeFragKey(b[1:])
			if err != nil || uid != tt.uid || index != tt.index {
				t.Fatalf("DecodeFragKey = %d, %d, %v; want %d, %d", uid, index, err, tt.uid, tt.index)
			}
		})
	}
}

// TestFragKeyGolden fails if and only if the on-disk format changed.
func TestFragKeyGolden(t *testing.T) {
	if FragBytes != 4096 {
		t.Fatalf("FragBytes = %d, want 4096", FragBytes)
	}
	tests := []struct {
		name       string
		uid, index uint64
		hex        string // uid, index
	}{
		{"first", 1, 0, "0000000000000001 0000000000000000"},
		{"bit 2^32-1", 0x0102030405060708, (1<<32 - 1) / 8 / FragBytes, "0102030405060708 000000000001ffff"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := unhex(t, tt.hex)
			if got := AppendFragKey(nil, tt.uid, tt.index); !bytes.Equal(got, want) {
				t.Fatalf("encoding changed: got %x, want %x", got, want)
			}
		})
	}
}

// TestFragKeyOrder checks that fragment keys sort in index order.
func TestFragKeyOrder(t *testing.T) {
	idx := []uint64{0, 1, 255, 256, 1 << 17, math.MaxUint64}
	for i := 1; i < len(idx); i++ {
		if a, b := AppendFragKey(nil, 5, idx[i-1]), AppendFragKey(nil, 5, idx[i]); bytes.Compare(a, b) >= 0 {
			t.Errorf("index %d sorts at or after %d", idx[i-1], idx[i])
		}
	}
}

// FuzzDecodeFragKey checks that DecodeFragKey never panics, wraps
// ErrCorrupt on error and accepts only canonical input.
func FuzzDecodeFragKey(f *testing.F) {
	f.Add(AppendFragKey(nil, 1, 0))
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		uid, index, err := DecodeFragKey(b)
		if err != nil {
			wantCorrupt(t, err)
			return
		}
		if got := AppendFragKey(nil, uid, index); !bytes.Equal(got, b) {
			t.Fatalf("accepted non-canonical input %x", b)
		}
	})
}
