package server

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/shaledb/shale/server/store"
)

// INFO: Redis's sections, with the fields Redis clients and dashboards read,
// plus Shale's rocksdb, reclaim and latency sections. docs/OPERATIONS.md ("INFO
// fields") describes every field.

// infoSection is one INFO section; write appends its "name:value" lines.
type infoSection struct {
	name      string // the lower-case name INFO takes
	title     string // the "# Title" heading
	write     func(s *Server, w *infoWriter)
	inDefault bool // part of INFO and INFO default
}

// infoSections lists the sections in output order, Redis 7's. INFO with no
// argument or "default" gives the inDefault ones; "all" and "everything"
// give every one of them.
var infoSections = []infoSection{
	{"server", "Server", infoServer, true},
	{"clients", "Clients", infoClients, true},
	{"memory", "Memory", infoMemory, true},
	{"persistence", "Persistence", infoPersistence, true},
	{"stats", "Stats", infoStats, true},
	{"replication", "Replication", infoReplication, true},
	{"cpu", "CPU", infoCPU, true},
	{"commandstats", "Commandstats", infoCommandStats, false},
	{"errorstats", "Errorstats", infoErrorStats, true},
	{"cluster", "Cluster", infoCluster, true},
	{"keyspace", "Keyspace", infoKeyspace, true},
	{"rocksdb", "RocksDB", infoRocksDB, true},
	{"reclaim", "Reclaim", infoReclaim, true},
	{"latency", "Latency", infoLatency, true},
}

// runID identifies this process, as Redis's run_id does.
var runID = func() string {
	var b [20]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}()

// SetConfigFile records the config file the server was started with, which
// INFO reports as config_file.
func (s *Server) SetConfigFile(path string) {
	s.mu.Lock()
	s.configFile = path
	s.mu.Unlock()
}

// info renders INFO for the requested sections (case-insensitive), as
// Redis 7 does: several names give their union, "default" and "all" (or
// "everything") add those sets, and unknown names add nothing, so INFO of
// only unknown sections is empty.
func (s *Server) info(args [][]byte) string {
	want := make(map[string]bool, len(infoSections))
	all, def := false, len(args) == 0
	for _, a := range args {
		switch n := lower(a); n {
		case "default":
			def = true
		case "all", "everything":
			all = true
		default:
			want[n] = true
		}
	}
	w := &infoWriter{}
	for _, sec := range infoSections {
		if !all && !(def && sec.inDefault) && !want[sec.name] {
			continue
		}
		if w.b.Len() > 0 {
			w.b.WriteString("\r\n")
		}
		w.b.WriteString("# " + sec.title + "\r\n")
		sec.write(s, w)
	}
	return w.b.String()
}

// infoWriter builds "name:value\r\n" lines.
type infoWriter struct{ b bytes.Buffer }

func (w *infoWriter) str(name, v string) {
	w.b.WriteString(name)
	w.b.WriteByte(':')
	w.b.WriteString(v)
	w.b.WriteString("\r\n")
}

func (w *infoWriter) int(name string, v int64) { w.str(name, strconv.FormatInt(v, 10)) }

func (w *infoWriter) uint(name string, v uint64) { w.str(name, strconv.FormatUint(v, 10)) }

func (w *infoWriter) bool(name string, v bool) {
	if v {
		w.str(name, "1")
	} else {
		w.str(name, "0")
	}
}

func infoServer(s *Server, w *infoWriter) {
	s.mu.Lock()
	configFile := s.configFile
	s.mu.Unlock()
	now := time.Now()
	up := int64(now.Sub(s.started) / time.Second)
	exe, _ := os.Executable()
	port := 0
	if a, ok := s.Addr().(*net.TCPAddr); ok {
		port = a.Port
	}
	w.str("redis_version", redisVersion)
	w.str("shale_version", Version)
	w.str("redis_git_sha1", "00000000")
	w.str("redis_git_dirty", "0")
	w.str("redis_mode", "standalone")
	w.str("os", osName())
	w.int("arch_bits", strconv.IntSize)
	w.str("go_version", runtime.Version())
	w.int("process_id", int64(os.Getpid()))
	w.str("run_id", runID)
	w.int("tcp_port", int64(port))
	w.int("server_time_usec", now.UnixMicro())
	w.int("uptime_in_seconds", up)
	w.int("uptime_in_days", up/86400)
	w.str("executable", exe)
	w.str("config_file", configFile)
}

