package store

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/linxGnu/grocksdb"
	"github.com/rs/zerolog"

	"github.com/shaledb/shale/compaction"
	"github.com/shaledb/shale/conf"
	"github.com/shaledb/shale/metadata"
)

// ErrClosed is returned by operations on a closed Store.
var ErrClosed = errors.New("store: closed")

// ErrWrite wraps every error RocksDB returns for a write: the disk is full,
// read-only or failing. RocksDB then refuses all writes until the process
// restarts; reads go on working, and no acknowledged write is lost.
var ErrWrite = errors.New("store: write failed")

// Store is an open Shale database.
type Store struct {
	cfg  conf.Config
	log  zerolog.Logger
	db   *grocksdb.DB
	cfs  [numCFs]*grocksdb.ColumnFamilyHandle
	opts *rocksOptions
	ro   *grocksdb.ReadOptions
	wo   *grocksdb.WriteOptions
	gc   *compaction.GC

	uids     uidAllocator
	locks    keyLocks
	edges    walkEdges // where walked ranges' live records begin and end (edges.go)
	counters *counters
	dbs      dbMap
	reclaim  *reclaimer
	full     *fullCompactor
	caches   [len(cachedCFs)]*recordCache // nil when sized 0 (storage.*_cache_bytes)
	writes   writeQueue
	waits    waitStats      // queue and key-lock waits (waits.go)
	ov       overlay        // queued writes of early groups (overlay.go)
	cfIDs    [numCFs]uint32 // RocksDB's ids of the column families
	// walReaders are the open readers of the write-ahead log
	// (replication.go).
	walReaders walReaderSet
	readOnly   atomic.Bool // a replica's (SetReadOnly)
	written    writeSignal // wakes log readers (Written)

	// manual is held for reading by operations that use the DB from a
	// goroutine the store does not own (manual compactions, checkpoints);
	// Close cancels manual compactions, then takes it to wait for them.
	manual    sync.RWMutex
	closing   bool // guarded by manual
	closeOnce sync.Once
	closed    chan struct{}
}

// Open opens (or creates) the database in cfg.Storage.Dir.
func Open(cfg conf.Config, log zerolog.Logger) (*Store, error) {
	log = log.With().Str("component", "store").Logger()
	if err := os.MkdirAll(cfg.Storage.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("store: create dir: %w", err)
	}
	if err := RecoverReinstall(cfg.Storage.Dir); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	s := &Store{
		cfg:    cfg,
		log:    log,
		gc:     compaction.NewGC(log.With().Str("component", "compaction").Logger()),
		closed: make(chan struct{}),
	}
	s.walReaders.m = make(map[*WALReader]struct{})
	s.ov.landedCond = sync.NewCond(&s.ov.landedMu)
	if err := s.open(); err != nil {
		return nil, err
	}
	log.Info().Str("dir", cfg.Storage.Dir).Msg("store opened")
	if RocksDBHasAssertions() {
		log.Warn().Str("build", releaseBuildHint).Msg("this RocksDB library has its assertions compiled in (Debian's librocksdb), which makes plain commands 1.3 to 1.8 times slower; build and link the release library")
	}
	return s, nil
}

// open opens the database in s.cfg.Storage.Dir and starts the background
// work: Open's, and Reinstall's once the new files are in place.
func (s *Store) open() error {
	cfg := s.cfg
	opts, err := buildOptions(cfg, s.gc)
	if err != nil {
		return err
	}
	names := cfNames[:]
	db, handles, err := grocksdb.OpenDbColumnFamilies(opts.db, cfg.Storage.Dir, names, opts.cfs[:])
	if err != nil {
		opts.destroy()
		return fmt.Errorf("store: open %s: %w", cfg.Storage.Dir, err)
	}
	s.db, s.opts = db, opts
	s.ro, s.wo = grocksdb.NewDefaultReadOptions(), grocksdb.NewDefaultWriteOptions()
	s.caches[cacheSlot(CFMeta)] = newRecordCache(int64(cfg.Storage.MetadataCacheBytes), metadata.HeadLen)
	s.caches[cacheSlot(CFSubkey)] = newSubkeyCache(int64(cfg.Storage.SubkeyCacheBytes))
	copy(s.cfs[:], handles)
	for i, h := range handles {
		s.cfIDs[i] = h.ID()
	}
	s.wo.SetSync(cfg.Storage.SyncWrites)

	if err := s.checkFormat(); err != nil {
		s.closeHandles()
		return err
	}
	if err := s.uids.load(s); err != nil {
		s.closeHandles()
		return err
	}
	if err := loadDBMap(s, cfg.Server.Databases); err != nil {
		s.closeHandles()
		return err
	}
	if s.counters, err = loadCounters(s, s.mappedDatabases()); err != nil {
		s.closeHandles()
		return err
	}
	s.reclaim = newReclaimer(s, cfg.Compaction)
	s.full = newFullCompactor(s, cfg.Compaction)
	s.gc.Publish(s)
	go s.reclaim.run()
	go s.full.run()
	return nil
}

