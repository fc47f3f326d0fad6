package types

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkSetBit times SETBIT on bitmaps of different sizes. The claim
// (issue 20) is that bit 2^32-1 of a fresh key, and a bit of a 512 MiB
// bitmap, cost about what a bit of a 1 KiB one costs: a bitmap past
// fragThreshold is stored in fragments, and SETBIT writes one.
func BenchmarkSetBit(b *testing.B) {
	const top = 1<<32 - 1 // the last bit proto-max-bulk-len allows: a 512 MiB string
	for _, bc := range []struct {
		name  string
		size  uint64 // the bitmap's bits before the loop; 0: a fresh key each time
		where func(r *rand.Rand) uint64
	}{
		{"bitmap=1KiB", 8 << 10, func(r *rand.Rand) uint64 { return r.Uint64N(8 << 10) }},
		{"fresh/offset=2^32-1", 0, func(*rand.Rand) uint64 { return top }},
		{"bitmap=512MiB", top + 1, func(r *rand.Rand) uint64 { return r.Uint64N(top + 1) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			d := benchDB(b)
			key := []byte("bm")
			if bc.size > 0 {
				if _, err := d.SetBit(key, bc.size-1, true); err != nil {
					b.Fatal(err)
				}
			}
			r := rand.New(rand.NewPCG(1, 2))
			var off uint64
			on := false
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				// Set a bit, then clear it: every SETBIT writes.
				if on = !on; on {
					off = bc.where(r)
				}
				if bc.size == 0 {
					b.StopTimer()
					if _, err := d.Del([][]byte{key}); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
				if _, err := d.SetBit(key, off, on); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
