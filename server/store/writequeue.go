package store

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/linxGnu/grocksdb"
)

// writeQueue joins the batches of concurrent writers into one DB.Write.
// RocksDB joins concurrent writers itself, but each of them is then an OS
// thread blocked in cgo, and the followers sleep and wake on futexes: with
// 50 clients writing, that handshake cost as much as the memtable inserts.
// Here the first writer leads: it takes the batches that queued while the
// previous write ran, appends their records to its own (a batch is
// RocksDB's serialized form already, see batchRep) and writes them all at
// once; the others wait on a channel, which costs a goroutine switch.
//
// Every batch gets a ticket when it queues, and batches are written, and
// their writes finished (landed), in ticket order: the leader finishes a
// joined write's batches one by one (caches, counters, the overlay's
// entries, see overlay.go) before it advances the overlay's landed mark
// and wakes their writers. The joined write is atomic, so it succeeds or
// fails for all of its batches, as a RocksDB write group does.
type writeQueue struct {
	mu      sync.Mutex
	next    uint64         // the last ticket handed out
	leading bool           // a leader is writing, or was named to
	waiting []*queuedWrite // batches queued behind it
	joined  batchRep       // the leader's buffer; only the leader uses it
	writes  atomic.Uint64  // DB.Write calls made, for WaitStats
}

// queuedWrite is one batch in the queue, from submit to await.
type queuedWrite struct {
	b         *Batch
	ticket    uint64
	since     time.Time // when it queued, for WaitStats's Queue
	err       error
	first     bool // it found no leader at submit: it leads, unwoken
	lead      bool // it was woken to lead
	exclusive bool // its writer holds the world lock: nothing joins it
	// fromLoop: an event loop queued it (Group.Submit). A loop queues all
	// of its turn's writes before it awaits any, and every client of the
	// loop waits for them: its leader does not yield (lead).
	fromLoop bool
	done     chan struct{} // one send per wake-up
}

var queuedWritePool = sync.Pool{New: func() any { return &queuedWrite{done: make(chan struct{}, 1)} }}

// maxJoinedBytes bounds one joined write, as RocksDB's
// max_write_batch_group_size_bytes bounds a write group: a leader does not
// make its own write wait for an unbounded amount of others'.
const maxJoinedBytes = 1 << 20

// submit queues b, whose records are final, and gives it the next ticket.
// With early set, its records go into the overlay first, so that the
// caller may release its keys' locks before await. fromLoop is
// queuedWrite's. The caller must await the returned write.
func (q *writeQueue) submit(s *Store, b *Batch, early, fromLoop bool) *queuedWrite {
	w := queuedWritePool.Get().(*queuedWrite)
	w.b, w.since, w.fromLoop = b, time.Now(), fromLoop
	q.mu.Lock()
	q.next++
	w.ticket = q.next
	if early {
		s.ov.insert(s, b, w.ticket)
	}
	if !q.leading {
		q.leading, w.first = true, true
	} else {
		q.waiting = append(q.waiting, w)
	}
	q.mu.Unlock()
	return w
}

// lastTicket is the last ticket handed out.
func (q *writeQueue) lastTicket() uint64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.next
}

// await waits until w's batch has landed, leading the writes when its turn
// comes, and returns the write's error. w goes back to the pool.
func (q *writeQueue) await(s *Store, w *queuedWrite) error {
	if !w.first {
		<-w.done // w.lead is set before the send that wakes it
	}
	if w.first || w.lead {
		q.lead(s, w)
	}
	err := w.err
	w.b, w.err, w.first, w.lead, w.exclusive, w.fromLoop = nil, nil, false, false, false, false
	queuedWritePool.Put(w)
	return err
}

// lead writes w's batch with those queued behind it now, finishes them in
// ticket order, hands the lead to the first batch queued meanwhile, if
// any, and wakes the writers of the joined batches.
func (q *writeQueue) lead(s *Store, w *queuedWrite) {
	// Let the goroutines that are ready to run go first: under load they
	// are clients' commands, many about to queue a batch that this write
	// then carries too. Each DB.Write costs a WAL write() and a cgo call
	// long enough for the runtime to hand the P away; with 50 clients on
	// 2 cores a write carried 1.6 SETs without the yield and about 10 with
	// it, and the writes' p99 halved (docs/LATENCY.md). When nothing else
	// is ready, the yield is one trip through the scheduler. The holder of
	// the world lock skips it: nothing can join its write, and a script
	// that yielded there held every other command up the longer. So does an
	// event loop's write: the loop queued its turn's writes already, and
	// the yield handed its P away while all of its clients waited (the
	// loop yields once its replies left instead: eventLoop.run).
	if !w.exclusive && !w.fromLoop {
		runtime.Gosched()
	}
	q.mu.Lock()
	n, size := 0, len(w.b.rep.buf)
	for n < len(q.waiting) && size+len(q.waiting[n].b.rep.buf) <= maxJoinedBytes {
		size += len(q.waiting[n].b.rep.buf)
		n++
	}
	group := make([]*queuedWrite, 0, n+1)
	group = append(group, w)
	group = append(group, q.waiting[:n]...)
	q.waiting = append(q.waiting[:0], q.waiting[n:]...)
	q.mu.Unlock()

	// A batch that read a write that failed fails too (overlay.go): it is
	// left out of the joined write. Its failure counts for the later
	// batches of the group that read it.
	for _, m := range group {
		if s.ov.readFailed(m.b) {
			m.err = ErrReadFailed
			s.ov.fail(m.ticket, m.ticket)
		}
	}
	err := q.writeJoined(s, group)
	failed := false
	for _, m := range group {
		if m.err == nil {
			m.err = err
			if err == nil {
				s.finishWrite(m.b)
			} else {
				s.ov.fail(m.ticket, m.ticket)
			}
		}
		failed = failed || m.err != nil
		// A failed batch's records leave the overlay too: later readers
		// read what landed.
		s.ov.remove(s, m.b, m.ticket)
		s.waits.queue.observe(time.Since(m.since))
	}
	if failed {
		// Its deletes did not happen: no edge may stand past them. After
		// the overlay lost its records, so that an edge read from them is
		// refused, and before any writer wakes.
		s.forgetEdges()
	}
	s.ov.advance(group[len(group)-1].ticket)

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
	for _, m := range group[1:] { // group[0] is w
		m.done <- struct{}{}
	}
}

// writeJoined writes, as one DB.Write, the batches of group that have not
// failed already.
func (q *writeQueue) writeJoined(s *Store, group []*queuedWrite) error {
	var only *queuedWrite
	n := 0
	for _, m := range group {
		if m.err == nil {
			only = m
			n++
		}
	}
	if n > 0 {
		q.writes.Add(1)
	}
	switch n {
	case 0:
		return nil
	case 1:
		return s.writeRep(only.b.rep.bytes())
	}
	q.joined.reset()
	for _, m := range group {
		if m.err == nil {
			q.joined.appendRecords(m.b.rep.records(), m.b.rep.count)
		}
	}
	err := s.writeRep(q.joined.bytes())
	if cap(q.joined.buf) > 2*maxJoinedBytes {
		q.joined.buf = nil
	}
	return err
}

// writeRep hands one serialized batch to RocksDB.
func (s *Store) writeRep(rep []byte) error {
	wb := grocksdb.WriteBatchFrom(rep)
	defer wb.Destroy()
	return s.db.Write(s.wo, wb)
}
