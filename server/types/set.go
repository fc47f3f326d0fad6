package types

import (
	"bytes"
	"cmp"
	"slices"

	"github.com/shaledb/shale/metadata"
	"github.com/shaledb/shale/server/store"
	"github.com/shaledb/shale/subkey"
)

// Sets: one sub-key per member, subkey.AppendKey(uid, member) with an empty
// value, and Meta.Size is the cardinality. Members come out of the store in
// byte order, so SMEMBERS, SINTER, SUNION and SDIFF all answer sorted.

// interChunk is how many members of the smallest set SINTER and SDIFF probe
// the other sets for with one MultiGet.
const interChunk = 512

// uniqueMembers returns members without repeats, in first-seen order.
func uniqueMembers(members [][]byte) [][]byte {
	if len(members) == 1 {
		return members
	}
	seen := make(map[string]bool, len(members))
	out := make([][]byte, 0, len(members))
	for _, m := range members {
		if !seen[string(m)] {
			seen[string(m)] = true
			out = append(out, m)
		}
	}
	return out
}

// setMembers reads every member of the live set ks, in byte order.
func (d *DB) setMembers(ks *keyState) ([][]byte, error) {
	out := make([][]byte, 0, ks.m.Size)
	err := d.iterSub(ks.m.UID, func(m, _ []byte) bool {
		out = append(out, append([]byte{}, m...))
		return true
	})
	return out, err
}

// SAdd is SADD: it returns the number of members that were new.
func (d *DB) SAdd(key []byte, members [][]byte) (int64, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	err := d.loadSet(ks, key)
	if err != nil {
		return 0, err
	}
	uniq := uniqueMembers(members)
	var found []bool
	if ks.live {
		if _, found, err = d.subValues(ks, uniq); err != nil {
			return 0, err
		}
	}
	var added int64
	for i := range uniq {
		if found == nil || !found[i] {
			added++
		}
	}
	if added == 0 {
		return 0, nil
	}
	if err := d.resolveEnc(ks); err != nil {
		return 0, err
	}
	err = d.write(func(b *store.Batch) error {
		if !ks.live {
			if err := ks.create(b, metadata.TypeSet); err != nil {
				return err
			}
		}
		for i, m := range uniq {
			if found == nil || !found[i] {
				b.Put(store.CFSubkey, ks.skey(m), nil)
			}
		}
		ks.m.Size += uint64(added)
		ks.setAdded(added, uniq)
		ks.save(b)
		return nil
	})
	d.checkSize(key)
	return added, err
}

// SRem is SREM: it returns the number of members removed. Removing the last
// member removes the key.
func (d *DB) SRem(key []byte, members [][]byte) (int64, error) {
	return d.removeSubs(key, metadata.TypeSet, members)
}

// SCard is SCARD.
func (d *DB) SCard(key []byte) (int64, error) { return d.card(key, metadata.TypeSet) }

// SIsMember is SISMEMBER.
func (d *DB) SIsMember(key, member []byte) (bool, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	if err := d.loadSet(ks, key); err != nil || !ks.live {
		return false, err
	}
	_, ok, err := d.rd.Get(store.CFSubkey, ks.skey(member))
	return ok, err
}

// SMIsMember is SMISMEMBER: one answer per member, repeats included.
func (d *DB) SMIsMember(key []byte, members [][]byte) ([]bool, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	if err := d.loadSet(ks, key); err != nil {
		return nil, err
	}
	if !ks.live {
		return make([]bool, len(members)), nil
	}
	_, found, err := d.subValues(ks, members)
	return found, err
}

// SMembers is SMEMBERS, in byte order.
func (d *DB) SMembers(key []byte) ([][]byte, error) {
	unlock := d.lock(key)
	defer func() { unlock() }()
	ks := &keyState{}
	if err := d.loadSet(ks, key); err != nil || !ks.live {
		return nil, err
	}
	d, done := d.walkView(ks.m.Size, &unlock)
	defer done()
	return d.setMembers(ks)
}

