package store

import (
	"bytes"
	"errors"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
)

// The overlay lets commands on one key proceed without waiting for each
// other's writes to land (docs/WRITES.md). A pipeline group (Group with
// early release) that finds another command waiting for one of its keys
// puts its batch's records here, queues the batch, and releases its locks
// before the write lands; the next command on those keys reads through the
// overlay (Group.Reader), so it sees the queued records, and queues its own
// batch behind. The write queue joins them into one DB.Write.
//
// What no client may see is a write that is not durable, so:
//   - only holders of a key's lock read its overlay records, and only in an
//     early group, whose replies leave once the group's tickets have landed:
//     its own batch's, or, when it wrote nothing, the last one queued under
//     each of its lock stripes (stripe tickets, taken with the lock);
//   - every other holder of a key's lock (a command run alone, a
//     transaction, a script) waits for its stripes' tickets to land after
//     taking the lock, and then reads the store as before; the world lock's
//     holders wait for every ticket;
//   - records leave the overlay only once their batch has landed (RocksDB
//     has it and the record caches took it: Store.finishWrite) or failed.
//
// A write that fails fails every command that may have read it: a command
// that read through the overlay may have read any ticket after the landed
// mark when it took its first lock (readFrom) up to its stripes' tickets
// (readUpTo); the write queue fails its batch, and Group.Commit its
// replies, when a ticket in that range failed (readFailed).
type overlay struct {
	mu      sync.Mutex
	records atomic.Int64 // entries held; readers skip mu when 0
	entries [numCFs]map[string]overlayEntry
	// failed are the ranges of tickets whose writes failed, merged;
	// anyFailed spares the write queue's leader mu until there is one.
	failed    []ticketRange
	anyFailed atomic.Bool
	// landed: every ticket up to it has landed or failed.
	landed atomic.Uint64
	// stripe is the last ticket of an early group's batch under each key
	// lock stripe, set before the group releases it.
	stripe [numStripes]atomic.Uint64
	// waiting counts the goroutines waiting for each stripe: a group that
	// sees one releases its locks early.
	waiting [numStripes]atomic.Int32
	// landedMu and landedCond wake waitLanded; watchers counts its callers
	// so that advance skips the broadcast when nobody waits.
	landedMu   sync.Mutex
	landedCond *sync.Cond
	watchers   atomic.Int32
	// commits counts the batches that went through the overlay.
	commits atomic.Uint64
}

// EarlyCommits is the number of batches whose groups released their
// locks before the write landed (INFO's early_lock_releases).
func (s *Store) EarlyCommits() uint64 { return s.ov.commits.Load() }

// overlayEntry is the last queued record of one key: a put (found) or a
// delete, and the ticket of its batch.
type overlayEntry struct {
	ticket uint64
	val    []byte
	found  bool
}

type ticketRange struct{ from, to uint64 }

// ErrReadFailed fails a batch that read a queued write which then failed;
// it is in the error of an early group's Commit whose commands read one,
// so that none of their replies stands.
var ErrReadFailed = errors.New("a write this command read failed")

// maxEarlyRecords and maxEarlyBytes bound the batches that go through the
// overlay: its records are copied there, so a big one waits under its
// locks instead.
const (
	maxEarlyRecords = 256
	maxEarlyBytes   = 64 << 10
)

// earlyEligible reports whether b may go through the overlay: small, and
// made of puts and deletes whose keys the record caches track one by one.
func earlyEligible(b *Batch) bool {
	if b.rep.count > maxEarlyRecords || len(b.rep.buf) > maxEarlyBytes || len(b.swaps) > 0 || len(b.resets) > 0 {
		return false
	}
	for i := range b.cached {
		if b.cached[i].all || len(b.cached[i].forgets) > 0 || b.cached[i].freshSkipped {
			return false
		}
	}
	return true
}

