package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/rs/zerolog"

	"github.com/shaledb/shale/conf"
	"github.com/shaledb/shale/server/store"
	"github.com/shaledb/shale/server/types"
)

func withLoops(n int) func(*conf.Config) {
	return func(c *conf.Config) { c.Server.IOLoops = n }
}

// infoField reads one field of INFO clients.
func infoField(t *testing.T, c *redis.Client, field string) string {
	t.Helper()
	info, err := c.Info(context.Background(), "clients").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return v
		}
	}
	t.Fatalf("INFO clients has no %s:\n%s", field, info)
	return ""
}

// loopClient is a raw connection and a reader of its replies.
type loopClient struct {
	net.Conn
	r *bufio.Reader
}

func dialLoop(t *testing.T, s *Server) *loopClient {
	t.Helper()
	nc, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &loopClient{nc, bufio.NewReader(nc)}
}

// replies reads n replies as their raw lines (a bulk's length line and
// its data; an array's elements follow it as replies of their own).
func (lc *loopClient) replies(t *testing.T, n int) []string {
	t.Helper()
	_ = lc.SetReadDeadline(time.Now().Add(5 * time.Second))
	var out []string
	for len(out) < n {
		line, err := lc.r.ReadString('\n')
		if err != nil {
			t.Fatalf("after %q: %v", out, err)
		}
		line = strings.TrimSuffix(line, "\r\n")
		if strings.HasPrefix(line, "$") && line != "$-1" {
			data, err := lc.r.ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			line += " " + strings.TrimSuffix(data, "\r\n")
		}
		if strings.HasPrefix(line, "*") {
			continue // the elements are counted instead
		}
		out = append(out, line)
	}
	return out
}

// A connection stays on its event loop while it sends plain commands, and
// is handed to a goroutine, with the commands it pipelined behind, at the
// first command a loop does not run (MULTI here); its replies keep their
// order and the client its state.
func TestEventLoopServesThenHandsOff(t *testing.T) {
	s, admin := startAdminServer(t, withLoops(1))
	lc := dialLoop(t, s)
	io.WriteString(lc, multibulk("SELECT", "2")+multibulk("SET", "a", "1")+multibulk("GET", "a"))
	if got := lc.replies(t, 3); fmt.Sprint(got) != "[+OK +OK $1 1]" {
		t.Fatalf("got %q", got)
	}
	// The admin client's INFO is no loop command: it is handed over first.
	if got := infoField(t, admin, "io_loops"); got != "1" {
		t.Errorf("io_loops %s", got)
	}
	if got := infoField(t, admin, "io_loop_clients"); got != "1" {
		t.Errorf("io_loop_clients %s before MULTI; want the raw client's 1", got)
	}
	io.WriteString(lc, multibulk("INCR", "n")+multibulk("MULTI")+multibulk("SET", "b", "2")+
		multibulk("INCR", "n")+multibulk("EXEC")+multibulk("GET", "b")+multibulk("GET", "n"))
	want := "[:1 +OK +QUEUED +QUEUED +OK :2 $1 2 $1 2]"
	if got := lc.replies(t, 8); fmt.Sprint(got) != want {
		t.Fatalf("got %q, want %s", got, want)
	}
	if got := infoField(t, admin, "io_loop_clients"); got != "0" {
		t.Errorf("io_loop_clients %s after MULTI", got)
	}
	if got := infoField(t, admin, "io_loop_handoffs"); got != "2" {
		t.Errorf("io_loop_handoffs %s; want 2 (admin, raw)", got)
	}
	// The database SELECT chose on the loop holds on the goroutine.
	if v, err := admin.Do(context.Background(), "SELECT", "2").Result(); err != nil || v != "OK" {
		t.Fatal(v, err)
	}
	if v := admin.Get(context.Background(), "n").Val(); v != "2" {
		t.Errorf("n in db 2 = %q", v)
	}
}

