package metadata

import (
	"bytes"
	"math"
	"reflect"
	"testing"
)

func TestMetaRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		m    Meta
	}{
		{"string", Meta{Type: TypeString, Value: []byte("bar")}},
		{"string empty", Meta{Type: TypeString, Value: []byte{}}},
		{"string binary ttl", Meta{Type: TypeString, ExpireMs: 1700000000000, Value: []byte{0, 0xff, 0, 1}}},
		{"string max expire", Meta{Type: TypeString, ExpireMs: math.MaxInt64, Value: []byte("x")}},
		{"hash", Meta{Type: TypeHash, UID: 1, Size: 2}},
		{"hash max", Meta{Type: TypeHash, ExpireMs: math.MaxInt64, UID: math.MaxUint64, Size: math.MaxUint64}},
		{"set", Meta{Type: TypeSet, ExpireMs: 5, UID: 42, Size: 1}},
		{"zset", Meta{Type: TypeZSet, UID: 9, Size: 1 << 40}},
		{"hash listpack", Meta{Type: TypeHash, UID: 1, Size: 2, Enc: EncListpack}},
		{"hash hashtable", Meta{Type: TypeHash, ExpireMs: 9, UID: 1, Size: 2, Enc: EncHashtable}},
		{"set intset", Meta{Type: TypeSet, UID: 42, Size: 1, Enc: EncIntset}},
		{"set hashtable", Meta{Type: TypeSet, UID: 42, Size: 1, Enc: EncHashtable}},
		{"zset listpack", Meta{Type: TypeZSet, UID: 9, Size: 1, Enc: EncListpack}},
		{"zset skiplist", Meta{Type: TypeZSet, UID: 9, Size: 1, Enc: EncSkiplist}},
		{"list new", Meta{Type: TypeList, UID: 3, Head: 1 << 63, Tail: 1 << 63}},
		{"list", Meta{Type: TypeList, ExpireMs: 1, UID: 7, Size: 3, Head: 1<<63 - 1, Tail: 1<<63 + 2}},
		{"fragmented string", Meta{Type: TypeString, Frag: true, UID: 5, Size: 1 << 29}},
		{"raw string", Meta{Type: TypeString, Raw: true, ExpireMs: 3, Value: []byte("ab")}},
		{"raw string empty", Meta{Type: TypeString, Raw: true, Value: []byte{}}},
		{"fragmented string ttl", Meta{Type: TypeString, Frag: true, ExpireMs: 9, UID: math.MaxUint64, Size: 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prefix := []byte("prefix")
			enc := tt.m.Append(bytes.Clone(prefix))
			if !bytes.HasPrefix(enc, prefix) {
				t.Fatalf("Append clobbered dst: %x", enc)
			}
			got, err := DecodeMeta(enc[len(prefix):])
			if err != nil {
				t.Fatalf("DecodeMeta: %v", err)
			}
			if got.Type != tt.m.Type || got.ExpireMs != tt.m.ExpireMs || got.UID != tt.m.UID ||
				got.Size != tt.m.Size || got.Head != tt.m.Head || got.Tail != tt.m.Tail || got.Enc != tt.m.Enc ||
				got.Frag != tt.m.Frag || got.Raw != tt.m.Raw || !bytes.Equal(got.Value, tt.m.Value) {
				t.Fatalf("DecodeMeta = %+v, want %+v", got, tt.m)
			}
			if tt.m.Type == TypeString && !tt.m.Frag && got.Value == nil {
				t.Fatal("string Value is nil, want non-nil")
			}
			if (tt.m.Type != TypeString || tt.m.Frag) && got.Value != nil {
				t.Fatalf("composite Value = %x, want nil", got.Value)
			}
		})
	}
}

