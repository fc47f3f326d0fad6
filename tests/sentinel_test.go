package tests

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// The Sentinel drill of issue 21: three Debian redis-sentinel processes
// monitor a primary with two replicas; a Sentinel-aware redis-py client
// (clients/python/sentinel_drill.py) writes under load while the test
// SIGKILLs the primary. Sentinel must promote a replica and point the other
// one at it, the client must find the new primary and go on writing, no
// write that WAIT 1 confirmed may be lost, and the old primary, restarted
// on its port, must be turned into a replica of the new one by Sentinel.
// The drill runs once with redis-server (which proves the drill itself) and
// once with shale-server.

const (
	redisSentinelBin = "/usr/bin/redis-sentinel"
	drillMaster      = "mymaster"
	// drillClientSeconds bounds the client script; from the kill to writes
	// confirmed on the new primary takes about 3-4s with these settings.
	drillClientSeconds = 60
	drillConverge      = 30 * time.Second // a follower reaching its primary's data
	// Sentinel waits 8s (4 hello periods) before it turns a restarted old
	// primary into a replica, then the replica syncs.
	drillRejoin = 45 * time.Second
)

// sentinelConf is a Sentinel's configuration: port, dir, primary port.
// Sentinel rewrites the file (its id, the replicas and Sentinels it found),
// so each Sentinel has a writable file of its own. Two seconds without a
// reply make the primary subjectively down (one would do on an idle
// machine; the margin keeps a busy `make test` from failing over a live
// primary); two Sentinels agreeing make it objectively down and start the
// failover. The log goes to stdout, which the harness prints when the test
// fails; verbose adds the roles Sentinel reads from each server's INFO.
const sentinelConf = `port %d
bind 127.0.0.1
daemonize no
logfile ""
loglevel verbose
dir %s
sentinel resolve-hostnames no
sentinel monitor ` + drillMaster + ` 127.0.0.1 %d 2
sentinel down-after-milliseconds ` + drillMaster + ` 2000
sentinel failover-timeout ` + drillMaster + ` 10000
sentinel parallel-syncs ` + drillMaster + ` 1
`

// drillBackend starts the servers of one backend: a primary when
// replicaOf is 0, else a replica of 127.0.0.1:replicaOf.
type drillBackend struct {
	name  string
	start func(t *testing.T, replicaOf int) *serverProc
}

var drillBackends = []drillBackend{
	{"redis", func(t *testing.T, replicaOf int) *serverProc {
		// Diskless sync waits 5s by default for more replicas to join.
		args := []string{"--repl-diskless-sync-delay", "0"}
		if replicaOf != 0 {
			args = append(args, "--replicaof", "127.0.0.1", strconv.Itoa(replicaOf))
		}
		return startRedis(t, args...)
	}},
	{"shale", func(t *testing.T, replicaOf int) *serverProc {
		var opts shaleOpts
		if replicaOf != 0 {
			opts.Config = fmt.Sprintf("[replication]\nreplicaof = \"127.0.0.1 %d\"\n", replicaOf)
		}
		return startShale(t, opts)
	}},
}

// TestSentinelDrill takes about 30s, the two backends running at once:
// 3s of set-up, 4s of failover, 10s until Sentinel turns the restarted old
// primary into a replica and up to 10s until every Sentinel has read its
// INFO as a replica's.
func TestSentinelDrill(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(redisSentinelBin); err != nil {
		t.Fatalf("%s is missing (make deps installs redis-sentinel): %v", redisSentinelBin, err)
	}
	if out, err := exec.Command(debianPython, "-c", "import redis.sentinel").CombinedOutput(); err != nil {
		t.Fatalf("%s cannot import redis.sentinel (make deps installs python3-redis): %v\n%s", debianPython, err, out)
	}
	for _, b := range drillBackends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			runSentinelDrill(t, b)
		})
	}
}

