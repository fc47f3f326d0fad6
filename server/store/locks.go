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
// Unlock.
func (s *Store) Lock(keys ...LockKey) Unlock {
	s.locks.world.RLock()
	if len(keys) == 1 {
		m := &s.locks.stripes[stripeOf(keys[0])]
		m.Lock()
		return func() { m.Unlock(); s.locks.world.RUnlock() }
	}
	idx := make([]int, len(keys))
	for i, k := range keys {
		idx[i] = stripeOf(k)
	}
	slices.Sort(idx)
	idx = slices.Compact(idx)
	for _, i := range idx {
		s.locks.stripes[i].Lock()
	}
	return func() {
		for j := len(idx) - 1; j >= 0; j-- {
			s.locks.stripes[idx[j]].Unlock()
		}
		s.locks.world.RUnlock()
	}
}

// LockWorld excludes every keyed command, for FLUSHDB and FLUSHALL.
func (s *Store) LockWorld() Unlock {
	s.locks.world.Lock()
	return s.locks.world.Unlock
}
