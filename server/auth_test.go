package server

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/shaledb/shale/conf"
)

// TestAuthRequiredForEveryCommand sends every command of the table, and
// every subcommand of the containers, before AUTH: all but AUTH, HELLO and
// QUIT must get NOAUTH, and none may change the data.
func TestAuthRequiredForEveryCommand(t *testing.T) {
	const pass = "s3cret-pass"
	s, _ := startAdminServer(t, func(c *conf.Config) { c.Server.RequirePass = pass })
	ctx := context.Background()
	authed := newAdminClient(t, s, pass)
	if err := authed.Set(ctx, "guard", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}

	anon := newAdminClient(t, s, "")
	noAuth := map[string]bool{}
	// args returns a call of the smallest arity a command accepts.
	args := func(name string, arity int) []any {
		n := max(arity, -arity)
		a := []any{name}
		for len(a) < n {
			a = append(a, "x")
		}
		return a
	}
	for _, cmd := range allCommands() {
		if cmd.Flags&NoAuth != 0 {
			noAuth[cmd.Name] = true
			continue
		}
		var calls [][]any
		if cmd.Subcommands == nil {
			calls = append(calls, args(cmd.Name, cmd.Arity))
		}
		for _, sc := range cmd.Subcommands {
			a := args(sc.Name, sc.Arity-1)
			calls = append(calls, append([]any{cmd.Name}, a...))
		}
		want := errNoAuth
		switch cmd.Name {
		case "debug":
			want = errDebugDisabled // as in Redis, checked before authentication
		case "exec":
			want = "EXECABORT Transaction discarded because of: " + errNoAuth // as in Redis
		}
		for _, call := range calls {
			err := anon.Do(ctx, call...).Err()
			if err == nil || err.Error() != string(want) {
				t.Errorf("%v before AUTH: got %v, want %q", call, err, want)
			}
		}
	}
	if want := map[string]bool{"auth": true, "hello": true, "quit": true, "reset": true}; len(noAuth) != len(want) ||
		!noAuth["auth"] || !noAuth["hello"] || !noAuth["quit"] || !noAuth["reset"] {
		t.Errorf("commands allowed before AUTH: %v, want %v", noAuth, want)
	}
	runScript(t, anon, []step{
		{[]any{"HELLO", "2"}, wantErr("NOAUTH HELLO must be called with the client already authenticated")},
		// Redis resolves the subcommand before it checks authentication.
		{[]any{"CONFIG", "nosuch"}, wantErr("ERR unknown subcommand 'nosuch'. Try CONFIG HELP.")},
		{[]any{"CLIENT", "setname"}, wantErr("ERR wrong number of arguments for 'client|setname' command")},
	})
	runScript(t, authed, []step{
		{[]any{"DBSIZE"}, int64(1)},
		{[]any{"GET", "guard"}, "v"},
	})
}

// syncBuffer is a log sink for tests.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// TestAuthFailureLogged: a wrong password is logged, without the password.
func TestAuthFailureLogged(t *testing.T) {
	const pass, wrong = "right-horse-battery", "wrong-staple-Q9x"
	s, logs := startLoggedServer(t, func(c *conf.Config) { c.Server.RequirePass = pass })
	c := newAdminClient(t, s, "")
	ctx := context.Background()
	for _, call := range [][]any{
		{"AUTH", wrong},
		{"AUTH", "default", wrong},
		{"AUTH", "nobody", pass},
		{"HELLO", "2", "AUTH", "default", wrong},
	} {
		if err := c.Do(ctx, call...).Err(); err == nil || err.Error() != string(errWrongPass) {
			t.Errorf("%v: got %v, want %q", call, err, errWrongPass)
		}
	}
	if err := c.Do(ctx, "AUTH", pass).Err(); err != nil {
		t.Fatalf("AUTH with the password: %v", err)
	}
	out := logs.String()
	if n := strings.Count(out, "authentication failed"); n != 4 {
		t.Errorf("%d failed-authentication lines, want 4:\n%s", n, out)
	}
	if strings.Contains(out, wrong) || strings.Contains(out, pass) {
		t.Errorf("the log holds a password:\n%s", out)
	}
	if !strings.Contains(out, `"user":"nobody"`) {
		t.Errorf("the log does not name the user:\n%s", out)
	}
}
