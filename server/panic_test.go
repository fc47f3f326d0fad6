package server

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/shaledb/shale/conf"
)

// TestPanicCostsOnlyTheConnection: a command that panics while it holds its
// key's lock, with the key's change in an unwritten batch, gets ERR internal
// error and its connection closes; the key keeps its value and takes the
// next command at once; other clients, INFO, /metrics and the log see it.
func TestPanicCostsOnlyTheConnection(t *testing.T) {
	const secret = "secret-key-name-Zq7"
	s, logs := startLoggedServer(t, func(c *conf.Config) {
		c.Server.EnableDebugCommand = true
		c.Metrics.Addr = "127.0.0.1:0"
	})
	other := newAdminClient(t, s, "")
	runScript(t, other, []step{{[]any{"SET", secret, "before"}, "OK"}})

	// A pipeline: the commands before the panic keep their effect and
	// replies, the panicking one gets the error, the ones after it are
	// dropped with the connection.
	got := rawExchange(t, s, multibulk("SET", "a", "1")+multibulk("SET", "b", "2")+
		multibulk("DEBUG", "PANIC", secret)+multibulk("SET", "c", "3"))
	if want := "+OK\r\n+OK\r\n-ERR internal error\r\n"; got != want {
		t.Fatalf("pipeline replies %q, want %q and a closed connection", got, want)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	runScript(t, other, []step{
		{[]any{"GET", secret}, "before"}, // the unwritten batch is gone
		{[]any{"SET", secret, "after"}, "OK"},
		{[]any{"GET", secret}, "after"}, // and the key's lock is free
		{[]any{"MGET", "a", "b", "c"}, []any{"1", "2", nil}},
		{[]any{"DEBUG", "PANIC", "other"}, wantErr("ERR internal error")},
		{[]any{"PING"}, "PONG"}, // go-redis reconnects
	})
	info := other.Info(ctx, "stats", "errorstats").Val()
	for _, want := range []string{"command_panics:2\r\n", "errorstat_ERR:count=2\r\n"} {
		if !strings.Contains(info, want) {
			t.Errorf("INFO lacks %q:\n%s", want, info)
		}
	}
	if m := scrape(t, s); !strings.Contains(m, "\nshale_command_panics_total 2\n") {
		t.Errorf("/metrics lacks shale_command_panics_total 2")
	}
	out := logs.String()
	if n := strings.Count(out, `"message":"command panicked; closing its connection"`); n != 2 {
		t.Errorf("%d panic lines in the log, want 2:\n%s", n, out)
	}
	for _, want := range []string{`"cmd":"debug"`, `"stack":"goroutine`, "DebugPanic"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %s", want)
		}
	}
	if strings.Contains(out, secret) {
		t.Errorf("the log names the command's argument %q", secret)
	}
}

// scrape returns the server's /metrics page.
func scrape(t *testing.T, s *Server) string {
	t.Helper()
	resp, err := http.Get("http://" + s.metrics.addr.String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestPanicInsideExecReleasesItsLocks: a command that panics inside EXEC
// (which holds the world lock for it) costs its connection, writes nothing
// of the transaction, and leaves no lock and no watch claim behind.
func TestPanicInsideExecReleasesItsLocks(t *testing.T) {
	s, _ := startLoggedServer(t, func(c *conf.Config) { c.Server.EnableDebugCommand = true })
	other := newAdminClient(t, s, "")
	got := rawExchange(t, s, multibulk("MULTI")+multibulk("SET", "t", "1")+multibulk("DEBUG", "PANIC", "t")+multibulk("EXEC"))
	if want := "+OK\r\n+QUEUED\r\n+QUEUED\r\n"; !strings.HasPrefix(got, want) {
		t.Fatalf("replies %q, want them to start with %q", got, want)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		runScript(t, other, []step{
			{[]any{"GET", "t"}, redis.Nil}, // nothing of the transaction was written
			{[]any{"SET", "t", "2"}, "OK"},
		})
		got := rawExchange(t, s, multibulk("WATCH", "t")+multibulk("MULTI")+multibulk("GET", "t")+multibulk("EXEC"))
		if want := "+OK\r\n+OK\r\n+QUEUED\r\n*1\r\n$1\r\n2\r\n"; got != want {
			t.Errorf("a transaction after the panic: %q, want %q", got, want)
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the server hangs after a panic inside EXEC: its locks were not released")
	}
}
