package store

import (
	"bytes"
	"sync"
	"sync/atomic"

	"github.com/shaledb/shale/subkey"
)

// scoreEdges remembers, for sorted sets popped from an end, where their
// live score records begin and end. A popped member leaves a tombstone at
// the start (or end) of its key's range in the score column family, which
// stays in the memtable and the SST files until compaction drops it, and a
// walk from the range's start steps over every one: after a few thousand
// ZPOPMINs each one walked thousands of tombstones (docs/BENCHMARKS.md,
// "ZPOPMIN over its own tombstones"). With an edge, the walk seeks past
// them.
//
// An edge only ever says that no live record of the key lies before first
// (or after last). ZPOP sets it once its write has landed, under the key's
// lock, to the first record it left; every put of a score record that
// would break it removes it (Batch.Put), which errs on the safe side when
// that write fails. Records that arrive by replication, or a new data set,
// clear them all. Edges live in memory only, a bounded number of them.
type scoreEdges struct {
	n     atomic.Int32 // len(edges), so that puts skip the lock when it is 0
	mu    sync.Mutex
	edges map[uint64]scoreEdge
}

// scoreEdge is one key's edges; nil when not known.
type scoreEdge struct{ first, last []byte }

// maxScoreEdges bounds the edges kept; past it they are all forgotten.
const maxScoreEdges = 1 << 14

// ScoreEdges returns what is known of where uid's live score records lie:
// none sorts before first, none after last; nil when not known. The slices
// must not be changed.
func (s *Store) ScoreEdges(uid uint64) (first, last []byte) {
	e := &s.edges
	if e.n.Load() == 0 {
		return nil, nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	edge := e.edges[uid]
	return edge.first, edge.last
}

// SetScoreEdge records that no live score record of uid sorts before key
// (last false) or after it (last true). The caller holds the key's lock,
// and the write that left it so has landed.
func (s *Store) SetScoreEdge(uid uint64, key []byte, last bool) {
	e := &s.edges
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.edges == nil || len(e.edges) >= maxScoreEdges {
		e.edges = make(map[uint64]scoreEdge)
	}
	edge := e.edges[uid]
	if last {
		edge.last = bytes.Clone(key)
	} else {
		edge.first = bytes.Clone(key)
	}
	e.edges[uid] = edge
	e.n.Store(int32(len(e.edges)))
}

// put forgets the edges that a score record key put would cross.
func (e *scoreEdges) put(key []byte) {
	if e.n.Load() == 0 {
		return
	}
	uid, err := subkey.UID(key)
	if err != nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	edge, ok := e.edges[uid]
	if !ok {
		return
	}
	if edge.first != nil && bytes.Compare(key, edge.first) < 0 {
		edge.first = nil
	}
	if edge.last != nil && bytes.Compare(key, edge.last) > 0 {
		edge.last = nil
	}
	if edge.first == nil && edge.last == nil {
		delete(e.edges, uid)
	} else {
		e.edges[uid] = edge
	}
	e.n.Store(int32(len(e.edges)))
}

// clear forgets every edge.
func (e *scoreEdges) clear() {
	if e.n.Load() == 0 {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.edges = nil
	e.n.Store(0)
}
