package tests

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// modelConfig lets the model test use DEBUG, and makes the reclaimer see
// the model's small collections (modelReclaimMin) and act on them soon,
// so that its targeted compactions race with the model's commands.
var modelConfig = debugConfig + fmt.Sprintf("[compaction]\nreclaim_min_elements = %d\nreclaim_delay = \"20ms\"\nreclaim_max_per_second = 100\n", modelReclaimMin)

const (
	// modelDefaultOps is the length of the run in `make test`; `make soak`
	// sets SHALE_MODEL_OPS.
	modelDefaultOps = 20000
	// modelDefaultSeed is the seed of `make test`, fixed so that a run is
	// reproducible. This one found the trivially moved file that escaped a
	// manual compaction (see modelRegressions) at step 9485. `make soak`
	// runs random seeds (SHALE_MODEL_SEED=random).
	modelDefaultSeed = 1795480936006694317
	// modelRestartEvery is the mean number of steps between two restarts
	// (half of them SIGKILL): a restart of the real binary costs about as
	// much as a few hundred steps.
	modelRestartEvery = 600
	// modelShrinkBudget bounds the time spent looking for a shorter failing
	// sequence after a failure.
	modelShrinkBudget = 2 * time.Minute
	// modelShrinkMaxOps is the longest failing prefix that is rerun and
	// shrunk; a longer one (deep into `make soak`) is only reported.
	modelShrinkMaxOps = 50000
)

// TestModel runs a seeded random sequence of SHALE_MODEL_OPS operations
// (default modelDefaultOps) over strings, hashes, lists, sets and sorted
// sets in two dbs, mixed with DEL, UNLINK, TTLs, RENAME, MOVE, COPY,
// FLUSHDB, transactions (MULTI and EXEC, with reads of the transaction's
// own writes inside it; DISCARD; EXECABORT), scripts (EVAL, EVALSHA after
// SCRIPT LOAD, EVAL_RO and EVALSHA_RO, with redis.call or redis.pcall, reads
// of the script's own writes, SELECT inside the script, errors that end it
// and keep its writes before), compactions of every kind and clean and
// SIGKILL restarts. After
// every step it compares every key (type, TTL or not, full content and
// size), DBSIZE per db, and the record counts of the column families with
// the model in model_test.go. SHALE_MODEL_SEED replays a seed (the subtest's
// name shows it), or is "random". SHALE_MODEL_RUNS runs that many sequences at once, with
// the seeds that follow, each on its own server. On a failure it reruns the
// failing prefix on a fresh server and shrinks it, and reports the seed and
// the shortest failing sequence it found.
func TestModel(t *testing.T) {
	t.Parallel()
	seed := modelSeedFromEnv(t)
	steps := envCount(t, "SHALE_MODEL_OPS", modelDefaultOps)
	runs := envCount(t, "SHALE_MODEL_RUNS", 1)
	for i := range runs {
		seed := seed + uint64(i)
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			t.Parallel()
			modelSeed(t, seed, steps)
		})
	}
}

// modelSeedFromEnv returns SHALE_MODEL_SEED's seed: the default one when
// it is unset, a new one when it is "random".
func modelSeedFromEnv(t *testing.T) uint64 {
	switch s := os.Getenv("SHALE_MODEL_SEED"); s {
	case "":
		return modelDefaultSeed
	case "random":
		return uint64(time.Now().UnixNano())
	default:
		seed, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("SHALE_MODEL_SEED=%q: want a number or \"random\": %v", s, err)
		}
		return seed
	}
}

// envCount reads a positive count from the environment, or returns def.
func envCount(t *testing.T, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive count", name, s)
	}
	return n
}

