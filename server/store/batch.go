package store

import (
	"bytes"
	"fmt"
	"slices"
	"sync"

	"github.com/shaledb/shale/metadata"
	"github.com/shaledb/shale/subkey"
)

// Batch collects one command's writes; Store.Write applies them atomically.
// A Batch is not safe for concurrent use. Release it after Write.
type Batch struct {
	s        *Store
	rep      batchRep
	deltas   []counterDelta
	resets   []int // physical databases
	reclaims []uint64
	buf      []byte
	// swaps are the SWAPDBs of the batch, in order (dbmap.go).
	swaps [][2]int
	// savedDeltas holds deltas at the last mark, so marking allocates not.
	savedDeltas []counterDelta
	// What the batch writes to each cached column family, for its cache;
	// indexed like cachedCFs.
	cached [len(cachedCFs)]cacheWrites
	// mayKill: the batch deletes a metadata or bookkeeping record or writes
	// a bookkeeping record, so an owner may die when it lands (see
	// compaction.GC.NoteDeaths).
	mayKill bool
	// created are the uids of the keys the batch creates (Created).
	created []uint64
	// pending indexes the batch's records for a transaction's reads; nil
	// in other batches.
	pending *pendingIndex
	// dbs is the database map the batch's SWAPDBs leave (prepareWrite).
	dbs *dbPerm
	// readFrom and readUpTo bound the tickets of the unlanded writes the
	// batch's commands may have read through the overlay; 0: none.
	readFrom, readUpTo uint64
}

// cachedCFs are the column families with a record cache (see recordCache),
// in the order of Store.caches and Batch.cached.
var cachedCFs = [...]CF{CFMeta, CFSubkey}

// cacheSlot is cf's index in cachedCFs, or -1.
func cacheSlot(cf CF) int {
	switch cf {
	case CFMeta:
		return 0
	case CFSubkey:
		return 1
	}
	return -1
}

// cacheWrites is what a batch writes to one cached column family, for its
// cache:
//   - ops: the first maxCachedWrites records put and deleted, in order; the
//     cache takes their values;
//   - forgets: the records after those, whose entries the cache only drops,
//     so that a batch of millions of records (COPY of a big hash, an HSET
//     of 10,000 fields) neither floods the cache with them nor empties it
//     of everything else. Sub-keys of a uid the batch created are not even
//     noted there (freshSkipped): no reader can have cached a record of a
//     key that did not exist, so after such a skip the cache takes none of
//     that uid's records from ops either;
//   - all: an unknown set of records was written, which empties the whole
//     cache. That is the case after a range deletion, and past
//     maxForgottenWrites forgotten records.
type cacheWrites struct {
	ops          []cacheOp
	forgets      []keySpan
	freshSkipped bool
	all          bool
}

// maxCachedWrites is the most records of one column family whose values a
// batch passes to its cache.
const maxCachedWrites = 4096

// maxForgottenWrites is the most further records a batch notes for its
// cache to drop (16 MiB of spans); past that it empties the cache.
const maxForgottenWrites = 1 << 20

// keySpan is a key's place in the batch's rep: offsets, since the rep's
// buffer may move while it grows.
type keySpan struct{ at, n int }

// key is the key in rep.
func (k keySpan) key(rep []byte) []byte { return rep[k.at : k.at+k.n] }

// cacheOp is one record a batch puts (found) or deletes. Its key and value
// are not copied: they stay where the record lies in the batch's rep. A
// record the cache keeps nothing of (big: recordCache.keeps) is only forgotten.
type cacheOp struct {
	keySpan
	valAt, valLen int
	found, big    bool
}

// val is op's value in rep; nil for a delete.
func (op cacheOp) val(rep []byte) []byte {
	if !op.found {
		return nil
	}
	return rep[op.valAt : op.valAt+op.valLen]
}

// batchMark is where a batch stands, to take a failed command's writes out
// again (Group.Add). The counter deltas at the mark are kept in the batch,
// so a batch has one mark at a time.
type batchMark struct {
	rep                     repMark
	resets, reclaims, swaps int
	mayKill                 bool
	created                 int
	cached                  [len(cachedCFs)]struct {
		ops, forgets      int
		freshSkipped, all bool
	}
}

// mark returns where b stands now.
func (b *Batch) mark() batchMark {
	m := batchMark{rep: b.rep.mark(), resets: len(b.resets), reclaims: len(b.reclaims), swaps: len(b.swaps), mayKill: b.mayKill, created: len(b.created)}
	for i := range b.cached {
		w, c := &b.cached[i], &m.cached[i]
		c.ops, c.forgets, c.freshSkipped, c.all = len(w.ops), len(w.forgets), w.freshSkipped, w.all
	}
	b.savedDeltas = append(b.savedDeltas[:0], b.deltas...)
	return m
}

