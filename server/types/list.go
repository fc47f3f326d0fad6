package types

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/shaledb/shale/metadata"
	"github.com/shaledb/shale/server/store"
	"github.com/shaledb/shale/subkey"
)

// A list's elements live in the subkey CF under subkey.AppendListKey(uid,
// index): element i (0-based from the head) has index Head+i, and the live
// indexes are exactly [Head, Tail) with Size = Tail-Head. LPUSH writes at
// Head-1 and RPUSH at Tail, so both ends are O(1) per element, and an index
// or a range of positions is one point read or one bounded scan. Commands
// that remove from the middle (LREM, LINSERT's opening) shift the shorter
// side, so the indexes stay dense.

// ErrIndexOutOfRange is LSET's error for an index outside the list.
var ErrIndexOutOfRange = errors.New("index out of range")

// ListEnd is the end of a list that a command pushes at or pops from.
type ListEnd uint8

// The ends of a list, as Redis names them (LPUSH, RPOP, LMOVE's LEFT|RIGHT).
const (
	Left  ListEnd = iota // the head
	Right                // the tail
)

// ifMissing is what push does when the list does not exist.
type ifMissing uint8

const (
	createList  ifMissing = iota // create it (LPUSH, RPUSH)
	pushNothing                  // leave it missing (LPUSHX, RPUSHX)
)

// onEmptied is what listPop does with the records of the elements it pops
// when they are all the list's elements.
type onEmptied uint8

const (
	// deleteRecords deletes them, as for any pop: the caller pushes to the
	// same list again in this batch (LMOVE of a one-element list onto
	// itself).
	deleteRecords onEmptied = iota
	// orphanRecords leaves them to the compaction filters, since saving the
	// empty list removes the key: the caller must then not push to the list
	// again in this batch.
	orphanRecords
)

// lkey is the sub-key of the element at position pos (0-based from the
// head) of the key's current list.
func (ks *keyState) lkey(pos uint64) []byte {
	return subkey.AppendListKey(nil, ks.m.UID, ks.m.Head+pos)
}

// listRange reads the elements at positions [from, to), head first, or tail
// first when reverse is set.
func (d *DB) listRange(ks *keyState, from, to uint64, reverse bool) ([][]byte, error) {
	if from >= to {
		return nil, nil
	}
	if to-from == 1 {
		v, ok, err := d.rd.Get(store.CFSubkey, ks.lkey(from))
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("list %q: element %d missing: %w", ks.key, from, metadata.ErrCorrupt)
		}
		return [][]byte{v}, nil
	}
	out := make([][]byte, 0, min(to-from, 1<<16))
	arena := valueArena{expect: to - from}
	keep := func(v []byte) { out = append(out, arena.copy(v)) }
	lo, hi := from, to
	if st, ok := d.rd.(store.CachePeeker); ok {
		// The elements pushed last, which LRANGE of a list's head and
		// LPOP/RPOP with a count read most, are usually in the sub-key
		// cache: serve them from there up to the first one it lacks, and
		// walk RocksDB only for the rest. A merging iterator's seek and
		// steps cost more per element than a cache lookup, and more still
		// over the versions that pops and pushes leave at the same index.
		n := st.PeekList(ks.m.UID, ks.m.Head+lo, ks.m.Head+hi, reverse, keep)
		if reverse {
			hi -= n
		} else {
			lo += n
		}
	}
	var err error
	if lo < hi {
		err = d.rd.Iterate(store.CFSubkey, ks.lkey(lo), ks.lkey(hi), reverse, func(_, v []byte) bool {
			keep(v)
			return true
		})
	}
	if err == nil && uint64(len(out)) != to-from {
		err = fmt.Errorf("list %q: %d elements in positions [%d, %d): %w", ks.key, len(out), from, to, metadata.ErrCorrupt)
	}
	return out, err
}

