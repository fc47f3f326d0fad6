package conf

import (
	"encoding"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
)

func TestDefaultValidates(t *testing.T) {
	c := Default()
	if err := c.Validate(); err != nil {
		t.Fatalf("Default().Validate() = %v", err)
	}
	if got, want := c.Addr(), "127.0.0.1:6379"; got != want {
		t.Fatalf("Default().Addr() = %q, want %q", got, want)
	}
}

func TestDefaultReturnsFreshSlices(t *testing.T) {
	a := Default()
	a.RocksDB.Compression[0] = "zstd"
	if b := Default(); b.RocksDB.Compression[0] != "no" {
		t.Fatalf("Default() shares its Compression slice between calls")
	}
}

// TestExampleFileIsDefault keeps the values documented in shale.toml true.
func TestExampleFileIsDefault(t *testing.T) {
	got, err := Load("shale.toml")
	if err != nil {
		t.Fatalf("Load(shale.toml): %v", err)
	}
	if want := Default(); !reflect.DeepEqual(got, want) {
		t.Fatalf("shale.toml differs from Default():\n got %+v\nwant %+v", got, want)
	}
}

// leafKeys returns the dotted TOML key of every option in Config.
func leafKeys(t reflect.Type, prefix string) []string {
	var keys []string
	textType := reflect.TypeFor[encoding.TextUnmarshaler]()
	for f := range t.Fields() {
		key := prefix + f.Tag.Get("toml")
		if f.Type.Kind() == reflect.Struct && !reflect.PointerTo(f.Type).Implements(textType) {
			keys = append(keys, leafKeys(f.Type, key+".")...)
			continue
		}
		keys = append(keys, key)
	}
	return keys
}

var commentedKey = regexp.MustCompile(`(?m)^# ([a-z0-9_]+ = .*)$`)

// TestExampleFileListsEveryKey checks that shale.toml documents every option:
// uncommenting its commented example lines must yield a valid file that sets
// every key Config has, the per-column-family overrides included.
func TestExampleFileListsEveryKey(t *testing.T) {
	b, err := os.ReadFile("shale.toml")
	if err != nil {
		t.Fatal(err)
	}
	text := commentedKey.ReplaceAllString(string(b), "$1")
	c := Default()
	md, err := toml.Decode(text, &c)
	if err != nil {
		t.Fatalf("decode uncommented shale.toml: %v", err)
	}
	if err := unknownKeys(md); err != nil {
		t.Fatalf("uncommented shale.toml: %v", err)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("uncommented shale.toml: %v", err)
	}
	for _, key := range leafKeys(reflect.TypeFor[Config](), "") {
		if !md.IsDefined(strings.Split(key, ".")...) {
			t.Errorf("shale.toml does not document %s", key)
		}
	}
}

