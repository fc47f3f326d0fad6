package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	httppprof "net/http/pprof"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/shaledb/shale/server/store"
)

// Prometheus metrics at /metrics, on metrics.addr. The collector keeps no
// counters of its own: at each scrape it reads the ones INFO reads (the
// command, error and connection counters of stats.go, the keyspace
// counters, the store's RocksDB figures, the reclaimer's counters), so the two
// always agree. CONFIG RESETSTAT resets the command counters, which
// Prometheus treats as a counter reset. docs/OPERATIONS.md lists every
// metric.

// metricsServer is the HTTP server behind /metrics.
type metricsServer struct {
	http *http.Server
	addr net.Addr // where it listens: metrics.addr's port may be 0
	done chan struct{}
}

// startMetrics serves /metrics on addr, and Go's profiles at /debug/pprof/
// with pprof.
func (s *Server) startMetrics(addr string, pprof bool) (*metricsServer, error) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		&collector{s: s},
	)
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	if pprof {
		// The index links every named profile (heap, goroutine, ...),
		// which it serves itself; profile, trace, cmdline and symbol
		// have handlers of their own.
		mux.HandleFunc("/debug/pprof/", httppprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", httppprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", httppprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", httppprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", httppprof.Trace)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("server: metrics listen %s: %w", addr, err)
	}
	m := &metricsServer{
		http: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second},
		addr: ln.Addr(),
		done: make(chan struct{}),
	}
	go func() {
		defer close(m.done)
		if err := m.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error().Err(err).Msg("metrics server failed")
		}
	}()
	s.log.Info().Str("addr", ln.Addr().String()).Msg("serving metrics")
	return m, nil
}

// close stops the server, letting a scrape in progress finish for a moment.
func (m *metricsServer) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := m.http.Shutdown(ctx); err != nil {
		m.http.Close()
	}
	<-m.done
}

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc("shale_"+name, help, labels, nil)
}

// The metrics, by source.
var (
	mBuildInfo = desc("build_info", "Always 1; the labels give Shale's version and the Redis version it follows.", "version", "redis_version")

	mCommands     = desc("commands_total", "Runs of each command (and subcommand, as config|get), failed ones included.", "cmd")
	mCmdDuration  = desc("command_duration_seconds", "Run time of each command, without time blocked waiting (BLPOP).", "cmd")
	mCmdRejected  = desc("command_rejected_total", "Commands refused before they ran (wrong arity, NOAUTH).", "cmd")
	mCmdFailed    = desc("command_failed_total", "Commands that ran and replied an error.", "cmd")
	mErrorReplies = desc("error_replies_total", "Error replies by error code (ERR, WRONGTYPE...).", "code")
	mPanics       = desc("command_panics_total", "Commands that panicked: a bug in Shale; each cost its client the connection (see the log).")
	mSlowlogLen   = desc("slowlog_entries", "Entries in the slow log.")

	mConnected     = desc("connected_clients", "Connected clients.")
	mBlocked       = desc("blocked_clients", "Clients waiting in a blocking command.")
	mMaxClients    = desc("maxclients", "The server.maxclients limit.")
	mConnsReceived = desc("connections_received_total", "Connections accepted.")
	mConnsRejected = desc("rejected_connections_total", "Connections refused because of maxclients.")
	mNetIn         = desc("net_input_bytes_total", "Bytes read from clients.")
	mNetOut        = desc("net_output_bytes_total", "Bytes written to clients.")

	mKeys        = desc("keys", "Keys per database (as DBSIZE), for databases that hold keys, and db 0.", "db")
	mExpiring    = desc("expiring_keys", "Keys with a TTL per database.", "db")
	mExpiredKeys = desc("expired_keys_total", "Keys removed by active expiry.")

	mUsedMemory = desc("used_memory_bytes", "INFO's used_memory: Go heap in use, the record caches' arenas, and RocksDB's block caches, memtables and table readers.")
	mMemory     = desc("memory_bytes", "used_memory by part: go_heap, record_cache_arenas, block_cache, memtables, table_readers.", "part")

	mCacheUsage      = desc("rocksdb_block_cache_usage_bytes", "Bytes used in the shared block cache.")
	mCacheCapacity   = desc("rocksdb_block_cache_capacity_bytes", "Size of the shared block cache.")
	mRunningCompacts = desc("rocksdb_running_compactions", "Compactions running now.")
	mRunningFlushes  = desc("rocksdb_running_flushes", "Flushes running now.")
	mDelayedRate     = desc("rocksdb_delayed_write_rate_bytes", "The write rate RocksDB allows while it slows writes down; 0 when it does not.")
	mWriteStopped    = desc("rocksdb_write_stopped", "1 while RocksDB stops writes.")
	mStallSeconds    = desc("rocksdb_write_stall_seconds_total", "Time writes spent slowed down or stopped.")
	mCFSSTBytes      = desc("rocksdb_sst_bytes", "Size of the live SST files per column family.", "cf")
	mCFKeys          = desc("rocksdb_estimated_keys", "RocksDB's estimate of the records per column family.", "cf")
	mCFMemtable      = desc("rocksdb_memtable_bytes", "Size of the memtables per column family.", "cf")
	mCFPending       = desc("rocksdb_pending_compaction_bytes", "Bytes compaction must rewrite to settle, per column family.", "cf")
	mCFLevel0        = desc("rocksdb_level0_files", "Level-0 files per column family.", "cf")
	mCFStalls        = desc("rocksdb_write_stalls_total", "Write slowdowns and stops per column family and cause.", "cf", "cause")

	mReclaimDropped   = desc("reclaim_dropped_records_total", "Orphaned records dropped by the compaction filters, by kind.", "kind")
	mReclaimCacheHits = desc("reclaim_dead_cache_hits_total", "Dead-owner verdicts the compaction filters served from their cache.")
	mReclaimErrors    = desc("reclaim_errors_total", "Owner lookups that failed in the compaction filters (their records were kept).")
	mReclaimQueue     = desc("reclaim_queue_length", "Big removed keys waiting for their targeted compaction.")
	mReclaimCompacts  = desc("reclaim_compactions_total", "Targeted compactions the reclaimer ran.")
	mReclaimOverflows = desc("reclaim_queue_overflows_total", "Big removed keys not queued because the queue was full.")
	mReclaimRunning   = desc("reclaim_in_progress", "1 while the reclaimer runs a targeted compaction.")
	mReclaimFreed     = desc("reclaim_freed_bytes_total", "SST bytes the reclaimer's targeted compactions freed.")
)

