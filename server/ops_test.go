package server

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/shaledb/shale/conf"
	"github.com/shaledb/shale/server/store"
)

// rocksOptionsFile reads the CF options RocksDB last persisted (the newest
// OPTIONS-* file, which SetOptions rewrites): cf name -> option -> value.
func rocksOptionsFile(t *testing.T, dir string) map[string]map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "OPTIONS-*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no OPTIONS file in %s: %v", dir, err)
	}
	sort.Slice(files, func(i, j int) bool { // OPTIONS-<number>, numerically
		var a, b int
		fmt.Sscanf(filepath.Base(files[i]), "OPTIONS-%d", &a)
		fmt.Sscanf(filepath.Base(files[j]), "OPTIONS-%d", &b)
		return a < b
	})
	f, err := os.Open(files[len(files)-1])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]map[string]string{}
	var cur map[string]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[CFOptions \"") {
			name := strings.TrimSuffix(strings.TrimPrefix(line, "[CFOptions \""), "\"]")
			cur = map[string]string{}
			out[name] = cur
			continue
		}
		if strings.HasPrefix(line, "[") {
			cur = nil
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok && cur != nil {
			cur[k] = v
		}
	}
	return out
}

// TestConfigSetReachesRocksDB checks that CONFIG SET changes the options
// RocksDB runs with, on the right column families, as RocksDB itself
// reports them.
func TestConfigSetReachesRocksDB(t *testing.T) {
	s, c := startAdminServer(t, nil)
	dir := s.config().Storage.Dir
	runScript(t, c, []step{
		{[]any{"CONFIG", "SET",
			"rocksdb.write_buffer_bytes", "32MiB",
			"rocksdb.subkey.write_buffer_bytes", "8MiB",
			"rocksdb.max_write_buffer_number", "5",
			"rocksdb.target_file_size_bytes", "16MiB",
			"rocksdb.max_bytes_for_level_base", "128MiB",
			"rocksdb.level0_file_num_compaction_trigger", "6",
			"rocksdb.level0_slowdown_writes_trigger", "30",
			"rocksdb.level0_stop_writes_trigger", "40",
			"rocksdb.disable_auto_compactions", "yes",
			"rocksdb.soft_pending_compaction_bytes_limit", "1GiB",
			"rocksdb.hard_pending_compaction_bytes_limit", "2GiB",
			"rocksdb.metadata.compression", "zstd"}, "OK"},
	})
	opts := rocksOptionsFile(t, dir)
	want := map[string]string{
		"target_file_size_base":               "16777216",
		"max_bytes_for_level_base":            "134217728",
		"level0_file_num_compaction_trigger":  "6",
		"level0_slowdown_writes_trigger":      "30",
		"level0_stop_writes_trigger":          "40",
		"disable_auto_compactions":            "true",
		"soft_pending_compaction_bytes_limit": "1073741824",
		"hard_pending_compaction_bytes_limit": "2147483648",
	}
	for _, cf := range []string{"default", "metadata", "subkey", "score", "bookkeeping", "expire"} {
		got := opts[cf]
		if got == nil {
			t.Fatalf("no options for cf %s", cf)
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("cf %s: %s = %q, want %q", cf, k, got[k], v)
			}
		}
		wb, maxWB, merge := "33554432", "5", "1"
		switch cf {
		case "subkey", "metadata":
			wb = "8388608" // set above; metadata's own default is 8MiB
		case "score":
			wb, maxWB, merge = "16777216", "6", "4" // its own defaults, over subkey's
		}
		if got["max_write_buffer_number"] != maxWB {
			t.Errorf("cf %s: max_write_buffer_number = %s, want %s", cf, got["max_write_buffer_number"], maxWB)
		}
		if got["write_buffer_size"] != wb {
			t.Errorf("cf %s: write_buffer_size = %s, want %s", cf, got["write_buffer_size"], wb)
		}
		if got["min_write_buffer_number_to_merge"] != merge {
			t.Errorf("cf %s: min_write_buffer_number_to_merge = %s, want %s", cf, got["min_write_buffer_number_to_merge"], merge)
		}
		comp := "kNoCompression:kNoCompression:kLZ4Compression"
		if cf == "metadata" {
			comp = "kZSTD:kZSTD:kZSTD"
		}
		if !strings.HasPrefix(got["compression_per_level"], comp) {
			t.Errorf("cf %s: compression_per_level = %s, want %s...", cf, got["compression_per_level"], comp)
		}
	}
}

