package conf

import (
	"net"
	"strconv"
	"strings"
	"time"
)

// Config is the whole server configuration, one field per TOML section.
type Config struct {
	Server      Server      `toml:"server"`
	Storage     Storage     `toml:"storage"`
	RocksDB     RocksDB     `toml:"rocksdb"`
	Compaction  Compaction  `toml:"compaction"`
	Encoding    Encoding    `toml:"encoding"`
	Log         Log         `toml:"log"`
	Metrics     Metrics     `toml:"metrics"`
	Replication Replication `toml:"replication"`
}

// Server is the [server] section: the listener and client-facing limits.
type Server struct {
	// Bind is the address to listen on. Default "127.0.0.1"; use "0.0.0.0"
	// or "::" to listen on every interface. Must not be empty.
	Bind string `toml:"bind"`
	// Port is the TCP port. Default 6379; 0 picks a free port (for tests);
	// otherwise 1..65535.
	Port int `toml:"port"`
	// Databases is the number of logical databases (SELECT 0..Databases-1).
	// Default 16; 1..65536.
	Databases int `toml:"databases"`
	// RequirePass is the password clients must give with AUTH. Default ""
	// means no AUTH is required.
	RequirePass string `toml:"requirepass"`
	// MaxClients is the maximum number of connected clients. Default 10000;
	// at least 1.
	MaxClients int `toml:"maxclients"`
	// Timeout closes a client connection idle for this long. Default "0s"
	// means never; must not be negative.
	Timeout Duration `toml:"timeout"`
	// TCPKeepalive is the TCP keepalive period set on every accepted
	// connection: the idle time before the first probe and the interval
	// between probes, as Redis's tcp-keepalive. Default "300s"; "0s" turns
	// keepalive off; must not be negative.
	TCPKeepalive Duration `toml:"tcp_keepalive"`
	// EnableDebugCommand allows the DEBUG subcommands used by tests, and
	// PFDEBUG. Default false.
	EnableDebugCommand bool `toml:"enable_debug_command"`
	// SlowlogLogSlowerThan is the execution time, in microseconds, from
	// which a command is recorded in the slow log (and logged), as Redis's
	// slowlog-log-slower-than. Default 10000; 0 records every command; a
	// negative value records none.
	SlowlogLogSlowerThan int64 `toml:"slowlog_log_slower_than"`
	// SlowlogMaxLen is the number of entries the slow log keeps; older ones
	// are dropped. Default 128; at least 0.
	SlowlogMaxLen int `toml:"slowlog_max_len"`
	// NotifyKeyspaceEvents is Redis's notify-keyspace-events: the classes
	// of keyspace notifications published, as letters of
	// KeyspaceEventClasses. Default "" (none).
	NotifyKeyspaceEvents string `toml:"notify_keyspace_events"`
	// TrackingTableMaxKeys is Redis's tracking-table-max-keys: the most
	// keys client-side caching (CLIENT TRACKING) remembers readers of;
	// past it, keys are dropped at random and their readers told, as if
	// the keys had been written. Default 1000000; 0 means no limit; must
	// not be negative.
	TrackingTableMaxKeys int64 `toml:"tracking_table_max_keys"`
	// BusyReplyThresholdMs is Redis's busy-reply-threshold (lua-time-limit):
	// once a script has run this many milliseconds, other clients' commands
	// get BUSY instead of waiting, and SCRIPT KILL may stop it. Default
	// 5000; 0 answers BUSY at once.
	BusyReplyThresholdMs int64 `toml:"busy_reply_threshold_ms"`
	// LatencyMonitorThresholdMs is Redis's latency-monitor-threshold: the
	// latency monitor (LATENCY) samples every command, and every tick of
	// active expiry, that takes at least this many milliseconds. Default 0,
	// which turns the monitor off; must not be negative.
	LatencyMonitorThresholdMs int64 `toml:"latency_monitor_threshold_ms"`
	// ProtoMaxBulkLen is the largest bulk string a client may send, and the
	// largest a string value may grow to (APPEND, SETRANGE), as Redis's
	// proto-max-bulk-len. Default 512 MiB; at least 1 MiB.
	ProtoMaxBulkLen ByteSize `toml:"proto_max_bulk_len"`
	// ProtoMaxMultibulkLen is the most arguments one command may have.
	// Default 2147483647 (Redis's fixed limit, INT_MAX); at least 1.
	ProtoMaxMultibulkLen int64 `toml:"proto_max_multibulk_len"`
	// ClientQueryBufferLimit is the most bytes of unparsed input a client may
	// have buffered in the server: the argument being read, or what a blocked
	// client sends while it waits. A client that passes it is disconnected,
	// as with Redis's client-query-buffer-limit. Default 1 GiB; at least
	// 1 MiB.
	ClientQueryBufferLimit ByteSize `toml:"client_query_buffer_limit"`
	// ClientOutputBufferLimit is the most reply bytes a client may leave
	// unread (queued in the server, not yet taken by the kernel); a client
	// that passes it is disconnected, as with Redis's hard
	// client-output-buffer-limit for normal clients. Default 1 GiB; 0 means
	// no limit, and any other value is at least 16 KiB.
	ClientOutputBufferLimit ByteSize `toml:"client_output_buffer_limit"`
	// PubsubOutputBufferLimit is the most unsent bytes (messages and
	// replies) a client in subscribed mode may leave unread: one that
	// passes it is disconnected at once, as with the hard limit of Redis's
	// client-output-buffer-limit pubsub class, so that a subscriber that
	// does not read never holds up a publisher or grows the server's
	// memory. Default 32 MiB (Redis's); 0 means no limit, and any other
	// value is at least 16 KiB.
	PubsubOutputBufferLimit ByteSize `toml:"pubsub_output_buffer_limit"`
	// PubsubOutputBufferSoftLimit is the pubsub class's soft limit: a
	// subscriber that stays above it for longer than
	// PubsubOutputBufferSoftTime is disconnected. Default 8 MiB (Redis's);
	// 0 means no soft limit, and any other value is at least 16 KiB.
	PubsubOutputBufferSoftLimit ByteSize `toml:"pubsub_output_buffer_soft_limit"`
	// PubsubOutputBufferSoftTime is how long a subscriber may stay above
	// PubsubOutputBufferSoftLimit. Default "60s" (Redis's); whole seconds
	// in CONFIG GET client-output-buffer-limit; must not be negative.
	PubsubOutputBufferSoftTime Duration `toml:"pubsub_output_buffer_soft_time"`
	// GoGCPercent is the Go collector's GOGC: how much the Go heap may grow,
	// in percent of what the last collection found live, before the next
	// collection. A lower value saves memory and costs collections (CPU).
	// Default 100 (Go's); at least 10. The GOGC environment variable, when
	// set, takes precedence.
	GoGCPercent int `toml:"go_gc_percent"`
	// GoMaxProcs is Go's GOMAXPROCS: how many threads may run Go code at
	// once (RocksDB's own threads are not counted; a call into RocksDB
	// holds its thread's place until Go hands it on, after about 20 µs).
	// Default 0, Go's default: the CPUs the process may use. On a machine
	// whose clients share its few cores, fewer can serve more
	// (docs/LATENCY.md). At least 0. The GOMAXPROCS environment variable,
	// when set, takes precedence.
	GoMaxProcs int `toml:"go_max_procs"`
	// IOLoops is how many event loops serve the clients' connections
	// (docs/OPERATIONS.md, "Event loops"): each waits on epoll for many
	// connections and runs their plain commands itself, writing what they
	// wrote once per turn. 0 serves every connection from a goroutine of
	// its own; -1, the default, is one loop per two CPUs, at least one.
	// At least -1.
	IOLoops int `toml:"io_loops"`
}

