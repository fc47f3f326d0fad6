package server

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

func TestInfoSections(t *testing.T) {
	s, c := startAdminServer(t, nil)
	ctx := context.Background()
	if err := c.Do(ctx, "SET", "k", "v").Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.Do(ctx, "SELECT", "5").Err(); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]any{{"SET", "a", "v"}, {"SET", "b", "v", "EX", "100"}} {
		if err := c.Do(ctx, args...).Err(); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		section string
		heading string
		want    []string // regexps, each matching one whole line
	}{
		{"server", "Server", []string{`redis_version:` + regexp.QuoteMeta(redisVersion), `shale_version:` + regexp.QuoteMeta(Version),
			`redis_mode:standalone`, `os:.+`, `arch_bits:(32|64)`, `process_id:\d+`, `tcp_port:[1-9]\d*`,
			`uptime_in_seconds:\d+`, `uptime_in_days:\d+`, `executable:.*`, `config_file:`, `run_id:[0-9a-f]{40}`}},
		{"clients", "Clients", []string{`connected_clients:1`, `maxclients:10000`, `blocked_clients:0`}},
		{"memory", "Memory", []string{`used_memory:[1-9]\d*`, `used_memory_human:[\d.]+[BKMGTP]`, `maxmemory:0`,
			`rocksdb_block_cache_usage:\d+`, `rocksdb_memtables:\d+`,
			`go_gc_cycles:\d+`, `go_gc_pause_total_us:\d+`, `go_gc_pause_last_us:\d+`, `go_gc_pause_max_recent_us:\d+`,
			`metadata_cache_max_bytes:16777216`, `subkey_cache_max_bytes:8388608`, `subkey_cache_entries:\d+`, `subkey_cache_list_runs:\d+`}},
		{"persistence", "Persistence", []string{`loading:0`, `rdb_changes_since_last_save:0`, `rdb_bgsave_in_progress:0`,
			`aof_enabled:1`, `wal_sync:0`}},
		{"stats", "Stats", []string{`total_connections_received:[1-9]\d*`, `total_commands_processed:[1-9]\d*`,
			`rejected_connections:0`, `total_error_replies:\d+`, `expired_keys:\d+`,
			`metadata_cache_misses:[1-9]\d*`, `subkey_cache_hits:\d+`}},
		{"replication", "Replication", []string{`role:master`, `connected_slaves:0`}},
		{"cpu", "CPU", []string{`used_cpu_sys:[\d.]+`, `used_cpu_user:[\d.]+`}},
		{"cluster", "Cluster", []string{`cluster_enabled:0`}},
		{"keyspace", "Keyspace", []string{`db0:keys=1,expires=0,avg_ttl=0`, `db5:keys=2,expires=1,avg_ttl=(99\d{3}|100000)`}},
		{"rocksdb", "RocksDB", []string{`block_cache_usage:\d+`, `block_cache_capacity:8388608`, `pending_compaction_bytes:\d+`,
			`metadata_estimate_num_keys:\d+`, `subkey_sst_bytes:\d+`, `score_memtable_bytes:\d+`,
			`bookkeeping_pending_compaction_bytes:\d+`, `expire_num_files_at_level0:\d+`, `default_estimate_num_keys:\d+`}},
		{"reclaim", "Reclaim", []string{`reclaim_dropped_subkey:\d+`, `reclaim_dropped_score:\d+`,
			`reclaim_dropped_bookkeeping:\d+`, `reclaim_dead_cache_hits:\d+`, `reclaim_errors:\d+`,
			`reclaim_queue_length:\d+`, `reclaim_compactions:\d+`, `reclaim_queue_overflows:\d+`,
			`reclaim_in_progress:[01]`, `reclaim_freed_bytes:\d+`}},
		{"latency", "Latency", []string{`queue_wait_count:\d+`, `queue_wait_seconds:\d+\.\d{6}`,
			`queue_wait_percentiles_usec:` + percentilesRe, `queue_writes:\d+`, `key_lock_wait_count:\d+`, `key_lock_wait_seconds:\d+\.\d{6}`,
			`key_lock_wait_percentiles_usec:` + percentilesRe, `go_gc_pauses:\d+`, `go_gc_pause_percentiles_usec:` + percentilesRe,
			`go_gc_cpu_seconds:\d+\.\d{6}`, `go_gc_assist_cpu_seconds:\d+\.\d{6}`, `go_gc_cpu_fraction:[01]\.\d{4}`,
			`go_sched_latency_percentiles_usec:` + percentilesRe, `go_gogc:-?\d+`, `go_gomemlimit:\d+`, `go_gomaxprocs:[1-9]\d*`}},
	}
	for _, tt := range tests {
		t.Run(tt.section, func(t *testing.T) {
			for _, arg := range []string{tt.section, strings.ToUpper(tt.section)} {
				got, err := c.Do(ctx, "INFO", arg).Text()
				if err != nil {
					t.Fatal(err)
				}
				if !strings.HasPrefix(got, "# "+tt.heading+"\r\n") || !strings.HasSuffix(got, "\r\n") {
					t.Fatalf("INFO %s: %q", arg, got)
				}
				if strings.Count(got, "\n") != strings.Count(got, "\r\n") || strings.Contains(got, "\r\n\r\n") {
					t.Errorf("INFO %s: not one CRLF-terminated section: %q", arg, got)
				}
				for _, w := range tt.want {
					if !regexp.MustCompile(`(?m)^` + w + "\r$").MatchString(got) {
						t.Errorf("INFO %s: no line matching %q in\n%s", arg, w, got)
					}
				}
			}
		})
	}
	// The reclaim section has exactly its documented fields.
	rec, _ := c.Do(ctx, "INFO", "reclaim").Text()
	if n := strings.Count(rec, "\r\n"); n != 1+10 {
		t.Errorf("INFO reclaim has %d lines, want a heading and 10 fields:\n%s", n, rec)
	}

	all, err := c.Do(ctx, "INFO").Text()
	if err != nil {
		t.Fatal(err)
	}
	const defaults = "Server Clients Memory Persistence Stats Replication CPU Errorstats Cluster Keyspace RocksDB Reclaim Latency"
	const everything = "Server Clients Memory Persistence Stats Replication CPU Commandstats Errorstats Cluster Keyspace RocksDB Reclaim Latency"
	if headings(all) != defaults {
		t.Errorf("INFO sections %q, want %q", headings(all), defaults)
	}
	for _, tt := range []struct {
		args []any
		want string
	}{
		{[]any{"default"}, defaults},
		{[]any{"DEFAULT"}, defaults},
		{[]any{"all"}, everything},
		{[]any{"everything"}, everything},
		{[]any{"ALL"}, everything},
		{[]any{"default", "commandstats"}, everything},
		{[]any{"commandstats", "errorstats"}, "Commandstats Errorstats"},
		{[]any{"stats", "all"}, everything},
	} {
		got, _ := c.Do(ctx, append([]any{"INFO"}, tt.args...)...).Text()
		if headings(got) != tt.want {
			t.Errorf("INFO %v sections %q, want %q", tt.args, headings(got), tt.want)
		}
	}
	if !strings.Contains(all, "\r\n\r\n# Clients\r\n") {
		t.Errorf("sections are not separated by a blank line")
	}
	two, _ := c.Do(ctx, "INFO", "keyspace", "server", "nosuch").Text()
	if headings(two) != "Server Keyspace" {
		t.Errorf("INFO keyspace server nosuch: sections %q", headings(two))
	}
	if got, err := c.Do(ctx, "INFO", "nosuch").Text(); err != nil || got != "" {
		t.Errorf("INFO nosuch = %q, %v; want empty", got, err)
	}
	s.SetConfigFile("/etc/shale.toml")
	if got, _ := c.Do(ctx, "INFO", "server").Text(); !strings.Contains(got, "\r\nconfig_file:/etc/shale.toml\r\n") {
		t.Errorf("config_file not reported:\n%s", got)
	}
}