// collector reads the server's figures at scrape time.
type collector struct{ s *Server }

func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{
		mBuildInfo, mCommands, mCmdDuration, mCmdRejected, mCmdFailed, mErrorReplies, mPanics, mSlowlogLen,
		mConnected, mBlocked, mMaxClients, mConnsReceived, mConnsRejected, mNetIn, mNetOut,
		mKeys, mExpiring, mExpiredKeys, mUsedMemory, mMemory,
		mCacheUsage, mCacheCapacity, mRunningCompacts, mRunningFlushes, mDelayedRate, mWriteStopped, mStallSeconds,
		mCFSSTBytes, mCFKeys, mCFMemtable, mCFPending, mCFLevel0, mCFStalls,
		mReclaimDropped, mReclaimCacheHits, mReclaimErrors, mReclaimQueue, mReclaimCompacts, mReclaimOverflows, mReclaimRunning, mReclaimFreed,
	} {
		ch <- d
	}
	for _, d := range latencyDescs {
		ch <- d
	}
	for _, d := range memoryDescs {
		ch <- d
	}
}

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	s := c.s
	s.gate.enter(&s.gate.others)
	defer s.gate.leave(&s.gate.others)
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	gauge(mBuildInfo, 1, Version, redisVersion)

	for _, st := range s.stats.commands {
		calls, rejected := st.calls.Load(), st.rejected.Load()
		if calls == 0 && rejected == 0 {
			continue
		}
		counter(mCommands, float64(calls), st.name)
		counter(mCmdRejected, float64(rejected), st.name)
		counter(mCmdFailed, float64(st.failed.Load()), st.name)
		buckets := make(map[float64]uint64, len(latencyBoundsUsec))
		var cum uint64
		for i, bound := range latencyBoundsUsec {
			cum += uint64(st.buckets[i].Load())
			buckets[float64(bound)/1e6] = cum
		}
		cum += uint64(st.buckets[len(latencyBoundsUsec)].Load())
		ch <- prometheus.MustNewConstHistogram(mCmdDuration, cum, float64(st.usec.Load())/1e6, buckets, st.name)
	}
	for _, e := range s.stats.errorCounts() {
		counter(mErrorReplies, float64(e.count), e.code)
	}
	counter(mPanics, float64(s.stats.panics.Load()))
	gauge(mSlowlogLen, float64(s.slowlog.len()))

	s.mu.Lock()
	connected, maxClients := len(s.clients), s.cfg.Server.MaxClients
	s.mu.Unlock()
	gauge(mConnected, float64(connected))
	gauge(mBlocked, float64(s.blocking.blocked()))
	gauge(mMaxClients, float64(maxClients))
	counter(mConnsReceived, float64(s.stats.connections.Load()))
	counter(mConnsRejected, float64(s.stats.rejected.Load()))
	counter(mNetIn, float64(s.stats.netIn.Load()))
	counter(mNetOut, float64(s.stats.netOut.Load()))

	for db := range s.eng.Databases() {
		n := s.st.KeyCount(db)
		if n <= 0 && db != 0 {
			continue
		}
		gauge(mKeys, float64(n), strconv.Itoa(db))
		gauge(mExpiring, float64(s.st.ExpiresCount(db)), strconv.Itoa(db))
	}
	counter(mExpiredKeys, float64(s.eng.ExpiredKeys()))

	m := s.memory()
	gauge(mUsedMemory, float64(m.used))
	gauge(mMemory, float64(m.goMem.heapInuse), "go_heap")
	gauge(mMemory, float64(m.arenas), "record_cache_arenas")
	gauge(mMemory, float64(m.rocks.BlockCache), "block_cache")
	gauge(mMemory, float64(m.rocks.Memtables), "memtables")
	gauge(mMemory, float64(m.rocks.TableReaders), "table_readers")
	collectMemory(s, m, ch)

	db := s.st.DBStats()
	gauge(mCacheUsage, float64(db.BlockCacheUsage))
	gauge(mCacheCapacity, float64(db.BlockCacheCapacity))
	gauge(mRunningCompacts, float64(db.RunningCompactions))
	gauge(mRunningFlushes, float64(db.RunningFlushes))
	gauge(mDelayedRate, float64(db.DelayedWriteRate))
	gauge(mWriteStopped, gaugeBool(db.WriteStopped))
	counter(mStallSeconds, db.StallSeconds)
	for _, f := range s.st.CFStats() {
		cf := f.CF.String()
		gauge(mCFSSTBytes, float64(f.SSTBytes), cf)
		gauge(mCFKeys, float64(f.EstimatedKeys), cf)
		gauge(mCFMemtable, float64(f.MemtableBytes), cf)
		gauge(mCFPending, float64(f.PendingCompactionBytes), cf)
		gauge(mCFLevel0, float64(f.Level0Files), cf)
		for _, cs := range stallCauses(f.Stalls) {
			counter(mCFStalls, float64(cs.n), cf, cs.cause)
		}
	}

	gc, rs := s.st.GCStats(), s.st.ReclaimStats()
	for _, d := range gc.Dropped {
		counter(mReclaimDropped, float64(d.Records), d.CF.String())
	}
	counter(mReclaimCacheHits, float64(gc.CacheHits))
	counter(mReclaimErrors, float64(gc.Errors))
	gauge(mReclaimQueue, float64(rs.QueueLength))
	counter(mReclaimCompacts, float64(rs.Compactions))
	counter(mReclaimOverflows, float64(rs.Overflows))
	gauge(mReclaimRunning, gaugeBool(rs.Running))
	counter(mReclaimFreed, float64(rs.FreedBytes))

	collectLatency(s, ch)
}

// gaugeBool is a yes-or-no gauge's value: 1 for true, 0 for false.
func gaugeBool(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// stallCause is one cause of write stalls and its count, named as INFO's
// <cf>_write_stalls line and the cause label of /metrics name it.
type stallCause struct {
	cause string
	n     uint64
}

func stallCauses(w store.WriteStalls) []stallCause {
	return []stallCause{
		{"level0_slowdown", w.Level0Slowdown},
		{"level0_stop", w.Level0Stop},
		{"pending_compaction_slowdown", w.PendingCompactSlow},
		{"pending_compaction_stop", w.PendingCompactStop},
		{"memtable_slowdown", w.MemtableSlowdown},
		{"memtable_stop", w.MemtableStop},
	}
}
