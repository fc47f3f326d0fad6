package types

import (
	"math/rand/v2"

	"github.com/shaledb/shale/metadata"
	"github.com/shaledb/shale/server/store"
	"github.com/shaledb/shale/subkey"
)

// Del is DEL and UNLINK: O(1) per key whatever its size.
func (d *DB) Del(keys [][]byte) (int64, error) {
	unlock := d.lock(keys...)
	defer unlock()
	now := d.e.now()
	var n int64
	err := d.write(func(b *store.Batch) error {
		seen := make(map[string]bool, len(keys))
		for _, k := range keys {
			if seen[string(k)] {
				continue
			}
			seen[string(k)] = true
			ks := &keyState{}
			if err := d.loadHead(ks, k, now); err != nil {
				return err
			}
			if ks.live {
				n++
			}
			ks.remove(b) // an expired record goes too
		}
		return nil
	})
	return n, err
}

// Exists is EXISTS and TOUCH: the number of live keys, repeats counted.
func (d *DB) Exists(keys [][]byte) (int64, error) {
	unlock := d.lock(keys...)
	defer unlock()
	now := d.e.now()
	var n int64
	for _, k := range keys {
		ks := &keyState{}
		if err := d.loadHead(ks, k, now); err != nil {
			return 0, err
		}
		if ks.live {
			n++
		}
	}
	return n, nil
}

// Type is TYPE: "none" for a missing key.
func (d *DB) Type(key []byte) (string, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	if err := d.loadHead(ks, key, d.e.now()); err != nil || !ks.live {
		return "none", err
	}
	return ks.m.Type.String(), nil
}

// card is HLEN, SCARD, LLEN and ZCARD: the number of elements of key, which
// must hold type t, or 0 when it is missing.
func (d *DB) card(key []byte, t metadata.Type) (int64, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	if err := d.loadType(ks, key, t, d.e.now()); err != nil || !ks.live {
		return 0, err
	}
	return int64(ks.m.Size), nil
}

// ExpireCond is a set of EXPIRE's NX, XX, GT and LT flags.
type ExpireCond uint8

// The conditions of EXPIRE and its siblings; XX combines with GT or LT.
const (
	ExpireNX ExpireCond = 1 << iota // only when the key has no expiry
	ExpireXX                        // only when the key has an expiry
	ExpireGT                        // only when the new expiry is greater (no expiry = infinite)
	ExpireLT                        // only when the new expiry is less (no expiry = infinite)
)

// Expire is EXPIRE, PEXPIRE, EXPIREAT and PEXPIREAT with an absolute unix-ms
// time. A time not in the future deletes the key. It reports whether the
// expiry was set.
func (d *DB) Expire(key []byte, atMs int64, cond ExpireCond) (bool, error) {
	unlock := d.lock(key)
	defer unlock()
	now := d.e.now()
	ks := &keyState{}
	if err := d.load(ks, key, now); err != nil || !ks.live {
		return false, err
	}
	cur := ks.m.ExpireMs
	if (cond&ExpireNX != 0 && cur != 0) ||
		(cond&ExpireXX != 0 && cur == 0) ||
		(cond&ExpireGT != 0 && (cur == 0 || atMs <= cur)) ||
		(cond&ExpireLT != 0 && cur != 0 && atMs >= cur) {
		return false, nil
	}
	return true, d.write(func(b *store.Batch) error {
		if atMs <= now {
			ks.remove(b)
			return nil
		}
		ks.m.ExpireMs = atMs
		ks.save(b)
		return nil
	})
}

// TTL returns the key's absolute expiry in unix ms: -2 when the key is
// missing, -1 when it has no expiry. now is the time it was read at.
func (d *DB) TTL(key []byte) (expireMs, now int64, err error) {
	unlock := d.lock(key)
	defer unlock()
	now = d.e.now()
	ks := &keyState{}
	err = d.loadHead(ks, key, now)
	switch {
	case err != nil:
		return 0, now, err
	case !ks.live:
		return -2, now, nil
	case ks.m.ExpireMs == 0:
		return -1, now, nil
	}
	return ks.m.ExpireMs, now, nil
}

