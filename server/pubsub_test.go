package server

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestPubSubConcurrent runs publishers against subscribers that ping and
// churn their other subscriptions meanwhile (run it with -race): every
// subscriber gets every message of the channel it stays on, each
// publisher's in order, never inside a reply (go-redis's parser would
// fail), and once they all leave the hub is empty.
func TestPubSubConcurrent(t *testing.T) {
	s, admin := startAdminServer(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const subscribers, publishers, messages = 6, 3, 300

	var ready, done sync.WaitGroup
	ready.Add(subscribers)
	errs := make(chan error, subscribers+publishers)
	for i := range subscribers {
		done.Add(1)
		go func() {
			defer done.Done()
			c := redis.NewClient(&redis.Options{Addr: s.Addr().String(), Protocol: 2})
			defer c.Close()
			ps := c.Subscribe(ctx, "c")
			defer ps.Close()
			if err := ps.PSubscribe(ctx, "c*"); err != nil {
				errs <- err
				return
			}
			for range 2 { // the confirmations
				if _, err := ps.Receive(ctx); err != nil {
					errs <- err
					return
				}
			}
			ready.Done()
			next := make(map[string]int) // "message/pub" -> the next sequence number
			for got := 0; got < 2*publishers*messages; {
				if got%50 == 0 {
					// Commands in subscribed mode, interleaved with the flood.
					if err := ps.Ping(ctx, "x"); err != nil {
						errs <- err
						return
					}
					other := fmt.Sprintf("other%d", i)
					if err := ps.Subscribe(ctx, other); err != nil {
						errs <- err
						return
					}
					if err := ps.Unsubscribe(ctx, other); err != nil {
						errs <- err
						return
					}
				}
				v, err := ps.Receive(ctx)
				if err != nil {
					errs <- err
					return
				}
				m, ok := v.(*redis.Message)
				if !ok {
					continue // a pong or a confirmation
				}
				pub, seq, _ := strings.Cut(m.Payload, ":")
				key := m.Pattern + "/" + pub
				if n, _ := strconv.Atoi(seq); n != next[key] {
					errs <- fmt.Errorf("subscriber %d: %q from publisher %s (pattern %q), want %d", i, m.Payload, pub, m.Pattern, next[key])
					return
				}
				next[key]++
				got++
			}
		}()
	}
	ready.Wait()
	var pubs sync.WaitGroup
	for p := range publishers {
		pubs.Add(1)
		go func() {
			defer pubs.Done()
			c := redis.NewClient(&redis.Options{Addr: s.Addr().String(), Protocol: 2})
			defer c.Close()
			for n := range messages {
				got, err := c.Publish(ctx, "c", fmt.Sprintf("%d:%d", p, n)).Result()
				if err == nil && got != 2*subscribers {
					err = fmt.Errorf("PUBLISH reached %d, want %d", got, 2*subscribers)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	pubs.Wait()
	done.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for s.pubsub.count(channelSub)+s.pubsub.count(patternSub) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("subscriptions left after every subscriber closed: %d channels, %d patterns",
				s.pubsub.count(channelSub), s.pubsub.count(patternSub))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n, err := admin.PubSubNumPat(ctx).Result(); err != nil || n != 0 {
		t.Fatalf("PUBSUB NUMPAT: %d, %v", n, err)
	}
}

// TestPubSubPublishAllocs checks that delivering a message allocates
// nothing: pooled deliveries and frames, one encoding per topic.
func TestPubSubPublishAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's sync.Pool drops items at random")
	}
	s, _ := startAdminServer(t, nil)
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: s.Addr().String(), Protocol: 2})
	defer c.Close()
	ps := c.Subscribe(ctx, "c")
	defer ps.Close()
	if _, err := ps.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	go func() {
		for range ps.Channel() {
		}
	}()
	channel, msg := []byte("c"), []byte("hello")
	s.publish(channelSub, channel, msg) // fills the pools
	if n := testing.AllocsPerRun(100, func() { s.publish(channelSub, channel, msg) }); n > 0 {
		t.Errorf("PUBLISH to one subscriber: %.1f allocations, want none", n)
	}
}
