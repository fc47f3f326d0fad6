package store_test

import (
	"bytes"
	"fmt"
	"strconv"
	"testing"

	"github.com/shaledb/shale/conf"
	"github.com/shaledb/shale/metadata"
	"github.com/shaledb/shale/server/store"
	"github.com/shaledb/shale/server/store/storetest"
)

// blobConfig is a store config with blob files on in the metadata column
// family, for values of at least 1 KiB, and blob GC as given.
func blobConfig(t *testing.T, gc bool) conf.Config {
	cfg := storetest.Config(t)
	on, minBytes := true, conf.KiB
	cfg.RocksDB.Metadata.EnableBlobFiles = &on
	cfg.RocksDB.Metadata.MinBlobBytes = &minBytes
	cfg.RocksDB.Metadata.BlobGC = &gc
	return cfg
}

// blobBytes is the size of the metadata column family's blob files, as
// RocksDB counts them.
func blobBytes(t *testing.T, st *store.Store) uint64 {
	t.Helper()
	v := st.Property(store.CFMeta, "rocksdb.total-blob-file-size")
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		t.Fatalf("rocksdb.total-blob-file-size = %q: %v", v, err)
	}
	return n
}

// putStrings writes n string records of size bytes under prefix, one
// batch, and flushes them: one blob file.
func putStrings(t *testing.T, st *store.Store, prefix string, n, size int) {
	t.Helper()
	writeBatch(t, st, func(b *store.Batch) {
		for i := range n {
			key := fmt.Appendf(nil, "%s%d", prefix, i)
			val := bytes.Repeat([]byte{byte('a' + i%26)}, size)
			b.Put(store.CFMeta, metadata.AppendMetaKey(nil, 0, key), metadata.Meta{Type: metadata.TypeString, Value: val}.Append(nil))
		}
	})
	if err := st.Flush(); err != nil {
		t.Fatal(err)
	}
}

func deleteStrings(t *testing.T, st *store.Store, prefix string, from, to int) {
	t.Helper()
	writeBatch(t, st, func(b *store.Batch) {
		for i := from; i < to; i++ {
			b.Delete(store.CFMeta, metadata.AppendMetaKey(nil, 0, fmt.Appendf(nil, "%s%d", prefix, i)))
		}
	})
}

// TestBlobFilesHoldBigValuesOnly: with blob files on, a value past
// min_blob_bytes goes to a blob file and a smaller one stays in the SST
// files, and both read back.
func TestBlobFilesHoldBigValuesOnly(t *testing.T) {
	st := storetest.Open(t, new(blobConfig(t, true)))
	putStrings(t, st, "small:", 100, 100)
	if got := blobBytes(t, st); got != 0 {
		t.Fatalf("100-byte values took %d bytes of blob files, want 0", got)
	}
	putStrings(t, st, "big:", 100, 4096)
	if got := blobBytes(t, st); got < 100*4096 {
		t.Fatalf("4 KiB values took %d bytes of blob files, want at least %d", got, 100*4096)
	}
	for _, k := range []string{"small:7", "big:7"} {
		raw, ok, err := st.Get(store.CFMeta, metadata.AppendMetaKey(nil, 0, []byte(k)))
		if err != nil || !ok {
			t.Fatalf("get %s: %v, %v", k, ok, err)
		}
		m, err := metadata.DecodeMeta(raw)
		if err != nil || m.Value[0] != 'h' {
			t.Fatalf("get %s: %v, value starts %q", k, err, m.Value[:1])
		}
	}
}

// TestBlobFilesGoWithTheirValues: deleting every value of a blob file and
// compacting deletes the file, GC or not: removing big strings gives the
// disk back.
func TestBlobFilesGoWithTheirValues(t *testing.T) {
	for _, gc := range []bool{true, false} {
		t.Run("gc="+strconv.FormatBool(gc), func(t *testing.T) {
			st := storetest.Open(t, new(blobConfig(t, gc)))
			putStrings(t, st, "k:", 500, 8192)
			if got := blobBytes(t, st); got < 500*8192 {
				t.Fatalf("blob files hold %d bytes, want at least %d", got, 500*8192)
			}
			deleteStrings(t, st, "k:", 0, 500)
			st.CompactRange(store.CFMeta, nil, nil)
			if got := blobBytes(t, st); got != 0 {
				t.Fatalf("after deleting every value and compacting, blob files hold %d bytes, want 0", got)
			}
		})
	}
}

// TestBlobGCMovesLiveValues: a blob file with one live value left is
// rewritten by a compaction only with blob GC on (it is among the oldest
// quarter of the files, the age cutoff), so the garbage beside that value
// is freed; without GC the whole file stays.
func TestBlobGCMovesLiveValues(t *testing.T) {
	const n, size = 200, 8192
	for _, gc := range []bool{true, false} {
		t.Run("gc="+strconv.FormatBool(gc), func(t *testing.T) {
			cfg := blobConfig(t, gc)
			// An automatic compaction of the four level-0 files would run
			// the GC before the deletes, and move the oldest file's values.
			cfg.RocksDB.DisableAutoCompactions = true
			st := storetest.Open(t, &cfg)
			for f := range 4 { // four blob files, so that the oldest is a quarter
				putStrings(t, st, fmt.Sprintf("f%d:", f), n, size)
			}
			deleteStrings(t, st, "f0:", 1, n) // the oldest file keeps one live value
			before := blobBytes(t, st)
			st.CompactRange(store.CFMeta, nil, nil)
			freed := int64(before) - int64(blobBytes(t, st))
			if gc && freed < (n-2)*size {
				t.Fatalf("with blob GC, compaction freed %d bytes of blob files, want at least %d", freed, (n-2)*size)
			}
			if !gc && freed != 0 {
				t.Fatalf("without blob GC, compaction freed %d bytes of blob files, want 0", freed)
			}
			raw, ok, err := st.Get(store.CFMeta, metadata.AppendMetaKey(nil, 0, []byte("f0:0")))
			if err != nil || !ok || len(raw) != 9+size {
				t.Fatalf("the live value after GC: %d bytes, %v, %v", len(raw), ok, err)
			}
		})
	}
}

// TestBlobFilesOffMovesValuesBack: once blob files are turned off, a
// compaction with blob GC moves the values of the oldest blob files back
// into the SST files, so turning the option off empties them in time.
func TestBlobFilesOffMovesValuesBack(t *testing.T) {
	cfg := blobConfig(t, true)
	cfg.RocksDB.DisableAutoCompactions = true
	st := storetest.Open(t, &cfg)
	for f := range 4 {
		putStrings(t, st, fmt.Sprintf("f%d:", f), 50, 8192)
	}
	off := cfg.RocksDB
	no := false
	off.Metadata.EnableBlobFiles = &no
	if err := st.ApplyOptions(cfg.RocksDB, off); err != nil {
		t.Fatal(err)
	}
	before := blobBytes(t, st)
	st.CompactRange(store.CFMeta, nil, nil)
	if after := blobBytes(t, st); after >= before {
		t.Fatalf("blob files hold %d bytes after a compaction with blob files off, %d before: want fewer", after, before)
	}
	raw, ok, err := st.Get(store.CFMeta, metadata.AppendMetaKey(nil, 0, []byte("f0:3")))
	if err != nil || !ok || len(raw) != 9+8192 {
		t.Fatalf("a value moved back: %d bytes, %v, %v", len(raw), ok, err)
	}
}
