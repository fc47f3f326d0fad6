package tests

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// The replication tests run a primary with replicas on either backend
// (replication_helpers_test.go) and check Redis's user contract: the
// commands and INFO fields, read-only replicas, WAIT, promotion, and that
// replicas converge to the primary's exact content under a mixed load.

// replBackends are the backends of the replication tests, Redis first: it
// checks the test itself.
var replBackends = []string{"redis", "shale"}

// forEachReplBackend runs fn in parallel subtests, one per backend.
func forEachReplBackend(t *testing.T, fn func(t *testing.T, backend string)) {
	t.Helper()
	for _, backend := range replBackends {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			fn(t, backend)
		})
	}
}

// errReadOnly is Redis's reply to a write on a read-only replica.
const errReadOnly = "READONLY You can't write against a read only replica."

// TestReplicationContract checks what a user of one primary and one
// replica sees: REPLICAOF/SLAVEOF, ROLE and INFO replication on both sides,
// the READONLY error (plain, in MULTI, in a script), WAIT, reads of an
// expiring key on the replica, and REPLICAOF NO ONE. About 3 s per backend.
func TestReplicationContract(t *testing.T) {
	t.Parallel()
	forEachReplBackend(t, func(t *testing.T, backend string) {
		set := startReplSet(t, backend, 1, "")
		p, r := set.Primary, set.Replicas[0]
		run(t, p.Client, []step{
			{cmd("SET", "k", "v1"), ok},
			{cmd("WAIT", 1, 5000), 1},
		})
		checkRoles(t, p, r)
		checkReplInfo(t, p, r)
		checkSyncCounts(t, p, "one replica synced", map[string]string{"sync_full": "^1$", "sync_partial_ok": "^0$", "sync_partial_err": "^0$"})
		waitInSync(t, 10*time.Second, p, r)

		run(t, r.Client, []step{
			{cmd("GET", "k"), "v1"},
			{cmd("SET", "k", "v2"), errText(errReadOnly)},
			{cmd("DEL", "k"), errText(errReadOnly)},
			{cmd("GET", "k"), "v1"},
		})
		t.Run("script", func(t *testing.T) {
			// Scripts run on a replica; a write in one fails, and a failed
			// redis.call names the script and the line.
			script := "return redis.call('SET', KEYS[1], 'from-script')"
			sum := sha1.Sum([]byte(script))
			read := "return redis.call('GET', KEYS[1])"
			readSum := sha1.Sum([]byte(read))
			run(t, r.Client, []step{
				{cmd("EVAL", read, 1, "k"), "v1"},
				{cmd("EVAL_RO", read, 1, "k"), "v1"},
				{cmd("SCRIPT", "LOAD", read), hex.EncodeToString(readSum[:])},
				{cmd("EVALSHA", hex.EncodeToString(readSum[:]), 1, "k"), "v1"},
				{cmd("EVAL", script, 1, "k"), errText(errReadOnly + " script: " + hex.EncodeToString(sum[:]) + ", on @user_script:1.")},
				{cmd("EVAL", "return redis.pcall('SET', KEYS[1], 'from-script')", 1, "k"), errText(errReadOnly)},
				{cmd("GET", "k"), "v1"},
			})
		})
		// Over a raw socket: go-redis gives up on a connection whose MULTI
		// got an error reply.
		tx := dialRaw(t, r.Addr)
		tx.send(bulkCmd("MULTI") + bulkCmd("GET", "k") + bulkCmd("SET", "k", "v3") + bulkCmd("EXEC"))
		for _, want := range []string{"+OK", "+QUEUED", "-" + errReadOnly, "-EXECABORT Transaction discarded because of previous errors."} {
			if got := strings.TrimSuffix(tx.readLine(), "\r\n"); got != want {
				t.Errorf("MULTI on the replica: got %q, want %q", got, want)
			}
		}

		// WAIT counts the replicas that acknowledged every earlier write,
		// and gives up after its timeout with the count it has.
		offset := infoFieldInt(t, replInfo(t, p.Client), "master_repl_offset")
		run(t, p.Client, []step{{cmd("SET", "k", "v4"), ok}, {cmd("WAIT", 1, 5000), 1}})
		if after := infoFieldInt(t, replInfo(t, p.Client), "master_repl_offset"); after <= offset {
			t.Errorf("master_repl_offset %d after a write, was %d: want it to grow", after, offset)
		}
		start := time.Now()
		run(t, p.Client, []step{{cmd("WAIT", 2, 300), 1}})
		if waited := time.Since(start); waited < 250*time.Millisecond {
			t.Errorf("WAIT 2 300 with one replica returned after %v, want its 300ms timeout", waited)
		}
		run(t, r.Client, []step{{cmd("GET", "k"), "v4"}})

		checkExpiryOnReplica(t, p, r)
		checkManualReplicaOf(t, set)

		// REPLICAOF NO ONE promotes at once, keeping the old primary's
		// history as its second one (a replica of it may resume from
		// there); the old primary sees its replica go.
		oldID := replInfo(t, p.Client)["master_replid"]
		run(t, r.Client, []step{
			{cmd("REPLICAOF", "NO", "ONE"), ok},
			{cmd("SET", "k", "v5"), ok},
			{cmd("GET", "k"), "v5"},
			{cmd("ROLE"), []any{"master", anyInt, emptyArr}},
		})
		promoted := replInfo(t, r.Client)
		checkFields(t, "promoted replica", promoted, map[string]string{
			"role":               "^master$",
			"master_replid2":     "^" + oldID + "$",
			"second_repl_offset": `^[1-9]\d*$`,
		})
		if promoted["master_replid"] == oldID {
			t.Errorf("promoted replica kept master_replid %s: want a new history", oldID)
		}
		pollUntil(t, 10*time.Second, func() (bool, string) {
			n := replInfo(t, p.Client)["connected_slaves"]
			return n == "0", "connected_slaves:" + n + " on the old primary, want 0"
		})
		run(t, p.Client, []step{{cmd("GET", "k"), "v4"}})
	})
}

