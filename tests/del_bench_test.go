package tests

import (
	"context"
	"fmt"
	"testing"
)

// fillHashWire builds key with n fields through pipelined HSETs of 1,000
// fields each.
func fillHashWire(b *testing.B, p *serverProc, key string, n int) {
	b.Helper()
	ctx := context.Background()
	pipe := p.Client.Pipeline()
	args := []any{"HSET", key}
	for i := range n {
		args = append(args, fmt.Sprintf("field:%09d", i), "value-0123456789")
		if len(args) == 2+2*1000 || i == n-1 {
			pipe.Do(ctx, args...)
			args = []any{"HSET", key}
		}
		if pipe.Len() == 50 || i == n-1 {
			if _, err := pipe.Exec(ctx); err != nil {
				b.Fatal(err)
			}
		}
	}
}

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
					fillHashWire(b, p, key, n)
					b.StartTimer()
					if got, err := p.Client.Del(ctx, key).Result(); err != nil || got != 1 {
						b.Fatalf("DEL = %d, %v", got, err)
					}
				}
			})
		}
	}
}
