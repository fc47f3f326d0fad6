package store

import (
	"bytes"

	"github.com/linxGnu/grocksdb"
)

// maxRecompactRounds bounds how often compactFiltered goes back over files
// that escaped a round; one extra round is what a race needs in practice.
const maxRecompactRounds = 3

// newForcedCompactOptions returns the options of every manual compaction:
// the bottommost level is rewritten too, so that every record passes the
// compaction filter (a plain CompactRange could be a trivial move, which
// rewrites, and so filters, nothing). Automatic compactions may run beside
// it. The caller destroys the options.
func newForcedCompactOptions() *grocksdb.CompactRangeOptions {
	opt := grocksdb.NewCompactRangeOptions()
	opt.SetBottommostLevelCompaction(grocksdb.KForce)
	opt.SetExclusiveManualCompaction(false)
	return opt
}

// compactFiltered compacts the keys of cf in [lower, upper] (nil: unbounded)
// so that every record there when it is called passes the CF's compaction
// filter.
//
// One CompactRange does not promise that. RocksDB chooses the levels to
// compact when the call begins. An automatic compaction may then move a file
// one level down without rewriting it (a trivial move, which runs no filter),
// to a level the manual compaction has already passed or will not visit: the
// L0 file that CompactRange's own flush adds is enough to start one. The
// model test caught a dead zset's score record surviving COMPACT that way.
// A moved file keeps its number, and every file the manual compaction reads
// is replaced, so a file that was live before the call and still is after
// it has escaped: compactFiltered compacts the escaped files' key span
// again, up to maxRecompactRounds times.
//
// Records still in a memtable are covered only if the caller flushed first
// (flushBeforeCompact): CompactRange's own flush makes a file that is not in
// the "before" list, and that file may escape in the same way.
func (s *Store) compactFiltered(cf CF, lower, upper []byte, opt *grocksdb.CompactRangeOptions) {
	before := s.filesIn(cf, lower, upper)
	s.db.CompactRangeCFOpt(s.cfs[cf], grocksdb.Range{Start: lower, Limit: upper}, opt)
	for range maxRecompactRounds {
		escaped := s.filesIn(cf, lower, upper)
		for name := range escaped {
			if _, was := before[name]; !was {
				delete(escaped, name)
			}
		}
		if len(escaped) == 0 || s.isClosing() {
			return
		}
		var first, last []byte
		for _, f := range escaped {
			if first == nil || bytes.Compare(f.smallest, first) < 0 {
				first = f.smallest
			}
			if last == nil || bytes.Compare(f.largest, last) > 0 {
				last = f.largest
			}
		}
		s.log.Debug().Str("cf", cf.String()).Int("files", len(escaped)).
			Msg("files moved past a manual compaction without being filtered; compacting them again")
		s.db.CompactRangeCFOpt(s.cfs[cf], grocksdb.Range{Start: first, Limit: last}, opt)
	}
}

// flushBeforeCompact flushes the memtables of cfs before a compactFiltered
// over them. A failure is logged and the compaction goes on: it then covers
// what is on disk.
func (s *Store) flushBeforeCompact(cfs ...CF) {
	for _, cf := range cfs {
		if err := s.flushCF(cf); err != nil {
			s.log.Warn().Err(err).Str("cf", cf.String()).Msg("flush before manual compaction failed")
		}
	}
}

// sstSpan is the key span of one SST file.
type sstSpan struct{ smallest, largest []byte }

// filesIn returns the live SST files of cf whose keys overlap [lower, upper]
// (nil: unbounded), by file name.
func (s *Store) filesIn(cf CF, lower, upper []byte) map[string]sstSpan {
	files := make(map[string]sstSpan)
	for _, f := range s.db.GetLiveFilesMetaData() {
		if f.ColumnFamilyName != cf.String() {
			continue
		}
		if (upper != nil && bytes.Compare(f.SmallestKey, upper) > 0) ||
			(lower != nil && bytes.Compare(f.LargestKey, lower) < 0) {
			continue
		}
		files[f.Name] = sstSpan{f.SmallestKey, f.LargestKey}
	}
	return files
}

// isClosing reports whether Close has begun; it cancels manual compactions,
// which then leave files behind on purpose.
func (s *Store) isClosing() bool {
	select {
	case <-s.closed:
		return true
	default:
		return false
	}
}