// checkRoles checks ROLE on a primary with one replica, r, and on r.
func checkRoles(t *testing.T, p, r *serverProc) {
	t.Helper()
	digits := matchesRe(`^\d+$`)
	run(t, p.Client, []step{
		{cmd("ROLE"), []any{"master", anyInt, []any{[]any{"127.0.0.1", strconv.Itoa(r.Port), digits}}}},
	})
	run(t, r.Client, []step{
		{cmd("ROLE"), []any{"slave", "127.0.0.1", p.Port, "connected", anyInt}},
	})
}

// checkReplInfo checks the INFO replication fields of a primary with one
// synced replica, r, and of r.
func checkReplInfo(t *testing.T, p, r *serverProc) {
	t.Helper()
	replID := `^[0-9a-f]{40}$`
	integer := `^-?\d+$`
	pi := replInfo(t, p.Client)
	checkFields(t, "primary", pi, map[string]string{
		"role":               "^master$",
		"connected_slaves":   "^1$",
		"slave0":             fmt.Sprintf(`^ip=127\.0\.0\.1,port=%d,state=online,offset=\d+,lag=\d+$`, r.Port),
		"master_replid":      replID,
		"master_replid2":     replID,
		"master_repl_offset": `^\d+$`,
		"second_repl_offset": integer,
	})
	ri := replInfo(t, r.Client)
	checkFields(t, "replica", ri, map[string]string{
		"role":                       "^slave$",
		"master_host":                `^127\.0\.0\.1$`,
		"master_port":                fmt.Sprintf("^%d$", p.Port),
		"master_link_status":         "^up$",
		"master_last_io_seconds_ago": `^\d+$`,
		"master_sync_in_progress":    "^0$",
		"slave_read_repl_offset":     `^\d+$`,
		"slave_repl_offset":          `^\d+$`,
		"slave_priority":             "^100$",
		"slave_read_only":            "^1$",
		"connected_slaves":           "^0$",
		"master_replid":              "^" + pi["master_replid"] + "$", // the primary's history
		"master_replid2":             replID,
		"master_repl_offset":         `^\d+$`,
		"second_repl_offset":         integer,
	})
	if _, down := ri["master_link_down_since_seconds"]; down {
		t.Errorf("replica INFO has master_link_down_since_seconds while the link is up")
	}
	if io := infoFieldInt(t, ri, "master_last_io_seconds_ago"); io > 15 {
		t.Errorf("replica master_last_io_seconds_ago:%d, want a recent exchange", io)
	}
}

// checkFields fails for each field of info that is missing or does not
// match its regular expression.
func checkFields(t *testing.T, who string, info map[string]string, want map[string]string) {
	t.Helper()
	for field, expr := range want {
		got, found := info[field]
		if !found {
			t.Errorf("%s INFO lacks %s", who, field)
			continue
		}
		if why := matchesRe(expr).match(got); why != "" {
			t.Errorf("%s INFO %s:%s does not match %s", who, field, got, expr)
		}
	}
}

// checkExpiryOnReplica: a key the primary gave a 300ms TTL is readable on
// the replica before, and never after, its expiry time, whether or not the
// primary's deletion has arrived yet: a replica's reads treat a logically
// expired key as absent. A read that saw the key gone must not be followed
// by one that sees it again.
func checkExpiryOnReplica(t *testing.T, p, r *serverProc) {
	t.Helper()
	const ttl = 300 * time.Millisecond
	run(t, p.Client, []step{{cmd("SET", "ttl:k", "v"), ok}})
	sent := time.Now()
	run(t, p.Client, []step{{cmd("PEXPIRE", "ttl:k", ttl.Milliseconds()), 1}, {cmd("WAIT", 1, 5000), 1}})
	// The primary set the expiry between sent and replied; the key is
	// surely expired from replied+ttl on (plus a millisecond of rounding).
	replied := time.Now()
	expiredBy := replied.Add(ttl + 2*time.Millisecond)
	if time.Since(sent) < ttl/2 {
		run(t, r.Client, []step{
			{cmd("GET", "ttl:k"), "v"},
			{cmd("PTTL", "ttl:k"), between(1, ttl.Milliseconds())},
		})
	} else {
		t.Logf("WAIT took %v: too slow to read the key before its expiry", time.Since(sent))
	}
	ctx := ctxT(t)
	sawGone := false
	for time.Now().Before(expiredBy.Add(time.Second)) {
		readAt := time.Now()
		pipe := r.Client.Pipeline()
		get := pipe.Get(ctx, "ttl:k")
		pttl := pipe.PTTL(ctx, "ttl:k")
		if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
			t.Fatalf("GET/PTTL on the replica: %v", err)
		}
		visible := get.Err() == nil
		switch {
		case visible && readAt.After(expiredBy):
			t.Fatalf("replica returned %q for ttl:k %v after its expiry (PTTL %v)", get.Val(), readAt.Sub(expiredBy)+2*time.Millisecond, pttl.Val())
		case visible && sawGone:
			t.Fatalf("replica returned ttl:k again after it had reported it gone")
		case !visible && !errors.Is(get.Err(), redis.Nil):
			t.Fatalf("GET ttl:k on the replica: %v", get.Err())
		case !visible && pttl.Val() != -2*time.Nanosecond && readAt.After(expiredBy):
			t.Fatalf("replica PTTL ttl:k = %v after its expiry, want -2", pttl.Val())
		}
		sawGone = sawGone || !visible || pttl.Val() == -2*time.Nanosecond
		time.Sleep(10 * time.Millisecond)
	}
	run(t, r.Client, []step{{cmd("EXISTS", "ttl:k"), 0}, {cmd("GET", "ttl:k"), isNil}})
	// The primary's active expiry removes the key; the removal reaches the
	// replica, whose key count follows.
	pollUntil(t, 10*time.Second, func() (bool, string) {
		n := doInt(t, p.Client, "DBSIZE")
		return n == 1, fmt.Sprintf("primary DBSIZE %d, want 1 once active expiry removed ttl:k", n)
	})
	waitInSync(t, 10*time.Second, p, r)
	run(t, r.Client, []step{{cmd("DBSIZE"), 1}})
}

