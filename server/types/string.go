package types

import (
	"math/big"
	"strconv"

	"github.com/shaledb/shale/metadata"
	"github.com/shaledb/shale/server/store"
)

// stringValue returns the value of a live string key, ErrWrongType for
// another type, and ok=false when absent.
func (ks *keyState) stringValue() ([]byte, bool, error) {
	if !ks.live {
		return nil, false, nil
	}
	if ks.m.Type != metadata.TypeString {
		return nil, false, ErrWrongType
	}
	if ks.m.Frag {
		v, err := ks.fragRange(0, ks.m.Size)
		return v, err == nil, err
	}
	return ks.m.Value, true, nil
}

// isString is stringValue without the value: whether the key is a live
// string, ErrWrongType for another type.
func (ks *keyState) isString() (bool, error) {
	if !ks.live {
		return false, nil
	}
	if ks.m.Type != metadata.TypeString {
		return false, ErrWrongType
	}
	return true, nil
}

// setString makes the key a string holding val, with expireMs (0 = none),
// stored whole: a fragmented value's fragments are given up. The value is
// a new one, as SET's, not raw (Meta.Raw).
func (ks *keyState) setString(b *store.Batch, val []byte, expireMs int64) error {
	return ks.setStringAs(b, val, expireMs, false)
}

// setStringAs is setString of a value Redis would hold raw (Meta.Raw)
// when raw is set: one changed in place or built by a bit command.
func (ks *keyState) setStringAs(b *store.Batch, val []byte, expireMs int64, raw bool) error {
	if !ks.live || ks.m.Type != metadata.TypeString {
		if err := ks.create(b, metadata.TypeString); err != nil {
			return err
		}
	}
	ks.dropFrags(b)
	ks.m.Raw = raw
	ks.m.Value, ks.valueCut = val, false
	ks.m.ExpireMs = expireMs
	ks.save(b)
	return nil
}

// Get is GET.
func (d *DB) Get(key []byte) ([]byte, bool, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	if err := d.load(ks, key, d.e.now()); err != nil {
		return nil, false, err
	}
	return ks.stringValue()
}

// SetOptions are SET's flags.
type SetOptions struct {
	NX, XX   bool
	KeepTTL  bool
	Get      bool  // return the old value; the old value must be a string
	ExpireMs int64 // absolute unix ms; 0 = no expiry
}

// SetResult is what SET did.
type SetResult struct {
	Done   bool   // the value was written
	Old    []byte // the old value, with SetOptions.Get
	HadOld bool
}

// Set is SET. An ExpireMs already in the past deletes the key, as Redis does.
func (d *DB) Set(key, val []byte, o SetOptions) (SetResult, error) {
	unlock := d.lock(key)
	defer unlock()
	now := d.e.now()
	ks := &keyState{}
	var err error
	if o.Get {
		err = d.load(ks, key, now)
	} else {
		err = d.loadHead(ks, key, now) // the old value is replaced unread
	}
	if err != nil {
		return SetResult{}, err
	}
	var r SetResult
	if o.Get {
		if r.Old, r.HadOld, err = ks.stringValue(); err != nil {
			return r, err
		}
	}
	if (o.NX && ks.live) || (o.XX && !ks.live) {
		return r, nil
	}
	expire := o.ExpireMs
	if o.KeepTTL && ks.live {
		expire = ks.m.ExpireMs
	}
	r.Done = true
	return r, d.write(func(b *store.Batch) error {
		if expire != 0 && expire <= now {
			ks.remove(b)
			return nil
		}
		return ks.setString(b, val, expire)
	})
}

// MGet is MGET: a nil entry for a missing key or one of another type.
func (d *DB) MGet(keys [][]byte) ([][]byte, error) {
	unlock := d.lock(keys...)
	defer unlock()
	now := d.e.now()
	out := make([][]byte, len(keys))
	for i, k := range keys {
		ks := &keyState{}
		if err := d.load(ks, k, now); err != nil {
			return nil, err
		}
		if v, ok, err := ks.stringValue(); err == nil && ok {
			out[i] = v
		}
	}
	return out, nil
}

