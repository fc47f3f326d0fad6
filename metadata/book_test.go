package metadata

import (
	"bytes"
	"math"
	"testing"
)

func TestBookKeyRoundTrip(t *testing.T) {
	for _, uid := range []uint64{0, 1, 1 << 32, math.MaxUint64} {
		b := AppendBookKey([]byte{0xaa}, uid)
		got, err := DecodeBookKey(b[1:])
		if err != nil || got != uid {
			t.Fatalf("DecodeBookKey(%x) = %d, %v; want %d", b[1:], got, err, uid)
		}
	}
}

func TestBookRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		bk   Book
	}{
		{"hash", Book{Type: TypeHash, DB: 0, Key: []byte("foo")}},
		{"list empty key", Book{Type: TypeList, DB: 15, Key: []byte{}}},
		{"set binary", Book{Type: TypeSet, DB: math.MaxUint16, Key: []byte{0, 0xff}}},
		{"zset", Book{Type: TypeZSet, DB: 1, Key: []byte("{tag}z")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.bk.Append([]byte{0xaa})
			got, err := DecodeBook(b[1:])
			if err != nil {
				t.Fatalf("DecodeBook: %v", err)
			}
			if got.Type != tt.bk.Type || got.DB != tt.bk.DB || !bytes.Equal(got.Key, tt.bk.Key) || got.Key == nil {
				t.Fatalf("DecodeBook = %+v, want %+v", got, tt.bk)
			}
		})
	}
}

// TestBookGolden fails if and only if the on-disk format changed.
func TestBookGolden(t *testing.T) {
	t.Run("key", func(t *testing.T) {
		want := unhex(t, "0000000000000001")
		if got := AppendBookKey(nil, 1); !bytes.Equal(got, want) {
			t.Fatalf("encoding changed: got %x, want %x", got, want)
		}
	})
	tests := []struct {
		name string
		bk   Book
		hex  string // type, db, key
	}{
		{"hash", Book{Type: TypeHash, DB: 0, Key: []byte("foo")}, "02 0000 666f6f"},
		{"list empty key", Book{Type: TypeList, DB: 15}, "03 000f"},
		{"zset", Book{Type: TypeZSet, DB: 0x0102, Key: []byte("bar")}, "05 0102 626172"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := unhex(t, tt.hex)
			if got := tt.bk.Append(nil); !bytes.Equal(got, want) {
				t.Fatalf("encoding changed: got %x, want %x", got, want)
			}
			if _, err := DecodeBook(want); err != nil {
				t.Fatalf("DecodeBook(%x): %v", want, err)
			}
		})
	}
}

func TestDecodeBookCorrupt(t *testing.T) {
	tests := []struct {
		name string
		hex  string
	}{
		{"empty", ""},
		{"type only", "02"},
		{"short", "02 00"},
		{"type zero", "00 0000 666f6f"},
		{"type unknown", "07 0000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeBook(unhex(t, tt.hex))
			wantCorrupt(t, err)
		})
	}
	for _, n := range []int{0, 1, 7, 9, 16} {
		_, err := DecodeBookKey(make([]byte, n))
		wantCorrupt(t, err)
	}
}

// FuzzDecodeBook checks that DecodeBook and DecodeBookKey never panic, wrap
// ErrCorrupt on error and accept only canonical input.
func FuzzDecodeBook(f *testing.F) {
	f.Add(Book{Type: TypeHash, Key: []byte("foo")}.Append(nil))
	f.Add(Book{Type: TypeList, DB: 15}.Append(nil))
	f.Add([]byte{1, 0, 0, 'x'})
	f.Add(AppendBookKey(nil, 1))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzLen {
			return
		}
		in := bytes.Clone(b)
		bk, err := DecodeBook(b)
		fuzzCheckErr(t, err)
		if err == nil {
			if got := bk.Append(nil); !bytes.Equal(got, in) {
				t.Fatalf("accepted non-canonical input %x: re-encoded %x", in, got)
			}
			if !bk.Type.Composite() && bk.Type != TypeString {
				t.Fatalf("accepted type %d, which owns no elements", bk.Type)
			}
		}
		uid, err := DecodeBookKey(b)
		fuzzCheckErr(t, err)
		if err == nil {
			if got := AppendBookKey(nil, uid); !bytes.Equal(got, in) {
				t.Fatalf("book key: accepted non-canonical input %x", in)
			}
		}
	})
}
