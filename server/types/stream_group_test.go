package types

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/shaledb/shale/server/store"
	"github.com/shaledb/shale/subkey"
)

// countingReader counts the records of consumer groups a command reads
// (its reads of entries are XRANGE's business, and the invariants build's
// size check walks them).
type countingReader struct {
	store.Reader
	records int
}

// count counts key if it is a group's record.
func (r *countingReader) count(cf store.CF, key []byte) {
	if cf == store.CFSubkey && len(key) > 8 && subkey.StreamKind(key[8]) >= subkey.StreamGroup {
		r.records++
	}
}

func (r *countingReader) Get(cf store.CF, key []byte) ([]byte, bool, error) {
	r.count(cf, key)
	return r.Reader.Get(cf, key)
}

func (r *countingReader) MultiGet(cf store.CF, keys [][]byte) ([][]byte, []bool, error) {
	for _, k := range keys {
		r.count(cf, k)
	}
	return r.Reader.MultiGet(cf, keys)
}

func (r *countingReader) Iterate(cf store.CF, lower, upper []byte, reverse bool, fn func(key, val []byte) bool) error {
	return r.Reader.Iterate(cf, lower, upper, reverse, func(k, v []byte) bool {
		r.count(cf, k)
		return fn(k, v)
	})
}

// counting returns a view of d that counts its reads.
func counting(d *DB) (*DB, *countingReader) {
	v := *d
	cr := &countingReader{Reader: d.rd}
	v.rd = cr
	return &v, cr
}

// TestStreamGroupBigPendingList checks that XPENDING (summary and a page
// of the extended form), XAUTOCLAIM, XREADGROUP's history, XACK and XGROUP
// DESTROY read a bounded number of records however long the group's
// pending list is: they seek by ID and keep counts in the group's record.
func TestStreamGroupBigPendingList(t *testing.T) {
	d, clock := newTestDB(t)
	key, group := []byte("s"), []byte("g")
	const n = 3000 // plenty to tell a seek from a walk, and quick with the invariants' size checks
	for i := 1; i <= n; i++ {
		must[StreamID](t)(func() (StreamID, error) {
			id, _, _, err := d.XAdd(key, XAddArgs{ID: StreamID{Ms: uint64(i)}, IDGiven: true, SeqGiven: true}, [][]byte{[]byte("f"), []byte("v")})
			return id, err
		}())
	}
	must[bool](t)(d.XGroupCreate(key, group, false, -1, func(StreamID) (StreamID, error) { return StreamID{}, nil }))
	got := must[[]StreamEntry](t)(d.XReadGroup(key, group, []byte("c1"), false, StreamID{}, 0, false))
	if len(got) != n {
		t.Fatalf("XREADGROUP delivered %d entries, want %d", len(got), n)
	}
	*clock += 10_000
	mid := StreamID{Ms: n / 2}
	for _, tt := range []struct {
		name string
		run  func(d *DB) error
		most int // records read
	}{
		{"xpending summary", func(d *DB) error {
			s, err := d.XPendingSummary(key, group)
			if err == nil && (s.Count != n || s.First.Ms != 1 || s.Last.Ms != n || len(s.Consumers) != 1) {
				err = fmt.Errorf("summary %+v", s)
			}
			return err
		}, 10},
		{"xpending page", func(d *DB) error {
			p, err := d.XPendingRange(key, group, mid, MaxStreamID, 10, 0, nil)
			if err == nil && (len(p) != 10 || p[0].ID != mid) {
				err = fmt.Errorf("page %+v", p)
			}
			return err
		}, 20},
		{"xpending consumer page", func(d *DB) error {
			p, err := d.XPendingRange(key, group, mid, MaxStreamID, 10, 0, []byte("c1"))
			if err == nil && len(p) != 10 {
				err = fmt.Errorf("page %+v", p)
			}
			return err
		}, 40},
		{"xreadgroup history", func(d *DB) error {
			e, err := d.XReadGroup(key, group, []byte("c1"), true, mid, 10, false)
			if err == nil && len(e) != 10 {
				err = fmt.Errorf("history %d entries", len(e))
			}
			return err
		}, 60},
		{"xautoclaim", func(d *DB) error {
			*clock += 10_000 // past the history read's redeliveries
			next, c, _, err := d.XAutoClaim(key, group, []byte("c2"), 1000, mid, 10, false)
			if err == nil && (len(c) != 10 || next.Ms != n/2+10) {
				err = fmt.Errorf("xautoclaim %v, %d claimed", next, len(c))
			}
			return err
		}, 80},
		{"xack", func(d *DB) error {
			a, err := d.XAck(key, group, []StreamID{{Ms: 1}, {Ms: 2}})
			if err == nil && a != 2 {
				err = fmt.Errorf("xack %d", a)
			}
			return err
		}, 20},
		{"xgroup destroy", func(d *DB) error {
			ok, err := d.XGroupDestroy(key, group)
			if err == nil && !ok {
				err = fmt.Errorf("not destroyed")
			}
			return err
		}, 10},
	} {
		v, cr := counting(d)
		if err := tt.run(v); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if cr.records > tt.most {
			t.Errorf("%s read %d records, want at most %d", tt.name, cr.records, tt.most)
		}
	}
	if err := d.StreamGroupExists(key, group); err != ErrNoGroup {
		t.Fatalf("after DESTROY: %v", err)
	}
	// Nothing of the destroyed group shows under a new one.
	must[bool](t)(d.XGroupCreate(key, group, false, -1, func(StreamID) (StreamID, error) { return StreamID{}, nil }))
	if s := must[PendingSummary](t)(d.XPendingSummary(key, group)); s.Count != 0 {
		t.Fatalf("a new group has %d pending", s.Count)
	}
	if p := must[[]PendingEntry](t)(d.XPendingRange(key, group, StreamID{}, MaxStreamID, 10, 0, nil)); len(p) != 0 {
		t.Fatalf("a new group lists %d pending", len(p))
	}
}

