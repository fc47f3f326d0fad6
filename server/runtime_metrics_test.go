package server

import (
	"context"
	"math"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/shaledb/shale/server/store"
)

// percentilesRe matches a percentilesUsec value, for the INFO tests.
const percentilesRe = `p50=\d+\.\d{3},p99=\d+\.\d{3},p99\.9=\d+\.\d{3},max=\d+\.\d{3}`

func TestPercentilesUsec(t *testing.T) {
	tests := []struct {
		name string
		h    store.Histogram
		want string
	}{
		{"empty", store.Histogram{}, "p50=0.000,p99=0.000,p99.9=0.000,max=0.000"},
		{"one bucket", store.Histogram{Counts: []uint64{0, 10, 0}, Bounds: []float64{0, 0.001, 0.002, math.Inf(1)}},
			"p50=1500.000,p99=1990.000,p99.9=1999.000,max=2000.000"},
		{"a tail", store.Histogram{Counts: []uint64{98, 2}, Bounds: []float64{0, 0.001, 0.010}},
			"p50=510.204,p99=5500.000,p99.9=9550.000,max=10000.000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := percentilesUsec(tt.h); got != tt.want {
				t.Errorf("percentilesUsec = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestLatencyFigures: a command that waits for a busy key lock shows in
// INFO latency and in the /metrics histogram, which agree; a forced GC
// shows its pauses in both.
func TestLatencyFigures(t *testing.T) {
	s, c := startAdminServer(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	unlock := s.st.Lock(store.LockKey{DB: 0, Key: []byte("k")})
	done := make(chan error, 1)
	go func() { done <- c.Do(ctx, "SET", "k", "v").Err() }()
	time.Sleep(20 * time.Millisecond) // the SET now waits for the stripe
	unlock()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	runtime.GC()

	info := make(map[string]string)
	for _, line := range strings.Split(c.Do(ctx, "INFO", "latency").Val().(string), "\r\n") {
		if name, v, ok := strings.Cut(line, ":"); ok {
			info[name] = v
		}
	}
	metrics := gatherLatency(t, s)
	for _, tt := range []struct {
		field, metric string
		least         uint64
	}{
		{"key_lock_wait_count", "shale_key_lock_wait_seconds", 1},
		{"go_gc_pauses", "shale_go_gc_pause_seconds", 2}, // a cycle stops the world twice
	} {
		n, err := strconv.ParseUint(info[tt.field], 10, 64)
		if err != nil || n < tt.least {
			t.Errorf("INFO %s:%s, want at least %d", tt.field, info[tt.field], tt.least)
		}
		h, ok := metrics[tt.metric]
		if !ok {
			t.Errorf("no histogram %s", tt.metric)
			continue
		}
		// The GC may run between INFO and the scrape, never backwards.
		if h.count < n || (tt.field == "key_lock_wait_count" && h.count != n) {
			t.Errorf("%s count %d, INFO %s %d", tt.metric, h.count, tt.field, n)
		}
		if h.buckets != len(waitBoundsSeconds) || h.lastBucket > h.count {
			t.Errorf("%s: %d buckets, the last holding %d of %d", tt.metric, h.buckets, h.lastBucket, h.count)
		}
	}
	if sec, _ := strconv.ParseFloat(info["key_lock_wait_seconds"], 64); sec <= 0 || sec > 10 {
		t.Errorf("key_lock_wait_seconds:%s after one wait of about 20ms", info["key_lock_wait_seconds"])
	}
	if p := info["go_gc_pause_percentiles_usec"]; !strings.HasPrefix(p, "p50=") || strings.HasPrefix(p, "p50=0.000") {
		t.Errorf("go_gc_pause_percentiles_usec:%s after runtime.GC", p)
	}
	for _, name := range []string{"shale_queue_wait_seconds", "shale_go_sched_latency_seconds"} {
		if _, ok := metrics[name]; !ok {
			t.Errorf("no histogram %s in /metrics", name)
		}
	}
}

// gatheredHistogram is what the test checks of a gathered histogram.
type gatheredHistogram struct {
	count, lastBucket uint64 // observations; those in the last finite bucket and below
	buckets           int
}

// gatherLatency collects the server's metrics as /metrics would, and gives
// the histograms by name (the first series of each).
func gatherLatency(t *testing.T, s *Server) map[string]gatheredHistogram {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(&collector{s: s})
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]gatheredHistogram)
	for _, f := range families {
		h := f.GetMetric()[0].GetHistogram()
		if h == nil {
			continue
		}
		g := gatheredHistogram{count: h.GetSampleCount(), buckets: len(h.GetBucket())}
		if g.buckets > 0 {
			g.lastBucket = h.GetBucket()[g.buckets-1].GetCumulativeCount()
		}
		out[f.GetName()] = g
	}
	return out
}
