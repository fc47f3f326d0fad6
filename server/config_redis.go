package server

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/shaledb/shale/conf"
	"github.com/shaledb/shale/server/types"
)

// Redis's parameters that tune what Redis keeps in memory and how it
// persists: the encoding limits ([encoding] in the file), which OBJECT
// ENCODING follows, and the persistence and eviction parameters, which
// describe what Shale does and can only be set to that. None is accepted
// and ignored: a value Shale cannot honour gets an error saying why, and a
// value Redis would refuse gets Redis's text.

// encodingParams are the [encoding] section, under Redis 7.0's names and
// their 6.x aliases (each a parameter of its own, as CONFIG GET lists both
// in Redis).
var encodingParams = func() []configParam {
	entries := redisInt[int64](0, math.MaxInt64)
	bytes := redisMemory(0)
	hashEntries := func(c *conf.Config) *int64 { return &c.Encoding.HashMaxListpackEntries }
	hashValue := func(c *conf.Config) *conf.ByteSize { return &c.Encoding.HashMaxListpackValue }
	listSize := func(c *conf.Config) *int { return &c.Encoding.ListMaxListpackSize }
	zsetEntries := func(c *conf.Config) *int64 { return &c.Encoding.ZSetMaxListpackEntries }
	zsetValue := func(c *conf.Config) *conf.ByteSize { return &c.Encoding.ZSetMaxListpackValue }
	return []configParam{
		field("hash-max-listpack-entries", "encoding.hash_max_listpack_entries", entries, hashEntries, live),
		field("hash-max-ziplist-entries", "encoding.hash_max_listpack_entries", entries, hashEntries, live),
		field("hash-max-listpack-value", "encoding.hash_max_listpack_value", bytes, hashValue, live),
		field("hash-max-ziplist-value", "encoding.hash_max_listpack_value", bytes, hashValue, live),
		field("list-max-listpack-size", "encoding.list_max_listpack_size", redisInt[int](math.MinInt32, math.MaxInt32), listSize, live),
		field("list-max-ziplist-size", "encoding.list_max_listpack_size", redisInt[int](math.MinInt32, math.MaxInt32), listSize, live),
		field("list-compress-depth", "encoding.list_compress_depth", redisInt[int](0, math.MaxInt32), func(c *conf.Config) *int { return &c.Encoding.ListCompressDepth }, live),
		field("set-max-intset-entries", "encoding.set_max_intset_entries", entries, func(c *conf.Config) *int64 { return &c.Encoding.SetMaxIntsetEntries }, live),
		field("zset-max-listpack-entries", "encoding.zset_max_listpack_entries", entries, zsetEntries, live),
		field("zset-max-ziplist-entries", "encoding.zset_max_listpack_entries", entries, zsetEntries, live),
		field("zset-max-listpack-value", "encoding.zset_max_listpack_value", bytes, zsetValue, live),
		field("zset-max-ziplist-value", "encoding.zset_max_listpack_value", bytes, zsetValue, live),
		field("hll-sparse-max-bytes", "encoding.hll_sparse_max_bytes", bytes, func(c *conf.Config) *conf.ByteSize { return &c.Encoding.HLLSparseMaxBytes }, live),
	}
}()

// encodingLimits is the [encoding] section as the type layer takes it.
func encodingLimits(e conf.Encoding) types.EncodingLimits {
	return types.EncodingLimits{
		HashMaxListpackEntries: e.HashMaxListpackEntries,
		HashMaxListpackValue:   int64(e.HashMaxListpackValue),
		SetMaxIntsetEntries:    e.SetMaxIntsetEntries,
		ZSetMaxListpackEntries: e.ZSetMaxListpackEntries,
		ZSetMaxListpackValue:   int64(e.ZSetMaxListpackValue),
		HLLSparseMaxBytes:      int64(e.HLLSparseMaxBytes),
	}
}

// pinned is a Redis parameter that describes what Shale always does:
// CONFIG GET answers value; CONFIG SET takes value again (so that tools
// that set it keep working), refuses what Redis would refuse with
// Redis's text (check returns it), and any other value Redis takes with
// why Shale cannot honour it.
func pinned(name, value string, check func(v string) error, why string) configParam {
	return configParam{
		name: name,
		get:  func(*conf.Config) string { return value },
		set: func(_ *conf.Config, v string) error {
			if err := check(v); err != nil {
				return err
			}
			if !strings.EqualFold(strings.TrimSpace(v), value) {
				return errors.New(why)
			}
			return nil
		},
	}
}

// redisBool is Redis's check of a yes/no parameter: no "true" or "false"
// (which Shale's own booleans take).
func redisBool(v string) error {
	if strings.EqualFold(v, "yes") || strings.EqualFold(v, "no") {
		return nil
	}
	return errNotBool
}

