package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/rs/zerolog"
	"github.com/tidwall/redcon"

	"github.com/shaledb/shale/server/types"
)

// TestGuardConnWatch: bytes that arrive while a handler is blocked are kept
// for redcon; a peer that goes away closes gone, and Read then fails; a
// stopped watch leaves the connection readable as before.
func TestGuardConnWatch(t *testing.T) {
	readAll := func(g *guardConn, n int) string {
		t.Helper()
		buf := make([]byte, 0, n)
		p := make([]byte, 64)
		for len(buf) < n {
			k, err := g.Read(p)
			if err != nil {
				t.Fatalf("read after %q: %v", buf, err)
			}
			buf = append(buf, p[:k]...)
		}
		return string(buf)
	}
	t.Run("kept", func(t *testing.T) {
		a, b := net.Pipe()
		defer b.Close()
		g := newGuardConn(a, nil, nil, zerolog.Nop())
		gone, stop := g.watch()
		// An inline command is rewritten by the guard: proof that the kept
		// bytes go through it.
		if _, err := b.Write([]byte("PING\r\n")); err != nil {
			t.Fatal(err)
		}
		stop()
		select {
		case <-gone:
			t.Fatal("gone closed by stop")
		default:
		}
		want := "*1\r\n$4\r\nPING\r\n"
		if got := readAll(g, len(want)); got != want {
			t.Fatalf("read %q, want %q", got, want)
		}
		// The deadline stop used is lifted: a later write is read.
		go b.Write([]byte("*1\r\n$4\r\nECHO\r\n"))
		want = "*1\r\n$4\r\nECHO\r\n"
		if got := readAll(g, len(want)); got != want {
			t.Fatalf("read %q after the watch, want %q", got, want)
		}
	})
	t.Run("gone", func(t *testing.T) {
		a, b := net.Pipe()
		g := newGuardConn(a, nil, nil, zerolog.Nop())
		gone, stop := g.watch()
		go func() {
			b.Write([]byte("*1\r\n$4\r\nPING\r\n"))
			b.Close()
		}()
		select {
		case <-gone:
		case <-time.After(5 * time.Second):
			t.Fatal("gone not closed after the peer closed")
		}
		stop()
		want := "*1\r\n$4\r\nPING\r\n"
		if got := readAll(g, len(want)); got != want {
			t.Fatalf("read %q, want %q", got, want)
		}
		if _, err := g.Read(make([]byte, 16)); !errors.Is(err, io.EOF) {
			t.Fatalf("read after the kept bytes: %v, want EOF", err)
		}
	})
	t.Run("idle", func(t *testing.T) {
		a, b := net.Pipe()
		defer b.Close()
		g := newGuardConn(a, nil, nil, zerolog.Nop())
		// redcon's idle deadline must not end a blocked client's watch.
		a.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
		gone, stop := g.watch()
		time.Sleep(60 * time.Millisecond)
		select {
		case <-gone:
			t.Fatal("the idle deadline ended the watch")
		default:
		}
		stop()
	})
}

// fakeConn is a redcon.Conn that records replies, for driving blockOn
// without a socket. Methods the tests do not need panic.
type fakeConn struct {
	redcon.Conn
	mu  sync.Mutex
	out bytes.Buffer
}

func (f *fakeConn) write(s string) {
	f.mu.Lock()
	f.out.WriteString(s)
	f.mu.Unlock()
}
func (f *fakeConn) WriteRaw(b []byte)      { f.write(string(b)) }
func (f *fakeConn) WriteArray(n int)       { f.write(fmt.Sprintf("*%d ", n)) }
func (f *fakeConn) WriteBulk(b []byte)     { f.write(string(b) + " ") }
func (f *fakeConn) WriteInt64(n int64)     { f.write(fmt.Sprintf(":%d ", n)) }
func (f *fakeConn) NetConn() net.Conn      { return nil }
func (f *fakeConn) Context() interface{}   { return nil }
func (f *fakeConn) SetContext(interface{}) {}
func (f *fakeConn) String() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.out.String()
}

