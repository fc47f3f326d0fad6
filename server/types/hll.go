package types

import (
	"github.com/shaledb/shale/server/hll"
	"github.com/shaledb/shale/server/store"
)

// HyperLogLogs are strings, as in Redis: server/hll reads and writes their
// bytes, and this file reads and rewrites the string under the key's lock.
// A string that is not a HyperLogLog is hll.ErrNotHLL; one whose registers
// cannot be read, hll.ErrCorrupt.

// hllRead returns the HyperLogLog of a live key, to read: ok=false when
// the key is missing, ErrWrongType for another type and hll.ErrNotHLL for
// a string that is not one. Its capacity ends with it: the hll functions
// read a byte past the end there (hll's package doc), which must read as
// zero, as it does in Redis for a value just loaded.
func (ks *keyState) hllRead() ([]byte, bool, error) {
	v, ok, err := ks.stringValue()
	if err != nil || !ok {
		return nil, false, err
	}
	if err := hll.Check(v); err != nil {
		return nil, false, err
	}
	return v[:len(v):len(v)], true, nil
}

// hllValue is hllRead's value as a private copy, to change in place.
func (ks *keyState) hllValue() ([]byte, bool, error) {
	v, ok, err := ks.hllRead()
	if err != nil || !ok {
		return nil, false, err
	}
	return append([]byte(nil), v...), true, nil
}

// saveHLL stores v as the key's string, keeping its expiry when it exists.
func (d *DB) saveHLL(ks *keyState, v []byte) error {
	expire := int64(0)
	if ks.live {
		expire = ks.m.ExpireMs
	}
	return d.write(func(b *store.Batch) error { return ks.setString(b, v, expire) })
}

// hllSparseMax is hll-sparse-max-bytes, bounded to int.
func (d *DB) hllSparseMax() int {
	return int(min(d.e.encodingLimits().HLLSparseMaxBytes, 1<<31-1))
}

// PFAdd is PFADD: it creates the key when missing and adds the elements.
// It reports whether the key was created or a register changed. A
// corrupt sparse value is hll.ErrCorrupt; what the elements before did to
// it stays, as in Redis.
func (d *DB) PFAdd(key []byte, elems [][]byte) (bool, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	if err := d.load(ks, key, d.e.now()); err != nil {
		return false, err
	}
	v, ok, err := ks.hllValue()
	if err != nil {
		return false, err
	}
	updated := !ok
	if !ok {
		v = hll.New()
	}
	sparseMax := d.hllSparseMax()
	for _, e := range elems {
		var changed bool
		if v, changed, err = hll.Add(v, e, sparseMax); err != nil {
			break
		}
		updated = updated || changed
	}
	if !updated {
		return false, err
	}
	if err == nil {
		hll.Invalidate(v)
	}
	if werr := d.saveHLL(ks, v); werr != nil {
		return false, werr
	}
	return err == nil, err
}

// PFCount is PFCOUNT. Of one key, it returns the cached cardinality, or
// computes it and stores it in the value's cache (a write, as in Redis);
// of several, the cardinality of their union, writing nothing. A missing
// key counts as empty. The count is Redis's: a uint64 it replies as a
// signed integer.
func (d *DB) PFCount(keys [][]byte) (int64, error) {
	unlock := d.lock(keys...)
	defer unlock()
	now := d.e.now()
	if len(keys) > 1 {
		var regs hll.Registers
		for _, k := range keys {
			ks := &keyState{}
			if err := d.load(ks, k, now); err != nil {
				return 0, err
			}
			v, ok, err := ks.hllRead()
			if err == nil && ok {
				err = regs.Merge(v)
			}
			if err != nil {
				return 0, err
			}
		}
		return int64(regs.Count()), nil
	}
	ks := &keyState{}
	if err := d.load(ks, keys[0], now); err != nil {
		return 0, err
	}
	v, ok, err := ks.hllValue()
	if err != nil || !ok {
		return 0, err
	}
	card, wrote, err := hll.Count(v)
	if err != nil {
		return 0, err
	}
	if wrote {
		err = d.saveHLL(ks, v)
	}
	return int64(card), err
}

// PFMerge is PFMERGE: dst becomes the union of itself and srcs, created
// when missing, dense when any of them is.
func (d *DB) PFMerge(dst []byte, srcs [][]byte) error {
	keys := append([][]byte{dst}, srcs...)
	unlock := d.lock(keys...)
	defer unlock()
	now := d.e.now()
	var regs hll.Registers
	dense := false
	var dks keyState // dst's state, from its read as the first source
	for i, k := range keys {
		ks := &keyState{}
		if i == 0 {
			ks = &dks
		}
		if err := d.load(ks, k, now); err != nil {
			return err
		}
		v, ok, err := ks.hllRead()
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		dense = dense || hll.IsDense(v)
		if err := regs.Merge(v); err != nil {
			return err
		}
	}
	v, ok, err := dks.hllValue()
	if err != nil {
		return err
	}
	if !ok {
		v = hll.New()
	}
	if v, err = regs.Store(v, dense, d.hllSparseMax()); err != nil {
		return err
	}
	return d.saveHLL(&dks, v)
}

// PFDebug reads the HyperLogLog of key for PFDEBUG (ok=false when
// missing); with toDense, it first turns a sparse one dense and stores it
// (GETREG and TODENSE), reporting whether it did.
func (d *DB) PFDebug(key []byte, toDense bool) (v []byte, converted, ok bool, err error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	if err := d.load(ks, key, d.e.now()); err != nil {
		return nil, false, false, err
	}
	if v, ok, err = ks.hllValue(); err != nil || !ok || !toDense {
		return v, false, ok, err
	}
	if v, converted, err = hll.ToDense(v); err != nil || !converted {
		return v, false, true, err
	}
	return v, true, true, d.saveHLL(ks, v)
}
