package server

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/shaledb/shale/conf"
)

func TestConfigGetSet(t *testing.T) {
	defer zerolog.SetGlobalLevel(zerolog.GlobalLevel())
	s, c := startAdminServer(t, nil)
	immutable := func(name string) wantErr {
		return wantErr("ERR CONFIG SET failed (possibly related to argument '" + name + "') - can't set immutable config")
	}
	failed := func(name, reason string) wantErr {
		return wantErr("ERR CONFIG SET failed (possibly related to argument '" + name + "') - " + reason)
	}
	runScript(t, c, []step{
		{[]any{"CONFIG", "GET", "port"}, []any{"port", "0"}},
		{[]any{"CONFIG", "GET", "PORT", "port", "databases"}, []any{"port", "0", "databases", "16"}},
		{[]any{"CONFIG", "GET", "nosuch"}, []any{}},
		{[]any{"CONFIG", "GET", "bind"}, []any{"bind", "127.0.0.1"}},
		{[]any{"CONFIG", "GET", "save"}, []any{"save", ""}},
		{[]any{"CONFIG", "GET", "appendonly"}, []any{"appendonly", "yes"}},
		{[]any{"CONFIG", "GET", "timeout"}, []any{"timeout", "0"}},
		{[]any{"CONFIG", "GET", "requirepass"}, []any{"requirepass", ""}},
		{[]any{"CONFIG", "GET", "rocksdb.write_buffer_bytes"}, []any{"rocksdb.write_buffer_bytes", "33554432"}},
		{[]any{"CONFIG", "GET", "rocksdb.compression"}, []any{"rocksdb.compression", "no no lz4 lz4 lz4 zstd zstd"}},
		{[]any{"CONFIG", "GET", "rocksdb.subkey.write_buffer_bytes"}, []any{"rocksdb.subkey.write_buffer_bytes", ""}},
		{[]any{"CONFIG", "GET", "compaction.reclaim_delay"}, []any{"compaction.reclaim_delay", "1s"}},
		{[]any{"CONFIG", "GET", "storage.sync_writes"}, []any{"storage.sync_writes", "no"}},
		{[]any{"CONFIG", "GET", "compaction.reclaim_m*"}, []any{"compaction.reclaim_min_elements", "10000", "compaction.reclaim_max_per_second", "4"}},
		{[]any{"CONFIG", "GET"}, wantErr("ERR wrong number of arguments for 'config|get' command")},

		{[]any{"CONFIG", "SET", "maxclients", "50"}, "OK"},
		{[]any{"CONFIG", "GET", "maxclients"}, []any{"maxclients", "50"}},
		{[]any{"CONFIG", "SET", "MaxClients", "60", "timeout", "90s"}, "OK"},
		{[]any{"CONFIG", "GET", "maxclients", "timeout"}, []any{"maxclients", "60", "timeout", "90"}},
		{[]any{"CONFIG", "SET", "timeout", "0"}, "OK"},
		{[]any{"CONFIG", "SET", "rocksdb.write_buffer_bytes", "8MiB"}, "OK"},
		{[]any{"CONFIG", "GET", "rocksdb.write_buffer_bytes"}, []any{"rocksdb.write_buffer_bytes", "8388608"}},
		{[]any{"CONFIG", "SET", "rocksdb.subkey.write_buffer_bytes", "4194304", "rocksdb.metadata.max_write_buffer_number", "3"}, "OK"},
		{[]any{"CONFIG", "GET", "rocksdb.subkey.write_buffer_bytes"}, []any{"rocksdb.subkey.write_buffer_bytes", "4194304"}},
		{[]any{"CONFIG", "SET", "rocksdb.subkey.write_buffer_bytes", ""}, "OK"},
		{[]any{"CONFIG", "GET", "rocksdb.subkey.write_buffer_bytes"}, []any{"rocksdb.subkey.write_buffer_bytes", ""}},
		{[]any{"CONFIG", "SET", "rocksdb.compression", "lz4,zstd"}, "OK"},
		{[]any{"CONFIG", "SET", "rocksdb.subkey.compression", "zstd"}, "OK"},
		{[]any{"CONFIG", "GET", "rocksdb.*compression"}, []any{"rocksdb.compression", "lz4 zstd", "rocksdb.metadata.compression", "", "rocksdb.subkey.compression", "zstd", "rocksdb.score.compression", ""}},
		{[]any{"CONFIG", "SET", "rocksdb.target_file_size_bytes", "32MiB", "rocksdb.max_bytes_for_level_base", "128MiB"}, "OK"},
		{[]any{"CONFIG", "SET", "rocksdb.level0_file_num_compaction_trigger", "30"},
			failed("rocksdb.level0_file_num_compaction_trigger", "rocksdb.level0_slowdown_writes_trigger: 20 is below rocksdb.level0_file_num_compaction_trigger (30)")},
		{[]any{"CONFIG", "SET", "rocksdb.level0_file_num_compaction_trigger", "30", "rocksdb.level0_slowdown_writes_trigger", "40", "rocksdb.level0_stop_writes_trigger", "50"}, "OK"},
		{[]any{"CONFIG", "SET", "rocksdb.level0_file_num_compaction_trigger", "4", "rocksdb.level0_slowdown_writes_trigger", "20", "rocksdb.level0_stop_writes_trigger", "36"}, "OK"},
		{[]any{"CONFIG", "SET", "compaction.reclaim_min_elements", "5", "compaction.reclaim_max_per_second", "2.5"}, "OK"},
		{[]any{"CONFIG", "SET", "loglevel", "notice"}, "OK"},
		{[]any{"CONFIG", "GET", "loglevel"}, []any{"loglevel", "info"}},
		{[]any{"CONFIG", "SET", "loglevel", "debug"}, "OK"},
		{[]any{"CONFIG", "SET", "appendonly", "yes", "save", ""}, "OK"},

		// errors
		{[]any{"CONFIG", "SET", "port", "1"}, immutable("port")},
		{[]any{"CONFIG", "SET", "dir", "/tmp"}, immutable("dir")},
		{[]any{"CONFIG", "SET", "rocksdb.block_cache_bytes", "1"}, immutable("rocksdb.block_cache_bytes")},
		{[]any{"CONFIG", "SET", "rocksdb.subkey.bloom_bits_per_key", "1"}, immutable("rocksdb.subkey.bloom_bits_per_key")},
		{[]any{"CONFIG", "SET", "maxclients", "1", "databases", "2"}, immutable("databases")},
		{[]any{"CONFIG", "SET", "nosuch", "1"}, wantErr("ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'")},
		{[]any{"CONFIG", "SET", "NoSuch", "1", "port", "1"}, wantErr("ERR Unknown option or number of arguments for CONFIG SET - 'NoSuch'")},
		{[]any{"CONFIG", "SET", "maxclients", "abc"}, failed("maxclients", "argument couldn't be parsed into an integer")},
		{[]any{"CONFIG", "SET", "maxclients", "0"}, failed("maxclients", "argument must be between 1 and 4294967295 inclusive")},
		{[]any{"CONFIG", "SET", "maxclients", "+5"}, failed("maxclients", "argument couldn't be parsed into an integer")},
		{[]any{"CONFIG", "SET", "timeout", "-1"}, failed("timeout", "argument must be between 0 and 2147483647 inclusive")},
		{[]any{"CONFIG", "SET", "timeout", "-5m"}, failed("timeout", "argument must be between 0 and 2147483647 inclusive")},
		{[]any{"CONFIG", "SET", "proto-max-bulk-len", "-1"}, failed("proto-max-bulk-len", "argument must be a memory value")},
		{[]any{"CONFIG", "SET", "proto-max-bulk-len", "99999999999gb"}, failed("proto-max-bulk-len", "argument must be between 1048576 and 9223372036854775807 inclusive")},
		{[]any{"CONFIG", "SET", "timeout", "soon"}, failed("timeout", "argument couldn't be parsed into an integer")},
		{[]any{"CONFIG", "SET", "rocksdb.write_buffer_bytes", "1KiB"}, failed("rocksdb.write_buffer_bytes", "rocksdb.write_buffer_bytes: 1KiB is out of range 64KiB..64GiB")},
		{[]any{"CONFIG", "SET", "rocksdb.score.max_write_buffer_number", "4"}, failed("rocksdb.score.max_write_buffer_number", "rocksdb.score.min_write_buffer_number_to_merge: 4 needs a max_write_buffer_number above it, not 4")},
		{[]any{"CONFIG", "SET", "rocksdb.score.min_write_buffer_number_to_merge", "2"}, immutable("rocksdb.score.min_write_buffer_number_to_merge")},
		{[]any{"CONFIG", "SET", "rocksdb.write_buffer_bytes", "lots"}, failed("rocksdb.write_buffer_bytes", `invalid byte size "lots"`)},
		{[]any{"CONFIG", "SET", "rocksdb.compression", "lz4 gzip"}, failed("rocksdb.compression", `rocksdb.compression[1]: "gzip" is not one of`)},
		{[]any{"CONFIG", "SET", "compaction.reclaim_max_per_second", "0"}, failed("compaction.reclaim_max_per_second", "compaction.reclaim_max_per_second: 0 must be a finite number of at least 1/86400 (one a day)")},
		{[]any{"CONFIG", "SET", "loglevel", "loud"}, failed("loglevel", "argument(s) must be one of the following: debug, verbose, notice, warning")},
		{[]any{"CONFIG", "SET", "appendonly", "no"}, failed("appendonly", "Shale always logs every write in RocksDB's write-ahead log before it acknowledges it: appendonly is always 'yes'")},
		{[]any{"CONFIG", "SET", "save", "3600 1"}, failed("save", `Shale takes no snapshots on its own, its data is always on disk: save is always "" (BGSAVE makes a checkpoint)`)},
		{[]any{"CONFIG", "SET", "maxclients", "10", "maxclients", "20"}, failed("maxclients", "duplicate parameter")},
		{[]any{"CONFIG", "SET", "maxclients", "10", "timeout"}, wantErr("ERR syntax error")},
		{[]any{"CONFIG", "SET", "maxclients"}, wantErr("ERR wrong number of arguments for 'config|set' command")},
		{[]any{"CONFIG", "SET", "maxclients", "70", "timeout", "x"}, failed("timeout", "argument couldn't be parsed into an integer")},
		{[]any{"CONFIG", "GET", "maxclients"}, []any{"maxclients", "60"}}, // all or nothing
		{[]any{"CONFIG", "nosuch"}, wantErr("ERR unknown subcommand 'nosuch'. Try CONFIG HELP.")},
		{[]any{"CONFIG", "RESETSTAT", "x"}, wantErr("ERR wrong number of arguments for 'config|resetstat' command")},
	})
	if got := s.st.ReclaimMinElements(); got != 5 {
		t.Errorf("reclaim_min_elements not applied: %d", got)
	}
	if got := zerolog.GlobalLevel(); got != zerolog.DebugLevel {
		t.Errorf("loglevel not applied: %v", got)
	}
	cfg := s.config()
	if cfg.Server.MaxClients != 60 || cfg.RocksDB.WriteBufferBytes != 8*conf.MiB || cfg.RocksDB.Metadata.MaxWriteBufferNumber == nil {
		t.Errorf("config not updated: %+v", cfg)
	}
}

