package tests

import (
	"context"
	"strconv"
	"testing"
)

// BenchmarkPipeline drives each backend with pipelined go-redis batches, so
// that benchstat can put shale next to redis from one run:
//
//	go test -run '^$' -bench Pipeline -count 6 ./tests | benchstat -col /backend -
func BenchmarkPipeline(b *testing.B) {
	for _, backendName := range []string{"redis", "shale"} {
		b.Run("backend="+backendName, func(b *testing.B) {
			var p *serverProc
			if backendName == "redis" {
				p = startRedis(b)
			} else {
				p = startShale(b, shaleOpts{})
			}
			c := p.Client
			ctx := context.Background()
			if err := c.Do(ctx, "HSET", "h", "f", "v").Err(); err != nil {
				b.Fatal(err)
			}
			for _, depth := range []int{1, 16, 128} {
				for _, op := range []string{"SET", "GET", "HSET"} {
					b.Run("op="+op+"/pipeline="+strconv.Itoa(depth), func(b *testing.B) {
						b.ReportAllocs()
						i := 0
						for b.Loop() {
							pipe := c.Pipeline()
							for range depth {
								k := "k" + strconv.Itoa(i%10000)
								switch op {
								case "SET":
									pipe.Do(ctx, "SET", k, "value")
								case "GET":
									pipe.Do(ctx, "GET", k)
								case "HSET":
									pipe.Do(ctx, "HSET", "h", k, "value")
								}
								i++
							}
							if _, err := pipe.Exec(ctx); err != nil && op != "GET" {
								b.Fatal(err)
							}
						}
						b.ReportMetric(float64(b.N*depth)/b.Elapsed().Seconds(), "cmds/s")
					})
				}
			}
		})
	}
}