// checkManualReplicaOf: REPLICAOF and SLAVEOF sent to a running primary
// with no replicas make it a replica (a full sync replaces its data with
// the primary's), and the same command's NO ONE makes it a primary again,
// keeping the data.
func checkManualReplicaOf(t *testing.T, set *replSet) {
	t.Helper()
	p := set.Primary
	for _, command := range []string{"REPLICAOF", "SLAVEOF"} {
		s := set.startServer("", "")
		run(t, s.Client, []step{
			{cmd("SET", "own", "x"), ok},
			{cmd(command, "127.0.0.1", p.Port), ok},
		})
		waitLinkUp(t, s, replSyncTimeout)
		waitInSync(t, 10*time.Second, p, s)
		run(t, s.Client, []step{
			{cmd("GET", "k"), "v4"},
			{cmd("EXISTS", "own"), 0}, // the sync replaced its data
			{cmd("SET", "own", "y"), errText(errReadOnly)},
			{cmd("ROLE"), []any{"slave", "127.0.0.1", p.Port, "connected", anyInt}},
			{cmd(command, "NO", "ONE"), ok},
			{cmd("SET", "own", "y"), ok},
			{cmd("GET", "k"), "v4"},
		})
		s.Stop()
	}
	checkSyncCounts(t, p, "two more replicas synced", map[string]string{"sync_full": "^3$", "sync_partial_ok": "^0$"})
}

// checkSyncCounts checks the primary's INFO stats sync counters.
func checkSyncCounts(t *testing.T, p *serverProc, when string, want map[string]string) {
	t.Helper()
	checkFields(t, "primary, "+when+",", infoFields(doStr(t, p.Client, "INFO", "stats")), want)
}

// TestReplicationAuthAndAnnounce: a replica authenticates to a primary
// with requirepass through masterauth, and without it never gets its link
// up (until CONFIG SET masterauth, which the next attempt uses); the
// primary lists a replica under its replica-announce-ip and -port; the
// replica reports its replica-priority; min-replicas-to-write refuses
// writes with NOREPLICAS while too few replicas are connected. About 5 s
// per backend.
func TestReplicationAuthAndAnnounce(t *testing.T) {
	t.Parallel()
	forEachReplBackend(t, func(t *testing.T, backend string) {
		p := startBackend(t, backend, shaleOpts{Config: "[server]\nrequirepass = \"secret\"\n"}, "--requirepass", "secret")
		pc := newClient(p.Addr, "secret")
		t.Cleanup(func() { pc.Close() })
		run(t, pc, []step{{cmd("SET", "k", "v"), ok}})

		r1 := startBackend(t, backend, shaleOpts{})
		run(t, r1.Client, []step{
			{cmd("CONFIG", "SET", "masterauth", "secret"), ok},
			{cmd("CONFIG", "SET", "replica-announce-ip", "10.1.2.3"), ok},
			{cmd("CONFIG", "SET", "replica-announce-port", 7777), ok},
			{cmd("CONFIG", "SET", "replica-priority", 42), ok},
			{cmd("REPLICAOF", "127.0.0.1", p.Port), ok},
		})
		waitLinkUp(t, r1, replSyncTimeout)
		run(t, r1.Client, []step{{cmd("GET", "k"), "v"}})
		if got := replInfo(t, r1.Client)["slave_priority"]; got != "42" {
			t.Errorf("replica slave_priority:%s after CONFIG SET replica-priority 42", got)
		}
		waitOnline(t, pc, 1)
		checkFields(t, "primary", replInfo(t, pc), map[string]string{
			"slave0": `^ip=10\.1\.2\.3,port=7777,state=online,offset=\d+,lag=\d+$`,
		})
		run(t, pc, []step{
			{cmd("ROLE"), []any{"master", anyInt, []any{[]any{"10.1.2.3", "7777", matchesRe(`^\d+$`)}}}},
		})

		// Without masterauth the primary refuses the replica; Redis
		// retries every second, and the retry after CONFIG SET succeeds.
		r2 := startBackend(t, backend, shaleOpts{})
		run(t, r2.Client, []step{{cmd("REPLICAOF", "127.0.0.1", p.Port), ok}})
		time.Sleep(2 * time.Second)
		checkFields(t, "replica without masterauth", replInfo(t, r2.Client), map[string]string{
			"master_link_status":             "^down$",
			"master_link_down_since_seconds": `^-?\d+$`,
		})
		run(t, r2.Client, []step{{cmd("ROLE"), []any{"slave", "127.0.0.1", p.Port, oneOf("connect", "connecting", "handshake", "sync"), anyInt}}})
		run(t, r2.Client, []step{{cmd("GET", "k"), isNil}})
		run(t, r2.Client, []step{{cmd("CONFIG", "SET", "masterauth", "secret"), ok}})
		waitLinkUp(t, r2, replSyncTimeout)
		run(t, r2.Client, []step{{cmd("GET", "k"), "v"}})
		waitOnline(t, pc, 2)

		run(t, pc, []step{
			{cmd("CONFIG", "SET", "min-replicas-to-write", 3), ok},
			{cmd("SET", "k", "v2"), errText("NOREPLICAS Not enough good replicas to write.")},
			{cmd("GET", "k"), "v"},
			{cmd("CONFIG", "SET", "min-replicas-to-write", 2), ok},
			{cmd("SET", "k", "v3"), ok},
			{cmd("WAIT", 2, 5000), 2},
		})
		run(t, r2.Client, []step{{cmd("GET", "k"), "v3"}})
	})
}

