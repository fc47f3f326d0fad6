package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/linxGnu/grocksdb"

	"github.com/shaledb/shale/metadata"
	"github.com/shaledb/shale/subkey"
)

// What the store gives replication (server/replication.go).
//
// The replication offset is RocksDB's sequence number. A primary serves its
// write-ahead log from any sequence number it still holds (ReadWAL). A
// replica writes each batch of it as it is (Apply), so it consumes the same
// sequence numbers, and its own log holds the same batches at the same
// numbers: a replica of a replica reads it as the first one read its
// primary's, and after a promotion the other replicas resume at the offsets
// they had. So a replica writes nothing of its own: no expiry, no uid
// reservation; its server refuses writes.
//
// Every record a replica needs is in the batches: the uid high-water mark
// (a batch of its own, ReloadUIDs reads it at a promotion), bookkeeping
// records, key counters, the expiry index, the database map and FUNCTION
// libraries. What is not a record travels as a log-data blob of the batch,
// which RocksDB keeps in the log but not in the tables: the uids a batch
// queues for the reclaimer, so that a replica reclaims a deleted big key's
// disk as its primary does.

// ErrWALGone is returned for a sequence number the write-ahead log no
// longer holds (or never held): the replica must sync in full.
var ErrWALGone = errors.New("store: the write-ahead log no longer holds that sequence number")

// ErrOutOfOrder is returned by Apply for a batch that is not the next one.
var ErrOutOfOrder = errors.New("store: replicated batch out of order")

// LastSequence is the sequence number of the last write: the replication
// offset.
func (s *Store) LastSequence() uint64 { return s.db.GetLatestSequenceNumber() }

// OldestSequence is the first sequence number of the oldest batch the
// write-ahead log still holds: a replica may resume from there on. It is
// false when the log holds nothing. It lists the log files and reads one
// record: INFO's figure, not a hot path.
func (s *Store) OldestSequence() (uint64, bool) {
	if !s.beginManual() {
		return 0, false
	}
	defer s.endManual()
	if s.LastSequence() == 0 {
		return 0, false
	}
	// From number 1 on, the iterator starts at the first batch of the
	// oldest file kept.
	it, err := s.db.GetUpdatesSince(1)
	if err != nil {
		return 0, false
	}
	defer it.Destroy()
	if !it.Valid() {
		return 0, false
	}
	wb, seq := it.GetBatch()
	wb.Destroy()
	return seq, true
}

// WALBatch is one batch of the write-ahead log: its first sequence number
// and its serialized form (RocksDB's, see batchRep).
type WALBatch struct {
	Seq uint64
	Rep []byte
}

// WALReader reads the write-ahead log forward from a sequence number. It is
// used by one goroutine; the store closes it when it closes or reinstalls.
type WALReader struct {
	s      *Store
	it     *grocksdb.WalIterator
	fresh  bool   // it was just positioned and holds a batch not yet returned
	next   uint64 // the sequence number of the next batch to return
	closed bool   // guarded by s.manual
}

// ReadWAL returns a reader of the log from sequence number from on.
func (s *Store) ReadWAL(from uint64) *WALReader {
	r := &WALReader{s: s, next: from}
	s.walReaders.Lock()
	s.walReaders.m[r] = struct{}{}
	s.walReaders.Unlock()
	return r
}

// Next returns the batches the log holds from the reader's position on, up
// to about maxBytes of them, or none when it holds no more yet. Once it
// returned ErrWALGone or ErrClosed, the reader is done.
func (r *WALReader) Next(maxBytes int) ([]WALBatch, error) {
	if !r.s.beginManual() {
		return nil, ErrClosed
	}
	defer r.s.endManual()
	if r.closed {
		return nil, ErrClosed
	}
	if r.next > r.s.LastSequence() {
		return nil, nil
	}
	switch {
	case r.it == nil:
		it, err := r.s.db.GetUpdatesSince(r.next)
		if err != nil {
			return nil, fmt.Errorf("%w: %d: %v", ErrWALGone, r.next, err)
		}
		if !it.Valid() {
			// The log holds the number (it is at most the last one) but
			// the iterator found no batch there: its files are gone. An
			// iterator that never started must not be moved: with no
			// file, RocksDB asserts.
			err := it.Err()
			it.Destroy()
			return nil, fmt.Errorf("%w: %d: no log file holds it (%v)", ErrWALGone, r.next, err)
		}
		r.it, r.fresh = it, true
	case r.fresh:
		r.fresh = false
	default:
		// Past the batch returned last; at the end of the log, Next
		// reads what was appended to its file since.
		r.it.Next()
	}
	var out []WALBatch
	size := 0
	for r.it.Valid() {
		// GetBatch hands the batch over: the next call must move on.
		wb, seq := r.it.GetBatch()
		r.fresh = false
		if seq != r.next {
			wb.Destroy()
			r.release()
			// A batch past the one asked for: the log between was
			// deleted. One before it: the number is inside a batch,
			// which no replica of ours asks for.
			return nil, fmt.Errorf("%w: %d, the log goes on at %d", ErrWALGone, r.next, seq)
		}
		rep := append([]byte(nil), wb.Data()...)
		r.next = seq + uint64(wb.Count())
		wb.Destroy()
		out = append(out, WALBatch{Seq: seq, Rep: rep})
		if size += len(rep); size >= maxBytes {
			return out, nil
		}
		r.it.Next()
	}
	if r.it.Err() != nil {
		// The log went on in a file this iterator does not know of
		// (RocksDB's TryAgain), or failed: the next call starts a new
		// one, which finds the batch asked for or ErrWALGone.
		r.release()
	}
	return out, nil
}

