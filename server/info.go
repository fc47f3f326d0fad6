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

	"github.com/shaledb/shale/conf"
	"github.com/shaledb/shale/server/store"
)

// INFO: Redis's sections, with the fields Redis clients and dashboards read,
// plus Shale's rocksdb and reclaim sections. docs/OPERATIONS.md ("INFO
// fields") describes every field.

// infoSection is one INFO section; write appends its "name:value" lines.
type infoSection struct {
	name  string // the lower-case name INFO takes
	title string // the "# Title" heading
	write func(s *Server, w *infoWriter)
}

// infoSections lists the sections in output order. INFO with no argument,
// "default", "all" and "everything" all give every one of them.
var infoSections = []infoSection{
	{"server", "Server", infoServer},
	{"clients", "Clients", infoClients},
	{"memory", "Memory", infoMemory},
	{"persistence", "Persistence", infoPersistence},
	{"stats", "Stats", infoStats},
	{"replication", "Replication", infoReplication},
	{"cpu", "CPU", infoCPU},
	{"cluster", "Cluster", infoCluster},
	{"keyspace", "Keyspace", infoKeyspace},
	{"rocksdb", "RocksDB", infoRocksDB},
	{"reclaim", "Reclaim", infoReclaim},
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

// info renders INFO for the requested sections (case-insensitive); unknown
// names are ignored, so INFO of only unknown sections is empty.
func (s *Server) info(args [][]byte) string {
	want := make(map[string]bool, len(infoSections))
	all := len(args) == 0
	for _, a := range args {
		switch n := lower(a); n {
		case "default", "all", "everything":
			all = true
		default:
			want[n] = true
		}
	}
	w := &infoWriter{}
	for _, sec := range infoSections {
		if !all && !want[sec.name] {
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
	w.int("tracking_clients", 0)
}

// memTotals sums RocksDB's memory that INFO reports: the memtables and the
// table readers (indexes and filters outside the block cache) of every
// column family, and the column families' own block caches.
func memTotals(st *store.Store, cfg *conf.Config) (memtables, readers, ownCaches uint64) {
	for _, cf := range store.AllCFs() {
		memtables += propUint(st, cf, "rocksdb.cur-size-all-mem-tables")
		readers += propUint(st, cf, "rocksdb.estimate-table-readers-mem")
		if ownBlockCache(cfg, cf) {
			ownCaches += propUint(st, cf, "rocksdb.block-cache-usage")
		}
	}
	return memtables, readers, ownCaches
}

// ownBlockCache reports whether cf has its own block cache rather than the
// shared one ([rocksdb.metadata] or [rocksdb.subkey] block_cache_bytes).
func ownBlockCache(cfg *conf.Config, cf store.CF) bool {
	switch cf {
	case store.CFMeta:
		return cfg.RocksDB.Metadata.BlockCacheBytes != nil
	case store.CFSubkey, store.CFScore:
		return cfg.RocksDB.Subkey.BlockCacheBytes != nil
	}
	return false
}

func infoMemory(s *Server, w *infoWriter) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	cfg := s.config()
	cacheUsage, _ := s.st.BlockCacheUsage()
	memtables, readers, ownCaches := memTotals(s.st, &cfg)
	used := ms.HeapInuse + cacheUsage + ownCaches + memtables + readers
	w.uint("used_memory", used)
	w.str("used_memory_human", bytesToHuman(used))
	if rss, ok := residentBytes(); ok {
		w.uint("used_memory_rss", rss)
		w.str("used_memory_rss_human", bytesToHuman(rss))
	}
	w.uint("go_heap_inuse", ms.HeapInuse)
	w.uint("go_sys", ms.Sys)
	w.uint("rocksdb_block_cache_usage", cacheUsage+ownCaches)
	w.uint("rocksdb_memtables", memtables)
	w.uint("rocksdb_table_readers", readers)
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
	w.int("aof_enabled", 0)
	w.int("aof_rewrite_in_progress", 0)
	w.str("aof_last_bgrewrite_status", "ok")
	w.str("aof_last_write_status", "ok")
	w.bool("wal_sync", cfg.Storage.SyncWrites)
}

func infoStats(s *Server, w *infoWriter) {
	w.int("total_connections_received", s.stats.connections.Load())
	w.int("total_commands_processed", s.stats.commands.Load())
	w.int("rejected_connections", s.stats.rejected.Load())
	w.int("expired_keys", s.eng.ExpiredKeys())
	w.int("evicted_keys", 0)
	w.int("total_error_replies", s.stats.errorReplies.Load())
}

func infoReplication(_ *Server, w *infoWriter) {
	w.str("role", "master")
	w.int("connected_slaves", 0)
	w.int("master_repl_offset", 0)
}

func infoCPU(_ *Server, w *infoWriter) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return
	}
	tv := func(t syscall.Timeval) string {
		return strconv.FormatFloat(float64(t.Sec)+float64(t.Usec)/1e6, 'f', 6, 64)
	}
	w.str("used_cpu_sys", tv(ru.Stime))
	w.str("used_cpu_user", tv(ru.Utime))
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
	usage, capacity := s.st.BlockCacheUsage()
	w.uint("block_cache_usage", usage)
	w.uint("block_cache_capacity", capacity)
	var pending uint64
	for _, cf := range store.AllCFs() {
		pending += propUint(s.st, cf, "rocksdb.estimate-pending-compaction-bytes")
	}
	w.uint("pending_compaction_bytes", pending)
	w.uint("running_compactions", propUint(s.st, store.CFDefault, "rocksdb.num-running-compactions"))
	w.uint("running_flushes", propUint(s.st, store.CFDefault, "rocksdb.num-running-flushes"))
	w.uint("actual_delayed_write_rate", propUint(s.st, store.CFDefault, "rocksdb.actual-delayed-write-rate"))
	w.uint("is_write_stopped", propUint(s.st, store.CFDefault, "rocksdb.is-write-stopped"))
	for _, cf := range store.AllCFs() {
		p := cf.String() + "_"
		w.uint(p+"estimate_num_keys", propUint(s.st, cf, "rocksdb.estimate-num-keys"))
		w.uint(p+"sst_bytes", s.st.SSTBytes(cf))
		w.uint(p+"memtable_bytes", propUint(s.st, cf, "rocksdb.cur-size-all-mem-tables"))
		w.uint(p+"pending_compaction_bytes", propUint(s.st, cf, "rocksdb.estimate-pending-compaction-bytes"))
		w.uint(p+"num_files_at_level0", propUint(s.st, cf, "rocksdb.num-files-at-level0"))
	}
}

