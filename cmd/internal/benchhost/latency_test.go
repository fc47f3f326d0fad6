package benchhost

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestBucketBounds checks that every value lands in a bucket that holds
// it, that buckets are contiguous, and that none is wider than 1/128 of
// its values.
func TestBucketBounds(t *testing.T) {
	values := []int64{0, 1, 255, 256, 257, 511, 512, 1000, 123456, 1 << 30, 1<<histMaxBits - 1}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		values = append(values, rng.Int64N(1<<histMaxBits))
	}
	for _, v := range values {
		i := bucketOf(v)
		if i < 0 || i >= histBuckets {
			t.Fatalf("bucketOf(%d) = %d, outside [0, %d)", v, i, histBuckets)
		}
		hi := int64(bucketMax(i))
		lo := int64(-1)
		if i > 0 {
			lo = int64(bucketMax(i - 1))
		}
		if v > hi || v <= lo {
			t.Fatalf("bucketOf(%d) = %d, which holds (%d, %d]", v, i, lo, hi)
		}
		if width := hi - lo; v >= histExact && float64(width) > float64(v)/128 {
			t.Fatalf("bucket %d of %d is %d wide", i, v, width)
		}
	}
	if got := bucketOf(1 << 50); got != histBuckets-1 {
		t.Errorf("bucketOf(2^50) = %d, want the last bucket %d", got, histBuckets-1)
	}
	if got := bucketOf(-5); got != 0 {
		t.Errorf("bucketOf(-5) = %d, want 0", got)
	}
}

func TestHistogramPercentile(t *testing.T) {
	var a, b Histogram
	for us := 1; us <= 1000; us++ { // 1 µs to 1 ms, one each, split over two histograms
		h := &a
		if us%2 == 0 {
			h = &b
		}
		h.Record(time.Duration(us) * time.Microsecond)
	}
	var c Counts
	c.Add(&a)
	var cb Counts
	cb.Add(&b)
	c.Merge(&cb)
	c.Add(nil)
	if c.total != 1000 {
		t.Fatalf("total = %d, want 1000", c.total)
	}
	for _, tc := range []struct {
		p    float64
		want time.Duration // the exact nearest-rank value; the bucket's maximum is at most 1/128 above
	}{
		{50, 500 * time.Microsecond},
		{99, 990 * time.Microsecond},
		{99.9, 999 * time.Microsecond},
		{100, time.Millisecond},
	} {
		got := c.Percentile(tc.p)
		if got < tc.want || float64(got-tc.want) > float64(tc.want)/128 {
			t.Errorf("p%v = %v, want %v (at most 1/128 above)", tc.p, got, tc.want)
		}
	}
	var empty Counts
	if got := empty.Percentile(99); got != 0 {
		t.Errorf("p99 of nothing = %v, want 0", got)
	}
}
