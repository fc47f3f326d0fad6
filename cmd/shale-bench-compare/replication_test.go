package main

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/shaledb/shale/cmd/internal/benchhost"
)

func TestMarkerLags(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	acks := []time.Time{at(0), at(5), at(10), at(15)} // markers 1 to 4
	for _, tc := range []struct {
		name       string
		seen       []sighting
		end        time.Time
		want       []time.Duration // milliseconds
		wantUnseen int
	}{
		{"each seen", []sighting{{1, at(1)}, {2, at(7)}, {3, at(13)}, {4, at(16)}}, at(20),
			[]time.Duration{1, 2, 3, 1}, 0},
		{"a later marker covers the skipped ones", []sighting{{3, at(12)}, {4, at(30)}}, at(40),
			[]time.Duration{12, 7, 2, 15}, 0},
		{"seen before its acknowledgement", []sighting{{2, at(4)}, {4, at(15)}}, at(20),
			[]time.Duration{4, 0, 5, 0}, 0},
		{"never seen: lower bounds to the end", []sighting{{2, at(6)}}, at(25),
			[]time.Duration{6, 1, 15, 10}, 2},
		{"nothing seen", nil, at(15), []time.Duration{15, 10, 5, 0}, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, unseen := markerLags(acks, tc.seen, tc.end)
			if unseen != tc.wantUnseen {
				t.Errorf("unseen = %d, want %d", unseen, tc.wantUnseen)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("lags = %v, want %v ms", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i]*time.Millisecond {
					t.Errorf("marker %d: lag %v, want %v ms", i+1, got[i], tc.want[i])
				}
			}
		})
	}
}

func TestPercentile(t *testing.T) {
	var d []time.Duration
	for i := 100; i >= 1; i-- { // unsorted on purpose
		d = append(d, time.Duration(i))
	}
	for _, tc := range []struct {
		p    float64
		want time.Duration
	}{{50, 50}, {99, 99}, {100, 100}, {1, 1}} {
		if got := percentile(d, tc.p); got != tc.want {
			t.Errorf("p%v = %v, want %v", tc.p, got, tc.want)
		}
	}
	if d[0] != 100 {
		t.Error("percentile sorted its argument")
	}
	if got := percentile([]time.Duration{7}, 99); got != 7 {
		t.Errorf("p99 of one = %v", got)
	}
	if got := percentile(nil, 50); got != 0 {
		t.Errorf("p50 of none = %v", got)
	}
}

func TestReplicationReport(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, n := range v {
			out[i] = time.Duration(n) * time.Millisecond
		}
		return out
	}
	r := &results{Opts: options{Repl: replConfig{LagDrain: time.Minute}}}
	r.ReplLag = []lagRun{
		{Server: "shale", Round: 1, Lags: ms(10, 20, 30), WritesPerSec: 100},
		{Server: "redis", Round: 1, Lags: ms(1, 1, 2), WritesPerSec: 400},
		{Server: "shale", Round: 2, Lags: ms(40), WritesPerSec: 300, Unseen: 1},
	}
	r.FullSync = []fullSyncRun{
		{Server: "shale", Transfer: "RocksDB checkpoint", Keys: 16, Bytes: 200 << 20, Seconds: 2},
		{Server: "redis", Transfer: "disk RDB", Keys: 16, Bytes: 200 << 20, Seconds: 4},
	}
	sum := summarizeLag(r.ReplLag)
	if s := sum["shale"]; s.Markers != 4 || s.Unseen != 1 || s.P50 != 20*time.Millisecond || s.Max != 40*time.Millisecond || s.WritesPerSec != 200 {
		t.Errorf("shale summary = %+v", s)
	}
	if s := sum["redis"]; s.Markers != 3 || s.P50 != time.Millisecond || s.P99 != 2*time.Millisecond {
		t.Errorf("redis summary = %+v", s)
	}
	tables := replicationTables(r)
	for _, want := range []string{
		"| lag p50 | ≥ 20 ms | 1 ms | ≥ 20.00 |", // shale's lower bound marks its figures and ratio
		"| 1 | redis | 400 | 3 | 1 ms | 2 ms | 2 ms |",
		"| shale | RocksDB checkpoint | 200.0 MiB (16 keys) | 2.00 s | 100 | – |",
		"| redis | disk RDB | 200.0 MiB (16 keys) | 4.00 s | 50 | 2.00 |",
	} {
		if !strings.Contains(tables, want) {
			t.Errorf("tables lack %q:\n%s", want, tables)
		}
	}
	if h := headlines(r); !strings.Contains(h, "Shale 100 MiB/s by RocksDB checkpoint, Redis 50 MiB/s by disk RDB") {
		t.Errorf("headlines:\n%s", h)
	}
}

// TestReplicationPhasesAgainstRedis runs both phases' measurements, much
// shortened, on Redis pairs (about 5 s): the harness's side of them (the
// REPLICAOF wait, the markers, the load's start and kill, the data set and
// its check) against a server that implements replication as specified.
func TestReplicationPhasesAgainstRedis(t *testing.T) {
	o := options{RedisBin: "/usr/bin/redis-server", BenchBin: "/usr/bin/redis-benchmark", Clients: 4, Keyspace: 1000}
	for _, bin := range []string{o.RedisBin, o.BenchBin} {
		if _, err := os.Stat(bin); err != nil {
			t.Skipf("%s: %v", bin, err)
		}
	}
	if testing.Short() {
		t.Skip("starts redis-server processes")
	}
	o.Repl = replConfig{LagFor: 2 * time.Second, MarkEvery: 5 * time.Millisecond, SyncBytes: 4 << 20, SyncValue: 64 << 10,
		SyncMax: time.Minute, LagDrain: 10 * time.Second, PollPause: 200 * time.Microsecond, LoadConns: 2, LoadPipe: 4}
	ctx := context.Background()
	t.Cleanup(func() { benchhost.StopAll(stopTimeout) })
	work := t.TempDir()

	p, err := startPair(ctx, o, work, "redis")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	for round := 1; round <= 2; round++ { // the second counts on from the first's markers
		run, err := measureLag(ctx, o, p)
		if err != nil {
			t.Fatal(err)
		}
		// A 5 ms cadence for 2 s sends at most 400 markers; a loaded
		// primary acknowledges fewer.
		if n := len(run.Lags); n < 50 || n > 400 || run.Unseen != 0 {
			t.Errorf("round %d: %d markers, %d unseen", round, n, run.Unseen)
		}
		if p99 := percentile(run.Lags, 99); p99 > time.Second {
			t.Errorf("round %d: p99 lag %v: a local Redis replica keeps up far better", round, p99)
		}
		if run.WritesPerSec < 1000 || run.FullSyncs != 0 {
			t.Errorf("round %d: %.0f writes/s, %d full syncs", round, run.WritesPerSec, run.FullSyncs)
		}
	}

	primary, err := startRedis(o, work)
	if err != nil {
		t.Fatal(err)
	}
	defer primary.Stop()
	runs, err := fullSyncs(ctx, o, work, primary, 64)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[0].Keys != 64 || runs[0].Seconds <= 0 || runs[1].Transfer != "disk RDB" {
		t.Errorf("full syncs = %+v", runs)
	}
}