// drillSet is the drill's servers, all on 127.0.0.1.
type drillSet struct {
	primary   *serverProc
	replicas  [2]*serverProc
	sentinels [3]*serverProc
}

// startDrillSet starts a primary, two replicas and three Sentinels, and
// waits until every Sentinel knows both replicas and the other Sentinels.
func startDrillSet(t *testing.T, b drillBackend) drillSet {
	t.Helper()
	var set drillSet
	set.primary = b.start(t, 0)
	start := time.Now() // the first shale start builds the binary: not part of the drill's time
	for i := range set.replicas {
		set.replicas[i] = b.start(t, set.primary.Port)
	}
	// Sentinel learns the replicas from the primary's INFO only.
	pollUntil(t, drillConverge, func() (bool, string) {
		return drillOnlineReplicas(set.primary) == 2, "primary INFO replication:\n" + drillInfo(set.primary.Client, "replication")
	})
	t.Logf("%s: primary and 2 online replicas after %v", b.name, time.Since(start).Round(time.Millisecond))
	for i := range set.sentinels {
		set.sentinels[i] = startSentinel(t, set.primary.Port)
	}
	// A failover needs a quorum of Sentinels that know each other (through
	// hello messages on the servers' __sentinel__:hello channel).
	for _, s := range set.sentinels {
		pollUntil(t, drillConverge, func() (bool, string) {
			m, err := sentinelMasterState(s)
			return err == nil && m["num-slaves"] == "2" && m["num-other-sentinels"] == "2",
				fmt.Sprintf("sentinel %s: SENTINEL MASTER %s: %v (%v)", s.Addr, drillMaster, m, err)
		})
	}
	t.Logf("%s: 3 sentinels ready after %v", b.name, time.Since(start).Round(time.Millisecond))
	return set
}

func runSentinelDrill(t *testing.T, b drillBackend) {
	set := startDrillSet(t, b)
	start := time.Now()
	primary, replicas, sentinels := set.primary, set.replicas[:], set.sentinels[:]
	var ports []string
	for _, s := range sentinels {
		ports = append(ports, strconv.Itoa(s.Port))
	}
	client := startDrillClient(t, strings.Join(ports, ","))
	client.waitFor(t, "ready")
	drillDivergeAndKill(t, primary, replicas)
	killed := time.Now()
	result := client.result(t)
	t.Logf("%s: client confirmed writes on a second primary %v after the kill; %d writes, %d failed and %d unconfirmed batches",
		b.name, time.Since(killed).Round(time.Millisecond), result.Written, result.FailedBatches, result.UnconfirmedBatches)

	// Every Sentinel names the same new primary, one of the replicas; the
	// client wrote to it.
	newPrimary := drillAgreedPrimary(t, sentinels)
	promoted := slices.IndexFunc(replicas, func(r *serverProc) bool { return r.Addr == newPrimary })
	if promoted < 0 {
		t.Fatalf("sentinels name %s as the primary, not one of the replicas %s, %s", newPrimary, replicas[0].Addr, replicas[1].Addr)
	}
	if len(result.Confirmed[primary.Addr]) == 0 || len(result.Confirmed[newPrimary]) == 0 {
		t.Fatalf("client confirmed writes on %v, want some on the old primary %s and on the new one %s",
			slices.Collect(maps.Keys(result.Confirmed)), primary.Addr, newPrimary)
	}
	if role, _ := do(t, replicas[promoted].Client, "ROLE").([]any); len(role) == 0 || role[0] != "master" {
		t.Fatalf("new primary %s: ROLE %s, want master", newPrimary, fmtVal(role))
	}

	want := drillKeyspace(t, replicas[promoted])
	if lost := drillLost(result, want); lost != "" {
		t.Fatalf("writes WAIT confirmed are not on the new primary %s: %s", newPrimary, lost)
	}
	t.Logf("%s: all %d confirmed writes (%d before the kill) on the new primary, which holds %d keys",
		b.name, result.confirmedCount(""), result.confirmedCount(primary.Addr), len(want))

	other := replicas[1-promoted]
	drillFollows(t, other, replicas[promoted], want, drillConverge)

	restarted := primary.Restart(t)
	rejoined := time.Now()
	// Redis restarts empty (no persistence); shale reopens its data, which
	// holds the writes drillDivergeAndKill kept from the replicas: the sync
	// must drop them.
	if before, err := drillKeyspaceErr(restarted); err == nil {
		t.Logf("%s: old primary restarted with %d keys, %d of them not on the new primary",
			b.name, len(before), len(before)-drillCommon(before, want))
	}
	drillFollows(t, restarted, replicas[promoted], want, drillRejoin)
	t.Logf("%s: old primary a converged replica %v after its restart; new primary's INFO stats: %s",
		b.name, time.Since(rejoined).Round(time.Millisecond), drillSyncCounters(replicas[promoted]))

	for _, r := range []*serverProc{other, restarted} {
		err := r.Client.Set(context.Background(), "drill:after", "x", 0).Err()
		if err == nil || !strings.HasPrefix(err.Error(), "READONLY") {
			t.Errorf("SET on the replica %s: %v, want a READONLY error", r.Addr, err)
		}
	}
	for _, s := range sentinels {
		drillSentinelSeesReplicas(t, s, replicas[promoted], other, restarted)
		// One failover, not a second one from a server that looked dead.
		if n := strings.Count(s.Output(), "+switch-master "+drillMaster+" "); n != 1 {
			t.Errorf("sentinel %s logged %d +switch-master events, want 1", s.Addr, n)
		}
	}
	t.Logf("%s: drill took %v after the set-up", b.name, time.Since(start).Round(time.Millisecond))
}

