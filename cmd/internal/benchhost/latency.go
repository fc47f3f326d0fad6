package benchhost

import (
	"math"
	"math/bits"
	"sync/atomic"
	"time"
)

// Histogram counts latencies, in nanoseconds, in log-linear
// buckets, as HdrHistogram does: each value below histExact has its own
// bucket, and above it every power of two is cut into 1<<histSubBits
// buckets, so that a bucket is at most 1/128 (0.8%) as wide as the values
// in it. That is finer than the run-to-run noise of any latency here, and
// recording is one atomic add: clients may record into one histogram at
// once. Latencies of 2^histMaxBits ns (about 18 minutes)
// or more count in the last bucket.
type Histogram struct {
	counts [histBuckets]atomic.Int64
}

const (
	histSubBits = 7
	histExact   = 1 << (histSubBits + 1) // 256 ns
	histMaxBits = 40
	histBuckets = histExact + (histMaxBits-histSubBits-1)<<histSubBits
)

// bucketOf is the bucket that counts ns.
func bucketOf(ns int64) int {
	switch {
	case ns < 0:
		return 0
	case ns < histExact:
		return int(ns)
	case ns >= 1<<histMaxBits:
		ns = 1<<histMaxBits - 1
	}
	// ns>>shift keeps the top histSubBits+1 bits: a value in [128, 256).
	shift := bits.Len64(uint64(ns)) - histSubBits - 1
	return histExact + (shift-1)<<histSubBits + int(ns>>shift) - 1<<histSubBits
}

// bucketMax is the largest latency bucket i counts: what the histogram
// reports for it, as HdrHistogram reports a bucket's highest equivalent
// value, so that a percentile is never understated.
func bucketMax(i int) time.Duration {
	if i < histExact {
		return time.Duration(i)
	}
	j := i - histExact
	shift := j>>histSubBits + 1
	sub := int64(j&(1<<histSubBits-1)) + 1<<histSubBits
	return time.Duration((sub+1)<<shift - 1)
}

// Record counts one latency.
func (h *Histogram) Record(d time.Duration) { h.counts[bucketOf(int64(d))].Add(1) }

// Counts is a snapshot of Histograms, or their sum.
type Counts struct {
	counts [histBuckets]int64
	total  int64
}

// Add adds h's counts; h may still be recorded into.
func (c *Counts) Add(h *Histogram) {
	if h == nil {
		return
	}
	for i := range h.counts {
		n := h.counts[i].Load()
		c.counts[i] += n
		c.total += n
	}
}

// Merge adds another snapshot's counts.
func (c *Counts) Merge(o *Counts) {
	for i, n := range o.counts {
		c.counts[i] += n
	}
	c.total += o.total
}

// Total is the number of latencies counted.
func (c *Counts) Total() int64 { return c.total }

// Percentile is the smallest bucket maximum with at least p percent of
// the latencies at or below it (RankOf), as bench-compare reads
// redis-benchmark's p99.9; 0 when nothing was recorded.
func (c *Counts) Percentile(p float64) time.Duration {
	if c.total == 0 {
		return 0
	}
	want := RankOf(c.total, p)
	var seen int64
	for i, n := range c.counts {
		if seen += n; seen >= want {
			return bucketMax(i)
		}
	}
	return bucketMax(histBuckets - 1)
}

// RankOf is how many of total values must be at or below the p-th
// percentile: ⌈total·p/100⌉, at least 1. The small slack keeps a product
// such as 3000·0.999, which floating point makes 2997.0000000000005, from
// rounding up to the next value.
func RankOf(total int64, p float64) int64 {
	return max(1, int64(math.Ceil(float64(total)*p/100-1e-6)))
}
