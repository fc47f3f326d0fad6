package store

import (
	"strconv"
	"strings"
)

// WriteStalls counts the times RocksDB slowed down or stopped writes to one
// column family, by cause, since the database opened. They come from the
// "Stalls(count)" line of the column family's "rocksdb.cfstats" property
// (grocksdb v1.7.15 has no map-property call to read them as numbers).
type WriteStalls struct {
	Level0Slowdown      uint64 // slowed: too many level-0 files
	Level0Stop          uint64 // stopped: too many level-0 files
	PendingCompactSlow  uint64 // slowed: too many bytes waiting for compaction
	PendingCompactStop  uint64 // stopped: too many bytes waiting for compaction
	MemtableSlowdown    uint64 // slowed: too many memtables
	MemtableStop        uint64 // stopped: too many memtables
	UnknownStallEntries int    // entries of the line this build does not know; 0 normally
}

// Total is every stall, slowdowns and stops.
func (w WriteStalls) Total() uint64 {
	return w.Level0Slowdown + w.Level0Stop + w.PendingCompactSlow + w.PendingCompactStop + w.MemtableSlowdown + w.MemtableStop
}

// WriteStalls reads cf's write-stall counters.
func (s *Store) WriteStalls(cf CF) WriteStalls {
	return parseWriteStalls(s.Property(cf, "rocksdb.cfstats-no-file-histogram"))
}

// parseWriteStalls reads the line
//
//	Stalls(count): 0 level0_slowdown, 0 level0_slowdown_with_compaction, 0 level0_numfiles,
//	0 level0_numfiles_with_compaction, 0 stop for pending_compaction_bytes, 0 slowdown for
//	pending_compaction_bytes, 0 memtable_compaction, 0 memtable_slowdown, interval 0 total count
//
// of a cfstats dump (one line in the dump). The "_with_compaction" entries
// are the subset of the entry before them that happened while a compaction
// ran, so they are not added again.
func parseWriteStalls(dump string) WriteStalls {
	var w WriteStalls
	_, line, ok := strings.Cut(dump, "Stalls(count): ")
	if !ok {
		return w
	}
	line, _, _ = strings.Cut(line, "\n")
	for _, entry := range strings.Split(line, ", ") {
		num, name, ok := strings.Cut(strings.TrimSpace(entry), " ")
		if !ok {
			continue
		}
		n, err := strconv.ParseUint(num, 10, 64)
		if err != nil {
			continue // "interval 0 total count"
		}
		switch name {
		case "level0_slowdown":
			w.Level0Slowdown = n
		case "level0_numfiles":
			w.Level0Stop = n
		case "slowdown for pending_compaction_bytes":
			w.PendingCompactSlow = n
		case "stop for pending_compaction_bytes":
			w.PendingCompactStop = n
		case "memtable_slowdown":
			w.MemtableSlowdown = n
		case "memtable_compaction":
			w.MemtableStop = n
		case "level0_slowdown_with_compaction", "level0_numfiles_with_compaction":
		default:
			w.UnknownStallEntries++
		}
	}
	return w
}

// WriteStallSeconds is the time writes to the whole database spent slowed
// down or stopped since it opened, from "Cumulative stall: H:M:S" of the
// "rocksdb.dbstats" property.
func (s *Store) WriteStallSeconds() float64 {
	return parseStallSeconds(s.db.GetProperty("rocksdb.dbstats"))
}

func parseStallSeconds(dump string) float64 {
	_, rest, ok := strings.Cut(dump, "Cumulative stall: ")
	if !ok {
		return 0
	}
	hms, _, _ := strings.Cut(rest, " ")
	parts := strings.Split(hms, ":")
	if len(parts) != 3 {
		return 0
	}
	var total float64
	for i, unit := range []float64{3600, 60, 1} {
		f, err := strconv.ParseFloat(parts[i], 64)
		if err != nil {
			return 0
		}
		total += f * unit
	}
	return total
}
