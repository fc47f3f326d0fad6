package tests

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Observability: INFO's sections and fields, SLOWLOG, MONITOR, CONFIG
// RESETSTAT and /metrics, each checked against real Redis where Redis has
// the same thing.

// infoFields parses an INFO reply into field -> value.
func infoFields(info string) map[string]string {
	m := make(map[string]string)
	for _, line := range strings.Split(info, "\r\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && !strings.HasPrefix(line, "#") {
			m[k] = v
		}
	}
	return m
}

// redisInfoFields are fields both servers must report, with Redis's names,
// per section. redis-cli --stat reads the keyspace lines, used_memory,
// connected_clients, blocked_clients, total_commands_processed and
// total_connections_received.
var redisInfoFields = map[string][]string{
	"server": {"redis_version", "redis_git_sha1", "redis_git_dirty", "redis_mode", "os", "arch_bits", "process_id",
		"run_id", "tcp_port", "server_time_usec", "uptime_in_seconds", "uptime_in_days", "executable", "config_file"},
	"clients": {"connected_clients", "cluster_connections", "maxclients", "blocked_clients", "tracking_clients"},
	"memory": {"used_memory", "used_memory_human", "used_memory_rss", "used_memory_rss_human", "maxmemory",
		"maxmemory_human", "maxmemory_policy", "mem_allocator"},
	"persistence": {"loading", "async_loading", "rdb_changes_since_last_save", "rdb_bgsave_in_progress",
		"rdb_last_save_time", "rdb_last_bgsave_status", "aof_enabled", "aof_rewrite_in_progress",
		"aof_last_bgrewrite_status", "aof_last_write_status"},
	"stats": {"total_connections_received", "total_commands_processed", "instantaneous_ops_per_sec",
		"total_net_input_bytes", "total_net_output_bytes", "instantaneous_input_kbps", "instantaneous_output_kbps",
		"rejected_connections", "expired_keys", "evicted_keys", "pubsub_channels", "pubsub_patterns", "total_error_replies"},
	"replication": {"role", "connected_slaves", "master_failover_state", "master_replid", "master_replid2",
		"master_repl_offset", "second_repl_offset", "repl_backlog_active", "repl_backlog_size",
		"repl_backlog_first_byte_offset", "repl_backlog_histlen"},
	"cpu":     {"used_cpu_sys", "used_cpu_user", "used_cpu_sys_children", "used_cpu_user_children"},
	"cluster": {"cluster_enabled"},
}

func TestInfoFieldsAsRedis(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		ctx := ctxT(t)
		do(t, c, "SET", "k", "v")
		do(t, c, "SET", "e", "v", "EX", "1000")
		for section, fields := range redisInfoFields {
			got := infoFields(c.Info(ctx, section).Val())
			for _, f := range fields {
				if _, ok := got[f]; !ok {
					t.Errorf("INFO %s: no %s field", section, f)
				}
			}
		}
		all := infoFields(c.Info(ctx).Val())
		if all["role"] != "master" || all["db0"] != "keys=2,expires=1,avg_ttl="+strings.TrimPrefix(all["db0"], "keys=2,expires=1,avg_ttl=") {
			t.Errorf("INFO: role %q, db0 %q", all["role"], all["db0"])
		}
		for _, f := range []string{"used_memory", "connected_clients", "blocked_clients", "total_commands_processed", "total_connections_received"} {
			if _, err := strconv.ParseInt(all[f], 10, 64); err != nil {
				t.Errorf("INFO %s = %q, not an integer (redis-cli --stat reads it)", f, all[f])
			}
		}
		// commandstats is in "all" and "everything", not in the default set.
		if def := c.Info(ctx).Val(); strings.Contains(def, "# Commandstats") || !strings.Contains(def, "# Errorstats") {
			t.Errorf("INFO default sections wrong:\n%s", def)
		}
		for _, arg := range []string{"all", "everything"} {
			if s := c.Info(ctx, arg).Val(); !strings.Contains(s, "# Commandstats") || !strings.Contains(s, "# Keyspace") {
				t.Errorf("INFO %s lacks commandstats or keyspace", arg)
			}
		}
		two := c.Do(ctx, "INFO", "clients", "keyspace").Val().(string)
		if strings.Count(two, "# ") != 2 || !strings.Contains(two, "# Clients") || !strings.Contains(two, "# Keyspace") {
			t.Errorf("INFO clients keyspace:\n%s", two)
		}
		if b.isShale() {
			for _, sec := range []string{"rocksdb", "reclaim"} {
				if s := c.Info(ctx, sec).Val(); !strings.HasPrefix(s, "# ") || len(infoFields(s)) < 5 {
					t.Errorf("INFO %s:\n%s", sec, s)
				}
			}
		}
	})
}

