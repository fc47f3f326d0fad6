package server

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/shaledb/shale/conf"
	"github.com/shaledb/shale/server/types"
)

// The schema behind CONFIG (whose handlers are in cmd_config.go): the
// parameters over conf.Config, applying a new config to the running
// server, and rewriting the config file.
//
// configParams is the one table of parameters. A parameter has Redis's name
// where Redis has one (port, maxclients, loglevel...) and otherwise the TOML
// "section.key" (rocksdb.write_buffer_bytes). CONFIG SET parses values into
// a copy of the config, runs conf's Validate on the copy, has the store
// apply the RocksDB options (the only step that can fail), makes the copy
// current under s.mu, then pushes the other changes (applyConfig). A
// parameter without set cannot change at runtime.

// configParam is one CONFIG parameter.
type configParam struct {
	name string // CONFIG's name, lower-case
	key  string // the TOML key, which Validate's messages start with; "" for Redis-only names
	get  func(c *conf.Config) string
	set  func(c *conf.Config, v string) error // nil: immutable (change the file and restart)
}

// settable says whether CONFIG SET may change a parameter.
type settable bool

const (
	restart settable = false // read only at start-up
	live    settable = true  // CONFIG SET changes it on the running server
)

// valueCodec formats and parses one kind of value.
type valueCodec[T any] struct {
	format func(T) string
	parse  func(string) (T, error)
}

// field makes the parameter for the config field that at points to.
func field[T any](name, key string, vc valueCodec[T], at func(*conf.Config) *T, s settable) configParam {
	p := configParam{name: name, key: key, get: func(c *conf.Config) string { return vc.format(*at(c)) }}
	if s {
		p.set = func(c *conf.Config, v string) error {
			x, err := vc.parse(v)
			if err != nil {
				return err
			}
			*at(c) = x
			return nil
		}
	}
	return p
}

var (
	errNotInt   = errors.New("argument couldn't be parsed into an integer")
	errNotFlt   = errors.New("argument couldn't be parsed into a float")
	errNotBool  = errors.New("argument must be 'yes' or 'no'")
	stringValue = valueCodec[string]{
		format: func(s string) string { return s },
		parse:  func(s string) (string, error) { return s, nil },
	}
	intValue = valueCodec[int]{
		format: strconv.Itoa,
		parse: func(s string) (int, error) {
			n, ok := types.ParseInt([]byte(s)) // Redis's strictness: no "+5" or "05"
			if !ok {
				return 0, errNotInt
			}
			return int(n), nil
		},
	}
	int64Value = valueCodec[int64]{
		format: func(n int64) string { return strconv.FormatInt(n, 10) },
		parse: func(s string) (int64, error) {
			n, ok := types.ParseInt([]byte(s))
			if !ok {
				return 0, errNotInt
			}
			return n, nil
		},
	}
	floatValue = valueCodec[float64]{
		format: func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) },
		parse: func(s string) (float64, error) {
			f, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return 0, errNotFlt
			}
			return f, nil
		},
	}
	boolValue = valueCodec[bool]{
		format: func(b bool) string {
			if b {
				return "yes"
			}
			return "no"
		},
		parse: func(s string) (bool, error) {
			switch strings.ToLower(s) {
			case "yes", "true":
				return true, nil
			case "no", "false":
				return false, nil
			}
			return false, errNotBool
		},
	}
	// sizeValue reads what TOML reads ("64MiB", "4096") and writes bytes.
	sizeValue = valueCodec[conf.ByteSize]{
		format: func(b conf.ByteSize) string { return strconv.FormatInt(int64(b), 10) },
		parse: func(s string) (conf.ByteSize, error) {
			var b conf.ByteSize
			err := b.UnmarshalText([]byte(s))
			return b, err
		},
	}
	durationValue = valueCodec[conf.Duration]{
		format: func(d conf.Duration) string { return d.Duration.String() },
		parse: func(s string) (conf.Duration, error) {
			var d conf.Duration
			err := d.UnmarshalText([]byte(s))
			return d, err
		},
	}
	// listValue is a compression list, written space-separated; SET also
	// takes commas.
	listValue = valueCodec[[]string]{
		format: func(l []string) string { return strings.Join(l, " ") },
		parse: func(s string) ([]string, error) {
			return append([]string{}, strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' })...), nil
		},
	}
	// logLevelValue also takes Redis's level names, and answers any other
	// name with Redis's text, which lists only those.
	logLevelValue = valueCodec[string]{
		format: func(s string) string { return s },
		parse: func(s string) (string, error) {
			switch s = strings.ToLower(s); s {
			case "verbose":
				return "debug", nil
			case "notice":
				return "info", nil
			case "warning":
				return "warn", nil
			case "trace", "debug", "info", "warn", "error":
				return s, nil
			}
			return "", errors.New("argument(s) must be one of the following: debug, verbose, notice, warning")
		},
	}
)

