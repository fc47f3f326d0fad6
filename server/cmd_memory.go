package server

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// MEMORY USAGE, MALLOC-STATS, PURGE and HELP. MEMORY STATS and DOCTOR are
// left out: their figures and advice are about Redis's allocator and
// dataset in memory, which Shale, whose data is in RocksDB, has no truthful
// answer for; INFO memory has what Shale can tell.

var memorySubcommands = []Subcommand{
	sub("usage", -3, ReadOnly, cmdMemoryUsage, cmdDoc{"Estimate the memory usage of a key", "4.0.0", "server", "O(N) where N is the number of samples.", "key [SAMPLES count]"}),
	sub("malloc-stats", 2, 0, cmdMemoryMallocStats, cmdDoc{"Show allocator internal stats", "4.0.0", "server", "Depends on how much memory is allocated, could be slow", ""}).tips("nondeterministic_output", "request_policy:all_shards", "response_policy:special"),
	sub("purge", 2, 0, cmdMemoryPurge, cmdDoc{"Ask the allocator to release memory", "4.0.0", "server", "Depends on how much memory is allocated, could be slow", ""}).tips("request_policy:all_shards", "response_policy:all_succeeded"),
	sub("help", 2, Loading|Stale, cmdMemoryHelp, cmdDoc{"Show helpful text about the different subcommands", "4.0.0", "server", "O(1)", ""}),
}

// memoryDefaultSamples is how many elements MEMORY USAGE reads by default
// (OBJ_COMPUTE_SIZE_DEF_SAMPLES).
const memoryDefaultSamples = 5

// MEMORY USAGE key [SAMPLES count]: the estimate of types.MemoryUsage, in
// bytes; nil for a missing key. As Redis, the options are read before the
// key is looked up; count 0 reads every element.
func cmdMemoryUsage(c *Ctx, args [][]byte) error {
	samples := int64(memoryDefaultSamples)
	for j := 3; j < len(args); j++ {
		if !is(args[j], "SAMPLES") || j+1 >= len(args) {
			return errSyntax
		}
		n, err := parseInt(args[j+1])
		if err != nil {
			return err
		}
		if n < 0 {
			return errSyntax
		}
		samples = n
		j++
	}
	n, ok, err := c.DB.MemoryUsage(args[2], samples)
	if err != nil {
		return err
	}
	if !ok {
		c.Reply().Null()
		return nil
	}
	c.Reply().Int(n)
	return nil
}

// MEMORY MALLOC-STATS: the Go runtime allocator's figures, in the place
// where Redis gives jemalloc's. RocksDB's own memory (block cache,
// memtables) is in INFO memory.
func cmdMemoryMallocStats(c *Ctx, _ [][]byte) error {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	var b strings.Builder
	b.WriteString("___ Begin Go runtime allocator statistics ___\n")
	for _, f := range []struct {
		name string
		v    uint64
	}{
		{"heap_alloc", m.HeapAlloc}, {"heap_inuse", m.HeapInuse}, {"heap_idle", m.HeapIdle},
		{"heap_released", m.HeapReleased}, {"heap_sys", m.HeapSys}, {"heap_objects", m.HeapObjects},
		{"stack_inuse", m.StackInuse}, {"stack_sys", m.StackSys}, {"sys", m.Sys},
		{"total_alloc", m.TotalAlloc}, {"mallocs", m.Mallocs}, {"frees", m.Frees},
		{"gc_cycles", uint64(m.NumGC)}, {"next_gc", m.NextGC},
	} {
		fmt.Fprintf(&b, "%s: %d\n", f.name, f.v)
	}
	b.WriteString("--- End Go runtime allocator statistics ---\n")
	c.Reply().Verbatim(b.String())
	return nil
}

// MEMORY PURGE: returns the Go heap's free memory to the operating system
// (a garbage collection first), as Redis asks jemalloc to purge its dirty
// pages.
func cmdMemoryPurge(c *Ctx, _ [][]byte) error {
	debug.FreeOSMemory()
	c.Reply().OK()
	return nil
}

// MEMORY HELP
func cmdMemoryHelp(c *Ctx, _ [][]byte) error {
	writeHelp(c, "memory", []string{
		"MALLOC-STATS",
		"    Return internal statistics report from the memory allocator.",
		"PURGE",
		"    Attempt to purge dirty pages for reclamation by the allocator.",
		"USAGE <key> [SAMPLES <count>]",
		"    Return memory in bytes used by <key> and its value. Nested values are",
		"    sampled up to <count> times (default: 5, 0 means sample all).",
	})
	return nil
}

var memoryCommands = []Command{
	// Redis 6's layout, as OBJECT's (see cmd_keyspace.go): the key of
	// MEMORY USAGE on the container's row, where the dispatcher reads keys.
	cmd("memory", -2, ReadOnly|NoTouch, 2, 2, 1, nil).withSubcommands(memorySubcommands).
		doc("A container for memory diagnostics commands", "4.0.0", "server", "Depends on subcommand.", ""),
}
