package metadata

import (
	"bytes"
	"math"
	"testing"
)

func TestStreamMetaRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		m    Meta
	}{
		{"new", Meta{Type: TypeStream, UID: 1}},
		{"empty with history", Meta{Type: TypeStream, UID: 2, Stream: StreamMeta{LastID: StreamID{5, 1}, MaxDeletedID: StreamID{5, 1}, EntriesAdded: 3}}},
		{"full", Meta{Type: TypeStream, ExpireMs: 9, UID: 3, Size: 2, Stream: StreamMeta{
			LastID: StreamID{math.MaxUint64, math.MaxUint64}, FirstID: StreamID{1, 2}, MaxDeletedID: StreamID{3, 4},
			EntriesAdded: 1 << 40, Groups: 7}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			enc := tt.m.Append(nil)
			if len(enc) != metaStreamLen {
				t.Fatalf("record of %d bytes, want %d", len(enc), metaStreamLen)
			}
			got, err := DecodeMeta(enc)
			if err != nil {
				t.Fatalf("DecodeMeta: %v", err)
			}
			if got.Type != tt.m.Type || got.ExpireMs != tt.m.ExpireMs || got.UID != tt.m.UID || got.Size != tt.m.Size ||
				got.Stream != tt.m.Stream || got.Value != nil || got.Enc != EncUnknown {
				t.Fatalf("DecodeMeta = %+v, want %+v", got, tt.m)
			}
		})
	}
}

// TestStreamMetaGolden fails if and only if the stream record's format
// changed.
func TestStreamMetaGolden(t *testing.T) {
	m := Meta{Type: TypeStream, ExpireMs: 0x10, UID: 1, Size: 2, Stream: StreamMeta{
		LastID: StreamID{3, 4}, FirstID: StreamID{5, 6}, MaxDeletedID: StreamID{7, 8}, EntriesAdded: 9, Groups: 10}}
	want := unhex(t, "06 0000000000000010 0000000000000001 0000000000000002"+
		" 0000000000000003 0000000000000004 0000000000000005 0000000000000006"+
		" 0000000000000007 0000000000000008 0000000000000009 000000000000000a")
	if got := m.Append(nil); !bytes.Equal(got, want) {
		t.Fatalf("encoding changed: got %x, want %x", got, want)
	}
}

func TestStreamMetaCorrupt(t *testing.T) {
	good := Meta{Type: TypeStream, UID: 1, Size: 1}.Append(nil)
	for _, b := range [][]byte{good[:len(good)-1], append(bytes.Clone(good), 0), good[:metaCompositeLen]} {
		_, err := DecodeMeta(b)
		wantCorrupt(t, err)
	}
}

func TestStreamIDCompare(t *testing.T) {
	ids := []StreamID{{0, 0}, {0, 1}, {0, math.MaxUint64}, {1, 0}, {math.MaxUint64, math.MaxUint64}}
	for i, a := range ids {
		for j, b := range ids {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := a.Compare(b); got != want {
				t.Errorf("%v.Compare(%v) = %d, want %d", a, b, got, want)
			}
		}
	}
	if got := (StreamID{12, 34}).String(); got != "12-34" {
		t.Errorf("String = %q", got)
	}
}

// FuzzDecodeStreamMeta checks DecodeMeta on stream records: no panic, and
// only canonical records accepted.
func FuzzDecodeStreamMeta(f *testing.F) {
	f.Add(Meta{Type: TypeStream, UID: 1, Size: 2, Stream: StreamMeta{LastID: StreamID{3, 4}, EntriesAdded: 2}}.Append(nil))
	f.Add(Meta{Type: TypeStream, UID: 1}.Append(nil)[:40])
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzLen {
			return
		}
		in := bytes.Clone(b)
		m, err := DecodeMeta(b)
		fuzzCheckErr(t, err)
		if err == nil && !bytes.Equal(m.Append(nil), in) {
			t.Fatalf("accepted non-canonical %x", in)
		}
	})
}
