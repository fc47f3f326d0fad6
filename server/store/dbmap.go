package store

import (
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/shaledb/shale/metadata"
)

// The database map is what makes SWAPDB O(1). Every record that belongs to
// a database carries its physical database: the db field of metadata keys,
// bookkeeping records, expire-index keys and counter keys. The index a
// client SELECTs is a logical database, which the map turns into the
// physical one; SWAPDB swaps two entries of the map and rewrites no key.
// The compaction filters follow a bookkeeping record to its metadata key,
// both physical, so they never need the map.
//
// The map is the system record metadata.KeyDBMap, written in the batch of
// the SWAPDB that changes it, so that a restart, a crash or a checkpoint
// sees the map either before the swap or after it. The memory copy changes
// once that batch is written. Since SWAPDB holds the world lock's write
// side, no command reads the map while it changes: the key locks every
// command takes order its reads after the swap. A transaction that swaps
// reads its pending swaps through Group.PhysicalDB.

// dbPerm is one version of the map; it is never modified once published.
type dbPerm struct {
	phys    []uint16 // the physical database of each logical one
	logical []uint16 // the inverse: the logical database of each physical one
}

// dbMap is the store's current map.
type dbMap struct {
	cur atomic.Pointer[dbPerm]
}

// newPerm returns the map version of phys, which must be a permutation.
func newPerm(phys []uint16) *dbPerm {
	p := &dbPerm{phys: phys, logical: make([]uint16, len(phys))}
	for l, ph := range phys {
		p.logical[ph] = uint16(l)
	}
	return p
}

// swapped returns phys with the swaps applied, in order.
func swapped(phys []uint16, swaps [][2]int) []uint16 {
	out := slices.Clone(phys)
	for _, s := range swaps {
		out[s[0]], out[s[1]] = out[s[1]], out[s[0]]
	}
	return out
}

// loadDBMap reads the map at open. It covers at least databases databases,
// and more when the map was written while more were configured: the keys of
// a logical database beyond the configured ones may lie in a physical
// database within them, and the counters must cover every physical
// database the map names.
func loadDBMap(s *Store, databases int) error {
	raw, ok, err := s.Get(CFDefault, metadata.KeyDBMap)
	if err != nil {
		return err
	}
	var phys []uint16
	if ok {
		if phys, err = metadata.DecodeDBMap(raw); err != nil {
			return fmt.Errorf("store: %w", err)
		}
	}
	for len(phys) < databases {
		phys = append(phys, uint16(len(phys)))
	}
	s.dbs.cur.Store(newPerm(phys))
	return nil
}

// mappedDatabases is the number of databases the map covers: at least
// Databases(), and the size of the counters.
func (s *Store) mappedDatabases() int { return len(s.dbs.cur.Load().phys) }

// PhysicalDB is the physical database that holds logical database db,
// which must be below Databases(): the db field of its records.
func (s *Store) PhysicalDB(db int) uint16 { return s.dbs.cur.Load().phys[db] }

// LogicalDB is the logical database that physical database phys holds, and
// false when that is not one of the Databases() a client can select (an
// expire-index entry of a database no longer configured).
func (s *Store) LogicalDB(phys uint16) (int, bool) {
	p := s.dbs.cur.Load()
	if int(phys) >= len(p.logical) {
		return 0, false
	}
	l := int(p.logical[phys])
	return l, l < s.Databases()
}

// SwapDB swaps logical databases x and y, both below Databases(), when the
// batch is written: SWAPDB. The caller holds the world lock's write side
// (Store.LockWorld, or a transaction's exclusive group).
func (b *Batch) SwapDB(x, y int) {
	b.swaps = append(b.swaps, [2]int{x, y})
}

// PhysicalDB is Store.PhysicalDB as the group's writes so far leave it: a
// transaction that swapped databases reads the swapped ones.
func (g *Group) PhysicalDB(db int) uint16 {
	if len(g.b.swaps) == 0 {
		return g.s.PhysicalDB(db)
	}
	return swapped(g.s.dbs.cur.Load().phys, g.b.swaps)[db]
}

// putDBMap adds the map record that b's swaps leave to b and returns that
// map, or nil when b swaps nothing. Store.Write publishes it once b is
// written.
func (s *Store) putDBMap(b *Batch) *dbPerm {
	if len(b.swaps) == 0 {
		return nil
	}
	p := newPerm(swapped(s.dbs.cur.Load().phys, b.swaps))
	b.buf = metadata.EncodeDBMap(b.buf[:0], p.phys)
	b.rep.put(s.cfIDs[CFDefault], metadata.KeyDBMap, b.buf)
	return p
}