// MSet is MSET (Overwrite) and MSETNX (WriteNothing: no key is written if
// any exists). pairs alternate key, value. It reports whether the values
// were written.
func (d *DB) MSet(pairs [][]byte, exists IfExists) (bool, error) {
	keys := make([][]byte, 0, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		keys = append(keys, pairs[i])
	}
	unlock := d.lock(keys...)
	defer unlock()
	now := d.e.now()
	states := make(map[string]*keyState, len(keys))
	loaded := make([]keyState, len(keys)) // one allocation for all the keys
	for i, k := range keys {
		if _, seen := states[string(k)]; seen {
			continue
		}
		ks := &loaded[i]
		if err := d.loadHead(ks, k, now); err != nil { // the old values are replaced unread
			return false, err
		}
		if exists == WriteNothing && ks.live {
			return false, nil
		}
		states[string(k)] = ks
	}
	return true, d.write(func(b *store.Batch) error {
		for i := 0; i < len(pairs); i += 2 {
			if err := states[string(pairs[i])].setString(b, pairs[i+1], 0); err != nil {
				return err
			}
		}
		return nil
	})
}

// GetDel is GETDEL.
func (d *DB) GetDel(key []byte) ([]byte, bool, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	if err := d.load(ks, key, d.e.now()); err != nil {
		return nil, false, err
	}
	v, ok, err := ks.stringValue()
	if err != nil || !ok {
		return nil, false, err
	}
	return v, true, d.write(func(b *store.Batch) error { ks.remove(b); return nil })
}

// GetExOptions are GETEX's flags: set a new absolute expiry, or persist.
type GetExOptions struct {
	SetExpire bool
	ExpireMs  int64 // with SetExpire; already past deletes the key
	Persist   bool
}

// GetEx is GETEX.
func (d *DB) GetEx(key []byte, o GetExOptions) ([]byte, bool, error) {
	unlock := d.lock(key)
	defer unlock()
	now := d.e.now()
	ks := &keyState{}
	if err := d.load(ks, key, now); err != nil {
		return nil, false, err
	}
	v, ok, err := ks.stringValue()
	if err != nil || !ok {
		return nil, false, err
	}
	switch {
	case o.SetExpire && o.ExpireMs <= now:
		err = d.write(func(b *store.Batch) error { ks.remove(b); return nil })
	case o.SetExpire:
		ks.m.ExpireMs = o.ExpireMs
		err = d.write(func(b *store.Batch) error { ks.save(b); return nil })
	case o.Persist && ks.m.ExpireMs != 0:
		ks.m.ExpireMs = 0
		err = d.write(func(b *store.Batch) error { ks.save(b); return nil })
	}
	return v, true, err
}

// modifyString runs fn on the current value (nil when absent) and stores the
// result, keeping the TTL. fn returns the new value. inPlace: the command
// changes an existing value in place (APPEND), which Redis then holds raw.
func (d *DB) modifyString(key []byte, inPlace bool, fn func(old []byte, exists bool) ([]byte, error)) ([]byte, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	if err := d.load(ks, key, d.e.now()); err != nil {
		return nil, err
	}
	old, ok, err := ks.stringValue()
	if err != nil {
		return nil, err
	}
	val, err := fn(old, ok)
	if err != nil {
		return nil, err
	}
	expire := ks.m.ExpireMs
	if !ok {
		expire = 0
	}
	return val, d.write(func(b *store.Batch) error { return ks.setStringAs(b, val, expire, inPlace && ok) })
}

// Append is APPEND; it returns the new length.
func (d *DB) Append(key, val []byte) (int64, error) {
	v, err := d.modifyString(key, true, func(old []byte, _ bool) ([]byte, error) {
		if int64(len(old))+int64(len(val)) > d.e.maxString.Load() {
			return nil, ErrStringTooLong
		}
		return append(old[:len(old):len(old)], val...), nil
	})
	return int64(len(v)), err
}

// StrLen is STRLEN; O(1), a fragmented string's length is in its Meta.
func (d *DB) StrLen(key []byte) (int64, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	if err := d.load(ks, key, d.e.now()); err != nil {
		return 0, err
	}
	if ok, err := ks.isString(); err != nil || !ok {
		return 0, err
	}
	return int64(ks.stringLen()), nil
}