// SRandMember is SRANDMEMBER with a count: count > 0 returns min(count,
// size) distinct members, count < 0 returns exactly -count members that may
// repeat (ErrRandCount beyond MaxRandCount). For a big set and a small
// count it draws by random seeks (see sample.go).
func (d *DB) SRandMember(key []byte, count int64) ([][]byte, error) {
	unlock := d.lock(key)
	defer func() { unlock() }()
	ks := &keyState{}
	d, done, err := d.randView(ks, key, metadata.TypeSet, count, &unlock)
	if d == nil {
		return nil, err
	}
	defer done()
	switch {
	case count < 0:
		return d.randomMembers(ks, uint64(-count), independentDraws)
	case uint64(count) >= ks.m.Size:
		all, err := d.setMembers(ks)
		if err != nil {
			return nil, err
		}
		return pickDistinct(newRand(), all, len(all)), nil
	}
	return d.randomMembers(ks, uint64(count), distinctDraws)
}

// SPop is SPOP: it removes and returns min(count, size) random distinct
// members; count is not negative. Popping every member removes the key in
// O(1). When more members go than stay, the ones that stay are written under
// a new uid (the old one is reclaimed like a deleted key), so the batch
// holds min(popped, kept) records.
func (d *DB) SPop(key []byte, count int64) ([][]byte, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	err := d.loadSet(ks, key)
	if err != nil || !ks.live || count == 0 {
		return nil, err
	}
	size, uid := ks.m.Size, ks.m.UID
	if uint64(count) >= size {
		all, err := d.setMembers(ks)
		if err != nil {
			return nil, err
		}
		err = d.write(func(b *store.Batch) error { ks.empty(b); return nil })
		if err == nil {
			d.e.churn.forget(uid)
		}
		return pickDistinct(newRand(), all, len(all)), err
	}
	n := uint64(count)
	var popped, kept [][]byte
	// A set whose range holds at least half as many tombstones as members
	// is read whole and rewritten (churn.go).
	churned := d.churned(ks)
	if !churned && seekSampling(size, n) {
		var ok bool
		if popped, ok, err = d.sampleBySeeks(newRand(), ks, n); err != nil {
			return nil, err
		}
		if !ok {
			popped = nil
		}
	}
	if popped == nil {
		all, err := d.setMembers(ks)
		if err != nil {
			return nil, err
		}
		popped = pickDistinct(newRand(), all, int(n))
		if rest := all[n:]; len(rest) < len(popped) || churned {
			kept = rest
		}
	}
	err = d.write(func(b *store.Batch) error {
		if kept == nil {
			for _, m := range popped {
				b.Delete(store.CFSubkey, ks.skey(m))
			}
			ks.m.Size -= n
			ks.save(b)
			return nil
		}
		// The set that stays keeps its encoding: Redis 7.0's SPOP never
		// converts back, even when it rebuilds the set from what stays.
		return ks.storeSet(b, kept, ks.m.ExpireMs, ks.m.Enc)
	})
	switch {
	case err != nil:
	case kept == nil:
		d.e.churn.add(uid, n)
	default:
		d.e.churn.forget(uid)
	}
	d.checkSize(key)
	return popped, err
}

// SMove is SMOVE: it reports whether member moved from src to dst. As in
// Redis, a missing src answers false before dst's type is checked, and
// src == dst only checks membership.
func (d *DB) SMove(src, dst, member []byte) (bool, error) {
	unlock := d.lock(src, dst)
	defer unlock()
	ks, kd := &keyState{}, &keyState{}
	if err := d.loadSrcDst(ks, src, kd, d, dst); err != nil || !ks.live {
		return false, err
	}
	if ks.m.Type != metadata.TypeSet || (kd.live && kd.m.Type != metadata.TypeSet) {
		return false, ErrWrongType
	}
	_, ok, err := d.rd.Get(store.CFSubkey, ks.skey(member))
	if err != nil || !ok || bytes.Equal(src, dst) {
		return ok, err
	}
	inDst := false
	if kd.live {
		if _, inDst, err = d.rd.Get(store.CFSubkey, kd.skey(member)); err != nil {
			return false, err
		}
		if err := d.resolveEnc(kd); err != nil {
			return false, err
		}
	}
	uid := ks.m.UID
	err = d.write(func(b *store.Batch) error {
		b.Delete(store.CFSubkey, ks.skey(member))
		ks.m.Size--
		ks.save(b)
		if inDst {
			return nil
		}
		if !kd.live {
			if err := kd.create(b, metadata.TypeSet); err != nil {
				return err
			}
		}
		b.Put(store.CFSubkey, kd.skey(member), nil)
		kd.m.Size++
		kd.setAdded(1, [][]byte{member})
		kd.save(b)
		return nil
	})
	if err == nil && ks.live {
		d.e.churn.add(uid, 1)
	}
	d.checkSize(src)
	d.checkSize(dst)
	return err == nil, err
}