// A command split over many reads runs once whole; a protocol error is
// replied after the good commands before it, and the connection closes.
func TestEventLoopSplitCommandsAndProtocolError(t *testing.T) {
	s, _ := startAdminServer(t, withLoops(1))
	lc := dialLoop(t, s)
	cmd := multibulk("SET", "split", strings.Repeat("v", 100000)) + multibulk("STRLEN", "split")
	for i := 0; i < len(cmd); i += 7001 {
		io.WriteString(lc, cmd[i:min(i+7001, len(cmd))])
		time.Sleep(time.Millisecond)
	}
	if got := lc.replies(t, 2); fmt.Sprint(got) != "[+OK :100000]" {
		t.Fatalf("got %q", got)
	}
	io.WriteString(lc, multibulk("GET", "split")[:0]+multibulk("PING")+"*1\r\n$-5\r\n")
	got := lc.replies(t, 2)
	if got[0] != "+PONG" || !strings.HasPrefix(got[1], "-ERR Protocol error") {
		t.Fatalf("got %q", got)
	}
	if _, err := lc.r.ReadByte(); err != io.EOF {
		t.Errorf("connection still open: %v", err)
	}
}

// A loop's connection closed by another client (CLIENT KILL) or by its own
// QUIT ends, and its client with it.
func TestEventLoopCloses(t *testing.T) {
	s, admin := startAdminServer(t, withLoops(1))
	ctx := context.Background()
	victim := dialLoop(t, s)
	io.WriteString(victim, multibulk("CLIENT", "ID"))
	id := strings.TrimPrefix(victim.replies(t, 1)[0], ":")
	if n, err := admin.Do(ctx, "CLIENT", "KILL", "ID", id).Int(); err != nil || n != 1 {
		t.Fatalf("CLIENT KILL: %d, %v", n, err)
	}
	_ = victim.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := victim.r.ReadByte(); err != io.EOF {
		t.Errorf("killed connection: %v; want EOF", err)
	}
	quitter := dialLoop(t, s)
	io.WriteString(quitter, multibulk("SET", "q", "1")+multibulk("QUIT"))
	if got := quitter.replies(t, 2); fmt.Sprint(got) != "[+OK +OK]" {
		t.Errorf("got %q", got)
	}
	if _, err := quitter.r.ReadByte(); err != io.EOF {
		t.Errorf("after QUIT: %v; want EOF", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for infoField(t, admin, "connected_clients") != "1" || infoField(t, admin, "io_loop_clients") != "0" {
		if time.Now().After(deadline) {
			t.Fatalf("clients left: %s connected, %s on loops", infoField(t, admin, "connected_clients"), infoField(t, admin, "io_loop_clients"))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A server with loops closed the moment it started, before redcon has
// begun serving the loops' hand-over listener, still shuts down.
func TestEventLoopServerClosedAtOnce(t *testing.T) {
	for range 20 {
		// Not startServer, whose cleanup's Close would wait behind a
		// hung one.
		cfg := conf.Default()
		cfg.Server.Bind = "127.0.0.1"
		cfg.Server.Port = 0
		cfg.Server.IOLoops = 1
		cfg.Storage.Dir = t.TempDir()
		cfg.RocksDB.BlockCacheBytes = 8 * conf.MiB
		s, err := Start(cfg, zerolog.Nop())
		if err != nil {
			t.Fatal(err)
		}
		closeWithin(t, s, 20*time.Second)
	}
}

// A command with more arguments than a loop runs (HSET of 100 fields)
// hands its connection to a goroutine; one at the limit stays.
func TestEventLoopHandsOffBigCommands(t *testing.T) {
	s, admin := startAdminServer(t, withLoops(1))
	lc := dialLoop(t, s)
	fields := func(n int) []string {
		args := []string{"HSET", "h"}
		for i := range n {
			args = append(args, fmt.Sprint("f", i), "v")
		}
		return args
	}
	atLimit := fields((loopMaxArgs - 2) / 2)
	io.WriteString(lc, multibulk(atLimit...)+multibulk("HLEN", "h"))
	if got := lc.replies(t, 2); fmt.Sprint(got) != fmt.Sprintf("[:%d :%d]", len(atLimit)/2-1, len(atLimit)/2-1) {
		t.Fatalf("got %q", got)
	}
	if got := infoField(t, admin, "io_loop_clients"); got != "1" {
		t.Fatalf("io_loop_clients %s after a command of %d arguments; want 1", got, len(atLimit))
	}
	io.WriteString(lc, multibulk("SET", "a", "1")+multibulk(fields(100)...)+multibulk("HLEN", "h")+multibulk("GET", "a"))
	if got := lc.replies(t, 4); fmt.Sprint(got) != "[+OK :37 :100 $1 1]" {
		t.Fatalf("got %q", got)
	}
	if got := infoField(t, admin, "io_loop_clients"); got != "0" {
		t.Errorf("io_loop_clients %s after HSET of 100 fields; want 0", got)
	}
}

// With no share of a turn at all, a connection yields after every
// command: its pipeline still runs in order, whole, beside another's on
// the same keys, and a client that sent its pipeline and shut its side
// still gets every reply.
func TestEventLoopYieldsItsTurn(t *testing.T) {
	share := connTurnShare
	t.Cleanup(func() { connTurnShare = share })
	connTurnShare = 0
	s, admin := startAdminServer(t, withLoops(1))
	const n = 300
	var wg sync.WaitGroup
	for c := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lc := dialLoop(t, s)
			var b strings.Builder
			for i := range n {
				b.WriteString(multibulk("INCR", "hot") + multibulk("SET", fmt.Sprint("k", c, ":", i), fmt.Sprint(i)) +
					multibulk("GET", fmt.Sprint("k", c, ":", i)) + multibulk("HINCRBY", "h", "f", "1"))
			}
			io.WriteString(lc, b.String())
			lc.Conn.(*net.TCPConn).CloseWrite()
			got := lc.replies(t, 4*n)
			last := 0
			for i := range n {
				hot, set, get, hinc := got[4*i], got[4*i+1], got[4*i+2], got[4*i+3]
				var h int
				if _, err := fmt.Sscanf(hot, ":%d", &h); err != nil || h <= last {
					t.Errorf("client %d, INCR %d: %q after %d", c, i, hot, last)
					return
				}
				last = h
				if want := fmt.Sprintf("$%d %d", len(fmt.Sprint(i)), i); set != "+OK" || get != want || !strings.HasPrefix(hinc, ":") {
					t.Errorf("client %d, round %d: %q %q %q", c, i, set, get, hinc)
					return
				}
			}
		}()
	}
	wg.Wait()
	ctx := context.Background()
	if v := admin.Get(ctx, "hot").Val(); v != fmt.Sprint(2*n) {
		t.Errorf("hot = %s, want %d", v, 2*n)
	}
	if v := admin.HGet(ctx, "h", "f").Val(); v != fmt.Sprint(2*n) {
		t.Errorf("h.f = %s, want %d", v, 2*n)
	}
}

// A pipeline on one key ends a group at every command: on a loop, each
// group is queued with the turn's other writes (an early commit, counted
// in INFO) rather than written on the spot while the loop waits, and the
// next command runs in the same turn, so that one write carries them all.
func TestEventLoopQueuesEachGroupOfOneKeyPipeline(t *testing.T) {
	longTurnShares(t)
	s, admin := startAdminServer(t, withLoops(1))
	ctx := context.Background()
	stat := func(section, field string) int {
		info, err := admin.Info(ctx, section).Result()
		if err != nil {
			t.Fatal(err)
		}
		var n int
		for _, line := range strings.Split(info, "\r\n") {
			if v, ok := strings.CutPrefix(line, field+":"); ok {
				fmt.Sscan(v, &n)
			}
		}
		return n
	}
	early := func() int { return stat("stats", "early_lock_releases") }
	// A hash's write checks the hash's size after it with the invariants
	// build tag (Group.After), which must not keep it from queuing early.
	for _, cmd := range [][]string{{"INCR", "k"}, {"HINCRBY", "h", "f", "1"}} {
		t.Run(cmd[0], func(t *testing.T) {
			before, writesBefore := early(), stat("latency", "queue_writes")
			lc := dialLoop(t, s)
			const n = 20
			io.WriteString(lc, strings.Repeat(multibulk(cmd...), n))
			got := lc.replies(t, n)
			for i, r := range got {
				if r != fmt.Sprint(":", i+1) {
					t.Fatalf("reply %d: %q", i, r)
				}
			}
			if d := early() - before; d != n {
				t.Errorf("early_lock_releases rose by %d; want %d, one per command", d, n)
			}
			// The groups are queued in one turn and written as one, not one
			// turn and one write each (a second write if the pipeline came
			// in two reads).
			if d := stat("latency", "queue_writes") - writesBefore; d > 2 {
				t.Errorf("the pipeline took %d RocksDB writes; want its %d groups joined in one", d, n)
			}
		})
	}
}

// Pipelined writes to one key from many loop connections at once: every
// increment lands once, and every reply counts up.
func TestEventLoopHotKeyPipelines(t *testing.T) {
	for _, loops := range []int{1, 2} {
		t.Run(fmt.Sprint(loops, " loops"), func(t *testing.T) {
			s, admin := startAdminServer(t, withLoops(loops))
			const clients, rounds, depth = 8, 20, 16
			var wg sync.WaitGroup
			for range clients {
				lc := dialLoop(t, s)
				wg.Add(1)
				go func() {
					defer wg.Done()
					var pipe strings.Builder
					for range depth {
						pipe.WriteString(multibulk("HINCRBY", "h", "f", "1") + multibulk("INCR", "k"))
					}
					for range rounds {
						io.WriteString(lc, pipe.String())
						for _, r := range lc.replies(t, 2*depth) {
							if !strings.HasPrefix(r, ":") {
								t.Errorf("reply %q", r)
							}
						}
					}
				}()
			}
			wg.Wait()
			want := fmt.Sprint(clients * rounds * depth)
			if v := admin.HGet(context.Background(), "h", "f").Val(); v != want {
				t.Errorf("h.f = %s, want %s", v, want)
			}
			if v := admin.Get(context.Background(), "k").Val(); v != want {
				t.Errorf("k = %s, want %s", v, want)
			}
		})
	}
}

// With server.io_loops 0, a goroutine serves every connection.
func TestEventLoopsOff(t *testing.T) {
	s, admin := startAdminServer(t, withLoops(0))
	lc := dialLoop(t, s)
	io.WriteString(lc, multibulk("SET", "a", "1")+multibulk("GET", "a"))
	if got := lc.replies(t, 2); fmt.Sprint(got) != "[+OK $1 1]" {
		t.Fatalf("got %q", got)
	}
	if got := infoField(t, admin, "io_loops"); got != "0" {
		t.Errorf("io_loops %s", got)
	}
	if got := infoField(t, admin, "io_loop_handoffs"); got != "0" {
		t.Errorf("io_loop_handoffs %s", got)
	}
}

// LRANGE runs on the loop when its indexes bound it (both from one end,
// at most types.WalkLockedUpTo elements), and hands its connection over
// when they do not (LRANGE 0 -1 of a list of any length).
func TestEventLoopRunsBoundedLRange(t *testing.T) {
	s, admin := startAdminServer(t, withLoops(1))
	lc := dialLoop(t, s)
	io.WriteString(lc, multibulk("RPUSH", "l", "a", "b", "c", "d")+
		multibulk("LRANGE", "l", "0", "1")+multibulk("LRANGE", "l", "-2", "-1")+
		multibulk("LRANGE", "l", "0", fmt.Sprint(types.WalkLockedUpTo-1))+multibulk("LRANGE", "l", "x", "1"))
	if got := lc.replies(t, 10); fmt.Sprint(got) != "[:4 $1 a $1 b $1 c $1 d $1 a $1 b $1 c $1 d -ERR value is not an integer or out of range]" {
		t.Fatalf("got %q", got)
	}
	if got := infoField(t, admin, "io_loop_clients"); got != "1" {
		t.Fatalf("io_loop_clients %s after bounded LRANGEs; want 1", got)
	}
	io.WriteString(lc, multibulk("LRANGE", "l", "0", fmt.Sprint(types.WalkLockedUpTo))+multibulk("LRANGE", "l", "0", "-1"))
	if got := lc.replies(t, 8); fmt.Sprint(got) != "[$1 a $1 b $1 c $1 d $1 a $1 b $1 c $1 d]" {
		t.Fatalf("got %q", got)
	}
	if got := infoField(t, admin, "io_loop_clients"); got != "0" {
		t.Errorf("io_loop_clients %s after LRANGE 0 %d; want 0", got, types.WalkLockedUpTo)
	}
}

// ZRANGE and the other range reads of a sorted set stay on the loop when
// their arguments bound the walk (ZRANGE 0 9, a LIMIT), and hand the
// connection over when they do not.
func TestEventLoopRunsBoundedZRange(t *testing.T) {
	s, admin := startAdminServer(t, withLoops(1))
	lc := dialLoop(t, s)
	io.WriteString(lc, multibulk("ZADD", "z", "1", "a", "2", "b", "3", "c")+
		multibulk("ZRANGE", "z", "0", "1")+multibulk("ZREVRANGE", "z", "-1", "-1")+
		multibulk("ZRANGEBYSCORE", "z", "2", "+inf", "LIMIT", "0", "5")+
		multibulk("ZRANGE", "z", "+", "-", "BYLEX", "REV", "LIMIT", "0", "1"))
	if got := lc.replies(t, 7); fmt.Sprint(got) != "[:3 $1 a $1 b $1 a $1 b $1 c $1 c]" {
		t.Fatalf("got %q", got)
	}
	if got := infoField(t, admin, "io_loop_clients"); got != "1" {
		t.Fatalf("io_loop_clients %s after bounded ZRANGEs; want 1", got)
	}
	io.WriteString(lc, multibulk("ZRANGE", "z", "0", "-1"))
	if got := lc.replies(t, 3); fmt.Sprint(got) != "[$1 a $1 b $1 c]" {
		t.Fatalf("got %q", got)
	}
	if got := infoField(t, admin, "io_loop_clients"); got != "0" {
		t.Errorf("io_loop_clients %s after ZRANGE 0 -1; want 0", got)
	}
}

// A replica's full sync swaps the store's files only while no loop is in
// a turn, which holds the store for the writes it queued as well as for
// its commands.
func TestEventLoopTurnHoldsTheStore(t *testing.T) {
	s, _ := startAdminServer(t, withLoops(1))
	if s.storeInUse() {
		t.Fatal("the store is in use on an idle server")
	}
	l := s.loops.all[0]
	l.storeUse.Add(1)
	inUse := s.storeInUse()
	l.storeUse.Add(-1)
	if !inUse {
		t.Error("the store is not in use while a loop's turn holds it")
	}
}

// A turn of pipelines hands the writes it queued to the loop's lander
// while it serves the rest: every write lands once, the increments of a
// key that the lander's writes and the loop's share count up without a
// gap, and every value set reads back.
func TestEventLoopLanderLandsPipelines(t *testing.T) {
	longTurnShares(t)
	s, admin := startAdminServer(t, withLoops(1))
	ctx := context.Background()
	// Each pipeline is one group of 64 commands: 63 SETs of keys of its
	// own, then an INCR of the shared key (a second one would end the
	// group, see keyInOpenGroup).
	const clients, sets = 16, 63
	conns := make([]*loopClient, clients)
	for i := range conns {
		conns[i] = dialLoop(t, s)
	}
	var incrs []int
	rounds := 0
	for infoField(t, admin, "io_loop_lander_writes") == "0" {
		if rounds++; rounds > 100 {
			t.Fatal("no turn of 16 pipelines of 64 commands handed its writes to the lander")
		}
		// Every pipeline is sent before any reply is read, so that the
		// loop finds several in one turn.
		for i, lc := range conns {
			var pipe strings.Builder
			for j := range sets {
				pipe.WriteString(multibulk("SET", fmt.Sprint("k:", i, ":", j), fmt.Sprint(rounds)))
			}
			pipe.WriteString(multibulk("INCR", "n"))
			io.WriteString(lc, pipe.String())
		}
		for _, lc := range conns {
			got := lc.replies(t, sets+1)
			for _, r := range got[:sets] {
				if r != "+OK" {
					t.Fatalf("SET replied %q", r)
				}
			}
			var v int
			if _, err := fmt.Sscanf(got[sets], ":%d", &v); err != nil {
				t.Fatalf("INCR replied %q", got[sets])
			}
			incrs = append(incrs, v)
		}
	}
	slices.Sort(incrs)
	for i, v := range incrs {
		if v != i+1 {
			t.Fatalf("INCR replies sorted: %d at %d; want each of 1..%d once", v, i, len(incrs))
		}
	}
	if v := admin.Get(ctx, "n").Val(); v != fmt.Sprint(len(incrs)) {
		t.Errorf("n = %s after %d INCRs", v, len(incrs))
	}
	for i := range clients {
		for _, j := range []int{0, sets - 1} {
			if v := admin.Get(ctx, fmt.Sprint("k:", i, ":", j)).Val(); v != fmt.Sprint(rounds) {
				t.Errorf("k:%d:%d = %q, want %d", i, j, v, rounds)
			}
		}
	}
}

// Pipelines of random commands from many loop connections, each on keys
// of its own, while a goroutine's transactions increment a key the
// pipelines increment too: every reply matches a model of the
// connection's keys, and the shared key's increments count up without a
// gap, whether their writes were landed by the loop or its lander.
func TestEventLoopLanderModel(t *testing.T) {
	longTurnShares(t)
	s, admin := startAdminServer(t, withLoops(1))
	ctx := context.Background()
	// Keys enough that a pipeline's group seldom meets one of its own keys
	// again, which would end it (keyInOpenGroup), so that turns queue
	// enough commands for the lander.
	const clients, minRounds, keys = 24, 20, 256
	seed := uint64(time.Now().UnixNano())
	if v, err := strconv.ParseUint(os.Getenv("SHALE_LANDER_SEED"), 10, 64); err == nil {
		seed = v
	}
	// The seed gives the commands; which turn serves which is the machine's.
	t.Logf("seed %d (SHALE_LANDER_SEED=%[1]d replays its commands)", seed)
	rng := rand.New(rand.NewPCG(seed, 22))

	var shared []int // values the shared key took, from every client
	var sharedMu sync.Mutex
	stop := make(chan struct{})
	txnDone := make(chan struct{})
	go func() { // a goroutine's client: MULTI hands it over for good
		defer close(txnDone)
		for {
			select {
			case <-stop:
				return
			default:
			}
			var incr *redis.IntCmd
			if _, err := admin.TxPipelined(ctx, func(p redis.Pipeliner) error {
				incr = p.Incr(ctx, "shared")
				return nil
			}); err != nil {
				t.Error(err)
				return
			}
			sharedMu.Lock()
			shared = append(shared, int(incr.Val()))
			sharedMu.Unlock()
		}
	}()

	type model struct {
		str   map[string]string
		lists map[string][]string
		hash  map[string]map[string]string
	}
	conns := make([]*loopClient, clients)
	models := make([]model, clients)
	for i := range conns {
		conns[i] = dialLoop(t, s)
		models[i] = model{str: map[string]string{}, lists: map[string][]string{}, hash: map[string]map[string]string{}}
	}
	bulk := func(v string, ok bool) string {
		if !ok {
			return "$-1"
		}
		return fmt.Sprintf("$%d %s", len(v), v)
	}
	for r := 0; r < minRounds || infoField(t, admin, "io_loop_lander_writes") == "0"; r++ {
		if r == 200 {
			t.Fatal("no turn handed its writes to the lander")
		}
		want := make([][]string, clients)
		for i, lc := range conns {
			m := &models[i]
			var pipe strings.Builder
			for range 60 + rng.IntN(60) {
				sk := fmt.Sprint("s:", i, ":", rng.IntN(keys))
				lk, hk := fmt.Sprint("l:", i, ":", rng.IntN(keys)), fmt.Sprint("h:", i, ":", rng.IntN(keys))
				v, f := fmt.Sprint(rng.IntN(1000)), fmt.Sprint("f", rng.IntN(5))
				if m.hash[hk] == nil {
					m.hash[hk] = map[string]string{}
				}
				var args []string
				var reply string
				op := rng.IntN(10)
				switch op {
				case 0:
					args, reply = []string{"SET", sk, v}, "+OK"
					m.str[sk] = v
				case 1:
					got, ok := m.str[sk]
					args, reply = []string{"GET", sk}, bulk(got, ok)
				case 2:
					m.str[sk] += v
					args, reply = []string{"APPEND", sk, v}, fmt.Sprint(":", len(m.str[sk]))
				case 3:
					_, ok := m.str[sk]
					delete(m.str, sk)
					args, reply = []string{"DEL", sk}, map[bool]string{true: ":1", false: ":0"}[ok]
				case 4:
					m.lists[lk] = append([]string{v}, m.lists[lk]...)
					args, reply = []string{"LPUSH", lk, v}, fmt.Sprint(":", len(m.lists[lk]))
				case 5:
					head, ok := "", len(m.lists[lk]) > 0
					if ok {
						head = m.lists[lk][0]
					}
					args, reply = []string{"LINDEX", lk, "0"}, bulk(head, ok)
				case 6:
					_, had := m.hash[hk][f]
					m.hash[hk][f] = v
					args, reply = []string{"HSET", hk, f, v}, map[bool]string{true: ":0", false: ":1"}[had]
				case 7:
					got, ok := m.hash[hk][f]
					args, reply = []string{"HGET", hk, f}, bulk(got, ok)
				case 8:
					args, reply = []string{"HLEN", hk}, fmt.Sprint(":", len(m.hash[hk]))
				case 9:
					if rng.IntN(4) == 0 { // a quarter as often as the others
						args, reply = []string{"INCR", "shared"}, "shared"
					} else {
						got, ok := m.str[sk]
						args, reply = []string{"GET", sk}, bulk(got, ok)
					}
				}
				pipe.WriteString(multibulk(args...))
				want[i] = append(want[i], reply)
			}
			io.WriteString(lc, pipe.String())
		}
		for i, lc := range conns {
			for k, got := range lc.replies(t, len(want[i])) {
				if want[i][k] == "shared" {
					var v int
					if _, err := fmt.Sscanf(got, ":%d", &v); err != nil {
						t.Fatalf("round %d client %d reply %d: INCR shared replied %q", r, i, k, got)
					}
					sharedMu.Lock()
					shared = append(shared, v)
					sharedMu.Unlock()
				} else if got != want[i][k] {
					t.Fatalf("round %d client %d reply %d: got %q, want %q", r, i, k, got, want[i][k])
				}
			}
		}
	}
	close(stop)
	<-txnDone
	slices.Sort(shared)
	for i, v := range shared {
		if v != i+1 {
			t.Fatalf("the shared key's values sorted: %d at %d; want each of 1..%d once", v, i, len(shared))
		}
	}
}

// longTurnShares lets a connection's commands run a whole second of a turn
// for the test: under the race detector a command may take a millisecond,
// and the share would end each connection's batch after one or two.
func longTurnShares(t *testing.T) {
	share := connTurnShare
	t.Cleanup(func() { connTurnShare = share })
	connTurnShare = time.Second
}

// A pipeline on one key whose open group must be written on the spot (it
// reached maxGroupCommands): the group the connection queued earlier in
// the turn finishes first, and the one it queues after last, so that the
// keyspace events of its commands come in the commands' order.
func TestEventLoopGroupsFinishInOrder(t *testing.T) {
	longTurnShares(t)
	s, admin := startAdminServer(t, withLoops(1))
	ctx := context.Background()
	ps := subscribeKeyEvents(t, s, admin, "*")
	// Groups: [SET x, INCR a], queued when the second INCR a ends it; then
	// [INCR a, LPUSH y, SET of keys...] of maxGroupCommands commands, which
	// the SET x2 after them writes on the spot (commitGroup), then [SET
	// x2], queued. The keys are chosen so that no two of the second group
	// share a lock stripe, which would end it early (keyInOpenGroup).
	probe := s.st.NewEarlyGroup()
	var keys []string
	for i := 0; len(keys) < maxGroupCommands; i++ {
		k := fmt.Sprint("k", i)
		if len(keys) < 2 {
			k = []string{"a", "y"}[len(keys)]
		}
		lk := store.LockKey{Key: []byte(k)}
		if probe.Holds(lk) {
			continue
		}
		if !probe.TryLock(lk) {
			t.Fatalf("the probe cannot lock %s", k)
		}
		keys = append(keys, k)
	}
	probe.Abort()
	pipe := multibulk("SET", "x", "1") + multibulk("INCR", "a") + multibulk("INCR", "a") + multibulk("LPUSH", "y", "v")
	want := []string{"set x", "incrby a", "incrby a", "lpush y"}
	for _, k := range keys[2:] {
		pipe += multibulk("SET", k, "v")
		want = append(want, "set "+k)
	}
	pipe += multibulk("SET", "x2", "v")
	want = append(want, "set x2")
	lc := dialLoop(t, s)
	io.WriteString(lc, pipe)
	if got := lc.replies(t, len(want)); fmt.Sprint(got[:4]) != "[+OK :1 :2 :1]" {
		t.Fatalf("replies %q", got[:4])
	}
	var events []string
	for len(events) < len(want) {
		msg, err := ps.ReceiveMessage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, strings.TrimPrefix(msg.Channel, "__keyevent@0__:")+" "+msg.Payload)
	}
	if !slices.Equal(events, want) {
		t.Errorf("events %q..., want %q...", events[:6], want[:6])
	}
}

// A command that is not grouped, after a pipeline on one key queued a
// group in the turn, waits for the next turn, and the group open before it
// is queued first: its key's lock is free for another connection in the
// same turn, and every command's event is published once.
func TestEventLoopUngroupedAfterQueuedGroup(t *testing.T) {
	longTurnShares(t)
	s, admin := startAdminServer(t, withLoops(1))
	ctx := context.Background()
	ps := subscribeKeyEvents(t, s, admin, "incrby")
	a, b := dialLoop(t, s), dialLoop(t, s)
	io.WriteString(a, multibulk("INCR", "k")+multibulk("INCR", "k")+multibulk("PING")+multibulk("INCR", "k"))
	io.WriteString(b, multibulk("INCR", "k"))
	got := a.replies(t, 4)
	if got[2] != "+PONG" {
		t.Fatalf("replies %q", got)
	}
	b.replies(t, 1)
	for range 4 {
		if _, err := ps.ReceiveMessage(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if v := admin.Get(ctx, "k").Val(); v != "4" {
		t.Errorf("k = %s after 4 INCRs", v)
	}
}

// subscribeKeyEvents turns keyspace events on and subscribes a client of
// its own to database 0's key events whose names match pattern.
func subscribeKeyEvents(t *testing.T, s *Server, admin *redis.Client, pattern string) *redis.PubSub {
	t.Helper()
	ctx := context.Background()
	if err := admin.ConfigSet(ctx, "notify-keyspace-events", "KEA").Err(); err != nil {
		t.Fatal(err)
	}
	sub := redis.NewClient(&redis.Options{Addr: s.Addr().String(), Protocol: 2})
	t.Cleanup(func() { sub.Close() })
	ps := sub.PSubscribe(ctx, "__keyevent@0__:"+pattern)
	t.Cleanup(func() { ps.Close() })
	if _, err := ps.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	return ps
}