// drillDivergeAndKill SIGKILLs the primary with writes no replica has, as
// a crash under load can leave it: it stops the replicas (SIGSTOP: they read
// nothing), writes more incompressible data to the primary than the kernel's
// socket buffers to the replicas hold (a few MB each), kills the primary and
// lets the replicas run again, well before Sentinel could think them down.
// The client's writes meanwhile go unconfirmed: WAIT times out.
func drillDivergeAndKill(t *testing.T, primary *serverProc, replicas []*serverProc) {
	t.Helper()
	const keys, valueBytes = 128, 256 << 10 // 32 MiB
	for _, r := range replicas {
		drillSignal(t, r, syscall.SIGSTOP)
		t.Cleanup(func() { _ = r.Cmd.Process.Signal(syscall.SIGCONT) }) // runs before the harness stops r
	}
	values := make([]byte, keys*valueBytes)
	rand.Read(values) // never fails (Go 1.24+)
	pipe := primary.Client.Pipeline()
	for i := range keys {
		pipe.Set(ctxT(t), fmt.Sprintf("d:%d", i), values[i*valueBytes:(i+1)*valueBytes], 0)
	}
	if _, err := pipe.Exec(ctxT(t)); err != nil {
		select {
		case <-primary.done:
			t.Fatalf("primary %s exited (%v) while its replicas were stopped: SET d:*: %v", primary.Addr, primary.waitErr, err)
		case <-time.After(time.Second):
			t.Fatalf("primary %s with its replicas stopped: SET d:*: %v", primary.Addr, err)
		}
	}
	primary.Kill()
	for _, r := range replicas {
		drillSignal(t, r, syscall.SIGCONT)
	}
}

func drillSignal(t *testing.T, p *serverProc, sig syscall.Signal) {
	t.Helper()
	if err := p.Cmd.Process.Signal(sig); err != nil {
		t.Fatalf("%s pid %d: %v: %v", p.Name, p.PID, sig, err)
	}
}