// Storage is the [storage] section: where the data lives and how durable
// writes are.
type Storage struct {
	// Dir is the RocksDB data directory. Default "./data"; must not be empty.
	Dir string `toml:"dir"`
	// SyncWrites fsyncs the WAL for every write batch when true. Default
	// false: the WAL is always on, so a process crash loses no acknowledged
	// write, but a machine crash may lose the last writes.
	SyncWrites bool `toml:"sync_writes"`
	// BackupDir is where BGSAVE and SAVE create checkpoints, one
	// sub-directory each. Default "./backup"; must not be empty. Keep it on
	// the same filesystem as Dir: SST files are then hard links, not copies.
	BackupDir string `toml:"backup_dir"`
	// MetadataCacheBytes bounds Shale's in-memory cache of key metadata
	// records, which spares most commands a RocksDB read. Default 16 MiB
	// (about 170,000 small keys); 0 turns it off. Each byte of the bound
	// may cost about two of memory: the cache's arena, outside the Go
	// heap, may take twice the bound.
	MetadataCacheBytes ByteSize `toml:"metadata_cache_bytes"`
	// SubkeyCacheBytes bounds Shale's in-memory cache of sub-key records
	// (hash fields, set and sorted set members, list elements), which
	// spares the commands that read single members a RocksDB read.
	// Default 8 MiB; 0 turns it off. Costs memory as MetadataCacheBytes.
	SubkeyCacheBytes ByteSize `toml:"subkey_cache_bytes"`
}

