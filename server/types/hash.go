package types

import (
	"fmt"
	"math/big"
	"math/rand/v2"

	"github.com/shaledb/shale/metadata"
	"github.com/shaledb/shale/server/store"
)

// subValues reads the values of subs under the key's uid; found[i] tells
// whether subs[i] exists.
func (d *DB) subValues(ks *keyState, subs [][]byte) ([][]byte, []bool, error) {
	skeys := make([][]byte, len(subs))
	for i, s := range subs {
		skeys[i] = ks.skey(s)
	}
	return d.rd.MultiGet(store.CFSubkey, skeys)
}

// removeSubs is HDEL and SREM: it removes subs (fields or members, repeats
// allowed) from key, which must hold type t, and returns how many it
// removed. Removing the last one removes the key.
func (d *DB) removeSubs(key []byte, t metadata.Type, subs [][]byte) (int64, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	if err := d.loadType(ks, key, t, d.e.now()); err != nil || !ks.live {
		return 0, err
	}
	uniq := uniqueMembers(subs)
	_, found, err := d.subValues(ks, uniq)
	if err != nil {
		return 0, err
	}
	var removed int64
	for _, f := range found {
		if f {
			removed++
		}
	}
	if removed == 0 {
		return 0, nil
	}
	if rewritable(t) && d.churnedAfter(ks, uint64(removed)) {
		return removed, d.rewriteWithout(ks, key, uniq, found)
	}
	uid := ks.m.UID
	err = d.write(func(b *store.Batch) error {
		for i, s := range uniq {
			if found[i] {
				b.Delete(store.CFSubkey, ks.skey(s))
			}
		}
		ks.m.Size -= uint64(removed)
		ks.save(b)
		return nil
	})
	if err == nil && rewritable(t) && ks.live {
		d.e.churn.add(uid, uint64(removed))
	}
	d.checkSize(key)
	return removed, err
}

// HSet is HSET and HMSET; pairs alternate field, value. It returns the
// number of fields that were new.
func (d *DB) HSet(key []byte, pairs [][]byte) (int64, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	err := d.loadHash(ks, key)
	if err == nil {
		err = d.resolveEnc(ks)
	}
	if err != nil {
		return 0, err
	}
	var added int64
	err = d.write(func(b *store.Batch) error {
		if !ks.live {
			if err := ks.create(b, metadata.TypeHash); err != nil {
				return err
			}
		}
		// The last value of a repeated field wins, and it counts once.
		last := make(map[string]int, len(pairs)/2)
		fields := make([][]byte, 0, len(pairs)/2)
		for i := 0; i < len(pairs); i += 2 {
			if _, seen := last[string(pairs[i])]; !seen {
				fields = append(fields, pairs[i])
			}
			last[string(pairs[i])] = i
		}
		var found []bool
		if ks.m.Size > 0 {
			var err error
			if _, found, err = d.subValues(ks, fields); err != nil {
				return err
			}
		}
		for i, f := range fields {
			if found == nil || !found[i] {
				added++
			}
			b.Put(store.CFSubkey, ks.skey(f), pairs[last[string(f)]+1])
		}
		ks.m.Size += uint64(added)
		ks.hashWrote(longestOf(pairs))
		ks.save(b)
		return nil
	})
	d.checkSize(key)
	return added, err
}

// HSetNX is HSETNX.
func (d *DB) HSetNX(key, field, val []byte) (bool, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	err := d.loadHash(ks, key)
	if err != nil {
		return false, err
	}
	if ks.live {
		_, ok, err := d.rd.Get(store.CFSubkey, ks.skey(field))
		if err != nil || ok {
			return false, err // Redis 7.0 converts nothing either then
		}
		if err := d.resolveEnc(ks); err != nil {
			return false, err
		}
	}
	err = d.write(func(b *store.Batch) error {
		if !ks.live {
			if err := ks.create(b, metadata.TypeHash); err != nil {
				return err
			}
		}
		b.Put(store.CFSubkey, ks.skey(field), val)
		ks.m.Size++
		ks.hashWrote(max(len(field), len(val)))
		ks.save(b)
		return nil
	})
	d.checkSize(key)
	return err == nil, err
}

