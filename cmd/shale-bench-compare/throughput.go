package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shaledb/shale/cmd/internal/benchhost"
)

// mainTests are redis-benchmark's -t tests of the main workload, each run
// on its own; LRANGE_100 follows them (lrangeFill, lrange100Command).
var mainTests = []string{"set", "get", "incr", "lpush", "rpush", "lpop", "sadd", "hset", "zadd"}

// lrangeFill and lrange100Command are redis-benchmark's LRANGE_100 test
// without its helper. `-t lrange_100` first sends -n "LPUSH mylist xxx"
// ("LPUSH (needed to benchmark LRANGE)") in the same invocation, whose
// server CPU would then count as LRANGE's; the harness sends those LPUSHes
// in an unmeasured invocation of their own first (Fill), then the very
// command -t lrange_100 sends.
var (
	lrangeFill       = []string{"LPUSH", "mylist", "xxx"}
	lrange100Command = []string{"LRANGE", "mylist", "0", "99"}
)

// workload is one redis-benchmark invocation per server and round, of one
// test, so that the server's CPU time over the invocation is that test's.
type workload struct {
	Suffix    string   // appended to the test's name in the report: "", " -P16", " -d1024"
	Test      string   // -t, unless Command is set
	Requests  int      // -n
	ExtraArgs []string // -P 16, -d 1024
	// Command, when set, is the one command redis-benchmark sends instead
	// of a -t test (EVALSHA), after Setup (SCRIPT LOAD) ran once on the
	// server.
	Command, Setup []string
	// Name, when set, names the test in the report instead of Command's
	// first word (LRANGE_100 for "LRANGE mylist 0 99").
	Name string
	// Fill, when set, is a command redis-benchmark sends Requests times on
	// the same server right before the measured invocation, unmeasured and
	// unreported (LRANGE_100's list).
	Fill []string
	// Ceiling: the ceiling server runs it too (it serves the main tests'
	// commands only). BothBuilds: the Debian-library Shale runs it too.
	Ceiling, BothBuilds bool
}

// label names the invocation in the harness's log.
func (w workload) label() string {
	name := strings.ToUpper(w.Test) // as redis-benchmark names it
	if w.Command != nil {
		name = or(w.Name, w.Command[0])
	}
	return name + w.Suffix
}

// fill is the unmeasured invocation that runs before w, if w has a Fill.
func (w workload) fill() workload {
	return workload{Requests: w.Requests, Command: w.Fill}
}

// debianlibServer names the Debian-library Shale in the results.
const debianlibServer = "shale-debianlib"

// benchResult is one test's result: its rate and latency percentiles.
type benchResult struct {
	Test     string  // SET, GET, LRANGE_100 ...
	Requests int64   // requests completed; 0 when not counted (the Go-driven loads)
	RPS      float64 // requests per second
	P50      float64 // milliseconds
	P99      float64 // milliseconds
	P999     float64 // milliseconds; p99.9
}

// parseBenchOutput parses redis-benchmark 7.0's default output (neither
// --csv nor -q), one block per test:
//
//	====== SET ======
//	  100000 requests completed in 2.01 seconds
//	  ...
//	Latency by percentile distribution:
//	50.000% <= 0.583 milliseconds (cumulative count 50390)
//	...
//	99.902% <= 3.615 milliseconds (cumulative count 99903)
//	...
//	Cumulative distribution of latencies:
//	0.140% <= 0.207 milliseconds (cumulative count 140)
//	...
//	Summary:
//	  throughput summary: 52631.58 requests per second
//	  latency summary (msec):
//	          avg       min       p50       p95       p99       max
//	        0.608     0.136     0.583     0.919     1.767     3.663
//
// --csv has the same rate, p50 and p99 (the summary's, read from its
// HdrHistogram exactly) but no p99.9, and the summary has none either.
// Both distribution sections list points of the same histogram (a
// latency and how many requests took at most that long), so P999 is the
// smallest latency listed with at least 99.9% of the requests at or below
// it: an upper bound on the true p99.9. redis-benchmark's own percentile
// steps (…, 99.805%, 99.902%, …) usually keep it within a few requests
// (99.902% of 100,000 is 2 past 99.9%); with -P, whose requests complete
// in groups, the listed steps can be coarser. The total is the
// histogram's, the largest cumulative count: with -P it can be a little
// below "requests completed".
//
// Like the test names of --csv, only the first word of a title is kept
// ("LRANGE_100 (first 100 elements)" is LRANGE_100; a command line given
// instead of -t is its command's name), and the helper runs
// redis-benchmark adds, such as "LPUSH (needed to benchmark LRANGE)", are
// dropped. Progress lines, which redis-benchmark ends with a carriage
// return, are skipped.
func parseBenchOutput(r io.Reader) ([]benchResult, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var out []benchResult
	var cur *benchBlock
	finish := func() error {
		if cur == nil || cur.helper {
			return nil
		}
		res, err := cur.result()
		if err != nil {
			return fmt.Errorf("redis-benchmark output, test %q: %w", cur.title, err)
		}
		out = append(out, res)
		return nil
	}
	lines := strings.FieldsFunc(string(data), func(c rune) bool { return c == '\n' || c == '\r' })
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if title, ok := strings.CutPrefix(line, "====== "); ok {
			if err := finish(); err != nil {
				return nil, err
			}
			title = strings.TrimSuffix(title, " ======")
			cur = &benchBlock{title: title, helper: strings.Contains(title, "needed to benchmark")}
			continue
		}
		if cur == nil {
			continue
		}
		if err := cur.parseLine(line, lines[i+1:]); err != nil {
			return nil, fmt.Errorf("redis-benchmark output, test %q: %w", cur.title, err)
		}
	}
	if err := finish(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("redis-benchmark output: no results")
	}
	return out, nil
}

