package server

import (
	"context"
	"fmt"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/rs/zerolog"
)

// BenchmarkPublish delivers one message to 1, 10 and 100 subscribers, which
// read it on their connections meanwhile; ns/op is per PUBLISH, so the
// messages delivered per second are subscribers/(ns/op)*1e9.
func BenchmarkPublish(b *testing.B) {
	for _, n := range []int{1, 10, 100} {
		b.Run(fmt.Sprintf("subscribers=%d", n), func(b *testing.B) {
			s := startServer(b, nil, zerolog.Nop())
			ctx := context.Background()
			for range n {
				c := redis.NewClient(&redis.Options{Addr: s.Addr().String(), Protocol: 2})
				b.Cleanup(func() { c.Close() })
				ps := c.Subscribe(ctx, "bench")
				if _, err := ps.Receive(ctx); err != nil {
					b.Fatal(err)
				}
				go func() {
					for range ps.Channel(redis.WithChannelSize(1 << 14)) {
					}
				}()
			}
			channel, msg := []byte("bench"), []byte("a message of some 32 bytes......")
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if got := s.publish(channelSub, channel, msg); got != int64(n) {
					b.Fatalf("delivered to %d, want %d", got, n)
				}
			}
		})
	}
}