// checkFormat writes the format version into a new database, upgrades one
// of a format this build reads as it is (metadata.UpgradableFormat), and
// refuses any other: the upgrade is the version write alone, after which
// older builds refuse the database rather than misread its new records.
func (s *Store) checkFormat() error {
	raw, ok, err := s.Get(CFDefault, metadata.KeyFormatVersion)
	if err != nil {
		return err
	}
	current := metadata.EncodeU32(nil, metadata.FormatVersion)
	if !ok {
		return s.db.PutCF(s.wo, s.cfs[CFDefault], metadata.KeyFormatVersion, current)
	}
	v, err := metadata.DecodeU32(raw)
	switch {
	case err == nil && v == metadata.FormatVersion:
		return nil
	case err == nil && metadata.UpgradableFormat(v):
		s.log.Info().Uint32("from", v).Uint32("to", metadata.FormatVersion).Msg("upgrading the data format")
		return s.db.PutCF(s.wo, s.cfs[CFDefault], metadata.KeyFormatVersion, current)
	}
	return fmt.Errorf("store: data format %x is not %d; this build cannot read it", raw, metadata.FormatVersion)
}

// Close stops background work, flushes the memtables and closes the
// database. It is safe to call more than once.
func (s *Store) Close() error {
	var err error
	s.closeOnce.Do(func() {
		close(s.closed)
		close(s.full.stopc)
		// Cancel the manual compactions under way (the scheduled full one,
		// the reclaimer's, COMPACT's) and wait for their callers to leave.
		s.db.DisableManualCompaction()
		s.manual.Lock()
		s.closing = true
		s.manual.Unlock()
		<-s.full.done
		s.reclaim.stop()
		s.closeWALReaders()
		err = s.Flush()
		s.gc.Publish(nil)
		s.db.CancelAllBackgroundWork(true)
		s.closeHandles()
		for _, c := range s.caches {
			c.close()
		}
		s.log.Info().Msg("store closed")
	})
	return err
}

func (s *Store) closeHandles() {
	for _, h := range s.cfs {
		h.Destroy()
	}
	s.db.Close()
	s.ro.Destroy()
	s.wo.Destroy()
	s.opts.destroy()
}

// Databases is the number of logical databases (SELECT range).
func (s *Store) Databases() int { return s.cfg.Server.Databases }

// Get reads one record, through the column family's cache when it has one
// (see recordCache). The value is a copy in Go memory.
func (s *Store) Get(cf CF, key []byte) ([]byte, bool, error) {
	val, _, found, err := s.read(cf, key, false)
	return val, found, err
}

// GetHead is Get for a reader that needs only the head of key's record
// (metadata.HeadLen), which the record cache may hold alone for a record
// too long to cache whole. whole says whether val is the whole record.
func (s *Store) GetHead(cf CF, key []byte) (val []byte, whole, found bool, err error) {
	return s.read(cf, key, true)
}

// read is Get, or GetHead with head set: the cache, else RocksDB, whose
// answer fills the cache.
func (s *Store) read(cf CF, key []byte, head bool) (val []byte, whole, found bool, err error) {
	c := s.cache(cf)
	if c == nil {
		val, found, err = s.get(s.ro, cf, key)
		return val, true, found, err
	}
	val, found, known, cut, epoch := c.lookup(key, head)
	if known {
		return val, !cut, found, nil
	}
	val, found, err = s.get(s.ro, cf, key)
	if err == nil {
		c.fill(key, val, found, epoch)
	}
	return val, true, found, err
}

// peekCached calls fn with key's record in cf when cf's record cache holds
// it, without reading RocksDB, and says whether it did; fn runs under the
// cache's lock and must copy what it keeps. The cache holds the newest
// state, so a caller that needs it to agree with other reads holds the
// key's lock, as for Get.
func (s *Store) peekCached(cf CF, key []byte, fn func(val []byte)) bool {
	c := s.cache(cf)
	return c != nil && c.peek(key, fn)
}

// PeekList calls fn with the elements of list uid at indexes [from, to),
// the first one on (reverse: the last one down), as long as the sub-key
// cache holds them, without reading RocksDB, and returns how many it
// served. fn runs under the cache's lock and must copy what it keeps. As
// for Get, the caller holds the list's lock.
func (s *Store) PeekList(uid, from, to uint64, reverse bool, fn func(val []byte)) uint64 {
	c := s.cache(CFSubkey)
	switch {
	case c == nil:
		return 0
	case c.runs != nil:
		return c.runs.peekList(c, uid, from, to, reverse, fn)
	}
	return peekEach(uid, from, to, reverse, func(key []byte) bool { return c.peek(key, fn) })
}