// TestConfigSetEveryLiveParam sets every runtime parameter to its current
// value, which must be accepted, and GET * to list every parameter once.
func TestConfigSetEveryLiveParam(t *testing.T) {
	defer zerolog.SetGlobalLevel(zerolog.GlobalLevel())
	_, c := startAdminServer(t, nil)
	ctx := context.Background()
	all, err := c.Do(ctx, "CONFIG", "GET", "*").StringSlice()
	if err != nil || len(all) != 2*len(configParams) {
		t.Fatalf("CONFIG GET * = %d items, %v; want %d", len(all), err, 2*len(configParams))
	}
	for i := 0; i < len(all); i += 2 {
		p := lookupConfig(all[i])
		if p == nil || p.set == nil {
			continue
		}
		if err := c.Do(ctx, "CONFIG", "SET", all[i], all[i+1]).Err(); err != nil {
			t.Errorf("CONFIG SET %s %q: %v", all[i], all[i+1], err)
		}
	}
	again, _ := c.Do(ctx, "CONFIG", "GET", "*").StringSlice()
	if strings.Join(again, "\n") != strings.Join(all, "\n") {
		t.Errorf("values changed:\n%q\n%q", all, again)
	}
}

func TestConfigLiveEffects(t *testing.T) {
	s, c := startAdminServer(t, nil)

	// requirepass: new connections must AUTH; this one stays logged in.
	runScript(t, c, []step{{[]any{"CONFIG", "SET", "requirepass", "pw"}, "OK"}, {[]any{"PING"}, "PONG"}})
	runScript(t, newAdminClient(t, s, ""), []step{{[]any{"PING"}, wantErr("NOAUTH")}})
	runScript(t, newAdminClient(t, s, "pw"), []step{{[]any{"PING"}, "PONG"}})
	runScript(t, c, []step{{[]any{"CONFIG", "SET", "requirepass", ""}, "OK"}})

	// maxclients: the next connection is refused.
	runScript(t, c, []step{{[]any{"CONFIG", "SET", "maxclients", "1"}, "OK"}})
	if got := rawExchange(t, s, multibulk("PING")); got != "-ERR max number of clients reached\r\n" {
		t.Errorf("over maxclients: %q", got)
	}
	runScript(t, c, []step{{[]any{"CONFIG", "SET", "maxclients", "100"}, "OK"}})

	// timeout: a new idle connection is closed.
	runScript(t, c, []step{{[]any{"CONFIG", "SET", "timeout", "1"}, "OK"}})
	nc, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	start := time.Now()
	if _, err := nc.Read(make([]byte, 1)); err == nil || time.Since(start) > 8*time.Second {
		t.Errorf("idle connection not closed by timeout: %v after %v", err, time.Since(start))
	}
	runScript(t, c, []step{{[]any{"CONFIG", "SET", "timeout", "0"}, "OK"}})
}

