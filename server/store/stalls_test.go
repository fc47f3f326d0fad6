package store

import (
	"strings"
	"testing"

	"github.com/shaledb/shale/conf"
)

// A cfstats dump of RocksDB 8/9 as the "rocksdb.cfstats-no-file-histogram"
// property returns it (cut down), with made-up counts.
const cfstatsDump = `
** Compaction Stats [subkey] **
Cumulative compaction: 0.00 GB write, 0.00 MB/s write, 0.00 GB read, 0.00 MB/s read, 0.0 seconds
Stalls(count): 3 level0_slowdown, 2 level0_slowdown_with_compaction, 5 level0_numfiles, 1 level0_numfiles_with_compaction, 7 stop for pending_compaction_bytes, 11 slowdown for pending_compaction_bytes, 13 memtable_compaction, 17 memtable_slowdown, interval 0 total count
Block cache LRUCache@0x27810b00#28657 capacity: 8.00 MB usage: 0.09 KB
`

func TestParseWriteStalls(t *testing.T) {
	tests := []struct {
		name string
		dump string
		want WriteStalls
	}{
		{"dump", cfstatsDump, WriteStalls{Level0Slowdown: 3, Level0Stop: 5, PendingCompactStop: 7, PendingCompactSlow: 11, MemtableStop: 13, MemtableSlowdown: 17}},
		{"empty", "", WriteStalls{}},
		{"new entry", "Stalls(count): 1 level0_slowdown, 4 write_buffer_manager_limit_stops, interval 0 total count\n",
			WriteStalls{Level0Slowdown: 1, UnknownStallEntries: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := parseWriteStalls(tt.dump); got != tt.want {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
	if got := parseWriteStalls(cfstatsDump).Total(); got != 3+5+7+11+13+17 {
		t.Fatalf("Total = %d", got)
	}
}

func TestParseStallSeconds(t *testing.T) {
	tests := []struct {
		dump string
		want float64
	}{
		{"Cumulative stall: 00:00:0.000 H:M:S, 0.0 percent\n", 0},
		{"x\nCumulative stall: 01:02:3.500 H:M:S, 1.5 percent\n", 3723.5},
		{"Cumulative stall: garbage H:M:S", 0},
		{"", 0},
	}
	for _, tt := range tests {
		if got := parseStallSeconds(tt.dump); got != tt.want {
			t.Errorf("parseStallSeconds(%q) = %v, want %v", tt.dump, got, tt.want)
		}
	}
}

// TestWriteStallsFromRocksDB checks the parsers against this RocksDB build's
// real dumps: each column family's dump has a stalls line, every entry of it
// is known and every known entry is on it (a renamed one would read as 0
// for ever), and the database's dump has a cumulative stall time.
func TestWriteStallsFromRocksDB(t *testing.T) {
	cfg := conf.Default()
	cfg.RocksDB.BlockCacheBytes = 8 << 20
	s, _ := openTestStore(t, cfg)
	for _, cf := range AllCFs() {
		dump := s.Property(cf, "rocksdb.cfstats-no-file-histogram")
		_, line, found := strings.Cut(dump, "Stalls(count): ")
		if !found {
			t.Fatalf("%s: no stalls line in %q", cf, dump)
		}
		line, _, _ = strings.Cut(line, "\n")
		for _, entry := range knownStallEntries {
			if !strings.Contains(", "+line+",", " "+entry+",") {
				t.Errorf("%s: stalls line lacks %q: %q", cf, entry, line)
			}
		}
		if w := parseWriteStalls(dump); w.UnknownStallEntries != 0 || w.Total() != 0 {
			t.Fatalf("%s: %+v from %q", cf, w, dump)
		}
	}
	if dump := s.db.GetProperty("rocksdb.dbstats"); !strings.Contains(dump, "Cumulative stall: 00:00:0.000 H:M:S") {
		t.Fatalf("dbstats has no zero cumulative stall time: %q", dump)
	}
	if got := s.WriteStallSeconds(); got != 0 {
		t.Fatalf("WriteStallSeconds = %v on a new store", got)
	}
}

// knownStallEntries are the entries of the stalls line parseWriteStalls
// reads.
var knownStallEntries = []string{
	"level0_slowdown", "level0_slowdown_with_compaction",
	"level0_numfiles", "level0_numfiles_with_compaction",
	"stop for pending_compaction_bytes", "slowdown for pending_compaction_bytes",
	"memtable_compaction", "memtable_slowdown",
}