// listPush adds vals at end, one after the other, so LPUSH a b c leaves c
// first, as Redis does. The caller saves ks.
func (ks *keyState) listPush(b *store.Batch, vals [][]byte, end ListEnd) {
	for _, v := range vals {
		if end == Left {
			ks.m.Head--
			b.Put(store.CFSubkey, subkey.AppendListKey(nil, ks.m.UID, ks.m.Head), v)
		} else {
			b.Put(store.CFSubkey, subkey.AppendListKey(nil, ks.m.UID, ks.m.Tail), v)
			ks.m.Tail++
		}
	}
	ks.m.Size += uint64(len(vals))
}

// listPop removes up to n elements from end and returns them in the order
// they were popped; emptied says what becomes of their records when they are
// all the elements. The caller saves ks.
func (d *DB) listPop(b *store.Batch, ks *keyState, n uint64, end ListEnd, emptied onEmptied) ([][]byte, error) {
	n = min(n, ks.m.Size)
	var vals [][]byte
	var err error
	if end == Left {
		vals, err = d.listRange(ks, 0, n, false)
	} else {
		vals, err = d.listRange(ks, ks.m.Size-n, ks.m.Size, true)
	}
	if err != nil {
		return nil, err
	}
	if emptied == deleteRecords || n < ks.m.Size {
		for i := range n {
			if end == Left {
				b.Delete(store.CFSubkey, subkey.AppendListKey(nil, ks.m.UID, ks.m.Head+i))
			} else {
				b.Delete(store.CFSubkey, subkey.AppendListKey(nil, ks.m.UID, ks.m.Tail-1-i))
			}
		}
	}
	if end == Left {
		ks.m.Head += n
	} else {
		ks.m.Tail -= n
	}
	ks.m.Size -= n
	return vals, nil
}

// push is LPUSH, RPUSH, LPUSHX and RPUSHX. It returns the list's new length
// (0 when the list was missing and missing says to leave it so).
func (d *DB) push(key []byte, vals [][]byte, end ListEnd, missing ifMissing) (int64, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	err := d.loadList(ks, key)
	if err != nil {
		return 0, err
	}
	if !ks.live && missing == pushNothing {
		return 0, nil
	}
	err = d.write(func(b *store.Batch) error {
		if !ks.live {
			if err := ks.create(b, metadata.TypeList); err != nil {
				return err
			}
		}
		ks.listPush(b, vals, end)
		ks.save(b)
		return nil
	})
	d.checkList(key)
	return int64(ks.m.Size), err
}

// LPush is LPUSH: it returns the list's new length.
func (d *DB) LPush(key []byte, vals [][]byte) (int64, error) {
	return d.push(key, vals, Left, createList)
}

// RPush is RPUSH: it returns the list's new length.
func (d *DB) RPush(key []byte, vals [][]byte) (int64, error) {
	return d.push(key, vals, Right, createList)
}

// LPushX is LPUSHX: LPUSH only onto an existing list; 0 when there is none.
func (d *DB) LPushX(key []byte, vals [][]byte) (int64, error) {
	return d.push(key, vals, Left, pushNothing)
}

// RPushX is RPUSHX: RPUSH only onto an existing list; 0 when there is none.
func (d *DB) RPushX(key []byte, vals [][]byte) (int64, error) {
	return d.push(key, vals, Right, pushNothing)
}

// LPop is LPOP (end Left) and RPOP with a count: up to count elements, in
// the order popped. ok is false when the key does not exist; count 0 on an
// existing list returns no elements and ok.
func (d *DB) LPop(key []byte, count int64, end ListEnd) (vals [][]byte, ok bool, err error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	err = d.loadList(ks, key)
	if err != nil || !ks.live {
		return nil, false, err
	}
	if count <= 0 {
		return [][]byte{}, true, nil
	}
	err = d.write(func(b *store.Batch) error {
		var err error
		if vals, err = d.listPop(b, ks, uint64(count), end, orphanRecords); err != nil {
			return err
		}
		ks.save(b)
		return nil
	})
	d.checkList(key)
	return vals, err == nil, err
}

