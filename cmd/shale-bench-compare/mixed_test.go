package main

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shaledb/shale/cmd/internal/benchhost"
)

func TestPickOp(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const draws = 100000
	var n [4]int
	for range draws {
		n[pickOp(rng)]++
	}
	reads := float64(n[opGet]+n[opHGet]) / draws
	if reads < 0.69 || reads > 0.71 {
		t.Errorf("reads are %.3f of the requests, want %.2f", reads, mixedReadPercent/100.0)
	}
	for op, count := range n {
		if count == 0 {
			t.Errorf("op %d never drawn", op)
		}
	}
	if n[opGet] < n[opSet] || n[opHGet] < n[opHSet] {
		t.Errorf("draws %v: reads of each type should outnumber its writes", n)
	}
}

func TestEventWindow(t *testing.T) {
	for _, tc := range []struct {
		at       float64
		from, to int
	}{
		{6.4, 5, 15},
		{30.0, 29, 39},
		{0.5, -1, 9}, // timeline.window clips it to the load
	} {
		if from, to := eventWindow(tc.at); from != tc.from || to != tc.to {
			t.Errorf("eventWindow(%v) = [%d, %d), want [%d, %d)", tc.at, from, to, tc.from, tc.to)
		}
	}
}

func TestPadded(t *testing.T) {
	if got := string(appendPadded([]byte("k:"), 42, 5)); got != "k:00042" {
		t.Errorf("appendPadded = %q", got)
	}
	b := []byte("key:000000000000")
	putPadded(b[4:], 123456789012)
	if string(b) != "key:123456789012" {
		t.Errorf("putPadded = %q", b)
	}
}

func TestInfoFigures(t *testing.T) {
	before := "# Memory\r\nused_memory:1\r\ngo_gc_cycles:3\r\ngo_gc_pause_total_us:100\r\n# Rocksdb\r\nwrite_stalls:0\r\nwrite_stall_seconds:0.000\r\n"
	after := "# Memory\r\nused_memory:2\r\ngo_gc_cycles:9\r\ngo_gc_pause_total_us:700\r\n# Rocksdb\r\nwrite_stalls:2\r\nwrite_stall_seconds:1.500\r\n" +
		"# Stats\r\nqueue_wait_p99_us:40\r\n"
	got := infoFigures(before, after)
	want := []infoFigure{
		{"go_gc_cycles", "3", "9"},
		{"go_gc_pause_total_us", "100", "700"},
		{"go_sched_*", "n/a", "n/a"},
		{"write_stalls", "0", "2"},
		{"write_stall_seconds", "0.000", "1.500"},
		{"queue_wait_p99_us", "n/a", "40"}, // appeared: the field is new in the later reply
		{"key_lock_wait_*", "n/a", "n/a"},
		{"go_gc_pause_max_recent_us", "n/a", "n/a"}, // named, and missing
	}
	if len(got) != len(want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("figure %d = %v, want %v", i, got[i], want[i])
		}
	}
}

// mixedRunOf makes a run whose windows hold the given latencies.
func mixedRunOf(server string, whole, del []time.Duration, compact bool) mixedRun {
	window := func(from, to float64, lat []time.Duration) *mixedWindow {
		var h benchhost.Histogram
		for _, d := range lat {
			h.Record(d)
		}
		w := &mixedWindow{From: from, To: to}
		w.Counts.Add(&h)
		return w
	}
	run := mixedRun{Round: 1, Server: server, CompactAt: -1, BuildAt: 6, BuildSeconds: 3.5, DelAt: 9.6, Del: 2 * time.Millisecond,
		Windows:  map[string]*mixedWindow{windowWhole: window(0, 10, whole), windowDel: window(8, 18, del)},
		Timeline: []mixedSecond{{Requests: 10, P99: time.Millisecond}, {}, {Requests: 10, P99: 3 * time.Millisecond}}}
	if compact {
		run.CompactAt, run.Compact = 30, 4*time.Second
		run.Windows[windowCompact] = window(29, 39, del)
		run.Info = []infoFigure{{"go_gc_pause_total_us", "100", "700"}, {"queue_wait_*", "n/a", "n/a"}}
	}
	return run
}

