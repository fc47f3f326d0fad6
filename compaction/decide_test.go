package compaction

import (
	"errors"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/shaledb/shale/metadata"
	"github.com/shaledb/shale/subkey"
)

const nowMs = 1_700_000_000_000

func book(t metadata.Type, key string) []byte {
	return metadata.Book{Type: t, DB: 0, Key: []byte(key)}.Append(nil)
}

func meta(t metadata.Type, uid uint64, expire int64) []byte {
	return metadata.Meta{Type: t, UID: uid, Size: 1, ExpireMs: expire}.Append(nil)
}

func TestDecide(t *testing.T) {
	tests := []struct {
		name string
		uid  uint64
		o    Owner
		want Verdict
	}{
		{"no bookkeeping", 7, Owner{}, Dead},
		{"live", 7, Owner{BookFound: true, Book: book(metadata.TypeHash, "h"), MetaFound: true, Meta: meta(metadata.TypeHash, 7, 0), SnapMs: nowMs}, Keep},
		{"metadata missing", 7, Owner{BookFound: true, Book: book(metadata.TypeHash, "h"), SnapMs: nowMs}, Dead},
		{"recreated with a new uid", 7, Owner{BookFound: true, Book: book(metadata.TypeHash, "h"), MetaFound: true, Meta: meta(metadata.TypeHash, 8, 0), SnapMs: nowMs}, Dead},
		{"overwritten by another type", 7, Owner{BookFound: true, Book: book(metadata.TypeHash, "h"), MetaFound: true, Meta: meta(metadata.TypeSet, 7, 0), SnapMs: nowMs}, Dead},
		{"overwritten by a string", 7, Owner{BookFound: true, Book: book(metadata.TypeHash, "h"), MetaFound: true, Meta: metadata.Meta{Type: metadata.TypeString, Value: []byte("x")}.Append(nil), SnapMs: nowMs}, Dead},
		{"expired long ago", 7, Owner{BookFound: true, Book: book(metadata.TypeHash, "h"), MetaFound: true, Meta: meta(metadata.TypeHash, 7, nowMs-ExpiryGraceMs-1), SnapMs: nowMs}, Dead},
		{"expired within the grace", 7, Owner{BookFound: true, Book: book(metadata.TypeHash, "h"), MetaFound: true, Meta: meta(metadata.TypeHash, 7, nowMs-1), SnapMs: nowMs}, Keep},
		{"expired on a replica", 7, Owner{BookFound: true, Book: book(metadata.TypeHash, "h"), MetaFound: true, Meta: meta(metadata.TypeHash, 7, nowMs-ExpiryGraceMs-1), SnapMs: nowMs, Replica: true}, Keep},
		{"deleted on a replica", 7, Owner{BookFound: true, Book: book(metadata.TypeHash, "h"), SnapMs: nowMs, Replica: true}, Dead},
		{"expires later", 7, Owner{BookFound: true, Book: book(metadata.TypeHash, "h"), MetaFound: true, Meta: meta(metadata.TypeHash, 7, nowMs+1000), SnapMs: nowMs}, Keep},
		{"corrupt bookkeeping", 7, Owner{BookFound: true, Book: []byte{0xee}, SnapMs: nowMs}, Keep},
		{"corrupt metadata", 7, Owner{BookFound: true, Book: book(metadata.TypeHash, "h"), MetaFound: true, Meta: []byte{0xee, 1}, SnapMs: nowMs}, Keep},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Decide(tt.uid, tt.o); got != tt.want {
				t.Fatalf("Decide = %v, want %v", got, tt.want)
			}
		})
	}
}

// fakeReader serves owners from a map and counts lookups.
type fakeReader struct {
	mu      sync.Mutex
	owners  map[uint64]Owner
	err     error
	lookups int
}

func (f *fakeReader) Owner(uid uint64) (Owner, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lookups++
	return f.owners[uid], f.err
}

func TestFilterKeepsEverythingUntilPublished(t *testing.T) {
	gc := NewGC(zerolog.New(zerolog.NewTestWriter(t)))
	f := gc.Filter(KindSubkey)
	if drop, _ := f.Filter(0, subkey.AppendKey(nil, 1, []byte("f")), nil); drop {
		t.Fatal("dropped before Publish")
	}
	r := &fakeReader{owners: map[uint64]Owner{}}
	gc.Publish(r)
	if drop, _ := f.Filter(0, subkey.AppendKey(nil, 1, []byte("f")), nil); !drop {
		t.Fatal("kept a record with no owner after Publish")
	}
	gc.Publish(nil)
	if drop, _ := f.Filter(0, subkey.AppendKey(nil, 2, []byte("f")), nil); drop {
		t.Fatal("dropped after Publish(nil)")
	}
}

