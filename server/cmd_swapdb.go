package server

import (
	"cmp"
	"slices"
	"strings"

	"github.com/shaledb/shale/server/types"
)

// SWAPDB index1 index2: O(1), through the store's database map
// (types.DB.SwapDB). Clients stay in the database they selected and see
// the other one's keys. As in Redis (dbSwapDatabases), the watchers of a
// key that exists in either database fail their EXEC (swapWatchTargets,
// through watchTargets), the clients blocked on a key of either database
// are served if the key now holds what they wait for, and no keyspace
// event is sent.
func cmdSwapDB(c *Ctx, args [][]byte) error {
	x, err := parseCInt(args[1])
	if err != nil {
		return errSwapFirstDB
	}
	y, err := parseCInt(args[2])
	if err != nil {
		return errSwapSecondDB
	}
	if err := c.DB.SwapDB(x, y); err != nil {
		return err // types.ErrDBIndex reads "ERR DB index is out of range"
	}
	if x != y {
		c.Srv.access.swapDBs(x, y) // idle times follow the data (access.go)
		for _, bk := range c.Srv.blocking.keysIn(x, y) {
			c.signalKeyReady(bk.db, []byte(bk.key))
		}
	}
	c.Reply().OK()
	return nil
}

// swapWatchTargets are the watched keys a SWAPDB of args changes: those of
// either database that exist in either (Redis's touchAllWatchedKeysInDb),
// read before the swap, in the command's view (a transaction's writes so
// far included). A key that a concurrent write creates or removes after
// this read marks its watchers itself.
func swapWatchTargets(c *Ctx, args [][]byte) []watchKey {
	x, errX := parseCInt(args[1])
	y, errY := parseCInt(args[2])
	if errX != nil || errY != nil || x == y {
		return nil
	}
	dbs := [2]*types.DB{}
	for i, n := range [2]int{x, y} {
		db, err := c.Srv.eng.DB(n)
		if err != nil {
			return nil
		}
		if g := c.DB.Group(); g != nil {
			db = db.InGroup(g)
		}
		dbs[i] = db
	}
	var out []watchKey
	for _, wk := range c.Srv.watches.keysIn(x, y) {
		key := [][]byte{[]byte(wk.key)}
		for _, db := range dbs {
			if n, err := db.Exists(key); err != nil || n > 0 {
				// A failed read counts as a change: the watcher must not
				// trust the key.
				out = append(out, wk)
				break
			}
		}
	}
	return out
}

// keysIn lists the watched keys of databases x and y.
func (r *watchRegistry) keysIn(x, y int) []watchKey {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []watchKey
	for k := range r.entries {
		if k.db == x || k.db == y {
			out = append(out, k)
		}
	}
	return out
}

// keysIn lists the keys of databases x and y that clients are blocked on,
// in order, so that the clients a SWAPDB serves are served in an order
// that does not change from run to run.
func (r *blockRegistry) keysIn(x, y int) []blockKey {
	if r.waiting.Load() == 0 {
		return nil
	}
	r.mu.Lock()
	var out []blockKey
	for k := range r.queues {
		if k.db == x || k.db == y {
			out = append(out, k)
		}
	}
	r.mu.Unlock()
	slices.SortFunc(out, func(a, b blockKey) int {
		return cmp.Or(cmp.Compare(a.db, b.db), strings.Compare(a.key, b.key))
	})
	return out
}