// release drops the iterator; the reader starts a new one when asked again.
func (r *WALReader) release() {
	if r.it != nil {
		r.it.Destroy()
		r.it, r.fresh = nil, false
	}
}

// Close releases the reader.
func (r *WALReader) Close() {
	r.s.manual.RLock()
	defer r.s.manual.RUnlock()
	r.s.walReaders.Lock()
	delete(r.s.walReaders.m, r)
	r.s.walReaders.Unlock()
	r.release()
}

// walReaderSet is the open readers, which the store closes before its
// database: a log iterator must not outlive it.
type walReaderSet struct {
	sync.Mutex
	m map[*WALReader]struct{}
}

// closeWALReaders ends every reader; the caller holds s.manual's write side.
func (s *Store) closeWALReaders() {
	s.walReaders.Lock()
	defer s.walReaders.Unlock()
	for r := range s.walReaders.m {
		r.release()
		r.closed = true
		delete(s.walReaders.m, r)
	}
}

// HoldWAL keeps RocksDB from deleting any file, log files included, until
// the returned release is called: a primary holds the log from a
// checkpoint's sequence number on while it sends the checkpoint.
func (s *Store) HoldWAL() (release func(), err error) {
	if !s.beginManual() {
		return nil, ErrClosed
	}
	defer s.endManual()
	if err := s.db.DisableFileDeletions(); err != nil {
		return nil, fmt.Errorf("store: hold the log: %w", err)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			if s.beginManual() {
				_ = s.db.EnableFileDeletions(false)
				s.endManual()
			}
		})
	}, nil
}

// AppliedKey is a key whose metadata record a replicated batch wrote or
// deleted, in the logical database a client selects.
type AppliedKey struct {
	DB  int
	Key []byte
}

// Applied is what a replicated batch changed that the server acts on: the
// keys whose metadata it wrote (for WATCH, client tracking and blocked
// readers), the uids whose members it wrote (an HSET or ZADD that changed
// only members leaves the metadata as it was; KeyOfUID names their keys),
// whether it deleted a whole range of keys, or more keys than it lists
// (AllKeys: FLUSHDB, FLUSHALL, SWAPDB), and whether it changed FUNCTION
// libraries.
type Applied struct {
	Keys      []AppliedKey
	UIDs      []uint64
	AllKeys   bool
	Functions bool
}

// maxAppliedKeys is the most keys Applied lists; past it, AllKeys.
const maxAppliedKeys = 4096

// logReclaim starts the log-data blob of a batch's reclaimed uids, which
// follow as 8-byte big-endian numbers.
const logReclaim = 'R'

