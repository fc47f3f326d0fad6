package types

import "github.com/shaledb/shale/server/store"

// SwapDB is SWAPDB: logical databases x and y trade their keys, expiries and
// counters in O(1), whatever their size. No record moves: the store's
// database map (store/dbmap.go) changes in one batch, under the world lock,
// as FLUSHDB takes it, so no command runs on either database meanwhile.
// Swapping a database with itself changes nothing; an index out of range is
// ErrDBIndex.
func (d *DB) SwapDB(x, y int) error {
	if x < 0 || x >= len(d.e.dbs) || y < 0 || y >= len(d.e.dbs) {
		return ErrDBIndex
	}
	if x == y {
		return nil
	}
	unlock := d.lockWorld()
	defer unlock()
	return d.write(func(b *store.Batch) error {
		b.SwapDB(x, y)
		return nil
	})
}