// TestConfigSetDisableAutoCompactionsBehaves watches the behaviour, not
// the option: with automatic compactions off, level-0 files pile up past
// the trigger; turned back on, RocksDB compacts them away.
func TestConfigSetDisableAutoCompactionsBehaves(t *testing.T) {
	s, c := startAdminServer(t, func(cfg *conf.Config) { cfg.RocksDB.Level0FileNumCompactionTrigger = 2 })
	ctx := context.Background()
	runScript(t, c, []step{{[]any{"CONFIG", "SET", "rocksdb.disable_auto_compactions", "yes"}, "OK"}})
	l0 := func() string { return s.st.Property(store.CFMeta, "rocksdb.num-files-at-level0") }
	for i := range 4 {
		if err := c.Set(ctx, fmt.Sprint("k", i), "v", 0).Err(); err != nil {
			t.Fatal(err)
		}
		if err := s.st.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(300 * time.Millisecond)
	if got := l0(); got != "4" {
		t.Fatalf("level-0 files with auto compactions off = %s, want 4", got)
	}
	runScript(t, c, []step{{[]any{"CONFIG", "SET", "rocksdb.disable_auto_compactions", "no"}, "OK"}})
	// Turning them on does not by itself schedule a compaction; a flush does.
	if err := c.Set(ctx, "k4", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := s.st.Flush(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for l0() != "0" && l0() != "1" { // below the trigger of 2
		if time.Now().After(deadline) {
			t.Fatalf("level-0 files after auto compactions back on = %s, want below 2", l0())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestConfigRewrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shale.toml")
	orig := "# my settings\n[server]\n# the password\nrequirepass = \"\"\ntimeout = \"10s\" # idle\n"
	if err := os.WriteFile(path, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	s, c := startAdminServer(t, nil)
	runScript(t, c, []step{{[]any{"CONFIG", "REWRITE"}, wantErr("ERR The server is running without a config file")}})
	s.SetConfigFile(path)
	runScript(t, c, []step{
		{[]any{"CONFIG", "SET", "timeout", "30", "rocksdb.write_buffer_bytes", "48MiB", "loglevel", "info"}, "OK"},
		{[]any{"CONFIG", "REWRITE"}, "OK"},
	})
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The in-process server runs on port 0 and its own dir: those differ
	// from the defaults and are appended too.
	for _, want := range []string{
		"# my settings\n[server]\n# the password\nrequirepass = \"\"\ntimeout = \"30s\" # idle\n",
		"[rocksdb]\n",
		"write_buffer_bytes = \"48MiB\"\n",
		"port = 0\n",
	} {
		if !strings.Contains(string(got), want) {
			t.Errorf("rewritten file lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(string(got), "[log]") {
		t.Errorf("a default value was written:\n%s", got)
	}
	loaded, err := conf.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if cur := s.config(); !reflect.DeepEqual(loaded, cur) {
		t.Errorf("rewritten file loads as\n%+v\nnot the running config\n%+v", loaded, cur)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode changed to %v", fi.Mode().Perm())
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*rewrite*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestTCPKeepalive reads the socket options of the server's side of a
// connection.
func TestTCPKeepalive(t *testing.T) {
	s, c := startAdminServer(t, nil)
	check := func(wantOn bool, wantIdle int) {
		t.Helper()
		nc, err := net.Dial("tcp", s.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		fmt.Fprint(nc, "PING\r\n")
		bufio.NewReader(nc).ReadString('\n')
		laddr := nc.LocalAddr().String()
		var cl *Client
		for _, x := range s.clientList() {
			if x.addr == laddr {
				cl = x
			}
		}
		if cl == nil {
			t.Fatal("client not found")
		}
		fd := connFD(cl)
		on, err := syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_KEEPALIVE)
		if err != nil {
			t.Fatal(err)
		}
		if (on != 0) != wantOn {
			t.Errorf("SO_KEEPALIVE = %d, want %v", on, wantOn)
		}
		if wantOn {
			idle, _ := syscall.GetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_KEEPIDLE)
			intvl, _ := syscall.GetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_KEEPINTVL)
			cnt, _ := syscall.GetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_KEEPCNT)
			if idle != wantIdle || intvl != wantIdle/3 || cnt != 3 {
				t.Errorf("keepalive idle/interval/count = %d/%d/%d, want %d/%d/3", idle, intvl, cnt, wantIdle, wantIdle/3)
			}
		}
	}
	check(true, 300)
	runScript(t, c, []step{{[]any{"CONFIG", "GET", "tcp-keepalive"}, []any{"tcp-keepalive", "300"}}, {[]any{"CONFIG", "SET", "tcp-keepalive", "60"}, "OK"}})
	check(true, 60)
	runScript(t, c, []step{{[]any{"CONFIG", "SET", "tcp-keepalive", "0"}, "OK"}})
	check(false, 0)
}

// TestIdleTimeout: CONFIG SET timeout reaches connections already open;
// a client blocked in BLPOP or held by CLIENT PAUSE is not idle.
func TestIdleTimeout(t *testing.T) {
	s, c := startAdminServer(t, nil)
	ctx := context.Background()
	idle, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	blocked := newAdminClient(t, s, "")
	res := make(chan error, 1)
	go func() { res <- blocked.BLPop(ctx, 4*time.Second, "nolist").Err() }()
	time.Sleep(100 * time.Millisecond)

	runScript(t, c, []step{{[]any{"CONFIG", "SET", "timeout", "1"}, "OK"}})
	idle.SetReadDeadline(time.Now().Add(5 * time.Second))
	start := time.Now()
	if _, err := idle.Read(make([]byte, 1)); err == nil || time.Since(start) > 4*time.Second {
		t.Errorf("idle connection made before CONFIG SET not closed: %v after %v", err, time.Since(start))
	}
	if err := <-res; err != redis.Nil {
		t.Errorf("BLPOP blocked for longer than the timeout ended with %v, want its own timeout (nil reply)", err)
	}
	runScript(t, c, []step{{[]any{"CONFIG", "SET", "timeout", "0"}, "OK"}})
}

func TestPauseDeadline(t *testing.T) {
	now := time.Now()
	tests := []struct {
		arg     string
		want    time.Duration // from now
		wantErr replyError
	}{
		{"0", 0, ""},
		{"1500", 1500 * time.Millisecond, ""},
		{"9000000000000000000", math.MaxInt64, ""}, // past time.Duration: 292 years, not wrapped
		{"9223372036854", 9223372036854 * time.Millisecond, ""},
		{"9223372036855", math.MaxInt64, ""},
		{"9223372036854775807", 0, errPauseTimeoutRange}, // Redis 7.0 overflows its clock
		{"-1", 0, errTimeoutNegative},
		{"+5", 0, errPauseTimeoutNotInt},
		{"05", 0, errPauseTimeoutNotInt},
		{"1.5", 0, errPauseTimeoutNotInt},
		{"9223372036854775808", 0, errPauseTimeoutNotInt},
	}
	for _, tt := range tests {
		got, err := pauseDeadline([]byte(tt.arg), now)
		if tt.wantErr != "" {
			if err != tt.wantErr {
				t.Errorf("pauseDeadline(%q) error = %v, want %v", tt.arg, err, tt.wantErr)
			}
			continue
		}
		want := now.Add(tt.want)
		if tt.want == math.MaxInt64 {
			want = now.Add(time.Duration(math.MaxInt64 / int64(time.Millisecond) * int64(time.Millisecond)))
		}
		if err != nil || !got.Equal(want) {
			t.Errorf("pauseDeadline(%q) = %v, %v; want %v", tt.arg, got, err, want)
		}
	}
}
