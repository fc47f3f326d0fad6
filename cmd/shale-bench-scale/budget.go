package main

import (
	"fmt"
	"strconv"
	"time"
)

// memoryAllowance is the part of the memory bound that no setting names:
// the Go heap and its GC headroom, client buffers of the load generator's
// connections, and RocksDB's allocations outside the block cache
// (compaction and flush buffers, table readers' fixed parts). The same
// 256 MiB as make bench-compare's memory target.
const memoryAllowance = 256 << 20

// memoryBound is what Shale's configuration lets it use, read from the
// running server with CONFIG GET so that it holds for any configuration.
type memoryBound struct {
	BlockCache   int64 // shared block cache plus any per-column-family ones
	Memtables    int64 // write_buffer_bytes × max_write_buffer_number, summed over the column families
	RecordCaches int64 // twice the metadata and sub-key caches' bounds: each may hold that much before it compacts
	Allowance    int64
}

func (m memoryBound) Total() int64 {
	return m.BlockCache + m.Memtables + m.RecordCaches + m.Allowance
}

// shaleColumnFamilies lists the column families Shale opens and the
// [rocksdb.<cf>] section that overrides each one's options, if any. The
// score column family falls back on [rocksdb.subkey] before [rocksdb].
var shaleColumnFamilies = []struct{ name, override, fallback string }{
	{"default", "", ""},
	{"metadata", "metadata", ""},
	{"subkey", "subkey", ""},
	{"score", "score", "subkey"},
	{"bookkeeping", "", ""},
	{"expire", "", ""},
}

// readMemoryBound asks the server for its configuration.
func readMemoryBound(addr string) (memoryBound, error) {
	c, err := dial(addr)
	if err != nil {
		return memoryBound{}, err
	}
	defer c.Close()
	v, err := c.Do(10*time.Second, "CONFIG", "GET", "*")
	if err != nil {
		return memoryBound{}, err
	}
	pairs, ok := v.([]any)
	if !ok {
		return memoryBound{}, fmt.Errorf("CONFIG GET *: got %T, want an array", v)
	}
	cfg := map[string]string{}
	for i := 0; i+1 < len(pairs); i += 2 {
		name, _ := pairs[i].(string)
		value, _ := pairs[i+1].(string)
		cfg[name] = value
	}
	return boundFromConfig(cfg)
}

// boundFromConfig computes the bound from CONFIG GET's name → value pairs.
func boundFromConfig(cfg map[string]string) (memoryBound, error) {
	var firstErr error
	num := func(name string) int64 {
		n, err := strconv.ParseInt(cfg[name], 10, 64)
		if err != nil && firstErr == nil {
			firstErr = fmt.Errorf("CONFIG GET %s: %q is not a number", name, cfg[name])
		}
		return n
	}
	// perCF reads option for a column family: its override, the fallback
	// section's, or the [rocksdb] value; CONFIG GET reports an unset
	// override as "".
	perCF := func(override, fallback, option string) int64 {
		for _, section := range []string{override, fallback} {
			if section == "" {
				continue
			}
			if name := "rocksdb." + section + "." + option; cfg[name] != "" {
				return num(name)
			}
		}
		return num("rocksdb." + option)
	}
	m := memoryBound{
		BlockCache:   num("rocksdb.block_cache_bytes"),
		RecordCaches: 2 * (num("storage.metadata_cache_bytes") + num("storage.subkey_cache_bytes")),
		Allowance:    memoryAllowance,
	}
	for _, cf := range shaleColumnFamilies {
		m.Memtables += perCF(cf.override, cf.fallback, "write_buffer_bytes") * perCF(cf.override, cf.fallback, "max_write_buffer_number")
		if cf.override != "" {
			if name := "rocksdb." + cf.override + ".block_cache_bytes"; cfg[name] != "" {
				m.BlockCache += num(name)
			}
		}
	}
	return m, firstErr
}