// lowerBoundReader records where each walk of a group's or a consumer's
// pending list starts.
type lowerBoundReader struct {
	store.Reader
	lowers [][]byte
}

func (r *lowerBoundReader) Iterate(cf store.CF, lower, upper []byte, reverse bool, fn func(key, val []byte) bool) error {
	if cf != store.CFSubkey || len(lower) <= 8 || reverse {
		return r.Reader.Iterate(cf, lower, upper, reverse, fn)
	}
	if kind := subkey.StreamKind(lower[8]); kind == subkey.StreamPending || kind == subkey.StreamConsumerPending {
		r.lowers = append(r.lowers, bytes.Clone(lower))
	}
	return r.Reader.Iterate(cf, lower, upper, reverse, fn)
}

// TestStreamPendingEdges: a worker's XAUTOCLAIM from 0-0 and XPENDING's
// first entry start past the entries acknowledged at the front of the
// pending list (store.Edges), and an entry pending again before that edge
// (XGROUP SETID back, then XREADGROUP) is seen again.
func TestStreamPendingEdges(t *testing.T) {
	d, clock := newTestDB(t)
	key, group := []byte("s"), []byte("g")
	const n = 100
	for i := 1; i <= n; i++ {
		must[StreamID](t)(func() (StreamID, error) {
			id, _, _, err := d.XAdd(key, XAddArgs{ID: StreamID{Ms: uint64(i)}, IDGiven: true, SeqGiven: true}, [][]byte{[]byte("f"), []byte("v")})
			return id, err
		}())
	}
	start := func(StreamID) (StreamID, error) { return StreamID{}, nil }
	must[bool](t)(d.XGroupCreate(key, group, false, -1, start))
	if got := must[[]StreamEntry](t)(d.XReadGroup(key, group, []byte("c1"), false, StreamID{}, 0, false)); len(got) != n {
		t.Fatalf("XREADGROUP delivered %d entries, want %d", len(got), n)
	}
	var acked []StreamID
	for i := 1; i <= 60; i++ {
		acked = append(acked, StreamID{Ms: uint64(i)})
	}
	if a := must[int64](t)(d.XAck(key, group, acked)); a != 60 {
		t.Fatalf("XACK acknowledged %d", a)
	}
	// The consumer's own list: XREADGROUP from 0 walks it from its front.
	history := func(d *DB) {
		t.Helper()
		e := must[[]StreamEntry](t)(d.XReadGroup(key, group, []byte("c1"), true, StreamID{}, 5, false))
		if len(e) != 5 || e[0].ID.Ms != 61 {
			t.Fatalf("XREADGROUP c1 0: %+v; want 5 from 61", e)
		}
	}
	history(d)
	hv := *d
	hr := &lowerBoundReader{Reader: d.rd}
	hv.rd = hr
	history(&hv)
	if len(hr.lowers) != 1 {
		t.Fatalf("XREADGROUP's history walked %d pending lists", len(hr.lowers))
	}
	if ms, _, err := subkey.DecodeStreamConsumerPendingKey(hr.lowers[0]); err != nil || ms != 61 {
		t.Errorf("the second XREADGROUP c1 0 started at entry %d (%v), want 61: past the acknowledged ones", ms, err)
	}
	*clock += 10_000
	claim := func(d *DB, want uint64) {
		t.Helper()
		_, c, _, err := d.XAutoClaim(key, group, []byte("c2"), 1000, StreamID{}, 5, true)
		if err != nil || len(c) != 5 || c[0].Entry.ID.Ms != want {
			t.Fatalf("XAUTOCLAIM 0-0: %v, %+v; want 5 from %d", err, c, want)
		}
	}
	claim(d, 61) // walks from the front, and moves the edge
	v := *d
	lr := &lowerBoundReader{Reader: d.rd}
	v.rd = lr
	*clock += 10_000
	claim(&v, 61)
	if len(lr.lowers) != 1 {
		t.Fatalf("XAUTOCLAIM walked the pending list %d times", len(lr.lowers))
	}
	if ms, _, err := subkey.DecodeStreamPendingKey(lr.lowers[0]); err != nil || ms != 61 {
		t.Errorf("the second XAUTOCLAIM 0-0 started at entry %d (%v), want 61: past the acknowledged ones", ms, err)
	}
	if s := must[PendingSummary](t)(d.XPendingSummary(key, group)); s.First.Ms != 61 || s.Last.Ms != n || s.Count != 40 {
		t.Fatalf("XPENDING summary %+v", s)
	}
	// Pending again before the edge.
	if err := d.XGroupSetID(key, group, -1, start); err != nil {
		t.Fatal(err)
	}
	if got := must[[]StreamEntry](t)(d.XReadGroup(key, group, []byte("c3"), false, StreamID{}, 10, false)); len(got) != 10 {
		t.Fatalf("XREADGROUP after SETID delivered %d", len(got))
	}
	if s := must[PendingSummary](t)(d.XPendingSummary(key, group)); s.First.Ms != 1 || s.Count != 50 {
		t.Fatalf("XPENDING summary after redelivery %+v", s)
	}
	*clock += 10_000
	claim(d, 1)
}