// Redis's CONFIG SET texts for a numeric value it cannot use; errNotInt
// is its text for one that is no integer.
var errNotMemory = errors.New("argument must be a memory value")

func errConfigRange(lo, hi int64) error {
	return fmt.Errorf("argument must be between %d and %d inclusive", lo, hi)
}

// redisInt is the codec of an integer parameter that has Redis's name:
// Redis's strictness (no '+', spaces or leading zeros), its range and its
// texts, so that a value Redis refuses never reaches the server.
func redisInt[T ~int | ~int64](lo, hi int64) valueCodec[T] {
	return valueCodec[T]{
		format: func(n T) string { return strconv.FormatInt(int64(n), 10) },
		parse: func(s string) (T, error) {
			n, ok := types.ParseInt([]byte(s))
			if !ok {
				return 0, errNotInt
			}
			if n < lo || n > hi {
				return 0, errConfigRange(lo, hi)
			}
			return T(n), nil
		},
	}
}

// redisSeconds is Redis's timeout and tcp-keepalive: whole seconds in
// [0, hi], as redisInt reads them; SET also takes a duration such as "90s"
// or "5m", within the same range.
func redisSeconds(hi int64) valueCodec[conf.Duration] {
	secs := redisInt[int64](0, hi)
	return valueCodec[conf.Duration]{
		format: func(d conf.Duration) string { return strconv.FormatInt(int64(d.Duration/time.Second), 10) },
		parse: func(s string) (conf.Duration, error) {
			n, err := secs.parse(s)
			if errors.Is(err, errNotInt) {
				d, derr := time.ParseDuration(s)
				if derr != nil {
					return conf.Duration{}, errNotInt
				}
				if d < 0 || d/time.Second > time.Duration(hi) {
					return conf.Duration{}, errConfigRange(0, hi)
				}
				return conf.Duration{Duration: d}, nil
			}
			if err != nil {
				return conf.Duration{}, err
			}
			return conf.Duration{Duration: time.Duration(n) * time.Second}, nil
		},
	}
}

// redisMemory is a memory parameter that has Redis's name: Redis's units
// (b, k = 1000, kb = 1024, m, mb, g, gb, in any case) and range [lo,
// MaxInt64], with its texts; SET also takes what TOML takes ("64MiB").
func redisMemory(lo int64) valueCodec[conf.ByteSize] {
	return valueCodec[conf.ByteSize]{
		format: sizeValue.format,
		parse: func(s string) (conf.ByteSize, error) {
			n, ok, overflow := memtoull(s)
			if !ok {
				b, err := sizeValue.parse(s)
				if err != nil {
					return 0, errNotMemory
				}
				n = int64(b)
			}
			if overflow || n < lo {
				return 0, errConfigRange(lo, math.MaxInt64)
			}
			return conf.ByteSize(n), nil
		},
	}
}

