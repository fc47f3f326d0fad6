package server

import (
	"math"
	"runtime/metrics"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/shaledb/shale/server/store"
)

// INFO latency and its /metrics twins: where a request's time goes besides
// its own work. The store's waits (the write queue, busy key locks) come
// from store.WaitStats; the Go runtime's (stop-the-world GC pauses, GC
// work charged to allocating goroutines, runnable goroutines waiting for a
// P) from runtime/metrics, read when asked, which costs the hot path
// nothing. Every figure counts from start-up. docs/LATENCY.md uses them to
// attribute the tail; docs/OPERATIONS.md lists them.

// The runtime/metrics names read. /sched/latencies is sampled by the
// runtime (one goroutine switch in several), which leaves its shape true.
const (
	rmGCPauses       = "/sched/pauses/total/gc:seconds"
	rmSchedLatencies = "/sched/latencies:seconds"
	rmGCCPU          = "/cpu/classes/gc/total:cpu-seconds"
	rmGCAssistCPU    = "/cpu/classes/gc/mark/assist:cpu-seconds"
	rmTotalCPU       = "/cpu/classes/total:cpu-seconds"
	rmIdleCPU        = "/cpu/classes/idle:cpu-seconds"
	rmGOGC           = "/gc/gogc:percent"
	rmGOMEMLIMIT     = "/gc/gomemlimit:bytes"
	rmGOMAXPROCS     = "/sched/gomaxprocs:threads"
)

// runtimeFigures are the Go runtime's figures INFO latency reports. The
// CPU figures are the runtime's estimates, comparable with each other
// only, not with used_cpu_user.
type runtimeFigures struct {
	gcPauses       store.Histogram // each stop-the-world GC pause
	schedLatencies store.Histogram // each time a runnable goroutine waited to run
	gcCPU          float64         // seconds of CPU the collector used, assists included
	gcAssistCPU    float64         // seconds of it charged to goroutines that allocated
	busyCPU        float64         // seconds of CPU Go code and the runtime used
	gogc           uint64          // GOGC, percent
	memLimit       uint64          // GOMEMLIMIT, bytes; math.MaxInt64 when unset
	gomaxprocs     uint64
}

func readRuntimeFigures() runtimeFigures {
	samples := []metrics.Sample{
		{Name: rmGCPauses}, {Name: rmSchedLatencies}, {Name: rmGCCPU}, {Name: rmGCAssistCPU},
		{Name: rmTotalCPU}, {Name: rmIdleCPU}, {Name: rmGOGC}, {Name: rmGOMEMLIMIT}, {Name: rmGOMAXPROCS},
	}
	metrics.Read(samples)
	var f runtimeFigures
	var total, idle float64
	for _, s := range samples {
		switch s.Value.Kind() {
		case metrics.KindFloat64Histogram:
			h := s.Value.Float64Histogram()
			hist := store.Histogram{Counts: h.Counts, Bounds: h.Buckets}
			if s.Name == rmGCPauses {
				f.gcPauses = hist
			} else {
				f.schedLatencies = hist
			}
		case metrics.KindFloat64:
			v := s.Value.Float64()
			switch s.Name {
			case rmGCCPU:
				f.gcCPU = v
			case rmGCAssistCPU:
				f.gcAssistCPU = v
			case rmTotalCPU:
				total = v
			case rmIdleCPU:
				idle = v
			}
		case metrics.KindUint64:
			v := s.Value.Uint64()
			switch s.Name {
			case rmGOGC:
				f.gogc = v
			case rmGOMEMLIMIT:
				f.memLimit = v
			case rmGOMAXPROCS:
				f.gomaxprocs = v
			}
		}
		// KindBad: a name this Go does not have; its figure stays 0.
	}
	f.busyCPU = total - idle
	return f
}

// infoLatency is INFO's latency section, Shale's own.
func infoLatency(s *Server, w *infoWriter) {
	waits := s.st.WaitStats()
	for _, h := range []struct {
		name string
		h    store.Histogram
	}{{"queue_wait", waits.Queue}, {"key_lock_wait", waits.KeyLock}} {
		w.uint(h.name+"_count", h.h.Count())
		w.str(h.name+"_seconds", strconv.FormatFloat(h.h.Sum, 'f', 6, 64))
		w.str(h.name+"_percentiles_usec", percentilesUsec(h.h))
	}
	w.uint("queue_writes", waits.QueueWrites)
	rt := readRuntimeFigures()
	w.uint("go_gc_pauses", rt.gcPauses.Count())
	w.str("go_gc_pause_percentiles_usec", percentilesUsec(rt.gcPauses))
	w.str("go_gc_cpu_seconds", strconv.FormatFloat(rt.gcCPU, 'f', 6, 64))
	w.str("go_gc_assist_cpu_seconds", strconv.FormatFloat(rt.gcAssistCPU, 'f', 6, 64))
	fraction := 0.0
	if rt.busyCPU > 0 {
		fraction = rt.gcCPU / rt.busyCPU
	}
	w.str("go_gc_cpu_fraction", strconv.FormatFloat(fraction, 'f', 4, 64))
	w.str("go_sched_latency_percentiles_usec", percentilesUsec(rt.schedLatencies))
	w.int("go_gogc", int64(rt.gogc)) // GOGC=off reads as -1
	if rt.memLimit == math.MaxInt64 {
		w.uint("go_gomemlimit", 0)
	} else {
		w.uint("go_gomemlimit", rt.memLimit)
	}
	w.uint("go_gomaxprocs", rt.gomaxprocs)
}