// storeSet makes ks, in b, a new set (a new uid) of members, which are
// distinct, expiring at expireMs (0 = never), in encoding enc, in place of
// what it held.
func (ks *keyState) storeSet(b *store.Batch, members [][]byte, expireMs int64, enc metadata.Encoding) error {
	return ks.storeCollection(b, metadata.TypeSet, len(members), expireMs, enc, func(i int) ([]byte, []byte) {
		return members[i], nil
	})
}

// storeCollection makes ks, in b, a new key of type t (a new uid) whose n
// sub-key records record(i) returns, distinct, expiring at expireMs (0 =
// never), in encoding enc, in place of what it held.
func (ks *keyState) storeCollection(b *store.Batch, t metadata.Type, n int, expireMs int64, enc metadata.Encoding, record func(i int) (sub, val []byte)) error {
	if err := ks.create(b, t); err != nil {
		return err
	}
	ks.m.ExpireMs = expireMs
	ks.m.Enc = enc
	for i := range n {
		sub, val := record(i)
		b.Put(store.CFSubkey, ks.skey(sub), val)
	}
	ks.m.Size = uint64(n)
	ks.save(b)
	return nil
}

// loadSets loads keys as the sources of SINTER, SUNION and SDIFF: nil for a
// missing key (an empty set), ErrWrongType if any key holds another type.
func (d *DB) loadSets(keys [][]byte) ([]*keyState, error) {
	now := d.e.now()
	sets := make([]*keyState, len(keys))
	states := make([]keyState, len(keys)) // one allocation for all the sets
	for i, k := range keys {
		ks := &states[i]
		if err := d.loadType(ks, k, metadata.TypeSet, now); err != nil {
			return nil, err
		}
		if ks.live {
			sets[i] = ks
		}
	}
	return sets, nil
}

// probeMode is what probe keeps of its candidates.
type probeMode uint8

const (
	inEvery probeMode = iota // members that every set holds (SINTER)
	inNone                   // members that no set holds (SDIFF)
)

// probe keeps the members of cands that every set of others holds, or that
// none does, in order, reading them with one MultiGet per set.
func (d *DB) probe(cands [][]byte, others []*keyState, keep probeMode) ([][]byte, error) {
	for _, o := range others {
		if len(cands) == 0 {
			break
		}
		_, found, err := d.subValues(o, cands)
		if err != nil {
			return nil, err
		}
		kept := cands[:0]
		for i, c := range cands {
			if found[i] == (keep == inEvery) {
				kept = append(kept, c)
			}
		}
		cands = kept
	}
	return cands, nil
}

// eachChunk calls fn with the members of the live set ks, interChunk at a
// time, in byte order, until fn returns false. The members are copies.
func (d *DB) eachChunk(ks *keyState, fn func(chunk [][]byte) (bool, error)) error {
	chunk := make([][]byte, 0, min(ks.m.Size, interChunk))
	more := true
	var ferr error
	err := d.iterSub(ks.m.UID, func(m, _ []byte) bool {
		chunk = append(chunk, append([]byte{}, m...))
		if len(chunk) == interChunk {
			more, ferr = fn(chunk)
			chunk = chunk[:0]
		}
		return more && ferr == nil
	})
	if err != nil {
		return err
	}
	if ferr != nil {
		return ferr
	}
	if more && len(chunk) > 0 {
		_, ferr = fn(chunk)
	}
	return ferr
}

// interEach calls fn with the members of the intersection of sets, in byte
// order, until fn returns false. It iterates the smallest set and probes the
// others, smallest first, with MultiGet; a missing set makes it empty.
func (d *DB) interEach(sets []*keyState, fn func(member []byte) bool) error {
	if len(sets) == 0 || slices.Contains(sets, nil) {
		return nil
	}
	order := slices.Clone(sets)
	slices.SortFunc(order, func(a, b *keyState) int { return cmp.Compare(a.m.Size, b.m.Size) })
	// A set named twice is probed once; the smallest is never probed.
	others := order[:0:0]
	for _, ks := range order[1:] {
		if ks.m.UID != order[0].m.UID && !slices.ContainsFunc(others, func(o *keyState) bool { return o.m.UID == ks.m.UID }) {
			others = append(others, ks)
		}
	}
	return d.eachChunk(order[0], func(chunk [][]byte) (bool, error) {
		kept, err := d.probe(chunk, others, inEvery)
		if err != nil {
			return false, err
		}
		for _, m := range kept {
			if !fn(m) {
				return false, nil
			}
		}
		return true, nil
	})
}