// memtoull reads a memory value as Redis's memtoull does: digits, then an
// optional unit; no sign or spaces. overflow reports a value beyond int64,
// which Redis wraps and then refuses as out of range (or, wrapped to a
// value in range, takes: Shale refuses it).
func memtoull(s string) (n int64, ok, overflow bool) {
	digits := len(s) - len(strings.TrimLeft(s, "0123456789"))
	var mul uint64
	switch strings.ToLower(s[digits:]) {
	case "", "b":
		mul = 1
	case "k":
		mul = 1000
	case "kb":
		mul = 1024
	case "m":
		mul = 1000 * 1000
	case "mb":
		mul = 1024 * 1024
	case "g":
		mul = 1000 * 1000 * 1000
	case "gb":
		mul = 1024 * 1024 * 1024
	default:
		return 0, false, false
	}
	if digits == 0 {
		return 0, true, false // strtoull reads "" as 0
	}
	v, err := strconv.ParseUint(s[:digits], 10, 64)
	if err != nil || v > math.MaxInt64/mul {
		return 0, true, true
	}
	return int64(v * mul), true, false
}

// optional makes a codec for a per-column-family override: "" means unset,
// inheriting the [rocksdb] value.
func optional[T any](vc valueCodec[T]) valueCodec[*T] {
	return valueCodec[*T]{
		format: func(p *T) string {
			if p == nil {
				return ""
			}
			return vc.format(*p)
		},
		parse: func(s string) (*T, error) {
			if s == "" {
				return nil, nil
			}
			v, err := vc.parse(s)
			if err != nil {
				return nil, err
			}
			return &v, nil
		},
	}
}

// optionalList is optional for the compression override, a slice.
var optionalList = valueCodec[[]string]{
	format: listValue.format,
	parse: func(s string) ([]string, error) {
		if s == "" {
			return nil, nil
		}
		return listValue.parse(s)
	},
}

// overrideParams are the parameters of one [rocksdb.<cf>] override table.
func overrideParams(section string, at func(*conf.Config) *conf.CFOverride) []configParam {
	return []configParam{
		field(section+".write_buffer_bytes", section+".write_buffer_bytes", optional(sizeValue),
			func(c *conf.Config) **conf.ByteSize { return &at(c).WriteBufferBytes }, live),
		field(section+".max_write_buffer_number", section+".max_write_buffer_number", optional(intValue),
			func(c *conf.Config) **int { return &at(c).MaxWriteBufferNumber }, live),
		field(section+".min_write_buffer_number_to_merge", section+".min_write_buffer_number_to_merge", optional(intValue),
			func(c *conf.Config) **int { return &at(c).MinWriteBufferNumberToMerge }, restart),
		field(section+".target_file_size_bytes", section+".target_file_size_bytes", optional(sizeValue),
			func(c *conf.Config) **conf.ByteSize { return &at(c).TargetFileSizeBytes }, live),
		field(section+".max_bytes_for_level_base", section+".max_bytes_for_level_base", optional(sizeValue),
			func(c *conf.Config) **conf.ByteSize { return &at(c).MaxBytesForLevelBase }, live),
		field(section+".compression", section+".compression", optionalList,
			func(c *conf.Config) *[]string { return &at(c).Compression }, live),
		field(section+".bloom_bits_per_key", section+".bloom_bits_per_key", optional(intValue),
			func(c *conf.Config) **int { return &at(c).BloomBitsPerKey }, restart),
		field(section+".block_cache_bytes", section+".block_cache_bytes", optional(sizeValue),
			func(c *conf.Config) **conf.ByteSize { return &at(c).BlockCacheBytes }, restart),
		field(section+".enable_blob_files", section+".enable_blob_files", optional(boolValue),
			func(c *conf.Config) **bool { return &at(c).EnableBlobFiles }, live),
		field(section+".min_blob_bytes", section+".min_blob_bytes", optional(sizeValue),
			func(c *conf.Config) **conf.ByteSize { return &at(c).MinBlobBytes }, live),
		field(section+".blob_gc", section+".blob_gc", optional(boolValue),
			func(c *conf.Config) **bool { return &at(c).BlobGC }, live),
	}
}