// replLibrary is a function library with a read-only function and a
// writing one.
const replLibrary = `#!lua name=rlib
redis.register_function{function_name='rget', callback=function(keys) return redis.call('GET', keys[1]) end, flags={'no-writes'}}
redis.register_function('rset', function(keys, args) return redis.call('SET', keys[1], args[1]) end)`

// waitOnline polls until the primary lists n replicas, all online. A
// replica's link is up once it loaded the primary's data; the primary lists
// it online (in ROLE, and as a good replica for min-replicas-to-write) once
// it acknowledged that, a moment later.
func waitOnline(t *testing.T, primary *redis.Client, n int) {
	t.Helper()
	pollUntil(t, 10*time.Second, func() (bool, string) {
		info := replInfo(t, primary)
		online := 0
		for i := range n {
			if strings.Contains(info["slave"+strconv.Itoa(i)], "state=online") {
				online++
			}
		}
		return info["connected_slaves"] == strconv.Itoa(n) && online == n,
			fmt.Sprintf("primary connected_slaves:%s, %d of %d online", info["connected_slaves"], online, n)
	})
}

// TestReplicationFunctionsAndPubSub: functions are data, so a library
// loaded on the primary reaches the replica, where its read-only function
// runs and its writing one gets READONLY; PUBLISH on the primary reaches
// the replica's subscribers, as Redis propagates it. About 1 s per backend.
func TestReplicationFunctionsAndPubSub(t *testing.T) {
	t.Parallel()
	forEachReplBackend(t, func(t *testing.T, backend string) {
		set := startReplSet(t, backend, 1, "")
		p, r := set.Primary, set.Replicas[0]
		ctx := ctxT(t)
		sub := r.Client.Subscribe(ctx, "news")
		t.Cleanup(func() { sub.Close() })
		if _, err := sub.Receive(ctx); err != nil {
			t.Fatalf("SUBSCRIBE on the replica: %v", err)
		}
		run(t, p.Client, []step{
			{cmd("SET", "k", "v1"), ok},
			{cmd("FUNCTION", "LOAD", replLibrary), "rlib"},
			{cmd("PUBLISH", "news", "hello"), 0}, // the replica's subscriber is not the primary's
			{cmd("WAIT", 1, 5000), 1},
		})
		msgCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		msg, err := sub.ReceiveMessage(msgCtx)
		if err != nil {
			t.Fatalf("the replica's subscriber got no message published on the primary: %v", err)
		}
		if msg.Channel != "news" || msg.Payload != "hello" {
			t.Errorf("the replica's subscriber got %s %q, want news \"hello\"", msg.Channel, msg.Payload)
		}
		run(t, r.Client, []step{
			{cmd("FUNCTION", "LIST", "LIBRARYNAME", "rlib"), arrayOfLen(1)},
			{cmd("FUNCTION", "FLUSH"), errText(errReadOnly)},
		})
		t.Run("fcall", func(t *testing.T) {
			run(t, r.Client, []step{
				{cmd("FCALL_RO", "rget", 1, "k"), "v1"},
				{cmd("FCALL", "rget", 1, "k"), "v1"},
				{cmd("FCALL", "rset", 1, "k", "x"), errText(errReadOnly)},
				{cmd("GET", "k"), "v1"},
			})
		})
	})
}

// TestReplicationPromotion: keys a promoted replica creates hold exactly
// what is written to them, beside the live and deleted collections the
// old primary created: a promoted replica must not hand out again the
// storage identities (shale: UIDs) the old primary allocated, whose
// sub-keys (live, or deleted and not yet compacted away) it holds. The
// reclaimer is held off so that the deleted ones stay on disk. About 3 s
// per backend.
func TestReplicationPromotion(t *testing.T) {
	t.Parallel()
	forEachReplBackend(t, func(t *testing.T, backend string) {
		set := startReplSet(t, backend, 1, "[compaction]\nreclaim_min_elements = 1000000000\n")
		p, r := set.Primary, set.Replicas[0]
		const n = 100
		writeCollections(t, p.Client, "old", n, func(i int) string { return "v" + strconv.Itoa(i) })
		var dels []any
		for i := 0; i < n; i += 2 {
			dels = append(dels, "old:h:"+strconv.Itoa(i), "old:l:"+strconv.Itoa(i), "old:s:"+strconv.Itoa(i), "old:z:"+strconv.Itoa(i))
		}
		run(t, p.Client, []step{{append([]any{"DEL"}, dels...), len(dels)}})
		waitInSync(t, 10*time.Second, p, r)
		compareServers(t, p.Client, r.Client, 0)

		run(t, r.Client, []step{{cmd("REPLICAOF", "NO", "ONE"), ok}})
		writeCollections(t, r.Client, "new", 2*n, func(int) string { return "x" })
		checkCollections(t, r.Client, "new", 2*n, func(int) string { return "x" })
		checkCollections(t, r.Client, "old", n, func(i int) string {
			if i%2 == 0 {
				return "" // deleted
			}
			return "v" + strconv.Itoa(i)
		})
		run(t, r.Client, []step{{cmd("DBSIZE"), 4 * (2*n + n/2)}})
	})
}