// rollback takes out every write since m, the last mark.
func (b *Batch) rollback(m batchMark) {
	if b.pending != nil && b.pending.size > m.rep.size {
		b.pending.reset() // it indexed records rolled back
	}
	b.rep.rollback(m.rep)
	b.deltas = append(b.deltas[:0], b.savedDeltas...)
	b.resets, b.reclaims, b.swaps = b.resets[:m.resets], b.reclaims[:m.reclaims], b.swaps[:m.swaps]
	b.mayKill = m.mayKill
	b.created = b.created[:m.created]
	for i := range b.cached {
		w, c := &b.cached[i], &m.cached[i]
		w.ops, w.forgets, w.freshSkipped, w.all = w.ops[:c.ops], w.forgets[:c.forgets], c.freshSkipped, c.all
	}
}

type counterDelta struct {
	db      int  // physical
	expires bool // the expires counter, not the keys counter
	delta   int64
}

var batchPool = sync.Pool{New: func() any { return new(Batch) }}

// maxPooledBatchBytes keeps the pool from holding on to the buffer of an
// exceptionally big batch.
const maxPooledBatchBytes = 1 << 20

// NewBatch returns an empty batch.
func (s *Store) NewBatch() *Batch {
	b := batchPool.Get().(*Batch)
	b.s = s
	return b
}

// Release returns the batch to the pool; it must not be used afterwards.
func (b *Batch) Release() {
	b.savedDeltas = b.savedDeltas[:0]
	b.rollback(batchMark{}) // the mark of an empty batch
	if cap(b.rep.buf) > maxPooledBatchBytes {
		b.rep.buf = nil
	}
	b.buf = b.buf[:0]
	b.s, b.dbs = nil, nil
	b.readFrom, b.readUpTo = 0, 0
	batchPool.Put(b)
}

// Put writes key=val in cf. Both slices are copied into the batch.
func (b *Batch) Put(cf CF, key, val []byte) {
	b.mayKill = b.mayKill || cf == CFBookkeeping
	b.s.edges.put(cf, key)
	keyAt, valAt := b.rep.put(b.s.cfIDs[cf], key, val)
	b.noteCached(cf, cacheOp{keySpan: keySpan{keyAt, len(key)}, valAt: valAt, valLen: len(val), found: true})
}

// Delete removes key from cf.
func (b *Batch) Delete(cf CF, key []byte) {
	b.mayKill = b.mayKill || cf == CFMeta || cf == CFBookkeeping
	keyAt := b.rep.delete(b.s.cfIDs[cf], key)
	b.noteCached(cf, cacheOp{keySpan: keySpan{keyAt, len(key)}})
}

// DeleteRange removes [lower, upper) from cf. An empty or inverted range
// removes nothing and writes nothing: RocksDB refuses a batch holding an
// inverted one whole, and the store takes a failed write for a failing disk.
func (b *Batch) DeleteRange(cf CF, lower, upper []byte) {
	if bytes.Compare(lower, upper) >= 0 {
		return
	}
	b.mayKill = b.mayKill || cf == CFMeta || cf == CFBookkeeping
	b.rep.deleteRange(b.s.cfIDs[cf], lower, upper)
	if i := cacheSlot(cf); i >= 0 {
		b.cached[i].all = true
	}
}

// Created tells the batch that uid is new: it belongs to a key the batch
// creates, so no reader has seen a record of it yet.
func (b *Batch) Created(uid uint64) { b.created = append(b.created, uid) }

// createdKey reports whether a sub-key belongs to a uid the batch created.
func (b *Batch) createdKey(key []byte) bool {
	uid, err := subkey.UID(key)
	return err == nil && slices.Contains(b.created, uid)
}

// noteCached remembers op, a write of a cached column family just added to
// the rep, for its cache.
func (b *Batch) noteCached(cf CF, op cacheOp) {
	i := cacheSlot(cf)
	if i < 0 || b.s.caches[i] == nil {
		return
	}
	w := &b.cached[i]
	switch {
	case w.all:
	case len(w.ops) < maxCachedWrites:
		op.big = !b.s.caches[i].keeps(op.key(b.rep.buf), op.val(b.rep.buf), op.found)
		w.ops = append(w.ops, op)
	case cf == CFSubkey && b.createdKey(op.key(b.rep.buf)):
		w.freshSkipped = true
	case len(w.forgets) < maxForgottenWrites:
		w.forgets = append(w.forgets, op.keySpan)
	default:
		w.all = true
	}
}

// AddKeys changes the key counter of physical database db (dbmap.go) by
// delta when the batch is written. Counters belong to physical databases,
// so that they follow their keys through SWAPDB.
func (b *Batch) AddKeys(db int, delta int64) { b.addCounter(db, false, delta) }

// AddExpires changes physical database db's counter of keys with an expiry
// by delta.
func (b *Batch) AddExpires(db int, delta int64) { b.addCounter(db, true, delta) }

func (b *Batch) addCounter(db int, expires bool, delta int64) {
	for i := range b.deltas {
		if b.deltas[i].db == db && b.deltas[i].expires == expires {
			b.deltas[i].delta += delta
			return
		}
	}
	b.deltas = append(b.deltas, counterDelta{db, expires, delta})
}

