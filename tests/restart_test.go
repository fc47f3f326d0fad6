package tests

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

const debugConfig = "[server]\nenable_debug_command = true\n"

// TestRestartGraceful: everything written before a SIGTERM is there after a
// restart on the same directory, TTLs and db numbers included.
func TestRestartGraceful(t *testing.T) {
	t.Parallel()
	p := startShale(t, shaleOpts{})
	ctx := ctxT(t)

	wantStr := map[string]string{}
	wantHash := map[string]string{}
	pipe := p.Client.Pipeline()
	for i := range 200 {
		k := "s" + strconv.Itoa(i)
		wantStr[k] = "value-" + strconv.Itoa(i)
		pipe.Do(ctx, "SET", k, wantStr[k])
	}
	for batch := range 10 {
		args := []any{"HSET", "big"}
		for i := range 100 {
			f := "field" + strconv.Itoa(batch*100+i)
			wantHash[f] = "v" + strconv.Itoa(batch*100+i)
			args = append(args, f, wantHash[f])
		}
		pipe.Do(ctx, args...)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	conn := newConn(t, p.Addr)
	run(t, conn, []step{
		{cmd("HLEN", "big"), 1000},
		{cmd("SET", "ttl", "v", "EX", 1000), ok},
		{cmd("HSET", "httl", "a", "1", "b", "2"), 2},
		{cmd("EXPIRE", "httl", 1000), 1},
		{cmd("SET", "gone", "v"), ok},
		{cmd("DEL", "gone", "s199"), 2},
		{cmd("HSET", "deleted-hash", "a", "1"), 1},
		{cmd("DEL", "deleted-hash"), 1},
		{cmd("INCRBY", "counter", 41), 41},
		{cmd("SELECT", 3), ok},
		{cmd("SET", "in-db3", "x"), ok},
		{cmd("SELECT", 0), ok},
		{cmd("DBSIZE"), 199 + 4}, // s0..s198, big, ttl, httl, counter
	})
	delete(wantStr, "s199")
	p.Stop()

	check := func(p *serverProc) {
		t.Helper()
		steps := []step{
			{cmd("DBSIZE"), 199 + 4},
			{cmd("HLEN", "big"), 1000},
			{cmd("HGETALL", "big"), pairs(wantHash)},
			{cmd("TTL", "ttl"), between(900, 1000)},
			{cmd("TTL", "httl"), between(900, 1000)},
			{cmd("HGETALL", "httl"), pairs(map[string]string{"a": "1", "b": "2"})},
			{cmd("EXISTS", "gone", "s199", "deleted-hash"), 0},
			{cmd("INCR", "counter"), 42},
			{cmd("DECR", "counter"), 41},
			{cmd("TTL", "s0"), -1},
		}
		for k, v := range wantStr {
			steps = append(steps, step{cmd("GET", k), v})
		}
		run(t, p.Client, steps)
		conn := newConn(t, p.Addr)
		run(t, conn, []step{
			{cmd("SELECT", 3), ok},
			{cmd("DBSIZE"), 1},
			{cmd("GET", "in-db3"), "x"},
		})
		if keys := scanAll(t, p.Client); len(keys) != 199+4 {
			t.Errorf("SCAN finds %d keys, want %d", len(keys), 199+4)
		}
	}
	p2 := startShale(t, shaleOpts{Dir: p.Dir})
	check(p2)

	// Change things and restart again.
	run(t, p2.Client, []step{
		{cmd("HDEL", "big", "field0", "field1"), 2},
		{cmd("HSET", "big", "field0", "back", "extra", "e"), 2},
		{cmd("DEL", "httl"), 1},
		{cmd("SET", "httl", "now a string"), ok},
	})
	wantHash["field0"] = "back"
	wantHash["extra"] = "e"
	delete(wantHash, "field1")
	p2.Stop()
	p3 := startShale(t, shaleOpts{Dir: p.Dir})
	run(t, p3.Client, []step{
		{cmd("DBSIZE"), 199 + 4},
		{cmd("HGETALL", "big"), pairs(wantHash)},
		{cmd("GET", "httl"), "now a string"},
		{cmd("TTL", "httl"), -1},
	})
}

// TestRestartKill: after SIGKILL in the middle of a stream of writes, every
// acknowledged write is there, and new uids are above every uid used before.
func TestRestartKill(t *testing.T) {
	t.Parallel()
	p := startShale(t, shaleOpts{Config: debugConfig})

	// uids seen before the kill
	var uidsMu sync.Mutex
	uidsBefore := map[string]int64{}
	for i := range 20 {
		k := "pre" + strconv.Itoa(i)
		do(t, p.Client, "HSET", k, "f", i)
		uidsBefore[k] = doInt(t, p.Client, "DEBUG", "UID", k)
	}
	do(t, p.Client, "DEL", "pre0") // a dead uid counts too

	// The writer runs one command at a time and records what was acknowledged.
	// At most the one command in flight at the kill is neither acknowledged
	// nor known to have failed.
	writer := newClient(p.Addr, "")
	defer writer.Close()
	var (
		ackedSet, ackedHash []int
		inflight            string // the key of the command that got no reply
		writerDone          = make(chan struct{})
	)
	go func() {
		defer close(writerDone)
		ctx := context.Background()
		for i := 0; ; i++ {
			k := "k" + strconv.Itoa(i)
			if err := writer.Do(ctx, "SET", k, "v"+strconv.Itoa(i)).Err(); err != nil {
				inflight = k
				return
			}
			ackedSet = append(ackedSet, i)
			h := "h" + strconv.Itoa(i)
			if err := writer.Do(ctx, "HSET", h, "f", "v"+strconv.Itoa(i), "g", "w").Err(); err != nil {
				inflight = h
				return
			}
			ackedHash = append(ackedHash, i)
			if i%10 == 0 {
				uid, err := writer.Do(ctx, "DEBUG", "UID", h).Int64()
				if err != nil {
					return // nothing written
				}
				uidsMu.Lock()
				uidsBefore[h] = uid
				uidsMu.Unlock()
			}
		}
	}()
	time.Sleep(time.Second) // let the writer run; what matters is what it recorded
	p.Kill()
	select {
	case <-writerDone:
	case <-time.After(30 * time.Second):
		t.Fatal("the writer did not stop after the kill")
	}
	if len(ackedSet) < 10 {
		t.Fatalf("only %d writes acknowledged in 1s", len(ackedSet))
	}
	t.Logf("acknowledged %d SETs and %d HSETs before SIGKILL; in flight: %q", len(ackedSet), len(ackedHash), inflight)

	p2 := startShale(t, shaleOpts{Config: debugConfig, Dir: p.Dir})
	c := p2.Client
	ctx := ctxT(t)

	// Every acknowledged write is present.
	pipe := c.Pipeline()
	gets := make([]*redis.Cmd, len(ackedSet))
	for n, i := range ackedSet {
		gets[n] = pipe.Do(ctx, "GET", "k"+strconv.Itoa(i))
	}
	hgets := make([]*redis.Cmd, len(ackedHash))
	for n, i := range ackedHash {
		hgets[n] = pipe.Do(ctx, "HGETALL", "h"+strconv.Itoa(i))
	}
	_, _ = pipe.Exec(ctx)
	lost := 0
	for n, i := range ackedSet {
		if v, err := gets[n].Text(); (err != nil || v != "v"+strconv.Itoa(i)) && lost < 10 {
			t.Errorf("acknowledged SET k%d lost: %q %v", i, v, err)
			lost++
		}
	}
	for n, i := range ackedHash {
		if why := matchReply(pairs(map[string]string{"f": "v" + strconv.Itoa(i), "g": "w"}), hgets[n].Val(), hgets[n].Err()); why != "" && lost < 10 {
			t.Errorf("acknowledged HSET h%d lost: %s", i, fmtReply(hgets[n].Val(), hgets[n].Err()))
			lost++
		}
	}

	// DBSIZE counts exactly the acknowledged keys, plus the one in flight if
	// it reached the disk.
	want := int64(len(ackedSet) + len(ackedHash) + 19) // + pre1..pre19
	if inflight != "" && doInt(t, c, "EXISTS", inflight) == 1 {
		want++
	}
	if n := doInt(t, c, "DBSIZE"); n != want {
		t.Errorf("DBSIZE after restart = %d, want %d", n, want)
	}
	if keys := scanAll(t, c, "COUNT", 1000); int64(len(keys)) != want {
		t.Errorf("SCAN after restart finds %d keys, want %d", len(keys), want)
	}

	// New uids are above every uid used before the kill: the ones recorded,
	// and the ones of every hash now on disk (the in-flight one included).
	var maxBefore int64
	for _, uid := range uidsBefore {
		maxBefore = max(maxBefore, uid)
	}
	for k := range scanAll(t, c, "TYPE", "hash", "COUNT", 1000) {
		maxBefore = max(maxBefore, doInt(t, c, "DEBUG", "UID", k))
	}
	seen := map[int64]string{}
	check := func(k string) {
		t.Helper()
		uid := doInt(t, c, "DEBUG", "UID", k)
		if uid <= maxBefore {
			t.Errorf("new hash %s has uid %d, not above %d, the highest before the kill", k, uid, maxBefore)
		}
		if other, dup := seen[uid]; dup {
			t.Errorf("hashes %s and %s share uid %d", k, other, uid)
		}
		seen[uid] = k
	}
	for i := range 50 {
		k := "new" + strconv.Itoa(i)
		do(t, c, "HSET", k, "f", "v")
		check(k)
	}
	// Re-created keys get new uids too: after DEL, after an overwrite by a
	// string, and after expiry.
	do(t, c, "DEL", "pre1")
	do(t, c, "HSET", "pre1", "f", "again")
	check("pre1")
	do(t, c, "SET", "pre2", "a string now")
	do(t, c, "DEL", "pre2")
	do(t, c, "HSET", "pre2", "f", "again")
	check("pre2")
	do(t, c, "PEXPIRE", "pre3", 1)
	pollUntil(t, 5*time.Second, func() (bool, string) {
		return doInt(t, c, "EXISTS", "pre3") == 0, "pre3 did not expire"
	})
	do(t, c, "HSET", "pre3", "f", "again")
	check("pre3")

	// And again after a clean restart.
	p2.Stop()
	p3 := startShale(t, shaleOpts{Config: debugConfig, Dir: p.Dir})
	c = p3.Client
	for uid := range seen {
		maxBefore = max(maxBefore, uid)
	}
	for i := range 10 {
		k := "after-stop" + strconv.Itoa(i)
		do(t, c, "HSET", k, "f", "v")
		check(k)
	}
	if n := doInt(t, c, "DBSIZE"); n != want+50+10 {
		t.Errorf("DBSIZE after the second restart = %d, want %d", n, want+50+10)
	}
}
