package store

/*
#include <malloc.h>
#include <stdlib.h>
#include <unistd.h>

// shale_malloc_defaults runs when the program is loaded, before the Go
// runtime starts any thread: glibc fixes its arena limit when a second
// thread first allocates, so a later mallopt would be too late. It makes
// RocksDB's C memory come back when freed (docs/OPERATIONS.md, "The C
// allocator"):
//   - one arena per CPU, at least 2, instead of glibc's 8 per CPU: each
//     arena keeps the memory freed into it, and few threads allocate at
//     once on a server with few CPUs; the per-thread caches serve most
//     small allocations without an arena lock anyway;
//   - allocations of 1 MiB and more (memtable arena blocks, flush and
//     compaction buffers) mapped apart and unmapped when freed: by default
//     glibc raises that threshold up to 32 MiB as such blocks are freed, and
//     then keeps them inside its arenas, where they fragment.
// The environment's MALLOC_ARENA_MAX, MALLOC_MMAP_THRESHOLD_ or
// GLIBC_TUNABLES, when set, win.
__attribute__((constructor)) static void shale_malloc_defaults(void) {
	if (getenv("GLIBC_TUNABLES") != NULL) {
		return;
	}
	if (getenv("MALLOC_ARENA_MAX") == NULL) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);
		mallopt(M_ARENA_MAX, cpus < 2 ? 2 : (int)cpus);
	}
	if (getenv("MALLOC_MMAP_THRESHOLD_") == NULL) {
		mallopt(M_MMAP_THRESHOLD, 1 << 20);
	}
}

// shale_mallinfo reads glibc's totals over all of malloc's arenas. It
// walks every arena's free lists under that arena's lock, so it costs
// microseconds to a millisecond: fine for INFO and a scrape, not for a
// command's path.
static void shale_mallinfo(size_t *allocated, size_t *free_bytes, size_t *from_os) {
	struct mallinfo2 m = mallinfo2();
	*allocated = m.uordblks + m.hblkhd;
	*free_bytes = m.fordblks;
	*from_os = m.arena + m.hblkhd;
}
*/
import "C"

// MallocStats are the C allocator's (glibc malloc's) totals. Everything
// RocksDB allocates goes through it (block cache, memtables, table
// readers, and what RocksDB does not account for: iterators, compaction
// and flush buffers, the WAL writer), and so does any other C library
// Shale links; the Go heap does not.
type MallocStats struct {
	Allocated uint64 // bytes handed out and not yet freed
	Free      uint64 // bytes freed but kept by malloc in its arenas: fragmentation, not all of it resident
	FromOS    uint64 // bytes malloc obtained from the operating system: Allocated + Free
}

// ReadMallocStats reads malloc's totals now.
func ReadMallocStats() MallocStats {
	var allocated, free, fromOS C.size_t
	C.shale_mallinfo(&allocated, &free, &fromOS)
	return MallocStats{Allocated: uint64(allocated), Free: uint64(free), FromOS: uint64(fromOS)}
}
