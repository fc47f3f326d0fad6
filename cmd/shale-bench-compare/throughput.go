package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"os/exec"
	"sort"
	"strconv"
	"strings"
)

// mainTests are redis-benchmark's -t tests of the main workload.
const mainTests = "set,get,incr,lpush,rpush,lpop,sadd,hset,zadd,lrange_100"

// workload is one redis-benchmark invocation per server and round.
type workload struct {
	Suffix    string   // appended to each test name in the report: "", " -P16", " -d1024"
	Tests     string   // -t, for shale and redis
	Requests  int      // -n
	ExtraArgs []string // -P 16, -d 1024
	// Command, when set, is the one command redis-benchmark sends instead
	// of -t's tests (EVALSHA), after Setup (SCRIPT LOAD) ran once on the
	// server. The ceiling server does not run it.
	Command, Setup []string
}

// benchResult is one row of redis-benchmark's --csv output.
type benchResult struct {
	Test string  // SET, GET, LRANGE_100 ...
	RPS  float64 // requests per second
	P50  float64 // milliseconds
	P99  float64 // milliseconds
}

// parseBenchCSV parses redis-benchmark --csv output. It keeps the first
// word of each test name ("LRANGE_100 (first 100 elements)" is LRANGE_100)
// and drops the helper rows redis-benchmark adds, such as "LPUSH (needed to
// benchmark LRANGE)".
func parseBenchCSV(r io.Reader) ([]benchResult, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	rows, err := cr.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("redis-benchmark csv: %w", err)
	}
	col := map[string]int{}
	var out []benchResult
	for _, row := range rows {
		if len(row) > 0 && row[0] == "test" {
			for i, name := range row {
				col[name] = i
			}
			continue
		}
		if len(col) == 0 {
			return nil, fmt.Errorf("redis-benchmark csv: row %q before the header", row)
		}
		field := func(name string) (float64, error) {
			i, ok := col[name]
			if !ok || i >= len(row) {
				return 0, fmt.Errorf("redis-benchmark csv: no %q in %q", name, row)
			}
			return strconv.ParseFloat(row[i], 64)
		}
		if strings.Contains(row[0], "needed to benchmark") {
			continue
		}
		res := benchResult{Test: strings.Fields(row[0] + " ?")[0]}
		if res.RPS, err = field("rps"); err != nil {
			return nil, err
		}
		if res.P50, err = field("p50_latency_ms"); err != nil {
			return nil, err
		}
		if res.P99, err = field("p99_latency_ms"); err != nil {
			return nil, err
		}
		out = append(out, res)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("redis-benchmark csv: no results")
	}
	return out, nil
}

// runBenchmark runs redis-benchmark once against addr and parses its output.
func runBenchmark(bin, addr string, tests string, w workload, clients, keyspace int) ([]benchResult, error) {
	host, port, _ := strings.Cut(addr, ":")
	args := []string{"-h", host, "-p", port, "-c", strconv.Itoa(clients), "-r", strconv.Itoa(keyspace),
		"-n", strconv.Itoa(w.Requests), "--csv"}
	if w.Command == nil {
		args = append(args, "-t", tests)
	}
	args = append(args, w.ExtraArgs...)
	args = append(args, w.Command...)
	cmd := exec.Command(bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%v: %w\n%s", cmd.Args, err, stderr.String())
	}
	res, err := parseBenchCSV(&stdout)
	if err != nil {
		return nil, fmt.Errorf("%v: %w\nstderr: %s", cmd.Args, err, stderr.String())
	}
	return res, nil
}

// throughputSample is one redis-benchmark result of one server in one round.
type throughputSample struct {
	Round  int
	Server string
	Test   string // with the workload's suffix
	benchResult
}

// throughputRow summarizes one test: each server's median ops/s over the
// rounds.
type throughputRow struct {
	Test   string
	Median map[string]float64 // by server name; missing when it did not run
}

// summarizeThroughput takes each server's median over rounds, per test, in
// the order tests first appeared.
func summarizeThroughput(samples []throughputSample) []throughputRow {
	var order []string
	byTest := map[string]map[string][]float64{}
	for _, s := range samples {
		if byTest[s.Test] == nil {
			byTest[s.Test] = map[string][]float64{}
			order = append(order, s.Test)
		}
		byTest[s.Test][s.Server] = append(byTest[s.Test][s.Server], s.RPS)
	}
	rows := make([]throughputRow, 0, len(order))
	for _, test := range order {
		row := throughputRow{Test: test, Median: map[string]float64{}}
		for srv, v := range byTest[test] {
			row.Median[srv] = median(v)
		}
		rows = append(rows, row)
	}
	return rows
}

// median returns the middle value (the mean of the two middle values for an
// even count); 0 for none.
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