// ResetKeys sets both counters of physical database db to zero (FLUSHDB).
// Store.Write applies resets before deltas, so the deltas added before it
// in the same batch (a transaction's SET before its FLUSHDB) are dropped.
func (b *Batch) ResetKeys(db int) {
	b.deltas = slices.DeleteFunc(b.deltas, func(d counterDelta) bool { return d.db == db })
	b.resets = append(b.resets, db)
}

// Reclaim queues uid for a targeted compaction once the batch is written.
func (b *Batch) Reclaim(uid uint64) { b.reclaims = append(b.reclaims, uid) }

// Len is the number of writes in the batch.
func (b *Batch) Len() int { return int(b.rep.count) + len(b.deltas) + len(b.resets) + len(b.swaps) }

// Write applies b atomically, then updates the in-memory counters and queues
// the reclaims. The batch is still owned by the caller. Concurrent Writes
// are joined into one DB.Write (see writeQueue).
func (s *Store) Write(b *Batch) error { return s.write(b, false) }

// write is Write; exclusive is set for the holder of the world lock's
// write side (an exclusive transaction's group: a script, a function, a
// transaction whose keys are unknown). No other command can queue a batch
// to join that write, so it leads at once: the write queue's yield would
// only run goroutines that then wait for the world lock.
func (s *Store) write(b *Batch, exclusive bool) error {
	if empty, err := s.prepareWrite(b); empty || err != nil {
		if err != nil {
			s.forgetEdges() // its deletes will not happen
		}
		return err
	}
	w := s.writes.submit(s, b, false, false)
	w.exclusive = exclusive
	return wrapWriteError(s.writes.await(s, w))
}

// prepareWrite adds to b the records that only Write adds (counters, the
// database map, the reclaim log), and reports a batch with nothing to write.
func (s *Store) prepareWrite(b *Batch) (empty bool, err error) {
	if s.isClosing() {
		return false, ErrClosed
	}
	def := s.cfIDs[CFDefault]
	var zero [8]byte
	for _, db := range b.resets {
		b.buf = metadata.AppendCounterKey(b.buf[:0], uint16(db))
		b.rep.put(def, b.buf, zero[:])
		b.buf = metadata.AppendExpiresCounterKey(b.buf[:0], uint16(db))
		b.rep.put(def, b.buf, zero[:])
	}
	for _, d := range b.deltas {
		if d.delta == 0 {
			continue
		}
		if d.expires {
			b.buf = metadata.AppendExpiresCounterKey(b.buf[:0], uint16(d.db))
		} else {
			b.buf = metadata.AppendCounterKey(b.buf[:0], uint16(d.db))
		}
		var v [8]byte
		b.rep.merge(def, b.buf, metadata.EncodeCounterDelta(v[:0], d.delta))
	}
	b.dbs = s.putDBMap(b)
	if b.rep.count == 0 {
		return true, nil // nothing to write: a read-only transaction's, say
	}
	if s.readOnly.Load() {
		return false, ErrReadOnly
	}
	b.appendReclaimLog()
	return false, nil
}

// wrapWriteError marks a failed write as ErrWrite.
func wrapWriteError(err error) error {
	if err != nil {
		return fmt.Errorf("%w: %w", ErrWrite, err)
	}
	return nil
}

// finishWrite does what follows a batch's successful write in memory:
// caches, counters, the database map, reclaims. The write queue's leader
// runs it for each batch of a joined write in ticket order, so that two
// batches of one key update its cache entry in the order they were written
// even when the first one's writer released the key's lock early.
func (s *Store) finishWrite(b *Batch) {
	s.noteWritten()
	s.cacheWritten(b)
	if b.dbs != nil {
		s.dbs.cur.Store(b.dbs)
	}
	if b.mayKill {
		s.gc.NoteDeaths()
	}
	for _, db := range b.resets {
		s.counters.keys[db].Store(0)
		s.counters.expires[db].Store(0)
	}
	for _, d := range b.deltas {
		if d.expires {
			s.counters.expires[d.db].Add(d.delta)
		} else {
			s.counters.keys[d.db].Add(d.delta)
		}
	}
	for _, uid := range b.reclaims {
		s.reclaim.enqueue(uid)
	}
}

// cacheWritten caches what b wrote, once RocksDB has it.
func (s *Store) cacheWritten(b *Batch) {
	for i, c := range s.caches {
		if c == nil {
			continue
		}
		if b.cached[i].all {
			// Which records b wrote is unknown.
			c.clear()
			continue
		}
		w := &b.cached[i]
		for _, op := range w.ops {
			key := op.key(b.rep.buf)
			switch {
			case w.freshSkipped && b.createdKey(key):
				// Later records of this new key were not noted, so
				// this value may not be its last; it was never cached.
			case op.big:
				c.forget(key)
			default:
				c.written(key, op.val(b.rep.buf), op.found)
			}
		}
		for _, k := range w.forgets {
			c.forget(k.key(b.rep.buf))
		}
	}
}
