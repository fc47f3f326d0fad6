package store

import "syscall"

// The record caches' arenas live outside the Go heap, in anonymous memory
// mappings. In the heap they were half of what the collector found live,
// and GOGC (server.go_gc_percent) let the heap grow by a share of that
// again before each collection, on top of every replaced arena waiting for
// the next collection; yet they allocate little between collections, and
// the headroom is there to pace those. A mapping costs only the pages
// written, and its memory goes back to the system the moment it is
// unmapped.

// mapArena returns an empty slice of n bytes of capacity in a new mapping,
// or nil when the system has no memory for it.
func mapArena(n int) []byte {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil
	}
	return b[:0]
}

// unmapArena returns an arena's memory to the system. Nothing may read the
// arena after.
func unmapArena(b []byte) {
	if cap(b) > 0 {
		_ = syscall.Munmap(b[:cap(b)]) // fails only for a slice mapArena did not return
	}
}
