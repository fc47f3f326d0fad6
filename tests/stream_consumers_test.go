package tests

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestStreamConsumerGroupFailover runs a consumer group as go-redis users
// do: four consumers share a stream of jobs, one of them dies mid-stream
// (its connection closed with entries it read but never acknowledged), and
// the survivors take its pending entries over with XAUTOCLAIM. Every entry
// must be acknowledged exactly once (XACK answers 1 once per ID, across
// all consumers), the group's pending list must end empty, and it all
// takes a few seconds at most.
func TestStreamConsumerGroupFailover(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		const (
			jobs    = 600
			minIdle = 300 * time.Millisecond
		)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := c.XGroupCreateMkStream(ctx, "jobs", "workers", "0").Err(); err != nil {
			t.Fatal(err)
		}
		// Half the jobs are there from the start; the rest arrive while the
		// consumers work.
		add := func(from, to int) error {
			p := c.Pipeline()
			for i := from; i < to; i++ {
				p.XAdd(ctx, &redis.XAddArgs{Stream: "jobs", Values: []any{"job", strconv.Itoa(i)}})
			}
			_, err := p.Exec(ctx)
			return err
		}
		if err := add(0, jobs/2); err != nil {
			t.Fatal(err)
		}

		var mu sync.Mutex
		acked := map[string]int{} // ID -> XACKs that answered 1
		claimed := 0              // entries the survivors took over with XAUTOCLAIM
		total := func() int {
			mu.Lock()
			defer mu.Unlock()
			return len(acked)
		}
		ack := func(w *redis.Client, msgs []redis.XMessage) error {
			for _, m := range msgs {
				n, err := w.XAck(ctx, "jobs", "workers", m.ID).Result()
				if err != nil {
					return err
				}
				mu.Lock()
				acked[m.ID] += int(n)
				mu.Unlock()
			}
			return nil
		}

		// The doomed consumer reads a batch and dies without acknowledging.
		doomed := redis.NewClient(&redis.Options{Addr: b.Addr, Protocol: 2})
		streams, err := doomed.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "workers", Consumer: "doomed", Streams: []string{"jobs", ">"}, Count: 25}).Result()
		if err != nil || len(streams) != 1 || len(streams[0].Messages) != 25 {
			t.Fatalf("doomed consumer read %v, %v", streams, err)
		}
		lost := streams[0].Messages
		doomed.Close()

		var wg sync.WaitGroup
		errs := make(chan error, 4)
		for i := range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				w := redis.NewClient(&redis.Options{Addr: b.Addr, Protocol: 2})
				defer w.Close()
				name := fmt.Sprintf("worker-%d", i)
				for total() < jobs {
					if ctx.Err() != nil {
						errs <- fmt.Errorf("%s: %d of %d acknowledged at the deadline", name, total(), jobs)
						return
					}
					streams, err := w.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "workers", Consumer: name, Streams: []string{"jobs", ">"}, Count: 10, Block: 50 * time.Millisecond}).Result()
					switch {
					case errors.Is(err, redis.Nil):
					case err != nil:
						errs <- fmt.Errorf("%s: XREADGROUP: %w", name, err)
						return
					default:
						for _, s := range streams {
							if err := ack(w, s.Messages); err != nil {
								errs <- err
								return
							}
						}
						continue
					}
					// Nothing new: take over what a dead consumer left.
					msgs, _, err := w.XAutoClaim(ctx, &redis.XAutoClaimArgs{Stream: "jobs", Group: "workers", Consumer: name, MinIdle: minIdle, Start: "0-0", Count: 10}).Result()
					if err != nil {
						errs <- fmt.Errorf("%s: XAUTOCLAIM: %w", name, err)
						return
					}
					mu.Lock()
					claimed += len(msgs)
					mu.Unlock()
					if err := ack(w, msgs); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		if err := add(jobs/2, jobs); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		if t.Failed() {
			return
		}
		for id, n := range acked {
			if n != 1 {
				t.Errorf("entry %s acknowledged %d times", id, n)
			}
		}
		for _, m := range lost {
			if acked[m.ID] != 1 {
				t.Errorf("the dead consumer's entry %s was not taken over", m.ID)
			}
		}
		if claimed < len(lost) {
			t.Errorf("XAUTOCLAIM handed over %d entries, want at least %d", claimed, len(lost))
		}
		run(t, c, []step{
			{cmd("XPENDING", "jobs", "workers"), []any{0, nil, nil, nil}},
			{cmd("XLEN", "jobs"), jobs},
			{cmd("XINFO", "GROUPS", "jobs"), []any{containsPair("lag", 0)}},
		})
	})
}