// LMPop is LMPOP: it pops up to count elements from the first non-empty
// list among keys, in key order, and returns its key with them. A key of
// another type met before that list is ErrWrongType. key is nil when every
// key is missing.
func (d *DB) LMPop(keys [][]byte, end ListEnd, count int64) (key []byte, vals [][]byte, err error) {
	unlock := d.lock(keys...)
	defer unlock()
	for _, k := range keys {
		ks := &keyState{}
		err := d.loadList(ks, k)
		if err != nil {
			return nil, nil, err
		}
		if !ks.live {
			continue
		}
		err = d.write(func(b *store.Batch) error {
			var err error
			if vals, err = d.listPop(b, ks, uint64(max(count, 1)), end, orphanRecords); err != nil {
				return err
			}
			ks.save(b)
			return nil
		})
		d.checkList(k)
		if err != nil {
			return nil, nil, err
		}
		return k, vals, nil
	}
	return nil, nil, nil
}

// LMove is LMOVE and RPOPLPUSH: it pops one element from src's head (or
// tail) and pushes it at dst's head (or tail), atomically; src and dst may
// be the same list (a rotation). ok is false when src does not exist. A dst
// of another type is ErrWrongType and src is left as it was.
func (d *DB) LMove(src, dst []byte, from, to ListEnd) (val []byte, ok bool, err error) {
	unlock := d.lock(src, dst)
	defer unlock()
	ks := &keyState{}
	err = d.loadList(ks, src)
	if err != nil || !ks.live {
		return nil, false, err
	}
	kd := ks
	if !bytes.Equal(src, dst) {
		kd = &keyState{}
		if err = d.loadList(kd, dst); err != nil {
			return nil, false, err
		}
	}
	err = d.write(func(b *store.Batch) error {
		vals, err := d.listPop(b, ks, 1, from, deleteRecords)
		if err != nil {
			return err
		}
		val = vals[0]
		if !kd.live {
			if err := kd.create(b, metadata.TypeList); err != nil {
				return err
			}
		}
		kd.listPush(b, vals, to)
		if kd != ks {
			ks.save(b)
		}
		kd.save(b)
		return nil
	})
	d.checkList(src)
	d.checkList(dst)
	return val, err == nil, err
}

// LLen is LLEN.
func (d *DB) LLen(key []byte) (int64, error) { return d.card(key, metadata.TypeList) }

// LIndex is LINDEX: the element at index (negative counts from the tail),
// ok=false when the index is outside the list or the key is missing.
func (d *DB) LIndex(key []byte, index int64) ([]byte, bool, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	if err := d.loadList(ks, key); err != nil || !ks.live {
		return nil, false, err
	}
	pos, ok := listIndex(index, ks.m.Size)
	if !ok {
		return nil, false, nil
	}
	v, found, err := d.rd.Get(store.CFSubkey, ks.lkey(pos))
	if err == nil && !found {
		err = fmt.Errorf("list %q: element %d missing: %w", key, pos, metadata.ErrCorrupt)
	}
	return v, found, err
}

// listIndex turns a Redis index (negative counts from the tail) into a
// position in a list of size elements; ok is false when it is outside.
func listIndex(index int64, size uint64) (uint64, bool) {
	if index < 0 {
		index += int64(size)
	}
	if index < 0 || uint64(index) >= size {
		return 0, false
	}
	return uint64(index), true
}

// LSet is LSET: ErrNoSuchKey when the key is missing, ErrIndexOutOfRange
// when the index is outside the list.
func (d *DB) LSet(key []byte, index int64, val []byte) error {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	if err := d.loadList(ks, key); err != nil {
		return err
	}
	if !ks.live {
		return ErrNoSuchKey
	}
	pos, ok := listIndex(index, ks.m.Size)
	if !ok {
		return ErrIndexOutOfRange
	}
	return d.write(func(b *store.Batch) error {
		b.Put(store.CFSubkey, ks.lkey(pos), val)
		return nil
	})
}