// RocksDB is the [rocksdb] section. Its per-column-family options apply to
// every column family unless [rocksdb.metadata], [rocksdb.subkey] or
// [rocksdb.score] overrides them for that one column family.
type RocksDB struct {
	// BlockCacheBytes is the size of the LRU block cache shared by all column
	// families. Default 16 MiB (docs/OPERATIONS.md,
	// "Memory: where it goes", says how to size it to the data); 0 caches
	// nothing.
	BlockCacheBytes ByteSize `toml:"block_cache_bytes"`
	// WriteBufferBytes is the size of one memtable per column family.
	// Default 64 MiB; 64 KiB..64 GiB.
	WriteBufferBytes ByteSize `toml:"write_buffer_bytes"`
	// MaxWriteBufferNumber is the most memtables (active plus waiting to be
	// flushed) a column family keeps. Default 4; at least 2.
	MaxWriteBufferNumber int `toml:"max_write_buffer_number"`
	// MinWriteBufferNumberToMerge is how many full memtables a flush waits
	// for and merges into one level-0 file. Default 1; at least 1, and
	// below the column family's MaxWriteBufferNumber.
	MinWriteBufferNumberToMerge int `toml:"min_write_buffer_number_to_merge"`
	// MaxBackgroundJobs is the number of background flush and compaction
	// threads for the whole DB. Default 4; at least 1.
	MaxBackgroundJobs int `toml:"max_background_jobs"`
	// TargetFileSizeBytes is the target SST file size at level 1. Default
	// 64 MiB; more than 0.
	TargetFileSizeBytes ByteSize `toml:"target_file_size_bytes"`
	// MaxBytesForLevelBase is the total size of level 1. Default 256 MiB;
	// more than 0.
	MaxBytesForLevelBase ByteSize `toml:"max_bytes_for_level_base"`
	// Level0FileNumCompactionTrigger is the number of level-0 files that
	// starts a compaction into level 1. Default 4; at least 1.
	Level0FileNumCompactionTrigger int `toml:"level0_file_num_compaction_trigger"`
	// Level0SlowdownWritesTrigger is the number of level-0 files at which
	// writes are slowed down. Default 20; at least
	// Level0FileNumCompactionTrigger.
	Level0SlowdownWritesTrigger int `toml:"level0_slowdown_writes_trigger"`
	// Level0StopWritesTrigger is the number of level-0 files at which writes
	// stop until compaction catches up. Default 36; at least
	// Level0SlowdownWritesTrigger.
	Level0StopWritesTrigger int `toml:"level0_stop_writes_trigger"`
	// DisableAutoCompactions stops RocksDB's automatic compactions when
	// true (manual ones, the reclaimer's and the scheduled full compaction
	// still run). Default false.
	DisableAutoCompactions bool `toml:"disable_auto_compactions"`
	// SoftPendingCompactionBytesLimit slows writes down once compaction is
	// estimated to be this many bytes behind. Default 64 GiB; 0 means no
	// limit.
	SoftPendingCompactionBytesLimit ByteSize `toml:"soft_pending_compaction_bytes_limit"`
	// HardPendingCompactionBytesLimit stops writes once compaction is
	// estimated to be this many bytes behind. Default 256 GiB; 0 means no
	// limit; otherwise at least SoftPendingCompactionBytesLimit.
	HardPendingCompactionBytesLimit ByteSize `toml:"hard_pending_compaction_bytes_limit"`
	// Compression is the compression per level, L0 first. Default
	// ["no","no","lz4","lz4","lz4","zstd","zstd"]. Each entry is one of
	// "no", "snappy", "zlib", "lz4", "lz4hc", "zstd"; 1..7 entries, and the
	// last one applies to every deeper level.
	Compression []string `toml:"compression"`
	// BloomBitsPerKey is the bloom filter size in bits per key. Default 10
	// (about 1% false positives); 0 means no bloom filter; 0..64.
	BloomBitsPerKey int `toml:"bloom_bits_per_key"`
	// RateLimitBytesPerSec limits the bytes per second written by flushes and
	// compactions together. Default 0 means unlimited.
	RateLimitBytesPerSec ByteSize `toml:"rate_limit_bytes_per_sec"`
	// EnableBlobFiles stores the values of at least MinBlobBytes in blob
	// files (RocksDB's integrated BlobDB) and only a pointer to each in the
	// SST files, so compactions rewrite pointers instead of values. Values
	// read from blob files are cached in the column family's block cache.
	// Default false: on 1 KiB strings it made GET slower and SET no faster
	// (docs/OPERATIONS.md, "Blob files").
	EnableBlobFiles bool `toml:"enable_blob_files"`
	// MinBlobBytes is the size from which a record's value goes to a blob
	// file when EnableBlobFiles is set; a string's value counts its 9-byte
	// header (docs/ENCODING.md). Default 4 KiB; at least 1.
	MinBlobBytes ByteSize `toml:"min_blob_bytes"`
	// BlobGC moves the live values out of the oldest quarter of the blob
	// files as compactions meet them, so that a blob file whose other
	// values were deleted or overwritten is deleted too. Without it a blob
	// file stays until every value in it is garbage. Default true.
	BlobGC bool `toml:"blob_gc"`
	// Metadata overrides per-column-family options for the metadata column
	// family ([rocksdb.metadata]). Default: no overrides.
	Metadata CFOverride `toml:"metadata"`
	// Subkey overrides per-column-family options for the subkey column
	// family ([rocksdb.subkey]), and for the score column family where
	// Score does not. Default: no overrides.
	Subkey CFOverride `toml:"subkey"`
	// Score overrides per-column-family options for the score column family
	// ([rocksdb.score]), over Subkey's. Default: 16 MiB memtables, of which
	// a flush merges 4, and at most 6.
	Score CFOverride `toml:"score"`
}