// TestMetaAppendIgnoresUnusedFields checks that fields a type does not use
// are not written.
func TestMetaAppendIgnoresUnusedFields(t *testing.T) {
	tests := []struct {
		name       string
		m, cleaned Meta
	}{
		{"string", Meta{Type: TypeString, UID: 1, Size: 2, Head: 3, Tail: 4, Enc: EncListpack, Value: []byte("v")}, Meta{Type: TypeString, Value: []byte("v")}},
		{"list", Meta{Type: TypeList, UID: 1, Size: 2, Head: 3, Tail: 4, Enc: EncListpack}, Meta{Type: TypeList, UID: 1, Size: 2, Head: 3, Tail: 4}},
		{"hash", Meta{Type: TypeHash, UID: 1, Size: 2, Head: 3, Tail: 4, Value: []byte("v")}, Meta{Type: TypeHash, UID: 1, Size: 2}},
		{"unknown type", Meta{Type: 0, ExpireMs: 1, UID: 1, Value: []byte("v")}, Meta{Type: 0, ExpireMs: 1}},
		{"fragmented string", Meta{Type: TypeString, Frag: true, UID: 1, Size: 2, Head: 3, Enc: EncListpack, Value: []byte("v")}, Meta{Type: TypeString, Frag: true, UID: 1, Size: 2}},
		{"frag on a hash", Meta{Type: TypeHash, Frag: true, UID: 1, Size: 2}, Meta{Type: TypeHash, UID: 1, Size: 2}},
		{"raw on a hash", Meta{Type: TypeHash, Raw: true, UID: 1, Size: 2}, Meta{Type: TypeHash, UID: 1, Size: 2}},
		{"raw fragmented string", Meta{Type: TypeString, Raw: true, Frag: true, UID: 1, Size: 2}, Meta{Type: TypeString, Frag: true, UID: 1, Size: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, want := tt.m.Append(nil), tt.cleaned.Append(nil); !bytes.Equal(got, want) {
				t.Fatalf("Append = %x, want %x", got, want)
			}
		})
	}
}

// TestMetaGolden fails if and only if the on-disk format changed.
func TestMetaGolden(t *testing.T) {
	tests := []struct {
		name string
		m    Meta
		hex  string // type, expire_ms, payload
	}{
		{"string", Meta{Type: TypeString, Value: []byte("bar")},
			"01 0000000000000000 626172"},
		{"string empty ttl", Meta{Type: TypeString, ExpireMs: 1700000000000},
			"01 0000018bcfe56800"},
		{"hash", Meta{Type: TypeHash, UID: 1, Size: 2},
			"02 0000000000000000 0000000000000001 0000000000000002"},
		{"list", Meta{Type: TypeList, UID: 7, Size: 3, Head: 1<<63 - 1, Tail: 1<<63 + 2},
			"03 0000000000000000 0000000000000007 0000000000000003 7fffffffffffffff 8000000000000002"},
		{"set ttl", Meta{Type: TypeSet, ExpireMs: 1700000000000, UID: 0x0102030405060708, Size: 3},
			"04 0000018bcfe56800 0102030405060708 0000000000000003"},
		{"zset", Meta{Type: TypeZSet, UID: 9, Size: 1},
			"05 0000000000000000 0000000000000009 0000000000000001"},
		// Format 2: the encoding byte after size.
		{"hash listpack", Meta{Type: TypeHash, UID: 1, Size: 2, Enc: EncListpack},
			"02 0000000000000000 0000000000000001 0000000000000002 01"},
		{"hash hashtable", Meta{Type: TypeHash, UID: 1, Size: 2, Enc: EncHashtable},
			"02 0000000000000000 0000000000000001 0000000000000002 03"},
		{"set intset", Meta{Type: TypeSet, UID: 1, Size: 2, Enc: EncIntset},
			"04 0000000000000000 0000000000000001 0000000000000002 02"},
		{"set hashtable", Meta{Type: TypeSet, UID: 1, Size: 2, Enc: EncHashtable},
			"04 0000000000000000 0000000000000001 0000000000000002 03"},
		{"zset listpack", Meta{Type: TypeZSet, UID: 1, Size: 2, Enc: EncListpack},
			"05 0000000000000000 0000000000000001 0000000000000002 01"},
		{"zset skiplist", Meta{Type: TypeZSet, UID: 1, Size: 2, Enc: EncSkiplist},
			"05 0000000000000000 0000000000000001 0000000000000002 04"},
		// Format 2: a fragmented string (subkey/strfrag.go holds its value).
		{"fragmented string", Meta{Type: TypeString, Frag: true, ExpireMs: 1700000000000, UID: 7, Size: 1 << 29},
			"81 0000018bcfe56800 0000000000000007 0000000020000000"},
		// Format 2: a raw-encoded whole string.
		{"raw string", Meta{Type: TypeString, Raw: true, Value: []byte("bar")},
			"41 0000000000000000 626172"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := unhex(t, tt.hex)
			if got := tt.m.Append(nil); !bytes.Equal(got, want) {
				t.Fatalf("encoding changed:\n got %x\nwant %x", got, want)
			}
			m, err := DecodeMeta(want)
			if err != nil {
				t.Fatalf("DecodeMeta(%x): %v", want, err)
			}
			if got := m.Append(nil); !bytes.Equal(got, want) {
				t.Fatalf("decoding changed: re-encoded %x", got)
			}
		})
	}
}

