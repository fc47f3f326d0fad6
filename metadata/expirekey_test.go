package metadata

import (
	"bytes"
	"math"
	"testing"
)

func TestExpireKeyRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		e    ExpireKey
	}{
		{"simple", ExpireKey{ExpireMs: 1700000000000, DB: 0, Key: []byte("foo")}},
		{"zero", ExpireKey{ExpireMs: 0, DB: 0, Key: []byte{}}},
		{"max", ExpireKey{ExpireMs: math.MaxInt64, DB: math.MaxUint16, Key: []byte{0xff, 0}}},
		{"hashtag", ExpireKey{ExpireMs: 1, DB: 2, Key: []byte("{user1000}.followers")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.e.Append([]byte{0xaa})
			got, err := DecodeExpireKey(b[1:])
			if err != nil {
				t.Fatalf("DecodeExpireKey: %v", err)
			}
			if got.ExpireMs != tt.e.ExpireMs || got.DB != tt.e.DB || !bytes.Equal(got.Key, tt.e.Key) || got.Key == nil {
				t.Fatalf("DecodeExpireKey = %+v, want %+v", got, tt.e)
			}
			// The tail of an expire key is the key's metadata key.
			if mkey := AppendMetaKey(nil, tt.e.DB, tt.e.Key); !bytes.Equal(b[1+8:], mkey) {
				t.Fatalf("expire key %x does not end with meta key %x", b[1:], mkey)
			}
		})
	}
}

// TestExpireKeyGolden fails if and only if the on-disk format changed.
func TestExpireKeyGolden(t *testing.T) {
	tests := []struct {
		name string
		e    ExpireKey
		hex  string // expire_ms, db, slot, key
	}{
		{"foo", ExpireKey{ExpireMs: 1700000000000, DB: 0, Key: []byte("foo")}, "0000018bcfe56800 0000 2f96 666f6f"},
		{"bar db 2", ExpireKey{ExpireMs: 1, DB: 2, Key: []byte("bar")}, "0000000000000001 0002 13c5 626172"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := unhex(t, tt.hex)
			if got := tt.e.Append(nil); !bytes.Equal(got, want) {
				t.Fatalf("encoding changed:\n got %x\nwant %x", got, want)
			}
			if _, err := DecodeExpireKey(want); err != nil {
				t.Fatalf("DecodeExpireKey(%x): %v", want, err)
			}
		})
	}
}

func TestExpireUpToGolden(t *testing.T) {
	tests := []struct {
		name  string
		nowMs int64
		hex   string
	}{
		{"now", 1700000000000, "0000018bcfe56801"},
		{"zero", 0, "0000000000000001"},
		{"negative", -1, "0000000000000000"},
		{"min", math.MinInt64, "0000000000000000"},
		{"max", math.MaxInt64, "8000000000000000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := unhex(t, tt.hex)
			if got := AppendExpireUpTo(nil, tt.nowMs); !bytes.Equal(got, want) {
				t.Fatalf("AppendExpireUpTo(%d) = %x, want %x", tt.nowMs, got, want)
			}
		})
	}
}

// TestExpireUpToRange checks that an entry is below AppendExpireUpTo(nowMs) if
// and only if its expire_ms <= nowMs.
func TestExpireUpToRange(t *testing.T) {
	nows := []int64{-5, 0, 1, 1700000000000, math.MaxInt64 - 1, math.MaxInt64}
	expires := []int64{0, 1, 2, 1699999999999, 1700000000000, 1700000000001, math.MaxInt64 - 1, math.MaxInt64}
	keys := [][]byte{{}, []byte("foo"), {0xff, 0xff, 0xff, 0xff}}
	for _, now := range nows {
		bound := AppendExpireUpTo(nil, now)
		for _, exp := range expires {
			for _, key := range keys {
				ek := ExpireKey{ExpireMs: exp, DB: math.MaxUint16, Key: key}.Append(nil)
				if below := bytes.Compare(ek, bound) < 0; below != (exp <= now) {
					t.Errorf("now %d, expire %d, key %q: below bound = %v", now, exp, key, below)
				}
			}
		}
	}
}

func TestDecodeExpireKeyCorrupt(t *testing.T) {
	tests := []struct {
		name string
		hex  string
	}{
		{"empty", ""},
		{"expire only", "0000018bcfe56800"},
		{"short", "0000018bcfe56800 0000 2f"},
		{"negative", "8000000000000000 0000 2f96 666f6f"},
		{"wrong slot", "0000018bcfe56800 0000 2f97 666f6f"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeExpireKey(unhex(t, tt.hex))
			wantCorrupt(t, err)
		})
	}
}

// FuzzDecodeExpireKey checks that DecodeExpireKey never panics, wraps
// ErrCorrupt on error and accepts only canonical input.
func FuzzDecodeExpireKey(f *testing.F) {
	f.Add(ExpireKey{ExpireMs: 1700000000000, Key: []byte("foo")}.Append(nil))
	f.Add(ExpireKey{ExpireMs: 1, DB: 2, Key: []byte("{a}b")}.Append(nil))
	f.Add(ExpireKey{ExpireMs: -1, Key: []byte("foo")}.Append(nil))
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzLen {
			return
		}
		in := bytes.Clone(b)
		e, err := DecodeExpireKey(b)
		fuzzCheckErr(t, err)
		if err == nil {
			if got := e.Append(nil); !bytes.Equal(got, in) {
				t.Fatalf("accepted non-canonical input %x: re-encoded %x", in, got)
			}
			if e.ExpireMs < 0 {
				t.Fatalf("accepted negative expire %d", e.ExpireMs)
			}
		}
	})
}