// osName is "Linux 6.1.0 x86_64" as Redis prints it, from uname(2).
func osName() string {
	var u syscall.Utsname
	if err := syscall.Uname(&u); err != nil {
		return runtime.GOOS + " " + runtime.GOARCH
	}
	return utsString(u.Sysname[:]) + " " + utsString(u.Release[:]) + " " + utsString(u.Machine[:])
}

// utsString converts a NUL-terminated utsname field (int8 or uint8,
// depending on the platform).
func utsString[T int8 | uint8](f []T) string {
	b := make([]byte, 0, len(f))
	for _, c := range f {
		if c == 0 {
			break
		}
		b = append(b, byte(c))
	}
	return string(b)
}

func infoClients(s *Server, w *infoWriter) {
	s.mu.Lock()
	n, maxClients := len(s.clients), s.cfg.Server.MaxClients
	s.mu.Unlock()
	w.int("connected_clients", int64(n))
	w.int("cluster_connections", 0)
	w.int("maxclients", int64(maxClients))
	w.int("blocked_clients", s.blocking.blocked())
	w.int("tracking_clients", s.tracking.clients.Load())
	w.int("io_loops", int64(s.loops.count))
	w.int("io_loop_clients", s.loops.clients.Load())
	w.int("io_loop_handoffs", s.loops.handoffs.Load())
	w.int("io_loop_lander_writes", s.loops.landerJobs.Load())
}

// memoryFigures is what INFO memory and /metrics report about memory
// (memory_figures.go takes the resident set apart).
type memoryFigures struct {
	used   uint64 // the Go heap in use, the record caches' arenas and RocksDB's memory
	rss    uint64 // the resident set; valid when rssOK
	rssOK  bool
	other  int64 // rss less the parts below that can be resident: rssOther
	goMem  goMemory
	arenas uint64 // the record caches' arenas, outside the Go heap
	rocks  store.MemoryStats
	malloc store.MallocStats
	gc     gcFigures
}

// gcFigures are the Go collector's stop-the-world pauses: how many
// collections ran, their pauses' total, and the last and the longest of
// the recent ones (the runtime keeps the last 256), which the tail latency
// of a request can include.
type gcFigures struct {
	cycles                uint32
	pauseTotal, last, max time.Duration
}

func gcFiguresOf(ms *runtime.MemStats) gcFigures {
	g := gcFigures{cycles: ms.NumGC, pauseTotal: time.Duration(ms.PauseTotalNs)}
	if ms.NumGC > 0 {
		g.last = time.Duration(ms.PauseNs[(ms.NumGC+255)%256])
	}
	for _, p := range ms.PauseNs[:min(int(ms.NumGC), len(ms.PauseNs))] {
		g.max = max(g.max, time.Duration(p))
	}
	return g
}

func (s *Server) memory() memoryFigures {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	g, r := readGoMemory(), s.st.MemoryStats()
	var arenas uint64
	for _, c := range recordCaches {
		arenas += uint64(s.st.CacheStats(c.cf).ArenaBytes)
	}
	m := memoryFigures{
		used:   g.heapInuse + arenas + r.BlockCache + r.Memtables + r.TableReaders,
		goMem:  g,
		arenas: arenas,
		rocks:  r,
		malloc: store.ReadMallocStats(),
		gc:     gcFiguresOf(&ms),
	}
	if m.rss, m.rssOK = residentBytes(); m.rssOK {
		m.other = rssOther(m.rss, g, arenas, r)
	}
	return m
}

