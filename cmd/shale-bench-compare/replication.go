package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// Issue 21's replication figures, Shale beside Redis in the same run:
// how long a write acknowledged by a loaded primary takes to become
// readable on its replica, and how fast a fresh replica copies a big
// data set in a full sync.
//
// Offsets cannot be compared across the two: Shale's are RocksDB sequence
// numbers, Redis's are bytes of its replication stream. So the lag is
// measured in time, through the command path of both, with markers: a
// writer sets one key to 1, 2, 3, ... on the primary at a fixed cadence
// and notes when each SET is acknowledged, while a reader polls that key
// on the replica and notes when each value first shows. A replica applies
// its primary's writes in order, so seeing marker n means markers up to n
// are all there; a marker's lag is the time from its acknowledgement to
// the first replica read that returned it or a later one.

// replConfig sizes the replication phases.
type replConfig struct {
	LagRounds int           // alternating lag runs per server kind
	LagFor    time.Duration // write load of one lag run
	MarkEvery time.Duration // between two marker writes
	SyncBytes int64         // keys and values loaded before the full sync
	SyncValue int           // bytes per value of the full sync's data set
	SyncMax   time.Duration // bound on one full sync
	LagDrain  time.Duration // bound on the wait for the last markers once the load stops
	PollPause time.Duration // between two replica reads of the marker
	LoadConns int           // connections loading the full sync's data set
	LoadPipe  int           // SETs per round trip of each
}

const (
	lagMarkerKey = "bench:repl:marker"
	syncKeyFmt   = "sync:%09d"
)

// lagRun is one lag run: a primary under redis-benchmark's write load and
// the markers that crossed to its replica meanwhile.
type lagRun struct {
	Server       string
	Round        int
	Lags         []time.Duration // one per marker, in write order
	Unseen       int             // markers not on the replica LagDrain after the load stopped: their Lags are lower bounds
	WritesPerSec float64         // commands the primary processed per second under the load
	FullSyncs    int64           // full syncs the primary served during the run: a replica that fell too far behind
}

// sighting is the first replica read that returned marker Seq.
type sighting struct {
	Seq int64
	At  time.Time
}

// markerLags gives each acknowledged marker (acks[i] is marker i+1's
// acknowledgement) its lag: the time from its acknowledgement to the first
// sighting of it or of a later marker. seen is in reading order. A marker
// seen before its acknowledgement reached the writer has lag 0: it was
// readable on the replica by the time the client learnt it was written.
// A marker no sighting covers is unseen: its lag is at least the time from
// its acknowledgement to end, the reader's last look, which it gets.
func markerLags(acks []time.Time, seen []sighting, end time.Time) (lags []time.Duration, unseen int) {
	j := 0
	for i, ack := range acks {
		seq := int64(i + 1)
		for j < len(seen) && seen[j].Seq < seq {
			j++
		}
		if j == len(seen) {
			unseen++
			lags = append(lags, max(0, end.Sub(ack)))
			continue
		}
		lags = append(lags, max(0, seen[j].At.Sub(ack)))
	}
	return lags, unseen
}

// percentile returns the p-th percentile (0 < p ≤ 100) of d by the
// nearest-rank method; 0 for none.
func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	rank := int(float64(len(s))*p/100+0.999999) - 1
	return s[min(max(rank, 0), len(s)-1)]
}

// replPair is a primary and its replica, both of one server kind.
type replPair struct {
	Primary, Replica *server
}

func (p replPair) Stop() {
	p.Replica.Stop()
	p.Primary.Stop()
}

// startReplServer starts a fresh server of kind ("shale" or "redis") with
// the harness's base configuration.
func startReplServer(o options, work, kind, role string) (*server, error) {
	if kind == "shale" {
		return startShale(o, work, "shale-repl-"+role, "")
	}
	return startRedis(o, work)
}

// startPair starts a primary and a replica of kind and waits until the
// replica follows it.
func startPair(ctx context.Context, o options, work, kind string) (replPair, error) {
	primary, err := startReplServer(o, work, kind, "primary")
	if err != nil {
		return replPair{}, err
	}
	replica, err := startReplServer(o, work, kind, "replica")
	if err != nil {
		primary.Stop()
		return replPair{}, err
	}
	p := replPair{primary, replica}
	if _, err := follow(ctx, replica, primary, 0, o.Repl.SyncMax); err != nil {
		p.Stop()
		return replPair{}, err
	}
	return p, nil
}

