package types

import (
	"fmt"

	"github.com/shaledb/shale/metadata"
	"github.com/shaledb/shale/server/store"
	"github.com/shaledb/shale/subkey"
)

// keyState is a key's metadata as one command sees it, and what it must undo
// when it rewrites or removes the key.
type keyState struct {
	db         *DB
	phys       uint16 // db's physical database when loaded (DB.phys)
	key        []byte
	mkey       []byte
	m          metadata.Meta
	live       bool  // a record exists and has not expired
	onDisk     bool  // a record exists (live or expired) and must be removed before re-creation
	diskExpire int64 // the expire_ms recorded in the expire index, 0 = none
	diskMeta   metadata.Meta
	// valueCut: loaded by loadHead, which read only the head of a long
	// string's record; m.Value is not its value, and the command must
	// replace the value before it saves the record.
	valueCut bool
}

// load reads key's metadata into ks. An expired record reads as absent, but
// is remembered so that a write can remove it in the same batch.
//
// The caller declares ks (ks := &keyState{}) and load fills it in place, so
// that it stays on the caller's stack whether or not load is inlined: a heap
// keyState was the largest allocation of a SET or an HSET. Check with
// go build -gcflags=-m: no "&keyState{} escapes to heap" but where a command
// keeps several keys' states in a slice.
func (d *DB) load(ks *keyState, key []byte, now int64) error {
	return d.loadType(ks, key, 0, now)
}

// loadType is load plus a type check: it returns ErrWrongType when the key
// is live and holds another type t (0 = any type).
func (d *DB) loadType(ks *keyState, key []byte, t metadata.Type, now int64) error {
	return d.loadRecord(ks, key, t, now, false)
}

// loadHead is load for a command that does not read a string's value:
// SET and MSET replace it, DEL removes the key, EXISTS, TYPE and TTL look
// at the head alone. The metadata cache may give only the head of a long
// string's record, and then ks.m.Value is nil and ks.valueCut set.
func (d *DB) loadHead(ks *keyState, key []byte, now int64) error {
	return d.loadRecord(ks, key, 0, now, true)
}

func (d *DB) loadRecord(ks *keyState, key []byte, t metadata.Type, now int64, headOnly bool) error {
	p := d.phys()
	*ks = keyState{db: d, phys: p, key: key, mkey: metadata.AppendMetaKey(nil, p, key)}
	var hr store.HeadReader
	if headOnly {
		hr, _ = d.rd.(store.HeadReader) // a snapshot view reads whole records
	}
	var raw []byte
	var ok bool
	var err error
	if hr != nil {
		var whole bool
		raw, whole, ok, err = hr.GetHead(store.CFMeta, ks.mkey)
		ks.valueCut = !whole
	} else {
		raw, ok, err = d.rd.Get(store.CFMeta, ks.mkey)
	}
	if err != nil {
		return err
	}
	if !ok {
		if d.log != nil && d.log.KeepFacts && !d.snapshot {
			d.log.Facts = append(d.log.Facts, KeyFact{DB: d.n, Key: append([]byte(nil), key...), Kind: KeyMissed})
		}
		return nil
	}
	m, err := metadata.DecodeMeta(raw)
	if err != nil {
		return fmt.Errorf("key %q: %w", key, err)
	}
	if ks.valueCut {
		m.Value = nil
	}
	ks.onDisk = true
	ks.diskMeta = m
	ks.diskExpire = m.ExpireMs
	ks.m = m
	ks.live = !m.Expired(now)
	if !ks.live && d.log != nil && d.log.KeepFacts && !d.snapshot {
		d.log.Facts = append(d.log.Facts, KeyFact{DB: d.n, Key: append([]byte(nil), key...), Kind: KeyFoundExpired, ExpireMs: m.ExpireMs})
	}
	if t != 0 && ks.live && m.Type != t {
		return ErrWrongType
	}
	return nil
}

// loadHash loads key expecting a hash, at the engine's clock.
func (d *DB) loadHash(ks *keyState, key []byte) error {
	return d.loadType(ks, key, metadata.TypeHash, d.e.now())
}

// loadList loads key expecting a list, at the engine's clock.
func (d *DB) loadList(ks *keyState, key []byte) error {
	return d.loadType(ks, key, metadata.TypeList, d.e.now())
}

// loadSet loads key expecting a set, at the engine's clock.
func (d *DB) loadSet(ks *keyState, key []byte) error {
	return d.loadType(ks, key, metadata.TypeSet, d.e.now())
}

// loadZSet loads key expecting a sorted set, at the engine's clock.
func (d *DB) loadZSet(ks *keyState, key []byte) error {
	return d.loadType(ks, key, metadata.TypeZSet, d.e.now())
}

// remove deletes the key's records in b: metadata, bookkeeping and expiry
// index. O(1): the sub-keys become orphans for the compaction filters, and a
// big key is queued for a targeted compaction.
func (ks *keyState) remove(b *store.Batch) {
	switch {
	case ks.live:
		ks.db.fact(KeyRemoved, ks.key)
	case ks.onDisk:
		ks.db.fact(KeyExpired, ks.key)
	}
	ks.removeRecords(b)
}

