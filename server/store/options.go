package store

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/linxGnu/grocksdb"

	"github.com/shaledb/shale/compaction"
	"github.com/shaledb/shale/conf"
)

// rocksOptions holds every C object built from the config, so Close can free
// them: grocksdb objects have no finalizers.
type rocksOptions struct {
	db          *grocksdb.Options
	cfs         [numCFs]*grocksdb.Options
	tables      []*grocksdb.BlockBasedTableOptions
	caches      []*grocksdb.Cache
	sharedCache *grocksdb.Cache
	ownCaches   [numCFs]*grocksdb.Cache // a column family's own block cache, nil when it uses the shared one
	limiter     *grocksdb.RateLimiter
}

func (o *rocksOptions) destroy() {
	for _, c := range o.cfs {
		if c != nil {
			c.Destroy()
		}
	}
	if o.db != nil {
		o.db.Destroy()
	}
	for _, t := range o.tables {
		t.Destroy()
	}
	for _, c := range o.caches {
		c.Destroy()
	}
	if o.limiter != nil {
		o.limiter.Destroy()
	}
}

// compression is one of conf's compression names as RocksDB takes it: the
// type for the options built at open, the name for SetOptions at runtime.
type compression struct {
	typ    grocksdb.CompressionType
	option string
}

var compressionByName = map[string]compression{
	"no":     {grocksdb.NoCompression, "kNoCompression"},
	"snappy": {grocksdb.SnappyCompression, "kSnappyCompression"},
	"zlib":   {grocksdb.ZLibCompression, "kZlibCompression"},
	"lz4":    {grocksdb.LZ4Compression, "kLZ4Compression"},
	"lz4hc":  {grocksdb.LZ4HCCompression, "kLZ4HCCompression"},
	"zstd":   {grocksdb.ZSTDCompression, "kZSTD"},
}

// numLevels is RocksDB's number of levels, which Shale leaves at the default.
const numLevels = 7

// compressionLevels expands a per-level list to RocksDB's levels: the last
// entry repeats for deeper levels.
func compressionLevels(names []string) ([]compression, error) {
	if len(names) == 0 {
		names = []string{"no"}
	}
	out := make([]compression, numLevels)
	for i := range out {
		n := names[min(i, len(names)-1)]
		c, ok := compressionByName[n]
		if !ok {
			return nil, fmt.Errorf("unknown compression %q", n)
		}
		out[i] = c
	}
	return out, nil
}

// EffectiveOptions are cf's options under r: the metadata column family
// takes [rocksdb.metadata], the subkey one [rocksdb.subkey], the score one
// [rocksdb.score] over [rocksdb.subkey], the others [rocksdb] alone.
func EffectiveOptions(r conf.RocksDB, cf CF) conf.CFOptions {
	switch cf {
	case CFMeta:
		return r.Effective(r.Metadata)
	case CFSubkey:
		return r.Effective(r.Subkey)
	case CFScore:
		return r.Effective(r.ScoreOverride())
	}
	return r.Effective(conf.CFOverride{})
}

// filteredCFs are the column families that run a compaction filter, and
// the filter each runs.
var filteredCFs = []struct {
	cf   CF
	kind compaction.Kind
}{
	{CFSubkey, compaction.KindSubkey},
	{CFScore, compaction.KindScore},
	{CFBookkeeping, compaction.KindBookkeeping},
}

func buildOptions(cfg conf.Config, gc *compaction.GC) (*rocksOptions, error) {
	r := cfg.RocksDB
	o := &rocksOptions{}
	o.db = grocksdb.NewDefaultOptions()
	o.db.SetCreateIfMissing(true)
	o.db.SetCreateIfMissingColumnFamilies(true)
	o.db.SetMaxBackgroundJobs(r.MaxBackgroundJobs)
	o.db.SetKeepLogFileNum(5)
	// Write-ahead log kept after its memtables flushed, for replicas that
	// fell behind (replication.go): RocksDB archives it and deletes it
	// past either bound. A size bound is only checked every 10 minutes.
	o.db.SetWALTtlSeconds(uint64(cfg.Replication.WALRetention.Seconds()))
	o.db.SetWalSizeLimitMb(uint64(cfg.Replication.WALRetentionBytes+conf.MiB-1) / uint64(conf.MiB))
	// RocksDB's own LOG file gets fatal lines only. Debian's librocksdb 7.8
	// is built with assertions, and its info logger aborts the process on
	// the line after one it failed to write, which is exactly what happens
	// when the disk fills up (tests/fault_test.go). Shale logs the write
	// errors RocksDB returns itself.
	o.db.SetInfoLogLevel(grocksdb.FatalInfoLogLevel)
	if r.RateLimitBytesPerSec > 0 {
		o.limiter = grocksdb.NewRateLimiter(int64(r.RateLimitBytesPerSec), 100_000, 10)
		o.db.SetRateLimiter(o.limiter)
	}
	if r.BlockCacheBytes > 0 {
		o.sharedCache = grocksdb.NewLRUCache(uint64(r.BlockCacheBytes))
		o.caches = append(o.caches, o.sharedCache)
	}

	for cf := CF(0); cf < numCFs; cf++ {
		opts, err := o.cfOptions(cf, r, EffectiveOptions(r, cf))
		if err != nil {
			o.destroy()
			return nil, fmt.Errorf("rocksdb options for cf %s: %w", cf, err)
		}
		if cf == CFDefault {
			// Key counters are 8-byte little-endian sums kept by RocksDB's
			// built-in uint64add operator (see docs/ENCODING.md).
			opts.SetUint64AddMergeOperator()
		}
		o.cfs[cf] = opts
	}
	for _, f := range filteredCFs {
		o.cfs[f.cf].SetCompactionFilter(gc.Filter(f.kind))
	}
	return o, nil
}