// follow sends REPLICAOF primary to replica and waits until the replica's
// link is up, no sync is in progress and it holds keys keys. It returns
// the time from REPLICAOF to then.
func follow(ctx context.Context, replica, primary *server, keys int64, limit time.Duration) (time.Duration, error) {
	c := newClient(replica.Addr)
	defer c.Close()
	host, port, _ := net.SplitHostPort(primary.Addr)
	start := time.Now()
	if err := c.Do(ctx, "REPLICAOF", host, port).Err(); err != nil {
		return 0, fmt.Errorf("%s: REPLICAOF %s %s: %w", replica.Name, host, port, err)
	}
	for {
		done, err := synced(ctx, c, keys)
		if err != nil {
			return 0, fmt.Errorf("%s replica: %w", replica.Name, err)
		}
		if done {
			return time.Since(start), nil
		}
		if time.Since(start) > limit {
			return 0, fmt.Errorf("%s replica: not in sync with %d keys %v after REPLICAOF", replica.Name, keys, limit)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// synced reports whether a replica's link is up, it runs no sync and its
// DBSIZE is keys. While it loads a data set (-LOADING) it is not synced.
func synced(ctx context.Context, c *redis.Client, keys int64) (bool, error) {
	info, err := c.Info(ctx, "replication").Result()
	if loading(err) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	if !strings.Contains(info, "master_link_status:up") || !strings.Contains(info, "master_sync_in_progress:0") {
		return false, nil
	}
	n, err := c.DBSize(ctx).Result()
	if loading(err) {
		return false, nil
	}
	return n == keys, err
}

func loading(err error) bool { return err != nil && strings.HasPrefix(err.Error(), "LOADING") }

// runReplLag starts a Shale pair and a Redis pair, then runs the lag
// measurement on each in alternating rounds.
func runReplLag(ctx context.Context, o options, work string, r *results) error {
	var pairs []replPair
	defer func() {
		for _, p := range pairs {
			p.Stop()
		}
	}()
	for _, kind := range []string{"shale", "redis"} {
		logf("repl-lag: starting a %s primary and its replica", kind)
		p, err := startPair(ctx, o, work, kind)
		if err != nil {
			return err
		}
		pairs = append(pairs, p)
	}
	for round := 1; round <= o.Repl.LagRounds; round++ {
		for i, p := range pairs {
			run, err := measureLag(ctx, o, p)
			if err != nil {
				return fmt.Errorf("repl-lag %s: %w", p.Primary.Name, err)
			}
			run.Round = round
			if run.Unseen > 0 {
				// A replica still catching up would load the machine
				// during the other pair's run: a fresh pair replaces it.
				logf("repl-lag: the %s replica is %d markers behind; replacing the pair", run.Server, run.Unseen)
				p.Stop()
				if pairs[i], err = startPair(ctx, o, work, run.Server); err != nil {
					return err
				}
			}
			logf("repl-lag: round %d/%d %-5s %6.0f writes/s, %d markers: lag p50 %s p99 %s max %s; %d unseen, %d full syncs",
				round, o.Repl.LagRounds, run.Server, run.WritesPerSec, len(run.Lags), formatDuration(percentile(run.Lags, 50)),
				formatDuration(percentile(run.Lags, 99)), formatDuration(percentile(run.Lags, 100)), run.Unseen, run.FullSyncs)
			r.ReplLag = append(r.ReplLag, run)
		}
	}
	return nil
}

// measureLag runs redis-benchmark's SET load against the pair's primary
// for LagFor while the markers run, then waits for the last markers on the
// replica.
func measureLag(ctx context.Context, o options, p replPair) (lagRun, error) {
	run := lagRun{Server: p.Primary.Name}
	pc, rc := newClient(p.Primary.Addr), newClient(p.Replica.Addr)
	defer pc.Close()
	defer rc.Close()
	// The key holds the last run's markers: count on from the primary's
	// value, the latest even if the replica missed some of them.
	base, err := pc.Get(ctx, lagMarkerKey).Int64()
	if err != nil && !errors.Is(err, redis.Nil) {
		return run, fmt.Errorf("GET %s on the primary: %w", lagMarkerKey, err)
	}
	stats := func() (commands, fullSyncs int64, err error) {
		info, err := pc.Info(ctx, "stats").Result()
		if err != nil {
			return 0, 0, err
		}
		if commands, err = infoInt(info, "total_commands_processed"); err != nil {
			return 0, 0, err
		}
		fullSyncs, err = infoInt(info, "sync_full")
		return commands, fullSyncs, err
	}
	cmd0, full0, err := stats()
	if err != nil {
		return run, err
	}
	load, err := startWriteLoad(o, p.Primary.Addr)
	if err != nil {
		return run, err
	}
	start := time.Now()
	total := make(chan int, 1) // markers written, once the writer stops
	var (
		seen    []sighting
		seenErr error
		wg      sync.WaitGroup
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		seen, seenErr = watchMarkers(ctx, rc, base, total, o.Repl.PollPause, o.Repl.LagDrain)
	}()
	acks, writeErr := writeMarkers(ctx, pc, base, o.Repl.MarkEvery, start.Add(o.Repl.LagFor))
	loadErr := load.stop()
	elapsed := time.Since(start)
	total <- len(acks)
	wg.Wait()
	end := time.Now()
	if err := errors.Join(writeErr, loadErr, seenErr); err != nil {
		return run, err
	}
	cmd1, full1, err := stats()
	if err != nil {
		return run, err
	}
	run.WritesPerSec = float64(cmd1-cmd0) / elapsed.Seconds()
	run.FullSyncs = full1 - full0
	run.Lags, run.Unseen = markerLags(acks, seen, end)
	return run, nil
}

// writeMarkers sets lagMarkerKey to base+1, base+2, ... every every until
// until, and returns each SET's acknowledgement time. A SET slower than
// every delays the next one; no marker is ever sent early.
func writeMarkers(ctx context.Context, c *redis.Client, base int64, every time.Duration, until time.Time) ([]time.Time, error) {
	var acks []time.Time
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		if time.Now().After(until) {
			return acks, nil
		}
		<-tick.C
		if err := c.Set(ctx, lagMarkerKey, base+int64(len(acks))+1, 0).Err(); err != nil {
			return acks, fmt.Errorf("SET %s on the primary: %w", lagMarkerKey, err)
		}
		acks = append(acks, time.Now())
	}
}

// watchMarkers reads lagMarkerKey on the replica, pause apart, and notes
// each new marker value (less base) with the time of the read that
// returned it, until total (the count of markers written, sent when the
// writer stops) markers are seen or drain has passed since total came.
func watchMarkers(ctx context.Context, c *redis.Client, base int64, total <-chan int, pause, drain time.Duration) ([]sighting, error) {
	var seen []sighting
	var last int64
	want, deadline := int64(-1), time.Time{}
	for {
		v, err := c.Get(ctx, lagMarkerKey).Int64()
		at := time.Now()
		switch {
		case errors.Is(err, redis.Nil), loading(err): // not written yet; a full resync installing data
		case err != nil:
			return seen, fmt.Errorf("GET %s on the replica: %w", lagMarkerKey, err)
		case v-base > last:
			last = v - base
			seen = append(seen, sighting{last, at})
		}
		if want < 0 {
			select {
			case n := <-total:
				want, deadline = int64(n), time.Now().Add(drain)
			default:
			}
		}
		if want >= 0 && (last >= want || time.Now().After(deadline)) {
			return seen, nil
		}
		time.Sleep(pause)
	}
}

// writeLoad is a redis-benchmark process writing until stopped.
type writeLoad struct {
	cmd    *exec.Cmd
	stderr *bytes.Buffer
	done   chan error
}

// startWriteLoad starts redis-benchmark's pipelined SET load against addr
// with more requests than it can send in the run: stop ends it.
func startWriteLoad(o options, addr string) (*writeLoad, error) {
	host, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command(o.BenchBin, "-h", host, "-p", port, "-c", strconv.Itoa(o.Clients), "-r", strconv.Itoa(o.Keyspace),
		"-n", "2000000000", "-t", "set", "-P", "16", "-q")
	l := &writeLoad{cmd: cmd, stderr: &bytes.Buffer{}, done: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = io.Discard, l.stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() { l.done <- cmd.Wait() }()
	return l, nil
}

// stop kills the load by its PID; it fails if the load had already ended,
// which means it did not load the primary for the whole run.
func (l *writeLoad) stop() error {
	select {
	case err := <-l.done:
		return fmt.Errorf("%v ended early (%v): %s", l.cmd.Args, err, l.stderr.String())
	default:
	}
	_ = syscall.Kill(l.cmd.Process.Pid, syscall.SIGKILL)
	<-l.done
	return nil
}

// fullSyncRun is one full sync of a fresh replica from a loaded primary.
type fullSyncRun struct {
	Server      string // "shale" or "redis"
	Transfer    string // how the primary sends its data set
	Keys        int
	Bytes       int64   // key and value bytes written to the primary
	LoadSeconds float64 // the primary's load, for context
	Seconds     float64 // from REPLICAOF until the replica is up, in sync and holds every key
}

// MiBPerSec is the data set's bytes over the sync's time.
func (f fullSyncRun) MiBPerSec() float64 { return float64(f.Bytes) / (1 << 20) / f.Seconds }

// syncTransfers are the transfers measured per server kind: Shale's one,
// and Redis 7.0's default (diskless: the RDB goes straight to the socket)
// beside its disk-based one (an RDB file first, then sent), which is what
// Shale's checkpoint resembles. Before each, the primary gets the CONFIG
// SET arguments. Redis's repl-diskless-sync-delay (5 s by default) waits
// for more replicas to join the same transfer; it is set to 0, as nothing
// else joins, so that the figure is the transfer's.
var syncTransfers = map[string][]struct {
	Name   string
	Config []string
}{
	"shale": {{"RocksDB checkpoint", nil}},
	"redis": {
		{"diskless RDB (7.0 default)", []string{"repl-diskless-sync", "yes", "repl-diskless-sync-delay", "0"}},
		{"disk RDB", []string{"repl-diskless-sync", "no"}},
	},
}

// runFullSync loads a primary of each kind with SyncBytes of data and
// times full syncs of fresh replicas from it.
func runFullSync(ctx context.Context, o options, work string, r *results) error {
	cfg := o.Repl
	keys := int(cfg.SyncBytes / int64(cfg.SyncValue))
	dataBytes := int64(keys) * int64(len(fmt.Sprintf(syncKeyFmt, 0))+cfg.SyncValue)
	for _, kind := range []string{"shale", "redis"} {
		logf("full-sync: starting a %s primary; loading %d keys of %d B values (%s)", kind, keys, cfg.SyncValue, mib(dataBytes))
		primary, err := startReplServer(o, work, kind, "primary")
		if err != nil {
			return err
		}
		runs, err := fullSyncs(ctx, o, work, primary, keys)
		primary.Stop()
		if err != nil {
			return fmt.Errorf("full-sync %s: %w", kind, err)
		}
		for _, run := range runs {
			run.Bytes = dataBytes
			logf("full-sync: %-5s %-26s %s in %.1fs: %.0f MiB/s (load %.1fs)", run.Server, run.Transfer, mib(dataBytes), run.Seconds, run.MiBPerSec(), run.LoadSeconds)
			r.FullSync = append(r.FullSync, run)
		}
	}
	return nil
}

// fullSyncs loads primary and times each of its kind's transfers into a
// fresh replica.
func fullSyncs(ctx context.Context, o options, work string, primary *server, keys int) ([]fullSyncRun, error) {
	start := time.Now()
	if err := loadSyncData(primary.Addr, keys, o.Repl); err != nil {
		return nil, err
	}
	loadSeconds := time.Since(start).Seconds()
	pc := newClient(primary.Addr)
	defer pc.Close()
	// Shale flushes and compacts what it was just given; a primary at rest
	// is the state a new replica usually meets.
	if err := settle(ctx, pc); err != nil {
		return nil, err
	}
	var runs []fullSyncRun
	for _, t := range syncTransfers[primary.Name] {
		if t.Config != nil {
			args := []any{"CONFIG", "SET"}
			for _, a := range t.Config {
				args = append(args, a)
			}
			if err := pc.Do(ctx, args...).Err(); err != nil {
				return nil, fmt.Errorf("%v: %w", args, err)
			}
		}
		replica, err := startReplServer(o, work, primary.Name, "replica")
		if err != nil {
			return nil, err
		}
		took, err := follow(ctx, replica, primary, int64(keys), o.Repl.SyncMax)
		if err == nil {
			err = checkSyncValue(ctx, replica, o.Repl.SyncValue)
		}
		replica.Stop()
		if err != nil {
			return nil, err
		}
		runs = append(runs, fullSyncRun{Server: primary.Name, Transfer: t.Name, Keys: keys, LoadSeconds: loadSeconds, Seconds: took.Seconds()})
	}
	return runs, nil
}

// checkSyncValue checks that the replica holds the data set's values, not
// only its key count: a sample key's value has the length written.
func checkSyncValue(ctx context.Context, replica *server, size int) error {
	c := newClient(replica.Addr)
	defer c.Close()
	key := fmt.Sprintf(syncKeyFmt, 0)
	if n, err := c.StrLen(ctx, key).Result(); err != nil || n != int64(size) {
		return fmt.Errorf("%s replica: STRLEN %s = %d, %v; want %d", replica.Name, key, n, err, size)
	}
	return nil
}

// loadSyncData SETs keys keys of incompressible values (neither RocksDB's
// block compression nor Redis's RDB LZF shrinks them, so both transfers
// move every byte) through cfg.LoadConns pipelined connections.
func loadSyncData(addr string, keys int, cfg replConfig) error {
	var wg sync.WaitGroup
	errs := make([]error, cfg.LoadConns)
	for w := range cfg.LoadConns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[w] = loadSyncPart(addr, keys, w, cfg)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// loadSyncPart SETs the keys k ≡ part (mod LoadConns), LoadPipe per round
// trip.
func loadSyncPart(addr string, keys, part int, cfg replConfig) error {
	c, r, err := dialLoad(addr, time.Now().Add(cfg.SyncMax))
	if err != nil {
		return err
	}
	defer c.Close()
	rng := rand.NewChaCha8([32]byte{byte(part)})
	value := make([]byte, cfg.SyncValue)
	var buf []byte
	flush := func(n int) error {
		if _, err := c.Write(buf); err != nil {
			return err
		}
		buf = buf[:0]
		return readOKs(r, n)
	}
	pending := 0
	for k := part; k < keys; k += cfg.LoadConns {
		_, _ = rng.Read(value)
		buf = appendCommand(buf, []byte("SET"), fmt.Appendf(nil, syncKeyFmt, k), value)
		if pending++; pending == cfg.LoadPipe {
			if err := flush(pending); err != nil {
				return err
			}
			pending = 0
		}
	}
	if pending > 0 {
		return flush(pending)
	}
	return nil
}

// readOKs reads n replies that must each be +OK.
func readOKs(r *bufio.Reader, n int) error {
	for range n {
		rep, err := readReply(r)
		if err != nil {
			return err
		}
		if rep.Kind != '+' || rep.Line != "OK" {
			return fmt.Errorf("SET: got %v", rep)
		}
	}
	return nil
}

// lagSummary pools one server's lag runs.
type lagSummary struct {
	Server        string
	Markers       int     // seen on the replica, over all runs
	Unseen        int     // not seen within LagDrain of the load's end
	FullSyncs     int64   // full syncs the primary served during the runs
	WritesPerSec  float64 // median over the runs
	P50, P99, Max time.Duration
}

// summarizeLag pools each server's runs, in report order; a server with
// no run is left out.
func summarizeLag(runs []lagRun) map[string]lagSummary {
	out := map[string]lagSummary{}
	for _, srv := range serverNames {
		var lags []time.Duration
		var writes []float64
		s := lagSummary{Server: srv}
		for _, run := range runs {
			if run.Server != srv {
				continue
			}
			lags = append(lags, run.Lags...)
			writes = append(writes, run.WritesPerSec)
			s.Unseen += run.Unseen
			s.FullSyncs += run.FullSyncs
		}
		if len(writes) == 0 {
			continue
		}
		s.Markers, s.WritesPerSec = len(lags), median(writes)
		s.P50, s.P99, s.Max = percentile(lags, 50), percentile(lags, 99), percentile(lags, 100)
		out[srv] = s
	}
	return out
}
