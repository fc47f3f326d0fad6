package tests

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestSecurityNoAuthEveryCommand: with requirepass, every command the
// server lists in COMMAND (and every subcommand of a container) is refused
// with NOAUTH before AUTH, except those flagged no_auth; on shale those are
// exactly AUTH, HELLO and QUIT. Nothing sent before AUTH changes the data.
func TestSecurityNoAuthEveryCommand(t *testing.T) {
	t.Parallel()
	opts := backendOpts{
		RedisArgs: []string{"--requirepass", "secret"},
		Shale:     shaleOpts{Config: "[server]\nrequirepass = \"secret\"\n"},
	}
	forEachBackendOpts(t, opts, func(t *testing.T, _ *redis.Client, b backend) {
		authed := newClient(b.Addr, "secret")
		defer authed.Close()
		do(t, authed, "SET", "guard", "v")
		anon := newConn(t, b.Addr)

		// call is a command line of the smallest arity a row accepts.
		call := func(words []string, arity int64) []any {
			n := max(arity, -arity)
			args := make([]any, 0, n)
			for _, w := range words {
				args = append(args, w)
			}
			for int64(len(args)) < n {
				args = append(args, "x")
			}
			return args
		}
		var noAuth []string
		refused := 0
		for _, raw := range do(t, authed, "COMMAND").([]any) {
			row := raw.([]any)
			name, arity := row[0].(string), row[1].(int64)
			flags := row[2].([]any)
			if slices.Contains(flags, any("no_auth")) {
				noAuth = append(noAuth, name)
				continue
			}
			var calls [][]any
			var subs []any
			if len(row) > 9 {
				subs, _ = row[9].([]any)
			}
			if len(subs) == 0 {
				calls = append(calls, call([]string{name}, arity))
			}
			for _, s := range subs {
				sub := s.([]any)
				full := sub[0].(string) // "config|get"
				calls = append(calls, call(strings.SplitN(full, "|", 2), sub[1].(int64)))
			}
			for _, args := range calls {
				want := preAuth[fmtArgs(args[:1])]
				if w := preAuth[fmtArgs(args[:min(2, len(args))])]; w != "" {
					want = w
				}
				if want == "" {
					want = errNoAuth
				}
				err := anon.Do(ctxT(t), args...).Err()
				if err == nil || !strings.HasPrefix(err.Error(), want) {
					t.Errorf("%s before AUTH: got %v, want %q", fmtArgs(args), err, want)
				}
				refused++
			}
		}
		slices.Sort(noAuth)
		t.Logf("%s: %d command lines refused before AUTH; no_auth: %v", b.Name, refused, noAuth)
		if b.isShale() && !slices.Equal(noAuth, []string{"auth", "hello", "quit", "reset"}) {
			t.Errorf("commands allowed before AUTH: %v, want [auth hello quit reset]", noAuth)
		}
		run(t, authed, []step{{cmd("DBSIZE"), int64(1)}, {cmd("GET", "guard"), "v"}})
	})
}

// preAuth are the replies redis-server 7.0 gives before its authentication
// check, by the first one or two words of the command line. Of these, shale
// has DEBUG only, and gives the same reply.
var preAuth = map[string]string{
	fmtArgs([]any{"debug"}):            "ERR DEBUG command not allowed",
	fmtArgs([]any{"module", "load"}):   "ERR MODULE command not allowed",
	fmtArgs([]any{"module", "loadex"}): "ERR MODULE command not allowed",
	fmtArgs([]any{"module", "unload"}): "ERR MODULE command not allowed",
	fmtArgs([]any{"exec"}):             "EXECABORT Transaction discarded because of: " + errNoAuth,
}

// TestSecurityAuthLog: a failed AUTH is answered with Redis's error and
// logged, without the password.
func TestSecurityAuthLog(t *testing.T) {
	t.Parallel()
	const pass, wrong = "Tr0ub4dor-pass", "c0rrect-h0rse-guess"
	p := startShale(t, shaleOpts{Config: "[server]\nrequirepass = \"" + pass + "\"\n"})
	conn := newConn(t, p.Addr)
	run(t, conn, []step{
		{cmd("AUTH", wrong), errText(errWrongPass)},
		{cmd("AUTH", "default", wrong), errText(errWrongPass)},
		{cmd("AUTH", pass), ok},
	})
	pollUntil(t, 5*time.Second, func() (bool, string) {
		return strings.Count(p.Output(), "authentication failed") == 2, "log:\n" + p.Output()
	})
	if out := p.Output(); strings.Contains(out, wrong) || strings.Contains(out, pass) {
		t.Errorf("the log holds a password:\n%s", out)
	}
}

// TestSecurityBindWarning: listening beyond loopback without a password
// logs a loud warning at start-up; with a password, or on loopback, it
// does not.
func TestSecurityBindWarning(t *testing.T) {
	t.Parallel()
	const warning = "WARNING: no requirepass is set and the server listens on a non-loopback address"
	for _, tc := range []struct {
		name   string
		opts   shaleOpts
		warned bool
	}{
		{"0.0.0.0 without password", shaleOpts{Flags: []string{"--bind", "0.0.0.0"}}, true},
		{"0.0.0.0 with password", shaleOpts{Flags: []string{"--bind", "0.0.0.0"}, Config: "[server]\nrequirepass = \"pw\"\n"}, false},
		{"loopback", shaleOpts{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := startShale(t, tc.opts)
			if got := strings.Contains(p.Output(), warning); got != tc.warned {
				t.Errorf("warned = %v, want %v; output:\n%s", got, tc.warned, p.Output())
			}
		})
	}
}