// configParams is every CONFIG parameter, in CONFIG GET's order. The
// runtime column of docs/OPERATIONS.md must match the live entries.
var configParams = slices.Concat(
	[]configParam{
		field("bind", "server.bind", stringValue, func(c *conf.Config) *string { return &c.Server.Bind }, restart),
		field("port", "server.port", intValue, func(c *conf.Config) *int { return &c.Server.Port }, restart),
		field("databases", "server.databases", intValue, func(c *conf.Config) *int { return &c.Server.Databases }, restart),
		field("requirepass", "server.requirepass", stringValue, func(c *conf.Config) *string { return &c.Server.RequirePass }, live),
		field("maxclients", "server.maxclients", redisInt[int](1, math.MaxUint32), func(c *conf.Config) *int { return &c.Server.MaxClients }, live),
		field("timeout", "server.timeout", redisSeconds(math.MaxInt32), func(c *conf.Config) *conf.Duration { return &c.Server.Timeout }, live),
		field("tcp-keepalive", "server.tcp_keepalive", redisSeconds(math.MaxInt32), func(c *conf.Config) *conf.Duration { return &c.Server.TCPKeepalive }, live),
		field("enable-debug-command", "server.enable_debug_command", boolValue, func(c *conf.Config) *bool { return &c.Server.EnableDebugCommand }, restart),
		field("slowlog-log-slower-than", "server.slowlog_log_slower_than", redisInt[int64](-1, math.MaxInt64), func(c *conf.Config) *int64 { return &c.Server.SlowlogLogSlowerThan }, live),
		field("slowlog-max-len", "server.slowlog_max_len", redisInt[int](0, math.MaxInt64), func(c *conf.Config) *int { return &c.Server.SlowlogMaxLen }, live),
		field("notify-keyspace-events", "server.notify_keyspace_events", notifyEventsValue, func(c *conf.Config) *string { return &c.Server.NotifyKeyspaceEvents }, live),
		field("tracking-table-max-keys", "server.tracking_table_max_keys", redisInt[int64](0, math.MaxInt64), func(c *conf.Config) *int64 { return &c.Server.TrackingTableMaxKeys }, live),
		field("busy-reply-threshold", "server.busy_reply_threshold_ms", redisInt[int64](0, math.MaxInt64), func(c *conf.Config) *int64 { return &c.Server.BusyReplyThresholdMs }, live),
		field("lua-time-limit", "server.busy_reply_threshold_ms", redisInt[int64](0, math.MaxInt64), func(c *conf.Config) *int64 { return &c.Server.BusyReplyThresholdMs }, live),
		field("latency-monitor-threshold", "server.latency_monitor_threshold_ms", redisInt[int64](0, math.MaxInt64), func(c *conf.Config) *int64 { return &c.Server.LatencyMonitorThresholdMs }, live),
		field("proto-max-bulk-len", "server.proto_max_bulk_len", redisMemory(int64(conf.MiB)), func(c *conf.Config) *conf.ByteSize { return &c.Server.ProtoMaxBulkLen }, live),
		// At least 4 at runtime: a CONFIG SET of one parameter has 4
		// arguments, and a lower limit could never be set back.
		field("server.proto_max_multibulk_len", "server.proto_max_multibulk_len", redisInt[int64](4, math.MaxInt64), func(c *conf.Config) *int64 { return &c.Server.ProtoMaxMultibulkLen }, live),
		field("client-query-buffer-limit", "server.client_query_buffer_limit", redisMemory(int64(conf.MiB)), func(c *conf.Config) *conf.ByteSize { return &c.Server.ClientQueryBufferLimit }, live),
		field("server.client_output_buffer_limit", "server.client_output_buffer_limit", sizeValue, func(c *conf.Config) *conf.ByteSize { return &c.Server.ClientOutputBufferLimit }, live),
		field("server.pubsub_output_buffer_limit", "server.pubsub_output_buffer_limit", sizeValue, func(c *conf.Config) *conf.ByteSize { return &c.Server.PubsubOutputBufferLimit }, live),
		field("server.pubsub_output_buffer_soft_limit", "server.pubsub_output_buffer_soft_limit", sizeValue, func(c *conf.Config) *conf.ByteSize { return &c.Server.PubsubOutputBufferSoftLimit }, live),
		field("server.pubsub_output_buffer_soft_time", "server.pubsub_output_buffer_soft_time", durationValue, func(c *conf.Config) *conf.Duration { return &c.Server.PubsubOutputBufferSoftTime }, live),
		{name: "client-output-buffer-limit", get: formatOutputLimits, set: parseOutputLimits},
		field("server.go_gc_percent", "server.go_gc_percent", intValue, func(c *conf.Config) *int { return &c.Server.GoGCPercent }, restart),
		field("server.go_max_procs", "server.go_max_procs", intValue, func(c *conf.Config) *int { return &c.Server.GoMaxProcs }, restart),
		field("server.io_loops", "server.io_loops", intValue, func(c *conf.Config) *int { return &c.Server.IOLoops }, restart),

		field("dir", "storage.dir", stringValue, func(c *conf.Config) *string { return &c.Storage.Dir }, restart),
		field("storage.sync_writes", "storage.sync_writes", boolValue, func(c *conf.Config) *bool { return &c.Storage.SyncWrites }, restart),
		field("storage.backup_dir", "storage.backup_dir", stringValue, func(c *conf.Config) *string { return &c.Storage.BackupDir }, live),
		field("storage.metadata_cache_bytes", "storage.metadata_cache_bytes", sizeValue, func(c *conf.Config) *conf.ByteSize { return &c.Storage.MetadataCacheBytes }, restart),
		field("storage.subkey_cache_bytes", "storage.subkey_cache_bytes", sizeValue, func(c *conf.Config) *conf.ByteSize { return &c.Storage.SubkeyCacheBytes }, restart),

		field("rocksdb.block_cache_bytes", "rocksdb.block_cache_bytes", sizeValue, func(c *conf.Config) *conf.ByteSize { return &c.RocksDB.BlockCacheBytes }, restart),
		field("rocksdb.write_buffer_bytes", "rocksdb.write_buffer_bytes", sizeValue, func(c *conf.Config) *conf.ByteSize { return &c.RocksDB.WriteBufferBytes }, live),
		field("rocksdb.max_write_buffer_number", "rocksdb.max_write_buffer_number", intValue, func(c *conf.Config) *int { return &c.RocksDB.MaxWriteBufferNumber }, live),
		field("rocksdb.min_write_buffer_number_to_merge", "rocksdb.min_write_buffer_number_to_merge", intValue, func(c *conf.Config) *int { return &c.RocksDB.MinWriteBufferNumberToMerge }, restart),
		field("rocksdb.max_background_jobs", "rocksdb.max_background_jobs", intValue, func(c *conf.Config) *int { return &c.RocksDB.MaxBackgroundJobs }, restart),
		field("rocksdb.target_file_size_bytes", "rocksdb.target_file_size_bytes", sizeValue, func(c *conf.Config) *conf.ByteSize { return &c.RocksDB.TargetFileSizeBytes }, live),
		field("rocksdb.max_bytes_for_level_base", "rocksdb.max_bytes_for_level_base", sizeValue, func(c *conf.Config) *conf.ByteSize { return &c.RocksDB.MaxBytesForLevelBase }, live),
		field("rocksdb.level0_file_num_compaction_trigger", "rocksdb.level0_file_num_compaction_trigger", intValue, func(c *conf.Config) *int { return &c.RocksDB.Level0FileNumCompactionTrigger }, live),
		field("rocksdb.level0_slowdown_writes_trigger", "rocksdb.level0_slowdown_writes_trigger", intValue, func(c *conf.Config) *int { return &c.RocksDB.Level0SlowdownWritesTrigger }, live),
		field("rocksdb.level0_stop_writes_trigger", "rocksdb.level0_stop_writes_trigger", intValue, func(c *conf.Config) *int { return &c.RocksDB.Level0StopWritesTrigger }, live),
		field("rocksdb.disable_auto_compactions", "rocksdb.disable_auto_compactions", boolValue, func(c *conf.Config) *bool { return &c.RocksDB.DisableAutoCompactions }, live),
		field("rocksdb.soft_pending_compaction_bytes_limit", "rocksdb.soft_pending_compaction_bytes_limit", sizeValue, func(c *conf.Config) *conf.ByteSize { return &c.RocksDB.SoftPendingCompactionBytesLimit }, live),
		field("rocksdb.hard_pending_compaction_bytes_limit", "rocksdb.hard_pending_compaction_bytes_limit", sizeValue, func(c *conf.Config) *conf.ByteSize { return &c.RocksDB.HardPendingCompactionBytesLimit }, live),
		field("rocksdb.compression", "rocksdb.compression", listValue, func(c *conf.Config) *[]string { return &c.RocksDB.Compression }, live),
		field("rocksdb.bloom_bits_per_key", "rocksdb.bloom_bits_per_key", intValue, func(c *conf.Config) *int { return &c.RocksDB.BloomBitsPerKey }, restart),
		field("rocksdb.rate_limit_bytes_per_sec", "rocksdb.rate_limit_bytes_per_sec", sizeValue, func(c *conf.Config) *conf.ByteSize { return &c.RocksDB.RateLimitBytesPerSec }, restart),
		field("rocksdb.enable_blob_files", "rocksdb.enable_blob_files", boolValue, func(c *conf.Config) *bool { return &c.RocksDB.EnableBlobFiles }, live),
		field("rocksdb.min_blob_bytes", "rocksdb.min_blob_bytes", sizeValue, func(c *conf.Config) *conf.ByteSize { return &c.RocksDB.MinBlobBytes }, live),
		field("rocksdb.blob_gc", "rocksdb.blob_gc", boolValue, func(c *conf.Config) *bool { return &c.RocksDB.BlobGC }, live),
	},
	overrideParams("rocksdb.metadata", func(c *conf.Config) *conf.CFOverride { return &c.RocksDB.Metadata }),
	overrideParams("rocksdb.subkey", func(c *conf.Config) *conf.CFOverride { return &c.RocksDB.Subkey }),
	overrideParams("rocksdb.score", func(c *conf.Config) *conf.CFOverride { return &c.RocksDB.Score }),
	[]configParam{
		field("compaction.reclaim_min_elements", "compaction.reclaim_min_elements", int64Value, func(c *conf.Config) *int64 { return &c.Compaction.ReclaimMinElements }, live),
		field("compaction.reclaim_max_per_second", "compaction.reclaim_max_per_second", floatValue, func(c *conf.Config) *float64 { return &c.Compaction.ReclaimMaxPerSecond }, live),
		field("compaction.reclaim_queue_length", "compaction.reclaim_queue_length", intValue, func(c *conf.Config) *int { return &c.Compaction.ReclaimQueueLength }, restart),
		field("compaction.reclaim_delay", "compaction.reclaim_delay", durationValue, func(c *conf.Config) *conf.Duration { return &c.Compaction.ReclaimDelay }, restart),
		field("compaction.full_window", "compaction.full_window", stringValue, func(c *conf.Config) *string { return &c.Compaction.FullWindow }, live),
		field("compaction.full_max_bytes_per_sec", "compaction.full_max_bytes_per_sec", sizeValue, func(c *conf.Config) *conf.ByteSize { return &c.Compaction.FullMaxBytesPerSec }, live),

		field("loglevel", "log.level", logLevelValue, func(c *conf.Config) *string { return &c.Log.Level }, live),
		field("log.format", "log.format", stringValue, func(c *conf.Config) *string { return &c.Log.Format }, restart),
		field("logfile", "log.file", stringValue, func(c *conf.Config) *string { return &c.Log.File }, restart),

		field("metrics.addr", "metrics.addr", stringValue, func(c *conf.Config) *string { return &c.Metrics.Addr }, restart),
		field("metrics.pprof", "metrics.pprof", boolValue, func(c *conf.Config) *bool { return &c.Metrics.Pprof }, restart),
	},
	encodingParams,
	redisPersistenceParams,
	replicationParams,
)

