package subkey

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"
)

func TestStreamGroupRoundTrip(t *testing.T) {
	for _, g := range []StreamGroupValue{
		{}, {GID: 9, LastMs: 1, LastSeq: 2, EntriesRead: -1, Pending: 3, Consumers: 4},
		{GID: math.MaxUint64, LastMs: math.MaxUint64, LastSeq: math.MaxUint64, EntriesRead: math.MaxInt64, Pending: 1 << 40},
	} {
		got, err := DecodeStreamGroupValue(g.Append(nil))
		if err != nil || got != g {
			t.Fatalf("group %+v: got %+v, %v", g, got, err)
		}
	}
	for _, c := range []StreamConsumerValue{{}, {CID: 5, SeenMs: -1, Pending: 7}} {
		got, err := DecodeStreamConsumerValue(c.Append(nil))
		if err != nil || got != c {
			t.Fatalf("consumer %+v: got %+v, %v", c, got, err)
		}
	}
	for _, p := range []StreamPendingValue{{Consumer: []byte{}}, {DeliveryMs: 1700000000000, Deliveries: 3, CID: 8, Consumer: []byte("alice")}} {
		got, err := DecodeStreamPendingValue(p.Append(nil))
		if err != nil || got.DeliveryMs != p.DeliveryMs || got.Deliveries != p.Deliveries || got.CID != p.CID || !bytes.Equal(got.Consumer, p.Consumer) {
			t.Fatalf("pending %+v: got %+v, %v", p, got, err)
		}
	}
	name, err := DecodeStreamGroupKey(AppendStreamGroupKey(nil, 3, []byte("g1")))
	if err != nil || string(name) != "g1" {
		t.Fatalf("group key: %q, %v", name, err)
	}
	name, err = DecodeStreamConsumerKey(AppendStreamConsumerKey(nil, 3, 4, []byte("c")))
	if err != nil || string(name) != "c" {
		t.Fatalf("consumer key: %q, %v", name, err)
	}
	ms, seq, err := DecodeStreamPendingKey(AppendStreamPendingKey(nil, 3, 4, 5, 6))
	if err != nil || ms != 5 || seq != 6 {
		t.Fatalf("pending key: %d-%d, %v", ms, seq, err)
	}
	ms, seq, err = DecodeStreamConsumerPendingKey(AppendStreamConsumerPendingKey(nil, 3, 4, 9, 5, 6))
	if err != nil || ms != 5 || seq != 6 {
		t.Fatalf("consumer pending key: %d-%d, %v", ms, seq, err)
	}
}

// TestStreamGroupOrder checks that a group's records of each kind are one
// range under the group's prefix, in Redis's order, and apart from the
// entries.
func TestStreamGroupOrder(t *testing.T) {
	p := AppendStreamPendingKey(nil, 7, 2, 0, 255)
	q := AppendStreamPendingKey(nil, 7, 2, 1, 0)
	if bytes.Compare(p, q) >= 0 || !bytes.HasPrefix(q, AppendStreamGroupPrefix(nil, 7, StreamPending, 2)) {
		t.Fatal("pending keys do not sort by ID under their group")
	}
	if bytes.Compare(AppendStreamPendingKey(nil, 7, 2, math.MaxUint64, math.MaxUint64), AppendStreamGroupPrefix(nil, 7, StreamPending, 3)) >= 0 {
		t.Fatal("a group's pending entries reach the next group's")
	}
	if bytes.Compare(AppendStreamGroupKey(nil, 7, []byte("a")), AppendStreamGroupKey(nil, 7, []byte("ab"))) >= 0 {
		t.Fatal("group names do not sort bytewise")
	}
	if bytes.Compare(AppendStreamEntryKey(nil, 7, math.MaxUint64, math.MaxUint64), AppendStreamGroupKey(nil, 7, nil)) >= 0 {
		t.Fatal("a group sorts among the entries")
	}
	if !bytes.HasPrefix(AppendStreamConsumerPendingKey(nil, 7, 2, 3, 4, 5), AppendPrefix(nil, 7)) {
		t.Fatal("a consumer's pending record is not under the uid")
	}
}

