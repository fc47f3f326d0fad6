package metadata

import (
	"bytes"
	"math"
	"testing"
)

func TestMetaKeyRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		db   uint16
		key  []byte
	}{
		{"simple", 0, []byte("foo")},
		{"empty key", 0, []byte{}},
		{"db max", math.MaxUint16, []byte("bar")},
		{"hashtag", 3, []byte("{user1000}.following")},
		{"binary", 15, []byte{0xff, 0, 1}},
		{"braces", 1, []byte("foo{{bar}}zap")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prefix := []byte{0xaa}
			mkey := AppendMetaKey(bytes.Clone(prefix), tt.db, tt.key)
			if !bytes.HasPrefix(mkey, prefix) {
				t.Fatalf("AppendMetaKey clobbered dst: %x", mkey)
			}
			db, key, err := DecodeMetaKey(mkey[len(prefix):])
			if err != nil {
				t.Fatalf("DecodeMetaKey: %v", err)
			}
			if db != tt.db || !bytes.Equal(key, tt.key) || key == nil {
				t.Fatalf("DecodeMetaKey = %d, %q; want %d, %q (non-nil)", db, key, tt.db, tt.key)
			}
			if !bytes.HasPrefix(mkey[len(prefix):], AppendDBPrefix(nil, tt.db)) {
				t.Fatalf("key %x lacks its db prefix", mkey)
			}
			if !bytes.HasPrefix(mkey[len(prefix):], AppendSlotPrefix(nil, tt.db, Slot(tt.key))) {
				t.Fatalf("key %x lacks its slot prefix", mkey)
			}
		})
	}
}

// TestMetaKeyGolden fails if and only if the on-disk format changed.
func TestMetaKeyGolden(t *testing.T) {
	tests := []struct {
		name string
		db   uint16
		key  string
		hex  string // db, slot, key
	}{
		{"foo", 0, "foo", "0000 2f96 666f6f"},
		{"bar db 1", 1, "bar", "0001 13c5 626172"},
		{"hashtag db 3", 3, "{user1000}.following", "0003 0d73 7b75736572313030307d2e666f6c6c6f77696e67"},
		{"empty key max db", math.MaxUint16, "", "ffff 0000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := unhex(t, tt.hex)
			if got := AppendMetaKey(nil, tt.db, []byte(tt.key)); !bytes.Equal(got, want) {
				t.Fatalf("encoding changed:\n got %x\nwant %x", got, want)
			}
			db, key, err := DecodeMetaKey(want)
			if err != nil || db != tt.db || string(key) != tt.key {
				t.Fatalf("DecodeMetaKey(%x) = %d, %q, %v", want, db, key, err)
			}
		})
	}
}

func TestPrefixGolden(t *testing.T) {
	tests := []struct {
		name string
		got  []byte
		hex  string
	}{
		{"db 0", AppendDBPrefix(nil, 0), "0000"},
		{"db 258", AppendDBPrefix(nil, 258), "0102"},
		{"db 1 slot 12182", AppendSlotPrefix(nil, 1, 12182), "0001 2f96"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if want := unhex(t, tt.hex); !bytes.Equal(tt.got, want) {
				t.Fatalf("encoding changed: got %x, want %x", tt.got, want)
			}
		})
	}
}

// TestDBPrefixRange checks that the keys of a db lie in
// [AppendDBPrefix(db), AppendDBPrefix(db+1)).
func TestDBPrefixRange(t *testing.T) {
	keys := [][]byte{{}, []byte("foo"), {0xff, 0xff, 0xff}, []byte("{a}")}
	for _, db := range []uint16{0, 1, 9, math.MaxUint16 - 1} {
		lo, hi := AppendDBPrefix(nil, db), AppendDBPrefix(nil, db+1)
		for _, key := range keys {
			mkey := AppendMetaKey(nil, db, key)
			if bytes.Compare(mkey, lo) < 0 || bytes.Compare(mkey, hi) >= 0 {
				t.Errorf("db %d key %q: %x outside [%x, %x)", db, key, mkey, lo, hi)
			}
		}
	}
}

func TestDecodeMetaKeyCorrupt(t *testing.T) {
	tests := []struct {
		name string
		hex  string
	}{
		{"empty", ""},
		{"db only", "0000"},
		{"short", "000000"},
		{"wrong slot", "0000 2f97 666f6f"},
		{"slot of empty key", "0000 0001"},
		{"slot out of range", "0000 6f96 666f6f"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := DecodeMetaKey(unhex(t, tt.hex))
			wantCorrupt(t, err)
		})
	}
}

// FuzzDecodeMetaKey checks that DecodeMetaKey never panics, wraps ErrCorrupt
// on error and accepts only canonical input, and that any user key round-trips.
func FuzzDecodeMetaKey(f *testing.F) {
	f.Add(AppendMetaKey(nil, 0, []byte("foo")))
	f.Add(AppendMetaKey(nil, 3, []byte("{user1000}.following")))
	f.Add(AppendMetaKey(nil, 1, nil))
	f.Add([]byte("foo{}{bar}"))
	f.Add([]byte{0, 0, 0x2f, 0x97, 'f', 'o', 'o'})
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzLen {
			return
		}
		in := bytes.Clone(b)
		db, key, err := DecodeMetaKey(b)
		fuzzCheckErr(t, err)
		if err == nil {
			if got := AppendMetaKey(nil, db, key); !bytes.Equal(got, in) {
				t.Fatalf("accepted non-canonical input %x: re-encoded %x", in, got)
			}
		}
		// Every user key round-trips, in every db.
		mkey := AppendMetaKey(nil, 7, in)
		db, key, err = DecodeMetaKey(mkey)
		if err != nil || db != 7 || !bytes.Equal(key, in) {
			t.Fatalf("key %x: DecodeMetaKey(%x) = %d, %x, %v", in, mkey, db, key, err)
		}
		if s := Slot(in); s >= NumSlots {
			t.Fatalf("Slot(%x) = %d, out of range", in, s)
		}
	})
}
