package main

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestBuckets checks that every value lands in a bucket whose upper bound is
// at least the value and at most 1/64 above it, and that buckets are in
// order.
func TestBuckets(t *testing.T) {
	values := []uint64{0, 1, 127, 128, 129, 255, 256, 1000, 1e6, 1e9, 1<<63 - 1, 1<<64 - 1}
	r := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		values = append(values, r.Uint64()>>r.IntN(64))
	}
	for _, v := range values {
		i := bucketOf(v)
		if i < 0 || i >= histBuckets {
			t.Fatalf("bucketOf(%d) = %d, outside [0, %d)", v, i, histBuckets)
		}
		hi := bucketMax(i)
		if hi < v || float64(hi-v) > float64(v)/64+1 {
			t.Fatalf("value %d: bucket %d's upper bound %d", v, i, hi)
		}
		if i > 0 && bucketMax(i-1) >= v {
			t.Fatalf("value %d: the bucket below, %d, reaches %d", v, i-1, bucketMax(i-1))
		}
	}
}

// TestQuantile compares the histogram's quantiles with exact ones of the
// same samples.
func TestQuantile(t *testing.T) {
	var h histogram
	if h.Quantile(0.99) != 0 {
		t.Fatal("empty histogram: want 0")
	}
	r := rand.New(rand.NewPCG(3, 4))
	samples := make([]time.Duration, 100000)
	for i := range samples {
		// Log-normal-ish: mostly around a millisecond, a tail to 100 ms.
		samples[i] = time.Duration(float64(time.Millisecond) * r.ExpFloat64() * r.ExpFloat64())
		h.Record(samples[i])
	}
	slices.Sort(samples)
	for _, q := range []float64{0.5, 0.99, 0.999, 1} {
		exact := samples[int(q*float64(len(samples)))-1]
		got := h.Quantile(q)
		if got < exact || float64(got-exact) > float64(exact)/64+1 {
			t.Errorf("q %v: got %v, exact %v", q, got, exact)
		}
	}
	var merged histogram
	merged.Merge(&h)
	merged.Merge(&h)
	if merged.Count() != 2*h.Count() || merged.Quantile(0.99) != h.Quantile(0.99) {
		t.Errorf("merging a histogram with itself: count %d, p99 %v; want %d, %v",
			merged.Count(), merged.Quantile(0.99), 2*h.Count(), h.Quantile(0.99))
	}
}