// TestOperationsDocListsEveryKey checks that docs/OPERATIONS.md names every
// option.
func TestOperationsDocListsEveryKey(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "OPERATIONS.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range leafKeys(reflect.TypeFor[Config](), "") {
		if !strings.Contains(string(b), "`"+key+"`") {
			t.Errorf("docs/OPERATIONS.md does not document `%s`", key)
		}
	}
}

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "shale.toml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoad(t *testing.T) {
	tests := []struct {
		name string
		toml string
		want func(*Config) // applied to Default() to get the expected result
	}{
		{"empty file", "", func(*Config) {}},
		{"server", "[server]\nport = 7000\nbind = \"0.0.0.0\"\ntimeout = \"5m\"\n", func(c *Config) {
			c.Server.Port = 7000
			c.Server.Bind = "0.0.0.0"
			c.Server.Timeout = Duration{5 * time.Minute}
		}},
		{"sizes as string and integer", "[rocksdb]\nblock_cache_bytes = \"1GiB\"\nwrite_buffer_bytes = 1048576\n", func(c *Config) {
			c.RocksDB.BlockCacheBytes = GiB
			c.RocksDB.WriteBufferBytes = MiB
		}},
		{"shorter compression list", "[rocksdb]\ncompression = [\"lz4\"]\n", func(c *Config) {
			c.RocksDB.Compression = []string{"lz4"}
		}},
		{"override", "[rocksdb.subkey]\nbloom_bits_per_key = 0\nblock_cache_bytes = \"64MiB\"\ncompression = [\"zstd\"]\n", func(c *Config) {
			zero, size := 0, 64*MiB
			c.RocksDB.Subkey = CFOverride{BloomBitsPerKey: &zero, BlockCacheBytes: &size, Compression: []string{"zstd"}}
		}},
		{"float", "[compaction]\nreclaim_max_per_second = 0.5\n", func(c *Config) {
			c.Compaction.ReclaimMaxPerSecond = 0.5
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Load(writeConfig(t, tt.toml))
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			want := Default()
			tt.want(&want)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("Load:\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name string
		toml string
		want []string // substrings the error must contain
		not  []string // substrings it must not contain
	}{
		{"unknown key", "[server]\nprot = 6380\n", []string{`unknown config key "server.prot"`}, nil},
		{"unknown top-level key", "port = 6380\n", []string{`unknown config key "port"`}, nil},
		{"unknown section", "[serverr]\nport = 6380\n", []string{`unknown config key "serverr"`}, []string{"serverr.port"}},
		{"unknown nested key", "[rocksdb.subkey]\nx = 1\n", []string{`unknown config key "rocksdb.subkey.x"`}, nil},
		{"unknown nested section", "[rocksdb.expire]\nbloom_bits_per_key = 1\n", []string{`unknown config key "rocksdb.expire"`}, nil},
		{"every unknown key", "[server]\nprot = 1\n[log]\nlevle = \"info\"\n", []string{`"server.prot"`, `"log.levle"`}, nil},
		{"wrong type string for int", "[server]\nport = \"6379\"\n", []string{`"server.port"`, "incompatible types"}, nil},
		{"wrong type int for string", "[storage]\ndir = 1\n", []string{`"storage.dir"`}, nil},
		{"wrong type int for bool", "[storage]\nsync_writes = 1\n", []string{`"storage.sync_writes"`}, nil},
		{"wrong type string for list", "[rocksdb]\ncompression = \"lz4\"\n", []string{`"rocksdb.compression"`}, nil},
		{"wrong type in override", "[rocksdb.metadata]\nmax_write_buffer_number = \"4\"\n", []string{`"rocksdb.metadata.max_write_buffer_number"`}, nil},
		{"bad byte size", "[rocksdb]\nblock_cache_bytes = \"1g\"\n", []string{`"rocksdb.block_cache_bytes"`, `invalid byte size "1g"`}, nil},
		{"negative byte size", "[rocksdb]\nblock_cache_bytes = -1\n", []string{`"rocksdb.block_cache_bytes"`, "negative"}, nil},
		{"float byte size", "[rocksdb]\nblock_cache_bytes = 1.5\n", []string{`"rocksdb.block_cache_bytes"`, "invalid byte size"}, nil},
		{"bad duration", "[server]\ntimeout = \"5 minutes\"\n", []string{`"server.timeout"`, `invalid duration "5 minutes"`}, nil},
		{"duration without unit", "[compaction]\nreclaim_delay = 5\n", []string{`"compaction.reclaim_delay"`, `invalid duration "5"`}, nil},
		{"bad value", "[server]\nport = 70000\n", []string{"server.port: 70000 is out of range 0..65535"}, nil},
		{"syntax error", "[server\n", []string{"toml: line"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(writeConfig(t, tt.toml))
			if err == nil {
				t.Fatalf("Load succeeded, want an error containing %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(err.Error(), n) {
					t.Errorf("error %q contains %q", err, n)
				}
			}
		})
	}
}

func TestLoadMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing.toml")
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("Load(missing) = %v, want an error naming the file", err)
	}
}

