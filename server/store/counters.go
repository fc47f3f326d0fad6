package store

import (
	"fmt"
	"sync/atomic"

	"github.com/shaledb/shale/metadata"
)

// counters mirrors the per-db key counters of the default CF in memory, so
// DBSIZE is O(1). The disk copy changes by merge operands in the same batch
// as the keys; the memory copy changes after that batch is written. Both
// count physical databases (dbmap.go), so they follow their keys through
// SWAPDB, and are indexed by them.
type counters struct {
	keys    []atomic.Int64 // keys per db
	expires []atomic.Int64 // keys with an expiry per db
}

func loadCounters(s *Store, databases int) (*counters, error) {
	c := &counters{keys: make([]atomic.Int64, databases), expires: make([]atomic.Int64, databases)}
	for db := range c.keys {
		for _, ctr := range []struct {
			key []byte
			dst *atomic.Int64
		}{
			{metadata.AppendCounterKey(nil, uint16(db)), &c.keys[db]},
			{metadata.AppendExpiresCounterKey(nil, uint16(db)), &c.expires[db]},
		} {
			raw, ok, err := s.Get(CFDefault, ctr.key)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			n, err := metadata.DecodeCounter(raw)
			if err != nil {
				return nil, fmt.Errorf("store: counter %q: %w", ctr.key, err)
			}
			ctr.dst.Store(n)
		}
	}
	return c, nil
}

// KeyCount is the number of keys in logical database db, expired-but-not-
// yet-reaped included (as Redis's DBSIZE).
func (s *Store) KeyCount(db int) int64 {
	return s.counters.keys[s.PhysicalDB(db)].Load()
}

// ExpiresCount is the number of keys in logical database db that have an
// expiry.
func (s *Store) ExpiresCount(db int) int64 {
	return s.counters.expires[s.PhysicalDB(db)].Load()
}