func TestFilterCachesDeathAndLifeUntilNoteDeaths(t *testing.T) {
	gc := NewGC(zerolog.New(zerolog.NewTestWriter(t)))
	live := Owner{BookFound: true, Book: book(metadata.TypeHash, "h"), MetaFound: true, Meta: meta(metadata.TypeHash, 1, 0), SnapMs: nowMs}
	r := &fakeReader{owners: map[uint64]Owner{1: live}}
	gc.Publish(r)
	f := gc.Filter(KindSubkey)
	filter := func(uid uint64) bool {
		drop, _ := f.Filter(0, subkey.AppendKey(nil, uid, []byte("a")), nil)
		return drop
	}
	for range 3 {
		if filter(1) {
			t.Fatal("dropped a live record")
		}
	}
	if r.lookups != 1 {
		t.Fatalf("a live verdict must hold until NoteDeaths: %d lookups, want 1", r.lookups)
	}
	for range 3 {
		if !filter(2) {
			t.Fatal("kept a dead record")
		}
	}
	if r.lookups != 2 {
		t.Fatalf("dead verdicts must be cached: %d lookups, want 2", r.lookups)
	}
	s := gc.Stats()
	if s.CacheHits != 2 || s.Dropped[KindSubkey] != 3 {
		t.Fatalf("stats = %+v", s)
	}

	// uid 1 dies. Until the store says so, its records are kept (never
	// wrongly dropped); after NoteDeaths they go.
	r.mu.Lock()
	delete(r.owners, 1)
	r.mu.Unlock()
	if filter(1) {
		t.Fatal("dropped on a remembered live verdict")
	}
	gc.NoteDeaths()
	if !filter(1) {
		t.Fatal("kept a dead uid's record after NoteDeaths")
	}
	if r.lookups != 3 {
		t.Fatalf("%d lookups, want 3", r.lookups)
	}
}

func TestAliveMemoSlots(t *testing.T) {
	var m aliveMemo
	m.add(5, 1)
	if !m.holds(5, 1) || m.holds(5, 2) || m.holds(6, 1) || m.holds(5+aliveMemoSlots, 1) {
		t.Fatal("memo answers for another uid or count")
	}
	m.add(5+aliveMemoSlots, 1) // same slot
	if m.holds(5, 1) || !m.holds(5+aliveMemoSlots, 1) {
		t.Fatal("a slot's new uid did not replace the old")
	}
	if (&aliveMemo{}).holds(0, 0) {
		t.Fatal("an empty slot holds uid 0")
	}
}

func TestFilterKeepsOnError(t *testing.T) {
	gc := NewGC(zerolog.New(zerolog.NewTestWriter(t)))
	gc.Publish(&fakeReader{err: errors.New("disk on fire")})
	f := gc.Filter(KindScore)
	if drop, _ := f.Filter(0, subkey.AppendKey(nil, 9, nil), nil); drop {
		t.Fatal("dropped on a lookup error")
	}
	if drop, _ := f.Filter(0, []byte{1, 2, 3}, nil); drop {
		t.Fatal("dropped a key too short to hold a uid")
	}
	if gc.Stats().Errors != 1 {
		t.Fatalf("errors = %d, want 1", gc.Stats().Errors)
	}
}

func TestFilterConcurrent(t *testing.T) {
	gc := NewGC(zerolog.New(zerolog.NewTestWriter(t)))
	live := Owner{BookFound: true, Book: book(metadata.TypeHash, "h"), MetaFound: true, Meta: meta(metadata.TypeHash, 1, 0), SnapMs: nowMs}
	gc.Publish(&fakeReader{owners: map[uint64]Owner{1: live}})
	f := gc.Filter(KindSubkey)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2000 {
				uid := uint64(i%50 + 1)
				drop, _ := f.Filter(0, subkey.AppendKey(nil, uid, []byte{byte(w)}), nil)
				if drop != (uid != 1) {
					t.Errorf("uid %d: drop=%v", uid, drop)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestDeadCacheBounded(t *testing.T) {
	c := newDeadCache(4)
	for uid := range uint64(10) {
		c.add(uid)
	}
	if len(c.uids) > 4 {
		t.Fatalf("cache holds %d uids, limit 4", len(c.uids))
	}
	if !c.has(9) {
		t.Fatal("lost the newest uid")
	}
}

func BenchmarkSubkeyFilter(b *testing.B) {
	gc := NewGC(zerolog.Nop())
	gc.Publish(&fakeReader{owners: map[uint64]Owner{}})
	f := gc.Filter(KindSubkey)
	key := subkey.AppendKey(nil, 42, []byte("field"))
	b.Run("cached-dead", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			f.Filter(0, key, nil)
		}
	})
}
