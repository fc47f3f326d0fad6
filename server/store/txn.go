package store

import (
	"slices"
)

// A transaction (MULTI ... EXEC) is a Group that differs from a pipeline's
// in three ways:
//   - it takes all its locks before its first command, waiting for them in
//     sorted order (so transactions cannot deadlock each other), and holds
//     them until its end: its keys' stripes when every command names its
//     keys, otherwise the world lock's write side, which excludes every
//     other command as Redis's single thread does;
//   - its commands read what the earlier ones wrote, through Reader, which
//     lays the batch's records (pendingIndex) over the store;
//   - it ends with Commit, one Store.Write of all its commands' records, or
//     Abort, which writes nothing.
//
// So no other client sees a state with some of its writes and not others,
// and after a crash the WAL holds all of its writes or none.

// BeginTxn starts a transaction's group, waiting for its locks: the world
// lock's write side when exclusive is set, else the stripes of keys.
func (s *Store) BeginTxn(exclusive bool, keys ...LockKey) *Group {
	g := &Group{s: s, txn: &pendingIndex{}, exclusive: exclusive, world: true}
	if exclusive {
		s.locks.world.Lock()
		s.settleAll()
	} else {
		s.locks.world.RLock()
		var wait lockWait
		for _, i := range sortedStripes(keys) {
			s.ov.lockWaiting(&s.locks.stripes[i], i, &wait)
			g.set(i)
			g.stripes = append(g.stripes, i)
			g.took(i)
		}
		wait.done(&s.waits.lock)
	}
	g.b = s.NewBatch()
	g.b.pending = g.txn
	return g
}

// Reader is what the group's commands read: the store as the
// transaction's writes so far leave it, or, in an early group, the store
// with the overlay's queued writes; nil for another pipeline's group.
func (g *Group) Reader() Reader {
	switch {
	case g.txn != nil:
		return &pendingReader{b: g.b, x: g.txn, base: g.s}
	case g.early:
		return overlayReader{g.s}
	}
	return nil
}

// ReadsOwnWrites reports whether the group's commands read what its
// earlier writes left (a transaction's group). A pipeline group's do not:
// no command joins it that touches a key an earlier one touched.
func (g *Group) ReadsOwnWrites() bool { return g.txn != nil }

// Exclusive reports whether the group holds the world lock's write side,
// and so every key: a transaction's with a command that names no keys.
func (g *Group) Exclusive() bool { return g.exclusive }

// Abort ends a group without writing anything, releasing its locks.
func (g *Group) Abort() {
	if g.world {
		_ = g.end(false)
	}
}

// KeyCount is logical database db's key count as the group's writes so far
// leave it.
func (g *Group) KeyCount(db int) int64 {
	p := int(g.PhysicalDB(db))
	return g.b.pendingCount(p, false, g.s.counters.keys[p].Load())
}

// ExpiresCount is logical database db's count of keys with an expiry as the
// group's writes so far leave it.
func (g *Group) ExpiresCount(db int) int64 {
	p := int(g.PhysicalDB(db))
	return g.b.pendingCount(p, true, g.s.counters.expires[p].Load())
}

// pendingCount is a counter of physical database db, whose written value is
// written, as b would leave it.
func (b *Batch) pendingCount(db int, expires bool, written int64) int64 {
	if slices.Contains(b.resets, db) {
		written = 0
	}
	for _, d := range b.deltas {
		if d.db == db && d.expires == expires {
			written += d.delta
		}
	}
	return written
}
