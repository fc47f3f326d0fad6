package conf

import (
	"errors"
	"fmt"
	"math"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// Load reads the TOML file at path over Default() and validates the result.
// A key the file holds that Config does not know, a value of the wrong type
// and a value that Validate rejects are all errors, and each names its key.
func Load(path string) (Config, error) {
	c := Default()
	md, err := toml.DecodeFile(path, &c)
	if err != nil {
		return Config{}, fmt.Errorf("config %s: %w", path, err)
	}
	if err := unknownKeys(md); err != nil {
		return Config{}, fmt.Errorf("config %s: %w", path, err)
	}
	if err := c.Validate(); err != nil {
		return Config{}, fmt.Errorf("config %s: %w", path, err)
	}
	return c, nil
}

// unknownKeys returns an error naming each key md did not decode. An unknown
// table is named once, without the keys inside it.
func unknownKeys(md toml.MetaData) error {
	undecoded := md.Undecoded()
	seen := make(map[string]bool, len(undecoded))
	var errs []error
	for _, k := range undecoded {
		name := k.String()
		seen[name] = true
		if len(k) > 1 && seen[k[:len(k)-1].String()] {
			continue // inside an unknown table that is already reported
		}
		errs = append(errs, fmt.Errorf("unknown config key %q", name))
	}
	return errors.Join(errs...)
}

// Validate checks every option and returns errors.Join of every problem
// found, or nil. Each message starts with the key, as in
// "server.port: 70000 is out of range 0..65535".
func (c *Config) Validate() error {
	var v validator

	s := c.Server
	if s.Bind == "" {
		v.add("server.bind", "must not be empty (use \"0.0.0.0\" to listen on every interface)")
	}
	v.intRange("server.port", s.Port, 0, 65535)
	v.intRange("server.databases", s.Databases, 1, 65536)
	v.intMin("server.maxclients", s.MaxClients, 1)
	v.intMin("server.go_gc_percent", s.GoGCPercent, 10)
	v.intMin("server.go_max_procs", s.GoMaxProcs, 0)
	v.intMin("server.io_loops", s.IOLoops, -1)
	v.nonNegativeDuration("server.timeout", s.Timeout)
	v.nonNegativeDuration("server.tcp_keepalive", s.TCPKeepalive)
	v.intMin("server.slowlog_max_len", s.SlowlogMaxLen, 0)
	if s.BusyReplyThresholdMs < 0 {
		v.add("server.busy_reply_threshold_ms", "must be at least 0")
	}
	if s.LatencyMonitorThresholdMs < 0 {
		v.add("server.latency_monitor_threshold_ms", "must be at least 0")
	}
	if s.TrackingTableMaxKeys < 0 {
		v.add("server.tracking_table_max_keys", "must be at least 0")
	}
	if strings.Trim(s.NotifyKeyspaceEvents, KeyspaceEventClasses) != "" {
		v.add("server.notify_keyspace_events", "has a letter that is not one of "+KeyspaceEventClasses)
	}
	v.sizeMin("server.proto_max_bulk_len", s.ProtoMaxBulkLen, MiB)
	if s.ProtoMaxMultibulkLen < 1 {
		v.add("server.proto_max_multibulk_len", fmt.Sprintf("%d is below the minimum 1", s.ProtoMaxMultibulkLen))
	}
	v.sizeMin("server.client_query_buffer_limit", s.ClientQueryBufferLimit, MiB)
	v.outputLimit("server.client_output_buffer_limit", s.ClientOutputBufferLimit)
	v.outputLimit("server.pubsub_output_buffer_limit", s.PubsubOutputBufferLimit)
	v.outputLimit("server.pubsub_output_buffer_soft_limit", s.PubsubOutputBufferSoftLimit)
	v.nonNegativeDuration("server.pubsub_output_buffer_soft_time", s.PubsubOutputBufferSoftTime)

	if c.Storage.Dir == "" {
		v.add("storage.dir", "must not be empty")
	}
	if c.Storage.BackupDir == "" {
		v.add("storage.backup_dir", "must not be empty")
	}

	r := c.RocksDB
	v.sizeMin("rocksdb.block_cache_bytes", r.BlockCacheBytes, 0)
	v.writeBuffer("rocksdb.write_buffer_bytes", r.WriteBufferBytes)
	v.intMin("rocksdb.max_write_buffer_number", r.MaxWriteBufferNumber, 2)
	v.intMin("rocksdb.max_background_jobs", r.MaxBackgroundJobs, 1)
	v.sizeMin("rocksdb.target_file_size_bytes", r.TargetFileSizeBytes, 1)
	v.sizeMin("rocksdb.max_bytes_for_level_base", r.MaxBytesForLevelBase, 1)
	v.intMin("rocksdb.level0_file_num_compaction_trigger", r.Level0FileNumCompactionTrigger, 1)
	if r.Level0SlowdownWritesTrigger < r.Level0FileNumCompactionTrigger {
		v.add("rocksdb.level0_slowdown_writes_trigger", fmt.Sprintf(
			"%d is below rocksdb.level0_file_num_compaction_trigger (%d)",
			r.Level0SlowdownWritesTrigger, r.Level0FileNumCompactionTrigger))
	}
	if r.Level0StopWritesTrigger < r.Level0SlowdownWritesTrigger {
		v.add("rocksdb.level0_stop_writes_trigger", fmt.Sprintf(
			"%d is below rocksdb.level0_slowdown_writes_trigger (%d)",
			r.Level0StopWritesTrigger, r.Level0SlowdownWritesTrigger))
	}
	v.sizeMin("rocksdb.soft_pending_compaction_bytes_limit", r.SoftPendingCompactionBytesLimit, 0)
	v.sizeMin("rocksdb.hard_pending_compaction_bytes_limit", r.HardPendingCompactionBytesLimit, 0)
	if r.HardPendingCompactionBytesLimit > 0 && r.HardPendingCompactionBytesLimit < r.SoftPendingCompactionBytesLimit {
		v.add("rocksdb.hard_pending_compaction_bytes_limit", fmt.Sprintf(
			"%s is below rocksdb.soft_pending_compaction_bytes_limit (%s)",
			r.HardPendingCompactionBytesLimit, r.SoftPendingCompactionBytesLimit))
	}
	v.compression("rocksdb.compression", r.Compression)
	v.intRange("rocksdb.bloom_bits_per_key", r.BloomBitsPerKey, 0, 64)
	v.sizeMin("rocksdb.rate_limit_bytes_per_sec", r.RateLimitBytesPerSec, 0)
	v.sizeMin("rocksdb.min_blob_bytes", r.MinBlobBytes, 1)
	v.intMin("rocksdb.min_write_buffer_number_to_merge", r.MinWriteBufferNumberToMerge, 1)
	v.override("rocksdb.metadata", r.Metadata)
	v.override("rocksdb.subkey", r.Subkey)
	v.override("rocksdb.score", r.Score)
	// A flush waits for min_write_buffer_number_to_merge full memtables, so
	// a column family must be allowed more than that, or its writes would
	// stall for good. Each column family is checked as it resolves.
	for _, cf := range []struct {
		section string
		o       CFOverride
	}{{"rocksdb", CFOverride{}}, {"rocksdb.metadata", r.Metadata}, {"rocksdb.subkey", r.Subkey}, {"rocksdb.score", r.ScoreOverride()}} {
		if e := r.Effective(cf.o); e.MinWriteBufferNumberToMerge >= 1 && e.MaxWriteBufferNumber >= 2 &&
			e.MinWriteBufferNumberToMerge >= e.MaxWriteBufferNumber {
			v.add(cf.section+".min_write_buffer_number_to_merge", fmt.Sprintf(
				"%d needs a max_write_buffer_number above it, not %d", e.MinWriteBufferNumberToMerge, e.MaxWriteBufferNumber))
		}
	}

	m := c.Compaction
	if m.ReclaimMinElements < 1 {
		v.add("compaction.reclaim_min_elements", fmt.Sprintf("%d is below the minimum 1", m.ReclaimMinElements))
	}
	// At least one a day: the reclaimer waits 1/rate seconds between two
	// compactions, and a smaller rate's wait overflows a time.Duration.
	if !(m.ReclaimMaxPerSecond >= minReclaimPerSecond) || math.IsInf(m.ReclaimMaxPerSecond, 1) {
		v.add("compaction.reclaim_max_per_second", fmt.Sprintf("%v must be a finite number of at least 1/86400 (one a day)", m.ReclaimMaxPerSecond))
	}
	v.intMin("compaction.reclaim_queue_length", m.ReclaimQueueLength, 1)
	v.nonNegativeDuration("compaction.reclaim_delay", m.ReclaimDelay)
	if _, err := ParseWindow(m.FullWindow); err != nil {
		v.add("compaction.full_window", err.Error())
	}
	v.sizeMin("compaction.full_max_bytes_per_sec", m.FullMaxBytesPerSec, 0)

	c.Encoding.validate(&v)
	c.Replication.validate(&v)

	v.oneOf("log.level", c.Log.Level, logLevels)
	v.oneOf("log.format", c.Log.Format, logFormats)

	if a := c.Metrics.ListenAddr(); a != "" {
		if _, port, err := net.SplitHostPort(a); err != nil {
			v.add("metrics.addr", fmt.Sprintf("%q is not a port or host:port", c.Metrics.Addr))
		} else if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
			v.add("metrics.addr", fmt.Sprintf("%q has no valid port (0..65535)", c.Metrics.Addr))
		}
	} else if c.Metrics.Pprof {
		v.add("metrics.pprof", "needs metrics.addr, the address to serve the profiles on")
	}

	return errors.Join(v.errs...)
}