// modelSeed runs the sequence of one seed and, on a failure, shrinks it.
func modelSeed(t *testing.T, seed uint64, steps int) {
	t.Logf("model: seed %d (SHALE_MODEL_SEED=%d replays it), %d operations", seed, seed, steps)
	gen := newOpGen(seed, modelRestartEvery)
	start := time.Now()
	done := 0
	next := func() modelOp {
		// Long runs (make soak) report progress every tenth.
		if done++; steps >= 100000 && done%(steps/10) == 0 {
			t.Logf("model: seed %d: %d of %d operations, %v", seed, done, steps, time.Since(start).Round(time.Second))
		}
		return gen.next()
	}
	res := runModel(t, steps, next)
	t.Logf("model: seed %d: %d operations (%d commands, %d restarts, %d transactions, %d scripts) in %v, %v of it in restarts and waits for expiry",
		seed, res.steps, res.commands, res.restarts, res.txns, res.scripts, time.Since(start).Round(time.Millisecond), res.waited.Round(time.Millisecond))
	if res.err == nil {
		return
	}
	t.Errorf("model: seed %d: step %d failed: %v", seed, res.failed, res.err)
	shortest := shrinkModel(t, seed, res.failed)
	if shortest == nil {
		return
	}
	var b strings.Builder
	const shown = 60 // the end of a long sequence is what matters most
	for i, op := range shortest {
		if i >= len(shortest)-shown {
			fmt.Fprintf(&b, "\n  %4d  %v", i, op)
		}
	}
	t.Errorf("model: seed %d: shortest failing sequence found, %d ops (of the first %d):%s",
		seed, len(shortest), res.failed+1, b.String())
}

// modelResult is the outcome of one model run.
type modelResult struct {
	steps, commands, restarts int
	txns                      int           // opMulti steps
	scripts                   int           // opScript steps
	waited                    time.Duration // in restarts and waits for expiry
	failed                    int           // the index of the failing step
	err                       error         // nil when every step passed
}

// modelBatch is how many steps share one pipeline. Each step's command is
// followed in the pipeline by the reads that check the state it leaves, so
// every step is still checked on its own; batching only saves round trips,
// which on a loaded machine cost more than the commands.
const modelBatch = 16

// runModel starts a fresh server and runs n ops from next on it, checking
// the whole state after each one. It stops at the first failure.
func runModel(t *testing.T, n int, next func() modelOp) modelResult {
	return runModelOn(&modelRunner{t: t, m: newModel()}, n, next)
}

// runModelOn is runModel with a runner the caller set up.
func runModelOn(r *modelRunner, n int, next func() modelOp) modelResult {
	r.start("")
	defer r.stop(false)
	result := func(steps, failed int, err error) modelResult {
		return modelResult{steps: steps, commands: r.commands, restarts: r.restarts, txns: r.txns, scripts: r.scripts,
			waited: r.waited, failed: failed, err: err}
	}
	for i := range n {
		op := next()
		switch op.kind {
		case opCmd, opCompact, opCompactCF, opReclaim, opMulti, opScript:
			r.enqueue(i, op)
			if len(r.pending) < modelBatch {
				continue
			}
		default:
			// Send what is queued, then this op on its own.
			if failed, err := r.flush(); err != nil {
				return result(failed+1, failed, err)
			}
			if err := r.special(i, op); err != nil {
				return result(i+1, i, fmt.Errorf("%v: %w", op, err))
			}
		}
		if failed, err := r.flush(); err != nil {
			return result(failed+1, failed, err)
		}
	}
	if failed, err := r.flush(); err != nil {
		return result(failed+1, failed, err)
	}
	r.checkReplica()
	return result(n, -1, nil)
}

// shrinkModel looks for a short sequence of ops that still fails. It
// reruns the first failed+1 ops of the seed on a fresh server (the checks
// run after every step, so a deterministic failure fails at the same
// step), then drops ever smaller chunks of ops while the rest still fails,
// for at most modelShrinkBudget. It returns the shortest failing sequence
// it saw, or the original prefix if no rerun failed (a timing-dependent
// bug: the log says so).
func shrinkModel(t *testing.T, seed uint64, failed int) []modelOp {
	if failed+1 > modelShrinkMaxOps {
		t.Logf("model: seed %d: the failing prefix is too long to shrink; SHALE_MODEL_SEED=%d SHALE_MODEL_OPS=%d replays it",
			seed, seed, failed+1)
		return nil
	}
	gen := newOpGen(seed, modelRestartEvery)
	ops := make([]modelOp, failed+1)
	for i := range ops {
		ops[i] = gen.next()
	}
	// fails reruns a candidate and returns the prefix of it that fails.
	fails := func(cand []modelOp) ([]modelOp, bool) {
		i := 0
		res := runModel(t, len(cand), func() modelOp { i++; return cand[i-1] })
		if res.err == nil {
			return nil, false
		}
		return cand[:res.failed+1], true
	}
	shortest, ok := fails(ops)
	if !ok {
		t.Logf("model: seed %d: the first %d ops pass on a fresh server: the failure depends on timing", seed, len(ops))
		return ops
	}
	t.Logf("model: seed %d: the failure reproduces after %d ops; shrinking for up to %v", seed, len(shortest), modelShrinkBudget)
	deadline := time.Now().Add(modelShrinkBudget)
	for chunk := len(shortest) / 2; chunk >= 1 && time.Now().Before(deadline); chunk /= 2 {
		// Keep the last op: it is the one whose check fails.
		for at := 0; at+chunk < len(shortest) && time.Now().Before(deadline); {
			cand := slices.Concat(shortest[:at], shortest[at+chunk:])
			if got, ok := fails(cand); ok {
				shortest = got
				continue // try the same position again
			}
			at += chunk
		}
	}
	return shortest
}