func TestMixedReport(t *testing.T) {
	ms := func(n int, d time.Duration) []time.Duration {
		out := make([]time.Duration, n)
		for i := range out {
			out[i] = d
		}
		return out
	}
	r := &results{Opts: options{Mixed: mixedConfig{Clients: 50, Rounds: 1, BigFields: 1000000}}}
	r.Mixed = []mixedRun{
		// Shale: 1000 requests in 10 s, all 1 ms; around the DEL, 990
		// at 1 ms and 10 at 100 ms.
		mixedRunOf("shale", ms(1000, time.Millisecond), append(ms(990, time.Millisecond), ms(10, 100*time.Millisecond)...), true),
		mixedRunOf("redis", ms(2000, time.Millisecond/2), ms(2000, time.Millisecond/2), false),
	}
	tables := mixedTables(r)
	for _, want := range []string{
		"| whole run | 100 | 200 | 0.50 | 1.00 / 0.50 | 1.00 / 0.50 | 1.00 / 0.50 |",
		"| 10 s around DEL | 100 | 200 | 0.50 | 1.00 / 0.50 | 1.00 / 0.50 | 100.",
		"| 10 s around COMPACT | 100 | – | – | 1.00 / – |",
		"| 1 | shale | 10 s | from 6.0 s in 3.5 s | 9.6 s | 2 ms | 30.0 s | 4 s |",
		"| 1 | redis | 10 s | from 6.0 s in 3.5 s | 9.6 s | 2 ms | – | – |",
		"| `queue_wait_*` | n/a | n/a |",
	} {
		if !strings.Contains(tables, want) {
			t.Errorf("tables lack %q:\n%s", want, tables)
		}
	}
	if h := headlines(r); !strings.Contains(h, "10 s around DEL: Shale p99 1.00 ms, p99.9 100.") {
		t.Errorf("headlines:\n%s", h)
	}
	p, w, h, err := plotMixed(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Save(w, h, filepath.Join(t.TempDir(), "mixed.png")); err != nil {
		t.Fatal(err)
	}
}

// TestMixedAgainstRedis runs the mixed load, much shortened, on Redis
// (about 10 s: the DEL window's end bounds it): the preload, the clients'
// requests and checks, the big hash's build and DEL, and the windows.
func TestMixedAgainstRedis(t *testing.T) {
	o := options{RedisBin: "/usr/bin/redis-server"}
	if _, err := os.Stat(o.RedisBin); err != nil {
		t.Skipf("%s: %v", o.RedisBin, err)
	}
	if testing.Short() {
		t.Skip("starts a redis-server process")
	}
	t.Cleanup(func() { benchhost.StopAll(stopTimeout) })
	s, err := startRedis(o, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	cfg := mixedConfig{For: 2 * time.Second, Clients: 4, Rounds: 1, StringKeys: 1000, Hashes: 20, HashFields: 50, ValueBytes: 16, BigFields: 5000}
	run, err := runMixed(context.Background(), s, cfg)
	if err != nil {
		t.Fatal(err)
	}
	whole, del := run.Windows[windowWhole], run.Windows[windowDel]
	if whole == nil || del == nil || run.Windows[windowCompact] != nil || run.CompactAt >= 0 {
		t.Fatalf("windows %v, COMPACT at %v: want the whole run and DEL's only", run.Windows, run.CompactAt)
	}
	_, delEnd := eventWindow(run.DelAt)
	if whole.From != 0 || whole.To < float64(delEnd) || whole.To > float64(delEnd)+2 {
		t.Errorf("the load ran [%v, %v) s; the DEL window ends at %d s", whole.From, whole.To, delEnd)
	}
	if run.DelAt < cfg.For.Seconds()/10 || run.Del <= 0 {
		t.Errorf("DEL at %v s took %v", run.DelAt, run.Del)
	}
	if whole.Counts.Total() < 1000 || del.Counts.Total() == 0 || del.Counts.Total() > whole.Counts.Total() {
		t.Errorf("requests: %d in the run, %d around the DEL", whole.Counts.Total(), del.Counts.Total())
	}
	var sum int64
	for _, sec := range run.Timeline {
		sum += sec.Requests
	}
	if len(run.Timeline) != int(whole.To) || sum != whole.Counts.Total() {
		t.Errorf("timeline: %d seconds of %d requests; the run: %v s of %d", len(run.Timeline), sum, whole.To, whole.Counts.Total())
	}
	if p := whole.Counts.Percentile(99.9); p <= 0 || p > 5*time.Second {
		t.Errorf("p99.9 = %v", p)
	}
	if len(run.Info) != 0 {
		t.Errorf("INFO figures read from Redis: %v", run.Info)
	}
}
