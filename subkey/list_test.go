package subkey

import (
	"bytes"
	"math"
	"testing"
)

func TestListKeyRoundTrip(t *testing.T) {
	tests := []struct {
		name       string
		uid, index uint64
	}{
		{"start", 1, ListStart},
		{"before start", 1, ListStart - 1},
		{"zero", 0, 0},
		{"max", math.MaxUint64, math.MaxUint64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := AppendListKey([]byte{0xaa}, tt.uid, tt.index)
			uid, index, err := DecodeListKey(b[1:])
			if err != nil || uid != tt.uid || index != tt.index {
				t.Fatalf("DecodeListKey = %d, %d, %v; want %d, %d", uid, index, err, tt.uid, tt.index)
			}
		})
	}
}

// TestListKeyGolden fails if and only if the on-disk format changed.
func TestListKeyGolden(t *testing.T) {
	if ListStart != 0x8000000000000000 {
		t.Fatalf("ListStart = %#x, want 1<<63", ListStart)
	}
	tests := []struct {
		name       string
		uid, index uint64
		hex        string // uid, index
	}{
		{"start", 1, ListStart, "0000000000000001 8000000000000000"},
		{"lpush", 1, ListStart - 1, "0000000000000001 7fffffffffffffff"},
		{"rpush", 0x0102030405060708, ListStart + 1, "0102030405060708 8000000000000001"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := unhex(t, tt.hex)
			if got := AppendListKey(nil, tt.uid, tt.index); !bytes.Equal(got, want) {
				t.Fatalf("encoding changed: got %x, want %x", got, want)
			}
		})
	}
}

// TestListKeyOrder checks that element keys sort in index order.
func TestListKeyOrder(t *testing.T) {
	idx := []uint64{0, 1, ListStart - 2, ListStart - 1, ListStart, ListStart + 1, math.MaxUint64}
	for i := 1; i < len(idx); i++ {
		a, b := AppendListKey(nil, 5, idx[i-1]), AppendListKey(nil, 5, idx[i])
		if bytes.Compare(a, b) >= 0 {
			t.Errorf("index %d sorts at or after %d", idx[i-1], idx[i])
		}
	}
}

func TestDecodeListKeyCorrupt(t *testing.T) {
	for _, n := range []int{0, 8, 15, 17, 24} {
		_, _, err := DecodeListKey(make([]byte, n))
		wantCorrupt(t, err)
	}
}
