package store

import (
	"bytes"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/rs/zerolog"

	"github.com/shaledb/shale/conf"
	"github.com/shaledb/shale/subkey"
)

// TestEdgesForgotten: a put into a range that crosses an edge moves the
// edge to its key; a write that fails, a command's writes taken back and a
// transaction dropped unwritten forget every edge, since the deletes an
// edge was moved past did not happen, and an edge read before that (an
// older epoch) is refused.
func TestEdgesForgotten(t *testing.T) {
	cfg := conf.Default()
	cfg.RocksDB.BlockCacheBytes = 8 << 20
	s, _ := openTestStore(t, cfg)
	const uid = 7
	key := func(member string) []byte { return subkey.AppendScoreKey(nil, uid, 1, []byte(member)) }
	r := EdgeRange{CF: CFScore, Prefix: subkey.AppendPrefix(nil, uid)}
	set := func() uint64 {
		t.Helper()
		_, _, epoch := s.Edges(r)
		s.SetFirstEdge(r, key("m"), epoch)
		s.SetEndEdge(r, key("t"), epoch)
		if first, end, _ := s.Edges(r); first == nil || end == nil {
			t.Fatal("edges not recorded")
		}
		return epoch
	}
	gone := func(what string) {
		t.Helper()
		if first, end, _ := s.Edges(r); first != nil || end != nil {
			t.Errorf("%s: edges %q, %q remain", what, first, end)
		}
	}
	put := func(member string) {
		t.Helper()
		b := s.NewBatch()
		defer b.Release()
		b.Put(CFScore, key(member), nil)
		if err := s.Write(b); err != nil {
			t.Fatal(err)
		}
	}

	edges := func(what string, first, end []byte) {
		t.Helper()
		if f, e, _ := s.Edges(r); !bytes.Equal(f, first) || !bytes.Equal(e, end) {
			t.Errorf("%s: edges %q, %q; want %q, %q", what, f, e, first, end)
		}
	}
	set()
	put("p")
	edges("after a put between the edges", key("m"), key("t"))
	put("a")
	edges("after a put before the first edge", key("a"), key("t"))
	put("z")
	edges("after a put past the end", key("a"), append(key("z"), 0))

	// A write that read a write that failed fails too.
	stale := set()
	b := s.NewBatch()
	b.Put(CFMeta, []byte("k"), []byte("v"))
	if err := s.Write(b); err != nil {
		t.Fatal(err)
	}
	b.Release()
	s.ov.fail(1, 1) // as the leader marks a write RocksDB refused
	reader := s.NewBatch()
	reader.Delete(CFScore, key("m"))
	reader.readFrom, reader.readUpTo = 1, 1
	if err := s.Write(reader); !errors.Is(err, ErrReadFailed) {
		t.Fatalf("the reader of a failed write: %v", err)
	}
	reader.Release()
	gone("after a failed write")
	s.SetFirstEdge(r, key("m"), stale)
	gone("an edge read before the failure")

	set()
	g := s.NewGroup()
	g.TryLock(LockKey{Key: []byte("z")})
	failing := errors.New("the command fails")
	err := g.Add(func(b *Batch) error {
		b.Delete(CFScore, key("m"))
		return failing
	})
	if !errors.Is(err, failing) {
		t.Fatal(err)
	}
	gone("after a command's writes were taken back")
	if err := g.Commit(); err != nil {
		t.Fatal(err)
	}

	set()
	txn := s.BeginTxn(false, LockKey{Key: []byte("z")})
	if err := txn.Add(func(b *Batch) error { b.Delete(CFScore, key("m")); return nil }); err != nil {
		t.Fatal(err)
	}
	txn.Abort()
	gone("after a transaction was dropped")
}

// TestEdgesRanges: a key may have several ranges (a stream's groups'
// pending lists); a put moves only the edges of the range it lies in, in
// its column family.
func TestEdgesRanges(t *testing.T) {
	cfg := conf.Default()
	cfg.RocksDB.BlockCacheBytes = 8 << 20
	s, _ := openTestStore(t, cfg)
	const uid = 9
	group := func(gid uint64) EdgeRange {
		return EdgeRange{CF: CFSubkey, Prefix: subkey.AppendStreamGroupPrefix(nil, uid, subkey.StreamPending, gid)}
	}
	pending := func(gid, ms uint64) []byte { return subkey.AppendStreamPendingKey(nil, uid, gid, ms, 0) }
	g1, g2 := group(1), group(2)
	scores := EdgeRange{CF: CFScore, Prefix: subkey.AppendPrefix(nil, uid)}
	_, _, epoch := s.Edges(g1)
	s.SetFirstEdge(g1, pending(1, 10), epoch)
	s.SetFirstEdge(g2, pending(2, 10), epoch)
	s.SetFirstEdge(scores, subkey.AppendScoreKey(nil, uid, 5, nil), epoch)
	b := s.NewBatch()
	b.Put(CFSubkey, pending(1, 3), []byte("v")) // before g1's edge
	if err := s.Write(b); err != nil {
		t.Fatal(err)
	}
	b.Release()
	if first, _, _ := s.Edges(g1); !bytes.Equal(first, pending(1, 3)) {
		t.Errorf("g1's edge is %q after a put before it, want the put's key", first)
	}
	if first, _, _ := s.Edges(g2); !bytes.Equal(first, pending(2, 10)) {
		t.Errorf("g2's edge is %q after a put into g1", first)
	}
	if first, _, _ := s.Edges(scores); first == nil {
		t.Error("the score range's edge went with a put into the subkey family")
	}
}

// BenchmarkPutBesideEdges: puts into the subkey family from parallel
// goroutines, each on keys of its own, while other keys have edges in the
// family (a stream whose group's pending list was walked, a few sorted
// sets): the cost Batch.Put pays for edges it does not cross.
func BenchmarkPutBesideEdges(b *testing.B) {
	cfg := conf.Default()
	cfg.RocksDB.BlockCacheBytes = 8 << 20
	cfg.Storage.Dir = b.TempDir()
	s, err := Open(cfg, zerolog.Nop())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for uid := uint64(1); uid <= 4; uid++ {
		r := EdgeRange{CF: CFSubkey, Prefix: subkey.AppendStreamGroupPrefix(nil, uid, subkey.StreamPending, 1)}
		s.SetFirstEdge(r, subkey.AppendStreamPendingKey(nil, uid, 1, 5, 0), s.edges.epoch.Load())
	}
	var next atomic.Uint64
	next.Store(1000)
	b.RunParallel(func(pb *testing.PB) {
		uid := next.Add(1)
		bt := s.NewBatch()
		defer bt.Release()
		key := subkey.AppendPrefix(nil, uid)
		key = append(key, "field"...)
		for n := 0; pb.Next(); n++ {
			bt.Put(CFSubkey, key, key)
			if n%64 == 63 {
				bt.Release()
				bt = s.NewBatch()
			}
		}
	})
}
