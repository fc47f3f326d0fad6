package store

import (
	"bytes"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shaledb/shale/conf"
)

// fullCompactor runs the scheduled full compaction: once per occurrence of
// compaction.full_window, every column family is compacted one key range at
// a time (bottommost level forced, so the compaction filters see every
// record), pausing between ranges to keep to full_max_bytes_per_sec. It
// stops between ranges when the store closes, and Close cancels the range
// under way with DisableManualCompaction.
type fullCompactor struct {
	s       *Store
	mu      sync.Mutex
	window  conf.Window
	rate    conf.ByteSize // SST bytes per second; 0 = no pacing
	lastRun time.Time     // start of the window occurrence last run
	running atomic.Bool
	runs    atomic.Int64 // completed runs
	stopc   chan struct{}
	done    chan struct{}
}

// fullCompactionCheck is how often the schedule is looked at.
const fullCompactionCheck = time.Second

func newFullCompactor(s *Store, c conf.Compaction) *fullCompactor {
	w, _ := conf.ParseWindow(c.FullWindow) // Validate has checked it
	return &fullCompactor{s: s, window: w, rate: c.FullMaxBytesPerSec,
		stopc: make(chan struct{}), done: make(chan struct{})}
}

// SetFullCompaction changes the window and the pacing; a run under way
// keeps its window but paces at the new rate from its next range.
func (s *Store) SetFullCompaction(window conf.Window, rate conf.ByteSize) {
	f := s.full
	f.mu.Lock()
	f.window, f.rate = window, rate
	f.mu.Unlock()
}

// FullCompactionRunning reports whether the scheduled full compaction is
// running, and how many runs have completed.
func (s *Store) FullCompactionRunning() (running bool, runs int64) {
	return s.full.running.Load(), s.full.runs.Load()
}

func (f *fullCompactor) run() {
	defer close(f.done)
	t := time.NewTicker(fullCompactionCheck)
	defer t.Stop()
	for {
		f.mu.Lock()
		start, open := f.window.Opened(time.Now())
		due := open && !start.Equal(f.lastRun)
		if due {
			f.lastRun = start
		}
		window := f.window
		f.mu.Unlock()
		if due {
			f.compactAll(window)
		}
		select {
		case <-f.stopc:
			return
		case <-t.C:
		}
	}
}

func (f *fullCompactor) stopped() bool {
	select {
	case <-f.stopc:
		return true
	default:
		return false
	}
}

// keyRange is one range of a CF to compact, both ends inclusive, nil
// meaning open; bytes is the size of the SST files it was cut for.
type keyRange struct {
	cf         CF
	start, end []byte
	bytes      uint64
}

// rangesOf cuts a CF into ranges of about chunk bytes each, at the largest
// keys of its SST files.
func (s *Store) rangesOf(cf CF, chunk uint64) []keyRange {
	meta := s.db.GetColumnFamilyMetadataCF(s.cfs[cf])
	type file struct {
		largest []byte
		size    uint64
	}
	var files []file
	for _, l := range meta.LevelMetas() {
		for _, f := range l.SstMetas() {
			files = append(files, file{f.LargestKey(), f.Size()})
		}
	}
	if len(files) == 0 {
		return nil
	}
	slices.SortFunc(files, func(a, b file) int { return bytes.Compare(a.largest, b.largest) })
	var out []keyRange
	var start []byte
	var acc uint64
	for i, f := range files {
		acc += f.size
		if acc >= chunk && i < len(files)-1 {
			out = append(out, keyRange{cf, start, f.largest, acc})
			start, acc = f.largest, 0
		}
	}
	return append(out, keyRange{cf, start, nil, acc})
}

// compactAll is one run over every CF.
func (f *fullCompactor) compactAll(window conf.Window) {
	log := f.s.log.With().Str("job", "full-compaction").Logger()
	if !f.s.beginManual() {
		return
	}
	defer f.s.endManual()
	f.running.Store(true)
	defer f.running.Store(false)

	f.mu.Lock()
	rate := f.rate
	f.mu.Unlock()
	chunk := uint64(256 * conf.MiB)
	if rate > 0 {
		chunk = min(chunk, max(uint64(rate), uint64(conf.MiB))) // about a second's worth
	}
	// One flush for the whole run: what is written after it is newer than
	// the run, and a flush per range would only make small L0 files.
	f.s.flushBeforeCompact(AllCFs()...)
	var ranges []keyRange
	var total uint64
	for _, cf := range AllCFs() {
		rs := f.s.rangesOf(cf, chunk)
		for _, r := range rs {
			total += r.bytes
		}
		ranges = append(ranges, rs...)
	}
	start := time.Now()
	log.Info().Str("window", window.String()).Int("ranges", len(ranges)).Uint64("sst_bytes", total).
		Str("max_bytes_per_sec", rate.String()).Msg("full compaction started")

	opt := newForcedCompactOptions()
	defer opt.Destroy()
	var done uint64
	lastLog := start
	for i, r := range ranges {
		if f.stopped() {
			log.Info().Int("ranges_done", i).Int("ranges", len(ranges)).Dur("took", time.Since(start)).
				Msg("full compaction cancelled")
			return
		}
		f.s.compactFiltered(r.cf, r.start, r.end, opt)
		done += r.bytes
		if time.Since(lastLog) >= progressEvery {
			lastLog = time.Now()
			log.Info().Str("cf", r.cf.String()).Int("ranges_done", i+1).Int("ranges", len(ranges)).
				Uint64("bytes_done", done).Uint64("sst_bytes", total).Dur("elapsed", time.Since(start)).
				Msg("full compaction progress")
		}
		f.mu.Lock()
		rate = f.rate
		f.mu.Unlock()
		if rate > 0 && i < len(ranges)-1 {
			due := start.Add(time.Duration(float64(done) / float64(rate) * float64(time.Second)))
			if wait := time.Until(due); wait > 0 {
				select {
				case <-f.stopc:
				case <-time.After(wait):
				}
			}
		}
	}
	if f.stopped() {
		log.Info().Int("ranges", len(ranges)).Dur("took", time.Since(start)).Msg("full compaction cancelled")
		return
	}
	f.runs.Add(1)
	after := uint64(0)
	for _, cf := range AllCFs() {
		after += f.s.SSTBytes(cf)
	}
	log.Info().Dur("took", time.Since(start)).Uint64("sst_bytes_before", total).Uint64("sst_bytes_after", after).
		Msg("full compaction done")
}