// cache is cf's record cache, or nil.
func (s *Store) cache(cf CF) *recordCache {
	if i := cacheSlot(cf); i >= 0 {
		return s.caches[i]
	}
	return nil
}

// CacheStats returns the counters of cf's record cache (zero when it has
// none).
func (s *Store) CacheStats(cf CF) CacheStats { return s.cache(cf).stats() }

func (s *Store) get(ro *grocksdb.ReadOptions, cf CF, key []byte) ([]byte, bool, error) {
	v, err := s.db.GetPinnedCF(ro, s.cfs[cf], key)
	if err != nil {
		return nil, false, fmt.Errorf("store: get %s: %w", cf, err)
	}
	defer v.Destroy()
	if !v.Exists() {
		return nil, false, nil
	}
	data := v.Data()
	out := make([]byte, len(data))
	copy(out, data)
	return out, true, nil
}

// MultiGet reads many records of one CF at once, through its cache when it
// has one. vals[i] is nil when keys[i] is absent (found[i] tells an empty
// value from a missing one).
func (s *Store) MultiGet(cf CF, keys [][]byte) (vals [][]byte, found []bool, err error) {
	if len(keys) == 0 {
		return nil, nil, nil
	}
	vals, found = make([][]byte, len(keys)), make([]bool, len(keys))
	c := s.cache(cf)
	if c == nil {
		return vals, found, s.multiGet(s.ro, cf, keys, vals, found)
	}
	var missed []int
	var epochs []uint64
	for i, k := range keys {
		v, f, known, epoch := c.get(k)
		if known {
			vals[i], found[i] = v, f
			continue
		}
		missed = append(missed, i)
		epochs = append(epochs, epoch)
	}
	if len(missed) == 0 {
		return vals, found, nil
	}
	mkeys := make([][]byte, len(missed))
	for j, i := range missed {
		mkeys[j] = keys[i]
	}
	mvals, mfound := make([][]byte, len(missed)), make([]bool, len(missed))
	if err := s.multiGet(s.ro, cf, mkeys, mvals, mfound); err != nil {
		return nil, nil, err
	}
	for j, i := range missed {
		vals[i], found[i] = mvals[j], mfound[j]
		c.fill(keys[i], mvals[j], mfound[j], epochs[j])
	}
	return vals, found, nil
}

// multiGet reads keys from RocksDB into vals and found.
func (s *Store) multiGet(ro *grocksdb.ReadOptions, cf CF, keys, vals [][]byte, found []bool) error {
	slices, err := s.db.MultiGetCF(ro, s.cfs[cf], keys...)
	if err != nil {
		return fmt.Errorf("store: multiget %s: %w", cf, err)
	}
	defer slices.Destroy()
	for i, sl := range slices {
		if sl.Exists() {
			found[i] = true
			vals[i] = append([]byte{}, sl.Data()...)
		}
	}
	return nil
}

// boundedReadOptions are read options for an iterator over lower <= key <
// upper; a nil bound is no bound. Destroy them after the iterator.
func boundedReadOptions(lower, upper []byte) *grocksdb.ReadOptions {
	ro := grocksdb.NewDefaultReadOptions()
	if lower != nil {
		ro.SetIterateLowerBound(lower)
	}
	if upper != nil {
		ro.SetIterateUpperBound(upper)
	}
	return ro
}

// Iterate calls fn for each record of cf with lower <= key < upper (upper nil
// means no bound), in key order, or in reverse order when reverse is set,
// until fn returns false. key and val are valid only during the call.
func (s *Store) Iterate(cf CF, lower, upper []byte, reverse bool, fn func(key, val []byte) bool) error {
	ro := boundedReadOptions(lower, upper)
	defer ro.Destroy()
	if err := s.iterate(ro, cf, reverse, fn); err != nil {
		return fmt.Errorf("store: iterate %s: %w", cf, err)
	}
	return nil
}

// iterate is Iterate with the read options given.
func (s *Store) iterate(ro *grocksdb.ReadOptions, cf CF, reverse bool, fn func(key, val []byte) bool) error {
	it := s.db.NewIteratorCF(ro, s.cfs[cf])
	defer it.Close()
	if reverse {
		it.SeekToLast()
	} else {
		it.SeekToFirst()
	}
	batches := newIterBatches(it, reverse)
	defer batches.release()
walk:
	for {
		batch, n := batches.next()
		if n == 0 {
			break
		}
		for range n {
			var k, v []byte
			k, v, batch = iterRecord(batch)
			if !fn(k, v) {
				break walk
			}
		}
	}
	return it.Err()
}