// ScoreOverride is what overrides [rocksdb] for the score column family:
// [rocksdb.score], then [rocksdb.subkey] for the keys it leaves out.
func (r RocksDB) ScoreOverride() CFOverride { return r.Score.over(r.Subkey) }

// CFOverride holds per-column-family overrides of [rocksdb] options. A nil
// field (the zero value) inherits the [rocksdb] value; pointers make "unset"
// differ from 0. Each set field obeys the same rule as its [rocksdb]
// counterpart.
type CFOverride struct {
	// WriteBufferBytes overrides RocksDB.WriteBufferBytes.
	WriteBufferBytes *ByteSize `toml:"write_buffer_bytes"`
	// MaxWriteBufferNumber overrides RocksDB.MaxWriteBufferNumber.
	MaxWriteBufferNumber *int `toml:"max_write_buffer_number"`
	// MinWriteBufferNumberToMerge overrides
	// RocksDB.MinWriteBufferNumberToMerge.
	MinWriteBufferNumberToMerge *int `toml:"min_write_buffer_number_to_merge"`
	// TargetFileSizeBytes overrides RocksDB.TargetFileSizeBytes.
	TargetFileSizeBytes *ByteSize `toml:"target_file_size_bytes"`
	// MaxBytesForLevelBase overrides RocksDB.MaxBytesForLevelBase.
	MaxBytesForLevelBase *ByteSize `toml:"max_bytes_for_level_base"`
	// Compression overrides RocksDB.Compression; nil inherits, an empty list
	// is an error.
	Compression []string `toml:"compression"`
	// BloomBitsPerKey overrides RocksDB.BloomBitsPerKey.
	BloomBitsPerKey *int `toml:"bloom_bits_per_key"`
	// BlockCacheBytes, when set, gives the column family its own block cache
	// of this many bytes instead of the shared one; must be more than 0.
	BlockCacheBytes *ByteSize `toml:"block_cache_bytes"`
	// EnableBlobFiles overrides RocksDB.EnableBlobFiles.
	EnableBlobFiles *bool `toml:"enable_blob_files"`
	// MinBlobBytes overrides RocksDB.MinBlobBytes.
	MinBlobBytes *ByteSize `toml:"min_blob_bytes"`
	// BlobGC overrides RocksDB.BlobGC.
	BlobGC *bool `toml:"blob_gc"`
}