// Redis's client-output-buffer-limit is one value for three client classes,
// "<class> <hard> <soft> <soft_seconds>" each: the normal class's hard limit
// is server.client_output_buffer_limit (Shale gives normal clients no soft
// limit), the pubsub class's three are server.pubsub_output_buffer_*, and
// the replica class, which Shale has no use for, keeps Redis's defaults.
// SET takes any of the classes, in Redis's syntax (memory units such as
// 32mb), and refuses the whole value when one part is wrong.

// replicaOutputLimits is the replica class's part of the value, fixed.
const replicaOutputLimits = "268435456 67108864 60"

func formatOutputLimits(c *conf.Config) string {
	s := &c.Server
	return fmt.Sprintf("normal %d 0 0 slave %s pubsub %d %d %d", int64(s.ClientOutputBufferLimit), replicaOutputLimits,
		int64(s.PubsubOutputBufferLimit), int64(s.PubsubOutputBufferSoftLimit), int64(s.PubsubOutputBufferSoftTime.Duration/time.Second))
}

// Redis's texts for a client-output-buffer-limit it cannot read.
var (
	errOutputLimitsArgs   = errors.New("Wrong number of arguments in buffer limit configuration.")
	errOutputLimitsClass  = errors.New("Invalid client class specified in buffer limit configuration.")
	errOutputLimitsValues = errors.New("Error in hard, soft or soft_seconds setting in buffer limit configuration.")
)