// cmdstatRe is one commandstats line.
var cmdstatRe = regexp.MustCompile(`^calls=(\d+),usec=(\d+),usec_per_call=(\d+\.\d\d),rejected_calls=(\d+),failed_calls=(\d+)$`)

func cmdstat(t *testing.T, c *redis.Client, name string) (calls, rejected, failed int64) {
	t.Helper()
	v, ok := infoFields(c.Info(ctxT(t), "commandstats").Val())["cmdstat_"+name]
	if !ok {
		return 0, 0, 0
	}
	m := cmdstatRe.FindStringSubmatch(v)
	if m == nil {
		t.Fatalf("cmdstat_%s:%s does not match Redis's format", name, v)
	}
	calls, _ = strconv.ParseInt(m[1], 10, 64)
	rejected, _ = strconv.ParseInt(m[4], 10, 64)
	failed, _ = strconv.ParseInt(m[5], 10, 64)
	return calls, rejected, failed
}

func TestCommandStatsErrorStatsResetStat(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		ctx := ctxT(t)
		do(t, c, "SET", "k", "v")
		do(t, c, "SET", "k", "w")
		do(t, c, "HSET", "h", "f", "v")
		c.Do(ctx, "GET", "h")      // WRONGTYPE: failed
		c.Do(ctx, "GET")           // wrong arity: rejected
		c.Do(ctx, "INCR", "k")     // ERR not an integer: failed
		c.Do(ctx, "NOSUCHCOMMAND") // unknown: no cmdstat, but an error reply
		c.Do(ctx, "CONFIG", "GET", "maxclients")
		c.Do(ctx, "CONFIG", "NOSUCH") // unknown subcommand: no cmdstat
		c.Do(ctx, "CONFIG", "GET")    // subcommand arity: rejected
		for _, tt := range []struct {
			name                    string
			calls, rejected, failed int64
		}{
			{"set", 2, 0, 0}, {"hset", 1, 0, 0}, {"get", 1, 1, 1}, {"incr", 1, 0, 1},
			{"config|get", 1, 1, 0}, {"nosuchcommand", 0, 0, 0}, {"config|nosuch", 0, 0, 0},
		} {
			calls, rejected, failed := cmdstat(t, c, tt.name)
			if calls != tt.calls || rejected != tt.rejected || failed != tt.failed {
				t.Errorf("cmdstat_%s: calls=%d rejected=%d failed=%d, want %d %d %d",
					tt.name, calls, rejected, failed, tt.calls, tt.rejected, tt.failed)
			}
		}
		errs := infoFields(c.Info(ctx, "errorstats").Val())
		if errs["errorstat_WRONGTYPE"] != "count=1" || errs["errorstat_ERR"] != "count=5" {
			t.Errorf("errorstats: %v", errs)
		}
		stats := infoFields(c.Info(ctx, "stats").Val())
		if stats["total_error_replies"] != "6" {
			t.Errorf("total_error_replies = %s, want 6", stats["total_error_replies"])
		}

		do(t, c, "CONFIG", "RESETSTAT")
		if calls, _, _ := cmdstat(t, c, "set"); calls != 0 {
			t.Errorf("cmdstat_set calls = %d after RESETSTAT", calls)
		}
		if errs := infoFields(c.Info(ctx, "errorstats").Val()); len(errs) != 0 {
			t.Errorf("errorstats after RESETSTAT: %v", errs)
		}
		stats = infoFields(c.Info(ctx, "stats").Val())
		if stats["total_error_replies"] != "0" || stats["total_connections_received"] != "0" {
			t.Errorf("stats after RESETSTAT: errors %s, connections %s", stats["total_error_replies"], stats["total_connections_received"])
		}
		// Only the INFO calls since the reset.
		if n, _ := strconv.Atoi(stats["total_commands_processed"]); n < 1 || n > 4 {
			t.Errorf("total_commands_processed = %d after RESETSTAT", n)
		}
	})
}