// inter is the intersection of sets.
func (d *DB) inter(sets []*keyState) ([][]byte, error) {
	var out [][]byte
	err := d.interEach(sets, func(m []byte) bool { out = append(out, m); return true })
	return out, err
}

// union is the union of sets, sorted, without repeats.
func (d *DB) union(sets []*keyState) ([][]byte, error) {
	var out [][]byte
	n := 0
	seen := make(map[uint64]bool, len(sets))
	for _, ks := range sets {
		if ks == nil || seen[ks.m.UID] {
			continue
		}
		seen[ks.m.UID] = true
		n++
		all, err := d.setMembers(ks)
		if err != nil {
			return nil, err
		}
		out = append(out, all...)
	}
	if n > 1 {
		slices.SortFunc(out, bytes.Compare)
		out = slices.CompactFunc(out, bytes.Equal)
	}
	return out, nil
}

// diff is the members of sets[0] that no other set holds, sorted. Like
// Redis, it picks between two algorithms by their work: probing each member
// of the first set in the others (MultiGet per chunk), or reading the others
// in order and merging them out of the sorted first set.
func (d *DB) diff(sets []*keyState) ([][]byte, error) {
	first := sets[0]
	if first == nil {
		return nil, nil
	}
	var others []*keyState
	var probeWork, mergeWork uint64
	for _, ks := range sets[1:] {
		if ks == nil {
			continue
		}
		if ks.m.UID == first.m.UID {
			return nil, nil // a set minus itself
		}
		others = append(others, ks)
		probeWork += first.m.Size
		mergeWork += ks.m.Size
	}
	if probeWork/2 <= mergeWork+first.m.Size {
		var out [][]byte
		err := d.eachChunk(first, func(chunk [][]byte) (bool, error) {
			kept, err := d.probe(chunk, others, inNone)
			out = append(out, kept...)
			return true, err
		})
		return out, err
	}
	out, err := d.setMembers(first)
	if err != nil {
		return nil, err
	}
	for _, ks := range others {
		if len(out) == 0 {
			break
		}
		// Both sides are sorted: walk them together, dropping the members
		// of out that ks holds.
		kept, i := out[:0], 0
		err := d.iterSub(ks.m.UID, func(m, _ []byte) bool {
			for i < len(out) && bytes.Compare(out[i], m) < 0 {
				kept = append(kept, out[i])
				i++
			}
			if i < len(out) && bytes.Equal(out[i], m) {
				i++
			}
			return i < len(out)
		})
		if err != nil {
			return nil, err
		}
		out = append(kept, out[i:]...)
	}
	return out, nil
}

// setOpFunc computes SINTER, SUNION or SDIFF over loaded sources.
type setOpFunc func(d *DB, sets []*keyState) ([][]byte, error)

// setOpRead runs op over keys: a missing key is an empty set, a key of
// another type is ErrWrongType.
func (d *DB) setOpRead(op setOpFunc, keys [][]byte) ([][]byte, error) {
	unlock := d.lock(keys...)
	defer func() { unlock() }()
	sets, err := d.loadSets(keys)
	if err != nil {
		return nil, err
	}
	d, done := d.walkView(totalSize(sets), &unlock)
	defer done()
	return op(d, sets)
}

// totalSize is the number of elements of the live keys of kss (nil
// entries are missing keys).
func totalSize(kss []*keyState) uint64 {
	var n uint64
	for _, ks := range kss {
		if ks != nil {
			n += ks.m.Size
		}
	}
	return n
}

// setOpStore runs op over keys and stores the result in dst, whatever dst
// held (dst may be one of keys); an empty result removes dst. It returns the
// result's cardinality. The stored set has a new uid and no expiry.
func (d *DB) setOpStore(op setOpFunc, dst []byte, keys [][]byte) (int64, error) {
	unlock := d.lock(append([][]byte{dst}, keys...)...)
	defer unlock()
	sets, err := d.loadSets(keys)
	if err != nil {
		return 0, err
	}
	result, err := op(d, sets)
	if err != nil {
		return 0, err
	}
	kd := &keyState{}
	err = d.load(kd, dst, d.e.now())
	if err != nil {
		return 0, err
	}
	err = d.write(func(b *store.Batch) error {
		kd.remove(b)
		if len(result) == 0 {
			return nil
		}
		return kd.storeSet(b, result, 0, d.setEncodingOf(result))
	})
	d.checkSize(dst)
	return int64(len(result)), err
}

