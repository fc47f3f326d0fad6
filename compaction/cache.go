package compaction

import "sync"

// deadCache remembers uids proven dead. Death is permanent because uids are
// never reused, so an entry never goes stale; the cache is only bounded. When
// full it forgets everything, which costs a few extra lookups, never a wrong
// verdict.
type deadCache struct {
	mu    sync.Mutex
	limit int
	uids  map[uint64]struct{}
}

func newDeadCache(limit int) *deadCache {
	return &deadCache{limit: limit, uids: make(map[uint64]struct{}, 1024)}
}

func (c *deadCache) has(uid uint64) bool {
	c.mu.Lock()
	_, ok := c.uids[uid]
	c.mu.Unlock()
	return ok
}

func (c *deadCache) add(uid uint64) {
	c.mu.Lock()
	if len(c.uids) >= c.limit {
		c.uids = make(map[uint64]struct{}, 1024)
	}
	c.uids[uid] = struct{}{}
	c.mu.Unlock()
}

func (c *deadCache) clear() {
	c.mu.Lock()
	c.uids = make(map[uint64]struct{}, 1024)
	c.mu.Unlock()
}

// aliveMemo remembers, for recent uids, that their owner was alive at some
// count of GC.NoteDeaths. A compaction meets a live key's records one after
// the other, and without the memo each of them cost an owner lookup: a
// snapshot and two reads. The memo holds only while no write that may kill
// an owner has landed since, so it does not outlive a DEL, an overwrite, an
// expiry or a RENAME. Even a stale memo could only keep records, never drop
// them: it would delay a reclaim, not lose data.
type aliveMemo struct {
	mu    sync.Mutex
	slots [aliveMemoSlots]aliveSlot
}

// aliveMemoSlots is the memo's size: a uid has one slot, uid mod the size,
// enough for the few compactions that run at once.
const aliveMemoSlots = 64

type aliveSlot struct {
	uid, deaths uint64
	set         bool
}

// holds reports whether uid was found alive at the count deaths.
func (m *aliveMemo) holds(uid, deaths uint64) bool {
	m.mu.Lock()
	s := m.slots[uid%aliveMemoSlots]
	m.mu.Unlock()
	return s.set && s.uid == uid && s.deaths == deaths
}

// add records that uid was found alive by a lookup that began at the count
// deaths.
func (m *aliveMemo) add(uid, deaths uint64) {
	m.mu.Lock()
	m.slots[uid%aliveMemoSlots] = aliveSlot{uid: uid, deaths: deaths, set: true}
	m.mu.Unlock()
}

func (m *aliveMemo) clear() {
	m.mu.Lock()
	m.slots = [aliveMemoSlots]aliveSlot{}
	m.mu.Unlock()
}