var (
	// compressions are the accepted rocksdb compression names.
	compressions = []string{"no", "snappy", "zlib", "lz4", "lz4hc", "zstd"}
	logLevels    = []string{"trace", "debug", "info", "warn", "error"}
	logFormats   = []string{"console", "json"}
)

// maxLevels is the number of levels RocksDB uses by default (L0..L6).
const maxLevels = 7

// minOutputBufferLimit is the smallest output buffer limit but 0 (each of
// server.client_output_buffer_limit and the pubsub class's): Redis's reply
// buffer, 16 KiB.
const minOutputBufferLimit = 16 * KiB

// minReclaimPerSecond is the smallest compaction.reclaim_max_per_second:
// one a day.
const minReclaimPerSecond = 1.0 / 86400

// validator collects validation errors, each prefixed with its key.
type validator struct{ errs []error }

func (v *validator) add(key, msg string) {
	v.errs = append(v.errs, fmt.Errorf("%s: %s", key, msg))
}

func (v *validator) intRange(key string, n, lo, hi int) {
	if n < lo || n > hi {
		v.add(key, fmt.Sprintf("%d is out of range %d..%d", n, lo, hi))
	}
}

func (v *validator) intMin(key string, n, lo int) {
	if n < lo {
		v.add(key, fmt.Sprintf("%d is below the minimum %d", n, lo))
	}
}