// over returns o with the fields it leaves unset taken from base.
func (o CFOverride) over(base CFOverride) CFOverride {
	out := CFOverride{
		WriteBufferBytes:            orElse(o.WriteBufferBytes, base.WriteBufferBytes),
		MaxWriteBufferNumber:        orElse(o.MaxWriteBufferNumber, base.MaxWriteBufferNumber),
		MinWriteBufferNumberToMerge: orElse(o.MinWriteBufferNumberToMerge, base.MinWriteBufferNumberToMerge),
		TargetFileSizeBytes:         orElse(o.TargetFileSizeBytes, base.TargetFileSizeBytes),
		MaxBytesForLevelBase:        orElse(o.MaxBytesForLevelBase, base.MaxBytesForLevelBase),
		Compression:                 o.Compression,
		BloomBitsPerKey:             orElse(o.BloomBitsPerKey, base.BloomBitsPerKey),
		BlockCacheBytes:             orElse(o.BlockCacheBytes, base.BlockCacheBytes),
		EnableBlobFiles:             orElse(o.EnableBlobFiles, base.EnableBlobFiles),
		MinBlobBytes:                orElse(o.MinBlobBytes, base.MinBlobBytes),
		BlobGC:                      orElse(o.BlobGC, base.BlobGC),
	}
	if out.Compression == nil {
		out.Compression = base.Compression
	}
	return out
}

// orElse returns a, or b when a is unset.
func orElse[T any](a, b *T) *T {
	if a != nil {
		return a
	}
	return b
}

// CFOptions is the resolved set of per-column-family options, as returned by
// RocksDB.Effective.
type CFOptions struct {
	WriteBufferBytes            ByteSize
	MaxWriteBufferNumber        int
	MinWriteBufferNumberToMerge int
	TargetFileSizeBytes         ByteSize
	MaxBytesForLevelBase        ByteSize
	Compression                 []string // per level, L0 first; the last repeats for deeper levels
	BloomBitsPerKey             int      // 0 = no bloom filter
	OwnBlockCacheBytes          ByteSize // 0 = use the shared block cache
	EnableBlobFiles             bool
	MinBlobBytes                ByteSize
	BlobGC                      bool
}

// Effective merges the override o over r and returns the resolved options of
// one column family. The returned Compression is a fresh slice.
func (r RocksDB) Effective(o CFOverride) CFOptions {
	e := CFOptions{
		WriteBufferBytes:            r.WriteBufferBytes,
		MaxWriteBufferNumber:        r.MaxWriteBufferNumber,
		MinWriteBufferNumberToMerge: r.MinWriteBufferNumberToMerge,
		TargetFileSizeBytes:         r.TargetFileSizeBytes,
		MaxBytesForLevelBase:        r.MaxBytesForLevelBase,
		Compression:                 r.Compression,
		BloomBitsPerKey:             r.BloomBitsPerKey,
		EnableBlobFiles:             r.EnableBlobFiles,
		MinBlobBytes:                r.MinBlobBytes,
		BlobGC:                      r.BlobGC,
	}
	if o.WriteBufferBytes != nil {
		e.WriteBufferBytes = *o.WriteBufferBytes
	}
	if o.MaxWriteBufferNumber != nil {
		e.MaxWriteBufferNumber = *o.MaxWriteBufferNumber
	}
	if o.MinWriteBufferNumberToMerge != nil {
		e.MinWriteBufferNumberToMerge = *o.MinWriteBufferNumberToMerge
	}
	if o.TargetFileSizeBytes != nil {
		e.TargetFileSizeBytes = *o.TargetFileSizeBytes
	}
	if o.MaxBytesForLevelBase != nil {
		e.MaxBytesForLevelBase = *o.MaxBytesForLevelBase
	}
	if o.Compression != nil {
		e.Compression = o.Compression
	}
	if o.BloomBitsPerKey != nil {
		e.BloomBitsPerKey = *o.BloomBitsPerKey
	}
	if o.BlockCacheBytes != nil {
		e.OwnBlockCacheBytes = *o.BlockCacheBytes
	}
	if o.EnableBlobFiles != nil {
		e.EnableBlobFiles = *o.EnableBlobFiles
	}
	if o.MinBlobBytes != nil {
		e.MinBlobBytes = *o.MinBlobBytes
	}
	if o.BlobGC != nil {
		e.BlobGC = *o.BlobGC
	}
	e.Compression = append([]string(nil), e.Compression...)
	return e
}

