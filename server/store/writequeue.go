package store

import (
	"sync"

	"github.com/linxGnu/grocksdb"
)

// writeQueue joins the batches of concurrent Store.Writes into one
// DB.Write. RocksDB joins concurrent writers itself, but each of them is
// then an OS thread blocked in cgo, and the followers sleep and wake on
// futexes: with 50 clients writing, that handshake cost as much as the
// memtable inserts. Here the first writer leads: it takes the batches that
// queued while the previous write ran, appends their records to its own (a
// batch is RocksDB's serialized form already, see batchRep) and writes them
// all at once; the others wait on a channel, which costs a goroutine switch.
//
// The joined write is atomic, so it succeeds or fails for all of its
// batches, as a RocksDB write group does. Each batch's keys are locked by
// its caller, and batches join in queue order, so joining changes no
// result.
type writeQueue struct {
	mu      sync.Mutex
	leading bool           // a leader is writing
	waiting []*queuedWrite // batches queued behind it
	joined  batchRep       // the leader's buffer; only the leader uses it
}

// queuedWrite is one batch waiting for a leader.
type queuedWrite struct {
	b    *Batch
	err  error
	lead bool          // woken to lead, not because it was written
	done chan struct{} // one send per wake-up
}

var queuedWritePool = sync.Pool{New: func() any { return &queuedWrite{done: make(chan struct{}, 1)} }}

// maxJoinedBytes bounds one joined write, as RocksDB's
// max_write_batch_group_size_bytes bounds a write group: a leader does not
// make its own write wait for an unbounded amount of others'.
const maxJoinedBytes = 1 << 20

// write writes b, alone or joined with the batches queued meanwhile.
func (q *writeQueue) write(s *Store, b *Batch) error {
	q.mu.Lock()
	if !q.leading {
		q.leading = true
		q.mu.Unlock()
		return q.lead(s, b)
	}
	w := queuedWritePool.Get().(*queuedWrite)
	w.b = b
	q.waiting = append(q.waiting, w)
	q.mu.Unlock()
	<-w.done
	lead, err := w.lead, w.err
	w.b, w.err, w.lead = nil, nil, false
	queuedWritePool.Put(w)
	if lead {
		return q.lead(s, b)
	}
	return err
}

// lead writes b with the batches waiting now, wakes their writers, and
// hands the lead to the first batch that queued meanwhile, if any.
func (q *writeQueue) lead(s *Store, b *Batch) error {
	q.mu.Lock()
	n, size := 0, len(b.rep.buf)
	for n < len(q.waiting) && size+len(q.waiting[n].b.rep.buf) <= maxJoinedBytes {
		size += len(q.waiting[n].b.rep.buf)
		n++
	}
	group := make([]*queuedWrite, n)
	copy(group, q.waiting)
	q.waiting = append(q.waiting[:0], q.waiting[n:]...)
	q.mu.Unlock()

	var err error
	if len(group) == 0 {
		err = s.writeRep(b.rep.bytes())
	} else {
		q.joined.reset()
		q.joined.appendRecords(b.rep.records(), b.rep.count)
		for _, w := range group {
			q.joined.appendRecords(w.b.rep.records(), w.b.rep.count)
		}
		err = s.writeRep(q.joined.bytes())
		if cap(q.joined.buf) > 2*maxJoinedBytes {
			q.joined.buf = nil
		}
	}

	q.mu.Lock()
	var next *queuedWrite
	if len(q.waiting) > 0 {
		next = q.waiting[0]
		q.waiting = append(q.waiting[:0], q.waiting[1:]...)
		next.lead = true
	} else {
		q.leading = false
	}
	q.mu.Unlock()
	if next != nil {
		next.done <- struct{}{}
	}
	for _, w := range group {
		w.err = err
		w.done <- struct{}{}
	}
	return err
}

// writeRep hands one serialized batch to RocksDB.
func (s *Store) writeRep(rep []byte) error {
	wb := grocksdb.WriteBatchFrom(rep)
	defer wb.Destroy()
	return s.db.Write(s.wo, wb)
}