func infoMemory(s *Server, w *infoWriter) {
	m := s.memory()
	used := m.used
	w.uint("used_memory", used)
	w.str("used_memory_human", bytesToHuman(used))
	if m.rssOK {
		w.uint("used_memory_rss", m.rss)
		w.str("used_memory_rss_human", bytesToHuman(m.rss))
	}
	w.uint("go_heap_inuse", m.goMem.heapInuse)
	w.uint("go_heap_free", m.goMem.heapFree)
	w.uint("go_heap_released", m.goMem.heapReleased)
	w.uint("go_heap_live", m.goMem.heapLive)
	w.uint("go_heap_goal", m.goMem.heapGoal)
	w.uint("go_stacks", m.goMem.stacks)
	w.uint("go_runtime", m.goMem.runtime)
	w.uint("go_sys", m.goMem.total)
	w.uint("go_gc_cycles", uint64(m.gc.cycles))
	w.uint("go_gc_pause_total_us", uint64(m.gc.pauseTotal/time.Microsecond))
	w.uint("go_gc_pause_last_us", uint64(m.gc.last/time.Microsecond))
	w.uint("go_gc_pause_max_recent_us", uint64(m.gc.max/time.Microsecond))
	w.uint("rocksdb_block_cache_usage", m.rocks.BlockCache)
	w.uint("rocksdb_block_cache_capacity", m.rocks.BlockCacheCapacity)
	w.uint("rocksdb_block_cache_pinned", m.rocks.BlockCachePinned)
	w.uint("rocksdb_memtables", m.rocks.Memtables)
	for _, c := range m.rocks.MemtablesByCF {
		w.uint(memtableField(c.CF), c.Bytes)
	}
	w.uint("rocksdb_table_readers", m.rocks.TableReaders)
	w.uint("malloc_allocated", m.malloc.Allocated)
	w.uint("malloc_free", m.malloc.Free)
	w.uint("malloc_from_os", m.malloc.FromOS)
	if m.rssOK {
		w.int("rss_other", m.other)
	}
	for _, c := range recordCaches {
		cs := s.st.CacheStats(c.cf)
		w.int(c.name+"_cache_bytes", cs.Bytes)
		w.int(c.name+"_cache_max_bytes", cs.MaxBytes)
		w.int(c.name+"_cache_entries", cs.Entries)
		w.int(c.name+"_cache_arena", cs.ArenaBytes)
		if c.cf == store.CFSubkey {
			w.int("subkey_cache_list_runs", cs.Runs)
		}
	}
	// Redis's counts of scripts and functions; the memory their
	// interpreters use is in go_heap_inuse, not apart as in Redis. Shale's
	// own: the interpreter states kept for scripts run under their keys'
	// locks, about 210 KB each.
	w.int("number_of_cached_scripts", int64(s.scripts.count()))
	w.int("script_idle_states", int64(s.scripts.idleVMs()))
	w.int("number_of_functions", s.functions.fnCount.Load())
	w.int("maxmemory", 0)
	w.str("maxmemory_human", "0B")
	w.str("maxmemory_policy", "noeviction")
	w.str("mem_allocator", "go+rocksdb")
}

// residentBytes reads the process's resident set size from /proc (Linux).
func residentBytes() (uint64, bool) {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0, false
	}
	pages, err := strconv.ParseUint(f[1], 10, 64)
	if err != nil {
		return 0, false
	}
	return pages * uint64(os.Getpagesize()), true
}

// bytesToHuman formats n as Redis does: 1023B, 1.50K, 2.00M, 3.25G...
func bytesToHuman(n uint64) string {
	const k = 1024.0
	switch f := float64(n); {
	case n < 1024:
		return strconv.FormatUint(n, 10) + "B"
	case f < k*k:
		return fmt.Sprintf("%.2fK", f/k)
	case f < k*k*k:
		return fmt.Sprintf("%.2fM", f/(k*k))
	case f < k*k*k*k:
		return fmt.Sprintf("%.2fG", f/(k*k*k))
	case f < k*k*k*k*k:
		return fmt.Sprintf("%.2fT", f/(k*k*k*k))
	default:
		return fmt.Sprintf("%.2fP", f/(k*k*k*k*k))
	}
}

