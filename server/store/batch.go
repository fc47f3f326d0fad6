package store

import (
	"fmt"
	"sync"

	"github.com/linxGnu/grocksdb"

	"github.com/shaledb/shale/metadata"
)

// Batch collects one command's writes; Store.Write applies them atomically.
// A Batch is not safe for concurrent use. Release it after Write.
type Batch struct {
	s        *Store
	wb       *grocksdb.WriteBatch
	deltas   []counterDelta
	resets   []int
	reclaims []uint64
	buf      []byte
}

type counterDelta struct {
	db      int
	expires bool // the expires counter, not the keys counter
	delta   int64
}

var batchPool = sync.Pool{New: func() any { return &Batch{wb: grocksdb.NewWriteBatch()} }}

// NewBatch returns an empty batch.
func (s *Store) NewBatch() *Batch {
	b := batchPool.Get().(*Batch)
	b.s = s
	return b
}

// Release returns the batch to the pool; it must not be used afterwards.
func (b *Batch) Release() {
	b.wb.Clear()
	b.deltas, b.resets, b.reclaims, b.buf = b.deltas[:0], b.resets[:0], b.reclaims[:0], b.buf[:0]
	b.s = nil
	batchPool.Put(b)
}

// Put writes key=val in cf. Both slices are copied into the batch.
func (b *Batch) Put(cf CF, key, val []byte) { b.wb.PutCF(b.s.cfs[cf], key, val) }

// Delete removes key from cf.
func (b *Batch) Delete(cf CF, key []byte) { b.wb.DeleteCF(b.s.cfs[cf], key) }

// DeleteRange removes [lower, upper) from cf.
func (b *Batch) DeleteRange(cf CF, lower, upper []byte) {
	b.wb.DeleteRangeCF(b.s.cfs[cf], lower, upper)
}

// AddKeys changes db's key counter by delta when the batch is written.
func (b *Batch) AddKeys(db int, delta int64) { b.addCounter(db, false, delta) }

// AddExpires changes db's counter of keys with an expiry by delta.
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

// ResetKeys sets both of db's counters to zero (FLUSHDB), before any AddKeys
// of the same batch.
func (b *Batch) ResetKeys(db int) { b.resets = append(b.resets, db) }

// Reclaim queues uid for a targeted compaction once the batch is written.
func (b *Batch) Reclaim(uid uint64) { b.reclaims = append(b.reclaims, uid) }

// Len is the number of writes in the batch.
func (b *Batch) Len() int { return b.wb.Count() + len(b.deltas) + len(b.resets) }

// Write applies b atomically, then updates the in-memory counters and queues
// the reclaims. The batch is still owned by the caller.
func (s *Store) Write(b *Batch) error {
	select {
	case <-s.closed:
		return ErrClosed
	default:
	}
	def := s.cfs[CFDefault]
	var zero [8]byte
	for _, db := range b.resets {
		b.buf = metadata.AppendCounterKey(b.buf[:0], uint16(db))
		b.wb.PutCF(def, b.buf, zero[:])
		b.buf = metadata.AppendExpiresCounterKey(b.buf[:0], uint16(db))
		b.wb.PutCF(def, b.buf, zero[:])
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
		b.wb.MergeCF(def, b.buf, metadata.EncodeCounterDelta(v[:0], d.delta))
	}
	if b.wb.Count() == 0 {
		return nil
	}
	if err := s.db.Write(s.wo, b.wb); err != nil {
		return fmt.Errorf("%w: %w", ErrWrite, err)
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
	return nil
}