func (o *rocksOptions) cfOptions(cf CF, r conf.RocksDB, eff conf.CFOptions) (*grocksdb.Options, error) {
	levels, err := compressionLevels(eff.Compression)
	if err != nil {
		return nil, err
	}
	opts := grocksdb.NewDefaultOptions()
	opts.SetWriteBufferSize(uint64(eff.WriteBufferBytes))
	opts.SetMaxWriteBufferNumber(eff.MaxWriteBufferNumber)
	opts.SetMinWriteBufferNumberToMerge(eff.MinWriteBufferNumberToMerge)
	opts.SetTargetFileSizeBase(uint64(eff.TargetFileSizeBytes))
	opts.SetMaxBytesForLevelBase(uint64(eff.MaxBytesForLevelBase))
	opts.SetLevel0FileNumCompactionTrigger(r.Level0FileNumCompactionTrigger)
	opts.SetLevel0SlowdownWritesTrigger(r.Level0SlowdownWritesTrigger)
	opts.SetLevel0StopWritesTrigger(r.Level0StopWritesTrigger)
	opts.SetDisableAutoCompactions(r.DisableAutoCompactions)
	opts.SetSoftPendingCompactionBytesLimit(uint64(r.SoftPendingCompactionBytesLimit))
	opts.SetHardPendingCompactionBytesLimit(uint64(r.HardPendingCompactionBytesLimit))
	types := make([]grocksdb.CompressionType, len(levels))
	for i, l := range levels {
		types[i] = l.typ
	}
	opts.SetCompressionPerLevel(types)

	table := grocksdb.NewDefaultBlockBasedTableOptions()
	o.tables = append(o.tables, table)
	// Values in blob files are cached in the block cache too, and whether
	// or not blob files are on, since they can be turned on at runtime
	// (liveOptions): without a blob cache every read of one reads its file.
	switch {
	case eff.OwnBlockCacheBytes > 0:
		c := grocksdb.NewLRUCache(uint64(eff.OwnBlockCacheBytes))
		o.caches = append(o.caches, c)
		o.ownCaches[cf] = c
		table.SetBlockCache(c)
		opts.SetBlobCache(c)
	case o.sharedCache != nil:
		table.SetBlockCache(o.sharedCache)
		opts.SetBlobCache(o.sharedCache)
	default:
		table.SetNoBlockCache(true)
	}
	setBlobOptions(opts, eff)
	if eff.BloomBitsPerKey > 0 {
		table.SetFilterPolicy(grocksdb.NewBloomFilterFull(float64(eff.BloomBitsPerKey)))
	}
	table.SetCacheIndexAndFilterBlocks(true)
	table.SetPinL0FilterAndIndexBlocksInCache(true)
	// Indexes and filters are partitioned (4 KiB partitions under a pinned
	// top level), so a lookup brings a few KiB of them into the block cache
	// rather than a file's whole filter, a MiB and more for a 64 MiB file.
	// With whole filters a small cache thrashes once the SST files outgrow
	// it: at 16 MiB, pipelined MSET loads fell from 0.5 s to 30 s a
	// pipeline past a million keys (issue 22).
	table.SetIndexType(grocksdb.KTwoLevelIndexSearchIndexType)
	table.SetPartitionFilters(true)
	table.SetPinTopLevelIndexAndFilter(true)
	table.SetMetadataBlockSize(4096)
	table.SetFormatVersion(5)
	opts.SetBlockBasedTableFactory(table)
	return opts, nil
}