// modelRunner executes model ops against one server and checks it.
type modelRunner struct {
	t        *testing.T
	m        *model
	p        *serverProc
	cl       *redis.Client
	conn     *redis.Conn    // one connection, so SELECT sticks
	bg       sync.WaitGroup // the background compaction
	bgBusy   atomic.Bool
	pipe     redis.Pipeliner // the steps not sent yet
	pending  []pendingStep
	commands int // commands sent, checks included
	restarts int
	txns     int // transactions sent
	scripts  int // scripts sent
	// onRedis: the server is redis-server (TestModelOnRedis), which has
	// no column families whose records the checks could count.
	onRedis bool
	// replica, when withReplica is set, follows the server; after every
	// restart of the server and at the end it must hold what the server
	// holds (TestModelReplica).
	withReplica bool
	replica     *serverProc
	waited      time.Duration // in restarts and waits for active expiry
}

func (r *modelRunner) start(dir string) {
	r.p = startShale(r.t, shaleOpts{Config: modelConfig, Dir: dir})
	r.cl = newClient(r.p.Addr, "")
	r.conn = r.cl.Conn()
	r.pipe = r.conn.Pipeline()
	if !r.withReplica {
		return
	}
	host, port := splitAddr(r.t, r.p.Addr)
	if r.replica == nil {
		r.replica = startShale(r.t, shaleOpts{Config: withReplicaOf("", host+" "+port)})
		return
	}
	// The restarted server listens on another port.
	do(r.t, r.replica.Client, "REPLICAOF", host, port)
}

// stop ends the server with SIGTERM or SIGKILL, and waits for the
// background compaction, which fails with the connection.
func (r *modelRunner) stop(kill bool) {
	r.conn.Close()
	r.cl.Close()
	if kill {
		r.p.Kill()
	} else {
		r.p.Stop()
	}
	r.bg.Wait()
}

func (r *modelRunner) restart(kill bool) {
	defer func(start time.Time) { r.waited += time.Since(start) }(time.Now())
	r.checkReplica()
	r.stop(kill)
	r.start(r.p.Dir)
	r.restarts++
}

// checkReplica fails the test unless the replica, once caught up, holds
// what the server holds, in every database of the model.
func (r *modelRunner) checkReplica() {
	if r.replica == nil {
		return
	}
	defer func(start time.Time) { r.waited += time.Since(start) }(time.Now())
	waitInSync(r.t, 30*time.Second, r.p, r.replica)
	for db := range modelDBs {
		compareServers(r.t, r.p.Client, r.replica.Client, db)
	}
}

// compactInBackground runs COMPACT on a connection of its own, so that the
// next steps' writes race with it. It skips when one is still running.
func (r *modelRunner) compactInBackground() {
	if !r.bgBusy.CompareAndSwap(false, true) {
		return
	}
	r.bg.Add(1)
	cl := newClient(r.p.Addr, "")
	go func() {
		defer r.bg.Done()
		defer r.bgBusy.Store(false)
		defer cl.Close()
		// An error is a restart under way; the checks see anything worse.
		_ = cl.Do(context.Background(), "COMPACT").Err()
	}()
}

// pendingStep is a step sent in the current pipeline, with its checks.
type pendingStep struct {
	index  int
	op     modelOp
	probes []probe
}

