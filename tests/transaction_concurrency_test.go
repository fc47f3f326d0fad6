package tests

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Transactions under contention, on both backends: WATCH's optimistic
// increments must lose no update, and no client may ever see part of
// another client's EXEC.

const (
	txnClients = 16
	// txnIncrs is each client's count of optimistic increments;
	// SHALE_TXN_INCRS scales it (make test runs the full 1,000).
	txnIncrs = 1000
)

func txnIncrsPerClient(t *testing.T) int {
	if s := os.Getenv("SHALE_TXN_INCRS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("SHALE_TXN_INCRS=%q: want a positive count", s)
		}
		return n
	}
	return txnIncrs
}

// TestTransactionWatchIncrements: txnClients clients each add 1 to one key
// txnIncrs times with WATCH k; GET k; MULTI; SET k v+1; EXEC, retrying
// while EXEC answers null. The final value is exact, and on shale INFO
// counts every EXEC: the committed ones and the null ones the clients saw.
// The "keyless" variant puts DBSIZE in half the clients' transactions, so
// that transactions holding the world lock contend with those holding key
// stripes; it runs a quarter of the increments, to keep make test short.
func TestTransactionWatchIncrements(t *testing.T) {
	for _, keyless := range []bool{false, true} {
		name := "keyed"
		if keyless {
			name = "keyless"
		}
		t.Run(name, func(t *testing.T) {
			forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
				testWatchIncrements(t, b, keyless)
			})
		})
	}
}

func testWatchIncrements(t *testing.T, b backend, keyless bool) {
	incrs := txnIncrsPerClient(t)
	if keyless {
		incrs = max(1, incrs/4)
	}
	ctx := longCtx(t)
	var nulls atomic.Int64
	errs := make(chan error, txnClients)
	start := time.Now()
	var wg sync.WaitGroup
	for id := range txnClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl := newClient(b.Addr, "")
			defer cl.Close()
			conn := cl.Conn()
			defer conn.Close()
			// Half the clients of the keyless variant queue DBSIZE,
			// which names no key: their EXEC takes the world lock.
			withDBSize := keyless && id%2 == 0
			for range incrs {
				n, err := watchIncrement(ctx, conn, "k", withDBSize)
				if err != nil {
					errs <- fmt.Errorf("client %d: %w", id, err)
					return
				}
				nulls.Add(n)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	want := txnClients * incrs
	if got := doStr(t, b.Proc.Client, "GET", "k"); got != strconv.Itoa(want) {
		t.Fatalf("k = %s after %d clients x %d increments, want %d", got, txnClients, incrs, want)
	}
	t.Logf("%s: %d increments, %d null EXECs, in %v", b.Name, want, nulls.Load(), time.Since(start).Round(time.Millisecond))
	if !b.isShale() {
		return
	}
	stats := infoFields(doStr(t, b.Proc.Client, "INFO", "stats"))
	for field, want := range map[string]int64{
		"transactions_committed":    int64(want),
		"transactions_watch_failed": nulls.Load(),
		"transactions_aborted":      0,
	} {
		if got := stats[field]; got != strconv.FormatInt(want, 10) {
			t.Errorf("INFO %s = %q, want %d", field, got, want)
		}
	}
}

// longCtx bounds a whole load, not one command as ctxT does: a loaded
// machine running make e2e with -race may need more than stepTimeout.
func longCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// watchIncrement adds 1 to key with WATCH and MULTI, retrying while EXEC
// answers null; it returns how many times it did. DBSIZE joins the
// transaction when withDBSize is set.
func watchIncrement(ctx context.Context, conn *redis.Conn, key string, withDBSize bool) (int64, error) {
	for nulls := int64(0); ; nulls++ {
		if err := conn.Do(ctx, "WATCH", key).Err(); err != nil {
			return nulls, err
		}
		v, err := conn.Get(ctx, key).Int64()
		if err != nil && !errors.Is(err, redis.Nil) {
			return nulls, err
		}
		pipe := conn.Pipeline()
		pipe.Do(ctx, "MULTI")
		pipe.Do(ctx, "SET", key, v+1)
		if withDBSize {
			pipe.Do(ctx, "DBSIZE")
		}
		exec := pipe.Do(ctx, "EXEC")
		if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
			return nulls, err
		}
		switch reply, err := exec.Result(); {
		case errors.Is(err, redis.Nil):
			continue // another client wrote key after WATCH
		case err != nil:
			return nulls, err
		default:
			want := []any{"OK"}
			if withDBSize {
				want = append(want, int64(1))
			}
			if why := matchValue(want, reply); why != "" {
				return nulls, fmt.Errorf("EXEC: got %s, want %s: %s", fmtVal(reply), fmtVal(want), why)
			}
			return nulls, nil
		}
	}
}

