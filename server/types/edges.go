package types

import (
	"bytes"

	"github.com/shaledb/shale/server/store"
)

// Walks from an end of a range whose front (or back) records get removed
// (a sorted set drained from one end, a consumer group's pending list as
// entries are acknowledged) start past the tombstones those removals left,
// where the store's edges say the live records begin (store.Edges).

// edgedWalk calls fn for each record of r in [lower, upper), in order or
// in reverse, until fn returns false or fails; low and high bound every
// record r may hold. The walk starts past the tombstones the store's
// edges tell it to skip (store.Edges), and a walk that starts at the end
// of the live records on its side moves that edge to the first record it
// meets, or to its far bound when it meets none: the next walk from that
// end starts there. A snapshot view neither uses nor moves edges
// (mayMoveEdges).
func (d *DB) edgedWalk(r store.EdgeRange, low, high, lower, upper []byte, rev bool, fn func(k, v []byte) (bool, error)) error {
	var first, end []byte
	var epoch uint64
	if d.mayMoveEdges() {
		first, end, epoch = d.st.Edges(r)
	}
	// atEdge: no live record lies between the walk's start and the end of
	// the range on that side.
	var atEdge bool
	if rev {
		atEdge = bytes.Compare(upper, high) >= 0 || (end != nil && bytes.Compare(upper, end) >= 0)
		if end != nil && bytes.Compare(upper, end) > 0 {
			upper = end
		}
	} else {
		atEdge = bytes.Compare(lower, low) <= 0 || (first != nil && bytes.Compare(lower, first) <= 0)
		if first != nil && bytes.Compare(lower, first) < 0 {
			lower = first
		}
	}
	if bytes.Compare(lower, upper) >= 0 {
		return nil
	}
	moveEdge := atEdge && d.mayMoveEdges()
	met := false
	err := d.iterate(r.CF, lower, upper, rev, func(k, v []byte) (bool, error) {
		if !met {
			met = true
			if moveEdge {
				d.moveEdge(r, k, rev, epoch)
			}
		}
		return fn(k, v)
	})
	if err == nil && !met && moveEdge {
		// Nothing live from the edge to the walk's far bound.
		if rev {
			d.st.SetEndEdge(r, lower, epoch)
		} else {
			d.st.SetFirstEdge(r, upper, epoch)
		}
	}
	return err
}

// mayMoveEdges reports whether d uses and moves the store's edges: it
// holds its keys' locks and reads what has landed with every write
// queued, not a snapshot.
func (d *DB) mayMoveEdges() bool { return !d.snapshot }

// moveEdge records that key is the first live record of r (the last one
// when last is set), as read under epoch (store.Edges).
func (d *DB) moveEdge(r store.EdgeRange, key []byte, last bool, epoch uint64) {
	if last {
		d.st.SetEndEdge(r, keyAfter(key), epoch)
	} else {
		d.st.SetFirstEdge(r, key, epoch)
	}
}

// keyAfter is the first key that sorts after k.
func keyAfter(k []byte) []byte {
	return append(append(make([]byte, 0, len(k)+1), k...), 0)
}