// startSentinel starts a redis-sentinel monitoring 127.0.0.1:primaryPort
// as drillMaster, on a free port; the harness stops it at cleanup.
func startSentinel(t *testing.T, primaryPort int) *serverProc {
	t.Helper()
	dir := t.TempDir()
	return startProc(t, "sentinel", redisSentinelBin, dir, func(port int) []string {
		conf := filepath.Join(dir, fmt.Sprintf("sentinel-%d.conf", port))
		if err := os.WriteFile(conf, []byte(fmt.Sprintf(sentinelConf, port, dir, primaryPort)), 0o644); err != nil {
			t.Fatal(err)
		}
		return []string{conf}
	})
}

// drillClient is the running sentinel_drill.py; lines carries its stdout
// and is closed when the script has exited.
type drillClient struct {
	cmd    *exec.Cmd
	out    *lockedBuffer // stdout and stderr, for failure messages
	lines  chan string
	cancel context.CancelFunc
}

// drillResult is the script's RESULT line.
type drillResult struct {
	Confirmed          map[string][][2]int `json:"confirmed"` // primary address -> [lo, hi) ranges of n
	Written            int                 `json:"written"`
	FailedBatches      int                 `json:"failed_batches"`
	UnconfirmedBatches int                 `json:"unconfirmed_batches"`
}

func startDrillClient(t *testing.T, sentinelPorts string) *drillClient {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), (drillClientSeconds+15)*time.Second)
	cmd := exec.CommandContext(ctx, debianPython, "sentinel_drill.py", sentinelPorts, strconv.Itoa(drillClientSeconds))
	cmd.Dir = filepath.Join("clients", "python")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	c := &drillClient{cmd: cmd, out: &lockedBuffer{}, lines: make(chan string, 64), cancel: cancel}
	cmd.Stderr = c.out
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", cmd.Args, err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<24) // RESULT holds every confirmed range
		for sc.Scan() {
			fmt.Fprintln(c.out, sc.Text())
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	t.Cleanup(func() {
		cancel() // kills the script if it still runs
		for range c.lines {
		}
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("sentinel_drill.py output:\n%s", lastLines(c.out.String(), 40))
		}
	})
	return c
}

// waitFor reads the script's lines until want; it fails if the script ends
// first (its own deadline bounds the wait).
func (c *drillClient) waitFor(t *testing.T, want string) string {
	t.Helper()
	for line := range c.lines {
		if strings.HasPrefix(line, want) {
			return line
		}
	}
	t.Fatalf("sentinel_drill.py ended without printing %q: %v\n%s", want, c.cmd.Wait(), lastLines(c.out.String(), 40))
	return ""
}

// result waits for the script's RESULT line and its exit status 0.
func (c *drillClient) result(t *testing.T) drillResult {
	t.Helper()
	line := c.waitFor(t, "RESULT ")
	for range c.lines {
	}
	if err := c.cmd.Wait(); err != nil {
		t.Fatalf("sentinel_drill.py: %v\n%s", err, lastLines(c.out.String(), 40))
	}
	var r drillResult
	if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "RESULT ")), &r); err != nil {
		t.Fatalf("sentinel_drill.py: bad RESULT line %q: %v", line, err)
	}
	return r
}

// drillAgreedPrimary waits until every Sentinel names the same primary for
// drillMaster and returns its address.
func drillAgreedPrimary(t *testing.T, sentinels []*serverProc) string {
	t.Helper()
	var addrs []string
	pollUntil(t, drillConverge, func() (bool, string) {
		addrs = addrs[:0]
		for _, s := range sentinels {
			hp, err := s.Client.Do(ctxT(t), "SENTINEL", "GET-MASTER-ADDR-BY-NAME", drillMaster).StringSlice()
			if err != nil || len(hp) != 2 {
				return false, fmt.Sprintf("sentinel %s: GET-MASTER-ADDR-BY-NAME: %v %v", s.Addr, hp, err)
			}
			addrs = append(addrs, net.JoinHostPort(hp[0], hp[1]))
		}
		return !slices.ContainsFunc(addrs, func(a string) bool { return a != addrs[0] }),
			fmt.Sprintf("sentinels name different primaries: %v", addrs)
	})
	return addrs[0]
}

