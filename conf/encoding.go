package conf

import "math"

// Encoding is the [encoding] section: Redis 7.0's parameters for the compact
// in-memory encodings of small keys. Shale keeps no key in memory, but it
// reports the encoding Redis would use (OBJECT ENCODING) from these, with
// Redis's rules: a key starts compact and converts, for good, on the write
// that outgrows a limit. A change applies from each key's next write, as in
// Redis. The defaults are Redis 7.0's built-in ones.
type Encoding struct {
	// HashMaxListpackEntries is hash-max-listpack-entries: the most fields
	// of a "listpack" hash. Default 512; at least 0.
	HashMaxListpackEntries int64 `toml:"hash_max_listpack_entries"`
	// HashMaxListpackValue is hash-max-listpack-value: the longest field
	// or value of a "listpack" hash, in bytes. Default 64; at least 0.
	HashMaxListpackValue ByteSize `toml:"hash_max_listpack_value"`
	// ListMaxListpackSize is list-max-listpack-size. Redis 7.0 reports
	// every list as "quicklist" whatever it is, and so does Shale: it is
	// kept for CONFIG GET only. Default -2; -2147483648..2147483647.
	ListMaxListpackSize int `toml:"list_max_listpack_size"`
	// ListCompressDepth is list-compress-depth, like ListMaxListpackSize
	// kept for CONFIG GET only (Shale's compression is per RocksDB level:
	// rocksdb.compression). Default 0; 0..2147483647.
	ListCompressDepth int `toml:"list_compress_depth"`
	// SetMaxIntsetEntries is set-max-intset-entries: the most members of an
	// "intset" set, whose members are all integers. Default 512; at least 0.
	SetMaxIntsetEntries int64 `toml:"set_max_intset_entries"`
	// ZSetMaxListpackEntries is zset-max-listpack-entries: the most members
	// of a "listpack" sorted set. Default 128; at least 0.
	ZSetMaxListpackEntries int64 `toml:"zset_max_listpack_entries"`
	// ZSetMaxListpackValue is zset-max-listpack-value: the longest member
	// of a "listpack" sorted set, in bytes. Default 64; at least 0.
	ZSetMaxListpackValue ByteSize `toml:"zset_max_listpack_value"`
	// HLLSparseMaxBytes is hll-sparse-max-bytes: the size, header
	// included, past which a sparse HyperLogLog turns dense. It changes the
	// bytes of a HyperLogLog value, not its count. Default 3000; at least 0.
	HLLSparseMaxBytes ByteSize `toml:"hll_sparse_max_bytes"`
}

// validate checks e's ranges, which are Redis's.
func (e Encoding) validate(v *validator) {
	for _, n := range []struct {
		key string
		n   int64
	}{
		{"encoding.hash_max_listpack_entries", e.HashMaxListpackEntries},
		{"encoding.hash_max_listpack_value", int64(e.HashMaxListpackValue)},
		{"encoding.set_max_intset_entries", e.SetMaxIntsetEntries},
		{"encoding.zset_max_listpack_entries", e.ZSetMaxListpackEntries},
		{"encoding.zset_max_listpack_value", int64(e.ZSetMaxListpackValue)},
		{"encoding.hll_sparse_max_bytes", int64(e.HLLSparseMaxBytes)},
	} {
		if n.n < 0 {
			v.add(n.key, "must be at least 0")
		}
	}
	v.intRange("encoding.list_max_listpack_size", e.ListMaxListpackSize, math.MinInt32, math.MaxInt32)
	v.intRange("encoding.list_compress_depth", e.ListCompressDepth, 0, math.MaxInt32)
}