func TestValidate(t *testing.T) {
	ptr := func(n int) *int { return &n }
	size := func(n ByteSize) *ByteSize { return &n }
	yes := func() *bool { b := true; return &b }
	tests := []struct {
		name   string
		mutate func(*Config)
		want   string // "" = valid; otherwise the one error's exact text
	}{
		{"port 0", func(c *Config) { c.Server.Port = 0 }, ""},
		{"port 65535", func(c *Config) { c.Server.Port = 65535 }, ""},
		{"port too big", func(c *Config) { c.Server.Port = 70000 }, "server.port: 70000 is out of range 0..65535"},
		{"port negative", func(c *Config) { c.Server.Port = -1 }, "server.port: -1 is out of range 0..65535"},
		{"empty bind", func(c *Config) { c.Server.Bind = "" }, `server.bind: must not be empty (use "0.0.0.0" to listen on every interface)`},
		{"databases 0", func(c *Config) { c.Server.Databases = 0 }, "server.databases: 0 is out of range 1..65536"},
		{"databases 65536", func(c *Config) { c.Server.Databases = 65536 }, ""},
		{"databases too many", func(c *Config) { c.Server.Databases = 65537 }, "server.databases: 65537 is out of range 1..65536"},
		{"maxclients 0", func(c *Config) { c.Server.MaxClients = 0 }, "server.maxclients: 0 is below the minimum 1"},
		{"go gc percent 9", func(c *Config) { c.Server.GoGCPercent = 9 }, "server.go_gc_percent: 9 is below the minimum 10"},
		{"go gc percent 10", func(c *Config) { c.Server.GoGCPercent = 10 }, ""},
		{"go max procs -1", func(c *Config) { c.Server.GoMaxProcs = -1 }, "server.go_max_procs: -1 is below the minimum 0"},
		{"go max procs 1", func(c *Config) { c.Server.GoMaxProcs = 1 }, ""},
		{"pprof without metrics", func(c *Config) { c.Metrics.Pprof = true }, "metrics.pprof: needs metrics.addr, the address to serve the profiles on"},
		{"pprof with metrics", func(c *Config) { c.Metrics.Pprof, c.Metrics.Addr = true, "9121" }, ""},
		{"timeout negative", func(c *Config) { c.Server.Timeout = Duration{-time.Second} }, "server.timeout: -1s is negative"},
		{"empty dir", func(c *Config) { c.Storage.Dir = "" }, "storage.dir: must not be empty"},
		{"block cache 0", func(c *Config) { c.RocksDB.BlockCacheBytes = 0 }, ""},
		{"block cache negative", func(c *Config) { c.RocksDB.BlockCacheBytes = -1 }, "rocksdb.block_cache_bytes: -1 is below the minimum 0"},
		{"write buffer too small", func(c *Config) { c.RocksDB.WriteBufferBytes = 1000 }, "rocksdb.write_buffer_bytes: 1KB is out of range 64KiB..64GiB"},
		{"write buffer too big", func(c *Config) { c.RocksDB.WriteBufferBytes = 65 * GiB }, "rocksdb.write_buffer_bytes: 65GiB is out of range 64KiB..64GiB"},
		{"max write buffer number 1", func(c *Config) { c.RocksDB.MaxWriteBufferNumber = 1 }, "rocksdb.max_write_buffer_number: 1 is below the minimum 2"},
		{"background jobs 0", func(c *Config) { c.RocksDB.MaxBackgroundJobs = 0 }, "rocksdb.max_background_jobs: 0 is below the minimum 1"},
		{"target file size 0", func(c *Config) { c.RocksDB.TargetFileSizeBytes = 0 }, "rocksdb.target_file_size_bytes: 0 is below the minimum 1"},
		{"level base 0", func(c *Config) { c.RocksDB.MaxBytesForLevelBase = 0 }, "rocksdb.max_bytes_for_level_base: 0 is below the minimum 1"},
		{"l0 compaction trigger 0", func(c *Config) { c.RocksDB.Level0FileNumCompactionTrigger = 0 }, "rocksdb.level0_file_num_compaction_trigger: 0 is below the minimum 1"},
		{"l0 slowdown below compaction", func(c *Config) { c.RocksDB.Level0SlowdownWritesTrigger = 3 }, "rocksdb.level0_slowdown_writes_trigger: 3 is below rocksdb.level0_file_num_compaction_trigger (4)"},
		{"l0 stop below slowdown", func(c *Config) { c.RocksDB.Level0StopWritesTrigger = 19 }, "rocksdb.level0_stop_writes_trigger: 19 is below rocksdb.level0_slowdown_writes_trigger (20)"},
		{"l0 triggers equal", func(c *Config) {
			c.RocksDB.Level0FileNumCompactionTrigger, c.RocksDB.Level0SlowdownWritesTrigger, c.RocksDB.Level0StopWritesTrigger = 8, 8, 8
		}, ""},
		{"compression empty", func(c *Config) { c.RocksDB.Compression = nil }, "rocksdb.compression: has 0 entries; want 1..7 (the last repeats for deeper levels)"},
		{"compression too long", func(c *Config) { c.RocksDB.Compression = []string{"no", "no", "no", "no", "no", "no", "no", "no"} }, "rocksdb.compression: has 8 entries; want 1..7 (the last repeats for deeper levels)"},
		{"compression unknown", func(c *Config) { c.RocksDB.Compression = []string{"no", "LZ4"} }, `rocksdb.compression[1]: "LZ4" is not one of no, snappy, zlib, lz4, lz4hc, zstd`},
		{"compression all kinds", func(c *Config) { c.RocksDB.Compression = []string{"no", "snappy", "zlib", "lz4", "lz4hc", "zstd"} }, ""},
		{"bloom 0", func(c *Config) { c.RocksDB.BloomBitsPerKey = 0 }, ""},
		{"bloom negative", func(c *Config) { c.RocksDB.BloomBitsPerKey = -1 }, "rocksdb.bloom_bits_per_key: -1 is out of range 0..64"},
		{"bloom too big", func(c *Config) { c.RocksDB.BloomBitsPerKey = 65 }, "rocksdb.bloom_bits_per_key: 65 is out of range 0..64"},
		{"rate limit negative", func(c *Config) { c.RocksDB.RateLimitBytesPerSec = -5 }, "rocksdb.rate_limit_bytes_per_sec: -5 is below the minimum 0"},
		{"override write buffer", func(c *Config) { c.RocksDB.Subkey.WriteBufferBytes = size(1) }, "rocksdb.subkey.write_buffer_bytes: 1B is out of range 64KiB..64GiB"},
		{"override max write buffer number", func(c *Config) { c.RocksDB.Metadata.MaxWriteBufferNumber = ptr(1) }, "rocksdb.metadata.max_write_buffer_number: 1 is below the minimum 2"},
		{"override target file size", func(c *Config) { c.RocksDB.Subkey.TargetFileSizeBytes = size(0) }, "rocksdb.subkey.target_file_size_bytes: 0 is below the minimum 1"},
		{"override level base", func(c *Config) { c.RocksDB.Metadata.MaxBytesForLevelBase = size(0) }, "rocksdb.metadata.max_bytes_for_level_base: 0 is below the minimum 1"},
		{"override compression empty", func(c *Config) { c.RocksDB.Subkey.Compression = []string{} }, "rocksdb.subkey.compression: has 0 entries; want 1..7 (the last repeats for deeper levels)"},
		{"override compression unknown", func(c *Config) { c.RocksDB.Metadata.Compression = []string{"gzip"} }, `rocksdb.metadata.compression[0]: "gzip" is not one of no, snappy, zlib, lz4, lz4hc, zstd`},
		{"override bloom", func(c *Config) { c.RocksDB.Subkey.BloomBitsPerKey = ptr(100) }, "rocksdb.subkey.bloom_bits_per_key: 100 is out of range 0..64"},
		{"override block cache 0", func(c *Config) { c.RocksDB.Metadata.BlockCacheBytes = size(0) }, "rocksdb.metadata.block_cache_bytes: 0 is below the minimum 1"},
		{"override all valid", func(c *Config) {
			c.RocksDB.Subkey = CFOverride{size(MiB), ptr(2), ptr(1), size(MiB), size(MiB), []string{"zstd"}, ptr(0), size(MiB), yes(), size(1), yes()}
		}, ""},
		{"min blob bytes 0", func(c *Config) { c.RocksDB.MinBlobBytes = 0 }, "rocksdb.min_blob_bytes: 0 is below the minimum 1"},
		{"override min blob bytes 0", func(c *Config) { c.RocksDB.Metadata.MinBlobBytes = size(0) }, "rocksdb.metadata.min_blob_bytes: 0 is below the minimum 1"},
		{"merge 0", func(c *Config) { c.RocksDB.MinWriteBufferNumberToMerge = 0 }, "rocksdb.min_write_buffer_number_to_merge: 0 is below the minimum 1"},
		{"override merge 0", func(c *Config) { c.RocksDB.Subkey.MinWriteBufferNumberToMerge = ptr(0) }, "rocksdb.subkey.min_write_buffer_number_to_merge: 0 is below the minimum 1"},
		{"merge not below the max", func(c *Config) { c.RocksDB.Score.MaxWriteBufferNumber = ptr(4) },
			"rocksdb.score.min_write_buffer_number_to_merge: 4 needs a max_write_buffer_number above it, not 4"},
		{"merge below the max", func(c *Config) { c.RocksDB.MinWriteBufferNumberToMerge, c.RocksDB.MaxWriteBufferNumber = 3, 4 }, ""},
		{"reclaim min elements 0", func(c *Config) { c.Compaction.ReclaimMinElements = 0 }, "compaction.reclaim_min_elements: 0 is below the minimum 1"},
		{"reclaim per second 0", func(c *Config) { c.Compaction.ReclaimMaxPerSecond = 0 }, "compaction.reclaim_max_per_second: 0 must be a finite number of at least 1/86400 (one a day)"},
		{"reclaim per second tiny", func(c *Config) { c.Compaction.ReclaimMaxPerSecond = 5e-324 }, "compaction.reclaim_max_per_second: 5e-324 must be a finite number of at least 1/86400 (one a day)"},
		{"output limit below the reply buffer", func(c *Config) { c.Server.ClientOutputBufferLimit = 1 }, "server.client_output_buffer_limit: 1 must be 0 (no limit) or at least 16384"},
		{"pubsub limit below the reply buffer", func(c *Config) { c.Server.PubsubOutputBufferLimit = 1024 }, "server.pubsub_output_buffer_limit: 1024 must be 0 (no limit) or at least 16384"},
		{"pubsub soft limit below the reply buffer", func(c *Config) { c.Server.PubsubOutputBufferSoftLimit = -1 }, "server.pubsub_output_buffer_soft_limit: -1 must be 0 (no limit) or at least 16384"},
		{"negative pubsub soft time", func(c *Config) { c.Server.PubsubOutputBufferSoftTime = Duration{-time.Second} }, "server.pubsub_output_buffer_soft_time: -1s is negative"},
		{"reclaim per second NaN", func(c *Config) { c.Compaction.ReclaimMaxPerSecond = nan() }, "compaction.reclaim_max_per_second: NaN must be a finite number of at least 1/86400 (one a day)"},
		{"reclaim per second Inf", func(c *Config) { c.Compaction.ReclaimMaxPerSecond = inf() }, "compaction.reclaim_max_per_second: +Inf must be a finite number of at least 1/86400 (one a day)"},
		{"reclaim queue 0", func(c *Config) { c.Compaction.ReclaimQueueLength = 0 }, "compaction.reclaim_queue_length: 0 is below the minimum 1"},
		{"reclaim delay 0", func(c *Config) { c.Compaction.ReclaimDelay = Duration{} }, ""},
		{"reclaim delay negative", func(c *Config) { c.Compaction.ReclaimDelay = Duration{-time.Millisecond} }, "compaction.reclaim_delay: -1ms is negative"},
		{"log level", func(c *Config) { c.Log.Level = "warning" }, `log.level: "warning" is not one of trace, debug, info, warn, error`},
		{"log format", func(c *Config) { c.Log.Format = "text" }, `log.format: "text" is not one of console, json`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Default()
			tt.mutate(&c)
			err := c.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Validate() = %v, want nil", err)
			case tt.want != "" && err == nil:
				t.Fatalf("Validate() = nil, want %q", tt.want)
			case tt.want != "" && err.Error() != tt.want:
				t.Fatalf("Validate() = %q, want %q", err, tt.want)
			}
		})
	}
}