// sentinelMasterState returns SENTINEL MASTER's field -> value map.
func sentinelMasterState(s *serverProc) (map[string]string, error) {
	flat, err := s.Client.Do(context.Background(), "SENTINEL", "MASTER", drillMaster).StringSlice()
	if err != nil {
		return nil, err
	}
	m := make(map[string]string, len(flat)/2)
	for i := 0; i+1 < len(flat); i += 2 {
		m[flat[i]] = flat[i+1]
	}
	return m, nil
}

// drillFollows waits until replica reports primary as its master
// with the link up and holds exactly the data want (the primary's, which
// no one writes to any more).
func drillFollows(t *testing.T, replica, primary *serverProc, want map[string]string, timeout time.Duration) {
	t.Helper()
	pollUntil(t, timeout, func() (bool, string) {
		info := infoFields(drillInfo(replica.Client, "replication"))
		if info["role"] != "slave" || info["master_port"] != strconv.Itoa(primary.Port) || info["master_link_status"] != "up" {
			return false, fmt.Sprintf("%s: role %q master_port %q master_link_status %q, want a replica of %s with the link up",
				replica.Addr, info["role"], info["master_port"], info["master_link_status"], primary.Addr)
		}
		if n, err := replica.Client.DBSize(context.Background()).Result(); err != nil || n != int64(len(want)) {
			return false, fmt.Sprintf("%s: DBSIZE %d (%v), the primary holds %d keys", replica.Addr, n, err, len(want))
		}
		got, err := drillKeyspaceErr(replica)
		if err != nil {
			return false, fmt.Sprintf("%s: %v", replica.Addr, err)
		}
		if diff := drillKeyspaceDiff(got, want); diff != "" {
			return false, fmt.Sprintf("%s differs from the primary %s: %s", replica.Addr, primary.Addr, diff)
		}
		return true, ""
	})
}

// drillKeyspace returns every key of a server holding strings only, with
// its value.
func drillKeyspace(t *testing.T, p *serverProc) map[string]string {
	t.Helper()
	m, err := drillKeyspaceErr(p)
	if err != nil {
		t.Fatalf("%s: %v", p.Addr, err)
	}
	return m
}

func drillKeyspaceErr(p *serverProc) (map[string]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
	defer cancel()
	var keys []string
	iter := p.Client.Scan(ctx, 0, "*", 1000).Iterator()
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if err := iter.Err(); err != nil {
		return nil, fmt.Errorf("SCAN: %w", err)
	}
	m := make(map[string]string, len(keys))
	for chunk := range slices.Chunk(keys, 1000) {
		vals, err := p.Client.MGet(ctx, chunk...).Result()
		if err != nil {
			return nil, fmt.Errorf("MGET: %w", err)
		}
		for i, v := range vals {
			if s, ok := v.(string); ok {
				m[chunk[i]] = s
			}
		}
	}
	return m, nil
}

// drillKeyspaceDiff describes the first few differences of got from want, or
// returns "" when they are equal.
func drillKeyspaceDiff(got, want map[string]string) string {
	var diffs []string
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if g, ok := got[k]; !ok || g != want[k] {
			diffs = append(diffs, fmt.Sprintf("%s=%q (present %v), want %q", k, g, ok, want[k]))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("extra key %s=%q", k, got[k]))
		}
	}
	if len(diffs) > 5 {
		diffs = append(diffs[:5], fmt.Sprintf("... %d differences", len(diffs)))
	}
	return strings.Join(diffs, "; ")
}

// drillOnlineReplicas counts the slaveN lines with state=online in p's INFO.
func drillOnlineReplicas(p *serverProc) int {
	n := 0
	for k, v := range infoFields(drillInfo(p.Client, "replication")) {
		if strings.HasPrefix(k, "slave") && strings.Contains(v, "state=online") {
			n++
		}
	}
	return n
}