// TestStreamGroupGolden fails if and only if the on-disk format changed.
func TestStreamGroupGolden(t *testing.T) {
	tests := []struct {
		name string
		got  []byte
		hex  string
	}{
		{"group key", AppendStreamGroupKey(nil, 1, []byte("g")), "0000000000000001 02 67"},
		{"group value", StreamGroupValue{GID: 2, LastMs: 3, LastSeq: 4, EntriesRead: -1, Pending: 5, Consumers: 6}.Append(nil),
			"0000000000000002 0000000000000003 0000000000000004 ffffffffffffffff 0000000000000005 0000000000000006"},
		{"consumer key", AppendStreamConsumerKey(nil, 1, 2, []byte("c")), "0000000000000001 03 0000000000000002 63"},
		{"consumer value", StreamConsumerValue{CID: 3, SeenMs: 4, Pending: 5}.Append(nil), "0000000000000003 0000000000000004 0000000000000005"},
		{"pending key", AppendStreamPendingKey(nil, 1, 2, 3, 4), "0000000000000001 04 0000000000000002 0000000000000003 0000000000000004"},
		{"pending value", StreamPendingValue{DeliveryMs: 5, Deliveries: 6, CID: 7, Consumer: []byte("c")}.Append(nil), "0000000000000005 0000000000000006 0000000000000007 63"},
		{"consumer pending key", AppendStreamConsumerPendingKey(nil, 1, 2, 7, 3, 4), "0000000000000001 05 0000000000000002 0000000000000007 0000000000000003 0000000000000004"},
		{"kind", []byte{byte(StreamConsumerPending)}, "05"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if want := unhex(t, tt.hex); !bytes.Equal(tt.got, want) {
				t.Fatalf("encoding changed: got %x, want %x", tt.got, want)
			}
		})
	}
}

func TestStreamGroupCorrupt(t *testing.T) {
	_, err := DecodeStreamGroupValue(make([]byte, 47))
	wantCorrupt(t, err)
	_, err = DecodeStreamConsumerValue(make([]byte, 25))
	wantCorrupt(t, err)
	_, err = DecodeStreamPendingValue(make([]byte, 23))
	wantCorrupt(t, err)
	_, _, err = DecodeStreamPendingKey(AppendStreamEntryKey(nil, 1, 2, 3))
	wantCorrupt(t, err)
	_, _, err = DecodeStreamConsumerPendingKey(AppendStreamPendingKey(nil, 1, 2, 3, 4))
	wantCorrupt(t, err)
	_, err = DecodeStreamGroupKey(AppendStreamConsumerKey(nil, 1, 2, nil))
	wantCorrupt(t, err)
	_, err = DecodeStreamConsumerKey([]byte{0, 0, 0, 0, 0, 0, 0, 1, 3})
	wantCorrupt(t, err)
}

// FuzzDecodeStreamGroup checks that the group codecs never panic and
// accept only canonical input.
func FuzzDecodeStreamGroup(f *testing.F) {
	f.Add(StreamGroupValue{GID: 1, EntriesRead: -1}.Append(nil))
	f.Add(StreamConsumerValue{CID: 1}.Append(nil))
	f.Add(StreamPendingValue{CID: 1, Consumer: []byte("c")}.Append(nil))
	f.Add(AppendStreamPendingKey(nil, 1, 2, 3, 4))
	f.Fuzz(func(t *testing.T, b []byte) {
		if g, err := DecodeStreamGroupValue(b); err == nil && !bytes.Equal(g.Append(nil), b) {
			t.Fatalf("group value %x not canonical", b)
		}
		if c, err := DecodeStreamConsumerValue(b); err == nil && !bytes.Equal(c.Append(nil), b) {
			t.Fatalf("consumer value %x not canonical", b)
		}
		if p, err := DecodeStreamPendingValue(b); err == nil && !bytes.Equal(p.Append(nil), b) {
			t.Fatalf("pending value %x not canonical", b)
		}
		if ms, seq, err := DecodeStreamPendingKey(b); err == nil && !bytes.Equal(AppendStreamPendingKey(b[:0:0], be(b), be(b[9:]), ms, seq), b) {
			t.Fatalf("pending key %x not canonical", b)
		}
		if ms, seq, err := DecodeStreamConsumerPendingKey(b); err == nil && !bytes.Equal(AppendStreamConsumerPendingKey(nil, be(b), be(b[9:]), be(b[17:]), ms, seq), b) {
			t.Fatalf("consumer pending key %x not canonical", b)
		}
		if name, err := DecodeStreamGroupKey(b); err == nil && !bytes.Equal(AppendStreamGroupKey(nil, be(b), name), b) {
			t.Fatalf("group key %x not canonical", b)
		}
		if name, err := DecodeStreamConsumerKey(b); err == nil && !bytes.Equal(AppendStreamConsumerKey(nil, be(b), be(b[9:]), name), b) {
			t.Fatalf("consumer key %x not canonical", b)
		}
	})
}

// be reads the big-endian u64 at the start of b.
func be(b []byte) uint64 { return binary.BigEndian.Uint64(b) }