// infoReclaim reports the compaction filters and the reclaimer: records
// dropped per column family, dead verdicts served from the cache, lookups
// that failed (their records were kept), and the reclaim queue.
func infoReclaim(s *Server, w *infoWriter) {
	gc := s.st.GCStats()
	rs := s.st.ReclaimStats()
	// Dropped is indexed by compaction.Kind (subkey 0, score 1, bookkeeping
	// 2), which server may not import; TestInfoReclaimKinds pins the order.
	w.uint("reclaim_dropped_subkey", gc.Dropped[0])
	w.uint("reclaim_dropped_score", gc.Dropped[1])
	w.uint("reclaim_dropped_bookkeeping", gc.Dropped[2])
	w.uint("reclaim_dead_cache_hits", gc.CacheHits)
	w.uint("reclaim_errors", gc.Errors)
	w.int("reclaim_queue_length", int64(rs.QueueLength))
	w.uint("reclaim_compactions", rs.Compactions)
	w.uint("reclaim_queue_overflows", rs.Overflows)
}

// propUint reads an integer RocksDB property; 0 when it is missing.
func propUint(st *store.Store, cf store.CF, name string) uint64 {
	n, _ := strconv.ParseUint(strings.TrimSpace(st.Property(cf, name)), 10, 64)
	return n
}
