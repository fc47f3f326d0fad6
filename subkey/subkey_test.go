package subkey

import (
	"bytes"
	"math"
	"testing"
)

func TestKeyRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		uid  uint64
		sub  []byte
	}{
		{"field", 1, []byte("field")},
		{"empty sub", 2, []byte{}},
		{"binary", 1 << 40, []byte{0, 0xff, 0}},
		{"max uid", math.MaxUint64, []byte("m")},
		{"zero uid", 0, []byte("x")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			skey := AppendKey([]byte{0xaa}, tt.uid, tt.sub)
			uid, sub, err := DecodeKey(skey[1:])
			if err != nil {
				t.Fatalf("DecodeKey: %v", err)
			}
			if uid != tt.uid || !bytes.Equal(sub, tt.sub) || sub == nil {
				t.Fatalf("DecodeKey = %d, %q; want %d, %q (non-nil)", uid, sub, tt.uid, tt.sub)
			}
			if got, err := UID(skey[1:]); err != nil || got != tt.uid {
				t.Fatalf("UID = %d, %v; want %d", got, err, tt.uid)
			}
			if !bytes.HasPrefix(skey[1:], AppendPrefix(nil, tt.uid)) {
				t.Fatalf("key %x lacks prefix of uid %d", skey[1:], tt.uid)
			}
		})
	}
}

// TestSubkeyGolden fails if and only if the on-disk format changed.
func TestSubkeyGolden(t *testing.T) {
	tests := []struct {
		name string
		got  []byte
		hex  string
	}{
		{"prefix", AppendPrefix(nil, 1), "0000000000000001"},
		{"hash field", AppendKey(nil, 1, []byte("field")), "0000000000000001 6669656c64"},
		{"empty sub", AppendKey(nil, 0x0102030405060708, nil), "0102030405060708"},
		{"upper bound", AppendUpperBound(nil, 1), "0000000000000002"},
		{"upper bound carry", AppendUpperBound(nil, 0xffffffff), "0000000100000000"},
		{"upper bound max", AppendUpperBound(nil, math.MaxUint64), "ffffffffffffffff ff"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if want := unhex(t, tt.hex); !bytes.Equal(tt.got, want) {
				t.Fatalf("encoding changed: got %x, want %x", tt.got, want)
			}
		})
	}
}

// TestUIDRange checks that every record of uid lies in
// [AppendPrefix(uid), AppendUpperBound(uid)), and records of neighbouring
// uids outside it.
func TestUIDRange(t *testing.T) {
	subs := [][]byte{{}, {0}, []byte("field"), {0xfe, 0xff, 0xff}}
	for _, uid := range []uint64{0, 1, 0xff, math.MaxUint64 - 1, math.MaxUint64} {
		lo, hi := AppendPrefix(nil, uid), AppendUpperBound(nil, uid)
		in := func(k []byte) bool { return bytes.Compare(k, lo) >= 0 && bytes.Compare(k, hi) < 0 }
		var keys [][]byte
		for _, sub := range subs {
			keys = append(keys, AppendKey(nil, uid, sub))
		}
		keys = append(keys, AppendListKey(nil, uid, 0), AppendListKey(nil, uid, ListStart),
			AppendScoreKey(nil, uid, math.Inf(-1), nil), AppendScoreKey(nil, uid, 1.5, []byte("m")))
		if uid < math.MaxUint64 {
			// Full range, including a sub that starts with 0xff.
			keys = append(keys, AppendKey(nil, uid, []byte{0xff, 0xff}), AppendListKey(nil, uid, math.MaxUint64),
				AppendScoreKey(nil, uid, math.Inf(1), []byte{0xff}))
		}
		for _, k := range keys {
			if !in(k) {
				t.Errorf("uid %d: key %x outside [%x, %x)", uid, k, lo, hi)
			}
		}
		if uid > 0 {
			if k := AppendKey(nil, uid-1, []byte{0xff, 0xff}); in(k) {
				t.Errorf("uid %d: key %x of uid-1 inside [%x, %x)", uid, k, lo, hi)
			}
		}
		if uid < math.MaxUint64 {
			if k := AppendKey(nil, uid+1, nil); in(k) {
				t.Errorf("uid %d: key %x of uid+1 inside [%x, %x)", uid, k, lo, hi)
			}
		}
	}
}

func TestDecodeKeyCorrupt(t *testing.T) {
	for _, n := range []int{0, 1, 7} {
		_, _, err := DecodeKey(make([]byte, n))
		wantCorrupt(t, err)
		_, err = UID(make([]byte, n))
		wantCorrupt(t, err)
	}
}

// FuzzDecodeSubkey checks that no decoder of this package panics on any
// input, that each wraps ErrCorrupt on error, and that each accepts only
// canonical input: DecodeKey, UID, DecodeListKey, DecodeScoreKey, DecodeScore
// and DecodeZSetValue.
func FuzzDecodeSubkey(f *testing.F) {
	f.Add(AppendKey(nil, 1, []byte("field")))
	f.Add(AppendKey(nil, 1, nil))
	f.Add(AppendListKey(nil, 1, ListStart))
	f.Add(AppendScoreKey(nil, 1, 1.5, []byte("m")))
	f.Add(AppendScoreKey(nil, 1, math.NaN(), nil))
	f.Add(AppendScore(nil, math.Inf(-1)))
	f.Add(AppendZSetValue(nil, -1.5))
	f.Add([]byte{0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}) // -0
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzLen {
			return
		}
		in := bytes.Clone(b)

		uid, sub, err := DecodeKey(b)
		fuzzCheckErr(t, err)
		if err == nil {
			if got := AppendKey(nil, uid, sub); !bytes.Equal(got, in) {
				t.Fatalf("DecodeKey accepted non-canonical %x", in)
			}
			if u, err := UID(b); err != nil || u != uid {
				t.Fatalf("UID(%x) = %d, %v; DecodeKey says %d", in, u, err, uid)
			}
		} else if _, err := UID(b); err == nil {
			t.Fatalf("UID accepted %x, DecodeKey did not", in)
		}

		uid, index, err := DecodeListKey(b)
		fuzzCheckErr(t, err)
		if err == nil {
			if got := AppendListKey(nil, uid, index); !bytes.Equal(got, in) {
				t.Fatalf("DecodeListKey accepted non-canonical %x", in)
			}
		}

		uid, score, member, err := DecodeScoreKey(b)
		fuzzCheckErr(t, err)
		if err == nil {
			if got := AppendScoreKey(nil, uid, score, member); !bytes.Equal(got, in) {
				t.Fatalf("DecodeScoreKey accepted non-canonical %x: re-encoded %x", in, got)
			}
		}

		score, err = DecodeScore(b)
		fuzzCheckErr(t, err)
		if err == nil {
			if got := AppendScore(nil, score); !bytes.Equal(got, in) {
				t.Fatalf("DecodeScore accepted non-canonical %x: re-encoded %x", in, got)
			}
		}

		score, err = DecodeZSetValue(b)
		fuzzCheckErr(t, err)
		if err == nil {
			if got := AppendZSetValue(nil, score); !bytes.Equal(got, in) {
				t.Fatalf("DecodeZSetValue accepted non-canonical %x", in)
			}
		}

		if !bytes.Equal(b, in) {
			t.Fatal("a decoder modified its input")
		}
	})
}