func headings(info string) string {
	var h []string
	for _, m := range regexp.MustCompile(`(?m)^# (\w+)\r$`).FindAllStringSubmatch(info, -1) {
		h = append(h, m[1])
	}
	return strings.Join(h, " ")
}

func TestBytesToHuman(t *testing.T) {
	for _, tt := range []struct {
		n    uint64
		want string
	}{
		{0, "0B"}, {1023, "1023B"}, {1024, "1.00K"}, {1536, "1.50K"}, {1 << 20, "1.00M"},
		{5 << 30, "5.00G"}, {3 << 40, "3.00T"}, {1 << 50, "1.00P"},
	} {
		if got := bytesToHuman(tt.n); got != tt.want {
			t.Errorf("bytesToHuman(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

// TestSubkeyCacheThroughClient: member reads are served by the sub-key
// cache, and never return what a later write replaced or deleted.
func TestSubkeyCacheThroughClient(t *testing.T) {
	_, c := startAdminServer(t, nil)
	ctx := context.Background()
	hits := func() int64 {
		info, err := c.Info(ctx, "stats").Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(info, "\r\n") {
			if v, ok := strings.CutPrefix(line, "subkey_cache_hits:"); ok {
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
		}
		t.Fatal("INFO stats has no subkey_cache_hits")
		return 0
	}
	before := hits()
	for i, want := range []string{"v1", "v2", "v3"} {
		if err := c.HSet(ctx, "h", "f", want, fmt.Sprint("g", i), "x").Err(); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if got, err := c.HGet(ctx, "h", "f").Result(); err != nil || got != want {
				t.Fatalf("HGET = %q, %v; want %q", got, err, want)
			}
		}
		if got, err := c.ZScore(ctx, "z", "m").Result(); i > 0 && (err != nil || got != float64(i)) {
			t.Fatalf("ZSCORE = %v, %v; want %d", got, err, i)
		}
		if err := c.ZAdd(ctx, "z", redis.Z{Score: float64(i + 1), Member: "m"}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if hits() <= before {
		t.Fatal("repeated HGETs of a field just written did not hit the sub-key cache")
	}
	if err := c.HDel(ctx, "h", "f").Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.HGet(ctx, "h", "f").Err(); err != redis.Nil {
		t.Fatalf("HGET of a deleted field = %v, want nil", err)
	}
	if ok, err := c.SIsMember(ctx, "s", "a").Result(); err != nil || ok {
		t.Fatalf("SISMEMBER of a missing set = %v, %v", ok, err)
	}
	if err := c.SAdd(ctx, "s", "a").Err(); err != nil {
		t.Fatal(err)
	}
	if ok, err := c.SIsMember(ctx, "s", "a").Result(); err != nil || !ok {
		t.Fatalf("SISMEMBER after SADD = %v, %v: a cached absence outlived the write", ok, err)
	}
}

// TestInfoMemoryAddsUp: INFO memory's parts partition what they claim to:
// the Go runtime's classes its mapped memory, the column families'
// memtables the total, and rss_other is the resident set less the parts
// that can be resident. rss_other's sign is not checked: it may be
// negative (see rssOther).
func TestInfoMemoryAddsUp(t *testing.T) {
	_, c := startAdminServer(t, nil)
	ctx := context.Background()
	for i := range 100 {
		if err := c.HSet(ctx, fmt.Sprint("h", i), "f", "v").Err(); err != nil {
			t.Fatal(err)
		}
	}
	info, err := c.Info(ctx, "memory").Result()
	if err != nil {
		t.Fatal(err)
	}
	f := map[string]int64{}
	for _, line := range strings.Split(info, "\r\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				f[k] = n
			}
		}
	}
	cfs := []string{"default", "metadata", "subkey", "score", "bookkeeping", "expire"}
	want := []string{"used_memory_rss", "go_heap_inuse", "go_heap_free", "go_heap_released", "go_heap_live",
		"go_heap_goal", "go_stacks", "go_runtime", "go_sys", "rocksdb_block_cache_usage",
		"rocksdb_block_cache_capacity", "rocksdb_block_cache_pinned", "rocksdb_memtables", "rocksdb_table_readers",
		"malloc_allocated", "malloc_free", "malloc_from_os", "rss_other", "metadata_cache_arena", "subkey_cache_arena"}
	for _, cf := range cfs {
		want = append(want, "rocksdb_memtables_"+cf)
	}
	for _, k := range want {
		if _, ok := f[k]; !ok {
			t.Fatalf("INFO memory has no integer %s:\n%s", k, info)
		}
	}
	var memtables int64
	for _, cf := range cfs {
		memtables += f["rocksdb_memtables_"+cf]
	}
	goResident := f["go_sys"] - f["go_heap_released"]
	checks := []struct {
		name      string
		got, want int64
	}{
		{"go classes = go_sys", f["go_heap_inuse"] + f["go_heap_free"] + f["go_heap_released"] + f["go_stacks"] + f["go_runtime"], f["go_sys"]},
		{"memtables by cf = rocksdb_memtables", memtables, f["rocksdb_memtables"]},
		{"rss_other = rss - parts", f["rss_other"], f["used_memory_rss"] - goResident - f["metadata_cache_arena"] -
			f["subkey_cache_arena"] - f["rocksdb_block_cache_usage"] - f["rocksdb_memtables"] - f["rocksdb_table_readers"]},
		{"malloc allocated + free = from os", f["malloc_allocated"] + f["malloc_free"], f["malloc_from_os"]},
		{"block cache capacity", f["rocksdb_block_cache_capacity"], 8 << 20},
	}
	for _, ch := range checks {
		if ch.got != ch.want {
			t.Errorf("%s: %d, want %d", ch.name, ch.got, ch.want)
		}
	}
	if f["metadata_cache_arena"] == 0 || f["subkey_cache_arena"] == 0 {
		t.Errorf("HSETs left the metadata and sub-key caches' arenas empty:\n%s", info)
	}
	if f["rocksdb_memtables_subkey"] == 0 || f["rocksdb_memtables_metadata"] == 0 {
		t.Errorf("HSETs left the subkey and metadata memtables empty:\n%s", info)
	}
	if f["malloc_allocated"] < f["rocksdb_memtables"] {
		t.Errorf("malloc_allocated %d < rocksdb_memtables %d: RocksDB's memtables come from malloc", f["malloc_allocated"], f["rocksdb_memtables"])
	}
	if f["go_heap_goal"] == 0 || f["go_heap_goal"] < f["go_heap_live"] {
		t.Errorf("go_heap_live %d, go_heap_goal %d: want live <= goal, goal > 0", f["go_heap_live"], f["go_heap_goal"])
	}
}
