package tests

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

const (
	crashRounds  = 20
	crashWriters = 4
)

// TestCrashSafety kills the server with SIGKILL crashRounds times, each
// time while crashWriters clients write to it (SET, INCR, HSET, SADD, ZADD,
// RPUSH, XADD, DEL), once with the default settings and once with
// storage.sync_writes. After every restart: every acknowledged write is
// there, and each client's one unacknowledged command either fully
// happened or not at all; INCR counters are exact; DBSIZE counts exactly
// the keys that exist; every new uid is above every uid seen before and no
// two keys share one; and after a COMPACT all of that still holds and no
// orphan record is left. TestRestartKill is the single-round version with
// more uid cases.
func TestCrashSafety(t *testing.T) {
	t.Parallel()
	configs := []struct{ name, config string }{
		{"default", debugConfig},
		{"sync_writes", debugConfig + "[storage]\nsync_writes = true\n"},
	}
	for _, tc := range configs {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			seed := uint64(time.Now().UnixNano())
			t.Logf("crash: seed %d", seed)
			runCrashRounds(t, tc.config, rand.New(rand.NewPCG(seed, 0xc4a5)))
		})
	}
}

// crashWriter is one client of the load. It owns its keys, so its
// acknowledged writes alone define their content.
type crashWriter struct {
	id       int
	rng      *rand.Rand
	acked    *model   // what the acknowledged commands made, in db 0
	inflight *modelOp // the command sent when the server died, if any
	acks     int      // acknowledged commands, all rounds
	xid      int      // the ms of the writer's last XADD ID
	err      error    // a wrong reply
}

func (w *crashWriter) key(kind string, n int) string {
	return fmt.Sprintf("w%d:%s%d", w.id, kind, n)
}

// pick returns the writer's next command.
func (w *crashWriter) pick() modelOp {
	r := w.rng
	n := strconv.Itoa(r.IntN(1000))
	var args []string
	switch x := r.IntN(100); {
	case x < 15:
		args = []string{"SET", w.key("s", r.IntN(5)), "v" + n}
	case x < 30:
		args = []string{"INCR", w.key("ctr", r.IntN(2))}
	case x < 45:
		args = []string{"HSET", w.key("h", r.IntN(3)), "f" + strconv.Itoa(r.IntN(50)), "v" + n}
	case x < 60:
		args = []string{"SADD", w.key("set", r.IntN(3)), "m" + n}
	case x < 75:
		args = []string{"ZADD", w.key("z", r.IntN(3)), strconv.Itoa(r.IntN(100)), "m" + strconv.Itoa(r.IntN(50))}
	case x < 88:
		args = []string{"RPUSH", w.key("l", r.IntN(3)), "e" + n}
	case x < 95:
		// Explicit IDs, always above the last: the model has no clock.
		w.xid++
		args = []string{"XADD", w.key("x", r.IntN(3)), strconv.Itoa(w.xid) + "-*", "f", "v" + n}
		if r.IntN(4) == 0 {
			args = slices.Insert(args, 2, "MAXLEN", "20")
		}
	default:
		// Removal and re-creation: dead uids, fresh uids.
		kinds := []string{"h", "set", "z", "l", "x"}
		args = []string{"DEL", w.key(kinds[r.IntN(len(kinds))], r.IntN(3))}
	}
	return modelOp{kind: opCmd, args: args}
}

// run writes until its connection breaks (the kill), checking each reply
// against its model.
func (w *crashWriter) run(c *redis.Client) {
	ctx := context.Background()
	for {
		op := w.pick()
		w.inflight = &op
		v, err := c.Do(ctx, strsToAny(op.args)...).Result()
		if err != nil && !errors.Is(err, redis.Nil) && !isReplyError(err) {
			return // the server died: op stays in flight
		}
		w.inflight = nil
		want := w.acked.apply(op)
		w.acks++
		if why := matchReply(want, v, err); why != "" {
			w.err = fmt.Errorf("%s: got %s, want %s: %s", fmtArgs(strsToAny(op.args)), fmtReply(v, err), fmtVal(want), why)
			return
		}
	}
}

