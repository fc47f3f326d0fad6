package server

import (
	"context"
	"testing"

	"github.com/shaledb/shale/conf"
)

const helloNoAuth = "NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time"

func TestConnectionCommands(t *testing.T) {
	s, c := startAdminServer(t, nil)
	hello := func(id int64) []any {
		return []any{"server", "redis", "version", redisVersion, "proto", int64(2), "id", id,
			"mode", "standalone", "role", "master", "modules", []any{}}
	}
	id, err := c.Do(context.Background(), "CLIENT", "ID").Int64()
	if err != nil {
		t.Fatal(err)
	}
	runScript(t, c, []step{
		{[]any{"PING"}, "PONG"},
		{[]any{"ping", "hi"}, "hi"},
		{[]any{"PING", "a", "b"}, wantErr("ERR wrong number of arguments for 'ping' command")},
		{[]any{"ECHO", "x y"}, "x y"},
		{[]any{"ECHO"}, wantErr("ERR wrong number of arguments for 'echo' command")},
		{[]any{"SELECT", "x"}, wantErr("ERR value is not an integer or out of range")},
		{[]any{"SELECT", "16"}, wantErr("ERR DB index is out of range")},
		{[]any{"SELECT", "-1"}, wantErr("ERR DB index is out of range")},
		{[]any{"SELECT", "99999999999999999999"}, wantErr("ERR value is not an integer or out of range")},
		{[]any{"SELECT", "3"}, "OK"},
		{[]any{"AUTH", "pw"}, wantErr("ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?")},
		{[]any{"AUTH", "bob", "pw"}, wantErr("WRONGPASS invalid username-password pair or user is disabled.")},
		{[]any{"AUTH", "default", "anything"}, "OK"},
		{[]any{"AUTH", "a", "b", "c"}, wantErr("ERR syntax error")},
		{[]any{"HELLO"}, hello(id)},
		{[]any{"HELLO", "2"}, hello(id)},
		{[]any{"HELLO", "4"}, wantErr("NOPROTO unsupported protocol version")},
		{[]any{"HELLO", "1"}, wantErr("NOPROTO unsupported protocol version")},
		{[]any{"HELLO", "x"}, wantErr("ERR Protocol version is not an integer or out of range")},
		{[]any{"HELLO", "2", "AUTH", "default"}, wantErr("ERR Syntax error in HELLO option 'AUTH'")},
		{[]any{"HELLO", "2", "SETNAME"}, wantErr("ERR Syntax error in HELLO option 'SETNAME'")},
		{[]any{"HELLO", "2", "SETNAME", "a b"}, wantErr("ERR Client names cannot contain spaces, newlines or special characters.")},
		{[]any{"HELLO", "2", "AUTH", "bob", "x"}, wantErr("WRONGPASS")},
		{[]any{"HELLO", "2", "AUTH", "default", "x", "SETNAME", "h1"}, hello(id)},
		{[]any{"CLIENT", "GETNAME"}, "h1"},
	})
	if got := rawExchange(t, s, multibulk("QUIT")+multibulk("PING")); got != "+OK\r\n" {
		t.Errorf("QUIT then PING: got %q, want only +OK and a close", got)
	}
}

func TestAuthFlow(t *testing.T) {
	s, _ := startAdminServer(t, func(c *conf.Config) { c.Server.RequirePass = "s3cret" })
	c := newAdminClient(t, s, "") // no AUTH on connect
	runScript(t, c, []step{
		{[]any{"PING"}, wantErr("NOAUTH Authentication required.")},
		{[]any{"CLIENT", "SETNAME", "x"}, wantErr("NOAUTH Authentication required.")},
		{[]any{"HELLO"}, wantErr(helloNoAuth)},
		{[]any{"HELLO", "2"}, wantErr(helloNoAuth)},
		{[]any{"HELLO", "2", "AUTH", "default", "wrong"}, wantErr("WRONGPASS invalid username-password pair or user is disabled.")},
		{[]any{"AUTH", "wrong"}, wantErr("WRONGPASS invalid username-password pair or user is disabled.")},
		{[]any{"AUTH", "bob", "s3cret"}, wantErr("WRONGPASS")},
		{[]any{"PING"}, wantErr("NOAUTH")},
		{[]any{"AUTH", "s3cret"}, "OK"},
		{[]any{"PING"}, "PONG"},
		{[]any{"AUTH", "wrong"}, wantErr("WRONGPASS")},
		{[]any{"PING"}, "PONG"}, // a failed AUTH does not log the client out
	})
	c2 := newAdminClient(t, s, "")
	if err := c2.Do(context.Background(), "HELLO", "2", "AUTH", "default", "s3cret", "SETNAME", "n").Err(); err != nil {
		t.Errorf("HELLO 2 AUTH default s3cret SETNAME n: %v", err)
	}
	runScript(t, c2, []step{{[]any{"CLIENT", "GETNAME"}, "n"}})
	// go-redis sends AUTH on connect.
	runScript(t, newAdminClient(t, s, "s3cret"), []step{{[]any{"PING"}, "PONG"}})
	// QUIT needs no AUTH.
	if got := rawExchange(t, s, multibulk("QUIT")); got != "+OK\r\n" {
		t.Errorf("QUIT unauthenticated: %q", got)
	}
}