// Compaction is the [compaction] section: the background reclaimer that
// compacts away the sub-keys of big removed keys soon after their removal.
type Compaction struct {
	// ReclaimMinElements is the element count from which removing a key
	// queues its uid for a targeted compaction. Default 10000; at least 1.
	ReclaimMinElements int64 `toml:"reclaim_min_elements"`
	// ReclaimMaxPerSecond caps targeted range compactions per second (a token
	// bucket). Default 4; at least one a day (minReclaimPerSecond).
	ReclaimMaxPerSecond float64 `toml:"reclaim_max_per_second"`
	// ReclaimQueueLength is the capacity of the reclaim queue, in uids; when
	// it is full, further uids are left to normal compaction (and logged).
	// Default 4096; at least 1.
	ReclaimQueueLength int `toml:"reclaim_queue_length"`
	// ReclaimDelay is how long a queued uid waits before its compaction, so
	// that the memtable holding the metadata delete is flushed first.
	// Default "1s"; must not be negative.
	ReclaimDelay Duration `toml:"reclaim_delay"`
	// FullWindow is a daily time window, "HH:MM-HH:MM" in the server's local
	// time zone (the TZ environment variable), in which one full compaction
	// of every column family runs; the window may cross midnight
	// ("23:30-01:00"). Default "" means no scheduled compaction.
	FullWindow string `toml:"full_window"`
	// FullMaxBytesPerSec paces the scheduled full compaction: it compacts one
	// key range at a time and waits between ranges so that on average it
	// reads no more than this many SST bytes per second. Default 64 MiB;
	// 0 means no pacing.
	FullMaxBytesPerSec ByteSize `toml:"full_max_bytes_per_sec"`
}

// Log is the [log] section.
type Log struct {
	// Level is the minimum level logged: "trace", "debug", "info", "warn" or
	// "error". Default "info".
	Level string `toml:"level"`
	// Format is "console" (human-readable) or "json". Default "console".
	Format string `toml:"format"`
	// File is the log file, opened for append. Default "" means stderr.
	File string `toml:"file"`
}

// Metrics is the [metrics] section: the Prometheus endpoint.
type Metrics struct {
	// Addr is where /metrics is served over HTTP. Default "" serves
	// nothing. A bare port ("9121" or ":9121") listens on 127.0.0.1 only;
	// give a host ("0.0.0.0:9121") to listen elsewhere.
	Addr string `toml:"addr"`
	// Pprof also serves Go's profiles and execution trace at /debug/pprof/
	// on Addr (net/http/pprof), for finding where CPU and latency go.
	// Default false; needs Addr.
	Pprof bool `toml:"pprof"`
}

// ListenAddr is Addr with a bare port bound to loopback; "" when metrics
// are off.
func (m Metrics) ListenAddr() string {
	switch {
	case m.Addr == "":
		return ""
	case !strings.Contains(m.Addr, ":"):
		return net.JoinHostPort("127.0.0.1", m.Addr)
	case strings.HasPrefix(m.Addr, ":"):
		return "127.0.0.1" + m.Addr
	}
	return m.Addr
}