// infoPersistence reports the RDB and AOF fields clients look for: the rdb_
// fields describe BGSAVE's checkpoints (backup.go), and every write is in
// RocksDB's write-ahead log before it is acknowledged. wal_sync is 1 when
// each write is also fsynced.
func infoPersistence(s *Server, w *infoWriter) {
	cfg := s.config()
	w.int("loading", 0)
	w.int("async_loading", 0)
	w.int("rdb_changes_since_last_save", 0)
	s.infoPersistenceBackups(w)
	w.int("aof_enabled", 1) // CONFIG GET appendonly: yes, the WAL is the AOF
	w.int("aof_rewrite_in_progress", 0)
	w.str("aof_last_bgrewrite_status", "ok")
	w.str("aof_last_write_status", "ok")
	w.bool("wal_sync", cfg.Storage.SyncWrites)
}

func infoStats(s *Server, w *infoWriter) {
	st := &s.stats
	w.int("total_connections_received", st.connections.Load())
	w.int("total_commands_processed", st.totalCommands())
	w.int("instantaneous_ops_per_sec", st.ops.perSecond())
	w.int("total_net_input_bytes", st.netIn.Load())
	w.int("total_net_output_bytes", st.netOut.Load())
	in, out := st.ops.kbps()
	w.str("instantaneous_input_kbps", strconv.FormatFloat(in, 'f', 2, 64))
	w.str("instantaneous_output_kbps", strconv.FormatFloat(out, 'f', 2, 64))
	w.int("rejected_connections", st.rejected.Load())
	w.int("sync_full", s.repl.syncFull.Load())
	w.int("sync_partial_ok", s.repl.syncPartialOK.Load())
	w.int("sync_partial_err", s.repl.syncPartialErr.Load())
	w.int("expired_keys", s.eng.ExpiredKeys())
	w.int("evicted_keys", 0)
	w.int("pubsub_channels", int64(s.pubsub.count(channelSub)))
	w.int("pubsub_patterns", int64(s.pubsub.count(patternSub)))
	w.int("pubsubshard_channels", int64(s.pubsub.count(shardSub)))
	keys, items, prefixes := s.trackingStats()
	w.int("tracking_total_keys", keys)
	w.int("tracking_total_items", items)
	w.int("tracking_total_prefixes", prefixes)
	w.int("total_error_replies", st.errorReplies.Load())
	// Shale's own: commands whose bug cost their client the connection
	// (panic.go), and how pipelined commands shared their writes.
	w.int("command_panics", st.panics.Load())
	w.int("pipeline_group_commits", st.groupCommits.Load())
	w.int("pipeline_grouped_commands", st.groupedCommands.Load())
	w.uint("early_lock_releases", s.st.EarlyCommits())
	// Shale's own: EXECs that wrote, that failed for a watched key (a
	// null reply), and that were discarded (EXECABORT, a refused write).
	w.int("transactions_committed", st.txnCommitted.Load())
	w.int("transactions_watch_failed", st.txnWatchFailed.Load())
	w.int("transactions_aborted", st.txnAborted.Load())
	// Shale's own: how scripts and functions ran (script.go).
	w.int("script_runs_keyed", st.scriptRunsKeyed.Load())
	w.int("script_runs_exclusive", st.scriptRunsExclusive.Load())
	w.int("script_reruns_exclusive", st.scriptReruns.Load())
	// Shale's own: reads of metadata and sub-keys served from memory.
	for _, c := range recordCaches {
		cs := s.st.CacheStats(c.cf)
		w.uint(c.name+"_cache_hits", cs.Hits)
		w.uint(c.name+"_cache_misses", cs.Misses)
		w.uint(c.name+"_cache_evictions", cs.Evictions)
	}
}

// recordCaches names the store's record caches in INFO.
var recordCaches = []struct {
	name string
	cf   store.CF
}{{"metadata", store.CFMeta}, {"subkey", store.CFSubkey}}