// drillInfo returns INFO section, or the error's text.
func drillInfo(c *redis.Client, section string) string {
	s, err := c.Info(context.Background(), section).Result()
	if err != nil {
		return "INFO " + section + ": " + err.Error()
	}
	return s
}

// drillSyncCounters returns p's full and partial resync counters.
func drillSyncCounters(p *serverProc) string {
	info := infoFields(drillInfo(p.Client, "stats"))
	return fmt.Sprintf("sync_full:%s sync_partial_ok:%s sync_partial_err:%s",
		info["sync_full"], info["sync_partial_ok"], info["sync_partial_err"])
}

// drillSentinelSeesReplicas waits until Sentinel s reports replicas, and
// only them, as healthy replicas of primary, from what their INFO says.
func drillSentinelSeesReplicas(t *testing.T, s, primary *serverProc, replicas ...*serverProc) {
	t.Helper()
	pollUntil(t, drillConverge, func() (bool, string) {
		reply, err := s.Client.Do(context.Background(), "SENTINEL", "REPLICAS", drillMaster).Slice()
		if err != nil {
			return false, fmt.Sprintf("sentinel %s: SENTINEL REPLICAS: %v", s.Addr, err)
		}
		healthy := map[string]bool{}
		var seen []string
		for _, r := range reply {
			flat, _ := r.([]any)
			f := map[string]string{}
			for i := 0; i+1 < len(flat); i += 2 {
				f[fmt.Sprint(flat[i])] = fmt.Sprint(flat[i+1])
			}
			seen = append(seen, fmt.Sprintf("%s flags=%s role-reported=%s master-port=%s master-link-status=%s",
				f["name"], f["flags"], f["role-reported"], f["master-port"], f["master-link-status"]))
			healthy[f["name"]] = f["flags"] == "slave" && f["role-reported"] == "slave" &&
				f["master-port"] == strconv.Itoa(primary.Port) && f["master-link-status"] == "ok"
		}
		ok := len(healthy) == len(replicas)
		for _, r := range replicas {
			ok = ok && healthy[r.Addr]
		}
		return ok, fmt.Sprintf("sentinel %s: SENTINEL REPLICAS %v, want %d healthy replicas of %s",
			s.Addr, seen, len(replicas), primary.Addr)
	})
}

// drillCommon counts the keys of a that b holds with the same value.
func drillCommon(a, b map[string]string) int {
	n := 0
	for k, v := range a {
		if bv, ok := b[k]; ok && bv == v {
			n++
		}
	}
	return n
}

// confirmedCount counts the writes confirmed on primary, or on every
// primary when primary is "".
func (r drillResult) confirmedCount(primary string) int {
	n := 0
	for addr, ranges := range r.Confirmed {
		for _, rg := range ranges {
			if primary == "" || addr == primary {
				n += rg[1] - rg[0]
			}
		}
	}
	return n
}

// drillLost describes the confirmed writes of r that data lacks (the
// script writes w:<n> = v<n>), or returns "" when none is missing.
func drillLost(r drillResult, data map[string]string) string {
	var lost []string
	for _, addr := range slices.Sorted(maps.Keys(r.Confirmed)) {
		for _, rg := range r.Confirmed[addr] {
			for n := rg[0]; n < rg[1]; n++ {
				key, val := fmt.Sprintf("w:%d", n), fmt.Sprintf("v%d", n)
				if got, ok := data[key]; !ok || got != val {
					lost = append(lost, fmt.Sprintf("%s=%s confirmed on %s is %q (present %v)", key, val, addr, got, ok))
				}
			}
		}
	}
	if len(lost) > 5 {
		lost = append(lost[:5], fmt.Sprintf("... %d lost in all", len(lost)))
	}
	return strings.Join(lost, "; ")
}
