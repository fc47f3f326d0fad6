package tests

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
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
	ctx := ctxT(t)
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
// while readers read them with MGET and with transactions: no reader ever
// sees one moved without the other.
func TestTransactionIsolation(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		const (
			writers = 4
			readers = 4
		)
		rounds := max(50, txnIncrsPerClient(t)/2)
		ctx := ctxT(t)
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

// isolatedWrite runs writer id's transaction number i: INCR a, INCR b,
// RPUSH l, INCR n; every third one also queues DBSIZE, which names no key
// and so takes the world lock on shale.
func isolatedWrite(ctx context.Context, cl *redis.Client, id, i int) error {
	pipe := cl.TxPipeline()
	pipe.Incr(ctx, "a")
	if i%3 == 0 {
		pipe.DBSize(ctx)
	}
	pipe.Incr(ctx, "b")
	pipe.RPush(ctx, "l", fmt.Sprintf("%d:%d", id, i))
	pipe.Incr(ctx, "n")
	_, err := pipe.Exec(ctx)
	return err
}

// isolatedRead reads the values the writers move together, in one of
// three ways, and checks they agree: MGET a b; a transaction of GET a,
// GET b, GET n and LLEN l; and the same with DBSIZE among them, which
// takes the world lock on shale. A missing key counts as 0.
func isolatedRead(ctx context.Context, cl *redis.Client, i int) error {
	if i%3 == 0 {
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
	if i%3 == 2 {
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
