package tests

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Replication under faults (issue 21): a replica SIGKILLed during a full
// sync and while streaming, the primary SIGKILLed and restarted, and a link
// cut long enough for the primary's log to move past the replica. Each fault
// happens under a background writer; afterwards the replica must hold the
// primary's data, and every write that WAIT 1 confirmed must be on both.

// The resyncs a fault can end with, as kindSince names them from the
// primary's INFO stats.
const (
	resyncFull        = "full"                        // sync_full grew
	resyncRefusedFull = "full after a refused resume" // sync_partial_err too
	resyncPartial     = "partial"                     // only sync_partial_ok grew
)

// replFault is one fault of TestReplicationFaults.
type replFault struct {
	name        string
	shaleConfig string   // TOML for every shale server of the set
	redisArgs   []string // redis-server arguments for every server of the set
	// replicasAtStart is 0 when setup attaches the replica itself.
	replicasAtStart int
	// setup runs before the writer starts (nil: nothing to do).
	setup func(t *testing.T, set *replSet)
	// inject runs under the writer: it causes the fault and starts the
	// recovery (restart, SIGCONT), and returns the primary's counters as
	// they were just before the recovery.
	inject func(t *testing.T, set *replSet) syncCounts
	// want is the resync each backend must go through; resyncFull also
	// accepts resyncRefusedFull. A backend not in it may go through any,
	// but every fault breaks the link, so some resync must happen.
	want map[string]string
}

// TestReplicationFaults: after each fault, under a writer, the replica
// converges to the primary's content and holds every write WAIT 1
// confirmed, through the resync the fault calls for (docs/REPLICATION.md,
// "Faults"; Redis 7.0 without persistence on the replicas). The faults run
// one after the other, each on redis and shale side by side: ~35s in all on
// 2 cores, the full-sync kill ~12s and each link cut ~9s of it.
func TestReplicationFaults(t *testing.T) {
	t.Parallel()
	faults := []replFault{{
		name:   "replica killed during full sync",
		setup:  fillForFullSync,
		inject: killReplicaDuringFullSync,
		// Neither has anything to resume from: a Redis replica keeps
		// nothing on disk, a Shale one only a complete checkpoint.
		want: map[string]string{"redis": resyncFull, "shale": resyncFull},
	}, {
		name:            "replica killed while streaming",
		replicasAtStart: 1,
		inject:          killReplicaStreaming,
		// Shale's replica reopens its store at the offset it had
		// applied, and the primary still has the log after it.
		want: map[string]string{"redis": resyncFull, "shale": resyncPartial},
	}, {
		name:            "primary killed and restarted",
		replicasAtStart: 1,
		// Redis's primary must keep its data to restart with it. It
		// restarts with a new replication ID and refuses the replica's
		// resume; Shale's restarts in a new history too, but lets a
		// replica resume in the previous one up to the restart point.
		redisArgs: []string{"--appendonly", "yes"},
		inject:    killPrimary,
		want:      map[string]string{"redis": resyncRefusedFull, "shale": resyncPartial},
	}, {
		name:            "link cut until the log is gone",
		replicasAtStart: 1,
		shaleConfig:     linkCutShaleConfig,
		redisArgs:       linkCutRedisArgs,
		inject:          cutLink(true),
		want:            map[string]string{"redis": resyncRefusedFull, "shale": resyncRefusedFull},
	}, {
		// The replica asks for log that is still there but due for
		// deletion: resuming and syncing in full are both right.
		name:            "link cut until the log is due for deletion",
		replicasAtStart: 1,
		shaleConfig:     linkCutShaleConfig,
		redisArgs:       linkCutRedisArgs,
		inject:          cutLink(false),
		want:            map[string]string{"redis": resyncRefusedFull},
	}}
	for _, f := range faults {
		t.Run(f.name, func(t *testing.T) {
			for _, backend := range []string{"redis", "shale"} {
				t.Run(backend, func(t *testing.T) {
					t.Parallel()
					f.run(t, backend)
				})
			}
		})
	}
}