// benchBlock collects one test's block of redis-benchmark output.
type benchBlock struct {
	title    string
	helper   bool               // a run another test needs, not reported
	requests int64              // 0 until "N requests completed"
	rps      float64            // 0 until the throughput summary
	summary  map[string]float64 // the latency summary, by column name: avg, min, p50, p95, p99, max
	points   []cumulativePoint  // both distribution sections
}

// cumulativePoint is one line of a distribution section: count requests
// took at most ms milliseconds.
type cumulativePoint struct {
	ms    float64
	count int64
}

// parseLine reads one trimmed line of the block; next are the lines after
// it, where the latency summary's values follow its column names.
func (b *benchBlock) parseLine(line string, next []string) error {
	switch {
	case strings.Contains(line, " requests completed in "):
		// 100000 requests completed in 2.01 seconds (-P 16 can overshoot -n)
		if _, err := fmt.Sscanf(line, "%d requests completed", &b.requests); err != nil {
			return fmt.Errorf("bad line %q: %w", line, err)
		}
	case strings.HasPrefix(line, "throughput summary:"):
		f := strings.Fields(line)
		if len(f) < 3 {
			return fmt.Errorf("bad line %q", line)
		}
		v, err := strconv.ParseFloat(f[2], 64)
		if err != nil {
			return fmt.Errorf("bad line %q: %w", line, err)
		}
		b.rps = v
	case strings.HasPrefix(line, "avg") && strings.Contains(line, "p99"):
		if len(next) == 0 {
			return fmt.Errorf("no values after %q", line)
		}
		names, values := strings.Fields(line), strings.Fields(next[0])
		if len(names) != len(values) {
			return fmt.Errorf("latency summary %q does not match %q", next[0], line)
		}
		b.summary = map[string]float64{}
		for i, name := range names {
			v, err := strconv.ParseFloat(values[i], 64)
			if err != nil {
				return fmt.Errorf("latency summary %q: %w", next[0], err)
			}
			b.summary[name] = v
		}
	case strings.Contains(line, "% <= ") && strings.HasSuffix(line, ")"):
		// 99.902% <= 3.615 milliseconds (cumulative count 4996)
		var pct, ms float64
		var count int64
		if _, err := fmt.Sscanf(line, "%f%% <= %f milliseconds (cumulative count %d)", &pct, &ms, &count); err != nil {
			return fmt.Errorf("bad distribution line %q: %w", line, err)
		}
		b.points = append(b.points, cumulativePoint{ms, count})
	}
	return nil
}

// result is the block's benchResult; an error when a part is missing.
func (b *benchBlock) result() (benchResult, error) {
	res := benchResult{Test: strings.Fields(b.title + " ?")[0], Requests: b.requests, RPS: b.rps}
	if b.rps == 0 {
		return res, errors.New("no throughput summary")
	}
	if b.requests == 0 {
		return res, errors.New("no count of requests completed")
	}
	var ok50, ok99 bool
	res.P50, ok50 = b.summary["p50"]
	res.P99, ok99 = b.summary["p99"]
	if !ok50 || !ok99 {
		return res, errors.New("no latency summary with p50 and p99")
	}
	var err error
	if res.P999, err = percentileOfPoints(b.points, 99.9); err != nil {
		return res, err
	}
	return res, nil
}