func byteSizePtr(v ByteSize) *ByteSize { return &v }

func intPtr(v int) *int { return &v }

// Default returns the default configuration. It is the only place defaults
// are written down; each call returns fresh slices.
func Default() Config {
	return Config{
		Server: Server{
			Bind:         "127.0.0.1",
			Port:         6379,
			Databases:    16,
			MaxClients:   10000,
			TCPKeepalive: Duration{300 * time.Second},

			SlowlogLogSlowerThan: 10000,
			SlowlogMaxLen:        128,
			BusyReplyThresholdMs: 5000,
			TrackingTableMaxKeys: 1000000,

			ProtoMaxBulkLen:         512 * MiB,
			ProtoMaxMultibulkLen:    1<<31 - 1,
			ClientQueryBufferLimit:  GiB,
			ClientOutputBufferLimit: GiB,

			PubsubOutputBufferLimit:     32 * MiB,
			PubsubOutputBufferSoftLimit: 8 * MiB,
			PubsubOutputBufferSoftTime:  Duration{60 * time.Second},

			GoGCPercent: 100,
			IOLoops:     -1,
		},
		Storage: Storage{
			Dir:                "./data",
			BackupDir:          "./backup",
			MetadataCacheBytes: 16 * MiB,
			SubkeyCacheBytes:   8 * MiB,
		},
		RocksDB: RocksDB{
			BlockCacheBytes:                 16 * MiB,
			WriteBufferBytes:                32 * MiB,
			MaxWriteBufferNumber:            4,
			MinWriteBufferNumberToMerge:     1,
			MaxBackgroundJobs:               4,
			TargetFileSizeBytes:             64 * MiB,
			MaxBytesForLevelBase:            256 * MiB,
			Level0FileNumCompactionTrigger:  4,
			Level0SlowdownWritesTrigger:     20,
			Level0StopWritesTrigger:         36,
			SoftPendingCompactionBytesLimit: 64 * GiB,
			HardPendingCompactionBytesLimit: 256 * GiB,
			Compression:                     []string{"no", "no", "lz4", "lz4", "lz4", "zstd", "zstd"},
			BloomBitsPerKey:                 10,
			MinBlobBytes:                    4 * KiB,
			BlobGC:                          true,
			// Every write of a key inserts into the metadata memtable, a
			// skip list searched at about a cache miss per level: a small
			// one stays in the CPU's cache. Its records are small, so
			// small memtables flush often but cheaply.
			Metadata: CFOverride{WriteBufferBytes: byteSizePtr(8 * MiB)},
			// A ZADD that moves a member inserts two of its three records
			// into the score memtable. Small memtables are cheaper to
			// insert into, and a flush that merges 4 of them still writes
			// level-0 files of the size the other column families do.
			Score: CFOverride{WriteBufferBytes: byteSizePtr(16 * MiB), MaxWriteBufferNumber: intPtr(6),
				MinWriteBufferNumberToMerge: intPtr(4)},
		},
		Compaction: Compaction{
			ReclaimMinElements:  10000,
			ReclaimMaxPerSecond: 4,
			ReclaimQueueLength:  4096,
			ReclaimDelay:        Duration{time.Second},
			FullMaxBytesPerSec:  64 * MiB,
		},
		Encoding: Encoding{
			HashMaxListpackEntries: 512,
			HashMaxListpackValue:   64,
			ListMaxListpackSize:    -2,
			SetMaxIntsetEntries:    512,
			ZSetMaxListpackEntries: 128,
			ZSetMaxListpackValue:   64,
			HLLSparseMaxBytes:      3000,
		},
		Log: Log{
			Level:  "info",
			Format: "console",
		},
		Replication: DefaultReplication(),
	}
}

// Addr returns the listen address, "bind:port" (with brackets for IPv6).
func (c Config) Addr() string {
	return net.JoinHostPort(c.Server.Bind, strconv.Itoa(c.Server.Port))
}

// KeyspaceEventClasses are the letters notify_keyspace_events may hold, in
// the order of Redis's error message for any other.
const KeyspaceEventClasses = "Ag$lshzxeKEtmdn"
