package store

import (
	"math"
	"math/bits"
	"sync/atomic"
	"time"
)

// Wait figures: how long commands wait for others rather than work. A
// write waits in the write queue for the batches ahead of it (writeQueue),
// and a command waits for the key-lock stripes another command holds
// (Store.Lock, and a Group's locks). Both are candidates for the tail
// latency of a request whose median is far lower, so they are measured,
// not guessed: INFO latency and /metrics report them from WaitStats.

// durationHist counts durations in log-linear buckets of microseconds:
// every power of two is cut into histSubBuckets equal parts, so a bucket is
// at most a quarter of its lower bound wide, from 1µs to 2^histTopBits µs
// (about 16.8 s); a last bucket holds anything slower. observe is two
// atomic adds and no lock, cheap enough for every command. The zero value
// is empty and ready.
type durationHist struct {
	counts [histBuckets]atomic.Uint64
	sumNs  atomic.Uint64
}

const (
	histSubBits    = 2
	histSubBuckets = 1 << histSubBits
	histTopBits    = 24 // durations of 2^24 µs and more share the last bucket
	// histBuckets: values below 2^(histSubBits+1) µs have a bucket each
	// (as many as histSubBuckets per bit length), each further bit length
	// up to histTopBits has histSubBuckets, and the overflow bucket is last.
	histBuckets = (histTopBits-histSubBits+1)*histSubBuckets + 1
)

// histIndex is the bucket of a duration of us microseconds.
func histIndex(us uint64) int {
	if us < 2*histSubBuckets {
		return int(us)
	}
	n := bits.Len64(us)
	if n > histTopBits {
		return histBuckets - 1
	}
	shift := n - histSubBits - 1
	return (n-histSubBits)*histSubBuckets + int(us>>shift)&(histSubBuckets-1)
}

// histLower is the lower bound, in microseconds, of bucket i; histLower of
// histBuckets-1 is the overflow bucket's.
func histLower(i int) uint64 {
	if i < 2*histSubBuckets {
		return uint64(i)
	}
	n := i/histSubBuckets + histSubBits
	sub := uint64(i % histSubBuckets)
	return (histSubBuckets + sub) << (n - histSubBits - 1)
}

func (h *durationHist) observe(d time.Duration) {
	if d < 0 {
		d = 0
	}
	h.counts[histIndex(uint64(d/time.Microsecond))].Add(1)
	h.sumNs.Add(uint64(d))
}

// snapshot copies the counts. A snapshot taken while observe runs may
// miss a duration's count or sum, never more than the ones in flight.
func (h *durationHist) snapshot() Histogram {
	s := Histogram{
		Counts: make([]uint64, histBuckets),
		Bounds: make([]float64, histBuckets+1),
		Sum:    time.Duration(h.sumNs.Load()).Seconds(),
	}
	for i := range s.Counts {
		s.Counts[i] = h.counts[i].Load()
		s.Bounds[i] = float64(histLower(i)) / 1e6
	}
	s.Bounds[histBuckets] = math.Inf(1)
	return s
}

// waitStats are the Store's wait histograms.
type waitStats struct {
	queue durationHist // a batch's time from Store.Write's entry until its write landed
	lock  durationHist // a key-lock acquisition that found a lock busy, until it held them all
}

// lockWait times a lock acquisition from the moment a lock is found busy,
// so that an acquisition that never waits costs no clock reads. The zero
// value has not waited.
type lockWait struct{ since time.Time }

// busy marks that a lock is busy and the caller will wait for it.
func (w *lockWait) busy() {
	if w.since.IsZero() {
		w.since = time.Now()
	}
}

// done records the wait, if there was one, in h.
func (w *lockWait) done(h *durationHist) {
	if !w.since.IsZero() {
		h.observe(time.Since(w.since))
	}
}

// WaitStats are the Store's wait figures since it opened.
type WaitStats struct {
	// Queue is each write's wait in the write queue: from Store.Write's
	// entry until its (possibly joined) write landed, the write included.
	Queue Histogram
	// KeyLock is each key-lock acquisition (Store.Lock, a Group's) that
	// found a stripe, or the world lock, busy: from then until it held
	// them all. Locks taken without waiting are not counted.
	KeyLock Histogram
	// QueueWrites is the DB.Write calls the write queue made, each for
	// one batch or several joined: Queue's count over it is the batches
	// a write carried on average.
	QueueWrites uint64
}

// WaitStats returns the wait histograms.
func (s *Store) WaitStats() WaitStats {
	return WaitStats{Queue: s.waits.queue.snapshot(), KeyLock: s.waits.lock.snapshot(), QueueWrites: s.writes.writes.Load()}
}

// Histogram is a snapshot of a histogram of durations in seconds, in the
// layout of runtime/metrics.Float64Histogram, so that the Go runtime's
// histograms read as these do: Counts[i] values fell in [Bounds[i],
// Bounds[i+1]). The first bound may be -Inf and the last +Inf.
type Histogram struct {
	Counts []uint64
	Bounds []float64 // seconds; len(Counts)+1 of them, increasing
	Sum    float64   // seconds; the exact total, or 0 when unknown
}

// Count is the number of values in the histogram.
func (h Histogram) Count() uint64 {
	var n uint64
	for _, c := range h.Counts {
		n += c
	}
	return n
}

// Quantile estimates the q-quantile (0 < q <= 1) in seconds, interpolating
// linearly within the bucket that holds it; a bucket with an infinite end
// gives its finite one. It is 0 for an empty histogram.
func (h Histogram) Quantile(q float64) float64 {
	total := h.Count()
	if total == 0 {
		return 0
	}
	rank := q * float64(total) // the rank-th smallest value, 1-based
	var below uint64
	for i, c := range h.Counts {
		if c == 0 || float64(below+c) < rank {
			below += c
			continue
		}
		lo, hi := h.Bounds[i], h.Bounds[i+1]
		switch {
		case math.IsInf(lo, -1):
			return hi
		case math.IsInf(hi, 1):
			return lo
		}
		return lo + (hi-lo)*(rank-float64(below))/float64(c)
	}
	return h.Max() // rounding: rank is a hair above total
}

// Max is the upper bound of the highest non-empty bucket (its lower bound
// when the upper is +Inf), in seconds: no value was larger, except in an
// unbounded last bucket. It is 0 for an empty histogram.
func (h Histogram) Max() float64 {
	for i := len(h.Counts) - 1; i >= 0; i-- {
		if h.Counts[i] == 0 {
			continue
		}
		if math.IsInf(h.Bounds[i+1], 1) {
			return h.Bounds[i]
		}
		return h.Bounds[i+1]
	}
	return 0
}

// Cumulative gives, for each upper bound in les (seconds, increasing), the
// number of values in buckets that end at or below it, as a Prometheus
// histogram's buckets count them. A bucket that straddles a bound counts
// under the next one: with fine buckets the error is small, and it errs
// towards slower.
func (h Histogram) Cumulative(les []float64) []uint64 {
	out := make([]uint64, len(les))
	var cum uint64
	j := 0
	for i, c := range h.Counts {
		for j < len(les) && h.Bounds[i+1] > les[j] {
			out[j] = cum
			j++
		}
		cum += c
	}
	for ; j < len(les); j++ {
		out[j] = cum
	}
	return out
}
