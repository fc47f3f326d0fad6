package subkey

import (
	"bytes"
	"math"
	"testing"
)

func TestStreamEntryKeyRoundTrip(t *testing.T) {
	for _, tt := range []struct{ uid, ms, seq uint64 }{
		{1, 0, 1}, {1 << 40, 1700000000000, 7}, {math.MaxUint64, math.MaxUint64, math.MaxUint64},
	} {
		k := AppendStreamEntryKey(nil, tt.uid, tt.ms, tt.seq)
		uid, ms, seq, err := DecodeStreamEntryKey(k)
		if err != nil || uid != tt.uid || ms != tt.ms || seq != tt.seq {
			t.Fatalf("DecodeStreamEntryKey(%x) = %d, %d, %d, %v; want %+v", k, uid, ms, seq, err, tt)
		}
		if !bytes.HasPrefix(k, AppendStreamKindPrefix(nil, tt.uid, StreamEntry)) || !bytes.HasPrefix(k, AppendPrefix(nil, tt.uid)) {
			t.Fatalf("key %x lacks its prefixes", k)
		}
	}
}

// TestStreamEntryKeyOrder checks that entry keys sort by ID, and below every
// record of a later kind.
func TestStreamEntryKeyOrder(t *testing.T) {
	ids := [][2]uint64{{0, 1}, {0, 255}, {0, 256}, {1, 0}, {256, 0}, {math.MaxUint64, math.MaxUint64}}
	for i := 1; i < len(ids); i++ {
		a := AppendStreamEntryKey(nil, 7, ids[i-1][0], ids[i-1][1])
		b := AppendStreamEntryKey(nil, 7, ids[i][0], ids[i][1])
		if bytes.Compare(a, b) >= 0 {
			t.Fatalf("%v does not sort before %v", ids[i-1], ids[i])
		}
	}
	last := AppendStreamEntryKey(nil, 7, math.MaxUint64, math.MaxUint64)
	if bytes.Compare(last, AppendStreamKindPrefix(nil, 7, StreamGroup)) >= 0 {
		t.Fatal("an entry sorts among the groups")
	}
}

// TestStreamGolden fails if and only if the on-disk format changed.
func TestStreamGolden(t *testing.T) {
	tests := []struct {
		name string
		got  []byte
		hex  string
	}{
		{"entry key", AppendStreamEntryKey(nil, 1, 2, 3), "0000000000000001 01 0000000000000002 0000000000000003"},
		{"kind prefix", AppendStreamKindPrefix(nil, 1, StreamPending), "0000000000000001 04"},
		{"value", AppendStreamValue(nil, [][]byte{[]byte("f"), {}}), "02 01 66 00"},
		{"value long", AppendStreamValue(nil, [][]byte{bytes.Repeat([]byte{'x'}, 200), []byte("v")}), "02 c801 " + string(bytes.Repeat([]byte("78"), 200)) + " 01 76"},
		{"kinds", []byte{byte(StreamEntry), byte(StreamGroup), byte(StreamConsumer), byte(StreamPending)}, "01 02 03 04"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if want := unhex(t, tt.hex); !bytes.Equal(tt.got, want) {
				t.Fatalf("encoding changed: got %x, want %x", tt.got, want)
			}
		})
	}
}

func TestStreamValueRoundTrip(t *testing.T) {
	for _, items := range [][][]byte{
		{[]byte("a"), []byte("1")},
		{{}, {}},
		{[]byte("f\x00\r\n"), bytes.Repeat([]byte("v"), 1000), []byte("g"), []byte("")},
	} {
		v := AppendStreamValue(nil, items)
		got, err := DecodeStreamValue(nil, v)
		if err != nil || len(got) != len(items) {
			t.Fatalf("DecodeStreamValue(%x) = %q, %v", v, got, err)
		}
		for i := range items {
			if !bytes.Equal(got[i], items[i]) || got[i] == nil {
				t.Fatalf("item %d = %q, want %q (non-nil)", i, got[i], items[i])
			}
		}
	}
}

func TestStreamCorrupt(t *testing.T) {
	for _, b := range [][]byte{
		{}, {0}, {1, 0}, {2, 1, 'a'}, {2, 0, 0, 0}, {2, 0x80, 0x00, 0}, {0x82, 0x00, 0, 0}, {4, 0, 0},
		{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, {2, 5, 'a', 0},
	} {
		_, err := DecodeStreamValue(nil, b)
		wantCorrupt(t, err)
	}
	for _, b := range [][]byte{AppendStreamEntryKey(nil, 1, 2, 3)[:24], append(AppendStreamEntryKey(nil, 1, 2, 3), 0),
		append(AppendStreamKindPrefix(nil, 1, StreamGroup), make([]byte, 16)...)} {
		_, _, _, err := DecodeStreamEntryKey(b)
		wantCorrupt(t, err)
	}
}

// FuzzDecodeStream checks that the stream decoders never panic, wrap
// ErrCorrupt on error and accept only canonical input.
func FuzzDecodeStream(f *testing.F) {
	f.Add(AppendStreamEntryKey(nil, 1, 2, 3))
	f.Add(AppendStreamValue(nil, [][]byte{[]byte("f"), []byte("v")}))
	f.Add([]byte{2, 0x80, 0x00, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzLen {
			return
		}
		in := bytes.Clone(b)
		uid, ms, seq, err := DecodeStreamEntryKey(b)
		fuzzCheckErr(t, err)
		if err == nil && !bytes.Equal(AppendStreamEntryKey(nil, uid, ms, seq), in) {
			t.Fatalf("DecodeStreamEntryKey accepted non-canonical %x", in)
		}
		items, err := DecodeStreamValue(nil, b)
		fuzzCheckErr(t, err)
		if err == nil && !bytes.Equal(AppendStreamValue(nil, items), in) {
			t.Fatalf("DecodeStreamValue accepted non-canonical %x", in)
		}
	})
}