// writeCollections creates, for i < n, a hash, a list, a set and a sorted
// set named prefix:h:i ... each holding the one element val(i).
func writeCollections(t *testing.T, c *redis.Client, prefix string, n int, val func(i int) string) {
	t.Helper()
	ctx := ctxT(t)
	pipe := c.Pipeline()
	for i := range n {
		name := prefix + ":%s:" + strconv.Itoa(i)
		pipe.HSet(ctx, fmt.Sprintf(name, "h"), "f", val(i))
		pipe.RPush(ctx, fmt.Sprintf(name, "l"), val(i))
		pipe.SAdd(ctx, fmt.Sprintf(name, "s"), val(i))
		pipe.ZAdd(ctx, fmt.Sprintf(name, "z"), redis.Z{Score: 1, Member: val(i)})
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatalf("writing %s collections: %v", prefix, err)
	}
}

// checkCollections checks that each collection writeCollections made holds
// exactly its element, or is gone where val(i) is "".
func checkCollections(t *testing.T, c *redis.Client, prefix string, n int, val func(i int) string) {
	t.Helper()
	var steps []step
	for i := range n {
		name := prefix + ":%s:" + strconv.Itoa(i)
		v := val(i)
		if v == "" {
			steps = append(steps, step{cmd("EXISTS", fmt.Sprintf(name, "h"), fmt.Sprintf(name, "l"), fmt.Sprintf(name, "s"), fmt.Sprintf(name, "z")), 0})
			continue
		}
		steps = append(steps,
			step{cmd("HGETALL", fmt.Sprintf(name, "h")), []any{"f", v}},
			step{cmd("LRANGE", fmt.Sprintf(name, "l"), 0, -1), []any{v}},
			step{cmd("SMEMBERS", fmt.Sprintf(name, "s")), []any{v}},
			step{cmd("ZRANGE", fmt.Sprintf(name, "z"), 0, -1, "WITHSCORES"), []any{v, "1"}},
		)
	}
	run(t, c, steps)
}

// TestReplicationFailoverByHand does what Sentinel does in a failover: it
// promotes one replica, points the other at it, and makes the old primary
// a replica of it too. Everything converges to the new primary's content,
// and the other replica resumes from its position: the promoted replica
// kept the old history as its second one, so no full sync is needed
// (sync_partial_ok on the new primary). About 2 s per backend.
func TestReplicationFailoverByHand(t *testing.T) {
	t.Parallel()
	forEachReplBackend(t, func(t *testing.T, backend string) {
		set := startReplSet(t, backend, 2, "")
		p, r1, r2 := set.Primary, set.Replicas[0], set.Replicas[1]
		runReplLoad(t, p, 2, 2000, 3)
		waitInSync(t, 30*time.Second, p, r1, r2)

		run(t, r1.Client, []step{{cmd("REPLICAOF", "NO", "ONE"), ok}})
		before := infoFields(doStr(t, r1.Client, "INFO", "stats"))
		run(t, r2.Client, []step{{cmd("REPLICAOF", "127.0.0.1", r1.Port), ok}})
		runReplLoad(t, r1, 2, 2000, 4)
		waitLinkUp(t, r2, replSyncTimeout)
		waitInSync(t, 30*time.Second, r1, r2)
		after := infoFields(doStr(t, r1.Client, "INFO", "stats"))
		t.Logf("%s: new primary sync_full %s -> %s, sync_partial_ok %s -> %s", backend,
			before["sync_full"], after["sync_full"], before["sync_partial_ok"], after["sync_partial_ok"])
		if after["sync_full"] != before["sync_full"] || after["sync_partial_ok"] == before["sync_partial_ok"] {
			t.Errorf("the other replica synced in full from the promoted one (sync_full %s -> %s, sync_partial_ok %s -> %s): want a partial resync",
				before["sync_full"], after["sync_full"], before["sync_partial_ok"], after["sync_partial_ok"])
		}
		pollUntil(t, 10*time.Second, func() (bool, string) {
			n := replInfo(t, p.Client)["connected_slaves"]
			return n == "0", "connected_slaves:" + n + " on the old primary, want 0"
		})

		run(t, p.Client, []step{{cmd("REPLICAOF", "127.0.0.1", r1.Port), ok}})
		waitLinkUp(t, p, replSyncTimeout)
		waitInSync(t, 30*time.Second, r1, r2, p)
		for db := range 3 {
			compareServers(t, r1.Client, r2.Client, db)
			compareServers(t, r1.Client, p.Client, db)
		}
		if n := replInfo(t, r1.Client)["connected_slaves"]; n != "2" {
			t.Errorf("new primary connected_slaves:%s, want 2", n)
		}
	})
}

// TestReplicationConvergence: a primary and two replicas; 200,000 writes
// of every type from 8 concurrent pipelined writers (replLoad), then both
// replicas hold exactly the primary's databases 0, 1 and 2. About 3 s on
// redis and 15 s on shale (2 cores).
func TestReplicationConvergence(t *testing.T) {
	t.Parallel()
	forEachReplBackend(t, func(t *testing.T, backend string) {
		set := startReplSet(t, backend, 2, "")
		start := time.Now()
		runReplLoad(t, set.Primary, 8, 200000, 21)
		t.Logf("%s: 200000 writes in %v", backend, time.Since(start).Round(time.Millisecond))
		for _, r := range set.Replicas {
			primaryOffset, replicaOffset := replOffsets(t, set.Primary, r)
			t.Logf("%s: after the load, replica %s is at offset %d of %d", backend, r.Addr, replicaOffset, primaryOffset)
		}
		start = time.Now()
		waitInSync(t, 60*time.Second, set.Primary, set.Replicas...)
		t.Logf("%s: replicas in sync %v after the last write", backend, time.Since(start).Round(time.Millisecond))
		for _, r := range set.Replicas {
			for db := range 3 {
				types := compareServers(t, set.Primary.Client, r.Client, db)
				if db < 2 && len(types) < len(loadTypes) {
					t.Errorf("db %d holds keys of types %v, want all of %v: the load is lopsided", db, types, loadTypes)
				}
			}
		}
	})
}