// infoReplication is INFO's replication section, with Redis's fields. The
// offsets are sequence numbers; the backlog is RocksDB's write-ahead log
// (replication.wal_retention): its first offset is that of the oldest batch
// the log holds, its length the records from there on.
func infoReplication(s *Server, w *infoWriter) {
	s.repl.mu.Lock()
	u := s.repl.upstream
	s.repl.mu.Unlock()
	offset := int64(s.st.LastSequence())
	cfg := s.config().Replication
	if u == nil {
		w.str("role", "master")
	} else {
		state := upstreamState(u.state.Load())
		now := time.Now().UnixMilli()
		w.str("role", "slave")
		w.str("master_host", u.host)
		w.int("master_port", int64(u.port))
		if state == upConnected {
			w.str("master_link_status", "up")
		} else {
			w.str("master_link_status", "down")
		}
		if last := u.lastIO.Load(); last > 0 {
			w.int("master_last_io_seconds_ago", (now-last)/1000)
		} else {
			w.int("master_last_io_seconds_ago", -1)
		}
		w.bool("master_sync_in_progress", state == upSync)
		w.int("slave_read_repl_offset", offset)
		w.int("slave_repl_offset", offset)
		if state == upSync {
			total, read := u.syncTotal.Load(), u.syncRead.Load()
			w.int("master_sync_total_bytes", total)
			w.int("master_sync_read_bytes", read)
			w.int("master_sync_left_bytes", total-read)
			perc := 0.0
			if total > 0 {
				perc = float64(read) * 100 / float64(total)
			}
			w.str("master_sync_perc", strconv.FormatFloat(perc, 'f', 2, 64))
			w.int("master_sync_last_io_seconds_ago", (now-u.lastIO.Load())/1000)
		}
		if down := u.downSince.Load(); state != upConnected && down > 0 {
			w.int("master_link_down_since_seconds", (now-down)/1000)
		}
		w.int("slave_priority", int64(cfg.ReplicaPriority))
		w.bool("slave_read_only", cfg.ReplicaReadOnly)
		w.int("replica_announced", 1)
	}
	lines := s.replicaLines()
	w.int("connected_slaves", int64(len(lines)))
	for i, l := range lines {
		w.str("slave"+strconv.Itoa(i), fmt.Sprintf("ip=%s,port=%d,state=%s,offset=%d,lag=%d", l.ip, l.port, l.state, l.offset, l.lag))
	}
	id, id2, offset2 := s.replicationIDs()
	w.str("master_failover_state", "no-failover")
	w.str("master_replid", id)
	w.str("master_replid2", id2)
	w.int("master_repl_offset", offset)
	w.int("second_repl_offset", offset2)
	w.bool("repl_backlog_active", cfg.WALRetention.Duration > 0 || cfg.WALRetentionBytes > 0)
	w.int("repl_backlog_size", int64(cfg.WALRetentionBytes))
	first, ok := s.st.OldestSequence()
	if !ok {
		first = uint64(offset) + 1
	}
	w.int("repl_backlog_first_byte_offset", int64(first))
	w.int("repl_backlog_histlen", offset-int64(first)+1)
}

func infoCPU(_ *Server, w *infoWriter) {
	tv := func(t syscall.Timeval) string {
		return strconv.FormatFloat(float64(t.Sec)+float64(t.Usec)/1e6, 'f', 6, 64)
	}
	var self, children syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &self); err != nil {
		return
	}
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	w.str("used_cpu_sys", tv(self.Stime))
	w.str("used_cpu_user", tv(self.Utime))
	w.str("used_cpu_sys_children", tv(children.Stime))
	w.str("used_cpu_user_children", tv(children.Utime))
}

// infoCommandStats has a line for each command (and subcommand, as
// "config|get") that ran or was refused since start-up or RESETSTAT.
func infoCommandStats(s *Server, w *infoWriter) {
	for _, st := range s.stats.commands {
		calls, usec, rejected, failed := st.calls.Load(), st.usec.Load(), st.rejected.Load(), st.failed.Load()
		if calls == 0 && rejected == 0 && failed == 0 {
			continue
		}
		perCall := 0.0
		if calls > 0 {
			perCall = float64(usec) / float64(calls)
		}
		w.str("cmdstat_"+st.name, "calls="+strconv.FormatInt(calls, 10)+",usec="+strconv.FormatInt(usec, 10)+
			",usec_per_call="+strconv.FormatFloat(perCall, 'f', 2, 64)+
			",rejected_calls="+strconv.FormatInt(rejected, 10)+",failed_calls="+strconv.FormatInt(failed, 10))
	}
}