func TestDecodeMetaCorrupt(t *testing.T) {
	tests := []struct {
		name string
		hex  string
	}{
		{"empty", ""},
		{"type only", "01"},
		{"short header", "01 00000000000000"},
		{"type zero", "00 0000000000000000"},
		{"type unknown", "06 0000000000000000 0000000000000001 0000000000000002"},
		{"type 255", "ff 0000000000000000"},
		{"negative expire", "01 8000000000000000 626172"},
		{"expire -1", "02 ffffffffffffffff 0000000000000001 0000000000000002"},
		{"hash header only", "02 0000000000000000"},
		{"hash short", "02 0000000000000000 0000000000000001 00000000000000"},
		{"hash encoding unknown", "02 0000000000000000 0000000000000001 0000000000000002 00"},
		{"hash intset", "02 0000000000000000 0000000000000001 0000000000000002 02"},
		{"hash skiplist", "02 0000000000000000 0000000000000001 0000000000000002 04"},
		{"hash encoding 5", "02 0000000000000000 0000000000000001 0000000000000002 05"},
		{"hash trailing", "02 0000000000000000 0000000000000001 0000000000000002 01 00"},
		{"set listpack", "04 0000000000000000 0000000000000001 0000000000000002 01"},
		{"set skiplist", "04 0000000000000000 0000000000000001 0000000000000002 04"},
		{"zset intset", "05 0000000000000000 0000000000000001 0000000000000002 02"},
		{"zset hashtable", "05 0000000000000000 0000000000000001 0000000000000002 03"},
		{"set short", "04 0000000000000000 0000000000000001"},
		{"zset trailing", "05 0000000000000000 0000000000000001 0000000000000002 0000000000000003"},
		{"list as hash", "03 0000000000000000 0000000000000001 0000000000000002"},
		{"list short", "03 0000000000000000 0000000000000001 0000000000000002 0000000000000003 00000000000000"},
		{"fragmented string short", "81 0000000000000000 0000000000000001 00000000000000"},
		{"fragmented string trailing", "81 0000000000000000 0000000000000001 0000000000000002 00"},
		{"fragmented string header only", "81 0000000000000000"},
		{"fragmented negative expire", "81 8000000000000000 0000000000000001 0000000000000002"},
		{"type 0x82", "82 0000000000000000 0000000000000001 0000000000000002"},
		{"type 0x42", "42 0000000000000000 0000000000000001 0000000000000002"},
		{"raw header short", "41 00000000000000"},
		{"raw negative expire", "41 8000000000000000 626172"},
		{"list trailing", "03 0000000000000000 0000000000000001 0000000000000002 0000000000000003 0000000000000004 00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeMeta(unhex(t, tt.hex))
			wantCorrupt(t, err)
		})
	}
}

// TestDecodeMetaAliases documents that a decoded string Value aliases the
// input and cannot grow into memory past it.
func TestDecodeMetaAliases(t *testing.T) {
	b := Meta{Type: TypeString, Value: []byte("abc")}.Append(make([]byte, 0, 64))
	m, err := DecodeMeta(b)
	if err != nil {
		t.Fatal(err)
	}
	b[MetaHeaderLen] = 'X'
	if string(m.Value) != "Xbc" {
		t.Fatalf("Value = %q, want it to alias the input", m.Value)
	}
	if cap(m.Value) != len(m.Value) {
		t.Fatalf("cap(Value) = %d, want %d", cap(m.Value), len(m.Value))
	}
}