func (v *validator) sizeMin(key string, n, lo ByteSize) {
	if n < lo {
		v.add(key, fmt.Sprintf("%d is below the minimum %d", int64(n), int64(lo)))
	}
}

// writeBuffer applies the range RocksDB would otherwise clamp
// write_buffer_size to silently.
func (v *validator) writeBuffer(key string, n ByteSize) {
	if n < 64*KiB || n > 64*GiB {
		v.add(key, fmt.Sprintf("%s is out of range 64KiB..64GiB", n))
	}
}

// outputLimit checks an output buffer limit. Below Redis's 16 KiB reply
// buffer, which Redis never counts against the limit, even +OK would cut a
// client off: CONFIG SET of such a limit could not be answered.
func (v *validator) outputLimit(key string, n ByteSize) {
	if n != 0 && n < minOutputBufferLimit {
		v.add(key, fmt.Sprintf("%d must be 0 (no limit) or at least %d", int64(n), int64(minOutputBufferLimit)))
	}
}

func (v *validator) nonNegativeDuration(key string, d Duration) {
	if d.Duration < 0 {
		v.add(key, fmt.Sprintf("%s is negative", d))
	}
}

func (v *validator) oneOf(key, s string, allowed []string) {
	if !slices.Contains(allowed, s) {
		v.add(key, fmt.Sprintf("%q is not one of %s", s, strings.Join(allowed, ", ")))
	}
}

func (v *validator) compression(key string, levels []string) {
	if len(levels) < 1 || len(levels) > maxLevels {
		v.add(key, fmt.Sprintf("has %d entries; want 1..%d (the last repeats for deeper levels)", len(levels), maxLevels))
	}
	for i, c := range levels {
		if !slices.Contains(compressions, c) {
			v.add(fmt.Sprintf("%s[%d]", key, i), fmt.Sprintf("%q is not one of %s", c, strings.Join(compressions, ", ")))
		}
	}
}

// override validates the fields of o that are set, under the table name
// section (for example "rocksdb.subkey").
func (v *validator) override(section string, o CFOverride) {
	if o.WriteBufferBytes != nil {
		v.writeBuffer(section+".write_buffer_bytes", *o.WriteBufferBytes)
	}
	if o.MaxWriteBufferNumber != nil {
		v.intMin(section+".max_write_buffer_number", *o.MaxWriteBufferNumber, 2)
	}
	if o.MinWriteBufferNumberToMerge != nil {
		v.intMin(section+".min_write_buffer_number_to_merge", *o.MinWriteBufferNumberToMerge, 1)
	}
	if o.TargetFileSizeBytes != nil {
		v.sizeMin(section+".target_file_size_bytes", *o.TargetFileSizeBytes, 1)
	}
	if o.MaxBytesForLevelBase != nil {
		v.sizeMin(section+".max_bytes_for_level_base", *o.MaxBytesForLevelBase, 1)
	}
	if o.Compression != nil {
		v.compression(section+".compression", o.Compression)
	}
	if o.BloomBitsPerKey != nil {
		v.intRange(section+".bloom_bits_per_key", *o.BloomBitsPerKey, 0, 64)
	}
	if o.BlockCacheBytes != nil {
		v.sizeMin(section+".block_cache_bytes", *o.BlockCacheBytes, 1)
	}
	if o.MinBlobBytes != nil {
		v.sizeMin(section+".min_blob_bytes", *o.MinBlobBytes, 1)
	}
}