func TestSlowlog(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		ctx := ctxT(t)
		cn := newConn(t, b.Addr)
		do(t, cn, "CLIENT", "SETNAME", "slowpoke")
		do(t, c, "CONFIG", "SET", "slowlog-log-slower-than", "0")
		if got := c.ConfigGet(ctx, "slowlog-*").Val(); got["slowlog-log-slower-than"] != "0" || got["slowlog-max-len"] != "128" {
			t.Fatalf("CONFIG GET slowlog-*: %v", got)
		}
		do(t, c, "SLOWLOG", "RESET")
		do(t, cn, "SET", "k", strings.Repeat("x", 200))
		many := []any{"RPUSH", "list"}
		for i := range 40 {
			many = append(many, strconv.Itoa(i))
		}
		do(t, cn, many...)
		cn.Do(ctx, "AUTH", "secret") // no password set: an error, still logged
		if n := doInt(t, c, "SLOWLOG", "LEN"); n != 4 {
			t.Fatalf("SLOWLOG LEN = %d, want 4 (reset, set, rpush, auth)", n)
		}
		// The newest entry is SLOWLOG LEN itself.
		entries := do(t, c, "SLOWLOG", "GET", "4").([]any)[1:]
		if len(entries) != 3 {
			t.Fatalf("SLOWLOG GET 4: %d entries", len(entries)+1)
		}
		var lastID int64 = -1
		for i, e := range entries {
			f := e.([]any)
			if len(f) != 6 {
				t.Fatalf("entry %d has %d fields: %v", i, len(f), f)
			}
			id, at, usec := f[0].(int64), f[1].(int64), f[2].(int64)
			if lastID >= 0 && id != lastID-1 {
				t.Errorf("entry %d id %d, previous %d: want newest first", i, id, lastID)
			}
			lastID = id
			if d := time.Now().Unix() - at; d < 0 || d > 60 || usec < 0 {
				t.Errorf("entry %d: timestamp %d, duration %d", i, at, usec)
			}
			if addr := f[4].(string); !strings.HasPrefix(addr, "127.0.0.1:") || f[5] != "slowpoke" {
				t.Errorf("entry %d: client %q name %q", i, addr, f[5])
			}
		}
		args := func(e any) []string {
			var out []string
			for _, a := range e.([]any)[3].([]any) {
				out = append(out, a.(string))
			}
			return out
		}
		if got := args(entries[0]); fmt.Sprint(got) != "[AUTH (redacted)]" {
			t.Errorf("AUTH entry args %q", got)
		}
		push := args(entries[1])
		if len(push) != 32 || push[0] != "RPUSH" || push[30] != "28" || push[31] != "... (11 more arguments)" {
			t.Errorf("RPUSH entry args %q", push)
		}
		set := args(entries[2])
		if len(set) != 3 || set[2] != strings.Repeat("x", 128)+"... (72 more bytes)" {
			t.Errorf("SET entry args %q", set)
		}
		if all := do(t, c, "SLOWLOG", "GET", "-1").([]any); len(all) < 5 {
			t.Errorf("SLOWLOG GET -1: %d entries", len(all))
		}
		if def := do(t, c, "SLOWLOG", "GET").([]any); len(def) < 5 || len(def) > 10 {
			t.Errorf("SLOWLOG GET: %d entries", len(def))
		}
		if err := c.Do(ctx, "SLOWLOG", "GET", "-2").Err(); err == nil || err.Error() != "ERR count should be greater than or equal to -1" {
			t.Errorf("SLOWLOG GET -2: %v", err)
		}
		do(t, c, "CONFIG", "SET", "slowlog-max-len", "2")
		if n := doInt(t, c, "SLOWLOG", "LEN"); n != 2 {
			t.Errorf("SLOWLOG LEN = %d after slowlog-max-len 2", n)
		}
		do(t, c, "CONFIG", "SET", "slowlog-log-slower-than", "-1")
		do(t, c, "SLOWLOG", "RESET")
		do(t, c, "SET", "k", "v")
		if n := doInt(t, c, "SLOWLOG", "LEN"); n != 0 {
			t.Errorf("SLOWLOG LEN = %d with the slow log off", n)
		}
		// A blocked command's wait is not its run time.
		do(t, c, "CONFIG", "SET", "slowlog-log-slower-than", "100000")
		if err := c.Do(ctx, "BLPOP", "nolist", "0.3").Err(); err != redis.Nil {
			t.Fatalf("BLPOP: %v", err)
		}
		if n := doInt(t, c, "SLOWLOG", "LEN"); n != 0 {
			t.Errorf("SLOWLOG LEN = %d after a BLPOP that waited 300ms", n)
		}
	})
}