func TestMetaExpired(t *testing.T) {
	tests := []struct {
		name     string
		expireMs int64
		nowMs    int64
		want     bool
	}{
		{"no expiry", 0, 1700000000000, false},
		{"no expiry at zero", 0, 0, false},
		{"future", 1700000000001, 1700000000000, false},
		{"now", 1700000000000, 1700000000000, true},
		{"past", 1699999999999, 1700000000000, true},
		{"max", math.MaxInt64, math.MaxInt64 - 1, false},
		{"max now", math.MaxInt64, math.MaxInt64, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, typ := range []Type{TypeString, TypeHash, TypeList} {
				if got := (Meta{Type: typ, ExpireMs: tt.expireMs}).Expired(tt.nowMs); got != tt.want {
					t.Errorf("%s: Expired(%d) with ExpireMs %d = %v, want %v", typ, tt.nowMs, tt.expireMs, got, tt.want)
				}
			}
		})
	}
}

func TestMetaHeaderLen(t *testing.T) {
	if n := len(Meta{Type: TypeString}.Append(nil)); n != MetaHeaderLen {
		t.Fatalf("empty string record is %d bytes, MetaHeaderLen is %d", n, MetaHeaderLen)
	}
}

func TestHeadLen(t *testing.T) {
	long := bytes.Repeat([]byte("v"), 1000)
	for _, tc := range []struct {
		name string
		m    Meta
		want int // -1: the whole record
	}{
		{"whole string", Meta{Type: TypeString, ExpireMs: 5, Value: long}, MetaHeaderLen},
		{"raw string", Meta{Type: TypeString, Raw: true, Value: long}, MetaHeaderLen},
		{"empty string", Meta{Type: TypeString}, MetaHeaderLen},
		{"fragmented string", Meta{Type: TypeString, Frag: true, UID: 1, Size: 1 << 20}, -1},
		{"hash", Meta{Type: TypeHash, UID: 1, Size: 2, Enc: EncListpack}, -1},
		{"list", Meta{Type: TypeList, UID: 1, Size: 1, Head: 7, Tail: 8}, -1},
	} {
		rec := tc.m.Append(nil)
		want := tc.want
		if want < 0 {
			want = len(rec)
		}
		if got := HeadLen(rec); got != want {
			t.Errorf("%s: HeadLen = %d, want %d", tc.name, got, want)
		}
		// The head decodes as the same key, a string without its value.
		m, err := DecodeMeta(rec[:HeadLen(rec)])
		if err != nil {
			t.Fatalf("%s: the head does not decode: %v", tc.name, err)
		}
		if len(m.Value) != 0 {
			t.Errorf("%s: the head holds %d bytes of value", tc.name, len(m.Value))
		}
		tc.m.Value, m.Value = nil, nil
		if !reflect.DeepEqual(m, tc.m) {
			t.Errorf("%s: head decodes as %+v, want %+v", tc.name, m, tc.m)
		}
	}
	if got := HeadLen([]byte{byte(TypeString)}); got != 1 {
		t.Errorf("HeadLen of a short record = %d, want 1", got)
	}
}