// keys lists every key the writer may write.
func (w *crashWriter) keys() []string {
	var keys []string
	for _, kind := range []string{"s", "ctr", "h", "set", "z", "l", "x"} {
		for n := range 5 { // pick's ranges are all below 5
			keys = append(keys, w.key(kind, n))
		}
	}
	return keys
}

func runCrashRounds(t *testing.T, config string, rng *rand.Rand) {
	writers := make([]*crashWriter, crashWriters)
	for i := range writers {
		writers[i] = &crashWriter{id: i, rng: rand.New(rand.NewPCG(rng.Uint64(), uint64(i))), acked: newModel()}
	}
	uids := map[string]int64{} // composite key -> uid at the last check
	var maxUID int64           // the highest uid seen at any check
	p := startShale(t, shaleOpts{Config: config})
	prevAcks := 0
	for round := 1; round <= crashRounds; round++ {
		killUnderLoad(p, rng, 200*time.Millisecond, len(writers), func(i int, c *redis.Client) { writers[i].run(c) })
		acks := 0
		for _, w := range writers {
			if w.err != nil {
				t.Fatalf("round %d: writer %d: %v", round, w.id, w.err)
			}
			acks += w.acks
		}
		if acks == prevAcks {
			// A round must kill the server under load, or it tests nothing.
			t.Fatalf("round %d: no write was acknowledged before the kill", round)
		}
		prevAcks = acks
		p = startShale(t, shaleOpts{Config: config, Dir: p.Dir})
		ctx := ctxT(t)
		if err := resolveInflight(ctx, p.Client, writers); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if err := checkCrashState(ctx, p.Client, writers); err != nil {
			t.Fatalf("round %d, after the restart: %v", round, err)
		}
		if err := checkUIDs(ctx, p.Client, writers, uids, &maxUID); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		do(t, p.Client, "COMPACT")
		if err := checkCrashState(ctx, p.Client, writers); err != nil {
			t.Fatalf("round %d, after COMPACT: %v", round, err)
		}
		if err := checkNoOrphans(ctx, p.Client, writers); err != nil {
			t.Fatalf("round %d, after COMPACT: %v", round, err)
		}
		t.Logf("round %d: %d writes acknowledged so far; highest uid %d", round, acks, maxUID)
	}
}

// resolveInflight decides, for each writer whose command got no reply,
// whether it happened: the key it touched must hold either what the
// acknowledged commands made or that plus the command, nothing else. The
// writer's model then follows what the server holds.
func resolveInflight(ctx context.Context, c *redis.Client, writers []*crashWriter) error {
	for _, w := range writers {
		op := w.inflight
		if op == nil {
			continue
		}
		w.inflight = nil
		key := op.args[1]
		without := w.acked.dbs[0][key]
		withOp := newModel()
		if without != nil {
			withOp.dbs[0][key] = without.clone()
		}
		withOp.apply(*op)
		if keyMatches(ctx, c, key, without) == nil {
			continue // not applied, or applied with no effect
		}
		if err := keyMatches(ctx, c, key, withOp.dbs[0][key]); err != nil {
			return fmt.Errorf("writer %d: key %s after the unacknowledged %s is neither its acknowledged state nor that plus the command: %v",
				w.id, key, fmtArgs(strsToAny(op.args)), err)
		}
		w.acked.apply(*op)
	}
	return nil
}

// keyMatches checks one key against v (nil: absent).
func keyMatches(ctx context.Context, c *redis.Client, key string, v *mval) error {
	var probes []probe
	pipe := c.Pipeline()
	addKeyProbes(func(want any, args ...any) {
		probes = append(probes, probe{0, args, pipe.Do(ctx, args...), want})
	}, key, v)
	return execProbes(ctx, pipe, probes)
}

// execProbes sends the pipeline and compares every reply.
func execProbes(ctx context.Context, pipe redis.Pipeliner, probes []probe) error {
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) && !isReplyError(err) {
		return fmt.Errorf("pipeline: %w", err)
	}
	for _, p := range probes {
		if why := matchReply(p.want, p.cmd.Val(), p.cmd.Err()); why != "" {
			return fmt.Errorf("%s: got %s, want %s: %s", fmtArgs(p.args), fmtReply(p.cmd.Val(), p.cmd.Err()), fmtVal(p.want), why)
		}
	}
	return nil
}

