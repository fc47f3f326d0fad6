package types

import (
	"fmt"
	"testing"
)

// TestStreamTrimModel checks "~" trimming against the node model: a stream
// filled from empty holds runs of streamNodeEntries, and only whole runs go.
func TestStreamTrimModel(t *testing.T) {
	tests := []struct {
		name    string
		fill    int        // entries added, IDs 1-1 to fill-1
		exact   uint64     // an exact MAXLEN trim first (0: none)
		trim    StreamTrim // then this one
		removed int64
	}{
		{"maxlen keeps the node it would cut", 250, 0, StreamTrim{Strategy: TrimMaxLen, MaxLen: 200, Approx: true}, 0},
		{"maxlen removes whole nodes", 250, 0, StreamTrim{Strategy: TrimMaxLen, MaxLen: 120, Approx: true}, 100},
		{"maxlen 0 removes all", 250, 0, StreamTrim{Strategy: TrimMaxLen, Approx: true}, 250},
		{"a partial first node", 250, 230, StreamTrim{Strategy: TrimMaxLen, MaxLen: 10, Approx: true}, 180},
		{"limit below a node", 250, 0, StreamTrim{Strategy: TrimMaxLen, Approx: true, Limit: 99}, 0},
		{"limit of two nodes", 250, 0, StreamTrim{Strategy: TrimMaxLen, Approx: true, Limit: 200}, 200},
		{"minid whole nodes", 250, 0, StreamTrim{Strategy: TrimMinID, MinID: StreamID{Ms: 230}, Approx: true}, 200},
		{"minid exact", 250, 0, StreamTrim{Strategy: TrimMinID, MinID: StreamID{Ms: 230}}, 229},
		{"maxlen exact", 250, 0, StreamTrim{Strategy: TrimMaxLen, MaxLen: 7}, 243},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, _ := newTestDB(t)
			key := []byte("s")
			for i := 1; i <= tt.fill; i++ {
				a := XAddArgs{ID: StreamID{Ms: uint64(i), Seq: 1}, IDGiven: true, SeqGiven: true}
				if _, _, _, err := d.XAdd(key, a, [][]byte{[]byte("f"), []byte(fmt.Sprint(i))}); err != nil {
					t.Fatal(err)
				}
			}
			if tt.exact > 0 {
				must[int64](t)(d.XTrim(key, StreamTrim{Strategy: TrimMaxLen, MaxLen: tt.exact}))
			}
			before := must[int64](t)(d.XLen(key))
			if got := must[int64](t)(d.XTrim(key, tt.trim)); got != tt.removed {
				t.Fatalf("XTRIM removed %d, want %d", got, tt.removed)
			}
			if n := must[int64](t)(d.XLen(key)); n != before-tt.removed {
				t.Fatalf("XLEN %d after removing %d of %d", n, tt.removed, before)
			}
			info, ok, err := d.XInfoStream(key, false, 0)
			if err != nil || !ok {
				t.Fatalf("XInfoStream: %v, %v", ok, err)
			}
			all := must[[]StreamEntry](t)(d.XRange(key, StreamID{}, MaxStreamID, 0, false))
			if uint64(len(all)) != info.Length {
				t.Fatalf("XRANGE has %d entries, length %d", len(all), info.Length)
			}
			if len(all) > 0 && (all[0].ID != info.Header.FirstID || info.First == nil || info.First.ID != all[0].ID) {
				t.Fatalf("first entry %v, recorded %v", all[0].ID, info.Header.FirstID)
			}
			if len(all) == 0 && !info.Header.FirstID.IsZero() {
				t.Fatalf("empty stream records first ID %v", info.Header.FirstID)
			}
		})
	}
}

// TestStreamXAddIDs checks the IDs XADD gives: explicit, partial and from
// the clock, against the last ID.
func TestStreamXAddIDs(t *testing.T) {
	last := StreamID{Ms: 5, Seq: 7}
	tests := []struct {
		name string
		a    XAddArgs
		now  int64
		want StreamID
		err  error
	}{
		{"clock ahead", XAddArgs{}, 9, StreamID{Ms: 9}, nil},
		{"clock behind", XAddArgs{}, 3, StreamID{Ms: 5, Seq: 8}, nil},
		{"explicit", XAddArgs{ID: StreamID{Ms: 6}, IDGiven: true, SeqGiven: true}, 0, StreamID{Ms: 6}, nil},
		{"explicit equal", XAddArgs{ID: last, IDGiven: true, SeqGiven: true}, 0, last, ErrStreamIDTooSmall},
		{"partial same ms", XAddArgs{ID: StreamID{Ms: 5}, IDGiven: true}, 0, StreamID{Ms: 5, Seq: 8}, nil},
		{"partial later ms", XAddArgs{ID: StreamID{Ms: 6}, IDGiven: true}, 0, StreamID{Ms: 6}, nil},
		{"partial earlier ms", XAddArgs{ID: StreamID{Ms: 4}, IDGiven: true}, 0, StreamID{Ms: 4}, ErrStreamIDTooSmall},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := nextStreamID(last, tt.a, tt.now)
			if err != tt.err || (err == nil && got != tt.want) {
				t.Fatalf("nextStreamID = %v, %v; want %v, %v", got, err, tt.want, tt.err)
			}
		})
	}
	if got, err := nextStreamID(StreamID{Ms: 5, Seq: 1<<64 - 1}, XAddArgs{}, 1); err != nil || got != (StreamID{Ms: 6}) {
		t.Fatalf("clock behind a full ms: %v, %v", got, err)
	}
	if _, err := nextStreamID(StreamID{Ms: 5, Seq: 1<<64 - 1}, XAddArgs{ID: StreamID{Ms: 5}, IDGiven: true}, 1); err != ErrStreamIDTooSmall {
		t.Fatalf("partial ID past a full ms: %v", err)
	}
}