// run starts a primary (and replicasAtStart replicas), runs the writer
// through the fault, then checks the resync kind, the convergence and the
// confirmed writes.
func (f replFault) run(t *testing.T, backend string) {
	phases := newPhaseClock()
	set := startReplSetOpts(t, replSetOpts{Backend: backend, Replicas: f.replicasAtStart,
		ShaleConfig: f.shaleConfig, RedisArgs: f.redisArgs})
	if f.setup != nil {
		f.setup(t, set)
	}
	phases.lap("setup")
	w := startFaultWriter(set.Primary.Addr)
	t.Cleanup(w.halt) // a failing step must not leave it writing
	// Some writes are confirmed before the fault, some after the recovery.
	time.Sleep(300 * time.Millisecond)
	before := f.inject(t, set)
	phases.lap("fault")

	// A replica can still show master_link_status:up for a link the fault
	// broke, until it notices: wait for the resync to begin first.
	pollUntil(t, faultRecoveryTimeout, func() (bool, string) {
		if p := set.Primary; p.exited() {
			t.Fatalf("%s primary %s exited: %v", p.Name, p.Addr, p.waitErr) // its output follows
		}
		now := readSyncCounts(t, set.Primary.Client)
		return now.kindSince(before) != "none", fmt.Sprintf("no resync yet: primary's INFO stats %v", now)
	})
	replica := set.Replicas[0]
	waitLinkUp(t, replica, faultRecoveryTimeout)
	phases.lap("link up")
	time.Sleep(300 * time.Millisecond)
	confirmed := w.stopAndConfirm(t)
	waitInSync(t, faultRecoveryTimeout, set.Primary, replica)
	phases.lap("in sync")

	after := readSyncCounts(t, set.Primary.Client)
	got := after.kindSince(before)
	t.Logf("%s resync: %s (primary's INFO stats before the recovery: %v; after: %v)", backend, got, before, after)
	if want, found := f.want[backend]; found && !strings.HasPrefix(got, want) {
		t.Errorf("want a %s resync, got %s: the primary's INFO stats went from %v to %v", want, got, before, after)
	}
	// The replica the fault cut off must not linger in the primary's list.
	if n := infoFieldInt(t, replInfo(t, set.Primary.Client), "connected_slaves"); n != 1 {
		t.Errorf("primary: connected_slaves:%d after the recovery, want 1", n)
	}
	compareServers(t, set.Primary.Client, replica.Client, 0)
	checkConfirmed(t, "primary", set.Primary.Client, confirmed)
	checkConfirmed(t, "replica", replica.Client, confirmed)
	if backend == "shale" {
		// A checkpoint holds the primary's tables: one left behind by
		// an interrupted sync would keep their disk space forever.
		pollUntil(t, 10*time.Second, func() (bool, string) {
			left := syncLeftovers(t, set.Primary.Dir, replica.Dir)
			return len(left) == 0, fmt.Sprintf("sync directories left behind: %v", left)
		})
	}
	phases.lap("checks")
	t.Logf("%s: %s", backend, phases)
}

// syncLeftovers lists the directories a Shale full sync works in
// (docs/REPLICATION.md, "Full sync") that still exist beside the primary's
// and the replica's data: the primary's checkpoints, the replica's
// incoming files and its replaced data.
func syncLeftovers(t *testing.T, primaryDir, replicaDir string) []string {
	t.Helper()
	left, err := filepath.Glob(filepath.Clean(primaryDir) + ".repl-*")
	if err != nil {
		t.Fatal(err)
	}
	for _, suffix := range []string{".sync", ".old"} {
		dir := filepath.Clean(replicaDir) + suffix
		if _, err := os.Stat(dir); err == nil {
			left = append(left, dir)
		}
	}
	return left
}

// phaseClock times the phases of a test, for its log.
type phaseClock struct {
	last  time.Time
	total time.Duration
	laps  []string
}

func newPhaseClock() *phaseClock { return &phaseClock{last: time.Now()} }

// lap ends the phase named name.
func (c *phaseClock) lap(name string) {
	now := time.Now()
	d := now.Sub(c.last)
	c.last, c.total = now, c.total+d
	c.laps = append(c.laps, fmt.Sprintf("%s %v", name, d.Round(time.Millisecond)))
}

func (c *phaseClock) String() string {
	return fmt.Sprintf("%v (%s)", c.total.Round(time.Millisecond), strings.Join(c.laps, ", "))
}

// The link-cut faults' settings: the primary drops a silent replica after
// 3s, and keeps little log.
const linkCutShaleConfig = "[replication]\n" +
	"wal_retention = \"1s\"\n" +
	"wal_retention_bytes = 0\n" +
	"repl_timeout = \"3s\"\n"

var linkCutRedisArgs = []string{"--repl-backlog-size", "16kb", "--repl-timeout", "3"}

