package store

import (
	"bytes"
	"errors"
	"slices"
	"sort"

	"github.com/shaledb/shale/subkey"
)

// pendingIndex lets a transaction read its own writes: the records of a
// batch not yet written, indexed by key, over which Txn's Reader lays the
// store. It is built from the batch's rep itself, lazily and
// incrementally (catchUp), so a batch that nobody reads through pays
// nothing, and a rollback below what was indexed just starts it again.
//
// Values are kept as offsets into the rep, which may move as it grows.
// Counter merges never appear in a batch's rep before Store.Write, so the
// records indexed are puts, deletes and range deletions.
type pendingIndex struct {
	size int // bytes of the rep indexed, header included; 0: none
	seq  int // records indexed, in order
	// points is each key's last put or delete, per column family; keys
	// lists those keys, sorted when sorted is set.
	points [numCFs]map[string]pendingPoint
	keys   [numCFs][]string
	sorted [numCFs]bool
	ranges []pendingRange
}

// pendingPoint is the last put (found) or delete of one key in the batch.
type pendingPoint struct {
	seq           int
	valAt, valLen int
	found         bool
}

// pendingRange is a range deletion of the batch: [lo, hi) of cf.
type pendingRange struct {
	seq    int
	cf     CF
	lo, hi keySpan
}

var errBadRep = errors.New("store: a batch's records do not parse")

func (x *pendingIndex) reset() {
	for cf := range x.points {
		clear(x.points[cf])
		x.keys[cf] = x.keys[cf][:0]
		x.sorted[cf] = true
	}
	x.ranges = x.ranges[:0]
	x.size, x.seq = 0, 0
}

// catchUp indexes the records b added since the last call. A rollback of b
// below what was indexed empties the index first (Batch.rollback).
func (x *pendingIndex) catchUp(b *Batch) error {
	rep := b.rep.buf
	if x.size == 0 {
		x.size = min(repHeader, len(rep))
	}
	for x.size < len(rep) {
		n, err := x.add(b, rep, x.size)
		if err != nil {
			return err
		}
		x.size += n
	}
	return nil
}

// add indexes the record at rep[at:] and returns its length.
func (x *pendingIndex) add(b *Batch, rep []byte, at int) (int, error) {
	r, next, err := readRecord(rep, at)
	if err != nil {
		return 0, err
	}
	cf, ok := b.s.cfOfID(r.cf)
	if !ok || r.tag == tagLogData {
		return 0, errBadRep
	}
	x.seq++
	switch r.tag {
	case tagValue, tagCFValue:
		x.point(cf, r.key.key(rep), pendingPoint{seq: x.seq, valAt: r.val.at, valLen: r.val.n, found: true})
	case tagDeletion, tagCFDeletion:
		x.point(cf, r.key.key(rep), pendingPoint{seq: x.seq})
	case tagRangeDeletion, tagCFRangeDeletion:
		x.ranges = append(x.ranges, pendingRange{seq: x.seq, cf: cf, lo: r.key, hi: r.val})
	}
	return next - at, nil
}

func (x *pendingIndex) point(cf CF, key []byte, pt pendingPoint) {
	if x.points[cf] == nil {
		x.points[cf] = make(map[string]pendingPoint)
	}
	if _, seen := x.points[cf][string(key)]; !seen {
		x.keys[cf] = append(x.keys[cf], string(key))
		x.sorted[cf] = len(x.keys[cf]) == 1
	}
	x.points[cf][string(key)] = pt
}

// rangeSeq is the sequence of the last range deletion of cf covering key; 0
// when none does.
func (x *pendingIndex) rangeSeq(rep []byte, cf CF, key []byte) int {
	seq := 0
	for _, r := range x.ranges {
		if r.cf == cf && r.seq > seq && bytes.Compare(key, r.lo.key(rep)) >= 0 && bytes.Compare(key, r.hi.key(rep)) < 0 {
			seq = r.seq
		}
	}
	return seq
}

// lookup says what the batch makes of key: known is false when the batch
// does not touch it, and the store's record stands.
func (x *pendingIndex) lookup(rep []byte, cf CF, key []byte) (val []byte, found, known bool) {
	pt, ok := x.points[cf][string(key)]
	rs := x.rangeSeq(rep, cf, key)
	switch {
	case ok && pt.seq > rs:
		if !pt.found {
			return nil, false, true
		}
		return rep[pt.valAt : pt.valAt+pt.valLen], true, true
	case rs > 0:
		return nil, false, true
	}
	return nil, false, false
}

// sortedKeys returns the keys of cf the batch puts or deletes, sorted.
func (x *pendingIndex) sortedKeys(cf CF) []string {
	if !x.sorted[cf] {
		sort.Strings(x.keys[cf])
		x.sorted[cf] = true
	}
	return x.keys[cf]
}

// pendingReader reads a batch's records over a base reader: what a
// transaction reads (Txn.Reader).
type pendingReader struct {
	b    *Batch
	x    *pendingIndex
	base Reader
}

// Get reads key as the batch would leave it.
func (r *pendingReader) Get(cf CF, key []byte) ([]byte, bool, error) {
	val, found, known, err := r.batched(cf, key)
	if err != nil || known {
		return val, found, err
	}
	return r.base.Get(cf, key)
}

