package server

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestSwapDBConcurrent: SWAPDBs, alone, in transactions and in scripts, run
// among writers of both databases (run it with -race). No write is lost or
// lands half in one database and half in the other: each writer's counter
// sums, over both databases, to the number of its INCRs, and each
// database's DBSIZE is the number of keys KEYS finds there.
func TestSwapDBConcurrent(t *testing.T) {
	s, _ := startAdminServer(t, nil)
	ctx := context.Background()
	const writers, incrs, swaps = 4, 300, 150
	client := func(db int) *redis.Client {
		c := redis.NewClient(&redis.Options{Addr: s.Addr().String(), Protocol: 2, DisableIdentity: true, DB: db, PoolSize: 1})
		t.Cleanup(func() { c.Close() })
		return c
	}
	var wg sync.WaitGroup
	errs := make(chan error, writers+1)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := client(w % 2)
			key := "ctr:" + strconv.Itoa(w)
			for range incrs {
				if err := c.Incr(ctx, key).Err(); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		c := client(0)
		for i := range swaps {
			var err error
			switch i % 3 {
			case 0:
				err = c.Do(ctx, "SWAPDB", 0, 1).Err()
			case 1:
				_, err = c.TxPipelined(ctx, func(p redis.Pipeliner) error {
					p.Do(ctx, "SWAPDB", 1, 0)
					p.DBSize(ctx)
					return nil
				})
			default:
				err = c.Do(ctx, "EVAL", "return redis.call('swapdb', 0, 1)", 0).Err()
			}
			if err != nil {
				errs <- fmt.Errorf("swap %d: %w", i, err)
				return
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for w := range writers {
		// The writer stays in its logical database while the data under
		// it swaps, so its INCRs land in both, as in Redis.
		key := "ctr:" + strconv.Itoa(w)
		sum := 0
		for db := range 2 {
			v, err := client(db).Get(ctx, key).Int()
			if err != nil && err != redis.Nil {
				t.Fatal(err)
			}
			sum += v
		}
		if sum != incrs {
			t.Errorf("%s sums to %d over both dbs, want %d", key, sum, incrs)
		}
	}
	for db := range 2 {
		c := client(db)
		keys, err := c.Keys(ctx, "*").Result()
		if err != nil {
			t.Fatal(err)
		}
		n, err := c.DBSize(ctx).Result()
		if err != nil {
			t.Fatal(err)
		}
		if int(n) != len(keys) {
			t.Errorf("db %d: DBSIZE %d, KEYS finds %d", db, n, len(keys))
		}
	}
}