// SInter is SINTER, sorted.
func (d *DB) SInter(keys [][]byte) ([][]byte, error) { return d.setOpRead((*DB).inter, keys) }

// SUnion is SUNION, sorted.
func (d *DB) SUnion(keys [][]byte) ([][]byte, error) { return d.setOpRead((*DB).union, keys) }

// SDiff is SDIFF, sorted.
func (d *DB) SDiff(keys [][]byte) ([][]byte, error) { return d.setOpRead((*DB).diff, keys) }

// SInterStore is SINTERSTORE.
func (d *DB) SInterStore(dst []byte, keys [][]byte) (int64, error) {
	return d.setOpStore((*DB).inter, dst, keys)
}

// SUnionStore is SUNIONSTORE.
func (d *DB) SUnionStore(dst []byte, keys [][]byte) (int64, error) {
	return d.setOpStore((*DB).union, dst, keys)
}

// SDiffStore is SDIFFSTORE.
func (d *DB) SDiffStore(dst []byte, keys [][]byte) (int64, error) {
	return d.setOpStore((*DB).diff, dst, keys)
}

// SInterCard is SINTERCARD: the intersection's cardinality, counting no
// further than limit (0 = no limit).
func (d *DB) SInterCard(keys [][]byte, limit int64) (int64, error) {
	unlock := d.lock(keys...)
	defer func() { unlock() }()
	sets, err := d.loadSets(keys)
	if err != nil {
		return 0, err
	}
	d, done := d.walkView(totalSize(sets), &unlock)
	defer done()
	var n int64
	err = d.interEach(sets, func([]byte) bool {
		n++
		return limit == 0 || n < limit
	})
	return n, err
}

// SScan is SSCAN: about count members after cursor whose names match (nil =
// all), and the next cursor (0 when done).
func (d *DB) SScan(key []byte, cursor uint64, match []byte, count int) (uint64, [][]byte, error) {
	var out [][]byte
	next, err := d.scanKey(key, metadata.TypeSet, cursor, match, count, func(m, _ []byte) error {
		out = append(out, append([]byte{}, m...))
		return nil
	})
	return next, out, err
}

// scanKey is HSCAN, SSCAN and ZSCAN: under key's lock, or on a snapshot
// (walkView), it scans key, which must hold type t, with scanSub. A missing
// key scans nothing and answers the cursor 0.
func (d *DB) scanKey(key []byte, t metadata.Type, cursor uint64, match []byte, count int, emit func(sub, val []byte) error) (uint64, error) {
	unlock := d.lock(key)
	defer func() { unlock() }()
	ks := &keyState{}
	if err := d.loadType(ks, key, t, d.e.now()); err != nil || !ks.live {
		return 0, err
	}
	d, done := d.walkView(min(uint64(max(count, 1)), ks.m.Size), &unlock)
	defer done()
	return d.scanSub(ks.m.UID, cursor, match, count, emit)
}

// scanSub is the body of HSCAN, SSCAN and ZSCAN over one composite key: it
// examines up to count sub-keys of uid after the cursor's position, calls
// emit with each one whose sub matches (nil = all), and returns the next
// cursor (0 when done). Cursors live in the engine's cursor table, scoped to
// uid. sub and val are valid only during emit; an error from emit ends the
// scan and is returned.
func (d *DB) scanSub(uid, cursor uint64, match []byte, count int, emit func(sub, val []byte) error) (uint64, error) {
	lower := subkey.AppendPrefix(nil, uid)
	if after := d.e.cursors.get(cursor, uid); after != nil {
		lower = append(append(lower[:0], after...), 0)
	}
	count = max(count, 1)
	var last []byte
	var emitErr error
	examined := 0
	done := true
	err := d.rd.Iterate(store.CFSubkey, lower, subkey.AppendUpperBound(nil, uid), false, func(k, v []byte) bool {
		if examined == count {
			done = false
			return false
		}
		examined++
		last = append(last[:0], k...)
		if match == nil || Match(match, k[8:]) {
			emitErr = emit(k[8:], v)
		}
		return emitErr == nil
	})
	if err == nil {
		err = emitErr
	}
	if err != nil || done {
		return 0, err
	}
	return d.e.cursors.put(cursorPos{scope: uid, after: last}), nil
}