// TestReplicationChained: a replica of a replica converges to the top
// primary's content, and reports its own primary, the middle server.
// About 5 s per backend.
func TestReplicationChained(t *testing.T) {
	t.Parallel()
	forEachReplBackend(t, func(t *testing.T, backend string) {
		set := startReplSet(t, backend, 1, "")
		mid := set.Replicas[0]
		leaf := set.AddReplica(mid.Addr)
		runReplLoad(t, set.Primary, 4, 20000, 7)
		waitInSync(t, 60*time.Second, set.Primary, mid, leaf)
		for db := range 3 {
			compareServers(t, set.Primary.Client, leaf.Client, db)
		}
		run(t, leaf.Client, []step{
			{cmd("ROLE"), []any{"slave", "127.0.0.1", mid.Port, "connected", anyInt}},
			{cmd("SET", "k", "v"), errText(errReadOnly)},
		})
		run(t, mid.Client, []step{
			{cmd("ROLE"), []any{"slave", "127.0.0.1", set.Primary.Port, "connected", anyInt}},
		})
		if n := replInfo(t, mid.Client)["connected_slaves"]; n != "1" {
			t.Errorf("middle server connected_slaves:%s, want 1 (the leaf)", n)
		}
	})
}

// TestReplicationBigDel: DEL of a 1,000,000-field hash reaches the replica
// as one small write, the key is gone there, and (shale) the replica's own
// reclaimer drops the hash's sub-keys from its disk. The catch-up time is
// logged, for comparison with Redis, not asserted. About 3 s on redis and
// 12 s on shale.
func TestReplicationBigDel(t *testing.T) {
	t.Parallel()
	forEachReplBackend(t, func(t *testing.T, backend string) {
		set := startReplSet(t, backend, 1, debugConfig)
		p, r := set.Primary, set.Replicas[0]
		const n = 1000000
		start := time.Now()
		fill(t, p.Client, "HSET", "big", n, func(i int) []any { return []any{"f" + strconv.Itoa(i), "v" + strconv.Itoa(i)} })
		run(t, p.Client, []step{{cmd("HSET", "small", "a", "1"), 1}})
		waitInSync(t, 120*time.Second, p, r)
		t.Logf("%s: %d fields written and replicated in %v", backend, n, time.Since(start).Round(time.Millisecond))
		run(t, r.Client, []step{{cmd("HLEN", "big"), n}})
		if backend == "shale" {
			run(t, r.Client, []step{{cmd("DEBUG", "CF-RECORDS", "subkey"), n + 1}})
		}

		run(t, p.Client, []step{{cmd("DEL", "big"), 1}})
		start = time.Now()
		want, _ := replOffsets(t, p, r)
		pollUntil(t, 30*time.Second, func() (bool, string) {
			_, got := replOffsets(t, p, r)
			return got >= want, fmt.Sprintf("replica slave_repl_offset %d, want %d", got, want)
		})
		t.Logf("%s: replica applied the DEL %v after it was sent", backend, time.Since(start).Round(time.Microsecond))
		run(t, r.Client, []step{
			{cmd("EXISTS", "big"), 0},
			{cmd("HLEN", "big"), 0},
			{cmd("DBSIZE"), 1},
			{cmd("HGETALL", "small"), []any{"a", "1"}},
		})
		if backend != "shale" {
			return
		}
		start = time.Now()
		pollUntil(t, 60*time.Second, func() (bool, string) {
			got := cfRecords(t, r.Client, "subkey")
			return got == 1, fmt.Sprintf("replica DEBUG CF-RECORDS subkey = %d, want 1 (the small hash's)", got)
		})
		t.Logf("shale: replica reclaimed %d sub-keys in %v", n, time.Since(start).Round(time.Millisecond))
	})
}