// Owner implements compaction.Reader: bookkeeping[uid] and the metadata it
// names, read from one snapshot.
func (s *Store) Owner(uid uint64) (compaction.Owner, error) {
	var o compaction.Owner
	o.SnapMs = time.Now().UnixMilli()
	o.Replica = s.readOnly.Load()
	snap := s.db.NewSnapshot()
	defer s.db.ReleaseSnapshot(snap)
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	ro.SetSnapshot(snap)

	var keyBuf [8]byte
	book, ok, err := s.get(ro, CFBookkeeping, metadata.AppendBookKey(keyBuf[:0], uid))
	if err != nil || !ok {
		return o, err
	}
	o.BookFound, o.Book = true, book
	mkey, err := compaction.MetaKeyFor(nil, book)
	if err != nil {
		return o, nil // Decide keeps an undecodable bookkeeping record
	}
	o.Meta, o.MetaFound, err = s.get(ro, CFMeta, mkey)
	return o, err
}

// Compact runs a full manual compaction of every column family, through
// compactFiltered, so that every record on disk passes the filters.
//
// It logs the SST bytes before and after and the time it took, and a
// progress line every few seconds while it runs.
func (s *Store) Compact() {
	if !s.beginManual() {
		return
	}
	defer s.endManual()
	opt := newForcedCompactOptions()
	defer opt.Destroy()
	start, before := time.Now(), s.totalSSTBytes()
	var current atomic.Int32 // the CF being compacted, for the progress line
	done := s.trackJob("full compaction", progressEvery, func(e *zerolog.Event) {
		e.Str("cf", CF(current.Load()).String()).Uint64("pending_compaction_bytes", s.pendingCompactionBytes()).
			Uint64("sst_bytes", s.totalSSTBytes())
	})
	s.flushBeforeCompact(AllCFs()...)
	for _, cf := range AllCFs() {
		current.Store(int32(cf))
		s.compactFiltered(cf, nil, nil, opt)
	}
	done()
	s.log.Info().Dur("took", time.Since(start)).Uint64("sst_bytes_before", before).
		Uint64("sst_bytes_after", s.totalSSTBytes()).Msg("full compaction done")
}

// CompactRange flushes one CF and compacts its keys in [lower, upper] (nil:
// unbounded) through compactFiltered.
func (s *Store) CompactRange(cf CF, lower, upper []byte) {
	if !s.beginManual() {
		return
	}
	defer s.endManual()
	opt := newForcedCompactOptions()
	defer opt.Destroy()
	s.flushBeforeCompact(cf)
	s.compactFiltered(cf, lower, upper, opt)
}

// CancelManualCompactions makes the manual compactions under way return
// soon, and later ones return at once: the first step of a shutdown, so that
// a COMPACT command does not hold it up.
func (s *Store) CancelManualCompactions() { s.db.DisableManualCompaction() }

// beginManual admits a manual operation unless the store is closing; a true
// result must be paired with endManual.
func (s *Store) beginManual() bool {
	s.manual.RLock()
	if s.closing {
		s.manual.RUnlock()
		return false
	}
	return true
}

func (s *Store) endManual() { s.manual.RUnlock() }

// CountRecords counts the visible records of a CF by iterating it. It is
// O(records): tests and DEBUG use it to see what compaction left on disk.
func (s *Store) CountRecords(cf CF) (int64, error) {
	var n int64
	err := s.Iterate(cf, nil, nil, false, func(_, _ []byte) bool { n++; return true })
	return n, err
}

// Property returns a RocksDB property of one CF, e.g. "rocksdb.estimate-num-keys",
// as RocksDB writes it; MemoryStats, DBStats and CFStats give the ones INFO
// reports as numbers.
func (s *Store) Property(cf CF, name string) string {
	return s.db.GetPropertyCF(name, s.cfs[cf])
}

// SSTBytes is the total size of the live SST files of a CF.
func (s *Store) SSTBytes(cf CF) uint64 {
	m := s.db.GetColumnFamilyMetadataCF(s.cfs[cf])
	return m.Size()
}

// Flush writes every memtable to SST files and waits for it.
func (s *Store) Flush() error {
	for _, cf := range AllCFs() {
		if err := s.flushCF(cf); err != nil {
			return err
		}
	}
	return nil
}

// flushCF writes one CF's memtables to SST files and waits for it.
func (s *Store) flushCF(cf CF) error {
	fo := grocksdb.NewDefaultFlushOptions()
	defer fo.Destroy()
	fo.SetWait(true)
	if err := s.db.FlushCF(s.cfs[cf], fo); err != nil {
		return fmt.Errorf("store: flush %s: %w", cf, err)
	}
	return nil
}
