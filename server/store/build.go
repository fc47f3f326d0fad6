package store

/*
#define _GNU_SOURCE
#include <dlfcn.h>

// shale_rocksdb_has_assertions looks for a symbol that RocksDB defines only
// when built without NDEBUG: its test sync points. Debian's shared
// librocksdb (built with CMAKE_BUILD_TYPE=None) exports it; a release build
// has no such symbol. A statically linked library exports nothing to dlsym,
// so a static debug build goes unnoticed: the Makefile links statically only
// the release library it builds.
static int shale_rocksdb_has_assertions(void) {
	return dlsym(RTLD_DEFAULT, "_ZN7rocksdb9SyncPoint11GetInstanceEv") != 0;
}
*/
import "C"

// RocksDBHasAssertions reports whether the linked RocksDB was built with
// its assertions (and debug-only test hooks) compiled in, which makes every
// call into it slower: Debian's librocksdb is built that way.
func RocksDBHasAssertions() bool { return C.shale_rocksdb_has_assertions() != 0 }

// releaseBuildHint is what the start-up warning tells the operator to run.
const releaseBuildHint = "make rocksdb-release && make build"