// enqueue applies op to the model and adds its command (if any) and the
// check of the state it leaves to the pipeline.
func (r *modelRunner) enqueue(index int, op modelOp) {
	var quiet []probe
	if op.kind == opCompact || op.kind == opCompactCF {
		// The model expects a compaction to leave no orphan, which holds
		// only when no other compaction runs: one that began before a
		// removal kept the removed key's records, and its output can land
		// where this compaction has already been. So wait for the
		// background COMPACT, and let DEBUG RECLAIM finish the reclaimer's
		// work first.
		r.bg.Wait()
		quiet = append(quiet, probe{-1, []any{"DEBUG", "RECLAIM"}, r.pipe.Do(context.Background(), "DEBUG", "RECLAIM"), modelOK})
		r.m.apply(modelOp{kind: opReclaim})
	}
	if op.kind == opMulti {
		r.txns++
		cmds, want := r.m.applyTxn(op)
		r.pending = append(r.pending, pendingStep{index, op, append(r.addTxn(op, cmds, want), r.addCheck(op.db, nil, nil)...)})
		return
	}
	want := r.m.apply(op)
	if op.kind == opScript {
		r.scripts++
		r.pending = append(r.pending, pendingStep{index, op, append(r.addScript(op, want), r.addCheck(op.db, nil, nil)...)})
		return
	}
	var args []any
	switch op.kind {
	case opCompact:
		args = []any{"COMPACT"}
	case opCompactCF:
		args = []any{"DEBUG", "COMPACT-CF", op.args[0]}
	case opReclaim:
		args = []any{"DEBUG", "RECLAIM"}
	case opCmd:
		args = strsToAny(op.args)
	}
	r.pending = append(r.pending, pendingStep{index, op, append(quiet, r.addCheck(op.db, args, want)...)})
}

// addTxn adds an opMulti's commands to the pipeline: SELECT, MULTI, the
// commands (applyTxn's), each answering QUEUED (the refused one, its
// error), and EXEC or DISCARD, whose reply is want.
func (r *modelRunner) addTxn(op modelOp, cmds [][]any, want any) []probe {
	var probes []probe
	ctx := context.Background() // Exec has the deadline
	add := func(want any, args []any) {
		probes = append(probes, probe{op.db, args, r.pipe.Do(ctx, args...), want})
	}
	var refused any
	if op.end == txnAbort {
		refused = errText(fmt.Sprintf("ERR wrong number of arguments for '%s' command", strings.ToLower(op.bad[0])))
		if op.bad[0] == "NOSUCHCOMMAND" {
			refused = errPrefix("ERR unknown command 'NOSUCHCOMMAND'")
		}
	}
	r.pipe.Select(ctx, op.db)
	add(modelOK, []any{"MULTI"})
	for i := range len(cmds) + 1 {
		if op.end == txnAbort && i == op.badAt {
			add(refused, strsToAny(op.bad))
		}
		if i < len(cmds) {
			add("QUEUED", cmds[i])
		}
	}
	if op.end == txnDiscard {
		add(want, []any{"DISCARD"})
	} else {
		add(want, []any{"EXEC"})
	}
	return probes
}

// addScript adds an opScript to the pipeline: SELECT, then for EVALSHA
// SCRIPT LOAD of the body (every time: a restart empties the script
// cache), the script, whose reply is want, and CLIENT INFO, which must
// show op.db still selected: a script's SELECT is the script's own.
func (r *modelRunner) addScript(op modelOp, want any) []probe {
	var probes []probe
	ctx := context.Background() // Exec has the deadline
	add := func(want any, args ...any) {
		probes = append(probes, probe{op.db, args, r.pipe.Do(ctx, args...), want})
	}
	s := op.luaScript()
	script := s.body
	if op.script.bySha() {
		add(s.sha, "SCRIPT", "LOAD", s.body)
		script = s.sha
	}
	r.pipe.Select(ctx, op.db)
	args := append([]any{op.script.command(), script, strconv.Itoa(len(s.keys))}, strsToAny(s.keys)...)
	add(want, append(args, strsToAny(s.argv)...)...)
	add(containsAll(fmt.Sprintf(" db=%d ", op.db)), "CLIENT", "INFO")
	return probes
}