// A command's reply waits for its write to land, so the time it waited
// for its group's commit is part of its run in the slow log (and in INFO
// commandstats): an INCR queued behind another client's 16 MiB write is a
// slow INCR, though its own work took microseconds.
func TestSlowlogCountsTheWrite(t *testing.T) {
	p := startShale(t, shaleOpts{})
	c := newClient(p.Addr, "")
	defer c.Close()
	ctx := ctxT(t)
	do(t, c, "CONFIG", "SET", "slowlog-log-slower-than", "5000")
	stop := make(chan struct{})
	writerDone := make(chan error, 1)
	go func() {
		w := newClient(p.Addr, "")
		defer w.Close()
		big := strings.Repeat("x", 16<<20)
		for i := 0; i < 40; i++ {
			select {
			case <-stop:
				writerDone <- nil
				return
			default:
			}
			if err := w.Set(ctx, "big", big, 0).Err(); err != nil {
				writerDone <- err
				return
			}
		}
		writerDone <- nil
	}()
	defer close(stop)
	for {
		select {
		case err := <-writerDone:
			t.Fatalf("no INCR in the slow log after 40 writes of 16 MiB beside it (writer: %v)", err)
		default:
		}
		if err := c.Incr(ctx, "counter").Err(); err != nil {
			t.Fatal(err)
		}
		for _, e := range c.SlowLogGet(ctx, -1).Val() {
			if strings.EqualFold(e.Args[0], "incr") {
				return
			}
		}
	}
}

// monitorLineRe is a MONITOR line with its time and port, which differ
// between runs.
var monitorLineRe = regexp.MustCompile(`^\+\d{10}\.\d{6} \[(\d+) 127\.0\.0\.1:\d+\] (.*)\r\n$`)

func TestMonitor(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		mon := dialRaw(t, b.Addr)
		mon.send("MONITOR\r\n")
		if got := mon.readLine(); got != "+OK\r\n" {
			t.Fatalf("MONITOR: %q", got)
		}
		cn := newConn(t, b.Addr)
		do(t, cn, "SET", "a b", "x\"y\n\x01\xff")
		do(t, cn, "SELECT", "3")
		cn.Do(ctxT(t), "GET", "k")
		cn.Do(ctxT(t), "AUTH", "user", "pass")
		cn.Do(ctxT(t), "CONFIG", "GET", "port") // admin: not shown
		cn.Do(ctxT(t), "NOSUCH")                // unknown: not shown
		cn.Do(ctxT(t), "HSET", "h", "f")        // wrong arity: not shown
		cn.Do(ctxT(t), "PING")
		var got []string
		for range 6 {
			line := mon.readLine()
			m := monitorLineRe.FindStringSubmatch(line)
			if m == nil {
				t.Fatalf("MONITOR line %q", line)
			}
			got = append(got, m[1]+" "+m[2])
		}
		want := []string{ // go-redis says HELLO 2 when it connects
			`0 "hello" "2"`,
			`0 "SET" "a b" "x\"y\n\x01\xff"`,
			`3 "SELECT" "3"`,
			`3 "GET" "k"`,
			`3 "AUTH" "(redacted)" "(redacted)"`,
			`3 "PING"`,
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("MONITOR lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		// The monitor may still run commands that touch no keys.
		mon.send("PING\r\n")
		var pong string
		for pong = mon.readLine(); strings.HasPrefix(pong, "+1"); pong = mon.readLine() {
		}
		if pong != "+PONG\r\n" {
			t.Errorf("PING on a monitor: %q", pong)
		}
		mon.send("QUIT\r\n")
		for line := mon.readLine(); line != "+OK\r\n"; line = mon.readLine() {
		}
		mon.expectClosed()
		if b.isShale() { // the monitor is gone: no one left to feed
			clients := do(t, c, "INFO", "clients").(string)
			if !strings.Contains(clients, "connected_clients:2\r\n") {
				t.Errorf("after the monitor quit:\n%s", clients)
			}
		}
	})
}