// Persist is PERSIST.
func (d *DB) Persist(key []byte) (bool, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	if err := d.load(ks, key, d.e.now()); err != nil || !ks.live || ks.m.ExpireMs == 0 {
		return false, err
	}
	ks.m.ExpireMs = 0
	return true, d.write(func(b *store.Batch) error { ks.save(b); return nil })
}

// moveTo gives src's value to dst in b, in O(1): the metadata moves, a
// composite key keeps its uid and only its bookkeeping record is rewritten.
// dst's old value, if any, is removed.
func (src *keyState) moveTo(b *store.Batch, dst *keyState) {
	m := src.m
	b.Delete(store.CFMeta, src.mkey)
	if src.diskExpire != 0 {
		b.Delete(store.CFExpire, metadata.ExpireKey{ExpireMs: src.diskExpire, DB: src.phys, Key: src.key}.Append(nil))
		b.AddExpires(int(src.phys), -1)
	}
	b.AddKeys(int(src.phys), -1)
	src.onDisk, src.live, src.diskExpire = false, false, 0

	dst.remove(b)
	dst.db.fact(KeyCreated, dst.key) // as Redis, even over an old key
	dst.m = m
	dst.live = true
	b.AddKeys(int(dst.phys), 1)
	if m.OwnsUID() {
		b.Put(store.CFBookkeeping, metadata.AppendBookKey(nil, m.UID),
			metadata.Book{Type: m.Type, DB: dst.phys, Key: dst.key}.Append(nil))
	}
	dst.save(b)
}

// IfExists is what a command that writes a key does when the key already
// exists.
type IfExists uint8

// What RENAME, COPY and MSET do with an existing destination.
const (
	Overwrite    IfExists = iota // RENAME, COPY ... REPLACE, MSET
	WriteNothing                 // RENAMENX, COPY, MSETNX: the command writes nothing
)

// Rename is RENAME (Overwrite) and RENAMENX (WriteNothing). It reports
// whether the key was renamed (RENAMENX returns false when dst exists).
func (d *DB) Rename(src, dst []byte, exists IfExists) (bool, error) {
	unlock := d.lock(src, dst)
	defer unlock()
	ks, kd := &keyState{}, &keyState{}
	if err := d.loadSrcDst(ks, src, kd, d, dst); err != nil {
		return false, err
	}
	if !ks.live {
		return false, ErrNoSuchKey
	}
	if string(src) == string(dst) {
		return exists == Overwrite, nil
	}
	if exists == WriteNothing && kd.live {
		return false, nil
	}
	return true, d.write(func(b *store.Batch) error { ks.moveTo(b, kd); return nil })
}

// loadSrcDst loads src, in d, into ks and, when src is live, dst, in db to,
// into kd, at one clock: the start of RENAME, MOVE, COPY and SMOVE, which
// answer a missing source before they look at the destination (kd stays
// empty then).
func (d *DB) loadSrcDst(ks *keyState, src []byte, kd *keyState, to *DB, dst []byte) error {
	now := d.e.now()
	if err := d.load(ks, src, now); err != nil || !ks.live {
		return err
	}
	return to.load(kd, dst, now)
}

// Move is MOVE: it reports false when the key is missing or exists in to.
func (d *DB) Move(key []byte, to *DB) (bool, error) {
	if to.n == d.n {
		return false, ErrSameObject
	}
	to = d.sameView(to)
	unlock := d.lockAcross(store.LockKey{DB: d.n, Key: key}, store.LockKey{DB: to.n, Key: key})
	defer unlock()
	ks, kd := &keyState{}, &keyState{}
	if err := d.loadSrcDst(ks, key, kd, to, key); err != nil || !ks.live || kd.live {
		return false, err
	}
	return true, d.write(func(b *store.Batch) error { ks.moveTo(b, kd); return nil })
}

