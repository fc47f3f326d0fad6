package tests

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkDelHash times DEL of a hash through the wire on real Redis and on
// shale, side by side in one run. Redis frees a big hash synchronously;
// shale only drops its metadata. Each iteration builds a fresh hash with the
// timer stopped. Run it with a fixed count, as make bench does:
//
//	go test -run '^$' -bench DelHash -benchtime 3x ./tests
func BenchmarkDelHash(b *testing.B) {
	for _, backend := range []string{"redis", "shale"} {
		for _, n := range []int{10, 1_000_000} {
			b.Run(fmt.Sprintf("backend=%s/fields=%d", backend, n), func(b *testing.B) {
				var p *serverProc
				if backend == "redis" {
					p = startRedis(b)
				} else {
					p = startShale(b, shaleOpts{})
				}
				ctx := context.Background()
				i := 0
				for b.Loop() {
					b.StopTimer()
					key := fmt.Sprintf("h%d", i)
					i++
					fill(b, p.Client, "HSET", key, n, func(f int) []any { return []any{fmt.Sprintf("field:%09d", f), "value-0123456789"} })
					b.StartTimer()
					if got, err := p.Client.Del(ctx, key).Result(); err != nil || got != 1 {
						b.Fatalf("DEL = %d, %v", got, err)
					}
				}
			})
		}
	}
}