// redisEnum is Redis's check of an enumerated parameter: one of names,
// in any case, or its text listing them.
func redisEnum(names ...string) func(string) error {
	return func(v string) error {
		for _, n := range names {
			if strings.EqualFold(v, n) {
				return nil
			}
		}
		return errors.New("argument(s) must be one of the following: " + strings.Join(names, ", "))
	}
}

// errSaveParams is Redis's text for a save value it cannot read.
var errSaveParams = errors.New("Invalid save parameters")

// checkSave is Redis's check of save: "" or pairs of <seconds> (at least
// 1) <changes> (at least 0), integers as strtoll reads them.
func checkSave(v string) error {
	if v == "" {
		return nil
	}
	f := strings.Fields(v)
	if len(f) == 0 || len(f)%2 != 0 {
		return errSaveParams
	}
	for i, s := range f {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || (i%2 == 0 && n < 1) || n < 0 {
			return errSaveParams
		}
	}
	return nil
}

// appendfsyncValue is appendfsync, a view of storage.sync_writes: "always"
// when every write batch is fsynced before it is acknowledged, "no" when
// the write-ahead log is written at once but fsynced by RocksDB and the
// kernel in their own time. Shale has no once-a-second fsync ("everysec").
// It is read at start-up, so CONFIG SET takes the current value only.
func appendfsyncParam() configParam {
	get := func(c *conf.Config) string {
		if c.Storage.SyncWrites {
			return "always"
		}
		return "no"
	}
	check := redisEnum("everysec", "always", "no")
	return configParam{
		name: "appendfsync",
		get:  get,
		set: func(c *conf.Config, v string) error {
			if err := check(v); err != nil {
				return err
			}
			switch v = strings.ToLower(v); {
			case v == "everysec":
				return errors.New("Shale has no once-a-second fsync: 'always' fsyncs every write, 'no' leaves it to the kernel (storage.sync_writes = true or false, at start-up)")
			case v != get(c):
				return errors.New("appendfsync is storage.sync_writes, read at start-up: set it in the config file and restart")
			}
			return nil
		},
	}
}

// redisPersistenceParams are Redis's persistence, eviction and freeing
// parameters, which describe what Shale does: every write goes to RocksDB's
// write-ahead log before it is acknowledged and is replayed at start-up
// (appendonly yes), no snapshots are taken on their own (save "", BGSAVE
// makes a checkpoint on demand), nothing is ever evicted (maxmemory 0, noeviction),
// every removal frees its space in the background, whatever the size of the
// key (lazyfree-* yes), and there is no allocator fragmentation to defragment
// (activedefrag no; RocksDB's compactions reclaim space).
var redisPersistenceParams = func() []configParam {
	const lazyWhy = "Shale always frees in the background: a removed key's elements are reclaimed by compaction, whatever its size"
	ps := []configParam{
		pinned("appendonly", "yes", redisBool, "Shale always logs every write in RocksDB's write-ahead log before it acknowledges it: appendonly is always 'yes'"),
		appendfsyncParam(),
		pinned("save", "", checkSave, "Shale takes no snapshots on its own, its data is always on disk: save is always \"\" (BGSAVE makes a checkpoint)"),
		pinned("maxmemory-policy", "noeviction",
			redisEnum("volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl", "allkeys-lru", "allkeys-lfu", "allkeys-random", "noeviction"),
			"Shale never evicts: its data is on disk, and maxmemory-policy is always 'noeviction'"),
		{name: "maxmemory", get: func(*conf.Config) string { return "0" }, set: setMaxMemory},
		pinned("activedefrag", "no", redisBool, "Shale has no allocator fragmentation to defragment: RocksDB's compactions reclaim space (see compaction.*)"),
	}
	for _, name := range []string{"lazyfree-lazy-eviction", "lazyfree-lazy-expire", "lazyfree-lazy-server-del", "lazyfree-lazy-user-del", "lazyfree-lazy-user-flush"} {
		ps = append(ps, pinned(name, "yes", redisBool, lazyWhy))
	}
	return ps
}()

// setMaxMemory takes a maxmemory of 0 (no limit), in any of Redis's memory
// units, and refuses a limit: Shale's data is on disk and it never evicts.
func setMaxMemory(_ *conf.Config, v string) error {
	n, ok, overflow := memtoull(v)
	switch {
	case !ok:
		return errNotMemory
	case overflow || n != 0:
		return errors.New("Shale never evicts: its data is on disk, and maxmemory is always 0 (no limit)")
	}
	return nil
}
