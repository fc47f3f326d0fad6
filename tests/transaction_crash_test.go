package tests

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

const (
	txnCrashRounds  = 10
	txnCrashWriters = 4
	// txnStrings is the SETs of one crash transaction; with its HSET,
	// RPUSH, INCR and the RPUSH to its writer's log, it makes 50 writes.
	txnStrings = 46
)

// TestTransactionCrash kills the server with SIGKILL txnCrashRounds times
// while txnCrashWriters clients run transactions of 50 writes each: 46
// SETs of keys of their own to the transaction's number, an HSET and an
// RPUSH of keys of their own, and an INCR and an RPUSH of keys every
// transaction of the writer shares (its counter and its log); one in four
// also queues DBSIZE, so that it holds the world lock. After every
// restart each transaction is wholly there or wholly absent, every
// acknowledged one is there, each writer's counter and log hold exactly
// the transactions that are there, in order, and DBSIZE counts exactly
// their keys: a transaction reaches the WAL as one batch.
func TestTransactionCrash(t *testing.T) {
	t.Parallel()
	seed := uint64(time.Now().UnixNano())
	t.Logf("transaction crash: seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0x7c4a))
	writers := make([]*txnCrashWriter, txnCrashWriters)
	for i := range writers {
		writers[i] = &txnCrashWriter{id: i}
	}
	p := startShale(t, shaleOpts{Config: debugConfig})
	prevAcked := 0
	for round := 1; round <= txnCrashRounds; round++ {
		killUnderLoad(p, rng, 300*time.Millisecond, len(writers), func(i int, c *redis.Client) { writers[i].run(c) })
		acked := 0
		for _, w := range writers {
			if w.err != nil {
				t.Fatalf("round %d: writer %d: %v", round, w.id, w.err)
			}
			acked += len(w.acked)
		}
		if acked == prevAcked {
			t.Fatalf("round %d: no transaction was acknowledged before the kill", round)
		}
		prevAcked = acked
		p = startShale(t, shaleOpts{Config: debugConfig, Dir: p.Dir})
		landed, lost, err := checkTxnCrashState(ctxT(t), p.Client, writers)
		if err != nil {
			t.Fatalf("round %d, after the restart: %v", round, err)
		}
		t.Logf("round %d: %d transactions acknowledged so far; of those in flight at the kill, %d landed whole, %d not at all",
			round, acked, landed, lost)
	}
}

// txnCrashWriter is one client of TestTransactionCrash. Its transactions
// are numbered id*1e6 + 0, 1, 2...; only it writes their keys, its
// counter and its log.
type txnCrashWriter struct {
	id       int
	acked    []int // the numbers of its transactions known to be there, in order
	inflight int   // the number of the transaction sent when the server died; -1: none
	next     int   // its next transaction's sequence
	err      error // a wrong reply
}

func (w *txnCrashWriter) counter() string { return fmt.Sprintf("txc:ctr%d", w.id) }
func (w *txnCrashWriter) log() string     { return fmt.Sprintf("txc:log%d", w.id) }

// txnKeys are the keys transaction n writes alone: its strings, its hash
// and its list.
func txnKeys(n int) (strs []string, hash, list string) {
	for i := range txnStrings {
		strs = append(strs, fmt.Sprintf("txc:%d:s%d", n, i))
	}
	return strs, fmt.Sprintf("txc:%d:h", n), fmt.Sprintf("txc:%d:l", n)
}

// txnKeyCount is the keys one transaction creates.
const txnKeyCount = txnStrings + 2

// run sends transactions until its connection breaks (the kill).
func (w *txnCrashWriter) run(c *redis.Client) {
	ctx := context.Background()
	w.inflight = -1
	for {
		n := w.id*1_000_000 + w.next
		w.next++
		val := strconv.Itoa(n)
		strs, hash, list := txnKeys(n)
		pipe := c.TxPipeline()
		for i, k := range strs {
			pipe.Set(ctx, k, val, 0)
			if i == txnStrings/2 { // the other types in the middle
				pipe.HSet(ctx, hash, "f1", val, "f2", val)
				pipe.RPush(ctx, list, val, val)
				if n%4 == 0 {
					// DBSIZE names no key: the transaction holds the
					// world lock instead of its keys' stripes.
					pipe.DBSize(ctx)
				}
			}
		}
		ctr := pipe.Incr(ctx, w.counter())
		logLen := pipe.RPush(ctx, w.log(), val)
		w.inflight = n
		_, err := pipe.Exec(ctx)
		switch {
		case err != nil && !isReplyError(err):
			return // the server died: n stays in flight
		case err != nil:
			w.err = fmt.Errorf("transaction %d: %w", n, err)
			return
		}
		w.inflight = -1
		w.acked = append(w.acked, n)
		if int(ctr.Val()) != len(w.acked) || int(logLen.Val()) != len(w.acked) {
			w.err = fmt.Errorf("transaction %d: INCR answered %d and RPUSH %d, want %d", n, ctr.Val(), logLen.Val(), len(w.acked))
			return
		}
	}
}

// txnProbe reads one transaction's keys.
type txnProbe struct {
	n    int
	strs *redis.SliceCmd
	hash *redis.MapStringStringCmd
	list *redis.StringSliceCmd
}

// state says whether the transaction is wholly there (true) or wholly
// absent (false), or describes what part of it is there.
func (p txnProbe) state() (there bool, partial string) {
	val := strconv.Itoa(p.n)
	present, absent := 0, 0
	var odd []string
	for i, v := range p.strs.Val() {
		switch v {
		case val:
			present++
		case nil:
			absent++
		default:
			odd = append(odd, fmt.Sprintf("s%d=%v", i, v))
		}
	}
	switch h := p.hash.Val(); {
	case len(h) == 0:
		absent++
	case len(h) == 2 && h["f1"] == val && h["f2"] == val:
		present++
	default:
		odd = append(odd, fmt.Sprintf("hash=%v", h))
	}
	switch l := p.list.Val(); {
	case len(l) == 0:
		absent++
	case slices.Equal(l, []string{val, val}):
		present++
	default:
		odd = append(odd, fmt.Sprintf("list=%v", l))
	}
	if len(odd) == 0 && (present == 0 || absent == 0) {
		return absent == 0, ""
	}
	return false, fmt.Sprintf("%d of its %d keys there, %d absent, wrong values %v", present, txnKeyCount, absent, odd)
}

// checkTxnCrashState checks every transaction the writers sent, settles
// the one each had in flight, and checks the counters, logs and DBSIZE. It
// returns how many of the transactions in flight landed and how many did
// not.
func checkTxnCrashState(ctx context.Context, c *redis.Client, writers []*txnCrashWriter) (landed, lost int, err error) {
	pipe := c.Pipeline()
	probe := func(n int) txnProbe {
		strs, hash, list := txnKeys(n)
		return txnProbe{n: n, strs: pipe.MGet(ctx, strs...), hash: pipe.HGetAll(ctx, hash), list: pipe.LRange(ctx, list, 0, -1)}
	}
	var probes [][]txnProbe // per writer: its acknowledged ones, then the one in flight
	for _, w := range writers {
		var ps []txnProbe
		for _, n := range w.acked {
			ps = append(ps, probe(n))
		}
		if w.inflight >= 0 {
			ps = append(ps, probe(w.inflight))
		}
		probes = append(probes, ps)
	}
	dbsize := pipe.DBSize(ctx)
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return 0, 0, fmt.Errorf("pipeline: %w", err)
	}
	for i, w := range writers {
		for _, p := range probes[i] {
			there, partial := p.state()
			switch {
			case partial != "":
				return 0, 0, fmt.Errorf("writer %d: transaction %d is partly there: %s", w.id, p.n, partial)
			case !there && p.n != w.inflight:
				return 0, 0, fmt.Errorf("writer %d: acknowledged transaction %d is missing", w.id, p.n)
			case there && p.n == w.inflight:
				w.acked = append(w.acked, p.n) // it committed; its reply was lost
				landed++
			case p.n == w.inflight:
				lost++
			}
		}
		w.inflight = -1
	}
	// The counter and the log are written by every transaction of their
	// writer: they must hold exactly the ones that are there.
	pipe = c.Pipeline()
	ctrs := make([]*redis.StringCmd, len(writers))
	logs := make([]*redis.StringSliceCmd, len(writers))
	for i, w := range writers {
		ctrs[i] = pipe.Get(ctx, w.counter())
		logs[i] = pipe.LRange(ctx, w.log(), 0, -1)
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return 0, 0, fmt.Errorf("pipeline: %w", err)
	}
	wantKeys := int64(0)
	for i, w := range writers {
		want := make([]string, len(w.acked))
		for j, n := range w.acked {
			want[j] = strconv.Itoa(n)
		}
		if got := ctrs[i].Val(); got != strconv.Itoa(len(w.acked)) && !(got == "" && len(w.acked) == 0) {
			return 0, 0, fmt.Errorf("writer %d: counter %q, want %d (its transactions there)", w.id, got, len(w.acked))
		}
		if got := logs[i].Val(); !slices.Equal(got, want) {
			return 0, 0, fmt.Errorf("writer %d: log %v, want %v", w.id, got, want)
		}
		if len(w.acked) > 0 {
			wantKeys += int64(len(w.acked)*txnKeyCount + 2)
		}
	}
	if got := dbsize.Val(); got != wantKeys {
		return 0, 0, fmt.Errorf("DBSIZE %d, want %d (the keys of the transactions there)", got, wantKeys)
	}
	return landed, lost, nil
}