// TestMonitorCLI runs redis-cli MONITOR as an operator would.
func TestMonitorCLI(t *testing.T) {
	p := startShale(t, shaleOpts{})
	_, port, _ := strings.Cut(p.Addr, ":")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, redisCliBin, "-p", port, "MONITOR")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	r := bufio.NewReader(out)
	if line, _ := r.ReadString('\n'); line != "OK\n" {
		t.Fatalf("redis-cli MONITOR printed %q", line)
	}
	cli(t, p.Addr, "SET", "cli", "value")
	want := regexp.MustCompile(`^\d+\.\d{6} \[0 127\.0\.0\.1:\d+\] "SET" "cli" "value"\n$`)
	for { // redis-cli itself sends COMMAND DOCS first
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("redis-cli MONITOR: %v", err)
		}
		if want.MatchString(line) {
			break
		}
		if !strings.Contains(line, `"COMMAND" "DOCS"`) {
			t.Fatalf("redis-cli MONITOR printed %q", line)
		}
	}
}

// TestMetrics starts shale with /metrics on, runs redis-benchmark against
// it, and checks that the scraped command counters moved.
func TestMetrics(t *testing.T) {
	mport := freePort(t)
	p := startShale(t, shaleOpts{Config: fmt.Sprintf("[metrics]\naddr = \"%d\"\n", mport)})
	url := fmt.Sprintf("http://127.0.0.1:%d/metrics", mport)
	before := scrape(t, url)
	if _, ok := before[`shale_build_info{redis_version="7.0.15",version="0.1.0"}`]; !ok {
		t.Errorf("no shale_build_info in\n%v", before)
	}
	for _, name := range []string{
		`shale_connected_clients`, `shale_keys{db="0"}`, `shale_used_memory_bytes`,
		`shale_rocksdb_sst_bytes{cf="subkey"}`, `shale_rocksdb_estimated_keys{cf="metadata"}`,
		`shale_rocksdb_pending_compaction_bytes{cf="score"}`, `shale_rocksdb_memtable_bytes{cf="default"}`,
		`shale_rocksdb_block_cache_usage_bytes`, `shale_rocksdb_write_stalls_total{cause="level0_stop",cf="subkey"}`,
		`shale_reclaim_dropped_records_total{kind="subkey"}`, `shale_reclaim_queue_length`, `shale_expired_keys_total`,
		`go_goroutines`, `process_resident_memory_bytes`,
	} {
		if _, ok := before[name]; !ok {
			t.Errorf("no %s in /metrics", name)
		}
	}

	_, port, _ := strings.Cut(p.Addr, ":")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	bench := exec.CommandContext(ctx, redisBenchmarkBin, "-p", port, "-n", "2000", "-c", "4", "-t", "set,get,lpush,hset", "-q")
	if out, err := bench.CombinedOutput(); err != nil {
		t.Fatalf("redis-benchmark: %v\n%s", err, out)
	}
	after := scrape(t, url)
	for _, cmd := range []string{"set", "get", "lpush", "hset"} {
		name := `shale_commands_total{cmd="` + cmd + `"}`
		if after[name] < before[name]+2000 {
			t.Errorf("%s = %v, was %v: want +2000", name, after[name], before[name])
		}
		if n := after[`shale_command_duration_seconds_count{cmd="`+cmd+`"}`]; n != after[name] {
			t.Errorf("%s histogram count %v, counter %v", cmd, n, after[name])
		}
		if n := after[`shale_command_duration_seconds_bucket{cmd="`+cmd+`",le="+Inf"}`]; n != after[name] {
			t.Errorf("%s +Inf bucket %v, counter %v", cmd, n, after[name])
		}
	}
	if after[`shale_connections_received_total`] < before[`shale_connections_received_total`]+4 {
		t.Errorf("connections_received_total did not move: %v -> %v", before[`shale_connections_received_total`], after[`shale_connections_received_total`])
	}
	if after[`shale_keys{db="0"}`] < 3 {
		t.Errorf(`shale_keys{db="0"} = %v after redis-benchmark`, after[`shale_keys{db="0"}`])
	}
	// INFO reads the same counters.
	calls, _, _ := cmdstat(t, p.Client, "set")
	if float64(calls) != after[`shale_commands_total{cmd="set"}`] {
		t.Errorf("cmdstat_set calls %d, metric %v", calls, after[`shale_commands_total{cmd="set"}`])
	}
}