func nan() float64 { z := 0.0; return z / z }
func inf() float64 { z := 0.0; return 1 / z }

func TestValidateReportsEveryProblem(t *testing.T) {
	c := Default()
	c.Server.Port = -1
	c.Storage.Dir = ""
	c.Log.Level = "loud"
	err := c.Validate()
	if err == nil {
		t.Fatal("Validate() = nil")
	}
	for _, key := range []string{"server.port:", "storage.dir:", "log.level:"} {
		if !strings.Contains(err.Error(), key) {
			t.Errorf("error %q does not name %s", err, key)
		}
	}
}

func TestByteSizeUnmarshal(t *testing.T) {
	tests := []struct {
		in      any // as TOML hands it over: int64 or string
		want    ByteSize
		wantErr string
	}{
		{int64(0), 0, ""},
		{int64(4096), 4096, ""},
		{"4096", 4096, ""},
		{"0", 0, ""},
		{"100B", 100, ""},
		{"512KiB", 512 * KiB, ""},
		{"64MiB", 64 * MiB, ""},
		{"1GiB", GiB, ""},
		{"2TiB", 2 * TiB, ""},
		{"10MB", 10_000_000, ""},
		{"3KB", 3000, ""},
		{"5GB", 5_000_000_000, ""},
		{"64mib", 64 * MiB, ""},
		{"64MIB", 64 * MiB, ""},
		{"1gb", 1_000_000_000, ""},
		{"1kb", 1000, ""},
		{"64 MiB", 64 * MiB, ""},
		{int64(-1), 0, "invalid byte size -1: must not be negative"},
		{"-1MiB", 0, `invalid byte size "-1MiB": must not be negative`},
		{"1g", 0, `invalid byte size "1g": unknown unit "g"`},
		{"1TB", 0, `invalid byte size "1TB": unknown unit "TB"`},
		{"1.5GiB", 0, `invalid byte size "1.5GiB": unknown unit ".5GiB"`},
		{"MiB", 0, `invalid byte size "MiB": want a whole number`},
		{"", 0, `invalid byte size "": want a whole number`},
		{"9999999TiB", 0, `invalid byte size "9999999TiB": too large`},
		{"99999999999999999999", 0, `invalid byte size "99999999999999999999": too large`},
		{1.5, 0, "invalid byte size 1.5: want an integer"},
		{true, 0, "invalid byte size true: want an integer"},
	}
	for _, tt := range tests {
		t.Run(strings.ReplaceAll(toString(tt.in), " ", "_"), func(t *testing.T) {
			b := ByteSize(-7) // must be overwritten on success, untouched on error
			err := b.UnmarshalTOML(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("UnmarshalTOML(%#v) = %v, want error containing %q", tt.in, err, tt.wantErr)
				}
				if b != -7 {
					t.Fatalf("UnmarshalTOML(%#v) failed but changed the value to %d", tt.in, b)
				}
				return
			}
			if err != nil || b != tt.want {
				t.Fatalf("UnmarshalTOML(%#v) = %d, %v; want %d", tt.in, b, err, tt.want)
			}
		})
	}
}