// infoErrorStats has a line per error code replied ("ERR", "WRONGTYPE").
func infoErrorStats(s *Server, w *infoWriter) {
	for _, e := range s.stats.errorCounts() {
		w.str("errorstat_"+e.code, "count="+strconv.FormatInt(e.count, 10))
	}
}

func infoCluster(_ *Server, w *infoWriter) {
	w.int("cluster_enabled", 0)
}

// avgTTLSample bounds the expiry-index entries one INFO keyspace reads to
// estimate avg_ttl.
const avgTTLSample = 10_000

// infoKeyspace has a line for each database holding keys. keys and expires
// are exact counters; avg_ttl is estimated from the soonest-expiring keys.
func infoKeyspace(s *Server, w *infoWriter) {
	avgTTL, err := s.eng.AvgTTL(avgTTLSample)
	if err != nil {
		s.log.Warn().Err(err).Msg("info keyspace: reading the expiry index failed")
	}
	for db := range s.eng.Databases() {
		n := s.st.KeyCount(db)
		if n <= 0 {
			continue
		}
		var ttl int64
		if db < len(avgTTL) {
			ttl = avgTTL[db]
		}
		w.str("db"+strconv.Itoa(db), "keys="+strconv.FormatInt(n, 10)+",expires="+strconv.FormatInt(s.st.ExpiresCount(db), 10)+",avg_ttl="+strconv.FormatInt(ttl, 10))
	}
}

func infoRocksDB(s *Server, w *infoWriter) {
	db, cfs := s.st.DBStats(), s.st.CFStats()
	w.uint("block_cache_usage", db.BlockCacheUsage)
	w.uint("block_cache_capacity", db.BlockCacheCapacity)
	var pending, stalls uint64
	for _, f := range cfs {
		pending += f.PendingCompactionBytes
		stalls += f.Stalls.Total()
	}
	w.uint("pending_compaction_bytes", pending)
	w.uint("running_compactions", db.RunningCompactions)
	w.uint("running_flushes", db.RunningFlushes)
	w.uint("actual_delayed_write_rate", db.DelayedWriteRate)
	w.bool("is_write_stopped", db.WriteStopped)
	w.uint("write_stalls", stalls)
	w.str("write_stall_seconds", strconv.FormatFloat(db.StallSeconds, 'f', 3, 64))
	for _, f := range cfs {
		p := f.CF.String() + "_"
		w.uint(p+"estimate_num_keys", f.EstimatedKeys)
		w.uint(p+"sst_bytes", f.SSTBytes)
		w.uint(p+"memtable_bytes", f.MemtableBytes)
		w.uint(p+"pending_compaction_bytes", f.PendingCompactionBytes)
		w.uint(p+"num_files_at_level0", f.Level0Files)
		causes := make([]string, 0, 6)
		for _, c := range stallCauses(f.Stalls) {
			causes = append(causes, c.cause+"="+strconv.FormatUint(c.n, 10))
		}
		w.str(p+"write_stalls", strings.Join(causes, ","))
	}
}

// infoReclaim reports the compaction filters and the reclaimer: records
// dropped per column family, dead verdicts served from the cache, lookups
// that failed (their records were kept), and the reclaim queue.
func infoReclaim(s *Server, w *infoWriter) {
	gc := s.st.GCStats()
	rs := s.st.ReclaimStats()
	for _, d := range gc.Dropped {
		w.uint("reclaim_dropped_"+d.CF.String(), d.Records)
	}
	w.uint("reclaim_dead_cache_hits", gc.CacheHits)
	w.uint("reclaim_errors", gc.Errors)
	w.int("reclaim_queue_length", int64(rs.QueueLength))
	w.uint("reclaim_compactions", rs.Compactions)
	w.uint("reclaim_queue_overflows", rs.Overflows)
	w.bool("reclaim_in_progress", rs.Running)
	w.uint("reclaim_freed_bytes", rs.FreedBytes)
}