// setBlobOptions sets eff's blob file options (conf.RocksDB.EnableBlobFiles).
func setBlobOptions(opts *grocksdb.Options, eff conf.CFOptions) {
	opts.EnableBlobFiles(eff.EnableBlobFiles)
	opts.SetMinBlobSize(uint64(eff.MinBlobBytes))
	opts.EnableBlobGC(eff.BlobGC)
}

// ApplyOptions changes the running database from the RocksDB options of old
// to those of next, as far as RocksDB can change them at runtime (the
// options CONFIG SET marks live). Per column family it sets, in one
// SetOptions call, the options whose effective value differs: one call
// keeps the level-0 triggers consistent, since RocksDB asserts on their
// order. If RocksDB refuses a column family, the ones already changed are
// set back to old, and the error says which refused; the log has the
// details. Options that only apply at open are ignored.
func (s *Store) ApplyOptions(old, next conf.RocksDB) error {
	var done []CF
	for _, cf := range AllCFs() {
		keys, vals := optionDiff(liveOptions(old, cf), liveOptions(next, cf))
		if len(keys) == 0 {
			continue
		}
		if err := s.db.SetOptionsCF(s.cfs[cf], keys, vals); err != nil {
			s.log.Error().Err(err).Str("cf", cf.String()).Strs("options", keys).Strs("values", vals).Msg("rocksdb refused options")
			for _, d := range done {
				k, v := optionDiff(liveOptions(next, d), liveOptions(old, d))
				if err := s.db.SetOptionsCF(s.cfs[d], k, v); err != nil {
					s.log.Error().Err(err).Str("cf", d.String()).Msg("rocksdb options rollback failed")
				}
			}
			return fmt.Errorf("store: set options on %s: %w", cf, err)
		}
		done = append(done, cf)
		s.log.Info().Str("cf", cf.String()).Strs("options", keys).Strs("values", vals).Msg("rocksdb options changed")
	}
	return nil
}

// liveOption is one option RocksDB can change at runtime, named and
// written as SetOptions takes it.
type liveOption struct{ name, value string }

// liveOptions are cf's runtime-settable options under r, resolved as
// buildOptions resolves them at open.
func liveOptions(r conf.RocksDB, cf CF) []liveOption {
	e := EffectiveOptions(r, cf)
	return []liveOption{
		{"write_buffer_size", strconv.FormatInt(int64(e.WriteBufferBytes), 10)},
		{"max_write_buffer_number", strconv.Itoa(e.MaxWriteBufferNumber)},
		{"target_file_size_base", strconv.FormatInt(int64(e.TargetFileSizeBytes), 10)},
		{"max_bytes_for_level_base", strconv.FormatInt(int64(e.MaxBytesForLevelBase), 10)},
		{"level0_file_num_compaction_trigger", strconv.Itoa(r.Level0FileNumCompactionTrigger)},
		{"level0_slowdown_writes_trigger", strconv.Itoa(r.Level0SlowdownWritesTrigger)},
		{"level0_stop_writes_trigger", strconv.Itoa(r.Level0StopWritesTrigger)},
		{"disable_auto_compactions", strconv.FormatBool(r.DisableAutoCompactions)},
		{"soft_pending_compaction_bytes_limit", strconv.FormatInt(int64(r.SoftPendingCompactionBytesLimit), 10)},
		{"hard_pending_compaction_bytes_limit", strconv.FormatInt(int64(r.HardPendingCompactionBytesLimit), 10)},
		{"compression_per_level", compressionOption(e.Compression)},
		{"enable_blob_files", strconv.FormatBool(e.EnableBlobFiles)},
		{"min_blob_size", strconv.FormatInt(int64(e.MinBlobBytes), 10)},
		{"enable_blob_garbage_collection", strconv.FormatBool(e.BlobGC)},
	}
}

// compressionOption is compression_per_level's SetOptions value: the
// levels' names, colon-separated. An unknown name (Validate refuses them)
// gives an empty entry, which SetOptions refuses.
func compressionOption(names []string) string {
	levels, _ := compressionLevels(names)
	opts := make([]string, numLevels)
	for i, l := range levels {
		opts[i] = l.option
	}
	return strings.Join(opts, ":")
}

// optionDiff lists the options of next whose value differs from old's;
// both come from liveOptions, so they name the same options in one order.
func optionDiff(old, next []liveOption) (keys, vals []string) {
	for i := range next {
		if next[i] != old[i] {
			keys = append(keys, next[i].name)
			vals = append(vals, next[i].value)
		}
	}
	return keys, vals
}