// HGet is HGET.
func (d *DB) HGet(key, field []byte) ([]byte, bool, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	if err := d.loadHash(ks, key); err != nil || !ks.live {
		return nil, false, err
	}
	return d.rd.Get(store.CFSubkey, ks.skey(field))
}

// HMGet is HMGET: a nil entry for each missing field.
func (d *DB) HMGet(key []byte, fields [][]byte) ([][]byte, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	if err := d.loadHash(ks, key); err != nil {
		return nil, err
	}
	if !ks.live {
		return make([][]byte, len(fields)), nil
	}
	vals, _, err := d.subValues(ks, fields)
	return vals, err
}

// HGetAll is HGETALL; it returns field, value pairs in field order.
func (d *DB) HGetAll(key []byte) ([][]byte, error) {
	return d.hashList(key, hashFields|hashValues)
}

// HKeys is HKEYS.
func (d *DB) HKeys(key []byte) ([][]byte, error) { return d.hashList(key, hashFields) }

// HVals is HVALS.
func (d *DB) HVals(key []byte) ([][]byte, error) { return d.hashList(key, hashValues) }

// hashParts is what hashList reads of each field: a bit set.
type hashParts uint8

const (
	hashFields hashParts = 1 << iota // the field's name
	hashValues                       // its value
)

// hashList is HGETALL, HKEYS and HVALS: parts of every field of key, in
// field order.
func (d *DB) hashList(key []byte, parts hashParts) ([][]byte, error) {
	unlock := d.lock(key)
	defer func() { unlock() }()
	ks := &keyState{}
	err := d.loadHash(ks, key)
	if err != nil || !ks.live {
		return nil, err
	}
	d, done := d.walkView(ks.m.Size, &unlock)
	defer done()
	out := make([][]byte, 0, ks.m.Size*2)
	err = d.iterSub(ks.m.UID, func(f, v []byte) bool {
		if parts&hashFields != 0 {
			out = append(out, append([]byte{}, f...))
		}
		if parts&hashValues != 0 {
			out = append(out, append([]byte{}, v...))
		}
		return true
	})
	return out, err
}

// HDel is HDEL; it returns the number of fields removed. Removing the last
// field removes the key.
func (d *DB) HDel(key []byte, fields [][]byte) (int64, error) {
	return d.removeSubs(key, metadata.TypeHash, fields)
}

// HLen is HLEN.
func (d *DB) HLen(key []byte) (int64, error) { return d.card(key, metadata.TypeHash) }

// HExists is HEXISTS.
func (d *DB) HExists(key, field []byte) (bool, error) {
	_, ok, err := d.HGet(key, field)
	return ok, err
}

// HStrLen is HSTRLEN.
func (d *DB) HStrLen(key, field []byte) (int64, error) {
	v, _, err := d.HGet(key, field)
	return int64(len(v)), err
}

// hashModify runs fn on one field's value and stores what it returns.
func (d *DB) hashModify(key, field []byte, fn func(old []byte, exists bool) ([]byte, error)) ([]byte, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	err := d.loadHash(ks, key)
	if err != nil {
		return nil, err
	}
	var old []byte
	var exists bool
	if ks.live {
		if old, exists, err = d.rd.Get(store.CFSubkey, ks.skey(field)); err != nil {
			return nil, err
		}
	}
	val, err := fn(old, exists)
	if err == nil {
		err = d.resolveEnc(ks)
	}
	if err != nil {
		return nil, err
	}
	err = d.write(func(b *store.Batch) error {
		if !ks.live {
			if err := ks.create(b, metadata.TypeHash); err != nil {
				return err
			}
		}
		b.Put(store.CFSubkey, ks.skey(field), val)
		if !exists {
			ks.m.Size++
		}
		ks.hashWrote(max(len(field), len(val)))
		ks.save(b) // a no-op unless the size or the encoding changed
		return nil
	})
	d.checkSize(key)
	return val, err
}