// faultRecoveryTimeout bounds each wait for a replica to come back and
// catch up, a full sync of the big data set included.
const faultRecoveryTimeout = 60 * time.Second

// Full-sync data: big, incompressible values, so that the transfer lasts
// long enough for the kill to land in it (on 2 loaded cores: Redis 7.0
// ~4s, Shale from under a second to ~7s).
const (
	fullSyncValueBytes = 64 << 10
	fullSyncValues     = 5120 // 320 MiB
)

// fillForFullSync writes the full-sync data to the primary, then starts the
// replica, which has to sync it in full.
func fillForFullSync(t *testing.T, set *replSet) {
	writeBigStrings(t, set.Primary.Client, "big:", fullSyncValues)
	set.Replicas = append(set.Replicas, set.startServer(set.Primary.Addr, ""))
}

// killReplicaDuringFullSync SIGKILLs the replica once its full sync has
// been in progress for a moment, then restarts it on its data directory.
func killReplicaDuringFullSync(t *testing.T, set *replSet) syncCounts {
	replica := set.Replicas[0]
	var since time.Time
	pollUntil(t, faultRecoveryTimeout, func() (bool, string) {
		info := replInfo(t, replica.Client)
		if info["master_link_status"] == "up" {
			t.Fatalf("the full sync ended before the kill: make fullSyncValues bigger")
		}
		if info["master_sync_in_progress"] != "1" {
			since = time.Time{}
		} else if since.IsZero() {
			since = time.Now()
		}
		// Part of the data is on its way: the kill interrupts a transfer
		// rather than a handshake. Shale's transfer of a checkpoint in the
		// page cache lasts well under a second, so the first bytes read
		// are enough.
		read, _ := strconv.ParseInt(info["master_sync_read_bytes"], 10, 64)
		return !since.IsZero() && (read > 0 || time.Since(since) > 200*time.Millisecond),
			fmt.Sprintf("replica: master_sync_in_progress:%s", info["master_sync_in_progress"])
	})
	replica.Kill()
	t.Logf("replica killed %v into its full sync", time.Since(since).Round(time.Millisecond))
	before := readSyncCounts(t, set.Primary.Client)
	set.RestartReplica(0)
	return before
}

// killReplicaStreaming SIGKILLs a replica that follows the writes, writes
// a few MB while it is away, so that it has more to catch up on than one
// read of the log returns, and restarts it on its data directory.
func killReplicaStreaming(t *testing.T, set *replSet) syncCounts {
	set.Replicas[0].Kill()
	writeBigStrings(t, set.Primary.Client, "away:", 64)
	before := readSyncCounts(t, set.Primary.Client)
	set.RestartReplica(0)
	return before
}

// killPrimary SIGKILLs the primary, waits until the replica sees its link
// down, and restarts the primary on its port and data directory.
func killPrimary(t *testing.T, set *replSet) syncCounts {
	set.Primary.Kill()
	replica := set.Replicas[0]
	pollUntil(t, 10*time.Second, func() (bool, string) {
		info := replInfo(t, replica.Client)
		return info["master_link_status"] == "down", "replica: master_link_status:" + info["master_link_status"]
	})
	set.Primary = set.Primary.Restart(t)
	return syncCounts{} // a new process counts from zero
}

// cutLink returns a fault that stops the replica (SIGSTOP: it reads
// nothing) until the primary dropped it and its log moved on, then lets it
// go on (SIGCONT). Redis's log is its 16 KiB backlog, which a few MB
// overflow. Shale's is RocksDB's: COMPACT flushes the memtables, which
// retires the log files into the archive, where they expire after
// wal_retention (1s); RocksDB deletes expired ones when it next looks for
// obsolete files, at a flush or compaction. With purge, a second COMPACT
// after they expired deletes them; without, the replica comes back while
// they are due for deletion, and whether it resumes is a race.
func cutLink(purge bool) func(t *testing.T, set *replSet) syncCounts {
	return func(t *testing.T, set *replSet) syncCounts {
		replica := set.Replicas[0]
		signalServer(t, replica, syscall.SIGSTOP)
		t.Cleanup(func() { _ = replica.Cmd.Process.Signal(syscall.SIGCONT) }) // before Stop's SIGTERM
		pollUntil(t, 20*time.Second, func() (bool, string) {
			n := infoFieldInt(t, replInfo(t, set.Primary.Client), "connected_slaves")
			return n == 0, fmt.Sprintf("primary: connected_slaves:%d (repl timeout 3s)", n)
		})
		writeBigStrings(t, set.Primary.Client, "cut:", 64)
		if set.opts.Backend == "shale" {
			doStr(t, set.Primary.Client, "COMPACT")
			time.Sleep(2500 * time.Millisecond)
			if purge {
				doStr(t, set.Primary.Client, "COMPACT")
			}
		}
		before := readSyncCounts(t, set.Primary.Client)
		signalServer(t, replica, syscall.SIGCONT)
		return before
	}
}