// percentilesUsec formats a histogram's p50, p99, p99.9 and max in
// microseconds, as Redis's latencystats section does its percentiles.
func percentilesUsec(h store.Histogram) string {
	b := make([]byte, 0, 64)
	for i, p := range []struct {
		name string
		v    float64
	}{{"p50", h.Quantile(0.5)}, {"p99", h.Quantile(0.99)}, {"p99.9", h.Quantile(0.999)}, {"max", h.Max()}} {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, p.name...)
		b = append(b, '=')
		b = strconv.AppendFloat(b, p.v*1e6, 'f', 3, 64)
	}
	return string(b)
}

// waitBoundsSeconds are the upper bounds of the /metrics histograms of
// waits: the command duration buckets (latencyBoundsUsec) with three more
// below them, since scheduler latencies and most lock waits are shorter.
var waitBoundsSeconds = func() []float64 {
	b := []float64{1e-6, 2.5e-6, 5e-6}
	for _, us := range latencyBoundsUsec {
		b = append(b, float64(us)/1e6)
	}
	return b
}()

var (
	mQueueWait    = desc("queue_wait_seconds", "Each write's wait in the write queue, from Store.Write until its joined write landed.")
	mQueueWrites  = desc("queue_writes_total", "RocksDB writes the write queue made, each of one batch or of several joined.")
	mKeyLockWait  = desc("key_lock_wait_seconds", "Each key-lock acquisition that found a lock busy, until it held it.")
	mGCPause      = desc("go_gc_pause_seconds", "Each stop-the-world pause of the Go collector (runtime/metrics /sched/pauses/total/gc).")
	mSchedLatency = desc("go_sched_latency_seconds", "Time runnable goroutines waited for a P before running (runtime/metrics /sched/latencies, sampled).")
	mGCCPU        = desc("go_gc_cpu_seconds_total", "CPU the Go collector used, by kind: total, or assist (charged to allocating goroutines); the runtime's estimate.", "kind")

	latencyDescs = []*prometheus.Desc{mQueueWait, mQueueWrites, mKeyLockWait, mGCPause, mSchedLatency, mGCCPU}
)

// collectLatency sends INFO latency's figures as metrics.
func collectLatency(s *Server, ch chan<- prometheus.Metric) {
	waits, rt := s.st.WaitStats(), readRuntimeFigures()
	for _, h := range []struct {
		d *prometheus.Desc
		h store.Histogram
	}{{mQueueWait, waits.Queue}, {mKeyLockWait, waits.KeyLock}, {mGCPause, rt.gcPauses}, {mSchedLatency, rt.schedLatencies}} {
		cum := h.h.Cumulative(waitBoundsSeconds)
		buckets := make(map[float64]uint64, len(cum))
		for i, le := range waitBoundsSeconds {
			buckets[le] = cum[i]
		}
		sum := h.h.Sum
		if sum == 0 {
			sum = estimatedSum(h.h)
		}
		ch <- prometheus.MustNewConstHistogram(h.d, h.h.Count(), sum, buckets)
	}
	ch <- prometheus.MustNewConstMetric(mQueueWrites, prometheus.CounterValue, float64(waits.QueueWrites))
	ch <- prometheus.MustNewConstMetric(mGCCPU, prometheus.CounterValue, rt.gcCPU, "total")
	ch <- prometheus.MustNewConstMetric(mGCCPU, prometheus.CounterValue, rt.gcAssistCPU, "assist")
}

// estimatedSum is the total of a histogram that keeps none (the runtime's),
// taking each bucket's values at its middle and an unbounded bucket's at
// its finite end.
func estimatedSum(h store.Histogram) float64 {
	var sum float64
	for i, c := range h.Counts {
		if c == 0 {
			continue
		}
		lo, hi := h.Bounds[i], h.Bounds[i+1]
		switch {
		case math.IsInf(lo, -1):
			lo = hi
		case math.IsInf(hi, 1):
			hi = lo
		}
		sum += float64(c) * (lo + hi) / 2
	}
	return sum
}
