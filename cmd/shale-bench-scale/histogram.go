package main

import (
	"math/bits"
	"time"
)

// histogram counts latencies in log-linear buckets, as HdrHistogram does
// with two significant digits: values below 128 ns have a bucket each, and
// every power of two above is split into 64 buckets, so a bucket's bounds
// differ by at most 1/64 (1.6%). Recording is a few instructions and
// allocates nothing; each client keeps its own and they are merged at the
// end.
type histogram struct {
	counts [histBuckets]uint64
	total  uint64
}

const (
	histExact   = 128 // values below it have their own bucket
	histSub     = 64  // buckets per power of two above it
	histBuckets = histExact + (64-7)*histSub
)

// bucketOf returns the bucket of a value in nanoseconds.
func bucketOf(v uint64) int {
	if v < histExact {
		return int(v)
	}
	shift := bits.Len64(v) - 7 // v>>shift is in [64, 128)
	return histExact + (shift-1)*histSub + int(v>>shift) - histSub
}

// bucketMax is the largest value of bucket i: a quantile is reported as its
// bucket's upper bound, never below the true value.
func bucketMax(i int) uint64 {
	if i < histExact {
		return uint64(i)
	}
	shift := (i-histExact)/histSub + 1
	top := uint64((i-histExact)%histSub + histSub)
	return (top+1)<<shift - 1
}

func (h *histogram) Record(d time.Duration) {
	if d < 0 {
		d = 0
	}
	h.counts[bucketOf(uint64(d))]++
	h.total++
}

func (h *histogram) Merge(o *histogram) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.total += o.total
}

// Count is the number of values recorded.
func (h *histogram) Count() uint64 { return h.total }

// Quantile returns the value at quantile q (0.99 for p99): the upper bound
// of the bucket holding the ceil(q × count)-th smallest value; 0 when empty.
func (h *histogram) Quantile(q float64) time.Duration {
	if h.total == 0 {
		return 0
	}
	rank := uint64(q*float64(h.total) + 0.999999)
	rank = min(max(rank, 1), h.total)
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			return time.Duration(bucketMax(i))
		}
	}
	return time.Duration(bucketMax(histBuckets - 1))
}
