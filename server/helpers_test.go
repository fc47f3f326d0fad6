package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/rs/zerolog"

	"github.com/shaledb/shale/conf"
)

// Helpers the package's tests share: an in-process server with its
// clients, raw RESP exchanges, and scripts of {args, want} steps.

// startAdminServer starts a server on a free loopback port over a temp
// dir, with mod applied to the default config, and a RESP2 go-redis client.
func startAdminServer(t *testing.T, mod func(*conf.Config)) (*Server, *redis.Client) {
	t.Helper()
	s := startServer(t, mod, zerolog.New(zerolog.NewTestWriter(t)))
	return s, newAdminClient(t, s, "")
}

// startLoggedServer is startAdminServer without the client, and with the
// server's log kept, for the tests of what it logs.
func startLoggedServer(t *testing.T, mod func(*conf.Config)) (*Server, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	return startServer(t, mod, zerolog.New(logs)), logs
}

func startServer(t testing.TB, mod func(*conf.Config), log zerolog.Logger) *Server {
	t.Helper()
	cfg := conf.Default()
	cfg.Server.Bind = "127.0.0.1"
	cfg.Server.Port = 0
	cfg.Storage.Dir = t.TempDir()
	cfg.RocksDB.BlockCacheBytes = 8 * conf.MiB
	if mod != nil {
		mod(&cfg)
	}
	s, err := Start(cfg, log)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return s
}

// closeWithin closes s, failing the test if Close errs or has not returned
// within d.
func closeWithin(t *testing.T, s *Server, d time.Duration) {
	t.Helper()
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(d):
		t.Fatalf("Close still waiting after %v", d)
	}
}

func newAdminClient(t *testing.T, s *Server, password string) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{
		Addr:            s.Addr().String(),
		Password:        password,
		Protocol:        2,
		DisableIdentity: true,
		PoolSize:        1,
	})
	t.Cleanup(func() { c.Close() })
	return c
}

// wantErr is an expected error reply: the text must start with it.
type wantErr string

// wantMatch is an expected bulk reply matching a regexp.
type wantMatch string

// step is one command of a script and its expected reply: a value as
// go-redis returns it, redis.Nil for a null, a wantErr or a wantMatch.
type step struct {
	args []any
	want any
}

func runScript(t *testing.T, c *redis.Client, steps []step) {
	t.Helper()
	ctx := context.Background()
	for _, st := range steps {
		got, err := c.Do(ctx, st.args...).Result()
		switch want := st.want.(type) {
		case wantErr:
			if err == nil || !strings.HasPrefix(err.Error(), string(want)) {
				t.Errorf("%v: got %#v, %v; want error %q", st.args, got, err, want)
			}
		case error:
			if !errors.Is(err, want) {
				t.Errorf("%v: got %#v, %v; want %v", st.args, got, err, want)
			}
		case wantMatch:
			s, ok := got.(string)
			if err != nil || !ok || !regexp.MustCompile(string(want)).MatchString(s) {
				t.Errorf("%v: got %#v, %v; want match %q", st.args, got, err, want)
			}
		default:
			if err != nil || !reflect.DeepEqual(got, st.want) {
				t.Errorf("%v: got %#v, %v; want %#v", st.args, got, err, st.want)
			}
		}
	}
}

// rawExchange sends RESP commands on a fresh connection and returns what
// the server wrote until it closed the connection or went quiet.
func rawExchange(t *testing.T, s *Server, in string) string {
	t.Helper()
	nc, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if _, err := io.WriteString(nc, in); err != nil {
		t.Fatal(err)
	}
	var out []byte
	buf := make([]byte, 64<<10)
	for {
		nc.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
		n, err := nc.Read(buf)
		out = append(out, buf[:n]...)
		if err != nil {
			return string(out)
		}
	}
}

// multibulk is args as one RESP multibulk command.
func multibulk[T string | []byte](args ...T) string {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	return b.String()
}