// empty removes a collection that lost all its elements.
func (ks *keyState) empty(b *store.Batch) {
	ks.db.fact(KeyEmptied, ks.key)
	ks.removeRecords(b)
}

// removeRecords is remove without its fact.
func (ks *keyState) removeRecords(b *store.Batch) {
	if !ks.onDisk {
		return
	}
	d := ks.db
	old := ks.diskMeta
	b.Delete(store.CFMeta, ks.mkey)
	if old.OwnsUID() {
		b.Delete(store.CFBookkeeping, metadata.AppendBookKey(nil, old.UID))
		if int64(ownedRecords(old)) >= d.st.ReclaimMinElements() {
			b.Reclaim(old.UID)
		}
	}
	if ks.diskExpire != 0 {
		b.Delete(store.CFExpire, metadata.ExpireKey{ExpireMs: ks.diskExpire, DB: ks.phys, Key: ks.key}.Append(nil))
		b.AddExpires(int(ks.phys), -1)
	}
	b.AddKeys(int(ks.phys), -1)
	ks.onDisk, ks.live, ks.diskExpire = false, false, 0
	ks.m = metadata.Meta{}
}

// create makes the key new, of type t, removing any old record first. A
// composite key gets a fresh uid and its bookkeeping record.
func (ks *keyState) create(b *store.Batch, t metadata.Type) error {
	if !ks.live {
		defer ks.db.fact(KeyCreated, ks.key)
	}
	ks.remove(b)
	ks.m = metadata.Meta{Type: t, Enc: t.Compact()} // a new key starts compact, as in Redis
	if t.Composite() {
		uid, err := ks.db.st.NewUID()
		if err != nil {
			return err
		}
		ks.m.UID = uid
		if t == metadata.TypeList {
			ks.m.Head, ks.m.Tail = subkey.ListStart, subkey.ListStart
		}
		b.Put(store.CFBookkeeping, metadata.AppendBookKey(nil, uid),
			metadata.Book{Type: t, DB: ks.phys, Key: ks.key}.Append(nil))
		b.Created(uid)
	}
	b.AddKeys(int(ks.phys), 1)
	ks.live = true
	return nil
}

// unchanged reports whether a composite key's metadata is the record
// already written (on disk or earlier in the batch). Strings are never
// "unchanged": their value may have been changed in place.
func (ks *keyState) unchanged() bool {
	m, d := ks.m, ks.diskMeta
	return ks.onDisk && m.Type.Composite() && m.Type == d.Type && m.ExpireMs == d.ExpireMs &&
		m.UID == d.UID && m.Size == d.Size && m.Head == d.Head && m.Tail == d.Tail && m.Enc == d.Enc &&
		m.Stream == d.Stream
}

// save writes the key's metadata in b, keeping the expiry index in step. A
// composite key whose size dropped to zero is removed instead, but for a
// stream: Redis keeps an empty stream (XDEL, XTRIM), with its last ID.
func (ks *keyState) save(b *store.Batch) {
	if ks.m.Type.Composite() && ks.m.Size == 0 && ks.m.Type != metadata.TypeStream {
		if !ks.onDisk {
			// Created and emptied within one command: undo the creation.
			ks.onDisk, ks.diskMeta = true, ks.m
			ks.db.dropCreated(ks.key)
		} else {
			ks.db.fact(KeyEmptied, ks.key)
		}
		ks.removeRecords(b)
		return
	}
	if ks.unchanged() {
		// An HSET or ZADD that only changed members: rewriting the same
		// record would cost a memtable insert, the dearest part of a write.
		return
	}
	if ks.valueCut && ks.m.Type == metadata.TypeString && !ks.m.Frag {
		panic("types: saving a string record whose value was not loaded (loadHead)") // a bug
	}
	// A buffer on the stack (Put copies the value): Meta.Append is too big
	// to inline, so Append(nil) would allocate as it grows.
	var buf [96]byte // a stream's record is the longest composite one: 89 bytes
	b.Put(store.CFMeta, ks.mkey, ks.m.Append(buf[:0]))
	if ks.m.Type.Composite() {
		ks.db.fact(KeySaved, ks.key)
	}
	if ks.m.ExpireMs != ks.diskExpire {
		if ks.diskExpire != 0 {
			b.Delete(store.CFExpire, metadata.ExpireKey{ExpireMs: ks.diskExpire, DB: ks.phys, Key: ks.key}.Append(nil))
			b.AddExpires(int(ks.phys), -1)
		}
		if ks.m.ExpireMs != 0 {
			b.Put(store.CFExpire, metadata.ExpireKey{ExpireMs: ks.m.ExpireMs, DB: ks.phys, Key: ks.key}.Append(nil), nil)
			b.AddExpires(int(ks.phys), 1)
		}
	}
	ks.onDisk, ks.diskMeta, ks.diskExpire = true, ks.m, ks.m.ExpireMs
}

// skey is the sub-key of member sub of the key's current uid.
func (ks *keyState) skey(sub []byte) []byte {
	return subkey.AppendKey(nil, ks.m.UID, sub)
}
