package store

import (
	"fmt"

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

var compressionByName = map[string]grocksdb.CompressionType{
	"no":     grocksdb.NoCompression,
	"snappy": grocksdb.SnappyCompression,
	"zlib":   grocksdb.ZLibCompression,
	"lz4":    grocksdb.LZ4Compression,
	"lz4hc":  grocksdb.LZ4HCCompression,
	"zstd":   grocksdb.ZSTDCompression,
}

// compressionLevels expands a per-level list to RocksDB's 7 levels: the last
// entry repeats for deeper levels.
func compressionLevels(names []string) ([]grocksdb.CompressionType, error) {
	if len(names) == 0 {
		names = []string{"no"}
	}
	out := make([]grocksdb.CompressionType, 7)
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

func buildOptions(cfg conf.Config, gc *compaction.GC) (*rocksOptions, error) {
	r := cfg.RocksDB
	o := &rocksOptions{}
	o.db = grocksdb.NewDefaultOptions()
	o.db.SetCreateIfMissing(true)
	o.db.SetCreateIfMissingColumnFamilies(true)
	o.db.SetMaxBackgroundJobs(r.MaxBackgroundJobs)
	o.db.SetKeepLogFileNum(5)
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
		opts, err := o.cfOptions(r, EffectiveOptions(r, cf))
		if err != nil {
			o.destroy()
			return nil, fmt.Errorf("rocksdb options for cf %s: %w", cf, err)
		}
		switch cf {
		case CFDefault:
			// Key counters are 8-byte little-endian sums kept by RocksDB's
			// built-in uint64add operator (see docs/ENCODING.md).
			opts.SetUint64AddMergeOperator()
		case CFSubkey:
			opts.SetCompactionFilter(gc.Filter(compaction.KindSubkey))
		case CFScore:
			opts.SetCompactionFilter(gc.Filter(compaction.KindScore))
		case CFBookkeeping:
			opts.SetCompactionFilter(gc.Filter(compaction.KindBookkeeping))
		}
		o.cfs[cf] = opts
	}
	return o, nil
}

func (o *rocksOptions) cfOptions(r conf.RocksDB, eff conf.CFOptions) (*grocksdb.Options, error) {
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
	opts.SetCompressionPerLevel(levels)

	table := grocksdb.NewDefaultBlockBasedTableOptions()
	o.tables = append(o.tables, table)
	switch {
	case eff.OwnBlockCacheBytes > 0:
		c := grocksdb.NewLRUCache(uint64(eff.OwnBlockCacheBytes))
		o.caches = append(o.caches, c)
		table.SetBlockCache(c)
	case o.sharedCache != nil:
		table.SetBlockCache(o.sharedCache)
	default:
		table.SetNoBlockCache(true)
	}
	if eff.BloomBitsPerKey > 0 {
		table.SetFilterPolicy(grocksdb.NewBloomFilterFull(float64(eff.BloomBitsPerKey)))
	}
	table.SetCacheIndexAndFilterBlocks(true)
	table.SetPinL0FilterAndIndexBlocksInCache(true)
	table.SetFormatVersion(5)
	opts.SetBlockBasedTableFactory(table)
	return opts, nil
}
