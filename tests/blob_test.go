package tests

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// blobFileBytes is the size of the blob files in a data directory.
func blobFileBytes(t *testing.T, dir string) int64 {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.blob"))
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, f := range files {
		if st, err := os.Stat(f); err == nil { // a file compaction just deleted is no longer there
			n += st.Size()
		}
	}
	return n
}

// TestBlobFilesGiveDiskBack: with blob files on for string values, big
// strings live in blob files, read back before and after a restart, and
// deleting or shrinking them gives their disk back at the next COMPACT,
// while a big value written since stays. (A blob file that still holds a
// live value goes only once blob GC moves that value:
// server/store/blob_test.go.)
func TestBlobFilesGiveDiskBack(t *testing.T) {
	t.Parallel()
	config := "[rocksdb.metadata]\nenable_blob_files = true\nmin_blob_bytes = \"1KiB\"\n"
	p := startShale(t, shaleOpts{Config: config})
	c := p.Client
	const n, files, size = 300, 4, 16 << 10
	big := func(i int) string { return strings.Repeat(strconv.Itoa(i%10), size) }
	for i := range n {
		do(t, c, "SET", "k"+strconv.Itoa(i), big(i))
		if (i+1)%(n/files) == 0 {
			do(t, c, "COMPACT") // flushes: one more blob file
		}
	}
	run(t, c, []step{
		{cmd("SET", "small", "v"), ok},
		{cmd("STRLEN", "k7"), int64(size)},
	})
	if got := blobFileBytes(t, p.Dir); got < n*size {
		t.Fatalf("blob files hold %d bytes after writing %d strings of %d bytes, want at least %d", got, n, size, n*size)
	}

	p.Stop()
	p = startShale(t, shaleOpts{Config: config, Dir: p.Dir})
	c = p.Client
	if got := doStr(t, c, "GET", "k7"); got != big(7) {
		t.Fatalf("GET k7 after a restart: %d bytes, want %d bytes of 7", len(got), size)
	}
	// k0 shrinks below min_blob_bytes, k1 is overwritten by a new big
	// value, the others go.
	do(t, c, "SET", "k0", "short")
	do(t, c, "SET", "k1", big(11))
	for i := 2; i < n; i++ {
		do(t, c, "DEL", "k"+strconv.Itoa(i))
	}
	run(t, c, []step{
		{cmd("COMPACT"), ok},
		{cmd("GET", "k0"), "short"},
		{cmd("GET", "small"), "v"},
		{cmd("STRLEN", "k1"), int64(size)},
		{cmd("DBSIZE"), int64(3)},
	})
	if got := blobFileBytes(t, p.Dir); got > 2*size {
		t.Fatalf("blob files hold %d bytes after deleting all but one %d-byte value and compacting, want at most %d",
			got, size, 2*size)
	}
	if got := doStr(t, c, "GET", "k1"); got != big(11) {
		t.Fatalf("GET k1 after compaction: %d bytes, want %d bytes of 1", len(got), size)
	}
}