func parseOutputLimits(c *conf.Config, v string) error {
	f := strings.Fields(v)
	if len(f)%4 != 0 {
		return errOutputLimitsArgs
	}
	next := c.Server
	for i := 0; i < len(f); i += 4 {
		class := strings.ToLower(f[i])
		if class != "normal" && class != "slave" && class != "replica" && class != "pubsub" {
			return errOutputLimitsClass
		}
		hard, okHard, overHard := memtoull(f[i+1])
		soft, okSoft, overSoft := memtoull(f[i+2])
		secs, ok := types.ParseInt([]byte(f[i+3]))
		// Redis reads the seconds with strtoll, which takes "+5" and
		// "05" too; ParseInt does not, nor more seconds than a Duration
		// holds.
		if !ok {
			n, err := strconv.ParseInt(f[i+3], 10, 64)
			secs, ok = n, err == nil
		}
		if !okHard || overHard || !okSoft || overSoft || !ok || secs < 0 || secs > math.MaxInt64/int64(time.Second) {
			return errOutputLimitsValues
		}
		switch class {
		case "normal":
			if soft != 0 || secs != 0 {
				return errors.New("the normal class has a hard limit only in Shale: give it as \"normal <hard> 0 0\"")
			}
			next.ClientOutputBufferLimit = conf.ByteSize(hard)
		case "slave", "replica":
			if hard != 268435456 || soft != 67108864 || secs != 60 {
				return errors.New("a Shale primary sends its replicas its log as they take it, and buffers none of it: the replica class stays \"" + replicaOutputLimits + "\"")
			}
		case "pubsub":
			next.PubsubOutputBufferLimit = conf.ByteSize(hard)
			next.PubsubOutputBufferSoftLimit = conf.ByteSize(soft)
			next.PubsubOutputBufferSoftTime = conf.Duration{Duration: time.Duration(secs) * time.Second}
		}
	}
	c.Server = next
	return nil
}