// percentileOfPoints is the smallest latency of points with at least p
// percent of the requests at or below it, the total being the largest
// cumulative count.
func percentileOfPoints(points []cumulativePoint, p float64) (float64, error) {
	var total int64
	for _, pt := range points {
		total = max(total, pt.count)
	}
	if total == 0 {
		return 0, errors.New("no latency distribution")
	}
	want := benchhost.RankOf(total, p)
	best := math.Inf(1)
	for _, pt := range points {
		if pt.count >= want {
			best = min(best, pt.ms)
		}
	}
	return best, nil
}

// runBenchmark runs redis-benchmark once against addr and parses its
// output, naming the test w.Name when set.
func runBenchmark(bin, addr string, w workload, clients, keyspace int) ([]benchResult, error) {
	host, port, _ := strings.Cut(addr, ":")
	args := []string{"-h", host, "-p", port, "-c", strconv.Itoa(clients), "-r", strconv.Itoa(keyspace),
		"-n", strconv.Itoa(w.Requests)}
	if w.Command == nil {
		args = append(args, "-t", w.Test)
	}
	args = append(args, w.ExtraArgs...)
	args = append(args, w.Command...)
	cmd := exec.Command(bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%v: %w\n%s", cmd.Args, err, stderr.String())
	}
	res, err := parseBenchOutput(&stdout)
	if err != nil {
		return nil, fmt.Errorf("%v: %w\nstderr: %s", cmd.Args, err, stderr.String())
	}
	if w.Name != "" {
		for i := range res {
			res[i].Test = w.Name
		}
	}
	return res, nil
}

// throughputSample is one redis-benchmark result of one server in one round.
type throughputSample struct {
	Round  int
	Server string
	Test   string // with the workload's suffix
	benchResult
	// ServerCPU is the server process's CPU time (user and system, all
	// threads) over the invocation; 0 when not measured.
	ServerCPU time.Duration
}

// cpuMicrosPerRequest is the server's CPU time per request completed, in
// microseconds; 0 when not measured.
func (s throughputSample) cpuMicrosPerRequest() float64 {
	if s.ServerCPU == 0 || s.Requests == 0 {
		return 0
	}
	return float64(s.ServerCPU.Nanoseconds()) / 1e3 / float64(s.Requests)
}

// throughputRow summarizes one test: each server's medians over the
// rounds of its ops/s, of each latency percentile and of its CPU time per
// request.
type throughputRow struct {
	Test           string
	Median         map[string]float64 // ops/s by server name; missing when it did not run
	P50, P99, P999 map[string]float64 // milliseconds, by server name
	CPU            map[string]float64 // server CPU µs per request, by server name; missing when not measured
}

// summarizeThroughput takes each server's medians over rounds, per test,
// in the order tests first appeared.
func summarizeThroughput(samples []throughputSample) []throughputRow {
	var order []string
	byTest := map[string]map[string][]throughputSample{}
	for _, s := range samples {
		if byTest[s.Test] == nil {
			byTest[s.Test] = map[string][]throughputSample{}
			order = append(order, s.Test)
		}
		byTest[s.Test][s.Server] = append(byTest[s.Test][s.Server], s)
	}
	rows := make([]throughputRow, 0, len(order))
	for _, test := range order {
		row := throughputRow{Test: test, Median: map[string]float64{},
			P50: map[string]float64{}, P99: map[string]float64{}, P999: map[string]float64{}, CPU: map[string]float64{}}
		for srv, runs := range byTest[test] {
			of := func(field func(throughputSample) float64) float64 {
				v := make([]float64, len(runs))
				for i, run := range runs {
					v[i] = field(run)
				}
				return median(v)
			}
			row.Median[srv] = of(func(s throughputSample) float64 { return s.RPS })
			row.P50[srv] = of(func(s throughputSample) float64 { return s.P50 })
			row.P99[srv] = of(func(s throughputSample) float64 { return s.P99 })
			row.P999[srv] = of(func(s throughputSample) float64 { return s.P999 })
			if cpu := of(throughputSample.cpuMicrosPerRequest); cpu > 0 {
				row.CPU[srv] = cpu
			}
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
