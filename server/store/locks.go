package store

import (
	"hash/maphash"
	"slices"
	"sync"
)

// numStripes is the number of key-lock stripes. Two keys share a stripe with
// probability 1/4096, which only serialises them.
const numStripes = 4096

var stripeSeed = maphash.MakeSeed()

// keyLocks serialises commands on the same keys. The exclusive side of world
// is taken by commands that touch a whole database (FLUSHDB, FLUSHALL), which
// must not interleave with any keyed command.
type keyLocks struct {
	world   sync.RWMutex
	stripes [numStripes]sync.Mutex
}

// LockKey names one key to lock: the db matters, so that MOVE locks both ends.
type LockKey struct {
	DB  int
	Key []byte
}

func stripeOf(k LockKey) int {
	var h maphash.Hash
	h.SetSeed(stripeSeed)
	h.WriteByte(byte(k.DB))
	h.WriteByte(byte(k.DB >> 8))
	h.Write(k.Key)
	return int(h.Sum64() % numStripes)
}

// Unlock releases what Lock took.
type Unlock func()

// Lock takes the stripes of keys in sorted order, without duplicates, so
// multi-key commands cannot deadlock each other. Pair it with the returned
// Unlock. A Lock that finds a lock busy counts its wait in WaitStats's
// KeyLock; one that does not reads no clock.
func (s *Store) Lock(keys ...LockKey) Unlock {
	var wait lockWait
	if !s.locks.world.TryRLock() {
		wait.busy()
		s.locks.world.RLock()
	}
	if len(keys) == 1 {
		i := stripeOf(keys[0])
		m := &s.locks.stripes[i]
		s.ov.lockWaiting(m, i, &wait)
		wait.done(&s.waits.lock)
		s.ov.settleStripe(i)
		return func() { m.Unlock(); s.locks.world.RUnlock() }
	}
	idx := sortedStripes(keys)
	for _, i := range idx {
		s.ov.lockWaiting(&s.locks.stripes[i], i, &wait)
	}
	wait.done(&s.waits.lock)
	for _, i := range idx {
		s.ov.settleStripe(i)
	}
	return func() {
		for j := len(idx) - 1; j >= 0; j-- {
			s.locks.stripes[idx[j]].Unlock()
		}
		s.locks.world.RUnlock()
	}
}

// sortedStripes is the stripes of keys in the order every waiting locker
// takes them, without duplicates.
func sortedStripes(keys []LockKey) []int {
	idx := make([]int, len(keys))
	for i, k := range keys {
		idx[i] = stripeOf(k)
	}
	slices.Sort(idx)
	return slices.Compact(idx)
}

// LockWorld excludes every keyed command, for FLUSHDB and FLUSHALL.
func (s *Store) LockWorld() Unlock {
	s.locks.world.Lock()
	s.settleAll()
	return s.locks.world.Unlock
}

// settleAll waits until every queued write has landed: for the holder of
// the world lock's write side, which reads the store itself.
func (s *Store) settleAll() { s.ov.waitLanded(s.writes.lastTicket()) }