// flush sends the pipeline and compares every reply. On a mismatch it
// returns the index of the step whose command or check failed.
func (r *modelRunner) flush() (failed int, err error) {
	if len(r.pending) == 0 {
		return -1, nil
	}
	steps := r.pending
	r.pending = nil
	ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
	defer cancel()
	_, err = r.pipe.Exec(ctx)
	if err != nil && !errors.Is(err, redis.Nil) && !isReplyError(err) {
		return steps[0].index, fmt.Errorf("steps %d to %d: pipeline: %w", steps[0].index, steps[len(steps)-1].index, err)
	}
	for _, s := range steps {
		r.commands += len(s.probes) + modelDBs + 1 // and the SELECTs
		for _, p := range s.probes {
			if why := matchReply(p.want, p.cmd.Val(), p.cmd.Err()); why != "" {
				err := fmt.Errorf("%v: db%d: %s: got %s, want %s: %s", s.op, p.db, fmtArgs(p.args),
					fmtReply(p.cmd.Val(), p.cmd.Err()), fmtVal(p.want), why)
				if p.db == -1 && p.args[0] == "DEBUG" {
					err = fmt.Errorf("%w (%s)", err, r.recountAfterCompact(ctx))
				}
				return s.index, err
			}
		}
	}
	return -1, nil
}

// recountAfterCompact tells apart, when a record count is off, records a
// compaction merely missed (gone after one more, in a quiet moment) from
// records the filters keep for good.
func (r *modelRunner) recountAfterCompact(ctx context.Context) string {
	r.bg.Wait()
	if err := r.conn.Do(ctx, "DEBUG", "RECLAIM").Err(); err != nil {
		return "DEBUG RECLAIM: " + err.Error()
	}
	if err := r.conn.Do(ctx, "COMPACT").Err(); err != nil {
		return "COMPACT: " + err.Error()
	}
	out := "after one more COMPACT:"
	for _, cf := range []string{"subkey", "score", "bookkeeping"} {
		n, err := r.conn.Do(ctx, "DEBUG", "CF-RECORDS", cf).Int64()
		out += fmt.Sprintf(" %s %d %v", cf, n, err)
	}
	return out
}

// special runs an op that cannot share a pipeline: a restart, the start of
// a background compaction, or a tiny TTL and the wait for its expiry. It
// then queues the check of the state it leaves.
func (r *modelRunner) special(index int, op modelOp) error {
	want, thenWant := r.m.applyAll(op)
	switch op.kind {
	case opRestart, opKill:
		r.restart(op.kind == opKill)
	case opCompactBG:
		r.compactInBackground()
	case opTinyExpire:
		ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
		defer cancel()
		if err := r.tinyExpire(ctx, op, want, thenWant); err != nil {
			return err
		}
	}
	r.pending = append(r.pending, pendingStep{index, op, r.addCheck(op.db, nil, want)})
	return nil
}