func TestConfigResetStat(t *testing.T) {
	_, c := startAdminServer(t, nil)
	ctx := context.Background()
	for range 5 {
		c.Do(ctx, "NOSUCHCMD")
	}
	runScript(t, c, []step{{[]any{"CONFIG", "RESETSTAT"}, "OK"}})
	stats, err := c.Do(ctx, "INFO", "stats").Text()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"total_error_replies:0", "total_commands_processed:1", "expired_keys:0"} {
		if !strings.Contains(stats, "\r\n"+want+"\r\n") {
			t.Errorf("after RESETSTAT, no %q in\n%s", want, stats)
		}
	}
	if help, err := c.Do(ctx, "CONFIG", "HELP").StringSlice(); err != nil || !strings.HasPrefix(help[0], "CONFIG <subcommand>") {
		t.Errorf("CONFIG HELP = %q, %v", help, err)
	}
}

// TestConfigSetWhileClientsClose guards against a lock-order deadlock:
// redcon holds its lock while it reports a closed connection, which takes
// s.mu, and CONFIG SET timeout takes redcon's lock.
func TestConfigSetWhileClientsClose(t *testing.T) {
	s, c := startAdminServer(t, nil)
	ctx := context.Background()
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if nc, err := net.Dial("tcp", s.Addr().String()); err == nil {
				nc.Close()
			}
		}
	}()
	finished := make(chan error, 1)
	go func() {
		for i := range 300 {
			if err := c.Do(ctx, "CONFIG", "SET", "timeout", i%2+100).Err(); err != nil {
				finished <- err
				return
			}
		}
		finished <- nil
	}()
	select {
	case err := <-finished:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("CONFIG SET timeout deadlocked with closing connections")
	}
	close(stop)
	<-done
}