// insert puts b's records into the overlay under ticket; the write queue
// calls it before the batch can be written.
func (o *overlay) insert(s *Store, b *Batch, ticket uint64) {
	rep := b.rep.buf
	o.mu.Lock()
	defer o.mu.Unlock()
	for at := repHeader; at < len(rep); {
		r, next, err := readRecord(rep, at)
		if err != nil {
			panic("store: a batch's records do not parse: " + err.Error())
		}
		at = next
		cf, ok := s.cfOfID(r.cf)
		e := overlayEntry{ticket: ticket}
		switch {
		case !ok:
			panic("store: a batch names an unknown column family")
		case r.tag == tagValue || r.tag == tagCFValue:
			e.val, e.found = bytes.Clone(rep[r.val.at:r.val.at+r.val.n]), true
		case r.tag == tagDeletion || r.tag == tagCFDeletion:
		default:
			// Counter merges and the reclaim log: no reader of a
			// key's records reads them.
			continue
		}
		if o.entries[cf] == nil {
			o.entries[cf] = make(map[string]overlayEntry)
		}
		key := string(r.key.key(rep))
		if _, had := o.entries[cf][key]; !had {
			o.records.Add(1)
		}
		o.entries[cf][key] = e
	}
}

// remove takes b's records out of the overlay, unless a later batch has
// replaced them.
func (o *overlay) remove(s *Store, b *Batch, ticket uint64) {
	if o.records.Load() == 0 {
		return
	}
	rep := b.rep.buf
	o.mu.Lock()
	defer o.mu.Unlock()
	for at := repHeader; at < len(rep); {
		r, next, err := readRecord(rep, at)
		if err != nil {
			return
		}
		at = next
		cf, ok := s.cfOfID(r.cf)
		if !ok {
			continue
		}
		key := r.key.key(rep)
		if e, had := o.entries[cf][string(key)]; had && e.ticket == ticket {
			delete(o.entries[cf], string(key))
			o.records.Add(-1)
		}
	}
}

// get looks key up in the overlay: known is false when it holds no
// record of it.
func (o *overlay) get(cf CF, key []byte) (val []byte, found, known bool) {
	if o.records.Load() == 0 {
		return nil, false, false
	}
	o.mu.Lock()
	e, known := o.entries[cf][string(key)]
	o.mu.Unlock()
	if !known || !e.found {
		return nil, false, known
	}
	return slices.Clone(e.val), true, true
}

// overlayRecord is one overlay entry, copied out for an iteration.
type overlayRecord struct {
	key   string
	val   []byte
	found bool
}

// span returns the overlay's records of cf in [lower, upper) (upper nil:
// no bound), sorted by key.
func (o *overlay) span(cf CF, lower, upper []byte) []overlayRecord {
	if o.records.Load() == 0 {
		return nil
	}
	var out []overlayRecord
	o.mu.Lock()
	for k, e := range o.entries[cf] {
		if k >= string(lower) && (upper == nil || k < string(upper)) {
			out = append(out, overlayRecord{key: k, val: slices.Clone(e.val), found: e.found})
		}
	}
	o.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out
}

// fail records that the writes of tickets from..to failed.
func (o *overlay) fail(from, to uint64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.anyFailed.Store(true)
	if n := len(o.failed); n > 0 && o.failed[n-1].to+1 >= from {
		o.failed[n-1].to = max(o.failed[n-1].to, to)
		return
	}
	o.failed = append(o.failed, ticketRange{from, to})
}