// listSpan turns the start and stop of LRANGE, LTRIM and ZRANGE by index
// (inclusive, negative counting from the tail) into the positions [from, to)
// of a list or zset of size elements, exactly as Redis clamps them. The span
// is empty when from == to.
func listSpan(start, stop int64, size uint64) (from, to uint64) {
	n := int64(size)
	if start < 0 {
		start += n
	}
	if stop < 0 {
		stop += n
	}
	start = max(start, 0)
	if start > stop || start >= n {
		return 0, 0
	}
	stop = min(stop, n-1)
	return uint64(start), uint64(stop) + 1
}

// LRange is LRANGE: the elements from start to stop, both inclusive.
func (d *DB) LRange(key []byte, start, stop int64) ([][]byte, error) {
	unlock := d.lock(key)
	defer func() { unlock() }()
	ks := &keyState{}
	if err := d.loadList(ks, key); err != nil || !ks.live {
		return nil, err
	}
	from, to := listSpan(start, stop, ks.m.Size)
	d, done := d.walkView(to-from, &unlock)
	defer done()
	return d.listRange(ks, from, to, false)
}

// LTrim is LTRIM: it keeps the elements from start to stop, both inclusive.
// The trimmed elements' records are deleted in the same batch, O(removed);
// when nothing is kept the key is removed in O(1) instead.
func (d *DB) LTrim(key []byte, start, stop int64) error {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	err := d.loadList(ks, key)
	if err != nil || !ks.live {
		return err
	}
	from, to := listSpan(start, stop, ks.m.Size)
	if from == 0 && to == ks.m.Size {
		// Redis counts it as a change of the key all the same: WATCH
		// and keyspace notifications see one.
		d.settle(d.logged(), true, nil)
		return nil
	}
	err = d.write(func(b *store.Batch) error {
		if from < to {
			for p := range from {
				b.Delete(store.CFSubkey, ks.lkey(p))
			}
			for p := to; p < ks.m.Size; p++ {
				b.Delete(store.CFSubkey, ks.lkey(p))
			}
			ks.m.Tail = ks.m.Head + to
			ks.m.Head += from
		}
		ks.m.Size = to - from
		ks.save(b)
		return nil
	})
	d.checkList(key)
	return err
}

// LPos is LPOS: the positions of the elements equal to elem. rank r > 0
// skips the first r-1 matches from the head, r < 0 scans from the tail and
// skips the first -r-1 matches from there; count is the number of matches
// wanted (0 = all); maxlen > 0 compares only that many elements from the
// scan's start. Positions are always counted from the head.
func (d *DB) LPos(key, elem []byte, rank, count, maxlen int64) ([]int64, error) {
	unlock := d.lock(key)
	defer func() { unlock() }()
	ks := &keyState{}
	err := d.loadList(ks, key)
	if err != nil || !ks.live {
		return nil, err
	}
	reverse := rank < 0
	skip := int64(0)
	switch {
	case rank == math.MinInt64:
		// Redis negates the rank, which overflows back to itself: every
		// match then passes its "matches >= rank" test.
	case rank < 0:
		skip = -rank - 1
	default:
		skip = rank - 1
	}
	n := ks.m.Size
	if maxlen > 0 {
		n = min(n, uint64(maxlen))
	}
	from, to := uint64(0), n
	if reverse {
		from, to = ks.m.Size-n, ks.m.Size
	}
	var out []int64
	d, done := d.walkView(to-from, &unlock)
	defer done()
	err = d.listFind(ks, from, to, reverse, elem, func(pos uint64) bool {
		if skip > 0 {
			skip--
			return true
		}
		out = append(out, int64(pos))
		return count <= 0 || int64(len(out)) < count
	})
	return out, err
}