// runReplLoad sends writes write commands, of every type, from writers
// concurrent connections to p, each pipelining a stream of commands drawn
// from its own generator (seed, writer index). Commands that may fail by
// design (RENAME of a missing key, XGROUP CREATE of an existing group, ...)
// may fail with their expected errors; any other error fails the test.
func runReplLoad(t *testing.T, p *serverProc, writers, writes int, seed uint64) {
	t.Helper()
	errs := make(chan error, writers)
	var wg sync.WaitGroup
	for w := range writers {
		conn := newConn(t, p.Addr)
		gen := &loadGen{rng: rand.New(rand.NewPCG(seed, uint64(w)))}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- gen.send(conn, writes/writers)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// loadPipeline is how many commands a writer sends per round trip.
const loadPipeline = 100

// loadNames is how many key names each type has: few enough that keys
// are written many times over (overwrites, RENAME onto live keys).
const loadNames = 200

// loadTolerated are the error replies the load may get by design.
var loadTolerated = []string{"BUSYGROUP", "NOGROUP", "ERR no such key", "ERR index out of range"}

// loadGen draws write commands. Each key-name prefix holds one type, so
// that no command meets a key of the wrong type: s strings, i integers,
// f floats, b bitmaps, p HyperLogLogs, h hashes, l lists, t sets, z
// sorted sets, g geo sets, x streams. RENAME, COPY, MOVE and SWAPDB keep a
// name's prefix.
type loadGen struct {
	rng *rand.Rand
}

var loadPrefixes = []string{"s", "i", "f", "b", "p", "h", "l", "t", "z", "g", "x"}

// loadTypes are the types the load's keys have.
var loadTypes = []string{"string", "hash", "list", "set", "zset", "stream"}

// Scripts the load runs: stream edits that need an entry's ID, which a
// pipelined writer does not know, and a write to two keys.
const (
	scriptXDelFirst = `local r = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 1)
if #r == 0 then return 0 end
return redis.call('XDEL', KEYS[1], r[1][1])`
	scriptXAckFirst = `local p = redis.pcall('XPENDING', KEYS[1], 'grp', '-', '+', 1)
if type(p) ~= 'table' or p.err or #p == 0 then return 0 end
return redis.call('XACK', KEYS[1], 'grp', p[1][1])`
	scriptIncrPush = `redis.call('INCRBY', KEYS[1], ARGV[1])
return redis.call('RPUSH', KEYS[2], ARGV[2])`
)

// send sends n write commands (plus the SELECT, MULTI and EXEC around
// some of them) on conn and checks every reply.
func (g *loadGen) send(conn *redis.Conn, n int) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for sent := 0; sent < n; {
		pipe := conn.Pipeline()
		for pipe.Len() < loadPipeline && sent < n {
			unit, writes := g.unit()
			for _, args := range unit {
				pipe.Do(ctx, args...)
			}
			sent += writes
		}
		cmds, err := pipe.Exec(ctx)
		if err != nil && cmds == nil {
			return fmt.Errorf("load pipeline: %w", err)
		}
		for _, c := range cmds {
			if err := loadReplyError(c); err != nil {
				return err
			}
		}
	}
	return nil
}

// loadReplyError returns the reply's error, or an error element of
// EXEC's reply, unless the load expects it.
func loadReplyError(c redis.Cmder) error {
	err := c.Err()
	if cmd, isCmd := c.(*redis.Cmd); isCmd && err == nil {
		if elems, isArr := cmd.Val().([]any); isArr {
			for _, e := range elems {
				if elemErr, isErr := e.(error); isErr && !tolerated(elemErr) {
					return fmt.Errorf("%s: element error %v", fmtArgs(c.Args()), elemErr)
				}
			}
		}
	}
	if err == nil || errors.Is(err, redis.Nil) || tolerated(err) {
		return nil
	}
	return fmt.Errorf("%s: %w", fmtArgs(c.Args()), err)
}

func tolerated(err error) bool {
	for _, prefix := range loadTolerated {
		if strings.HasPrefix(err.Error(), prefix) {
			return true
		}
	}
	return false
}

// unit returns the next commands to send together, and how many of them
// are writes: one command, a MULTI/EXEC block, a visit to db 2 (which may
// end in FLUSHDB), or SWAPDB 0 1.
func (g *loadGen) unit() (cmds [][]any, writes int) {
	switch r := g.rng.IntN(1000); {
	case r < 1:
		return [][]any{{"SWAPDB", 0, 1}}, 1
	case r < 6:
		cmds = append(cmds, []any{"SELECT", 2})
		n := 2 + g.rng.IntN(6)
		for range n {
			cmds = append(cmds, g.command())
		}
		if g.rng.IntN(3) == 0 {
			cmds = append(cmds, []any{"FLUSHDB"})
			n++
		}
		return append(cmds, []any{"SELECT", 0}), n
	case r < 26:
		cmds = append(cmds, []any{"MULTI"})
		n := 2 + g.rng.IntN(4)
		for range n {
			cmds = append(cmds, g.command())
		}
		return append(cmds, []any{"EXEC"}), n
	}
	return [][]any{g.command()}, 1
}

func (g *loadGen) name(prefix string) string {
	return prefix + ":" + strconv.Itoa(g.rng.IntN(loadNames))
}

// otherName returns a second name of prefix: COPY refuses a key onto itself.
func (g *loadGen) otherName(prefix string) string {
	return prefix + ":" + strconv.Itoa(loadNames+g.rng.IntN(loadNames))
}

func (g *loadGen) member(prefix string, n int) string {
	return prefix + strconv.Itoa(g.rng.IntN(n))
}

// score returns a score whose sums stay exact in binary.
func (g *loadGen) score() string {
	return strconv.FormatFloat(float64(g.rng.IntN(200)-100)/4, 'f', -1, 64)
}

func (g *loadGen) pick(cmds ...[]any) []any {
	return cmds[g.rng.IntN(len(cmds))]
}

// command returns one write command: 15% on the keyspace (TTLs, DEL,
// RENAME, COPY, MOVE), the rest on a key of one type.
func (g *loadGen) command() []any {
	prefix := loadPrefixes[g.rng.IntN(len(loadPrefixes))]
	k, other := g.name(prefix), g.otherName(prefix)
	if g.rng.IntN(100) < 15 {
		return g.pick(
			[]any{"EXPIRE", k, 3600 + g.rng.IntN(3600)},
			[]any{"PEXPIREAT", k, time.Now().Add(2 * time.Hour).UnixMilli()},
			[]any{"PERSIST", k},
			[]any{"DEL", k},
			[]any{"UNLINK", k, other},
			[]any{"RENAME", k, other},
			[]any{"RENAMENX", k, other},
			[]any{"COPY", k, other, "REPLACE"},
			[]any{"MOVE", k, 1},
		)
	}
	val := g.member("v", 1000)
	switch prefix {
	case "s":
		return g.pick(
			[]any{"SET", k, val},
			[]any{"SET", k, val, "EX", 3600},
			[]any{"APPEND", k, val},
			[]any{"SETRANGE", k, g.rng.IntN(64), val},
		)
	case "i":
		return g.pick([]any{"INCR", k}, []any{"INCRBY", k, g.rng.IntN(1000) - 500}, []any{"DECR", k})
	case "f":
		return []any{"INCRBYFLOAT", k, g.score()}
	case "b":
		return g.pick(
			// Offsets up to 100,000 bits: bitmaps of several 4 KiB fragments.
			[]any{"SETBIT", k, g.rng.IntN(100000), g.rng.IntN(2)},
			[]any{"SETBIT", k, g.rng.IntN(100000), 1},
			[]any{"BITOP", []string{"OR", "AND", "XOR"}[g.rng.IntN(3)], k, other, g.name("b")},
			[]any{"BITOP", "NOT", k, other},
		)
	case "p":
		if g.rng.IntN(20) == 0 {
			return []any{"PFMERGE", k, other, g.name("p")}
		}
		return []any{"PFADD", k, g.member("e", 20000), g.member("e", 20000), g.member("e", 20000)}
	case "h":
		return g.pick(
			[]any{"HSET", k, g.member("f", 50), val, g.member("f", 50), val},
			[]any{"HSETNX", k, g.member("f", 50), val},
			[]any{"HDEL", k, g.member("f", 50), g.member("f", 50)},
			[]any{"HINCRBY", k, g.member("n", 10), g.rng.IntN(100)},
			[]any{"HINCRBYFLOAT", k, g.member("d", 10), g.score()},
		)
	case "l":
		return g.pick(
			[]any{"LPUSH", k, val, g.member("v", 1000)},
			[]any{"RPUSH", k, val},
			[]any{"LPOP", k},
			[]any{"RPOP", k, 2},
			[]any{"LTRIM", k, 0, 49},
			[]any{"LREM", k, 0, val},
			[]any{"LINSERT", k, "BEFORE", val, g.member("v", 1000)},
			[]any{"LMOVE", k, other, "LEFT", "RIGHT"},
			[]any{"LSET", k, 0, val},
			[]any{"EVAL", scriptIncrPush, 2, g.name("i"), k, g.rng.IntN(10), val},
		)
	case "t":
		return g.pick(
			[]any{"SADD", k, g.member("m", 100), g.member("m", 100)},
			[]any{"SREM", k, g.member("m", 100)},
			[]any{"SPOP", k},
			[]any{"SMOVE", k, other, g.member("m", 100)},
			[]any{"SUNIONSTORE", k, other, g.name("t")},
			[]any{"SINTERSTORE", k, other, g.name("t")},
		)
	case "z":
		return g.pick(
			[]any{"ZADD", k, g.score(), g.member("m", 100), g.score(), g.member("m", 100)},
			[]any{"ZINCRBY", k, g.score(), g.member("m", 100)},
			[]any{"ZREM", k, g.member("m", 100)},
			[]any{"ZPOPMIN", k},
			[]any{"ZREMRANGEBYRANK", k, 0, 0},
			[]any{"ZUNIONSTORE", k, 2, other, g.name("z"), "WEIGHTS", 1, 2},
		)
	case "g":
		if g.rng.IntN(5) == 0 {
			return []any{"ZREM", k, g.member("m", 100)}
		}
		lon := strconv.FormatFloat(float64(g.rng.IntN(360000)-180000)/1000, 'f', -1, 64)
		lat := strconv.FormatFloat(float64(g.rng.IntN(170000)-85000)/1000, 'f', -1, 64)
		return []any{"GEOADD", k, lon, lat, g.member("m", 100)}
	case "x":
		return g.pick(
			[]any{"XADD", k, "*", "f", val},
			[]any{"XADD", k, "*", "f", val, "g", val},
			[]any{"XADD", k, "MAXLEN", "~", 40, "*", "f", val},
			[]any{"XTRIM", k, "MAXLEN", 30},
			[]any{"XGROUP", "CREATE", k, "grp", "0", "MKSTREAM"},
			[]any{"XREADGROUP", "GROUP", "grp", g.member("c", 3), "COUNT", 2, "STREAMS", k, ">"},
			[]any{"XAUTOCLAIM", k, "grp", g.member("c", 3), 0, "0", "COUNT", 1},
			[]any{"EVAL", scriptXDelFirst, 1, k},
			[]any{"EVAL", scriptXAckFirst, 1, k},
		)
	}
	panic("loadGen: unknown prefix " + prefix)
}

// TestReplicationTellsReaders: a replicated write, also one that changes
// only a member of a hash (whose metadata record stays as it was), dirties
// a WATCH on the replica and sends a tracking client of the replica its
// invalidation, as a write on the replica itself would. About 1 s per
// backend.
func TestReplicationTellsReaders(t *testing.T) {
	forEachReplBackend(t, func(t *testing.T, backend string) {
		set := startReplSet(t, backend, 1, "")
		p, r := set.Primary, set.Replicas[0]
		do(t, p.Client, "HSET", "h", "f", "v1", "g", "w1")
		waitInSync(t, 10*time.Second, p, r)

		watcher := r.Client.Conn()
		defer watcher.Close()
		do(t, watcher, "WATCH", "h")
		tracker := dialRaw(t, r.Addr)
		line := func() string { return strings.TrimSuffix(tracker.readLine(), "\r\n") }
		tracker.send("HELLO 3\r\n")
		for line() != "modules" {
			// HELLO's map ends with its modules entry.
		}
		line() // its empty array
		tracker.send("CLIENT TRACKING ON\r\n")
		if got := line(); got != "+OK" {
			t.Fatalf("CLIENT TRACKING ON: %q", got)
		}
		tracker.send("HGET h f\r\n")
		line()
		line() // $2 v1: h is tracked now

		do(t, p.Client, "HSET", "h", "f", "v2") // only a member changes
		waitInSync(t, 10*time.Second, p, r)

		if got := line(); got != ">2" {
			t.Fatalf("tracking client of the replica: %q after the replicated HSET, want an invalidation push", got)
		}
		for _, want := range []string{"$10", "invalidate", "*1", "$1", "h"} {
			if got := line(); got != want {
				t.Fatalf("invalidation push: %q, want %q", got, want)
			}
		}
		do(t, watcher, "MULTI")
		do(t, watcher, "HGET", "h", "f")
		if err := watcher.Do(ctxT(t), "EXEC").Err(); err != redis.Nil {
			t.Fatalf("EXEC after a replicated write of the watched key: %v, want a null reply", err)
		}
	})
}