// GetHead reads key's record, or its head, as the batch would leave it.
func (r *pendingReader) GetHead(cf CF, key []byte) ([]byte, bool, bool, error) {
	val, found, known, err := r.batched(cf, key)
	if err != nil || known {
		return val, true, found, err
	}
	if hr, ok := r.base.(HeadReader); ok {
		return hr.GetHead(cf, key)
	}
	val, found, err = r.base.Get(cf, key)
	return val, true, found, err
}

// PeekList serves list uid's elements at [from, to) as the batch would
// leave them, as Store.PeekList does: those the batch writes and those the
// base's caches hold, up to the first it has neither of or the batch
// deletes. A script's or a transaction's LRANGE of a list's head is then
// served from the caches, as a lone command's is.
func (r *pendingReader) PeekList(uid, from, to uint64, reverse bool, fn func(val []byte)) uint64 {
	base, ok := r.base.(CachePeeker)
	if !ok || r.x.catchUp(r.b) != nil {
		return 0
	}
	if r.b.Len() == 0 {
		return base.PeekList(uid, from, to, reverse, fn)
	}
	rep := r.b.rep.buf
	var key [subkey.ListKeyLen]byte
	return eachIndex(from, to, reverse, func(i uint64) bool {
		if val, found, known := r.x.lookup(rep, CFSubkey, subkey.AppendListKey(key[:0], uid, i)); known {
			if found {
				fn(val)
			}
			return found
		}
		return base.PeekList(uid, i, i+1, false, fn) == 1
	})
}

// batched is the record of key the batch writes, if it writes one (known).
func (r *pendingReader) batched(cf CF, key []byte) (val []byte, found, known bool, err error) {
	if err := r.x.catchUp(r.b); err != nil {
		return nil, false, false, err
	}
	if val, found, known := r.x.lookup(r.b.rep.buf, cf, key); known {
		return slices.Clone(val), found, true, nil
	}
	return nil, false, false, nil
}

// MultiGet reads keys as the batch would leave them.
func (r *pendingReader) MultiGet(cf CF, keys [][]byte) ([][]byte, []bool, error) {
	if len(keys) == 0 {
		return nil, nil, nil
	}
	vals, found := make([][]byte, len(keys)), make([]bool, len(keys))
	for i, k := range keys {
		v, f, err := r.Get(cf, k)
		if err != nil {
			return nil, nil, err
		}
		vals[i], found[i] = v, f
	}
	return vals, found, nil
}

// Iterate merges the batch's records of [lower, upper) with the base's,
// the batch's winning, and leaves out base records it deletes.
func (r *pendingReader) Iterate(cf CF, lower, upper []byte, reverse bool, fn func(key, val []byte) bool) error {
	if err := r.x.catchUp(r.b); err != nil {
		return err
	}
	keys := r.x.sortedKeys(cf)
	lo := sort.SearchStrings(keys, string(lower))
	hi := len(keys)
	if upper != nil {
		hi = sort.SearchStrings(keys, string(upper))
	}
	keys = keys[lo:max(lo, hi)]
	rep := r.b.rep.buf
	return mergeIterate(r.base, cf, lower, upper, reverse, len(keys),
		func(i int) (string, []byte, bool) {
			val, found, _ := r.x.lookup(rep, cf, []byte(keys[i]))
			return keys[i], val, found
		},
		func(k []byte) bool { return r.x.rangeSeq(rep, cf, k) > 0 }, fn)
}

// mergeIterate walks base's records of cf in [lower, upper) merged with n
// pending records, which at(i) gives in ascending key order: a pending
// record wins over the base's of the same key, a pending delete (found
// false) hides it, and so does rangeDeleted for base keys.
func mergeIterate(base Reader, cf CF, lower, upper []byte, reverse bool, n int,
	at func(i int) (key string, val []byte, found bool), rangeDeleted func(key []byte) bool,
	fn func(key, val []byte) bool) error {
	// next is the next pending record to merge, walking forward or back.
	next, step := 0, 1
	if reverse {
		next, step = n-1, -1
	}
	more := func() bool { return next >= 0 && next < n }
	// before reports whether pending key p comes before base key k in
	// the walk's order.
	before := func(p string, k []byte) bool {
		c := bytes.Compare([]byte(p), k)
		return (c < 0 && !reverse) || (c > 0 && reverse)
	}
	stopped := false
	// emit yields pending record i when it leaves its key present.
	emit := func(i int) bool {
		key, val, found := at(i)
		if found && !fn([]byte(key), val) {
			stopped = true
			return false
		}
		return true
	}
	err := base.Iterate(cf, lower, upper, reverse, func(k, v []byte) bool {
		for more() {
			key, _, _ := at(next)
			if !before(key, k) {
				break
			}
			if !emit(next) {
				return false
			}
			next += step
		}
		if more() {
			if key, _, _ := at(next); key == string(k) {
				i := next
				next += step
				return emit(i) // the pending record wins
			}
		}
		if rangeDeleted(k) {
			return true
		}
		if !fn(k, v) {
			stopped = true
			return false
		}
		return true
	})
	if err != nil || stopped {
		return err
	}
	for ; more(); next += step {
		if !emit(next) {
			break
		}
	}
	return nil
}

// cfOfID is the column family RocksDB numbers id.
func (s *Store) cfOfID(id uint32) (CF, bool) {
	for cf, cid := range s.cfIDs {
		if cid == id {
			return CF(cf), true
		}
	}
	return 0, false
}