// TestTransactionIsolation: writers move counters a and b (and a list and
// a counter) together in transactions, some of which hold the world lock,
// and create two keys in each, while readers read them with MGET, with
// transactions, with KEYS and with DBSIZE: no reader ever sees one moved
// or created without the other.
func TestTransactionIsolation(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		const (
			writers = 4
			readers = 4
		)
		rounds := max(50, txnIncrsPerClient(t)/2)
		ctx := longCtx(t)
		errs := make(chan error, writers+readers)
		var done atomic.Bool
		var reads atomic.Int64
		var wg, writersWG sync.WaitGroup
		for id := range writers {
			wg.Add(1)
			writersWG.Add(1)
			go func() {
				defer wg.Done()
				defer writersWG.Done()
				cl := newClient(b.Addr, "")
				defer cl.Close()
				for i := range rounds {
					if err := isolatedWrite(ctx, cl, id, i); err != nil {
						errs <- fmt.Errorf("writer %d: %w", id, err)
						return
					}
				}
			}()
		}
		for id := range readers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cl := newClient(b.Addr, "")
				defer cl.Close()
				for i := 0; !done.Load(); i++ {
					if err := isolatedRead(ctx, cl, i); err != nil {
						errs <- fmt.Errorf("reader %d: %w", id, err)
						return
					}
					reads.Add(1)
				}
			}()
		}
		writersWG.Wait()
		done.Store(true)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		total := strconv.Itoa(writers * rounds)
		run(t, c, []step{
			{cmd("MGET", "a", "b", "n"), []any{total, total, total}},
			{cmd("LLEN", "l"), writers * rounds},
		})
		t.Logf("%s: %d transactions, %d reads", b.Name, writers*rounds, reads.Load())
	})
}

// isolatedWrite runs writer id's transaction number i: INCR a, SET x:id:i,
// INCR b, RPUSH l, SET y:id:i, INCR n; every third one also queues
// DBSIZE, which names no key and so takes the world lock on shale.
func isolatedWrite(ctx context.Context, cl *redis.Client, id, i int) error {
	pipe := cl.TxPipeline()
	pipe.Incr(ctx, "a")
	pipe.Set(ctx, fmt.Sprintf("x:%d:%d", id, i), "1", 0)
	if i%3 == 0 {
		pipe.DBSize(ctx)
	}
	pipe.Incr(ctx, "b")
	pipe.RPush(ctx, "l", fmt.Sprintf("%d:%d", id, i))
	pipe.Set(ctx, fmt.Sprintf("y:%d:%d", id, i), "1", 0)
	pipe.Incr(ctx, "n")
	_, err := pipe.Exec(ctx)
	return err
}