// writeBigStrings SETs prefix<i> for i < n to distinct 64 KiB slices of
// incompressible data, 64 per pipeline.
func writeBigStrings(t *testing.T, c *redis.Client, prefix string, n int) {
	t.Helper()
	const perPipeline = 64
	pool := incompressibleBytes(1 << 20)
	for i := 0; i < n; i += perPipeline {
		pipe := c.Pipeline()
		for j := i; j < min(i+perPipeline, n); j++ {
			off := (j * 4099) % (len(pool) - fullSyncValueBytes)
			pipe.Set(ctxT(t), prefix+strconv.Itoa(j), pool[off:off+fullSyncValueBytes], 0)
		}
		if _, err := pipe.Exec(ctxT(t)); err != nil {
			t.Fatalf("SET %s%d..: %v", prefix, i, err)
		}
	}
}

// faultWriter writes k:<n> for n = 1, 2, ... to the primary over one
// connection, and every faultWaitEvery writes asks WAIT 1 100. WAIT counts
// the writes of its own connection, so a confirmation covers the writes made
// since the connection's previous confirmation, and writes left unconfirmed
// on a connection that broke are never counted: only what some WAIT
// confirmed is promised to be on the replica.
type faultWriter struct {
	addr     string
	stop     chan struct{} // closed by halt
	stopOnce sync.Once
	done     chan struct{} // closed when run returned

	mu        sync.Mutex
	confirmed []confirmedRange // n confirmed by a WAIT, ascending and disjoint
	written   int              // SETs that returned OK
	failed    int              // commands that failed (server down, link reset)
}

// confirmedRange is the keys k:<from> .. k:<to>, both included.
type confirmedRange struct{ from, to int }

const faultWaitEvery = 50

func faultKey(n int) string   { return "k:" + strconv.Itoa(n) }
func faultValue(n int) string { return "v" + strconv.Itoa(n) }

// startFaultWriter starts writing to addr until stopAndConfirm.
func startFaultWriter(addr string) *faultWriter {
	w := &faultWriter{addr: addr, stop: make(chan struct{}), done: make(chan struct{})}
	go w.run()
	return w
}

func (w *faultWriter) run() {
	defer close(w.done)
	cl := newClient(w.addr, "")
	defer cl.Close()
	var cn *redis.Conn
	pending := 0 // the first n written on cn since its last confirmation; 0: none
	for n := 1; ; n++ {
		select {
		case <-w.stop:
			if cn != nil {
				// A last, patient WAIT confirms the tail, so that the
				// final check covers the writes made after the fault.
				if pending != 0 && w.wait(cn, 5000) {
					w.confirm(pending, n-1)
				}
				cn.Close()
			}
			return
		default:
		}
		if cn == nil {
			cn, pending = cl.Conn(), 0
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := cn.Set(ctx, faultKey(n), faultValue(n), 0).Err()
		cancel()
		if err != nil {
			w.fail(cn)
			cn = nil
			time.Sleep(20 * time.Millisecond) // the server may be down
			continue
		}
		w.mu.Lock()
		w.written++
		w.mu.Unlock()
		if pending == 0 {
			pending = n
		}
		if n%faultWaitEvery == 0 {
			if w.wait(cn, 100) {
				w.confirm(pending, n)
				pending = 0
			} else if cn.Ping(context.Background()).Err() != nil {
				w.fail(cn)
				cn = nil
			}
		}
		// About a thousand writes a second: enough to keep the link busy
		// through every fault, little enough to leave the two cores to
		// the servers.
		time.Sleep(time.Millisecond)
	}
}

// wait runs WAIT 1 timeoutMs on cn and reports whether a replica
// acknowledged every write cn made.
func (w *faultWriter) wait(cn *redis.Conn, timeoutMs int) bool {
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(timeoutMs)*time.Millisecond+10*time.Second)
	defer cancel()
	acked, err := cn.Do(ctx, "WAIT", 1, timeoutMs).Int()
	return err == nil && acked >= 1
}

