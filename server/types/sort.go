package types

import (
	"bytes"
	"math"
	"slices"

	"github.com/shaledb/shale/metadata"
	"github.com/shaledb/shale/server/store"
	"github.com/shaledb/shale/subkey"
)

// SortOptions are SORT's and SORT_RO's options.
type SortOptions struct {
	By       []byte // BY pattern; nil = sort by the elements themselves
	Offset   int64  // LIMIT offset (negative = 0)
	Count    int64  // LIMIT count; negative = all
	Gets     [][]byte
	Desc     bool
	Alpha    bool
	StoreKey []byte // STORE destination; nil = reply with the elements
}

// sortElem is one element being sorted and what it sorts by.
type sortElem struct {
	val   []byte
	score float64
	by    []byte // ALPHA with BY: the looked-up value; nil when missing
}

// Sort is SORT and SORT_RO. Without StoreKey it returns the reply items
// (nil entries are missing GET values); with it, the number stored.
//
// Only the sorted key and the destination are locked: the BY and GET keys
// are read one at a time, each read consistent on its own.
func (d *DB) Sort(key []byte, o SortOptions) ([][]byte, int64, error) {
	keys := [][]byte{key}
	if o.StoreKey != nil {
		keys = append(keys, o.StoreKey)
	}
	unlock := d.lock(keys...)
	defer func() { unlock() }()
	now := d.e.now()
	ks := &keyState{}
	if err := d.load(ks, key, now); err != nil {
		return nil, 0, err
	}
	typ := metadata.TypeList // a missing key sorts as an empty list
	if ks.live {
		typ = ks.m.Type
		if typ != metadata.TypeList && typ != metadata.TypeSet && typ != metadata.TypeZSet {
			return nil, 0, ErrWrongType
		}
	}
	dontSort := o.By != nil && bytes.IndexByte(o.By, '*') < 0
	alpha, by := o.Alpha, o.By
	if dontSort && typ == metadata.TypeSet && o.StoreKey != nil {
		// Redis sorts a set it stores, so that the result does not depend
		// on the set's internal order.
		dontSort, alpha, by = false, true, nil
	}
	size := int64(0)
	if ks.live {
		size = int64(ks.m.Size)
	}
	start, end := sortLimits(o.Offset, o.Count, size)
	if o.StoreKey == nil {
		// Each element may cost a BY and a GET lookup per pattern too.
		d, done := d.walkView(uint64(size)*uint64(2+len(o.Gets)), &unlock)
		defer done()
		out, err := d.sortReply(ks, typ, o, dontSort, alpha, by, start, end, now)
		return out, 0, err
	}
	out, err := d.sortReply(ks, typ, o, dontSort, alpha, by, start, end, now)
	if err != nil {
		return nil, 0, err
	}
	return nil, int64(len(out)), d.storeList(o.StoreKey, out, now)
}

// sortReply sorts the live or missing key of ks of type typ as o says and
// returns what SORT replies, or stores.
func (d *DB) sortReply(ks *keyState, typ metadata.Type, o SortOptions, dontSort, alpha bool, by []byte, start, end, now int64) ([][]byte, error) {
	var err error

	var elems []sortElem
	if ks.live {
		if elems, err = d.sortLoad(ks, dontSort, o.Desc, start, end); err != nil {
			return nil, err
		}
	}
	if dontSort && (typ == metadata.TypeList || typ == metadata.TypeZSet) {
		// sortLoad read just the LIMIT range.
		end -= start
		start = 0
	}
	if !dontSort {
		if err := d.sortScores(elems, by, alpha, now); err != nil {
			return nil, err
		}
		slices.SortStableFunc(elems, func(a, b sortElem) int {
			c := compareSortElems(a, b, alpha, by != nil)
			if o.Desc {
				return -c
			}
			return c
		})
	}

	var out [][]byte
	for j := start; j <= end && j < int64(len(elems)); j++ {
		if len(o.Gets) == 0 {
			out = append(out, elems[j].val)
			continue
		}
		for _, g := range o.Gets {
			v, ok, err := d.lookupByPattern(g, elems[j].val, now)
			if err != nil {
				return nil, err
			}
			if !ok {
				v = nil
				if o.StoreKey != nil {
					v = []byte{} // STORE writes a missing GET as ""
				}
			}
			out = append(out, v)
		}
	}
	return out, nil
}

// sortLimits turns LIMIT offset count into the inclusive range [start, end]
// of a vector of n elements, as Redis does (end < start means empty). Like
// Redis, it bounds offset and count by n first, so that start+count cannot
// overflow (LIMIT 2 9223372036854775807 is "from 2 to the end").
func sortLimits(offset, count, n int64) (start, end int64) {
	start = min(max(offset, 0), n)
	end = n - 1
	if count >= 0 {
		end = start + min(count, n) - 1
	}
	if start >= n {
		start, end = n-1, n-2
	}
	return start, min(end, n-1)
}