// listFind calls fn with the position, counted from the head, of each
// element of the live list ks in [from, to) equal to elem, scanning from
// to's side when reverse, until fn returns false.
func (d *DB) listFind(ks *keyState, from, to uint64, reverse bool, elem []byte, fn func(pos uint64) bool) error {
	pos := from
	if reverse {
		pos = to - 1
	}
	return d.rd.Iterate(store.CFSubkey, ks.lkey(from), ks.lkey(to), reverse, func(_, v []byte) bool {
		if bytes.Equal(v, elem) && !fn(pos) {
			return false
		}
		if reverse {
			pos--
		} else {
			pos++
		}
		return true
	})
}

// InsertPlace is where LINSERT puts the new element, next to the pivot.
type InsertPlace uint8

// LINSERT's BEFORE and AFTER.
const (
	Before InsertPlace = iota
	After
)

// LInsert is LINSERT: it inserts val at place (before or after) the first
// element equal to pivot and returns the new length, -1 when pivot is not
// found and 0 when the key is missing. The elements on the shorter side of
// the insertion point move by one.
func (d *DB) LInsert(key []byte, place InsertPlace, pivot, val []byte) (int64, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	err := d.loadList(ks, key)
	if err != nil || !ks.live {
		return 0, err
	}
	// Scan for the pivot, keeping the elements passed: they are the head
	// side, which moves when it is the shorter one.
	var head [][]byte
	found := false
	err = d.rd.Iterate(store.CFSubkey, ks.lkey(0), ks.lkey(ks.m.Size), false, func(_, v []byte) bool {
		if bytes.Equal(v, pivot) {
			found = true
			if place == After {
				head = append(head, append([]byte{}, v...))
			}
			return false
		}
		head = append(head, append([]byte{}, v...))
		return true
	})
	if err != nil || !found {
		return -1, err
	}
	at := uint64(len(head)) // the new element's position
	err = d.write(func(b *store.Batch) error {
		if at <= ks.m.Size-at {
			// The head side moves one index towards the head.
			for i, v := range head {
				b.Put(store.CFSubkey, subkey.AppendListKey(nil, ks.m.UID, ks.m.Head-1+uint64(i)), v)
			}
			b.Put(store.CFSubkey, subkey.AppendListKey(nil, ks.m.UID, ks.m.Head-1+at), val)
			ks.m.Head--
		} else {
			tail, err := d.listRange(ks, at, ks.m.Size, false)
			if err != nil {
				return err
			}
			for i, v := range tail {
				b.Put(store.CFSubkey, ks.lkey(at+1+uint64(i)), v)
			}
			b.Put(store.CFSubkey, ks.lkey(at), val)
			ks.m.Tail++
		}
		ks.m.Size++
		ks.save(b)
		return nil
	})
	d.checkList(key)
	return int64(ks.m.Size), err
}

// LRem is LREM: it removes the first count elements equal to val from the
// head (count > 0), from the tail (count < 0), or all of them (count 0),
// and returns how many went. The survivors on the shorter side of the
// removed span close the gaps, so the list stays dense.
func (d *DB) LRem(key []byte, count int64, val []byte) (int64, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	err := d.loadList(ks, key)
	if err != nil || !ks.live {
		return 0, err
	}
	reverse := count < 0
	limit := uint64(0) // 0 = all
	if count != 0 {
		limit = uint64(count)
		if reverse {
			limit = -uint64(count)
		}
	}
	var hits []uint64 // positions of the removed elements
	err = d.listFind(ks, 0, ks.m.Size, reverse, val, func(pos uint64) bool {
		hits = append(hits, pos)
		return limit == 0 || uint64(len(hits)) < limit
	})
	if err != nil || len(hits) == 0 {
		return 0, err
	}
	if reverse {
		for i, j := 0, len(hits)-1; i < j; i, j = i+1, j-1 {
			hits[i], hits[j] = hits[j], hits[i]
		}
	}
	removed := uint64(len(hits))
	err = d.write(func(b *store.Batch) error {
		if removed < ks.m.Size {
			if err := d.listCloseGaps(b, ks, hits); err != nil {
				return err
			}
		}
		ks.m.Size -= removed
		ks.save(b)
		return nil
	})
	d.checkList(key)
	return int64(removed), err
}