func (w *faultWriter) fail(cn *redis.Conn) {
	cn.Close()
	w.mu.Lock()
	w.failed++
	w.mu.Unlock()
}

func (w *faultWriter) confirm(from, to int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if k := len(w.confirmed); k > 0 && w.confirmed[k-1].to == from-1 {
		w.confirmed[k-1].to = to
		return
	}
	w.confirmed = append(w.confirmed, confirmedRange{from, to})
}

// halt tells the writer to stop; it may be called more than once.
func (w *faultWriter) halt() { w.stopOnce.Do(func() { close(w.stop) }) }

// stopAndConfirm stops the writer and returns the ranges WAIT confirmed.
func (w *faultWriter) stopAndConfirm(t *testing.T) []confirmedRange {
	t.Helper()
	w.halt()
	select {
	case <-w.done:
	case <-time.After(30 * time.Second):
		t.Fatal("the writer did not stop within 30s")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	confirmed := 0
	for _, r := range w.confirmed {
		confirmed += r.to - r.from + 1
	}
	t.Logf("writer: %d SETs acknowledged, %d confirmed by WAIT 1 in %d ranges, %d failed commands",
		w.written, confirmed, len(w.confirmed), w.failed)
	if confirmed == 0 {
		t.Fatal("WAIT 1 never confirmed a write: the test proves nothing")
	}
	return w.confirmed
}

// checkConfirmed fails unless every confirmed k:<n> holds its value on c.
func checkConfirmed(t *testing.T, who string, c *redis.Client, confirmed []confirmedRange) {
	t.Helper()
	const batch = 1000
	missing := 0
	var first []string
	for _, r := range confirmed {
		for from := r.from; from <= r.to; from += batch {
			to := min(from+batch-1, r.to)
			keys := make([]string, 0, to-from+1)
			for n := from; n <= to; n++ {
				keys = append(keys, faultKey(n))
			}
			vals, err := c.MGet(ctxT(t), keys...).Result()
			if err != nil {
				t.Fatalf("%s: MGET %s..%s: %v", who, keys[0], keys[len(keys)-1], err)
			}
			for i, v := range vals {
				if s, ok := v.(string); !ok || s != faultValue(from+i) {
					missing++
					if len(first) < 5 {
						first = append(first, fmt.Sprintf("%s=%v", keys[i], v))
					}
				}
			}
		}
	}
	if missing > 0 {
		t.Errorf("%s: %d writes confirmed by WAIT 1 are missing or wrong, e.g. %s", who, missing, strings.Join(first, ", "))
	}
}

// signalServer sends SIGSTOP or SIGCONT to p.
func signalServer(t *testing.T, p *serverProc, sig syscall.Signal) {
	t.Helper()
	if err := p.Cmd.Process.Signal(sig); err != nil {
		t.Fatalf("%s pid %d: %v: %v", p.Name, p.PID, sig, err)
	}
}

// syncCounts is the primary's INFO stats counters of resyncs.
type syncCounts struct{ full, partialOK, partialErr int64 }

func (s syncCounts) String() string {
	return fmt.Sprintf("sync_full=%d sync_partial_ok=%d sync_partial_err=%d", s.full, s.partialOK, s.partialErr)
}

// kindSince says which resync happened since before: resyncRefusedFull,
// resyncFull, resyncPartial, or "none".
func (s syncCounts) kindSince(before syncCounts) string {
	switch {
	case s.full > before.full && s.partialErr > before.partialErr:
		return resyncRefusedFull
	case s.full > before.full:
		return resyncFull
	case s.partialOK > before.partialOK:
		return resyncPartial
	}
	return "none"
}

func readSyncCounts(t *testing.T, primary *redis.Client) syncCounts {
	t.Helper()
	stats := infoFields(doStr(t, primary, "INFO", "stats"))
	return syncCounts{
		full:       infoFieldInt(t, stats, "sync_full"),
		partialOK:  infoFieldInt(t, stats, "sync_partial_ok"),
		partialErr: infoFieldInt(t, stats, "sync_partial_err"),
	}
}

// incompressibleBytes is incompressible data to take values from: RocksDB
// compresses its blocks, and a full sync of repeated bytes would be over
// before a test could interrupt it.
func incompressibleBytes(size int) []byte {
	r := rand.New(rand.NewPCG(21, 21))
	b := make([]byte, size)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}