// failedIn reports whether a ticket in from..to failed.
func (o *overlay) failedIn(from, to uint64) bool {
	if to == 0 || to < from || !o.anyFailed.Load() {
		return false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, r := range o.failed {
		if r.from <= to && from <= r.to {
			return true
		}
	}
	return false
}

// readFailed reports whether b's commands may have read a write that
// failed.
func (o *overlay) readFailed(b *Batch) bool { return o.failedIn(b.readFrom, b.readUpTo) }

// advance moves the landed mark to ticket and wakes waitLanded's callers.
func (o *overlay) advance(ticket uint64) {
	o.landed.Store(ticket)
	if o.watchers.Load() > 0 {
		o.landedMu.Lock()
		o.landedCond.Broadcast()
		o.landedMu.Unlock()
	}
}

// waitLanded returns once every ticket up to ticket has landed or failed.
func (o *overlay) waitLanded(ticket uint64) {
	if o.landed.Load() >= ticket {
		return
	}
	o.watchers.Add(1)
	o.landedMu.Lock()
	for o.landed.Load() < ticket {
		o.landedCond.Wait()
	}
	o.landedMu.Unlock()
	o.watchers.Add(-1)
}

// settleStripe waits until the writes queued under stripe i by early
// groups have landed: for a lock holder that reads the store itself.
func (o *overlay) settleStripe(i int) { o.waitLanded(o.stripe[i].Load()) }

// lockWaiting takes stripe m (index i), counting the goroutine among its
// waiters while it waits, so that the holder releases it early.
func (o *overlay) lockWaiting(m *sync.Mutex, i int, wait *lockWait) {
	if m.TryLock() {
		return
	}
	wait.busy()
	o.waiting[i].Add(1)
	m.Lock()
	o.waiting[i].Add(-1)
}

// overlayReader reads the store with the overlay's records laid over it:
// what an early group's commands read.
type overlayReader struct{ s *Store }

// Get reads key as the queued writes leave it.
func (r overlayReader) Get(cf CF, key []byte) ([]byte, bool, error) {
	if val, found, known := r.s.ov.get(cf, key); known {
		return val, found, nil
	}
	return r.s.Get(cf, key)
}

// GetHead reads key's record, or its head, as the queued writes leave it.
func (r overlayReader) GetHead(cf CF, key []byte) ([]byte, bool, bool, error) {
	if val, found, known := r.s.ov.get(cf, key); known {
		return val, true, found, nil
	}
	return r.s.GetHead(cf, key)
}

// PeekList is Store.PeekList as the queued writes leave the list: an
// element the overlay holds is served from it, one it deletes is not
// served. With nothing queued, the overlay holds none (and the list's lock
// keeps any from being queued), and the store's runs of elements serve.
func (r overlayReader) PeekList(uid, from, to uint64, reverse bool, fn func(val []byte)) uint64 {
	if r.s.ov.records.Load() == 0 {
		return r.s.PeekList(uid, from, to, reverse, fn)
	}
	return peekEach(uid, from, to, reverse, func(key []byte) bool {
		if val, found, known := r.s.ov.get(CFSubkey, key); known {
			if found {
				fn(val)
			}
			return found
		}
		return r.s.peekCached(CFSubkey, key, fn)
	})
}

// MultiGet reads keys as the queued writes leave them.
func (r overlayReader) MultiGet(cf CF, keys [][]byte) ([][]byte, []bool, error) {
	if r.s.ov.records.Load() == 0 {
		return r.s.MultiGet(cf, keys)
	}
	vals, found := make([][]byte, len(keys)), make([]bool, len(keys))
	for i, k := range keys {
		v, f, err := r.Get(cf, k)
		if err != nil {
			return nil, nil, err
		}
		vals[i], found[i] = v, f
	}
	return vals, found, nil
}

// Iterate merges the overlay's records of [lower, upper) with the store's.
func (r overlayReader) Iterate(cf CF, lower, upper []byte, reverse bool, fn func(key, val []byte) bool) error {
	recs := r.s.ov.span(cf, lower, upper)
	if len(recs) == 0 {
		return r.s.Iterate(cf, lower, upper, reverse, fn)
	}
	return mergeIterate(r.s, cf, lower, upper, reverse, len(recs),
		func(i int) (string, []byte, bool) { return recs[i].key, recs[i].val, recs[i].found },
		func([]byte) bool { return false }, fn)
}
