package store

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/shaledb/shale/conf"
)

func TestCompressionOption(t *testing.T) {
	for _, tt := range []struct {
		names []string
		want  string
	}{
		{nil, "kNoCompression:kNoCompression:kNoCompression:kNoCompression:kNoCompression:kNoCompression:kNoCompression"},
		{[]string{"lz4", "zstd"}, "kLZ4Compression:kZSTD:kZSTD:kZSTD:kZSTD:kZSTD:kZSTD"},
		{[]string{"no", "snappy", "zlib", "lz4", "lz4hc", "zstd"}, "kNoCompression:kSnappyCompression:kZlibCompression:kLZ4Compression:kLZ4HCCompression:kZSTD:kZSTD"},
		{[]string{"bogus"}, "::::::"}, // SetOptions refuses it
	} {
		if got := compressionOption(tt.names); got != tt.want {
			t.Errorf("compressionOption(%q) = %q, want %q", tt.names, got, tt.want)
		}
	}
}

// TestApplyOptionsRollsBack: when RocksDB refuses the options of one column
// family, the ones already changed are set back, as RocksDB's newest
// OPTIONS file shows.
func TestApplyOptionsRollsBack(t *testing.T) {
	cfg := conf.Default()
	// No per-column-family overrides: every column family follows [rocksdb].
	cfg.RocksDB.Metadata, cfg.RocksDB.Subkey, cfg.RocksDB.Score = conf.CFOverride{}, conf.CFOverride{}, conf.CFOverride{}
	st, cfg := openTestStore(t, cfg)
	old := cfg.RocksDB
	writeBuffers := func(r conf.RocksDB) int {
		return strings.Count(newestOptionsFile(t, cfg.Storage.Dir),
			"write_buffer_size="+strconv.FormatInt(int64(r.WriteBufferBytes), 10)+"\n")
	}

	next := old
	next.WriteBufferBytes = old.WriteBufferBytes * 2
	if err := st.ApplyOptions(old, next); err != nil {
		t.Fatal(err)
	}
	if n := writeBuffers(next); n != int(numCFs) {
		t.Fatalf("%d column families took the new write buffer size, want %d", n, numCFs)
	}

	// The score column family, after three that succeed, is refused.
	bad := next
	bad.WriteBufferBytes = old.WriteBufferBytes * 3
	bad.Score.Compression = []string{"bogus"}
	err := st.ApplyOptions(next, bad)
	if err == nil || !strings.Contains(err.Error(), "score") {
		t.Fatalf("ApplyOptions = %v, want the score column family's refusal", err)
	}
	if n := writeBuffers(next); n != int(numCFs) {
		t.Fatalf("after the refusal, %d column families have the previous write buffer size, want %d", n, numCFs)
	}
}

// openTestStore opens a store of cfg in a new directory, closed at the
// test's end, and returns it with cfg as opened (its Storage.Dir set).
func openTestStore(t *testing.T, cfg conf.Config) (*Store, conf.Config) {
	t.Helper()
	cfg.Storage.Dir = t.TempDir()
	st, err := Open(cfg, zerolog.New(zerolog.NewTestWriter(t)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, cfg
}

// newestOptionsFile is the text of the OPTIONS file RocksDB wrote last
// (SetOptions writes a new one).
func newestOptionsFile(t *testing.T, dir string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "OPTIONS-*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no OPTIONS file in %s: %v", dir, err)
	}
	number := func(f string) int {
		n, _ := strconv.Atoi(strings.TrimPrefix(filepath.Base(f), "OPTIONS-"))
		return n
	}
	newest := slices.MaxFunc(files, func(a, b string) int { return number(a) - number(b) })
	b, err := os.ReadFile(newest)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestApplyBlobOptions: blob files turn on and off at runtime, in the
// column family whose override changed only.
func TestApplyBlobOptions(t *testing.T) {
	st, cfg := openTestStore(t, conf.Default())
	blobCFs := func() int { return strings.Count(newestOptionsFile(t, cfg.Storage.Dir), "enable_blob_files=true\n") }
	if n := blobCFs(); n != 0 {
		t.Fatalf("%d column families opened with blob files, want 0", n)
	}
	on, minBytes := true, conf.KiB
	next := cfg.RocksDB
	next.Metadata.EnableBlobFiles, next.Metadata.MinBlobBytes = &on, &minBytes
	if err := st.ApplyOptions(cfg.RocksDB, next); err != nil {
		t.Fatal(err)
	}
	opts := newestOptionsFile(t, cfg.Storage.Dir)
	if n := blobCFs(); n != 1 || !strings.Contains(opts, "min_blob_size=1024\n") {
		t.Fatalf("after turning them on in the metadata column family, %d have blob files (want 1), min_blob_size=1024 present: %v",
			n, strings.Contains(opts, "min_blob_size=1024\n"))
	}
	if err := st.ApplyOptions(next, cfg.RocksDB); err != nil {
		t.Fatal(err)
	}
	if n := blobCFs(); n != 0 {
		t.Fatalf("after turning them off, %d column families have blob files, want 0", n)
	}
}

// TestPartitionedIndexAndFilters: every column family's tables have a
// two-level index and partitioned filters with their top level pinned, so a
// small block cache holds the partitions lookups use rather than thrashing
// on whole-file filters (rocksOptions.cfOptions).
func TestPartitionedIndexAndFilters(t *testing.T) {
	_, cfg := openTestStore(t, conf.Default())
	opts := newestOptionsFile(t, cfg.Storage.Dir)
	for _, want := range []string{"index_type=kTwoLevelIndexSearch\n", "partition_filters=true\n",
		"pin_top_level_index_and_filter=true\n", "metadata_block_size=4096\n"} {
		if n := strings.Count(opts, want); n != int(numCFs) {
			t.Errorf("%d column families have %q, want %d", n, strings.TrimSpace(want), numCFs)
		}
	}
}
