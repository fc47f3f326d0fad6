package main

import (
	"bufio"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/redcon"
)

// redis-benchmark 7.0's --csv output for a few tests, helper row included.
const sampleCSV = `"test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
"SET","18416.21","1.968","0.248","0.983","5.839","11.959","55.327"
"LPUSH (needed to benchmark LRANGE)","11092.62","3.334","0.208","1.095","8.959","22.671","145.919"
"LRANGE_100 (first 100 elements)","10020.04","3.466","0.328","2.055","8.535","18.975","51.391"
`

func TestParseBenchCSV(t *testing.T) {
	got, err := parseBenchCSV(strings.NewReader(sampleCSV))
	if err != nil {
		t.Fatal(err)
	}
	want := []benchResult{
		{Test: "SET", RPS: 18416.21, P50: 0.983, P99: 11.959},
		{Test: "LRANGE_100", RPS: 10020.04, P50: 2.055, P99: 18.975},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	for _, bad := range []string{
		"",
		`"SET","1","2"` + "\n",
		`"test","rps"` + "\n" + `"SET","fast"` + "\n",
	} {
		if _, err := parseBenchCSV(strings.NewReader(bad)); err == nil {
			t.Errorf("parseBenchCSV(%q) succeeded", bad)
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

// TestCeilingServer drives the ceiling server over a raw connection.
func TestCeilingServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := redcon.NewServer("", newCeilingStore().handle, nil, nil)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close() })

	conn, err := net.Dial("tcp", ln.Addr().String())
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
		{"INCR k", "-ERR the ceiling server only serves PING, SET and GET"},
		{"GET", "-ERR the ceiling server only serves PING, SET and GET"},
	} {
		if _, err := conn.Write([]byte(step.send + "\r\n")); err != nil {
			t.Fatal(err)
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
