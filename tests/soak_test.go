package tests

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// soakClients is how many clients the soak runs at once.
const soakClients = 100

// TestSoakMixed is the load soak `make soak` runs: soakClients clients send
// a mix of commands over every type for SHALE_SOAK (a duration such as
// "60s"), first to shale, then to redis-server for comparison. It reports
// throughput and latency percentiles, and fails on any error reply, on a
// lost increment, or when the server stops answering. Without SHALE_SOAK it
// is skipped: it is too long for `make test`.
func TestSoakMixed(t *testing.T) {
	d := os.Getenv("SHALE_SOAK")
	if d == "" {
		t.Skip("SHALE_SOAK is not set: run `make soak`")
	}
	dur, err := time.ParseDuration(d)
	if err != nil {
		t.Fatalf("SHALE_SOAK=%q: %v", d, err)
	}
	results := map[string]soakResult{}
	for _, name := range []string{"shale", "redis"} {
		t.Run(name, func(t *testing.T) {
			var p *serverProc
			if name == "shale" {
				p = startShale(t, shaleOpts{})
			} else {
				p = startRedis(t)
			}
			r := runSoak(t, p, dur)
			results[name] = r
			t.Logf("%s: %d clients, %v: %d ops, %.0f ops/s; latency p50 %v, p99 %v, p99.9 %v, max %v; RSS %d MiB",
				name, soakClients, dur, r.ops, r.throughput(), r.p50, r.p99, r.p999, r.max, r.rss>>20)
		})
	}
	s, r := results["shale"], results["redis"]
	if s.ops > 0 && r.ops > 0 {
		t.Logf("shale/redis: throughput %.2f, p99 %.2f", s.throughput()/r.throughput(), float64(s.p99)/float64(r.p99))
	}
}

type soakResult struct {
	ops                 int64
	elapsed             time.Duration
	p50, p99, p999, max time.Duration
	rss                 int64
}

func (r soakResult) throughput() float64 { return float64(r.ops) / r.elapsed.Seconds() }

// runSoak drives p with soakClients clients for dur.
func runSoak(t *testing.T, p *serverProc, dur time.Duration) soakResult {
	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	var wg sync.WaitGroup
	lat := make([][]time.Duration, soakClients)
	incrs := make([]int64, soakClients)
	errs := make(chan error, soakClients)
	start := time.Now()
	for id := range soakClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := newClient(p.Addr, "")
			defer c.Close()
			rng := rand.New(rand.NewPCG(uint64(id), 7))
			for ctx.Err() == nil {
				args, counted := soakCommand(rng, id)
				t0 := time.Now()
				err := c.Do(context.Background(), args...).Err()
				lat[id] = append(lat[id], time.Since(t0))
				if err != nil && !errors.Is(err, redis.Nil) {
					errs <- fmt.Errorf("client %d: %s: %w", id, fmtArgs(args), err)
					return
				}
				if counted {
					incrs[id]++
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	// No acknowledged increment is lost.
	for id, n := range incrs {
		got, err := p.Client.Get(ctxT(t), fmt.Sprintf("soak:counter:%d", id)).Int64()
		if err != nil && !errors.Is(err, redis.Nil) {
			t.Fatalf("counter %d: %v", id, err)
		}
		if got != n {
			t.Errorf("counter of client %d is %d, want %d", id, got, n)
		}
	}
	run(t, p.Client, []step{{cmd("PING"), "PONG"}})

	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	slices.Sort(all)
	pct := func(q float64) time.Duration {
		if len(all) == 0 {
			return 0
		}
		return all[min(len(all)-1, int(q*float64(len(all))))]
	}
	r := soakResult{ops: int64(len(all)), elapsed: elapsed, p50: pct(0.5), p99: pct(0.99), p999: pct(0.999), rss: infoInt(t, p.Client, "memory", "used_memory_rss")}
	if len(all) > 0 {
		r.max = all[len(all)-1]
	}
	return r
}

// soakCommand picks one command of the mix for client id. Keys of each type
// have their own prefix (no WRONGTYPE) and are shared by all clients, so
// that they contend on the same keys; counted says the command is an
// increment of the client's own counter, which the soak checks at the end.
func soakCommand(rng *rand.Rand, id int) (args []any, counted bool) {
	k := strconv.Itoa(rng.IntN(1000))
	v := strconv.Itoa(rng.IntN(1 << 20))
	f := strconv.Itoa(rng.IntN(50))
	switch n := rng.IntN(100); {
	case n < 15:
		return []any{"SET", "s:" + k, v}, false
	case n < 30:
		return []any{"GET", "s:" + k}, false
	case n < 35:
		return []any{"INCR", fmt.Sprintf("soak:counter:%d", id)}, true
	case n < 40:
		return []any{"MGET", "s:" + k, "s:" + v[:1], "s:1"}, false
	case n < 48:
		return []any{"HSET", "h:" + k, f, v}, false
	case n < 53:
		return []any{"HGET", "h:" + k, f}, false
	case n < 55:
		return []any{"HGETALL", "h:" + k}, false
	case n < 60:
		return []any{"RPUSH", "l:" + k, v}, false
	case n < 64:
		return []any{"LPOP", "l:" + k}, false
	case n < 66:
		return []any{"LRANGE", "l:" + k, 0, 9}, false
	case n < 71:
		return []any{"SADD", "t:" + k, f}, false
	case n < 74:
		return []any{"SISMEMBER", "t:" + k, f}, false
	case n < 75:
		return []any{"SREM", "t:" + k, f}, false
	case n < 81:
		return []any{"ZADD", "z:" + k, v, f}, false
	case n < 84:
		return []any{"ZRANGE", "z:" + k, 0, 9, "WITHSCORES"}, false
	case n < 86:
		return []any{"ZSCORE", "z:" + k, f}, false
	case n < 89:
		return []any{"EXPIRE", "s:" + k, 1 + rng.IntN(5)}, false
	case n < 91:
		return []any{"TTL", "s:" + k}, false
	case n < 94:
		t := []string{"s:", "h:", "l:", "t:", "z:"}[rng.IntN(5)]
		return []any{"DEL", t + k}, false
	case n < 96:
		return []any{"EXISTS", "s:" + k, "h:" + k}, false
	default:
		return []any{"PING"}, false
	}
}