// listCloseGaps rewrites the list without the elements at the positions in
// hits (ascending, at least one survivor): either the survivors after the
// first hit move towards the head and the tail shrinks, or the survivors
// before the last hit move towards the tail and the head advances, which
// ever moves fewer elements. The caller sets Size and saves ks.
func (d *DB) listCloseGaps(b *store.Batch, ks *keyState, hits []uint64) error {
	first, last := hits[0], hits[len(hits)-1]
	k := uint64(len(hits))
	moveDown := ks.m.Size - first - k // survivors after the first hit
	moveUp := last + 1 - k            // survivors before the last hit
	removedAt := make(map[uint64]bool, len(hits))
	for _, h := range hits {
		removedAt[h] = true
	}
	if moveDown <= moveUp {
		vals, err := d.listRange(ks, first, ks.m.Size, false)
		if err != nil {
			return err
		}
		dst := first
		for i, v := range vals {
			if removedAt[first+uint64(i)] {
				continue
			}
			if dst != first+uint64(i) {
				b.Put(store.CFSubkey, ks.lkey(dst), v)
			}
			dst++
		}
		for p := dst; p < ks.m.Size; p++ {
			b.Delete(store.CFSubkey, ks.lkey(p))
		}
		ks.m.Tail = ks.m.Head + dst
		return nil
	}
	vals, err := d.listRange(ks, 0, last+1, false)
	if err != nil {
		return err
	}
	dst := last // the next free position, filled from the last hit down
	for i := len(vals) - 1; i >= 0; i-- {
		if removedAt[uint64(i)] {
			continue
		}
		if dst != uint64(i) {
			b.Put(store.CFSubkey, ks.lkey(dst), vals[i])
		}
		dst--
	}
	// Positions [0, k) are now free: dst+1 == k.
	for p := range k {
		b.Delete(store.CFSubkey, ks.lkey(p))
	}
	ks.m.Head += k
	return nil
}

// checkList, with the invariants build tag, panics when a live list's
// sub-keys are not exactly the indexes [Head, Tail) with Size = Tail-Head.
// The caller holds the key's lock and has written its batch,
// or runs in a group (checkLater).
func (d *DB) checkList(key []byte) {
	if !invariants || d.checkLater(key, (*DB).checkList) {
		return
	}
	ks := &keyState{}
	err := d.load(ks, key, d.e.now())
	if err != nil || !ks.live || ks.m.Type != metadata.TypeList {
		return
	}
	m := ks.m
	if m.Tail-m.Head != m.Size || m.Size == 0 {
		panic(fmt.Sprintf("invariant: list %q has Head %d, Tail %d, Size %d", key, m.Head, m.Tail, m.Size))
	}
	want := m.Head
	err = d.iterSub(m.UID, func(sub, _ []byte) bool {
		if len(sub) != 8 {
			panic(fmt.Sprintf("invariant: list %q has a %d-byte sub-key", key, len(sub)))
		}
		idx := binary.BigEndian.Uint64(sub)
		if idx != want {
			panic(fmt.Sprintf("invariant: list %q: sub-key index %d, want %d (Head %d, Tail %d)", key, idx, want, m.Head, m.Tail))
		}
		want++
		return true
	})
	if err == nil && want != m.Tail {
		panic(fmt.Sprintf("invariant: list %q: sub-keys end at %d, want Tail %d", key, want, m.Tail))
	}
}
