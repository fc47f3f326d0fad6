package main

import "testing"

// defaultConfig is the part of CONFIG GET * that the bound reads, as the
// default configuration replied when the harness was written.
func defaultConfig() map[string]string {
	return map[string]string{
		"storage.metadata_cache_bytes":             "33554432",
		"storage.subkey_cache_bytes":               "33554432",
		"rocksdb.block_cache_bytes":                "268435456",
		"rocksdb.write_buffer_bytes":               "67108864",
		"rocksdb.max_write_buffer_number":          "4",
		"rocksdb.metadata.write_buffer_bytes":      "8388608",
		"rocksdb.metadata.max_write_buffer_number": "",
		"rocksdb.metadata.block_cache_bytes":       "",
		"rocksdb.subkey.write_buffer_bytes":        "",
		"rocksdb.subkey.max_write_buffer_number":   "",
		"rocksdb.subkey.block_cache_bytes":         "",
		"rocksdb.score.write_buffer_bytes":         "16777216",
		"rocksdb.score.max_write_buffer_number":    "6",
		"rocksdb.score.block_cache_bytes":          "",
	}
}

func TestBoundFromConfig(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		name    string
		change  map[string]string
		want    memoryBound
		wantErr bool
	}{
		{name: "defaults", want: memoryBound{
			BlockCache: 256 * mib,
			// default, subkey, bookkeeping, expire: 4 × 64; metadata 4 × 8; score 6 × 16.
			Memtables:    4*4*64*mib + 4*8*mib + 6*16*mib,
			RecordCaches: 2 * 64 * mib,
			Allowance:    memoryAllowance,
		}},
		{name: "score falls back on subkey", change: map[string]string{
			"rocksdb.subkey.write_buffer_bytes":      "33554432",
			"rocksdb.score.write_buffer_bytes":       "",
			"rocksdb.subkey.max_write_buffer_number": "2",
		}, want: memoryBound{
			BlockCache:   256 * mib,
			Memtables:    3*4*64*mib + 4*8*mib + 2*32*mib + 6*32*mib,
			RecordCaches: 2 * 64 * mib,
			Allowance:    memoryAllowance,
		}},
		{name: "own block cache", change: map[string]string{"rocksdb.metadata.block_cache_bytes": "16777216"}, want: memoryBound{
			BlockCache:   272 * mib,
			Memtables:    4*4*64*mib + 4*8*mib + 6*16*mib,
			RecordCaches: 2 * 64 * mib,
			Allowance:    memoryAllowance,
		}},
		{name: "missing", change: map[string]string{"rocksdb.block_cache_bytes": ""}, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := defaultConfig()
			for k, v := range tc.change {
				cfg[k] = v
			}
			got, err := boundFromConfig(cfg)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("got %+v, want an error", got)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}