// HIncrBy is HINCRBY.
func (d *DB) HIncrBy(key, field []byte, delta int64) (int64, error) {
	var n int64
	_, err := d.hashModify(key, field, func(old []byte, exists bool) (val []byte, err error) {
		val, n, err = incrInt64(old, exists, delta, ErrHashNotInteger)
		return val, err
	})
	return n, err
}

// HIncrByFloat is HINCRBYFLOAT.
func (d *DB) HIncrByFloat(key, field []byte, incr *big.Float) ([]byte, error) {
	return d.hashModify(key, field, func(old []byte, exists bool) ([]byte, error) {
		return incrLongDouble(old, exists, incr, ErrHashNotFloat)
	})
}

// HRandField is HRANDFIELD with a count: count > 0 returns up to count
// distinct fields, count < 0 returns exactly -count fields that may repeat
// (ErrRandCount beyond MaxRandCount).
// With withValues the result alternates field, value. Hash fields are
// sub-keys like set members, so a small count of a big hash is drawn by
// random seeks (see sample.go) rather than by reading the whole hash.
func (d *DB) HRandField(key []byte, count int64, withValues bool) ([][]byte, error) {
	unlock := d.lock(key)
	defer func() { unlock() }()
	ks := &keyState{}
	d, done, err := d.randView(ks, key, metadata.TypeHash, count, &unlock)
	if d == nil {
		return nil, err
	}
	defer done()
	if count > 0 && uint64(count) >= ks.m.Size {
		return d.shuffledHash(ks, withValues)
	}
	var fields [][]byte
	if count < 0 {
		fields, err = d.randomMembers(ks, uint64(-count), independentDraws)
	} else {
		fields, err = d.randomMembers(ks, uint64(count), distinctDraws)
	}
	if err != nil || !withValues {
		return fields, err
	}
	// A negative count repeats fields, up to MaxRandCount draws from a
	// handful of fields: read each distinct field once.
	distinct := uniqueMembers(fields)
	vals, found, err := d.subValues(ks, distinct)
	if err != nil {
		return nil, err
	}
	valOf := make(map[string][]byte, len(distinct))
	for i, f := range distinct {
		if !found[i] {
			return nil, fmt.Errorf("hrandfield %q: drawn field %q has no value: %w", key, f, metadata.ErrCorrupt)
		}
		valOf[string(f)] = vals[i]
	}
	out := make([][]byte, 0, 2*len(fields))
	for _, f := range fields {
		out = append(out, f, valOf[string(f)])
	}
	return out, nil
}

// shuffledHash returns every field of the live hash ks in random order,
// each followed by its value when withValues is set.
func (d *DB) shuffledHash(ks *keyState, withValues bool) ([][]byte, error) {
	type pair struct{ field, val []byte }
	all := make([]pair, 0, ks.m.Size)
	err := d.iterSub(ks.m.UID, func(f, v []byte) bool {
		all = append(all, pair{append([]byte{}, f...), append([]byte{}, v...)})
		return true
	})
	if err != nil {
		return nil, err
	}
	rand.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	out := make([][]byte, 0, 2*len(all))
	for _, p := range all {
		out = append(out, p.field)
		if withValues {
			out = append(out, p.val)
		}
	}
	return out, nil
}

// HScan is HSCAN: about count fields after cursor whose names match (nil =
// all), as field, value pairs, and the next cursor (0 when done).
func (d *DB) HScan(key []byte, cursor uint64, match []byte, count int) (uint64, [][]byte, error) {
	var out [][]byte
	next, err := d.scanKey(key, metadata.TypeHash, cursor, match, count, func(f, v []byte) error {
		out = append(out, append([]byte{}, f...), append([]byte{}, v...))
		return nil
	})
	return next, out, err
}
