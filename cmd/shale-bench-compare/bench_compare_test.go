package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/panjf2000/gnet/v2"
	"github.com/shaledb/shale/cmd/internal/benchhost"
	"github.com/tidwall/redcon"
)

// TestParseBenchOutput parses redis-benchmark 7.0.15's real output, saved
// as it printed it (progress lines and carriage returns included): -t
// set,lrange_100, whose LRANGE runs a helper LPUSH first, and a command
// line with -P 16, where fewer requests reach the histogram than
// completed.
func TestParseBenchOutput(t *testing.T) {
	for _, tc := range []struct {
		file string
		want []benchResult
	}{
		{"redis-benchmark-tests.txt", []benchResult{
			// 2997 of 3000 requests: the 99.902% line, 2999 of them.
			{Test: "SET", Requests: 3000, RPS: 11904.76, P50: 0.775, P99: 116.799, P999: 117.183},
			{Test: "LRANGE_100", Requests: 3000, RPS: 19480.52, P50: 0.951, P99: 8.551, P999: 8.991},
		}},
		{"redis-benchmark-command.txt", []benchResult{
			// 3008 completed, 3000 in the histogram: 2997 is the 99.609% line.
			{Test: "XADD", Requests: 3008, RPS: 125333.34, P50: 5.175, P99: 9.007, P999: 9.023},
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got, err := parseBenchOutput(f)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
	summary := "Summary:\n  throughput summary: 10.00 requests per second\n  latency summary (msec):\n" +
		"          avg       min       p50       p95       p99       max\n        1.0 1.0 1.0 1.0 1.0 1.0\n"
	points := "Latency by percentile distribution:\n100.000% <= 1.0 milliseconds (cumulative count 10)\n"
	const completed = "  10 requests completed in 1.00 seconds\n"
	for _, bad := range []string{
		"",
		"SET: rps=0.0 (overall: 0.0) avg_msec=-nan (overall: -nan)\r",
		"====== SET ======\n" + completed + points,  // no summary
		"====== SET ======\n" + completed + summary, // no distribution
		"====== SET ======\n" + points + summary,    // no count of requests
		"====== SET ======\n" + "  ten requests completed in 1.00 seconds\n" + points + summary,
		"====== SET ======\n" + completed + points + strings.Replace(summary, "1.0 1.0\n", "1.0\n", 1),
		"====== SET ======\n" + completed + "99.9% <= fast milliseconds (cumulative count 1)\n" + summary,
	} {
		if got, err := parseBenchOutput(strings.NewReader(bad)); err == nil {
			t.Errorf("parseBenchOutput(%q) = %+v, want an error", bad, got)
		}
	}
	if _, err := parseBenchOutput(strings.NewReader("====== SET ======\n" + completed + points + summary)); err != nil {
		t.Errorf("the minimal block: %v", err)
	}
}

func TestRankOf(t *testing.T) {
	for _, tc := range []struct {
		total int64
		p     float64
		want  int64
	}{
		{3000, 99.9, 2997},
		{100000, 99.9, 99900},
		{100001, 99.9, 99901},
		{1000, 50, 500},
		{1, 99.9, 1},
		{10, 0, 1},
	} {
		if got := benchhost.RankOf(tc.total, tc.p); got != tc.want {
			t.Errorf("benchhost.RankOf(%d, %v) = %d, want %d", tc.total, tc.p, got, tc.want)
		}
	}
}

func TestSummarizeThroughput(t *testing.T) {
	var samples []throughputSample
	for round, rps := range []float64{100, 300, 200} {
		samples = append(samples,
			throughputSample{Round: round + 1, Server: "shale", Test: "SET", benchResult: benchResult{RPS: rps}},
			throughputSample{Round: round + 1, Server: "redis", Test: "SET", benchResult: benchResult{RPS: 2 * rps}})
	}
	rows := summarizeThroughput(samples)
	if len(rows) != 1 || rows[0].Median["shale"] != 200 || rows[0].Median["redis"] != 400 {
		t.Fatalf("summary = %+v", rows)
	}
	if got := ratio(rows[0].Median["shale"], rows[0].Median["redis"]); got != "0.50" {
		t.Errorf("ratio = %q", got)
	}
	if got := ratio(1, rows[0].Median["ceiling"]); got != "" {
		t.Errorf("ratio to a missing server = %q, want empty", got)
	}
}

// TestCeilingServer drives the ceiling server over a raw connection, in
// both its network layers.
func TestCeilingServer(t *testing.T) {
	t.Run("redcon", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := redcon.NewServer("", newCeilingStore().handle, nil, nil)
		go func() { _ = srv.Serve(ln) }()
		t.Cleanup(func() { srv.Close() })
		testCeiling(t, ln.Addr().String())
	})
	t.Run("event loop", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		go func() { _ = serveCeilingLoop(addr, 2) }()
		t.Cleanup(func() { _ = gnet.Stop(context.Background(), "tcp://"+addr) })
		testCeiling(t, addr)
	})
}

func testCeiling(t *testing.T, addr string) {
	var conn net.Conn
	var err error
	for range 100 { // the event loop may not listen yet
		if conn, err = net.Dial("tcp", addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(conn)
	for _, step := range []struct{ send, want string }{
		{"PING", "+PONG"},
		{"GET k", "$-1"},
		{"SET k v1", "+OK"},
		{"GET k", "$2\r\nv1"},
		{"set k v2", "+OK"},
		{"get k", "$2\r\nv2"},
		{"INCR n", ":1"},
		{"INCR n", ":2"},
		{"INCR k", "-ERR value is not an integer or out of range"},
		{"SET big 9223372036854775807", "+OK"},
		{"INCR big", "-ERR increment or decrement would overflow"},
		{"LPUSH l a", ":1"},
		{"LPUSH l b c", ":3"},
		{"RPUSH l d", ":4"}, // c b a d
		{"LRANGE l 0 1", "*2\r\n$1\r\nc\r\n$1\r\nb"},
		{"LRANGE l -2 -1", "*2\r\n$1\r\na\r\n$1\r\nd"},
		{"LRANGE l 5 9", "*0"},
		{"LPOP l", "$1\r\nc"},
		{"LRANGE l 0 99", "*3\r\n$1\r\nb\r\n$1\r\na\r\n$1\r\nd"},
		{"LPOP l", "$1\r\nb"},
		{"LPOP l", "$1\r\na"},
		{"LPOP l", "$1\r\nd"}, // from the back, once the front is empty
		{"LPOP l", "$-1"},
		{"RPUSH l e", ":1"}, // the emptied list was deleted
		{"LPUSH k x", "-WRONGTYPE Operation against a key holding the wrong kind of value"},
		{"GET l", "-WRONGTYPE Operation against a key holding the wrong kind of value"},
		{"SADD s a b a", ":2"},
		{"SADD s b c", ":1"},
		{"SADD l a", "-WRONGTYPE Operation against a key holding the wrong kind of value"},
		{"HSET h f v", ":1"},
		{"HSET h f w g x", ":1"},
		{"HSET h f", "-ERR wrong number of arguments for 'hset' command"},
		{"HSET h f v g", "-ERR wrong number of arguments for 'hset' command"},
		{"ZADD z 1 a 2 b", ":2"},
		{"ZADD z 3 a", ":0"},
		{"ZADD z 000000012345 c", ":1"}, // redis-benchmark's __rand_int__ score
		{"ZADD z x d", "-ERR value is not a valid float"},
		{"LRANGE z 0 x", "-ERR value is not an integer or out of range"},
		{"GET", "-ERR wrong number of arguments for 'get' command"},
		{"FLUSHALL", "-ERR the ceiling server does not serve 'flushall'"},
		// Two commands in one write, and one cut across two writes.
		{"SET p 1\r\nGET p", "+OK\r\n$1\r\n1"},
		{"*2\r\n$3\r\nGET\r\n|$1\r\np", "$1\r\n1"},
	} {
		for i, part := range strings.Split(step.send+"\r\n", "|") {
			if i > 0 {
				time.Sleep(50 * time.Millisecond)
			}
			if _, err := conn.Write([]byte(part)); err != nil {
				t.Fatal(err)
			}
		}
		var got []string
		for range strings.Count(step.want, "\r\n") + 1 {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("%s: %v", step.send, err)
			}
			got = append(got, strings.TrimRight(line, "\r\n"))
		}
		if g := strings.Join(got, "\r\n"); g != step.want {
			t.Errorf("%s = %q, want %q", step.send, g, step.want)
		}
	}
}

func TestKeepHandWritten(t *testing.T) {
	old := "# Benchmarks\n\nold tables\n\n" + handWrittenMarker + "\n\n## Release build\n\nkept\n"
	got := keepHandWritten("# Benchmarks\n\nnew tables\n", old)
	want := "# Benchmarks\n\nnew tables\n\n" + handWrittenMarker + "\n\n## Release build\n\nkept\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := keepHandWritten("new\n", "no marker here"); got != "new\n" {
		t.Errorf("without a marker: got %q", got)
	}
}

func TestBusy(t *testing.T) {
	for _, tc := range []struct {
		info string
		want bool
	}{
		{"# Rocksdb\r\npending_compaction_bytes:10\r\nrunning_compactions:0\r\nrunning_flushes:0\r\n", false},
		{"# Rocksdb\r\nrunning_compactions:1\r\nrunning_flushes:0\r\n", true},
		{"# Rocksdb\r\nrunning_compactions:0\r\nrunning_flushes:2\r\n", true},
		{"", false}, // Redis: no rocksdb section
	} {
		if got := busy(tc.info); got != tc.want {
			t.Errorf("busy(%q) = %v, want %v", tc.info, got, tc.want)
		}
	}
}

// TestThroughputReport renders the throughput table's latency columns and
// the two builds' table, with the Debian-library build present and
// missing.
func TestThroughputReport(t *testing.T) {
	// Each run takes 1000 requests and p99 × 20 ms of server CPU:
	// p99 × 20 µs per request.
	sample := func(round int, server, test string, rps, p99 float64) throughputSample {
		return throughputSample{Round: round, Server: server, Test: test, ServerCPU: time.Duration(p99 * 20 * float64(time.Millisecond)),
			benchResult: benchResult{Requests: 1000, RPS: rps, P50: p99 / 4, P99: p99, P999: 2 * p99}}
	}
	r := &results{Opts: options{ShaleBin: "bin/shale-server", DebianlibBin: "bin/shale-server-debianlib"},
		Env:              environment{ShaleRocksDB: "the release build", DebianlibRocksDB: "Debian's shared library"},
		ThroughputMemory: []serverMemory{{Server: "shale", Peak: 240e6, RSS: 200e6}, {Server: debianlibServer, Peak: 1e6, RSS: 1e6}}}
	for round := 1; round <= 3; round++ {
		r.Throughput = append(r.Throughput,
			sample(round, "shale", "SET", 100*float64(round), float64(round)), // medians: 200 ops/s, p99 2 ms
			sample(round, "redis", "SET", 400, 1),
			sample(round, "ceiling", "SET", 500, 1),
			sample(round, debianlibServer, "SET", 50, 8),
			sample(round, "shale", "INCR", 300, 3),
			sample(round, "redis", "INCR", 300, 2))
	}
	tables := resultTables(r)
	for _, want := range []string{
		"| SET | 200 | 400 | 500 | 0.50 | 0.40 | 0.50 / 0.25 / 0.25 | 2.00 / 1.00 / 1.00 | 4.00 / 2.00 / 2.00 | 40.0 / 20.0 / 20.0 |",
		"| INCR | 300 | 300 | – | 1.00 | – | 0.75 / 0.50 / – | 3.00 / 2.00 / – | 6.00 / 4.00 / – | 60.0 / 40.0 / – |",
		"| SET | 200 | 50 | 4.00 | 2.00 / 8.00 | 40.0 / 160.0 |",
		"after every round above. MB are 10^6 bytes",
		"| Shale | 240.0 MB | 200.0 MB |",
		"| `shale-debianlib` | 1.0 MB | 1.0 MB |",
	} {
		if !strings.Contains(tables, want) {
			t.Errorf("tables lack %q:\n%s", want, tables)
		}
	}
	if strings.Contains(tables, "| INCR | 300 | –") {
		t.Errorf("INCR, which the Debian-library build did not run, in the builds table:\n%s", tables)
	}
	r.Opts.Phases = map[string]bool{"publish": true}
	if tables := resultTables(r); !strings.Contains(tables, "after every round above (its publish runs on Shale and\nRedis included).") {
		t.Errorf("the memory table does not say that the publish runs ran:\n%s", tables)
	}
	h := headlines(r)
	for _, want := range []string{
		"SET 2.00 (2.00 / 1.00 ms, missed)",
		"the plain tests the ceiling does not run: INCR 1.50.",
		"240.0 MB (VmHWM at the end of the throughput phase, missed)",
		"from 4.00 (SET) to 4.00 (SET)",
	} {
		if !strings.Contains(h, want) {
			t.Errorf("headlines lack %q:\n%s", want, h)
		}
	}

	r.Env.DebianlibRocksDB, r.Env.DebianlibMissing = "", "stat bin/shale-server-debianlib: no such file or directory"
	var kept []throughputSample
	for _, s := range r.Throughput {
		if s.Server != debianlibServer {
			kept = append(kept, s)
		}
	}
	r.Throughput = kept
	if tables := resultTables(r); !strings.Contains(tables, "Not measured: bin/shale-server-debianlib (stat bin/shale-server-debianlib: no such file") {
		t.Errorf("no word of the missing build:\n%s", tables)
	}
	if h := headlines(r); strings.Contains(h, "two builds") {
		t.Errorf("a builds headline without the build:\n%s", h)
	}
}

// TestThroughputCSVs reads back the throughput CSV files: every row as
// long as its header (encoding/csv checks), and the CPU and memory columns
// where the header says.
func TestThroughputCSVs(t *testing.T) {
	r := &results{Opts: options{Out: t.TempDir()}}
	for round := 1; round <= 3; round++ {
		r.Throughput = append(r.Throughput,
			throughputSample{Round: round, Server: "shale", Test: "SET", ServerCPU: time.Duration(round) * 30 * time.Millisecond,
				benchResult: benchResult{Requests: 1000, RPS: 100, P50: 1, P99: 2, P999: 3}},
			throughputSample{Round: round, Server: debianlibServer, Test: "SET", ServerCPU: 90 * time.Millisecond,
				benchResult: benchResult{Requests: 1000, RPS: 50, P50: 1, P99: 2, P999: 3}},
			throughputSample{Round: round, Server: "redis", Test: "EVALSHA", benchResult: benchResult{Requests: 1000, RPS: 100, P50: 1, P99: 2, P999: 3}})
	}
	r.ThroughputMemory = []serverMemory{{Server: "shale", Peak: 230e6, RSS: 200e6}}
	if err := writeCSVs(r); err != nil {
		t.Fatal(err)
	}
	read := func(name string) []map[string]string {
		f, err := os.Open(filepath.Join(r.Opts.Out, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		records, err := csv.NewReader(f).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var rows []map[string]string
		for _, rec := range records[1:] {
			row := map[string]string{}
			for i, name := range records[0] {
				row[name] = rec[i]
			}
			rows = append(rows, row)
		}
		return rows
	}
	for _, tc := range []struct {
		file   string
		row    int
		column string
		want   string
	}{
		{"throughput_runs.csv", 0, "server_cpu_us_per_request", "30.00"},
		{"throughput_runs.csv", 3, "server_cpu_s", "0.06"},
		{"throughput_runs.csv", 3, "requests", "1000"},
		{"throughput_runs.csv", 2, "server_cpu_us_per_request", ""}, // not measured
		{"throughput.csv", 0, "shale_cpu_us_per_request", "60.00"},  // the median of 30, 60 and 90
		{"throughput.csv", 0, "redis_cpu_us_per_request", ""},
		{"throughput.csv", 1, "test", "EVALSHA"},
		{"builds.csv", 0, "shale_debianlib_cpu_us_per_request", "90.00"},
		{"throughput_memory.csv", 0, "peak_rss_bytes", "230000000"},
		{"throughput_memory.csv", 0, "rss_bytes_at_end", "200000000"},
	} {
		rows := read(tc.file)
		if tc.row >= len(rows) {
			t.Errorf("%s: %d rows, want row %d", tc.file, len(rows), tc.row)
			continue
		}
		if got, ok := rows[tc.row][tc.column]; !ok || got != tc.want {
			t.Errorf("%s row %d %s = %q (column present: %v), want %q", tc.file, tc.row, tc.column, got, ok, tc.want)
		}
	}
}
