package server

import (
	"context"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/shaledb/shale/conf"
)

func TestFlushAndDBSize(t *testing.T) {
	_, c := startAdminServer(t, nil)
	runScript(t, c, []step{
		{[]any{"DBSIZE"}, int64(0)},
		{[]any{"SET", "a", "1"}, "OK"},
		{[]any{"SET", "b", "1"}, "OK"},
		{[]any{"SELECT", "1"}, "OK"},
		{[]any{"SET", "c", "1"}, "OK"},
		{[]any{"DBSIZE"}, int64(1)},
		{[]any{"DBSIZE", "x"}, wantErr("ERR wrong number of arguments for 'dbsize' command")},
		{[]any{"FLUSHDB", "x"}, wantErr("ERR syntax error")},
		{[]any{"FLUSHDB", "ASYNC", "x"}, wantErr("ERR syntax error")},
		{[]any{"FLUSHDB", "sync"}, "OK"},
		{[]any{"DBSIZE"}, int64(0)},
		{[]any{"SELECT", "0"}, "OK"},
		{[]any{"DBSIZE"}, int64(2)},
		{[]any{"SELECT", "2"}, "OK"},
		{[]any{"SET", "d", "1"}, "OK"},
		{[]any{"FLUSHALL", "x"}, wantErr("ERR syntax error")},
		{[]any{"FLUSHALL", "ASYNC"}, "OK"},
		{[]any{"DBSIZE"}, int64(0)},
		{[]any{"SELECT", "0"}, "OK"},
		{[]any{"DBSIZE"}, int64(0)},
		{[]any{"GET", "a"}, redis.Nil},
		{[]any{"SET", "a", "2"}, "OK"},
		{[]any{"FLUSHALL"}, "OK"},
		{[]any{"DBSIZE"}, int64(0)},
	})
}

func TestTimeAndCompact(t *testing.T) {
	_, c := startAdminServer(t, nil)
	ctx := context.Background()
	got, err := c.Do(ctx, "TIME").StringSlice()
	if err != nil || len(got) != 2 {
		t.Fatalf("TIME = %q, %v", got, err)
	}
	sec, _ := strconv.ParseInt(got[0], 10, 64)
	usec, err := strconv.ParseInt(got[1], 10, 64)
	if d := time.Now().Unix() - sec; d < -1 || d > 1 || err != nil || usec < 0 || usec > 999999 {
		t.Errorf("TIME = %q", got)
	}
	runScript(t, c, []step{
		{[]any{"TIME", "x"}, wantErr("ERR wrong number of arguments for 'time' command")},
		{[]any{"HSET", "h", "f", "v"}, int64(1)},
		{[]any{"DEL", "h"}, int64(1)},
		{[]any{"COMPACT"}, "OK"},
		{[]any{"COMPACT", "x"}, wantErr("ERR wrong number of arguments for 'compact' command")},
	})
}

func TestShutdown(t *testing.T) {
	s, c := startAdminServer(t, nil)
	runScript(t, c, []step{
		{[]any{"SHUTDOWN", "ABORT"}, wantErr("ERR No shutdown in progress.")},
		{[]any{"SHUTDOWN", "NOW", "ABORT"}, wantErr("ERR syntax error")},
		{[]any{"SHUTDOWN", "NOSAVE", "SAVE"}, wantErr("ERR syntax error")},
		{[]any{"SHUTDOWN", "foo"}, wantErr("ERR syntax error")},
	})
	select {
	case <-s.ShutdownRequested():
		t.Fatal("shutdown requested by a refused SHUTDOWN")
	default:
	}
	// SHUTDOWN replies nothing: the main program closes the server.
	if got := rawExchange(t, s, multibulk("SHUTDOWN", "NOSAVE", "NOW", "FORCE")); got != "" {
		t.Errorf("SHUTDOWN replied %q", got)
	}
	select {
	case <-s.ShutdownRequested():
	case <-time.After(5 * time.Second):
		t.Fatal("SHUTDOWN did not signal")
	}
	rawExchange(t, s, multibulk("SHUTDOWN")) // a second one must not panic
}