// tinyExpire runs PEXPIRE key 1, then, once the key has expired, the
// follow-up command if there is one, and waits until active expiry has
// removed the key, DBSIZE included: only then are its orphans dead to the
// filters (which spare a key for compaction.ExpiryGraceMs after its expiry
// until it is removed), and the model exact again.
func (r *modelRunner) tinyExpire(ctx context.Context, op modelOp, want, thenWant any) error {
	if err := r.doIn(ctx, op.db, op.args, want); err != nil {
		return err
	}
	defer func(start time.Time) { r.waited += time.Since(start) }(time.Now())
	if op.then != nil {
		time.Sleep(3 * time.Millisecond) // the TTL was 1 ms
		if err := r.doIn(ctx, op.thenDB, op.then, thenWant); err != nil {
			return fmt.Errorf("then: %w", err)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		sizes := make([]*redis.IntCmd, modelDBs)
		var exists *redis.IntCmd
		_, err := r.conn.Pipelined(ctx, func(p redis.Pipeliner) error {
			for db := range sizes {
				p.Select(ctx, db)
				sizes[db] = p.DBSize(ctx)
				if db == op.db {
					exists = p.Exists(ctx, op.args[1])
				}
			}
			return nil
		})
		r.commands += 2*modelDBs + 1
		if err != nil {
			return err
		}
		wantExists := int64(0) // 1 if the follow-up re-created the key
		if r.m.dbs[op.db][op.args[1]] != nil {
			wantExists = 1
		}
		done := exists.Val() == wantExists
		var got, want []int64
		for db, size := range sizes {
			got = append(got, size.Val())
			want = append(want, int64(len(r.m.dbs[db])))
		}
		if done && slices.Equal(got, want) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("key not removed by active expiry after 10s: DBSIZE %v (want %v), EXISTS %d",
				got, want, exists.Val())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// doIn runs one command in db and checks its reply.
func (r *modelRunner) doIn(ctx context.Context, db int, args []string, want any) error {
	var reply *redis.Cmd
	if _, err := r.conn.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.Select(ctx, db)
		reply = p.Do(ctx, strsToAny(args)...)
		return nil
	}); err != nil && !errors.Is(err, redis.Nil) && !isReplyError(err) {
		return err
	}
	r.commands += 2
	if why := matchReply(want, reply.Val(), reply.Err()); why != "" {
		return fmt.Errorf("db%d: %s: got %s, want %s: %s", db, strings.Join(args, " "),
			fmtReply(reply.Val(), reply.Err()), fmtVal(want), why)
	}
	return nil
}

// probe is one read of the check and what it must return.
type probe struct {
	db   int // -1 for a server-wide command
	args []any
	cmd  *redis.Cmd
	want any
}

// The model's own matchers, beside script_test.go's (pairs, unordered,
// between, atLeast): exact scores and INFO keyspace.

// scoresAre matches ZMSCORE's reply, or with withMembers ZRANGE WITHSCORES's.
type scoresAre struct {
	members     []string
	scores      []float64
	withMembers bool
}

func (z scoresAre) match(got any) string {
	g, isArr := got.([]any)
	per := 1
	if z.withMembers {
		per = 2
	}
	if !isArr || len(g) != per*len(z.members) {
		return "array length differs"
	}
	for i, m := range z.members {
		if z.withMembers && g[2*i] != m {
			return fmt.Sprintf("member %d is %v, want %q", i, g[2*i], m)
		}
		s, isStr := g[per*i+per-1].(string)
		if f, err := strconv.ParseFloat(s, 64); !isStr || err != nil || f != z.scores[i] {
			return fmt.Sprintf("score %d is %v, want %v", i, g[per*i+per-1], z.scores[i])
		}
	}
	return ""
}
func (z scoresAre) String() string {
	return fmt.Sprintf("<members %q, scores %v>", z.members, z.scores)
}

// keyspaceIs matches INFO keyspace: the key and expires counters of each
// db, and no line for a db without keys.
type keyspaceIs [modelDBs]struct{ keys, expires int }

func (k keyspaceIs) match(got any) string {
	text, isStr := got.(string)
	if !isStr {
		return "want a string"
	}
	for db, c := range k {
		prefix := fmt.Sprintf("db%d:", db)
		want := fmt.Sprintf("db%d:keys=%d,expires=%d,", db, c.keys, c.expires)
		found := false
		for line := range strings.Lines(text) {
			if strings.HasPrefix(line, prefix) {
				found = true
				if c.keys == 0 || !strings.HasPrefix(line, want) {
					return fmt.Sprintf("line %q, want it to start with %q", strings.TrimSpace(line), want)
				}
			}
		}
		if !found && c.keys > 0 {
			return fmt.Sprintf("no line %q", want)
		}
	}
	return ""
}
func (k keyspaceIs) String() string {
	return fmt.Sprintf("<keyspace %+v>", [modelDBs]struct{ keys, expires int }(k))
}

// hasTTL matches PTTL's reply for a key with a TTL that has not run out.
var hasTTL = atLeast(1)

// addCheck adds to the pipeline the op's command (if any) in db and then
// the reads of the whole state as the model has it now, and returns them
// with their expected replies.
func (r *modelRunner) addCheck(db int, args []any, want any) []probe {
	var probes []probe
	pipe := r.pipe
	ctx := context.Background() // Exec has the deadline
	add := func(db int, want any, args ...any) {
		probes = append(probes, probe{db, args, pipe.Do(ctx, args...), want})
	}
	if args != nil {
		pipe.Select(ctx, db)
		add(db, want, args...)
	}
	for db, keys := range r.m.dbs {
		pipe.Select(ctx, db)
		add(db, int64(len(keys)), "DBSIZE")
		for _, k := range modelNames {
			addKeyProbes(func(want any, args ...any) { add(db, want, args...) }, k, keys[k])
		}
	}
	var ks keyspaceIs
	for db, keys := range r.m.dbs {
		for _, v := range keys {
			ks[db].keys++
			if v.ttl {
				ks[db].expires++
			}
		}
	}
	add(-1, ks, "INFO", "keyspace")
	if r.onRedis {
		return probes
	}
	bounds := r.m.bounds()
	for _, cf := range slices.Sorted(maps.Keys(bounds)) {
		b := bounds[cf]
		add(-1, between(int64(b.lo), int64(b.hi)), "DEBUG", "CF-RECORDS", cf)
	}
	return probes
}

// addKeyProbes adds through add the reads that check key against v (nil
// for an absent key): its type, TTL or not, whole content and size. The
// expectations are copies: the model may change before the replies come.
func addKeyProbes(add func(want any, args ...any), k string, v *mval) {
	if v == nil {
		add("none", "TYPE", k)
		return
	}
	add(v.typ, "TYPE", k)
	if v.ttl {
		add(hasTTL, "PTTL", k)
	} else {
		add(int64(-1), "PTTL", k)
	}
	switch v.typ {
	case "string":
		add(v.str, "GET", k)
	case "hash":
		add(pairs(maps.Clone(v.hash)), "HGETALL", k)
		add(int64(len(v.hash)), "HLEN", k)
	case "list":
		add(slices.Clone(v.list), "LRANGE", k, 0, -1)
		add(int64(len(v.list)), "LLEN", k)
	case "set":
		add(unordered(strsToAny(slices.Collect(maps.Keys(v.set)))), "SMEMBERS", k)
		add(int64(len(v.set)), "SCARD", k)
	case "zset":
		members := slices.SortedFunc(maps.Keys(v.zset), func(a, b string) int {
			return cmp.Or(cmp.Compare(v.zset[a], v.zset[b]), strings.Compare(a, b))
		})
		scores := make([]float64, len(members))
		for i, mem := range members {
			scores[i] = v.zset[mem]
		}
		// ZRANGE reads the score CF, ZMSCORE the subkey CF.
		add(scoresAre{members, scores, true}, "ZRANGE", k, 0, -1, "WITHSCORES")
		add(scoresAre{members, scores, false}, append([]any{"ZMSCORE", k}, strsToAny(members)...)...)
		add(int64(len(v.zset)), "ZCARD", k)
	case "stream":
		add(v.stream.rangeReply(), "XRANGE", k, "-", "+")
		add(xinfoIs(v.stream), "XINFO", "STREAM", k)
		addGroupProbes(add, k, v.stream)
	}
}

// isReplyError reports whether err is an error reply from the server (which
// a probe expects or reports), as opposed to a broken connection.
func isReplyError(err error) bool {
	var re redis.Error
	return errors.As(err, &re) && !strings.HasPrefix(err.Error(), "redis: ")
}

// TestModelMatchers checks the model test's comparisons, so that a lax one
// cannot let a wrong state through.
func TestModelMatchers(t *testing.T) {
	var ks keyspaceIs
	ks[0].keys, ks[0].expires = 2, 1
	info := "# Keyspace\r\ndb0:keys=2,expires=1,avg_ttl=5\r\n"
	cases := []struct {
		name string
		m    matcher
		got  any
		ok   bool
	}{
		{"keyspace equal", ks, info, true},
		{"keyspace expires differ", ks, "db0:keys=2,expires=0,avg_ttl=0\r\n", false},
		{"keyspace missing db", ks, "# Keyspace\r\n", false},
		{"keyspace extra db", ks, info + "db1:keys=1,expires=0,avg_ttl=0\r\n", false},
		{"zrange equal", scoresAre{[]string{"a", "b"}, []float64{1, 2.5}, true}, []any{"a", "1", "b", "2.5"}, true},
		{"zrange order", scoresAre{[]string{"a", "b"}, []float64{1, 2.5}, true}, []any{"b", "2.5", "a", "1"}, false},
		{"zmscore differs", scoresAre{[]string{"a"}, []float64{1}, false}, []any{"1.5"}, false},
		{"fields equal", fieldsAre{"name": "g", "pending": int64(2)}, []any{"name", "g", "lag", nil, "pending", int64(2)}, true},
		{"fields value differs", fieldsAre{"name": "g", "pending": int64(2)}, []any{"name", "g", "pending", int64(1)}, false},
		{"fields missing", fieldsAre{"name": "g", "pending": int64(2)}, []any{"name", "g"}, false},
		{"fields odd", fieldsAre{"name": "g"}, []any{"name", "g", "pending"}, false},
	}
	for _, c := range cases {
		if why := c.m.match(c.got); (why == "") != c.ok {
			t.Errorf("%s: match(%v) = %q, want ok %v", c.name, c.got, why, c.ok)
		}
	}
	for s, want := range map[string]bool{"0": true, "-12": true, "120": true, "+1": false, "01": false, "-0": false, "": false, "-": false, "1a": false, "99999999999999999999": false} {
		if _, ok := redisInt(s); ok != want {
			t.Errorf("redisInt(%q) ok = %v, want %v", s, ok, want)
		}
	}
}

// modelOnRedisOps is the length of TestModelOnRedis's run.
const modelOnRedisOps = 5000

// TestModelOnRedis checks the model itself: it runs the start of the
// default seed's sequence (or SHALE_MODEL_SEED's, SHALE_MODEL_OPS long) on redis-server, with every reply and the whole
// keyspace checked after every step as TestModel does, save the record
// counts. Compactions change nothing there, and the sequence has no
// restart; a tiny TTL waits, as on Shale, until the key is gone.
func TestModelOnRedis(t *testing.T) {
	t.Parallel()
	p := startRedis(t)
	r := &modelRunner{t: t, m: newModel(), p: p, onRedis: true}
	r.cl = newClient(p.Addr, "")
	r.conn = r.cl.Conn()
	r.pipe = r.conn.Pipeline()
	defer r.cl.Close()
	defer r.conn.Close()
	seed := modelSeedFromEnv(t)
	t.Logf("model on Redis: seed %d (SHALE_MODEL_SEED=%d replays it)", seed, seed)
	gen := newOpGen(seed, 0)
	for i := range envCount(t, "SHALE_MODEL_OPS", modelOnRedisOps) {
		switch op := gen.next(); op.kind {
		case opCmd, opMulti, opScript:
			r.enqueue(i, op)
			if len(r.pending) < modelBatch {
				continue
			}
		case opTinyExpire:
			if failed, err := r.flush(); err != nil {
				t.Fatalf("step %d: %v", failed, err)
			}
			if err := r.special(i, op); err != nil {
				t.Fatalf("step %d: %v: %v", i, op, err)
			}
		default:
			r.m.apply(op)
			continue
		}
		if failed, err := r.flush(); err != nil {
			t.Fatalf("step %d: %v", failed, err)
		}
	}
	if failed, err := r.flush(); err != nil {
		t.Fatalf("step %d: %v", failed, err)
	}
}

// modelRegressions are op sequences that once failed, each replayed on a
// fresh server by TestModelRegressions.
var modelRegressions = []struct {
	name string
	ops  []modelOp
}{
	{
		// The flush at the start of DEBUG COMPACT-CF adds a fourth L0 file,
		// and the automatic compaction it starts moves mk:1's file (alone
		// in its key range) to L1 without filtering it, after the manual
		// compaction had decided to compact L0 only. mk:1's score record
		// survived the compaction until Store.compactFiltered went back
		// over the moved file. SHALE_MODEL_SEED=1795480936006694317 found it
		// after 9485 steps.
		name: "compaction misses a trivially moved file",
		ops: []modelOp{
			{kind: opCmd, db: 0, args: []string{"ZADD", "mk:1", "-1.5", "m0"}},
			{kind: opRestart},
			{kind: opCmd, db: 0, args: []string{"ZADD", "mk:2", "0.5", "m0", "-1.5", "m4", "2", "m3"}},
			{kind: opKill},
			{kind: opCmd, db: 1, args: []string{"ZADD", "{mk}3", "1", "m1", "0.5", "m2"}},
			{kind: opRestart},
			{kind: opCmd, db: 0, args: []string{"ZINCRBY", "mk:5", "1", "m2"}},
			{kind: opCmd, db: 0, args: []string{"UNLINK", "mk:1"}},
			{kind: opCompactCF, args: []string{"score"}},
		},
	},
}

// TestModelRegressions replays the sequences in modelRegressions.
func TestModelRegressions(t *testing.T) {
	t.Parallel()
	for _, reg := range modelRegressions {
		t.Run(reg.name, func(t *testing.T) {
			t.Parallel()
			i := 0
			res := runModel(t, len(reg.ops), func() modelOp { i++; return reg.ops[i-1] })
			if res.err != nil {
				t.Errorf("step %d (%v): %v", res.failed, reg.ops[res.failed], res.err)
			}
		})
	}
}
