package store

import (
	"bytes"
	"sync"
	"sync/atomic"

	"github.com/shaledb/shale/subkey"
)

// scoreEdges remembers, for sorted sets, where their live score records
// begin and end. A removed member leaves a tombstone in its key's range of
// the score column family, which stays in the memtable and the SST files
// until compaction drops it, and a walk from the range's start steps over
// every one: a queue drained from its low end (ZPOPMIN, or ZRANGEBYSCORE
// -inf … LIMIT 0 1 then ZREM), or a sliding window trimmed with
// ZREMRANGEBYSCORE, walked thousands of tombstones per command after a few
// thousand removals (docs/BENCHMARKS.md, "Walks over a sorted set's
// tombstones"). With an edge, the walk seeks past them.
//
// An edge only ever says that no live record of the key lies before first,
// or at or after end, in what has landed together with every write queued
// and not yet failed. It is set by a command that holds the key's lock and
// reads all of that, not a snapshot (types.DB.scoreIter, and ZPOP and
// ZREMRANGEBY* past what they removed). Every put of a score record that
// would cross an edge removes it as the batch is built (Batch.Put), which
// errs on the safe side when that write fails; deletes never break one. A
// write that fails or is taken back may have removed members an edge was
// moved past, so it forgets every edge (forgetScoreEdges), and an edge read
// before that, under the old epoch, is not recorded. Records that arrive
// by replication, or a new data set, clear them all too. Edges live in
// memory only, a bounded number of them.
type scoreEdges struct {
	n     atomic.Int32  // len(edges), so that puts skip the lock when it is 0
	epoch atomic.Uint64 // bumped, under mu, each time every edge is forgotten
	mu    sync.Mutex
	edges map[uint64]scoreEdge
}

// scoreEdge is one key's edges; nil when not known.
type scoreEdge struct{ first, end []byte }

// maxScoreEdges bounds the keys whose edges are kept; past it an arbitrary
// one is forgotten for each new one.
const maxScoreEdges = 1 << 14

// ScoreEdges returns what is known of where uid's live score records lie:
// none sorts before first, none at or after end; nil when not known. The
// slices must not be changed. epoch is what a caller that then reads the
// records and moves an edge passes to SetScoreFirst or SetScoreEnd.
func (s *Store) ScoreEdges(uid uint64) (first, end []byte, epoch uint64) {
	e := &s.edges
	epoch = e.epoch.Load()
	if e.n.Load() == 0 {
		return nil, nil, epoch
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	edge := e.edges[uid]
	return edge.first, edge.end, e.epoch.Load()
}

// SetScoreFirst records that no live score record of uid sorts before key,
// and SetScoreEnd that none sorts at or after it, unless every edge was
// forgotten since epoch (ScoreEdges) was read. The caller holds the key's
// lock and read the records it judges by after reading epoch.
func (s *Store) SetScoreFirst(uid uint64, key []byte, epoch uint64) {
	s.edges.set(uid, key, false, epoch)
}

// SetScoreEnd: see SetScoreFirst.
func (s *Store) SetScoreEnd(uid uint64, key []byte, epoch uint64) { s.edges.set(uid, key, true, epoch) }

// forgetScoreEdges forgets every edge: a write failed or was taken back.
func (s *Store) forgetScoreEdges() { s.edges.clear() }

func (e *scoreEdges) set(uid uint64, key []byte, end bool, epoch uint64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.epoch.Load() != epoch {
		return
	}
	edge, ok := e.edges[uid]
	at := &edge.first
	if end {
		at = &edge.end
	}
	if bytes.Equal(*at, key) {
		return
	}
	*at = bytes.Clone(key)
	if !ok {
		if e.edges == nil {
			e.edges = make(map[uint64]scoreEdge)
		}
		if len(e.edges) >= maxScoreEdges {
			for k := range e.edges {
				delete(e.edges, k)
				break
			}
		}
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
	if edge.end != nil && bytes.Compare(key, edge.end) >= 0 {
		edge.end = nil
	}
	if edge.first == nil && edge.end == nil {
		delete(e.edges, uid)
	} else {
		e.edges[uid] = edge
	}
	e.n.Store(int32(len(e.edges)))
}

// clear forgets every edge, and makes those read before it unrecordable.
func (e *scoreEdges) clear() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.epoch.Add(1)
	e.edges = nil
	e.n.Store(0)
}
