package store

import (
	"errors"
	"testing"

	"github.com/shaledb/shale/conf"
	"github.com/shaledb/shale/subkey"
)

// TestScoreEdgesForgotten: an edge stands until a put of the key's score
// records crosses it; a write that fails, a command's writes taken back
// and a transaction dropped unwritten forget every edge, since the deletes
// an edge was moved past did not happen, and an edge read before that (an
// older epoch) is refused.
func TestScoreEdgesForgotten(t *testing.T) {
	cfg := conf.Default()
	cfg.RocksDB.BlockCacheBytes = 8 << 20
	s, _ := openTestStore(t, cfg)
	const uid = 7
	key := func(member string) []byte { return subkey.AppendScoreKey(nil, uid, 1, []byte(member)) }
	set := func() uint64 {
		t.Helper()
		_, _, epoch := s.ScoreEdges(uid)
		s.SetScoreFirst(uid, key("m"), epoch)
		s.SetScoreEnd(uid, key("t"), epoch)
		if first, end, _ := s.ScoreEdges(uid); first == nil || end == nil {
			t.Fatal("edges not recorded")
		}
		return epoch
	}
	gone := func(what string) {
		t.Helper()
		if first, end, _ := s.ScoreEdges(uid); first != nil || end != nil {
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

	set()
	put("p") // between the edges
	if first, end, _ := s.ScoreEdges(uid); first == nil || end == nil {
		t.Errorf("a put between the edges forgot them: %q, %q", first, end)
	}
	put("a")
	if first, end, _ := s.ScoreEdges(uid); first != nil || end == nil {
		t.Errorf("after a put before the first edge: %q, %q", first, end)
	}
	put("z")
	gone("after a put past the end")

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
	s.SetScoreFirst(uid, key("m"), stale)
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
