package store

import (
	"math"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/shaledb/shale/conf"
	"github.com/shaledb/shale/subkey"
)

// reclaimer compacts exactly the key range of each big removed composite key
// in the subkey and score CFs, so its disk space comes back within seconds
// instead of whenever RocksDB's own compactions reach those files. It runs on
// one goroutine, rate-limited, and never holds a key lock.
type reclaimer struct {
	s           *Store
	queue       chan reclaimItem
	delay       time.Duration
	minElements atomic.Int64
	rateBits    atomic.Uint64 // float64 bits: compactions per second
	compactions atomic.Uint64
	overflows   atomic.Uint64
	running     atomic.Bool        // a targeted compaction runs now
	freedBytes  atomic.Uint64      // SST bytes the targeted compactions freed
	now         chan chan struct{} // ReclaimNow's requests; closed reply = done
	stopc       chan struct{}
	done        chan struct{}
}

type reclaimItem struct {
	uid uint64
	at  time.Time
}

func newReclaimer(s *Store, cfg conf.Compaction) *reclaimer {
	r := &reclaimer{
		s:     s,
		queue: make(chan reclaimItem, cfg.ReclaimQueueLength),
		delay: cfg.ReclaimDelay.Duration,
		now:   make(chan chan struct{}),
		stopc: make(chan struct{}),
		done:  make(chan struct{}),
	}
	r.minElements.Store(cfg.ReclaimMinElements)
	r.rateBits.Store(math.Float64bits(cfg.ReclaimMaxPerSecond))
	return r
}

func (r *reclaimer) enqueue(uid uint64) {
	select {
	case r.queue <- reclaimItem{uid, time.Now()}:
	default:
		// Normal compactions still reclaim the uid's records, only later.
		r.overflows.Add(1)
		r.s.log.Warn().Uint64("uid", uid).Msg("reclaim queue full, leaving uid to background compaction")
	}
}

func (r *reclaimer) run() {
	defer close(r.done)
	var last time.Time
	for {
		var it reclaimItem
		select {
		case <-r.stopc:
			return
		case reply := <-r.now:
			r.drain()
			close(reply)
			continue
		case it = <-r.queue:
		}
		wait := time.Until(it.at.Add(r.delay))
		if gap := time.Duration(float64(time.Second)/math.Float64frombits(r.rateBits.Load())) - time.Since(last); gap > wait {
			wait = gap
		}
		if wait > 0 {
			select {
			case <-r.stopc:
				return
			case <-time.After(wait):
			case reply := <-r.now:
				// The item already taken off the queue is part of "now".
				r.reclaim(it)
				r.drain()
				close(reply)
				last = time.Now()
				continue
			}
		}
		r.reclaim(it)
		last = time.Now()
	}
}

// drain reclaims every queued uid at once, without the delay or the rate
// limit.
func (r *reclaimer) drain() {
	for {
		select {
		case it := <-r.queue:
			r.reclaim(it)
		default:
			return
		}
	}
}

// ReclaimNow runs the targeted compaction of every uid queued so far,
// ignoring the delay and the rate limit, and returns when they are done (or
// at once when the store is closing). Tests use it, through DEBUG RECLAIM,
// to see the reclaimer's effect at a chosen moment.
func (s *Store) ReclaimNow() {
	reply := make(chan struct{})
	select {
	case s.reclaim.now <- reply:
	case <-s.reclaim.done:
		return
	}
	select {
	case <-reply:
	case <-s.reclaim.done:
	}
}

// reclaim compacts one uid's range and logs what it freed.
func (r *reclaimer) reclaim(it reclaimItem) {
	lower := subkey.AppendPrefix(nil, it.uid)
	upper := subkey.AppendUpperBound(nil, it.uid)
	sst := func() uint64 { return r.s.SSTBytes(CFSubkey) + r.s.SSTBytes(CFScore) }
	start, before := time.Now(), sst()
	r.running.Store(true)
	done := r.s.trackJob("reclaim", progressEvery, func(e *zerolog.Event) {
		e.Uint64("uid", it.uid).Uint64("sst_bytes", sst())
	})
	r.s.CompactRange(CFSubkey, lower, upper)
	r.s.CompactRange(CFScore, lower, upper)
	done()
	r.running.Store(false)
	after := sst()
	if before > after {
		r.freedBytes.Add(before - after)
	}
	r.compactions.Add(1)
	r.s.log.Info().Uint64("uid", it.uid).Dur("took", time.Since(start)).Dur("queued", start.Sub(it.at)).
		Uint64("sst_bytes_before", before).Uint64("sst_bytes_after", after).Msg("reclaimed removed key")
}

func (r *reclaimer) stop() {
	close(r.stopc)
	<-r.done
}

// ReclaimStats is what INFO reports about the reclaimer.
type ReclaimStats struct {
	QueueLength int    // uids waiting for their compaction
	Compactions uint64 // targeted range compactions run
	Overflows   uint64 // uids not queued because the queue was full
	Running     bool   // a targeted compaction runs now
	FreedBytes  uint64 // SST bytes freed by the targeted compactions (the subkey and score CFs' size before minus after)
}

// ReclaimStats returns the reclaimer's counters.
func (s *Store) ReclaimStats() ReclaimStats {
	return ReclaimStats{
		QueueLength: len(s.reclaim.queue),
		Compactions: s.reclaim.compactions.Load(),
		Overflows:   s.reclaim.overflows.Load(),
		Running:     s.reclaim.running.Load(),
		FreedBytes:  s.reclaim.freedBytes.Load(),
	}
}

// ReclaimMinElements is the size from which a removed key is queued for a
// targeted compaction.
func (s *Store) ReclaimMinElements() int64 { return s.reclaim.minElements.Load() }

// SetReclaimMinElements changes ReclaimMinElements at runtime (CONFIG SET).
func (s *Store) SetReclaimMinElements(n int64) { s.reclaim.minElements.Store(n) }

// SetReclaimMaxPerSecond changes the reclaimer's rate at runtime (CONFIG SET).
func (s *Store) SetReclaimMaxPerSecond(rate float64) {
	s.reclaim.rateBits.Store(math.Float64bits(rate))
}