// scrape fetches a Prometheus text page as series -> value.
func scrape(t *testing.T, url string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	out := make(map[string]float64)
	for _, line := range strings.Split(string(body), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("bad metrics line %q", line)
		}
		out[line[:i]] = v
	}
	return out
}

// TestMetricsPprof: with metrics.pprof the metrics listener serves Go's
// profiles, a CPU profile and an execution trace among them; without it,
// none.
func TestMetricsPprof(t *testing.T) {
	get := func(url string) (int, []byte) {
		t.Helper()
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, body
	}
	mport := freePort(t)
	startShale(t, shaleOpts{Config: fmt.Sprintf("[metrics]\naddr = \"%d\"\npprof = true\n", mport)})
	base := fmt.Sprintf("http://127.0.0.1:%d/debug/pprof/", mport)
	if code, body := get(base + "goroutine?debug=1"); code != http.StatusOK || !strings.Contains(string(body), "goroutine profile:") {
		t.Errorf("goroutine profile: HTTP %d\n%.300s", code, body)
	}
	for _, path := range []string{"profile?seconds=1", "trace?seconds=1"} {
		if code, body := get(base + path); code != http.StatusOK || len(body) == 0 {
			t.Errorf("%s: HTTP %d, %d bytes", path, code, len(body))
		}
	}

	off := freePort(t)
	startShale(t, shaleOpts{Config: fmt.Sprintf("[metrics]\naddr = \"%d\"\n", off)})
	if code, _ := get(fmt.Sprintf("http://127.0.0.1:%d/debug/pprof/", off)); code != http.StatusNotFound {
		t.Errorf("pprof off: HTTP %d, want 404", code)
	}
}

// TestMetricsOffByDefault: no metrics.addr, no listener; a bare port binds
// loopback only (checked through the start-up log).
func TestMetricsLoopbackByDefault(t *testing.T) {
	mport := freePort(t)
	p := startShale(t, shaleOpts{Config: fmt.Sprintf("[metrics]\naddr = \":%d\"\n", mport), Flags: []string{"--log-level", "info"}})
	pollUntil(t, 5*time.Second, func() (bool, string) {
		return strings.Contains(p.Output(), fmt.Sprintf("127.0.0.1:%d", mport)), p.Output()
	})
	if !regexp.MustCompile(`serving metrics.*addr=\S*127\.0\.0\.1:` + strconv.Itoa(mport)).MatchString(p.Output()) {
		t.Errorf("metrics not on loopback:\n%s", p.Output())
	}
	if !strings.Contains(p.Output(), "slowlog-log-slower-than") {
		t.Errorf("start-up line lacks the effective config:\n%s", p.Output())
	}
}
