package store

import "testing"

// The Makefile links Debian's shared librocksdb, built with assertions,
// unless it links the release library statically (tag grocksdb_no_link).
func TestRocksDBHasAssertions(t *testing.T) {
	if got, want := RocksDBHasAssertions(), !linkedReleaseLibrary; got != want {
		t.Fatalf("RocksDBHasAssertions() = %v, want %v (linked release library: %v)", got, want, linkedReleaseLibrary)
	}
}