// sortLoad reads the elements of a list, set or zset. With dontSort, lists
// and zsets keep their order and only [start, end] is read, from the tail
// when desc.
func (d *DB) sortLoad(ks *keyState, dontSort, desc bool, start, end int64) ([]sortElem, error) {
	uid := ks.m.UID
	var elems []sortElem
	add := func(v []byte) { elems = append(elems, sortElem{val: append([]byte{}, v...)}) }
	switch ks.m.Type {
	case metadata.TypeList:
		lower, upper := subkey.AppendPrefix(nil, uid), subkey.AppendUpperBound(nil, uid)
		reverse := false
		if dontSort {
			if end < start {
				return nil, nil
			}
			n := int64(ks.m.Size)
			first, last := start, end // positions from the head
			if desc {
				first, last = n-1-end, n-1-start
				reverse = true
			}
			lower = subkey.AppendListKey(nil, uid, ks.m.Head+uint64(first))
			upper = subkey.AppendListKey(nil, uid, ks.m.Head+uint64(last)+1)
		}
		err := d.rd.Iterate(store.CFSubkey, lower, upper, reverse, func(_, v []byte) bool { add(v); return true })
		return elems, err
	case metadata.TypeSet:
		err := d.iterSub(uid, func(member, _ []byte) bool { add(member); return true })
		return elems, err
	case metadata.TypeZSet:
		lower, upper := subkey.AppendPrefix(nil, uid), subkey.AppendUpperBound(nil, uid)
		skip, want := int64(0), int64(math.MaxInt64)
		if dontSort {
			if end < start {
				return nil, nil
			}
			skip, want = start, end-start+1
		}
		err := d.iterate(store.CFScore, lower, upper, dontSort && desc, func(k, _ []byte) (bool, error) {
			if skip > 0 {
				skip--
				return true, nil
			}
			_, _, member, err := subkey.DecodeScoreKey(k)
			if err != nil {
				return false, err
			}
			add(member)
			want--
			return want > 0, nil
		})
		return elems, err
	}
	return nil, ErrWrongType
}

// sortScores fills in what each element sorts by.
func (d *DB) sortScores(elems []sortElem, by []byte, alpha bool, now int64) error {
	bad := false
	for i := range elems {
		v := elems[i].val
		if by != nil {
			bv, ok, err := d.lookupByPattern(by, v, now)
			if err != nil {
				return err
			}
			if !ok {
				continue // sorts as 0, or as missing with ALPHA
			}
			v = bv
		}
		if alpha {
			if by != nil {
				elems[i].by = v
			}
			continue
		}
		f, ok := parseSortScore(v)
		if !ok {
			bad = true
		}
		elems[i].score = f
	}
	if bad {
		return ErrSortScore
	}
	return nil
}

// parseSortScore parses as Redis's sortCommand does, with strtod: leading
// blanks are skipped, hex floats and "inf" are numbers, nothing but a NUL
// may follow the number, and ERANGE (overflow or underflow) and NaN are
// refused. An empty string is 0.
func parseSortScore(b []byte) (float64, bool) {
	f, n, rangeErr := strtod(string(b))
	if (n < len(b) && b[n] != 0) || rangeErr || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// compareSortElems is Redis's sortCompare before DESC: numeric by score,
// ties broken by the element's bytes; ALPHA compares the elements, or the
// BY values with missing ones first.
func compareSortElems(a, b sortElem, alpha, byPattern bool) int {
	if !alpha {
		switch {
		case a.score > b.score:
			return 1
		case a.score < b.score:
			return -1
		}
		return bytes.Compare(a.val, b.val)
	}
	if !byPattern {
		return bytes.Compare(a.val, b.val)
	}
	switch {
	case a.by == nil && b.by == nil:
		return 0
	case a.by == nil:
		return -1
	case b.by == nil:
		return 1
	}
	return bytes.Compare(a.by, b.by)
}

// lookupByPattern is Redis's lookupKeyByPattern: "#" is the element itself;
// otherwise the first '*' of pattern is replaced by the element, and a
// "->field" suffix after it reads that hash field instead of a string key.
// A pattern without '*' names nothing. It takes no lock: the caller may
// already hold the stripe of the key it names.
func (d *DB) lookupByPattern(pattern, elem []byte, now int64) ([]byte, bool, error) {
	if len(pattern) == 1 && pattern[0] == '#' {
		return elem, true, nil
	}
	star := bytes.IndexByte(pattern, '*')
	if star < 0 {
		return nil, false, nil
	}
	keyPat, field := pattern, []byte(nil)
	if f := bytes.Index(pattern[star+1:], []byte("->")); f >= 0 && star+1+f+2 < len(pattern) {
		keyPat, field = pattern[:star+1+f], pattern[star+1+f+2:]
	}
	key := make([]byte, 0, len(keyPat)+len(elem))
	key = append(append(append(key, keyPat[:star]...), elem...), keyPat[star+1:]...)
	ks := &keyState{}
	if err := d.load(ks, key, now); err != nil || !ks.live {
		return nil, false, err
	}
	if field == nil {
		if ks.m.Type != metadata.TypeString {
			return nil, false, nil
		}
		return ks.stringValue()
	}
	if ks.m.Type != metadata.TypeHash {
		return nil, false, nil
	}
	return d.rd.Get(store.CFSubkey, ks.skey(field))
}

// storeList replaces key with a list of items (SORT ... STORE), or deletes
// it when items is empty. The caller holds key's lock.
func (d *DB) storeList(key []byte, items [][]byte, now int64) error {
	ks := &keyState{}
	if err := d.load(ks, key, now); err != nil {
		return err
	}
	return d.write(func(b *store.Batch) error {
		if len(items) == 0 {
			ks.remove(b)
			return nil
		}
		if err := ks.create(b, metadata.TypeList); err != nil {
			return err
		}
		for i, v := range items {
			b.Put(store.CFSubkey, subkey.AppendListKey(nil, ks.m.UID, ks.m.Head+uint64(i)), v)
		}
		ks.m.Tail = ks.m.Head + uint64(len(items))
		ks.m.Size = uint64(len(items))
		ks.save(b)
		return nil
	})
}