// Copy is COPY: a deep copy of src to dst in db to, O(size). It reports
// false when src is missing, or dst exists and exists is WriteNothing.
func (d *DB) Copy(src []byte, to *DB, dst []byte, exists IfExists) (bool, error) {
	if to.n == d.n && string(src) == string(dst) {
		return false, ErrSameObject
	}
	to = d.sameView(to)
	unlock := d.lockAcross(store.LockKey{DB: d.n, Key: src}, store.LockKey{DB: to.n, Key: dst})
	defer unlock()
	ks, kd := &keyState{}, &keyState{}
	err := d.loadSrcDst(ks, src, kd, to, dst)
	if err != nil || !ks.live || (kd.live && exists == WriteNothing) {
		return false, err
	}
	err = d.write(func(b *store.Batch) error {
		if err := kd.create(b, ks.m.Type); err != nil {
			return err
		}
		uid := kd.m.UID
		if ks.m.Frag {
			// A string's create gave it no uid: a fragmented copy needs
			// one of its own, and its bookkeeping record.
			var err error
			if uid, err = kd.db.st.NewUID(); err != nil {
				return err
			}
			b.Put(store.CFBookkeeping, metadata.AppendBookKey(nil, uid),
				metadata.Book{Type: metadata.TypeString, DB: kd.phys, Key: kd.key}.Append(nil))
		}
		kd.m = ks.m
		kd.m.UID = uid
		if ks.m.OwnsUID() {
			if err := d.copySubs(b, ks.m.UID, uid); err != nil {
				return err
			}
		}
		kd.save(b)
		return nil
	})
	to.checkSize(dst)
	return err == nil, err
}