// isolatedRead reads the values the writers move together, in one of
// five ways, and checks they agree: MGET a b; a transaction of GET a,
// GET b, GET n and LLEN l; the same with DBSIZE among them, which takes
// the world lock on shale; KEYS, which must list as many x: keys as y:
// keys; and DBSIZE, which must be even (each transaction creates two keys,
// and the first four more). A missing key counts as 0.
func isolatedRead(ctx context.Context, cl *redis.Client, i int) error {
	switch i % 5 {
	case 3:
		keys, err := cl.Keys(ctx, "*").Result()
		if err != nil {
			return err
		}
		xs, ys := 0, 0
		for _, k := range keys {
			switch {
			case strings.HasPrefix(k, "x:"):
				xs++
			case strings.HasPrefix(k, "y:"):
				ys++
			}
		}
		if xs != ys {
			return fmt.Errorf("KEYS saw a part of a transaction: %d x: keys, %d y: keys", xs, ys)
		}
		return nil
	case 4:
		n, err := cl.DBSize(ctx).Result()
		if err != nil {
			return err
		}
		if n%2 != 0 {
			return fmt.Errorf("DBSIZE %d saw a part of a transaction", n)
		}
		return nil
	}
	if i%5 == 0 {
		vals, err := cl.MGet(ctx, "a", "b").Result()
		if err != nil {
			return err
		}
		if a, b := counterOf(vals[0]), counterOf(vals[1]); a != b {
			return fmt.Errorf("MGET a b saw a part of a transaction: a=%s b=%s", a, b)
		}
		return nil
	}
	pipe := cl.TxPipeline()
	ga := pipe.Get(ctx, "a")
	if i%5 == 2 {
		pipe.DBSize(ctx)
	}
	gb := pipe.Get(ctx, "b")
	gn := pipe.Get(ctx, "n")
	ll := pipe.LLen(ctx, "l")
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return err
	}
	a, b, n := counterOf(ga.Val()), counterOf(gb.Val()), counterOf(gn.Val())
	llen := strconv.FormatInt(ll.Val(), 10)
	if a != b || a != n || a != llen {
		return fmt.Errorf("a transaction saw a part of another: a=%s b=%s n=%s llen=%s", a, b, n, llen)
	}
	return nil
}

// counterOf is a GET or MGET value as a counter: "0" for a missing key.
func counterOf(v any) string {
	if s, ok := v.(string); ok && s != "" {
		return s
	}
	return "0"
}

// TestWatchWriterInFlight: a write that was sent before WATCH but lands
// after the watcher has read the key must fail the watcher's EXEC. Shale
// only: it needs a writer parked on a key lock while other clients watch
// and read, which Redis's single thread never allows. Client A holds key
// "hold" in a long transaction; writer W sends MSET hold x c0 x ... c39 x,
// which waits for "hold" (holding only the stripes ordered before it);
// then one watcher per candidate runs WATCH ci; GET ci, waits for W, and
// runs MULTI; SET ci c; EXEC. A watcher that read ci before W wrote it
// must get a null EXEC; one that read W's x, a committed one. (Shale
// before the fix let the watchers of the candidates W had not locked yet
// read nothing and commit over W's write.)
func TestWatchWriterInFlight(t *testing.T) {
	p := startShale(t, shaleOpts{})
	// An attempt is void when A's transaction ends before the watchers
	// start (a loaded machine): try again with other keys.
	for attempt := range 5 {
		if watchWriterInFlight(t, p, attempt) {
			return
		}
		t.Logf("attempt %d: A's transaction ended before the watchers started", attempt)
	}
	t.Fatal("A's transaction always ended before the watchers started: make it longer")
}

