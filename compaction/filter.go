package compaction

import (
	"sync/atomic"
	"time"

	"github.com/linxGnu/grocksdb"
	"github.com/rs/zerolog"

	"github.com/shaledb/shale/subkey"
)

// Reader is the filters' window on the database, implemented by server/store.
type Reader interface {
	// Owner reads bookkeeping[uid] and the metadata record it names from one
	// snapshot, with the wall-clock time taken just before the snapshot.
	Owner(uid uint64) (Owner, error)
}

// Kind names the column family a filter runs on.
type Kind int

// The filtered column families. Every key in them starts with a uid u64.
const (
	KindSubkey Kind = iota
	KindScore
	KindBookkeeping
	numKinds
)

func (k Kind) String() string {
	switch k {
	case KindSubkey:
		return "subkey"
	case KindScore:
		return "score"
	case KindBookkeeping:
		return "bookkeeping"
	}
	return "unknown"
}

// deadCacheLimit bounds the dead-uid cache: 64Ki uids, about 3 MiB.
const deadCacheLimit = 1 << 16

// GC is the shared state of the three filters: the published Reader, the
// dead-uid cache and the counters INFO reports.
type GC struct {
	reader    atomic.Pointer[readerBox]
	cache     *deadCache
	alive     aliveMemo
	deaths    atomic.Uint64 // NoteDeaths calls: an alive verdict holds while this stays
	dropped   [numKinds]atomic.Uint64
	cacheHits atomic.Uint64
	errors    atomic.Uint64
	log       zerolog.Logger
}

type readerBox struct{ r Reader }

// NewGC returns a GC whose filters keep everything until Publish.
func NewGC(log zerolog.Logger) *GC {
	return &GC{
		cache: newDeadCache(deadCacheLimit),
		log:   log.Sample(&zerolog.BurstSampler{Burst: 5, Period: time.Minute}),
	}
}

// Forget drops every cached verdict, for a database whose records were
// replaced whole (a replica's full sync): uids are unique within one
// history of writes, not across two.
func (g *GC) Forget() {
	g.cache.clear()
	g.alive.clear()
	g.deaths.Add(1)
}

// Publish makes r the filters' reader. Publish(nil), called when the store
// begins to close, makes the filters keep everything again.
func (g *GC) Publish(r Reader) {
	if r == nil {
		g.reader.Store(nil)
		return
	}
	g.reader.Store(&readerBox{r})
}

// Stats are the GC's counters since start.
type Stats struct {
	Dropped   [numKinds]uint64 // records dropped, by Kind
	CacheHits uint64           // dead verdicts served from the cache
	Errors    uint64           // lookups that failed; their records were kept
}

// Stats returns a copy of the counters.
func (g *GC) Stats() Stats {
	var s Stats
	for i := range s.Dropped {
		s.Dropped[i] = g.dropped[i].Load()
	}
	s.CacheHits = g.cacheHits.Load()
	s.Errors = g.errors.Load()
	return s
}

// NoteDeaths tells the filters that a write which may have killed owners
// has landed: it deleted a metadata or bookkeeping record, or wrote a
// bookkeeping record. The caller calls it after the write, never before, so
// that an alive verdict read before the write is not trusted after it.
func (g *GC) NoteDeaths() { g.deaths.Add(1) }

// Dead reports whether uid's owner is provably dead now.
func (g *GC) Dead(uid uint64) bool {
	box := g.reader.Load()
	if box == nil {
		return false
	}
	if g.cache.has(uid) {
		g.cacheHits.Add(1)
		return true
	}
	// Loaded before the lookup's snapshot: a death that lands after the
	// snapshot is followed by a NoteDeaths that moves the count past it.
	deaths := g.deaths.Load()
	if g.alive.holds(uid, deaths) {
		return false
	}
	o, err := box.r.Owner(uid)
	if err != nil {
		g.errors.Add(1)
		g.log.Warn().Err(err).Uint64("uid", uid).Msg("owner lookup failed, keeping record")
		return false
	}
	if Decide(uid, o) != Dead {
		g.alive.add(uid, deaths)
		return false
	}
	g.cache.add(uid)
	return true
}

// Filter returns the compaction filter for one column family.
func (g *GC) Filter(kind Kind) grocksdb.CompactionFilter {
	return &filter{gc: g, kind: kind, name: "shale." + kind.String()}
}

type filter struct {
	gc   *GC
	kind Kind
	name string
}

// Filter implements grocksdb.CompactionFilter. It never returns a new value.
func (f *filter) Filter(_ int, key, _ []byte) (bool, []byte) {
	uid, err := subkey.UID(key)
	if err != nil {
		return false, nil
	}
	if !f.gc.Dead(uid) {
		return false, nil
	}
	f.gc.dropped[f.kind].Add(1)
	return true, nil
}

func (f *filter) Name() string { return f.name }

// SetIgnoreSnapshots is a no-op: since RocksDB 6.0 filters always see every
// key, and our verdicts do not depend on snapshots.
func (f *filter) SetIgnoreSnapshots(bool) {}

// Destroy is a no-op: the filter holds no C memory.
func (f *filter) Destroy() {}