// Duration is a time.Duration that reads from and writes to TOML as a string
// such as "5m", "100ms" or "0s" (the syntax of time.ParseDuration).
type Duration struct{ time.Duration }

// UnmarshalText parses a duration such as "5m"; the error names the value.
func (d *Duration) UnmarshalText(text []byte) error {
	v, err := time.ParseDuration(string(text))
	if err != nil {
		return fmt.Errorf("invalid duration %q: want a number with a unit, such as \"100ms\", \"5s\" or \"0s\"", text)
	}
	d.Duration = v
	return nil
}

// MarshalText formats d as time.Duration.String does, for example "1m30s".
func (d Duration) MarshalText() ([]byte, error) {
	return []byte(d.Duration.String()), nil
}

// ByteSize is a count of bytes. In TOML it is an integer (bytes) or a string
// with an optional unit, case-insensitive: B, KB, MB, GB (powers of 1000) or
// KiB, MiB, GiB, TiB (powers of 1024), as in "64MiB" or "10MB". It cannot be
// negative.
type ByteSize int64

// Binary byte-size units.
const (
	KiB ByteSize = 1 << (10 * (iota + 1))
	MiB
	GiB
	TiB
)

// byteUnit is one accepted ByteSize unit.
type byteUnit struct {
	name string // canonical spelling; matched case-insensitively
	mult ByteSize
}

// byteUnits lists the accepted units.
var byteUnits = []byteUnit{
	{"TiB", TiB},
	{"GiB", GiB},
	{"MiB", MiB},
	{"KiB", KiB},
	{"GB", 1000 * 1000 * 1000},
	{"MB", 1000 * 1000},
	{"KB", 1000},
	{"B", 1},
}

// UnmarshalTOML accepts a TOML integer (bytes) or a string with a unit.
func (b *ByteSize) UnmarshalTOML(v any) error {
	switch v := v.(type) {
	case int64:
		if v < 0 {
			return fmt.Errorf("invalid byte size %d: must not be negative", v)
		}
		*b = ByteSize(v)
		return nil
	case string:
		return b.UnmarshalText([]byte(v))
	default:
		return fmt.Errorf("invalid byte size %v: want an integer number of bytes or a string such as \"64MiB\"", v)
	}
}

// UnmarshalText parses a size such as "4096", "512KiB", "64MiB", "1GiB" or
// "10MB"; the error names the value.
func (b *ByteSize) UnmarshalText(text []byte) error {
	s := strings.TrimSpace(string(text))
	digits := len(s) - len(strings.TrimLeft(s, "0123456789"))
	num, unit := s[:digits], strings.TrimSpace(s[digits:])
	if num == "" {
		if strings.HasPrefix(s, "-") {
			return fmt.Errorf("invalid byte size %q: must not be negative", text)
		}
		return fmt.Errorf("invalid byte size %q: want a whole number of bytes with an optional unit, such as \"64MiB\"", text)
	}
	mult := ByteSize(1)
	if unit != "" {
		i := slices.IndexFunc(byteUnits, func(u byteUnit) bool { return strings.EqualFold(u.name, unit) })
		if i < 0 {
			return fmt.Errorf("invalid byte size %q: unknown unit %q (want B, KB, MB, GB, KiB, MiB, GiB or TiB)", text, unit)
		}
		mult = byteUnits[i].mult
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n > math.MaxInt64/int64(mult) {
		return fmt.Errorf("invalid byte size %q: too large", text)
	}
	*b = ByteSize(n) * mult
	return nil
}

// MarshalText returns String(), which UnmarshalText reads back.
func (b ByteSize) MarshalText() ([]byte, error) {
	return []byte(b.String()), nil
}

// String returns b in the unit that gives the smallest exact whole number:
// "256MiB", "10MB", "1536B", "0B". UnmarshalText reads it back.
func (b ByteSize) String() string {
	best := byteUnits[len(byteUnits)-1] // "B" divides everything
	if b != 0 {
		for _, u := range byteUnits {
			if b%u.mult == 0 && u.mult > best.mult {
				best = u
			}
		}
	}
	return strconv.FormatInt(int64(b/best.mult), 10) + best.name
}