func toString(v any) string {
	if s, ok := v.(string); ok {
		return "string_" + s
	}
	return strings.TrimSpace(strings.Trim(reflect.ValueOf(v).String(), "<>"))
}

func TestByteSizeString(t *testing.T) {
	tests := []struct {
		in   ByteSize
		want string
	}{
		{0, "0B"},
		{1, "1B"},
		{1536, "1536B"},
		{1000, "1KB"},
		{1024, "1KiB"},
		{64 * MiB, "64MiB"},
		{256 * MiB, "256MiB"},
		{1536 * MiB, "1536MiB"},
		{GiB, "1GiB"},
		{3 * TiB, "3TiB"},
		{10_000_000, "10MB"},
		{2_000_000_000, "2GB"},
		{1024 * 1000, "1000KiB"},
		{1000 * MiB, "1000MiB"},
		{-2 * KiB, "-2KiB"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := tt.in.String(); got != tt.want {
				t.Fatalf("ByteSize(%d).String() = %q, want %q", int64(tt.in), got, tt.want)
			}
			if tt.in < 0 {
				return
			}
			var back ByteSize
			text, _ := tt.in.MarshalText()
			if err := back.UnmarshalText(text); err != nil || back != tt.in {
				t.Fatalf("round trip of %d via %q = %d, %v", int64(tt.in), text, back, err)
			}
		})
	}
}