// GetRange is GETRANGE (and SUBSTR): inclusive, negative indexes count from
// the end.
func (d *DB) GetRange(key []byte, start, end int64) ([]byte, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	if err := d.load(ks, key, d.e.now()); err != nil {
		return nil, err
	}
	if ok, err := ks.isString(); err != nil || !ok {
		return nil, err
	}
	n := int64(ks.stringLen())
	if start < 0 && end < 0 && start > end {
		return nil, nil
	}
	if start < 0 {
		start = max(n+start, 0)
	}
	if end < 0 {
		end = max(n+end, 0)
	}
	end = min(end, n-1)
	if n == 0 || start > end {
		return nil, nil
	}
	return ks.stringRange(uint64(start), uint64(end-start+1)) // reads only the range of a fragmented string
}

// SetRange is SETRANGE; it returns the new length. A missing key with an
// empty val stays missing.
func (d *DB) SetRange(key []byte, offset int64, val []byte) (int64, error) {
	if offset < 0 {
		return 0, ErrOffsetOutOfRange
	}
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	if err := d.load(ks, key, d.e.now()); err != nil {
		return 0, err
	}
	old, ok, err := ks.stringValue()
	if err != nil {
		return 0, err
	}
	if len(val) == 0 {
		return int64(len(old)), nil
	}
	// offset > max-len, not offset+len > max: the sum can overflow int64.
	if offset > d.e.maxString.Load()-int64(len(val)) {
		return 0, ErrStringTooLong
	}
	need := int(offset) + len(val)
	nv := make([]byte, max(need, len(old)))
	copy(nv, old)
	copy(nv[offset:], val)
	expire := int64(0)
	if ok {
		expire = ks.m.ExpireMs
	}
	// Redis's SETRANGE makes or changes the value in place: raw.
	return int64(len(nv)), d.write(func(b *store.Batch) error { return ks.setStringAs(b, nv, expire, true) })
}

// IncrBy is INCR, DECR, INCRBY and DECRBY.
func (d *DB) IncrBy(key []byte, delta int64) (int64, error) {
	var n int64
	_, err := d.modifyString(key, false, func(old []byte, exists bool) (val []byte, err error) {
		val, n, err = incrInt64(old, exists, delta, ErrNotInteger)
		return val, err
	})
	return n, err
}

// IncrByFloat is INCRBYFLOAT; it returns the new value as Redis formats it.
// The increment comes unparsed because Redis checks the key's type first:
// a bad increment on a key of another type is ErrWrongType, not ErrNotFloat.
func (d *DB) IncrByFloat(key, incr []byte) ([]byte, error) {
	return d.modifyString(key, false, func(old []byte, exists bool) ([]byte, error) {
		f, ok := ParseLongDouble(incr)
		if !ok {
			return nil, ErrNotFloat
		}
		return incrLongDouble(old, exists, f, ErrNotFloat)
	})
}

// incrInt64 adds delta to the integer in old (0 when !exists) and returns
// the sum and its text; notInteger is the error for an old value that is
// not an integer, ErrOverflow the one for a sum beyond int64.
func incrInt64(old []byte, exists bool, delta int64, notInteger error) ([]byte, int64, error) {
	cur := int64(0)
	if exists {
		var ok bool
		if cur, ok = ParseInt(old); !ok {
			return nil, 0, notInteger
		}
	}
	n, ok := addInt64(cur, delta)
	if !ok {
		return nil, 0, ErrOverflow
	}
	return strconv.AppendInt(nil, n, 10), n, nil
}

// incrLongDouble adds incr to the number in old (0 when !exists) in long
// double precision and formats the result; notFloat is the error for an
// old value that is not a number.
func incrLongDouble(old []byte, exists bool, incr *big.Float, notFloat error) ([]byte, error) {
	cur := new(big.Float)
	if exists {
		var ok bool
		if cur, ok = ParseLongDouble(old); !ok {
			return nil, notFloat
		}
	}
	sum, err := addLongDouble(cur, incr)
	if err != nil {
		return nil, err
	}
	return FormatLongDouble(sum), nil
}