// FuzzDecodeMeta checks that DecodeMeta never panics, wraps ErrCorrupt on
// error, and accepts only canonical input. It also drives the fixed-width
// decoders of the default-CF system values (DecodeU64, DecodeU32,
// DecodeCounter), which `make fuzz` has no separate target for.
func FuzzDecodeMeta(f *testing.F) {
	for _, m := range []Meta{
		{Type: TypeString, Value: []byte("bar")},
		{Type: TypeString, ExpireMs: 1700000000000},
		{Type: TypeString, Frag: true, UID: 3, Size: 5000},
		{Type: TypeString, Raw: true, Value: []byte("x")},
		{Type: TypeHash, UID: 1, Size: 2},
		{Type: TypeList, UID: 7, Size: 3, Head: 1<<63 - 1, Tail: 1<<63 + 2},
		{Type: TypeSet, ExpireMs: 1, UID: 3, Size: 1},
		{Type: TypeZSet, UID: 9, Size: 1},
		{Type: TypeHash, UID: 1, Size: 2, Enc: EncHashtable},
		{Type: TypeSet, UID: 3, Size: 1, Enc: EncIntset},
		{Type: TypeZSet, UID: 9, Size: 1, Enc: EncSkiplist},
	} {
		f.Add(m.Append(nil))
	}
	f.Add([]byte{})
	f.Add([]byte{6, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add(EncodeCounterDelta(nil, -1))
	f.Add(EncodeU32(nil, FormatVersion))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzLen {
			return
		}
		in := bytes.Clone(b)
		m, err := DecodeMeta(b)
		fuzzCheckErr(t, err)
		if err == nil {
			if got := m.Append(nil); !bytes.Equal(got, in) {
				t.Fatalf("accepted non-canonical input %x: re-encoded %x", in, got)
			}
			if !m.Type.Valid() || m.ExpireMs < 0 || (m.Enc != EncUnknown && !m.Type.validEncoding(m.Enc)) {
				t.Fatalf("accepted invalid record %x: %+v", in, m)
			}
		}
		if !bytes.Equal(b, in) {
			t.Fatalf("DecodeMeta modified its input")
		}

		if v, err := DecodeU64(b); err == nil {
			if got := EncodeU64(nil, v); !bytes.Equal(got, in) {
				t.Fatalf("DecodeU64 accepted non-canonical %x", in)
			}
		} else {
			fuzzCheckErr(t, err)
		}
		if v, err := DecodeU32(b); err == nil {
			if got := EncodeU32(nil, v); !bytes.Equal(got, in) {
				t.Fatalf("DecodeU32 accepted non-canonical %x", in)
			}
		} else {
			fuzzCheckErr(t, err)
		}
		if v, err := DecodeCounter(b); err == nil {
			if got := EncodeCounterDelta(nil, v); !bytes.Equal(got, in) {
				t.Fatalf("DecodeCounter accepted non-canonical %x", in)
			}
		} else {
			fuzzCheckErr(t, err)
		}
	})
}

// TestMetaEncodingMigration checks the format-1 to format-2 migration: a
// legacy 25-byte record decodes with EncUnknown and re-encodes unchanged,
// and the same record with an encoding becomes 26 bytes.
func TestMetaEncodingMigration(t *testing.T) {
	for _, typ := range []Type{TypeHash, TypeSet, TypeZSet} {
		legacy := Meta{Type: typ, UID: 5, Size: 3}.Append(nil)
		m, err := DecodeMeta(legacy)
		if err != nil || m.Enc != EncUnknown {
			t.Fatalf("%s: DecodeMeta(legacy) = %+v, %v", typ, m, err)
		}
		if got := m.Append(nil); !bytes.Equal(got, legacy) {
			t.Fatalf("%s: legacy record re-encoded as %x", typ, got)
		}
		for _, e := range []Encoding{typ.Compact(), typ.Converted()} {
			m.Enc = e
			b := m.Append(nil)
			if len(b) != len(legacy)+1 || Encoding(b[len(b)-1]) != e {
				t.Fatalf("%s %s: encoded %x", typ, e, b)
			}
			if got, err := DecodeMeta(b); err != nil || got.Enc != e {
				t.Fatalf("%s %s: DecodeMeta = %+v, %v", typ, e, got, err)
			}
		}
	}
}

func TestEncodingNames(t *testing.T) {
	tests := []struct {
		typ                Type
		compact, converted string
	}{
		{TypeHash, "listpack", "hashtable"},
		{TypeSet, "intset", "hashtable"},
		{TypeZSet, "listpack", "skiplist"},
		{TypeString, "unknown", "unknown"},
		{TypeList, "unknown", "unknown"},
	}
	for _, tt := range tests {
		if got := tt.typ.Compact().String(); got != tt.compact {
			t.Errorf("%s Compact = %s, want %s", tt.typ, got, tt.compact)
		}
		if got := tt.typ.Converted().String(); got != tt.converted {
			t.Errorf("%s Converted = %s, want %s", tt.typ, got, tt.converted)
		}
	}
	if got := Encoding(9).String(); got != "unknown(9)" {
		t.Errorf("Encoding(9) = %s", got)
	}
}