func TestDuration(t *testing.T) {
	tests := []struct {
		in      string
		want    time.Duration
		wantErr string
	}{
		{"0s", 0, ""},
		{"0", 0, ""},
		{"100ms", 100 * time.Millisecond, ""},
		{"5m", 5 * time.Minute, ""},
		{"1h30m", 90 * time.Minute, ""},
		{"-1s", -time.Second, ""}, // parses; Validate rejects it where it matters
		{"5", 0, `invalid duration "5"`},
		{"5 minutes", 0, `invalid duration "5 minutes"`},
		{"", 0, `invalid duration ""`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var d Duration
			err := d.UnmarshalText([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("UnmarshalText(%q) = %v, want error containing %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil || d.Duration != tt.want {
				t.Fatalf("UnmarshalText(%q) = %v, %v; want %v", tt.in, d, err, tt.want)
			}
			text, _ := d.MarshalText()
			var back Duration
			if err := back.UnmarshalText(text); err != nil || back != d {
				t.Fatalf("round trip via %q = %v, %v", text, back, err)
			}
		})
	}
}

func TestEffective(t *testing.T) {
	base := Default().RocksDB
	ptr := func(n int) *int { return &n }
	size := func(n ByteSize) *ByteSize { return &n }
	boolPtr := func(b bool) *bool { return &b }
	inherited := CFOptions{
		WriteBufferBytes:            32 * MiB,
		MaxWriteBufferNumber:        4,
		MinWriteBufferNumberToMerge: 1,
		TargetFileSizeBytes:         64 * MiB,
		MaxBytesForLevelBase:        256 * MiB,
		Compression:                 []string{"no", "no", "lz4", "lz4", "lz4", "zstd", "zstd"},
		BloomBitsPerKey:             10,
		OwnBlockCacheBytes:          0,
		MinBlobBytes:                4 * KiB,
		BlobGC:                      true,
	}
	tests := []struct {
		name string
		o    CFOverride
		want func(*CFOptions) // applied to inherited
	}{
		{"no override inherits everything", CFOverride{}, func(*CFOptions) {}},
		{"write buffer", CFOverride{WriteBufferBytes: size(128 * MiB)}, func(e *CFOptions) { e.WriteBufferBytes = 128 * MiB }},
		{"max write buffer number", CFOverride{MaxWriteBufferNumber: ptr(6)}, func(e *CFOptions) { e.MaxWriteBufferNumber = 6 }},
		{"target file size", CFOverride{TargetFileSizeBytes: size(32 * MiB)}, func(e *CFOptions) { e.TargetFileSizeBytes = 32 * MiB }},
		{"level base", CFOverride{MaxBytesForLevelBase: size(GiB)}, func(e *CFOptions) { e.MaxBytesForLevelBase = GiB }},
		{"compression", CFOverride{Compression: []string{"zstd"}}, func(e *CFOptions) { e.Compression = []string{"zstd"} }},
		{"bloom 0 differs from unset", CFOverride{BloomBitsPerKey: ptr(0)}, func(e *CFOptions) { e.BloomBitsPerKey = 0 }},
		{"own block cache", CFOverride{BlockCacheBytes: size(32 * MiB)}, func(e *CFOptions) { e.OwnBlockCacheBytes = 32 * MiB }},
		{"min merge", CFOverride{MinWriteBufferNumberToMerge: ptr(3)}, func(e *CFOptions) { e.MinWriteBufferNumberToMerge = 3 }},
		{"blob files", CFOverride{EnableBlobFiles: boolPtr(true), MinBlobBytes: size(KiB)}, func(e *CFOptions) {
			e.EnableBlobFiles, e.MinBlobBytes = true, KiB
		}},
		{"blob gc off differs from unset", CFOverride{BlobGC: boolPtr(false)}, func(e *CFOptions) { e.BlobGC = false }},
		{"everything", CFOverride{size(MiB), ptr(2), ptr(1), size(2 * MiB), size(3 * MiB), []string{"snappy"}, ptr(20), size(4 * MiB),
			boolPtr(true), size(512), boolPtr(false)}, func(e *CFOptions) {
			*e = CFOptions{MiB, 2, 1, 2 * MiB, 3 * MiB, []string{"snappy"}, 20, 4 * MiB, true, 512, false}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := inherited
			want.Compression = append([]string(nil), inherited.Compression...)
			tt.want(&want)
			got := base.Effective(tt.o)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("Effective:\n got %+v\nwant %+v", got, want)
			}
			got.Compression[0] = "changed"
			if base.Compression[0] == "changed" || (tt.o.Compression != nil && tt.o.Compression[0] == "changed") {
				t.Fatal("Effective returned a Compression slice shared with its input")
			}
		})
	}
}

