package tests

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestPausedPipelineRepliesLeave: the replies of the commands pipelined
// before one that CLIENT PAUSE holds back leave at once, as Redis sends
// them before it parks the client; Shale used to keep them until the pause
// ended.
func TestPausedPipelineRepliesLeave(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		r := dialRaw(t, b.Addr)
		r.send("*3\r\n$6\r\nCLIENT\r\n$5\r\nPAUSE\r\n$4\r\n3000\r\n*1\r\n$4\r\nPING\r\n")
		start := time.Now()
		if got := strings.TrimSpace(r.readLine()); got != "+OK" {
			t.Fatalf("CLIENT PAUSE replied %q", got)
		}
		// The pause lasts 3 s: the OK must not have waited for it.
		if took := time.Since(start); took > 1500*time.Millisecond {
			t.Errorf("CLIENT PAUSE's reply came after %v, held back by the PING it paused", took)
		}
		if err := c.Do(ctxT(t), "CLIENT", "UNPAUSE").Err(); err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(r.readLine()); got != "+PONG" {
			t.Fatalf("PING replied %q", got)
		}
	})
}

// TestSlowCommandDoesNotStarveOthers: while KEYS * walks a few million
// keys, PING and GET of another key on other connections are answered;
// the slow log and INFO commandstats show the KEYS. Shale only: Redis
// runs one command at a time.
func TestSlowCommandDoesNotStarveOthers(t *testing.T) {
	const nKeys, perMSet = 2_000_000, 2000
	p := startShale(t, shaleOpts{})
	ctx := context.Background()
	fill := p.Client.Pipeline()
	for i := 0; i < nKeys; i += perMSet {
		args := make([]any, 0, 1+2*perMSet)
		args = append(args, "MSET")
		for j := i; j < i+perMSet; j++ {
			args = append(args, fmt.Sprintf("key:%07d", j), "v")
		}
		fill.Do(ctx, args...)
		if fill.Len() == 50 {
			if _, err := fill.Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := fill.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if err := p.Client.Set(ctx, "other", "here", 0).Err(); err != nil {
		t.Fatal(err)
	}

	slow := newClient(p.Addr, "")
	defer slow.Close()
	var keysDone atomic.Bool
	keysErr := make(chan error, 1)
	go func() {
		n, err := slow.Keys(ctx, "*").Result()
		keysDone.Store(true)
		if err == nil && len(n) != nKeys+1 {
			err = fmt.Errorf("KEYS * returned %d keys, want %d", len(n), nKeys+1)
		}
		keysErr <- err
	}()
	// Wait until KEYS runs, as CLIENT LIST shows it.
	pollUntil(t, 10*time.Second, func() (bool, string) {
		list := p.Client.ClientList(ctx).Val()
		return strings.Contains(list, "cmd=keys"), list
	})
	answered := 0
	for !keysDone.Load() {
		if err := p.Client.Ping(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		if v, err := p.Client.Get(ctx, "other").Result(); err != nil || v != "here" {
			t.Fatalf("GET other = %q, %v", v, err)
		}
		if !keysDone.Load() {
			answered++
		}
	}
	if err := <-keysErr; err != nil {
		t.Fatal(err)
	}
	if answered == 0 {
		t.Fatal("KEYS * over two million keys finished before one PING and GET could be answered beside it")
	}
	t.Logf("%d PING+GET pairs answered while KEYS * ran", answered)
	var logged bool
	for _, e := range p.Client.SlowLogGet(ctx, -1).Val() {
		logged = logged || len(e.Args) == 2 && strings.EqualFold(e.Args[0], "keys")
	}
	if !logged {
		t.Error("the slow log does not show the KEYS *")
	}
	if stats := p.Client.Info(ctx, "commandstats").Val(); !strings.Contains(stats, "cmdstat_keys:calls=1,") {
		t.Errorf("INFO commandstats does not show the KEYS:\n%s", stats)
	}
}
