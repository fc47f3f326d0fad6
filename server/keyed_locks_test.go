package server

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/shaledb/shale/server/store"
)

// TestScriptsRunUnderTheirKeysLocks: a script runs while another client
// holds keys it does not use, PING and TIME included; one that needs a held key it did not
// declare (and then takes the world lock at once for a while), or calls a
// command that may touch any key (and then for good), or runs past the
// keyed budget, gives up and runs again under the world lock, which waits
// for the holder.
func TestScriptsRunUnderTheirKeysLocks(t *testing.T) {
	s, c := startAdminServer(t, nil)
	ctx := context.Background()
	held := s.st.BeginTxn(false, store.LockKey{DB: 0, Key: []byte("held")})
	released := false
	release := func() {
		if !released {
			held.Abort()
			released = true
		}
	}
	defer release()

	eval := func(script string, keys ...string) chan any {
		done := make(chan any, 1)
		go func() {
			v, err := c.Eval(ctx, script, keys).Result()
			if err != nil {
				done <- err
				return
			}
			done <- v
		}()
		return done
	}
	waitFor := func(what string, done chan any) any {
		t.Helper()
		select {
		case v := <-done:
			return v
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no reply", what)
			return nil
		}
	}

	got := waitFor("a script on a free key", eval("redis.call('PING') redis.call('TIME') redis.call('SET', KEYS[1], 'v') return redis.call('GET', KEYS[1])", "free"))
	if got != "v" {
		t.Fatalf("a script on a free key: %v", got)
	}
	if n := s.stats.scriptRunsKeyed.Load(); n != 1 {
		t.Fatalf("script_runs_keyed = %d, want 1", n)
	}
	if n := s.scripts.idleVMs(); n != 1 {
		t.Fatalf("script_idle_states = %d after one keyed run, want 1", n)
	}

	done := eval("return redis.call('INCR', 'held')", "free")
	deadline := time.Now().Add(10 * time.Second)
	for s.stats.scriptReruns.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the script on an undeclared held key did not give up")
		}
		time.Sleep(time.Millisecond)
	}
	select {
	case v := <-done:
		t.Fatalf("the script ran while its undeclared key was held: %v", v)
	case <-time.After(50 * time.Millisecond):
	}
	release()
	if got := waitFor("the rerun", done); got != int64(1) {
		t.Fatalf("INCR held in a script: %v", got)
	}
	// Its next runs take the world lock at once (worldRunsAfter).
	if got := waitFor("the next run", eval("return redis.call('INCR', 'held')", "free")); got != int64(2) {
		t.Fatalf("INCR held in a script, again: %v", got)
	}

	// Its second run takes the world lock at once.
	for range 2 {
		if got := waitFor("KEYS in a script", eval("return #redis.call('KEYS', '*')")); got != int64(2) {
			t.Fatalf("KEYS in a script: %v", got)
		}
	}
	if got := waitFor("a long script", eval("local i = 0 while i < 2e6 do i = i + 1 end return i")); got != int64(2e6) {
		t.Fatalf("a long script: %v", got)
	}
	if keyed, excl, reruns := s.stats.scriptRunsKeyed.Load(), s.stats.scriptRunsExclusive.Load(), s.stats.scriptReruns.Load(); keyed != 1 || excl != 5 || reruns != 3 {
		t.Fatalf("keyed %d, exclusive %d, reruns %d; want 1, 5, 3", keyed, excl, reruns)
	}
}

// TestTransactionsOfRangeReadsRunUnderTheirKeysLocks: a transaction whose
// commands each touch only the keys they name (namesItsKeys) runs while
// another client holds other keys, range reads included; one with SORT,
// whose patterns read keys it does not name, waits for the world lock.
func TestTransactionsOfRangeReadsRunUnderTheirKeysLocks(t *testing.T) {
	s, c := startAdminServer(t, nil)
	ctx := context.Background()
	c.RPush(ctx, "list", "a", "b")
	c.HSet(ctx, "hash", "f", "v")
	held := s.st.BeginTxn(false, store.LockKey{DB: 0, Key: []byte("held")})
	released := false
	defer func() {
		if !released {
			held.Abort()
		}
	}()
	exec := func(queue func(p redis.Pipeliner)) chan string {
		done := make(chan string, 1)
		go func() {
			cmds, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error { queue(p); return nil })
			done <- fmt.Sprint(cmds, err)
		}()
		return done
	}
	select {
	case got := <-exec(func(p redis.Pipeliner) {
		p.LRange(ctx, "list", 0, -1)
		p.HGetAll(ctx, "hash")
		p.ZRangeByScore(ctx, "zset", &redis.ZRangeBy{Min: "-inf", Max: "+inf"})
		p.RPush(ctx, "list", "c")
	}):
		const want = "[lrange list 0 -1: [a b] hgetall hash: map[f:v] zrangebyscore zset -inf +inf: [] rpush list c: 3] <nil>"
		if got != want {
			t.Fatalf("EXEC: %s, want %s", got, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a transaction of range reads waited for a key it does not name")
	}
	done := exec(func(p redis.Pipeliner) { p.Sort(ctx, "list", &redis.Sort{By: "w_*", Order: "ASC", Alpha: true}) })
	select {
	case got := <-done:
		t.Fatalf("a transaction with SORT ran while a key was held: %s", got)
	case <-time.After(50 * time.Millisecond):
	}
	held.Abort()
	released = true
	if got := <-done; got != "[sort list by w_* ASC alpha: [a b c]] <nil>" {
		t.Fatalf("EXEC of SORT: %s", got)
	}
}