// TestScoreOverride: the score column family takes [rocksdb.score], then
// [rocksdb.subkey] for what it leaves out, then [rocksdb].
func TestScoreOverride(t *testing.T) {
	r := Default().RocksDB
	zstd := []string{"zstd"}
	r.Subkey = CFOverride{WriteBufferBytes: byteSizePtr(32 * MiB), Compression: zstd, BloomBitsPerKey: intPtr(0)}
	r.Score.BloomBitsPerKey = intPtr(20)
	got := r.Effective(r.ScoreOverride())
	want := r.Effective(CFOverride{})
	want.WriteBufferBytes, want.MaxWriteBufferNumber, want.MinWriteBufferNumberToMerge = 16*MiB, 6, 4 // the score defaults
	want.Compression = zstd                                                                           // from subkey
	want.BloomBitsPerKey = 20                                                                         // its own
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("score options:\n got %+v\nwant %+v", got, want)
	}
	if sub := r.Effective(r.Subkey); sub.WriteBufferBytes != 32*MiB || sub.MinWriteBufferNumberToMerge != 1 || sub.BloomBitsPerKey != 0 {
		t.Fatalf("subkey options %+v: [rocksdb.score] leaked into them", sub)
	}
}

func TestAddr(t *testing.T) {
	tests := []struct {
		bind string
		port int
		want string
	}{
		{"127.0.0.1", 6379, "127.0.0.1:6379"},
		{"0.0.0.0", 0, "0.0.0.0:0"},
		{"::1", 7000, "[::1]:7000"},
		{"localhost", 6380, "localhost:6380"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			c := Default()
			c.Server.Bind, c.Server.Port = tt.bind, tt.port
			if got := c.Addr(); got != tt.want {
				t.Fatalf("Addr() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestMetricsListenAddr(t *testing.T) {
	tests := []struct {
		addr, want string
		valid      bool
	}{
		{"", "", true},
		{"9121", "127.0.0.1:9121", true},
		{":9121", "127.0.0.1:9121", true},
		{"0.0.0.0:9121", "0.0.0.0:9121", true},
		{"[::1]:9121", "[::1]:9121", true},
		{"localhost:0", "localhost:0", true},
		{"nope", "127.0.0.1:nope", false},
		{"1.2.3.4", "127.0.0.1:1.2.3.4", false},
		{":70000", "127.0.0.1:70000", false},
	}
	for _, tt := range tests {
		m := Metrics{Addr: tt.addr}
		if got := m.ListenAddr(); got != tt.want {
			t.Errorf("ListenAddr(%q) = %q, want %q", tt.addr, got, tt.want)
		}
		c := Default()
		c.Metrics = m
		if err := c.Validate(); (err == nil) != tt.valid {
			t.Errorf("Validate with metrics.addr %q: %v", tt.addr, err)
		}
	}
}