func TestDebug(t *testing.T) {
	_, off := startAdminServer(t, nil)
	const disabled = `ERR DEBUG command not allowed. If the enable-debug-command option is set to "local", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.`
	runScript(t, off, []step{
		{[]any{"DEBUG", "SLEEP", "0"}, wantErr(disabled)},
		{[]any{"DEBUG", "foo"}, wantErr(disabled)},
		{[]any{"DEBUG"}, wantErr("ERR wrong number of arguments for 'debug' command")},
	})

	_, c := startAdminServer(t, func(c *conf.Config) { c.Server.EnableDebugCommand = true })
	ctx := context.Background()
	runScript(t, c, []step{
		{[]any{"HSET", "h", "f1", "v", "f2", "v"}, int64(2)},
		{[]any{"SET", "s", "v"}, "OK"},
		{[]any{"DEBUG", "UID", "s"}, redis.Nil},
		{[]any{"DEBUG", "UID", "nosuch"}, redis.Nil},
		{[]any{"DEBUG", "CF-RECORDS", "subkey"}, int64(2)},
		{[]any{"debug", "cf-records", "metadata"}, int64(2)},
		{[]any{"DEBUG", "CF-RECORDS", "nosuch"}, wantErr("ERR unknown column family 'nosuch'")},
		{[]any{"DEBUG", "SST-BYTES", "nosuch"}, wantErr("ERR unknown column family 'nosuch'")},
		{[]any{"DEBUG", "SLEEP", "0.01"}, "OK"},
		{[]any{"DEBUG", "SLEEP", "x"}, "OK"},
		{[]any{"DEBUG", "SLEEP"}, wantErr("ERR unknown subcommand or wrong number of arguments for 'SLEEP'. Try DEBUG HELP.")},
		{[]any{"DEBUG", "nosuch"}, wantErr("ERR unknown subcommand or wrong number of arguments for 'nosuch'. Try DEBUG HELP.")},
	})
	uid, err := c.Do(ctx, "DEBUG", "UID", "h").Int64()
	if err != nil || uid <= 0 {
		t.Errorf("DEBUG UID h = %d, %v", uid, err)
	}
	if n, err := c.Do(ctx, "DEBUG", "SST-BYTES", "subkey").Int64(); err != nil || n < 0 {
		t.Errorf("DEBUG SST-BYTES = %d, %v", n, err)
	}
	if help, err := c.Do(ctx, "DEBUG", "HELP").StringSlice(); err != nil || len(help) < 4 {
		t.Errorf("DEBUG HELP = %q, %v", help, err)
	}
}

// TestDebugCompactCFAndReclaim: DEBUG COMPACT-CF drops a removed hash's
// orphans from the one CF it names and no other, and DEBUG RECLAIM runs a
// queued targeted compaction at once, long before its delay is up.
func TestDebugCompactCFAndReclaim(t *testing.T) {
	_, c := startAdminServer(t, func(c *conf.Config) {
		c.Server.EnableDebugCommand = true
		c.Compaction.ReclaimMinElements = 3
		c.Compaction.ReclaimDelay.Duration = time.Hour
	})
	runScript(t, c, []step{
		{[]any{"ZADD", "small", "1", "a", "2", "b"}, int64(2)},
		{[]any{"DEL", "small"}, int64(1)}, // below reclaim_min_elements: not queued
		{[]any{"DEBUG", "CF-RECORDS", "subkey"}, int64(2)},
		{[]any{"DEBUG", "CF-RECORDS", "score"}, int64(2)},
		{[]any{"DEBUG", "COMPACT-CF", "subkey"}, "OK"},
		{[]any{"DEBUG", "CF-RECORDS", "subkey"}, int64(0)},
		{[]any{"DEBUG", "CF-RECORDS", "score"}, int64(2)},
		{[]any{"DEBUG", "COMPACT-CF", "nosuch"}, wantErr("ERR unknown column family 'nosuch'")},
		{[]any{"ZADD", "big", "1", "a", "2", "b", "3", "c"}, int64(3)},
		{[]any{"HSET", "live", "f", "v"}, int64(1)},
		{[]any{"DEL", "big"}, int64(1)}, // queued, for an hour
		{[]any{"DEBUG", "RECLAIM"}, "OK"},
		{[]any{"DEBUG", "CF-RECORDS", "subkey"}, int64(1)}, // live's
		{[]any{"DEBUG", "RECLAIM"}, "OK"},                  // an empty queue
		{[]any{"DEBUG", "RECLAIM", "x"}, wantErr("ERR unknown subcommand or wrong number of arguments for 'RECLAIM'. Try DEBUG HELP.")},
		{[]any{"HGET", "live", "f"}, "v"},
	})
}

func TestDebugSleepTime(t *testing.T) {
	tests := []struct {
		arg  string
		want time.Duration
	}{
		{"0.25", 250 * time.Millisecond},
		{"0.3abc", 300 * time.Millisecond}, // strtod reads a prefix
		{" 0.3", 300 * time.Millisecond},   // after blanks
		{"0x1p-2", 250 * time.Millisecond},
		{"abc", 0},
		{"", 0},
		{"-1", 0},
		{"0.0000001", 0}, // under a microsecond: nanosleep(0)
		{"inf", 0},       // LLONG_MIN after the conversion: no sleep
		{"nan", 0},
		{"1e308", 0},
		{"9300000000000", 0},           // its microseconds pass LLONG_MAX
		{"10000000000", math.MaxInt64}, // past time.Duration: not wrapped
		{"9200000000000", math.MaxInt64},
	}
	for _, tt := range tests {
		if got := debugSleepTime([]byte(tt.arg)); got != tt.want {
			t.Errorf("debugSleepTime(%q) = %v, want %v", tt.arg, got, tt.want)
		}
	}
}
