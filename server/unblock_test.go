package server

import (
	"context"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestClientUnblockRacesPush: CLIENT UNBLOCK and a push that would serve
// the same blocked client race; whichever wins, the answers agree: 1 and
// the client gets UNBLOCKED while the element stays, or 0 and the client
// got the element.
func TestClientUnblockRacesPush(t *testing.T) {
	s, c := startAdminServer(t, nil)
	ctx := context.Background()
	consumer := redis.NewClient(&redis.Options{Addr: s.Addr().String(), Protocol: 2, DisableIdentity: true, PoolSize: 1, MaxRetries: -1})
	t.Cleanup(func() { consumer.Close() })
	pusher := redis.NewClient(&redis.Options{Addr: s.Addr().String(), Protocol: 2, DisableIdentity: true, PoolSize: 1})
	t.Cleanup(func() { pusher.Close() })
	id, err := consumer.ClientID(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		got := make(chan *redis.StringSliceCmd, 1)
		go func() { got <- consumer.BLPop(ctx, 0, "q") }()
		waitBlocked(t, s, 1)
		var unblocked int64
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			if err := pusher.RPush(ctx, "q", "x").Err(); err != nil {
				t.Error(err)
			}
		}()
		go func() {
			defer wg.Done()
			n, err := c.Do(ctx, "CLIENT", "UNBLOCK", id, "ERROR").Int64()
			if err != nil {
				t.Error(err)
			}
			unblocked = n
		}()
		wg.Wait()
		reply := <-got
		left, err := c.LLen(ctx, "q").Result()
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case unblocked == 1 && (reply.Err() == nil || reply.Err().Error() != string(errUnblocked) || left != 1):
			t.Fatalf("round %d: UNBLOCK said 1, the client got %v, %d left", i, reply, left)
		case unblocked == 0 && (reply.Err() != nil || left != 0):
			t.Fatalf("round %d: UNBLOCK said 0, the client got %v, %d left", i, reply, left)
		}
		if err := c.Del(ctx, "q").Err(); err != nil {
			t.Fatal(err)
		}
	}
}