// lookupConfig finds a parameter by name, ignoring case.
func lookupConfig(name string) *configParam {
	for i := range configParams {
		if strings.EqualFold(configParams[i].name, name) {
			return &configParams[i]
		}
	}
	return nil
}

// config returns a copy of the current configuration. Its pointers and
// slices are shared but never written through: CONFIG SET replaces them.
func (s *Server) config() conf.Config {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg
}

// applyConfig pushes the differences between old and next, other than
// RocksDB's (the store's ApplyOptions), to the running server. requirepass, maxclients,
// timeout, tcp-keepalive and storage.backup_dir need nothing: they are read
// from s.cfg when used.
func (s *Server) applyConfig(old, next *conf.Config) {
	s.setLimits(next.Server)
	if next.Encoding != old.Encoding {
		s.eng.SetEncodingLimits(encodingLimits(next.Encoding))
	}
	if next.Compaction.FullWindow != old.Compaction.FullWindow || next.Compaction.FullMaxBytesPerSec != old.Compaction.FullMaxBytesPerSec {
		w, _ := conf.ParseWindow(next.Compaction.FullWindow) // validated
		s.st.SetFullCompaction(w, next.Compaction.FullMaxBytesPerSec)
	}
	if next.Compaction.ReclaimMinElements != old.Compaction.ReclaimMinElements {
		s.st.SetReclaimMinElements(next.Compaction.ReclaimMinElements)
	}
	if next.Compaction.ReclaimMaxPerSecond != old.Compaction.ReclaimMaxPerSecond {
		s.st.SetReclaimMaxPerSecond(next.Compaction.ReclaimMaxPerSecond)
	}
	if next.Server.SlowlogLogSlowerThan != old.Server.SlowlogLogSlowerThan {
		s.slowlog.threshold.Store(next.Server.SlowlogLogSlowerThan)
	}
	if next.Server.SlowlogMaxLen != old.Server.SlowlogMaxLen {
		s.slowlog.setMaxLen(next.Server.SlowlogMaxLen)
	}
	s.latency.threshold.Store(next.Server.LatencyMonitorThresholdMs)
	s.setNotify(next.Server.NotifyKeyspaceEvents)
	s.tracking.maxKeys.Store(next.Server.TrackingTableMaxKeys)
	s.minReplicas.Store(int64(next.Replication.MinReplicasToWrite))
	if next.Log.Level != old.Log.Level {
		// The only way to change the level of the logger passed in: a
		// process-wide threshold (cmd/shale-server sets it at start-up too).
		if lvl, err := zerolog.ParseLevel(next.Log.Level); err == nil {
			zerolog.SetGlobalLevel(lvl)
		}
	}
}

// uneditableConfig is conf.Rewrite's refusal of a file it cannot edit.
type uneditableConfig struct{ err error }

func (e uneditableConfig) Error() string { return e.err.Error() }
func (e uneditableConfig) Unwrap() error { return e.err }

// strerror is the C library's message for errno, as Redis prints it: Go's
// own texts are glibc's with the first letter in lower case.
func strerror(errno syscall.Errno) string {
	text := errno.Error()
	if text == "" || text[0] < 'a' || text[0] > 'z' {
		return text
	}
	return string(text[0]-'a'+'A') + text[1:]
}

func rewriteConfigFile(path string, cfg conf.Config) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, err := conf.Rewrite(src, cfg)
	if err != nil {
		return uneditableConfig{err}
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".rewrite-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename, there is none
	if _, err := tmp.Write(out); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// configDict is the effective configuration as CONFIG GET names it, for
// the start-up log line; the password is masked.
func configDict(cfg *conf.Config) *zerolog.Event {
	d := zerolog.Dict()
	for i := range configParams {
		p := &configParams[i]
		v := p.get(cfg)
		if (p.name == "requirepass" || p.name == "masterauth") && v != "" {
			v = "(set)"
		}
		d.Str(p.name, v)
	}
	return d
}