// checkCrashState compares every key the writers may have written, and
// DBSIZE, with the writers' models.
func checkCrashState(ctx context.Context, c *redis.Client, writers []*crashWriter) error {
	var probes []probe
	pipe := c.Pipeline()
	add := func(want any, args ...any) {
		probes = append(probes, probe{0, args, pipe.Do(ctx, args...), want})
	}
	live := 0
	for _, w := range writers {
		live += len(w.acked.dbs[0])
	}
	add(int64(live), "DBSIZE")
	for _, w := range writers {
		for _, k := range w.keys() {
			addKeyProbes(add, k, w.acked.dbs[0][k])
		}
	}
	return execProbes(ctx, pipe, probes)
}

// checkUIDs reads the uid of every live collection. A key that kept its
// uid since the last check is the same key; any other uid must be above
// every uid seen at earlier checks (it was allocated after the last restart
// or, if allocated before the kill, still above what was on disk then), and
// no two keys share one.
func checkUIDs(ctx context.Context, c *redis.Client, writers []*crashWriter, uids map[string]int64, maxUID *int64) error {
	var keys []string
	for _, w := range writers {
		for k, v := range w.acked.dbs[0] {
			if v.typ != "string" {
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	pipe := c.Pipeline()
	cmds := make([]*redis.Cmd, len(keys))
	for i, k := range keys {
		cmds[i] = pipe.Do(ctx, "DEBUG", "UID", k)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("DEBUG UID: %w", err)
	}
	owner := map[int64]string{}
	now := map[string]int64{}
	newMax := *maxUID
	for i, k := range keys {
		uid, err := cmds[i].Int64()
		if err != nil {
			return fmt.Errorf("DEBUG UID %s: %w", k, err)
		}
		if other, dup := owner[uid]; dup {
			return fmt.Errorf("keys %s and %s share uid %d", k, other, uid)
		}
		owner[uid] = k
		now[k] = uid
		if old, had := uids[k]; (!had || old != uid) && uid <= *maxUID {
			return fmt.Errorf("key %s has uid %d, new since the last check but not above %d, the highest uid seen before", k, uid, *maxUID)
		}
		newMax = max(newMax, uid)
	}
	clear(uids)
	for k, uid := range now {
		uids[k] = uid
	}
	*maxUID = newMax
	return nil
}

// checkNoOrphans: after a full compaction the sub-key, score and
// bookkeeping CFs hold exactly the records of the live collections.
func checkNoOrphans(ctx context.Context, c *redis.Client, writers []*crashWriter) error {
	want := map[string]int64{}
	for _, w := range writers {
		for _, v := range w.acked.dbs[0] {
			if v.typ == "string" {
				continue
			}
			want["subkey"] += int64(v.size())
			want["bookkeeping"]++
			if v.typ == "zset" {
				want["score"] += int64(v.size())
			}
		}
	}
	for _, cf := range []string{"subkey", "score", "bookkeeping"} {
		n, err := c.Do(ctx, "DEBUG", "CF-RECORDS", cf).Int64()
		if err != nil {
			return err
		}
		if n != want[cf] {
			return fmt.Errorf("the %s CF holds %d records, want %d (the live keys')", cf, n, want[cf])
		}
	}
	return nil
}

// killUnderLoad runs n writers, run(i, its own client), against p,
// SIGKILLs p 300 ms and up to spread more later, and returns once every
// writer has stopped and its client is closed.
func killUnderLoad(p *serverProc, rng *rand.Rand, spread time.Duration, n int, run func(i int, c *redis.Client)) {
	var wg sync.WaitGroup
	clients := make([]*redis.Client, n)
	for i := range clients {
		clients[i] = newClient(p.Addr, "")
		wg.Add(1)
		go func() {
			defer wg.Done()
			run(i, clients[i])
		}()
	}
	time.Sleep(300*time.Millisecond + time.Duration(rng.Int64N(int64(spread))))
	p.Kill()
	wg.Wait()
	for _, c := range clients {
		c.Close()
	}
}