func waitBlocked(t *testing.T, s *Server, n int64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	// Parked, too: a waiter still in its first try when a key is
	// signalled retries on its own, after the signal returns.
	for s.blocking.blocked() != n || s.blocking.anyBusy() {
		if time.Now().After(deadline) {
			t.Fatalf("%d blocked clients, want %d", s.blocking.blocked(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestBlockOnKinds: a waiter for another kind is passed over, and stays
// blocked, while the waiter behind it is served; the wake-up try gets the
// signalled key alone.
func TestBlockOnKinds(t *testing.T) {
	s, _ := startAdminServer(t, nil)
	db, _ := s.eng.DB(0)
	newCtx := func() (*Ctx, *fakeConn) {
		f := &fakeConn{}
		return &Ctx{Conn: f, Srv: s, DB: db}, f
	}
	zc, zconn := newCtx()
	var zsetTries []string
	zdone := make(chan error, 1)
	go func() {
		zdone <- s.blockOn(zc, [][]byte{[]byte("k")}, 300*time.Millisecond, "zset", func(keys [][]byte) (bool, error) {
			zsetTries = append(zsetTries, string(bytes.Join(keys, []byte(","))))
			return false, nil
		})
	}()
	waitBlocked(t, s, 1)
	lc, lconn := newCtx()
	ldone := make(chan error, 1)
	var listTries []string
	go func() {
		ldone <- s.blockOn(lc, [][]byte{[]byte("other"), []byte("k")}, 0, "list", func(keys [][]byte) (bool, error) {
			listTries = append(listTries, string(bytes.Join(keys, []byte(","))))
			key, vals, err := lc.DB.LMPop(keys, types.Left, 1)
			if err != nil || key == nil {
				return false, err
			}
			lc.Reply().Bulks([][]byte{key, vals[0]})
			return true, nil
		})
	}()
	waitBlocked(t, s, 2)
	pc, _ := newCtx()
	if _, err := pc.DB.RPush([]byte("k"), [][]byte{[]byte("v")}); err != nil {
		t.Fatal(err)
	}
	pc.signalKeyReady(0, []byte("k"))
	// Served before signalKeyReady returned.
	if got := lconn.String(); got != "*2 k v " {
		t.Fatalf("list waiter's reply %q", got)
	}
	if err := <-ldone; err != nil {
		t.Fatal(err)
	}
	if want := []string{"other,k", "k"}; strings.Join(listTries, " ") != strings.Join(want, " ") {
		t.Fatalf("list tries %q, want %q", listTries, want)
	}
	if err := <-zdone; err != nil {
		t.Fatal(err)
	}
	if len(zsetTries) != 1 || zconn.String() != "*-1\r\n" {
		t.Fatalf("zset waiter: tries %q, reply %q; want one try and a timeout", zsetTries, zconn.String())
	}
	waitBlocked(t, s, 0)
}

// TestBlockingCloseWakes: Server.Close does not wait for a client blocked
// for ever; it wakes it first.
func TestBlockingCloseWakes(t *testing.T) {
	s, c := startAdminServer(t, nil)
	errc := make(chan error, 1)
	go func() { errc <- c.Do(context.Background(), "BLPOP", "k", "0").Err() }()
	waitBlocked(t, s, 1)
	closeWithin(t, s, 10*time.Second) // while a client is blocked
	if err := <-errc; err == nil {
		t.Fatal("the blocked client got a reply from a closed server")
	}
}

// TestBlockingNoLostElements races consumers blocked with short timeouts
// against producers on two keys, with BLMOVE between them: every element
// pushed is received exactly once or still in a list.
func TestBlockingNoLostElements(t *testing.T) {
	s, _ := startAdminServer(t, nil)
	const producers, consumers, perProducer = 3, 4, 200
	client := func() *redis.Client {
		c := redis.NewClient(&redis.Options{Addr: s.Addr().String(), Protocol: 2, DisableIdentity: true, PoolSize: 1})
		t.Cleanup(func() { c.Close() })
		return c
	}
	ctx := context.Background()
	var mu sync.Mutex
	got := map[string]int{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range consumers {
		c := client()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				var v []string
				var err error
				// go-redis rounds a timeout under a second up to one
				// (and logs it), hence Do with Redis's fractional seconds.
				switch i % 3 {
				case 0:
					v, err = c.Do(ctx, "BLPOP", "a", "b", "0.02").StringSlice()
				case 1:
					v, err = c.Do(ctx, "BRPOP", "b", "a", "0.02").StringSlice()
				default:
					// Moves from a to b; a consumer of b takes it from there.
					err = c.Do(ctx, "BLMOVE", "a", "b", "LEFT", "RIGHT", "0.02").Err()
					if errors.Is(err, redis.Nil) {
						err = nil
					}
					if err != nil {
						t.Error(err)
						return
					}
					continue
				}
				if errors.Is(err, redis.Nil) {
					continue
				}
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				got[v[1]]++
				mu.Unlock()
			}
		}()
	}
	var pw sync.WaitGroup
	for p := range producers {
		c := client()
		pw.Add(1)
		go func() {
			defer pw.Done()
			for i := range perProducer {
				key := []string{"a", "b"}[i%2]
				if err := c.RPush(ctx, key, fmt.Sprintf("%d-%d", p, i)).Err(); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	pw.Wait()
	time.Sleep(200 * time.Millisecond)
	close(stop)
	wg.Wait()
	c := client()
	for _, key := range []string{"a", "b"} {
		rest, err := c.LRange(ctx, key, 0, -1).Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range rest {
			got[v]++
		}
	}
	for p := range producers {
		for i := range perProducer {
			if n := got[fmt.Sprintf("%d-%d", p, i)]; n != 1 {
				t.Errorf("element %d-%d seen %d times", p, i, n)
			}
		}
	}
	waitBlocked(t, s, 0)
}

// anyBusy reports whether a waiter is in a try.
func (r *blockRegistry) anyBusy() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, q := range r.queues {
		for _, w := range q {
			if w.busy {
				return true
			}
		}
	}
	return false
}