// Apply writes a batch read from the primary's log (WALBatch), which must
// be the next one: seq is LastSequence()+1. The caller is the one writer:
// a replica takes no other writes.
func (s *Store) Apply(seq uint64, rep []byte) (Applied, error) {
	var a Applied
	if s.isClosing() {
		return a, ErrClosed
	}
	if want := s.LastSequence() + 1; seq != want {
		return a, fmt.Errorf("%w: batch at %d, expected %d", ErrOutOfOrder, seq, want)
	}
	s.edges.clear() // the primary's writes do not keep them
	var (
		metaKeys  [][]byte // physical metadata keys
		counters  []counterOp
		reclaims  []uint64
		forgets   [len(cachedCFs)][][]byte
		clearAll  [len(cachedCFs)]bool
		dbMap     bool
		mayKill   bool
		uids      map[uint64]struct{} // a.UIDs, to add each once
		defaultID = s.cfIDs[CFDefault]
	)
	err := walkRep(rep, func(r repRecord) error {
		key := r.key.key(rep)
		if r.tag == tagLogData {
			if len(key) > 0 && key[0] == logReclaim {
				for b := key[1:]; len(b) >= 8; b = b[8:] {
					reclaims = append(reclaims, binary.BigEndian.Uint64(b))
				}
			}
			return nil
		}
		cf, ok := s.cfOfID(r.cf)
		if !ok {
			return fmt.Errorf("store: replicated batch names column family %d", r.cf)
		}
		deletes := r.tag == tagDeletion || r.tag == tagCFDeletion || r.rangeDelete()
		mayKill = mayKill || (deletes && (cf == CFMeta || cf == CFBookkeeping)) || cf == CFBookkeeping
		if i := cacheSlot(cf); i >= 0 {
			if r.rangeDelete() || len(forgets[i]) >= maxForgottenWrites {
				clearAll[i] = true
			} else if !clearAll[i] {
				forgets[i] = append(forgets[i], key)
			}
		}
		switch {
		case (cf == CFSubkey || cf == CFScore) && !r.rangeDelete():
			uid, err := subkey.UID(key)
			if err != nil || (len(a.UIDs) > 0 && a.UIDs[len(a.UIDs)-1] == uid) {
				break // a key's members come one after the other
			}
			if _, seen := uids[uid]; seen {
				break
			}
			if uids == nil {
				uids = make(map[uint64]struct{})
			}
			uids[uid] = struct{}{}
			if len(a.UIDs) < maxAppliedKeys {
				a.UIDs = append(a.UIDs, uid)
			} else {
				a.AllKeys = true
			}
		case cf == CFMeta && r.rangeDelete():
			a.AllKeys = true
		case cf == CFMeta:
			if len(metaKeys) < maxAppliedKeys {
				metaKeys = append(metaKeys, key)
			} else {
				a.AllKeys = true
			}
		case r.cf == defaultID && r.rangeDelete():
			a.Functions = true // only FUNCTION FLUSH deletes a range there
		case r.cf == defaultID:
			if db, expires, ok := metadata.DecodeCounterKey(key); ok {
				n, err := metadata.DecodeCounter(r.val.key(rep))
				if err != nil {
					return fmt.Errorf("store: replicated counter %q: %w", key, err)
				}
				counters = append(counters, counterOp{db: int(db), expires: expires, set: r.tag == tagValue, n: n})
			} else if _, ok := metadata.FunctionKeyLib(key); ok {
				a.Functions = true
			} else if string(key) == string(metadata.KeyDBMap) {
				dbMap = true
			}
		}
		return nil
	})
	if err != nil {
		return a, err
	}
	if err := s.writeRep(rep); err != nil {
		return a, fmt.Errorf("%w: %w", ErrWrite, err)
	}
	s.noteWritten()
	for i, c := range s.caches {
		switch {
		case c == nil:
		case clearAll[i]:
			c.clear()
		default:
			for _, k := range forgets[i] {
				c.forget(k)
			}
		}
	}
	if dbMap {
		a.AllKeys = true
		if err := loadDBMap(s, s.cfg.Server.Databases); err != nil {
			return a, err
		}
	}
	for _, op := range counters {
		// Apply a batch's counter writes as the primary made them, in
		// order: reading the counter instead would merge every operand the
		// memtable holds for it, which grows with each batch.
		if op.db >= len(s.counters.keys) {
			continue
		}
		ctr := &s.counters.keys[op.db]
		if op.expires {
			ctr = &s.counters.expires[op.db]
		}
		if op.set {
			ctr.Store(op.n)
		} else {
			ctr.Add(op.n)
		}
	}
	if mayKill {
		s.gc.NoteDeaths()
	}
	for _, uid := range reclaims {
		s.reclaim.enqueue(uid)
	}
	if !a.AllKeys {
		for _, k := range metaKeys {
			phys, key, err := metadata.DecodeMetaKey(k)
			if err != nil {
				continue
			}
			if db, ok := s.LogicalDB(phys); ok {
				a.Keys = append(a.Keys, AppliedKey{DB: db, Key: append([]byte(nil), key...)})
			}
		}
	}
	return a, nil
}

// counterOp is a write of a replicated batch to a key counter: a merge
// operand adding n, or a put setting it to n (FLUSHDB's reset).
type counterOp struct {
	db      int
	expires bool
	set     bool
	n       int64
}

// KeyOfUID names the key that owns uid now, from its bookkeeping record;
// false when none does (the key was deleted).
func (s *Store) KeyOfUID(uid uint64) (AppliedKey, bool) {
	var buf [8]byte
	raw, ok, err := s.Get(CFBookkeeping, metadata.AppendBookKey(buf[:0], uid))
	if err != nil || !ok {
		return AppliedKey{}, false
	}
	book, err := metadata.DecodeBook(raw)
	if err != nil {
		return AppliedKey{}, false
	}
	db, ok := s.LogicalDB(book.DB)
	return AppliedKey{DB: db, Key: book.Key}, ok
}

