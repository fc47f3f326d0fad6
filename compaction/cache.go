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