// copySubs copies every sub-key and score record of uid from to uid to.
func (d *DB) copySubs(b *store.Batch, from, to uint64) error {
	lower, upper := subkey.AppendPrefix(nil, from), subkey.AppendUpperBound(nil, from)
	for _, cf := range []store.CF{store.CFSubkey, store.CFScore} {
		err := d.rd.Iterate(cf, lower, upper, false, func(k, v []byte) bool {
			nk := subkey.AppendPrefix(nil, to)
			b.Put(cf, append(nk, k[8:]...), v)
			return true
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// UID is the uid of a live composite key (DEBUG UID), ok=false otherwise.
func (d *DB) UID(key []byte) (uint64, bool, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	if err := d.load(ks, key, d.e.now()); err != nil || !ks.live || !ks.m.Type.Composite() {
		return 0, false, err
	}
	return ks.m.UID, true, nil
}

// ObjectEncoding is OBJECT ENCODING, named as Redis 7 names its encodings
// for the same value, so tools that inspect them keep working.
func (d *DB) ObjectEncoding(key []byte) (string, bool, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	if err := d.load(ks, key, d.e.now()); err != nil || !ks.live {
		return "", false, err
	}
	switch ks.m.Type {
	case metadata.TypeString:
		v := ks.m.Value
		if ks.m.Frag || ks.m.Raw {
			return "raw", true, nil // changed in place, or longer than fragThreshold
		}
		if _, ok := ParseInt(v); ok && len(v) <= 20 {
			return "int", true, nil
		}
		if len(v) <= 44 {
			return "embstr", true, nil
		}
		return "raw", true, nil
	case metadata.TypeHash, metadata.TypeSet, metadata.TypeZSet:
		if ks.m.Enc != metadata.EncUnknown {
			return ks.m.Enc.String(), true, nil
		}
		enc, err := d.contentEncoding(ks) // a record from before format 2
		return enc.String(), true, err
	case metadata.TypeList:
		// Redis 7.0 keeps every list in a quicklist, however small.
		return "quicklist", true, nil
	case metadata.TypeStream:
		return "stream", true, nil
	}
	return "", false, nil
}

// KeyCount is DBSIZE: exact and O(1).
func (d *DB) KeyCount() int64 {
	if d.grp != nil {
		return d.grp.KeyCount(d.n)
	}
	return d.st.KeyCount(d.n)
}

// ExpiresCount is the number of keys with an expiry (INFO keyspace), exact.
func (d *DB) ExpiresCount() int64 {
	if d.grp != nil {
		return d.grp.ExpiresCount(d.n)
	}
	return d.st.ExpiresCount(d.n)
}

// forEachKey iterates db's live keys from after (exclusive; nil = start),
// calling fn with each key and its metadata. fn returns false to stop.
// key is valid only during the call.
func (d *DB) forEachKey(after []byte, fn func(mkey, key []byte, m metadata.Meta) bool) error {
	p := d.phys()
	lower := metadata.AppendDBPrefix(nil, p)
	upper := metadata.AppendDBPrefix(nil, p+1)
	if p == 0xffff {
		upper = nil
	}
	if after != nil {
		lower = append(append([]byte{}, after...), 0)
	}
	now := d.e.now()
	return d.iterate(store.CFMeta, lower, upper, false, func(mk, v []byte) (bool, error) {
		_, key, err := metadata.DecodeMetaKey(mk)
		if err != nil {
			return false, err
		}
		m, err := metadata.DecodeMeta(v)
		if err != nil {
			return false, err
		}
		if m.Expired(now) {
			return true, nil
		}
		return fn(mk, key, m), nil
	})
}

// Keys is KEYS.
func (d *DB) Keys(pattern []byte) ([][]byte, error) {
	var out [][]byte
	all := len(pattern) == 1 && pattern[0] == '*'
	err := d.forEachKey(nil, func(_, key []byte, _ metadata.Meta) bool {
		if all || Match(pattern, key) {
			out = append(out, append([]byte{}, key...))
		}
		return true
	})
	return out, err
}

// ScanOptions are SCAN's MATCH, COUNT and TYPE.
type ScanOptions struct {
	Match      []byte // nil = everything
	Count      int    // keys to examine, default 10
	FilterType bool   // TYPE was given: only keys of Type; false = every type
	Type       string // lower-case type name; "" or an unknown name matches nothing
}

// Scan is SCAN: it examines about Count keys after cursor and returns the
// next cursor (0 when done) with the matching keys.
func (d *DB) Scan(cursor uint64, o ScanOptions) (uint64, [][]byte, error) {
	after := d.e.cursors.get(cursor, uint64(d.n))
	count := max(o.Count, 1)
	var out [][]byte
	var last []byte
	examined := 0
	done := true
	err := d.forEachKey(after, func(mk, key []byte, m metadata.Meta) bool {
		if examined == count {
			done = false
			return false
		}
		examined++
		last = append(last[:0], mk...)
		if (o.Match == nil || Match(o.Match, key)) && (!o.FilterType || o.Type == m.Type.String()) {
			out = append(out, append([]byte{}, key...))
		}
		return true
	})
	if err != nil || done {
		return 0, out, err
	}
	return d.e.cursors.put(cursorPos{scope: uint64(d.n), after: last}), out, nil
}

// RandomKey is RANDOMKEY: a live key from a random slot onwards.
func (d *DB) RandomKey() ([]byte, bool, error) {
	if d.KeyCount() == 0 {
		return nil, false, nil
	}
	start := metadata.AppendDBPrefix(nil, d.phys())
	start = append(start, byte(rand.IntN(64)), byte(rand.IntN(256)))
	for _, after := range [][]byte{start, nil} {
		var found []byte
		err := d.forEachKey(after, func(_, key []byte, _ metadata.Meta) bool {
			found = append([]byte{}, key...)
			return false
		})
		if err != nil || found != nil {
			return found, found != nil, err
		}
	}
	return nil, false, nil
}

// FlushDB is FLUSHDB: O(1), a range delete of the db's metadata. Sub-keys,
// bookkeeping and expiry-index entries are reclaimed in the background.
func (d *DB) FlushDB() error {
	unlock := d.lockWorld()
	defer unlock()
	return d.write(func(b *store.Batch) error {
		d.flushInto(b)
		return nil
	})
}

func (d *DB) flushInto(b *store.Batch) {
	p := d.phys()
	lower := metadata.AppendDBPrefix(nil, p)
	upper := metadata.AppendDBPrefix(nil, p+1)
	if p == 0xffff {
		upper = []byte{0xff, 0xff, 0xff}
	}
	b.DeleteRange(store.CFMeta, lower, upper)
	b.ResetKeys(int(p))
}

// FlushAll is FLUSHALL: FLUSHDB of every database, in one batch.
func (d *DB) FlushAll() error {
	unlock := d.lockWorld()
	defer unlock()
	return d.write(func(b *store.Batch) error {
		for _, db := range d.e.dbs {
			db.flushInto(b)
		}
		b.DeleteRange(store.CFExpire, []byte{}, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
		return nil
	})
}
