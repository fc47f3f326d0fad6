package store

import (
	"fmt"

	"github.com/linxGnu/grocksdb"
)

// Reader is what reads the store: the Store itself, at its newest state
// and through its record caches, or a Snapshot.
type Reader interface {
	Get(cf CF, key []byte) ([]byte, bool, error)
	MultiGet(cf CF, keys [][]byte) (vals [][]byte, found []bool, err error)
	Iterate(cf CF, lower, upper []byte, reverse bool, fn func(key, val []byte) bool) error
}

// HeadReader is a Reader that can read the head of a record alone
// (Store.GetHead).
type HeadReader interface {
	Reader
	GetHead(cf CF, key []byte) (val []byte, whole, found bool, err error)
}

// CachePeeker is a Reader that can serve a list's elements from the record
// caches alone, without reading RocksDB (Store.PeekList).
type CachePeeker interface {
	Reader
	PeekList(uid, from, to uint64, reverse bool, fn func(val []byte)) uint64
}

var (
	_ CachePeeker = (*Store)(nil)
	_ CachePeeker = overlayReader{}
	_ CachePeeker = (*pendingReader)(nil)
	_ HeadReader  = (*Store)(nil)
	_ HeadReader  = overlayReader{}
	_ HeadReader  = (*pendingReader)(nil)
	_ Reader      = (*Snapshot)(nil)
)

// Snapshot is the store as it was at one instant: each write batch is
// wholly in it or wholly out. A command that walks a whole key reads
// through one instead of holding the key's lock for the walk, so that the
// walk blocks no writer of that key, of the keys that share its lock
// stripe, or of the world lock that FLUSHALL takes. It reads RocksDB
// directly, without the record caches, which hold the newest state.
// Release it once done; it is not safe for concurrent use.
type Snapshot struct {
	s    *Store
	snap *grocksdb.Snapshot
	ro   *grocksdb.ReadOptions
}

// Snapshot takes a snapshot of the store's present state.
func (s *Store) Snapshot() *Snapshot {
	snap := s.db.NewSnapshot()
	ro := grocksdb.NewDefaultReadOptions()
	ro.SetSnapshot(snap)
	return &Snapshot{s: s, snap: snap, ro: ro}
}

// Release frees the snapshot; RocksDB may then drop what only it kept.
func (sn *Snapshot) Release() {
	sn.ro.Destroy()
	sn.s.db.ReleaseSnapshot(sn.snap)
}

// Get reads one record as it was at the snapshot.
func (sn *Snapshot) Get(cf CF, key []byte) ([]byte, bool, error) {
	return sn.s.get(sn.ro, cf, key)
}

// MultiGet reads many records of one CF as they were at the snapshot.
func (sn *Snapshot) MultiGet(cf CF, keys [][]byte) (vals [][]byte, found []bool, err error) {
	if len(keys) == 0 {
		return nil, nil, nil
	}
	vals, found = make([][]byte, len(keys)), make([]bool, len(keys))
	return vals, found, sn.s.multiGet(sn.ro, cf, keys, vals, found)
}

// Iterate is Store.Iterate as of the snapshot.
func (sn *Snapshot) Iterate(cf CF, lower, upper []byte, reverse bool, fn func(key, val []byte) bool) error {
	ro := boundedReadOptions(lower, upper)
	defer ro.Destroy()
	ro.SetSnapshot(sn.snap)
	if err := sn.s.iterate(ro, cf, reverse, fn); err != nil {
		return fmt.Errorf("store: iterate %s at a snapshot: %w", cf, err)
	}
	return nil
}