// appendReclaimLog adds the log-data blob of b's reclaimed uids to its rep.
func (b *Batch) appendReclaimLog() {
	if len(b.reclaims) == 0 {
		return
	}
	blob := append(b.buf[:0], logReclaim)
	for _, uid := range b.reclaims {
		blob = binary.BigEndian.AppendUint64(blob, uid)
	}
	b.buf = blob
	b.rep.logData(blob)
}

// ReloadUIDs reads the uid high-water mark again: a promoted replica
// allocates above every uid its primary reserved, which reached it in the
// log.
func (s *Store) ReloadUIDs() error {
	s.uids.mu.Lock()
	defer s.uids.mu.Unlock()
	return s.uids.load(s)
}

// ErrUnusable is returned by Reinstall when neither the checkpoint nor the
// database it was to replace opens: the store is closed for good.
var ErrUnusable = errors.New("store: no database opens")

// Reinstall replaces the database with the checkpoint in dir (a directory
// beside the store's, which it takes), as a replica's full sync does:
// background work stops, the database closes, the checkpoint takes its
// place, and everything opens again, so that the store holds exactly the
// checkpoint. When the checkpoint does not open, the old database goes back
// in place and opens again; when that fails too, the error wraps
// ErrUnusable. The caller makes sure that nothing else uses the store
// meanwhile: no command runs, no reader is open.
func (s *Store) Reinstall(dir string) error {
	s.edges.clear()
	close(s.full.stopc)
	s.db.DisableManualCompaction()
	s.manual.Lock()
	defer s.manual.Unlock()
	<-s.full.done
	s.reclaim.stop()
	s.closeWALReaders()
	s.gc.Publish(nil)
	s.gc.Forget()
	s.db.CancelAllBackgroundWork(true)
	s.closeHandles()

	live := filepath.Clean(s.cfg.Storage.Dir)
	old := live + ".old"
	swapped := false
	err := os.RemoveAll(old)
	if err == nil {
		err = os.Rename(live, old)
	}
	if err == nil {
		if err = os.Rename(dir, live); err == nil {
			swapped = true
			err = syncDir(filepath.Dir(live))
		}
	}
	if err == nil {
		if err = s.open(); err == nil {
			if rerr := os.RemoveAll(old); rerr != nil {
				s.log.Warn().Err(rerr).Str("dir", old).Msg("reinstall: could not remove the old database")
			}
			return nil
		}
	}
	// Back to the database the store had.
	if swapped {
		if rerr := os.RemoveAll(live); rerr != nil {
			return fmt.Errorf("%w: reinstall: %w; and %w", ErrUnusable, err, rerr)
		}
	}
	if _, serr := os.Stat(old); serr == nil {
		if rerr := os.Rename(old, live); rerr != nil {
			return fmt.Errorf("%w: reinstall: %w; and %w", ErrUnusable, err, rerr)
		}
	}
	if oerr := s.open(); oerr != nil {
		return fmt.Errorf("%w: reinstall: %w; and the old database: %w", ErrUnusable, err, oerr)
	}
	return fmt.Errorf("store: reinstall: %w", err)
}

// RecoverReinstall finishes or undoes a Reinstall that a crash cut short,
// before the store in dir opens: with dir gone, the old database goes back
// in its place.
func RecoverReinstall(dir string) error {
	dir = filepath.Clean(dir)
	old := dir + ".old"
	if _, err := os.Stat(old); err != nil {
		return nil
	}
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return os.Rename(old, dir)
	}
	return os.RemoveAll(old)
}

// ErrReadOnly is returned by Write and NewUID on a replica's store
// (SetReadOnly): its only writes are its primary's batches.
var ErrReadOnly = errors.New("store: read-only replica")

// SetReadOnly makes Write and NewUID refuse (ErrReadOnly), or take writes
// again. A write that began before the call may still land. A read-only
// store's compaction filters take an expired key for alive, and forget the
// verdicts they cached: a replica waits for its primary's deletions.
func (s *Store) SetReadOnly(on bool) {
	s.readOnly.Store(on)
	if on {
		s.gc.Forget()
	}
}

// writeSignal lets a log reader wait for the next write.
type writeSignal struct {
	mu     sync.Mutex
	ch     chan struct{}
	wanted atomic.Bool // someone holds ch: the next write closes it
}

// Written returns a channel that is closed once a write lands after the
// call: a reader that found nothing new in the log waits on it.
func (s *Store) Written() <-chan struct{} {
	w := &s.written
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ch == nil {
		w.ch = make(chan struct{})
	}
	w.wanted.Store(true)
	return w.ch
}

// noteWritten wakes Written's waiters; a write costs one atomic load when
// nobody waits.
func (s *Store) noteWritten() {
	w := &s.written
	if !w.wanted.Load() {
		return
	}
	w.mu.Lock()
	if w.ch != nil {
		close(w.ch)
		w.ch = nil
	}
	w.wanted.Store(false)
	w.mu.Unlock()
}