// watchWriterInFlight runs TestWatchWriterInFlight's scenario once, with
// keys of its own; it reports false when A ended too soon to test anything.
func watchWriterInFlight(t *testing.T, p *serverProc, attempt int) bool {
	ctx := ctxT(t)
	hold := fmt.Sprintf("hold%d", attempt)
	// A: a transaction of SMISMEMBERs of many members each keeps the
	// stripe of hold for some 100ms. (SMISMEMBER is Grouped: A holds
	// that stripe only, not the world lock.)
	const members, scans, candidates = 5000, 200, 40
	scan := []string{"SMISMEMBER", hold}
	for i := range members {
		scan = append(scan, "m"+strconv.Itoa(i))
	}
	if err := p.Client.SAdd(ctx, hold, scan[2:]).Err(); err != nil {
		t.Fatal(err)
	}
	a := dialRaw(t, p.Addr)
	var req strings.Builder
	req.WriteString("*1\r\n$5\r\nMULTI\r\n")
	for range scans {
		fmt.Fprintf(&req, "*%d\r\n", len(scan))
		for _, s := range scan {
			fmt.Fprintf(&req, "$%d\r\n%s\r\n", len(s), s)
		}
	}
	queued := make(chan struct{})
	execHeader := make(chan string, 1)
	go func() {
		// Read every reply, so that the server never waits on A's
		// socket: +OK, the QUEUEDs, then EXEC's.
		for i := range scans + 2 {
			line, err := a.r.ReadString('\n')
			if err != nil {
				execHeader <- err.Error()
				return
			}
			if i == scans {
				close(queued)
			}
			if i == scans+1 {
				execHeader <- line
			}
		}
		_, _ = io.Copy(io.Discard, a.r)
	}()
	a.send(req.String())
	<-queued
	a.send("*1\r\n$4\r\nEXEC\r\n")
	// Wait until A's EXEC holds hold: a read of it then waits.
	probe := newClient(p.Addr, "")
	defer probe.Close()
	for {
		pctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
		err := probe.SIsMember(pctx, hold, "m1").Err()
		cancel()
		if err != nil {
			break // timed out: held
		}
		select {
		case <-execHeader:
			return false
		default:
		}
	}
	// W parks on hold, having looked for the watchers of its keys:
	// there are none yet.
	args := []any{"MSET", hold, "x"}
	key := func(i int) string { return fmt.Sprintf("c%d:%d", attempt, i) }
	for i := range candidates {
		args = append(args, key(i), "x")
	}
	wDone := make(chan struct{})
	var wErr error
	go func() {
		defer close(wDone)
		cl := newClient(p.Addr, "")
		defer cl.Close()
		wErr = cl.Do(ctx, args...).Err()
	}()
	time.Sleep(20 * time.Millisecond)
	select {
	case <-wDone:
		return false
	default:
	}
	type result struct {
		key  string
		read string // GET's value after WATCH; "" when missing
		exec any
		err  error
	}
	results := make(chan result, candidates)
	for i := range candidates {
		go func() {
			r := result{key: key(i)}
			defer func() { results <- r }()
			cn := newConn(t, p.Addr)
			if r.err = cn.Do(ctx, "WATCH", r.key).Err(); r.err != nil {
				return
			}
			r.read, r.err = cn.Get(ctx, r.key).Result()
			if errors.Is(r.err, redis.Nil) {
				r.err = nil
			}
			if r.err != nil {
				return
			}
			<-wDone
			pipe := cn.Pipeline()
			pipe.Do(ctx, "MULTI")
			pipe.Do(ctx, "SET", r.key, "c")
			exec := pipe.Do(ctx, "EXEC")
			if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
				r.err = err
				return
			}
			r.exec, r.err = exec.Result()
			if errors.Is(r.err, redis.Nil) {
				r.exec, r.err = nil, nil
			}
		}()
	}
	early := 0
	for range candidates {
		r := <-results
		if r.err != nil {
			t.Fatalf("watcher of %s: %v", r.key, r.err)
		}
		if wErr != nil {
			t.Fatalf("W: %v", wErr)
		}
		switch r.read {
		case "":
			// Read before W wrote: W's write must fail the EXEC.
			early++
			if r.exec != nil {
				t.Errorf("%s: WATCH, GET (missing), then W's MSET wrote it, and EXEC committed %v over it: want a null EXEC", r.key, r.exec)
			}
		case "x":
			// W wrote before the GET, but maybe after the WATCH: W
			// waits for its keys' locks before it claims the watched
			// keys it writes, so a WATCH made while W waited does not
			// wait for W, and W's write then fails the EXEC, as in
			// Redis. Either way the EXEC may not fail with an error.
			if r.exec != nil {
				if why := matchValue([]any{"OK"}, r.exec); why != "" {
					t.Errorf("%s: WATCH, GET (W's x), EXEC %v: want [OK] or a null EXEC", r.key, fmtVal(r.exec))
				}
			}
		default:
			t.Errorf("%s: GET %q, want missing or W's x", r.key, r.read)
		}
	}
	t.Logf("A's EXEC: %q; %d of %d watchers read before W wrote", <-execHeader, early, candidates)
	return true
}
