package metadata

import (
	"bytes"
	"math"
	"slices"
	"testing"
)

// TestSystemGolden fails if and only if the format of a system record changed.
func TestSystemGolden(t *testing.T) {
	tests := []struct {
		name string
		got  []byte
		hex  string
	}{
		{"format-version key", KeyFormatVersion, "7368616c653a666f726d61742d76657273696f6e"},
		{"format-version value", EncodeU32(nil, FormatVersion), "00000002"},
		{"uid-high-water key", KeyUIDHighWater, "7368616c653a7569642d686967682d7761746572"},
		{"uid-high-water value", EncodeU64(nil, 0x0102030405060708), "0102030405060708"},
		{"counter key db 0", AppendCounterKey(nil, 0), "7368616c653a6b6579733a 0000"},
		{"counter key db 258", AppendCounterKey(nil, 258), "7368616c653a6b6579733a 0102"},
		{"expires counter key db 258", AppendExpiresCounterKey(nil, 258), "7368616c653a657870697265733a 0102"},
		{"counter +1", EncodeCounterDelta(nil, 1), "0100000000000000"},
		{"counter -1", EncodeCounterDelta(nil, -1), "ffffffffffffffff"},
		{"counter 258", EncodeCounterDelta(nil, 258), "0201000000000000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if want := unhex(t, tt.hex); !bytes.Equal(tt.got, want) {
				t.Fatalf("encoding changed: got %x, want %x", tt.got, want)
			}
		})
	}
	if FormatVersion != 2 {
		t.Fatalf("FormatVersion = %d: update the golden tests and docs/ENCODING.md", FormatVersion)
	}
	if string(KeyFormatVersion) != "shale:format-version" || string(KeyUIDHighWater) != "shale:uid-high-water" {
		t.Fatal("system keys were modified")
	}
}

func TestCounterRoundTrip(t *testing.T) {
	for _, v := range []int64{0, 1, -1, 258, math.MaxInt64, math.MinInt64} {
		got, err := DecodeCounter(EncodeCounterDelta(nil, v))
		if err != nil || got != v {
			t.Fatalf("DecodeCounter(EncodeCounterDelta(%d)) = %d, %v", v, got, err)
		}
	}
}

// TestCounterMerge models RocksDB's uint64add merge operator, which decodes
// each 8-byte operand little-endian, adds with wraparound and re-encodes: the
// sum of the deltas must come out of DecodeCounter.
func TestCounterMerge(t *testing.T) {
	tests := []struct {
		name   string
		deltas []int64
		want   int64
	}{
		{"inc", []int64{1, 1, 1}, 3},
		{"inc dec", []int64{1, 1, -1}, 1},
		{"to zero", []int64{5, -5}, 0},
		{"below zero", []int64{2, -3}, -1},
		{"reset then inc", []int64{7, -7, 0, 4}, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var acc uint64 // the operator's running value: no existing value means 0
			for _, d := range tt.deltas {
				op := EncodeCounterDelta(nil, d)
				acc += uint64(op[0]) | uint64(op[1])<<8 | uint64(op[2])<<16 | uint64(op[3])<<24 |
					uint64(op[4])<<32 | uint64(op[5])<<40 | uint64(op[6])<<48 | uint64(op[7])<<56
			}
			var stored [8]byte // EncodeFixed64: little-endian
			for i := range stored {
				stored[i] = byte(acc >> (8 * i))
			}
			got, err := DecodeCounter(stored[:])
			if err != nil || got != tt.want {
				t.Fatalf("DecodeCounter = %d, %v; want %d", got, err, tt.want)
			}
		})
	}
}

func TestFixedRoundTrip(t *testing.T) {
	for _, v := range []uint64{0, 1, 1 << 63, math.MaxUint64} {
		got, err := DecodeU64(EncodeU64(nil, v))
		if err != nil || got != v {
			t.Fatalf("DecodeU64(EncodeU64(%d)) = %d, %v", v, got, err)
		}
	}
	for _, v := range []uint32{0, 1, FormatVersion, math.MaxUint32} {
		got, err := DecodeU32(EncodeU32(nil, v))
		if err != nil || got != v {
			t.Fatalf("DecodeU32(EncodeU32(%d)) = %d, %v", v, got, err)
		}
	}
}

func TestCounterKeyRange(t *testing.T) {
	k0, k1 := AppendCounterKey(nil, 0), AppendCounterKey(nil, 1)
	if bytes.Compare(k0, k1) >= 0 {
		t.Fatalf("counter keys out of db order: %x >= %x", k0, k1)
	}
	if !bytes.HasPrefix(k0, []byte("shale:")) {
		t.Fatalf("counter key %q lacks the shale: prefix", k0)
	}
}

func TestDecodeFixedCorrupt(t *testing.T) {
	for _, n := range []int{0, 1, 4, 7, 9, 16} {
		_, err := DecodeCounter(make([]byte, n))
		wantCorrupt(t, err)
		_, err = DecodeU64(make([]byte, n))
		wantCorrupt(t, err)
	}
	for _, n := range []int{0, 3, 5, 8} {
		_, err := DecodeU32(make([]byte, n))
		wantCorrupt(t, err)
	}
}

func TestDBMap(t *testing.T) {
	if string(KeyDBMap) != "shale:db-map" {
		t.Fatal("KeyDBMap was modified")
	}
	if got, want := EncodeDBMap(nil, []uint16{1, 0, 2}), unhex(t, "0001 0000 0002"); !bytes.Equal(got, want) {
		t.Fatalf("encoding changed: got %x, want %x", got, want)
	}
	for _, phys := range [][]uint16{{0}, {1, 0}, {2, 0, 1, 3}} {
		got, err := DecodeDBMap(EncodeDBMap(nil, phys))
		if err != nil || !slices.Equal(got, phys) {
			t.Fatalf("DecodeDBMap(EncodeDBMap(%v)) = %v, %v", phys, got, err)
		}
	}
	for _, bad := range []string{"", "00", "000100", "0001 0001", "0000 0002", "0100 0000"} {
		_, err := DecodeDBMap(unhex(t, bad))
		wantCorrupt(t, err)
	}
}

func FuzzDecodeDBMap(f *testing.F) {
	f.Add(EncodeDBMap(nil, []uint16{1, 0, 2}))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzLen {
			return
		}
		phys, err := DecodeDBMap(b)
		fuzzCheckErr(t, err)
		if err == nil && !bytes.Equal(EncodeDBMap(nil, phys), b) {
			t.Fatalf("accepted non-canonical input %x", b)
		}
	})
}

func TestDecodeCounterKey(t *testing.T) {
	for _, tc := range []struct {
		key     []byte
		db      uint16
		expires bool
		ok      bool
	}{
		{AppendCounterKey(nil, 7), 7, false, true},
		{AppendExpiresCounterKey(nil, 65535), 65535, true, true},
		{[]byte("shale:keys:"), 0, false, false},
		{KeyDBMap, 0, false, false},
		{append(AppendCounterKey(nil, 1), 'x'), 0, false, false},
	} {
		db, expires, ok := DecodeCounterKey(tc.key)
		if db != tc.db || expires != tc.expires || ok != tc.ok {
			t.Errorf("DecodeCounterKey(%q) = %d %v %v, want %d %v %v", tc.key, db, expires, ok, tc.db, tc.expires, tc.ok)
		}
	}
}
