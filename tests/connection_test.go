package tests

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

const (
	errNoAuth    = "NOAUTH Authentication required."
	errWrongPass = "WRONGPASS invalid username-password pair or user is disabled."
	errNoPass    = "ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?"
	errNoProto   = "NOPROTO unsupported protocol version"
	errIntRange  = "ERR value is out of range, value must between -2147483648 and 2147483647"
	errBadName   = "ERR Client names cannot contain spaces, newlines or special characters."
)

func TestConnectionBasics(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		conn := newConn(t, b.Addr)
		run(t, conn, []step{
			{cmd("PING"), "PONG"},
			{cmd("ping"), "PONG"},
			{cmd("PING", "hello world"), "hello world"},
			{cmd("PING", ""), ""},
			{cmd("PING", "a", "b"), errText("ERR wrong number of arguments for 'ping' command")},
			{cmd("ECHO", "x\x00y"), "x\x00y"},
			{cmd("ECHO", ""), ""},
			{cmd("ECHO"), errText("ERR wrong number of arguments for 'echo' command")},
			{cmd("ECHO", "a", "b"), errText("ERR wrong number of arguments for 'echo' command")},

			// SELECT is per connection.
			{cmd("SET", "k", "db0"), ok},
			{cmd("SELECT", 1), ok},
			{cmd("GET", "k"), isNil},
			{cmd("SET", "k", "db1"), ok},
			{cmd("DBSIZE"), 1},
			{cmd("SELECT", 0), ok},
			{cmd("GET", "k"), "db0"},
			{cmd("SELECT", 1), ok},
			{cmd("GET", "k"), "db1"},

			// SELECT reads its index as a C int: outside 32 bits is a range
			// error, not "DB index is out of range"; the selected db stays.
			{cmd("SELECT", "2147483648"), errText(errIntRange)},
			{cmd("SELECT", "-2147483649"), errText(errIntRange)},
			{cmd("SELECT", "4294967296"), errText(errIntRange)},
			{cmd("SELECT", "9223372036854775807"), errText(errIntRange)},
			{cmd("SELECT", "9223372036854775808"), errText("ERR value is not an integer or out of range")},
			{cmd("SELECT", "2147483647"), errText("ERR DB index is out of range")},
			{cmd("SELECT", "-1"), errText("ERR DB index is out of range")},
			{cmd("GET", "k"), "db1"},
		})
		// Another connection starts in db 0.
		run(t, c, []step{{cmd("GET", "k"), "db0"}})

		// AUTH with no password configured.
		run(t, c, []step{
			{cmd("AUTH", "x"), errText(errNoPass)},
			{cmd("AUTH", "a", "b", "c"), errText(errSyntax)},
			{cmd("AUTH"), errText("ERR wrong number of arguments for 'auth' command")},
		})

		// TIME
		reply := do(t, c, "TIME").([]any)
		if len(reply) != 2 {
			t.Fatalf("TIME returned %s, want [seconds, microseconds]", fmtVal(reply))
		}
		sec, err1 := strconv.ParseInt(reply[0].(string), 10, 64)
		usec, err2 := strconv.ParseInt(reply[1].(string), 10, 64)
		if err1 != nil || err2 != nil || usec < 0 || usec >= 1000000 {
			t.Fatalf("TIME returned %s, want two numeric strings", fmtVal(reply))
		}
		if d := time.Since(time.Unix(sec, usec*1000)); d < -5*time.Second || d > 5*time.Second {
			t.Fatalf("TIME is %v away from the local clock", d)
		}
	})
}

// TestConnectionQuit: QUIT answers +OK and the server closes the connection.
func TestConnectionQuit(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		r := dialRaw(t, b.Addr)
		r.send("*1\r\n$4\r\nPING\r\n*1\r\n$4\r\nQUIT\r\n")
		if got := r.readLine(); got != "+PONG\r\n" {
			t.Fatalf("PING: got %q", got)
		}
		if got := r.readLine(); got != "+OK\r\n" {
			t.Fatalf("QUIT: got %q, want +OK", got)
		}
		r.expectClosed()
		run(t, c, []step{{cmd("PING"), "PONG"}}) // the server is fine
	})
}

func TestConnectionAuth(t *testing.T) {
	t.Parallel()
	opts := backendOpts{
		RedisArgs: []string{"--requirepass", "secret"},
		Shale:     shaleOpts{Config: "[server]\nrequirepass = \"secret\"\n"},
	}
	forEachBackendOpts(t, opts, func(t *testing.T, c *redis.Client, b backend) {
		conn := newConn(t, b.Addr) // the harness's client has no password
		run(t, conn, []step{
			{cmd("GET", "k"), errText(errNoAuth)},
			{cmd("SET", "k", "v"), errText(errNoAuth)},
			{cmd("PING"), errText(errNoAuth)},
			{cmd("DBSIZE"), errText(errNoAuth)},
			// Unknown commands and wrong arity are reported before NOAUTH.
			{cmd("NOSUCHCOMMAND"), errText("ERR unknown command 'NOSUCHCOMMAND', with args beginning with: ")},
			{cmd("GET"), errText("ERR wrong number of arguments for 'get' command")},
			{cmd("AUTH", "wrong"), errText(errWrongPass)},
			{cmd("AUTH", "default", "wrong"), errText(errWrongPass)},
			{cmd("AUTH", "nobody", "secret"), errText(errWrongPass)},
			{cmd("GET", "k"), errText(errNoAuth)},
			{cmd("AUTH", "secret"), ok},
			{cmd("GET", "k"), isNil},
			{cmd("SET", "k", "v"), ok},
			{cmd("AUTH", "wrong"), errText(errWrongPass)},
			{cmd("GET", "k"), "v"}, // a failed AUTH does not log out
			{cmd("AUTH", "default", "secret"), ok},
			{cmd("GET", "k"), "v"},
		})

		// A fresh connection starts unauthenticated; QUIT needs no AUTH.
		r := dialRaw(t, b.Addr)
		r.send("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n")
		if got := r.readLine(); got != "-"+errNoAuth+"\r\n" {
			t.Fatalf("GET before AUTH: got %q", got)
		}
		r.send("*1\r\n$4\r\nQUIT\r\n")
		if got := r.readLine(); got != "+OK\r\n" {
			t.Fatalf("QUIT before AUTH: got %q", got)
		}
		r.expectClosed()

		// HELLO with AUTH authenticates, as go-redis does on connect.
		conn2 := newConn(t, b.Addr)
		run(t, conn2, []step{
			{cmd("HELLO", 2, "AUTH", "default", "wrong"), errText(errWrongPass)},
			{cmd("GET", "k"), errText(errNoAuth)},
			// SETNAME's name is checked as HELLO reads it: before AUTH,
			// which a bad name leaves untried.
			{cmd("HELLO", 2, "SETNAME", "a b"), errText(errBadName)},
			{cmd("HELLO", 2, "SETNAME", "a b", "AUTH", "default", "secret"), errText(errBadName)},
			{cmd("GET", "k"), errText(errNoAuth)},
			{cmd("HELLO", 2, "AUTH", "default", "secret"), hasHelloShape(2)},
			{cmd("GET", "k"), "v"},
		})

		// A client configured with the password just works.
		authed := newClient(b.Addr, "secret")
		defer authed.Close()
		run(t, authed, []step{
			{cmd("GET", "k"), "v"},
			{cmd("PING"), "PONG"},
		})

		// redis-cli with -a
		if got := cli(t, b.Addr, "GET", "k"); got != errNoAuth {
			t.Errorf("redis-cli GET without -a: %q", got)
		}
		if got := cli(t, b.Addr, "-a", "secret", "--no-auth-warning", "GET", "k"); got != "v" {
			t.Errorf("redis-cli -a secret GET k: %q, want v", got)
		}
	})
}

// hasHelloShape matches HELLO's RESP2 reply: a flat map with server,
// version, proto, id, mode, role and modules, in this order.
func hasHelloShape(proto int64) matcher {
	return matchFunc{fmt.Sprintf("<HELLO map, proto %d>", proto), func(got any) string {
		g, isArr := got.([]any)
		if !isArr || len(g) != 14 {
			return "want a flat map of 7 pairs"
		}
		for i, k := range []string{"server", "version", "proto", "id", "mode", "role", "modules"} {
			if g[2*i] != k {
				return fmt.Sprintf("key %d is %s, want %q", i, fmtVal(g[2*i]), k)
			}
		}
		if s, isStr := g[1].(string); !isStr || s == "" {
			return "server is not a string"
		}
		if s, isStr := g[3].(string); !isStr || s == "" {
			return "version is not a string"
		}
		if g[5] != proto {
			return "wrong proto"
		}
		if _, isInt := g[7].(int64); !isInt {
			return "id is not an integer"
		}
		if g[9] != "standalone" || g[11] != "master" {
			return "want mode standalone, role master"
		}
		if _, isArr := g[13].([]any); !isArr {
			return "modules is not an array"
		}
		return ""
	}}
}

func TestConnectionHello(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		conn := newConn(t, b.Addr)
		run(t, conn, []step{
			{cmd("HELLO", 2), hasHelloShape(2)},
			{cmd("HELLO"), hasHelloShape(2)},
			{cmd("HELLO", 4), errText(errNoProto)},
			{cmd("HELLO", 1), errText(errNoProto)},
			{cmd("HELLO", "abc"), errText("ERR Protocol version is not an integer or out of range")},
			{cmd("HELLO", 2, "SETNAME", "helloname"), hasHelloShape(2)},
			{cmd("CLIENT", "GETNAME"), "helloname"},
			{cmd("PING"), "PONG"}, // still RESP2
		})
		// HELLO 3 switches to RESP3 (go-redis reads its map as a map), and
		// HELLO 2 back.
		run(t, conn, []step{
			{cmd("HELLO", 3), matchFunc{"<HELLO map, proto 3>", func(got any) string {
				if m, ok := got.(map[any]any); !ok || m["proto"] != int64(3) {
					return fmt.Sprintf("want a map with proto 3, got %#v", got)
				}
				return ""
			}}},
			{cmd("CLIENT", "INFO"), containsAll(" resp=3")},
			{cmd("HELLO", 2), hasHelloShape(2)},
			{cmd("CLIENT", "INFO"), containsAll(" resp=2")},
			{cmd("PING"), "PONG"},
		})
		// HELLO's id is CLIENT ID.
		hello := do(t, conn, "HELLO", 2).([]any)
		if id := doInt(t, conn, "CLIENT", "ID"); hello[7] != id {
			t.Errorf("HELLO id %v, CLIENT ID %d", hello[7], id)
		}
	})
}

func TestConnectionClient(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		conn := newConn(t, b.Addr)
		run(t, conn, []step{
			{cmd("CLIENT", "GETNAME"), isNil},
			{cmd("CLIENT", "SETNAME", "worker-1"), ok},
			{cmd("CLIENT", "GETNAME"), "worker-1"},
			{cmd("client", "getname"), "worker-1"},
			{cmd("CLIENT", "SETNAME", "a b"), errText("ERR Client names cannot contain spaces, newlines or special characters.")},
			{cmd("CLIENT", "SETNAME", "a\nb"), errText("ERR Client names cannot contain spaces, newlines or special characters.")},
			{cmd("CLIENT", "GETNAME"), "worker-1"},
			{cmd("CLIENT", "ID"), anyInt},
			{cmd("CLIENT", "INFO"), containsAll("id=", " name=worker-1 ", " db=0 ")},
			{cmd("CLIENT", "LIST"), containsAll("id=", "name=worker-1")},
			{cmd("CLIENT", "FOO"), errText("ERR unknown subcommand 'FOO'. Try CLIENT HELP.")},
			{cmd("CLIENT"), errText("ERR wrong number of arguments for 'client' command")},
			{cmd("CLIENT", "SETNAME", ""), ok}, // clears the name
			{cmd("CLIENT", "GETNAME"), isNil},
		})
		id := doInt(t, conn, "CLIENT", "ID")
		info := doStr(t, conn, "CLIENT", "INFO")
		if !strings.HasPrefix(info, fmt.Sprintf("id=%d ", id)) {
			t.Errorf("CLIENT INFO %q does not start with id=%d", info, id)
		}
		other := newConn(t, b.Addr)
		if otherID := doInt(t, other, "CLIENT", "ID"); otherID == id {
			t.Errorf("two connections share CLIENT ID %d", id)
		}
		do(t, other, "CLIENT", "SETNAME", "other")
		list := doStr(t, conn, "CLIENT", "LIST")
		lines := strings.Split(strings.TrimSpace(list), "\n")
		if len(lines) < 2 || !strings.Contains(list, fmt.Sprintf("id=%d ", id)) || !strings.Contains(list, "name=other") {
			t.Errorf("CLIENT LIST does not show both connections:\n%s", list)
		}
		for _, l := range lines {
			if !strings.HasPrefix(l, "id=") || !strings.Contains(l, " name=") {
				t.Errorf("CLIENT LIST line %q lacks id= or name=", l)
			}
		}
	})
}

func TestConnectionCommandInfo(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		// COMMAND INFO: name, arity, flags, first key, last key, step, ...
		commandInfo := func(name string, arity, first, last, step int64) matcher {
			return matchFunc{fmt.Sprintf("<COMMAND INFO row %s %d %d %d %d>", name, arity, first, last, step), func(got any) string {
				row, isArr := got.([]any)
				if !isArr || len(row) < 6 {
					return "want an array of at least 6"
				}
				if row[0] != name || row[1] != arity || row[3] != first || row[4] != last || row[5] != step {
					return "name, arity or key positions differ"
				}
				if _, isArr := row[2].([]any); !isArr {
					return "flags are not an array"
				}
				return ""
			}}
		}
		run(t, c, []step{
			{cmd("COMMAND", "COUNT"), atLeast(1)},
			{cmd("COMMAND", "INFO", "get"), []any{commandInfo("get", 2, 1, 1, 1)}},
			{cmd("COMMAND", "INFO", "GET", "set", "nosuch", "hset", "mset"), []any{
				commandInfo("get", 2, 1, 1, 1),
				commandInfo("set", -3, 1, 1, 1),
				nil,
				commandInfo("hset", -4, 1, 1, 1),
				commandInfo("mset", -3, 1, -1, 2),
			}},
			{cmd("COMMAND", "INFO", "ping"), []any{commandInfo("ping", -1, 0, 0, 0)}},
			{cmd("COMMAND", "DOCS", "get"), matchFunc{"<non-empty docs for get>", func(got any) string {
				arr, isArr := got.([]any)
				if !isArr || len(arr) != 2 || arr[0] != "get" {
					return "want [\"get\", [...]]"
				}
				if doc, isArr := arr[1].([]any); !isArr || len(doc) == 0 {
					return "empty docs"
				}
				return ""
			}}},
			{cmd("COMMAND", "FOO"), errText("ERR unknown subcommand 'FOO'. Try COMMAND HELP.")},
		})
		hasFlag := func(name, flag string) bool {
			row := do(t, c, "COMMAND", "INFO", name).([]any)[0].([]any)
			for _, f := range row[2].([]any) {
				if f == flag {
					return true
				}
			}
			return false
		}
		for _, name := range []string{"zunionstore", "sintercard", "lmpop", "blmpop", "sort", "sort_ro", "zinter"} {
			if !hasFlag(name, "movablekeys") {
				t.Errorf("COMMAND INFO %s: no movablekeys flag", name)
			}
		}
		if hasFlag("get", "movablekeys") {
			t.Errorf("COMMAND INFO get: movablekeys flag")
		}
		run(t, c, []step{
			{cmd("COMMAND", "GETKEYS", "GET", "k"), []any{"k"}},
			{cmd("COMMAND", "GETKEYS", "mset", "a", 1, "b"), []any{"a", "b"}},
			{cmd("COMMAND", "GETKEYS", "blpop", "a", "b", 0), []any{"a", "b"}},
			{cmd("COMMAND", "GETKEYS", "zunionstore", "d", 2, "a", "b", "WEIGHTS", 1, 2), []any{"d", "a", "b"}},
			{cmd("COMMAND", "GETKEYS", "zdiffstore", "d", 1, "a"), []any{"d", "a"}},
			{cmd("COMMAND", "GETKEYS", "zunion", 2, "a", "b"), []any{"a", "b"}},
			{cmd("COMMAND", "GETKEYS", "sintercard", 2, "a", "b", "LIMIT", 1), []any{"a", "b"}},
			{cmd("COMMAND", "GETKEYS", "blmpop", 0, 2, "a", "b", "LEFT"), []any{"a", "b"}},
			{cmd("COMMAND", "GETKEYS", "bzmpop", 0, 1, "a", "MIN"), []any{"a"}},
			{cmd("COMMAND", "GETKEYS", "sort", "k", "BY", "w:*", "LIMIT", 0, 1, "GET", "h:*", "STORE", "dst"), []any{"k", "dst"}},
			{cmd("COMMAND", "GETKEYS", "sort", "k", "STORE"), []any{"k"}},
			{cmd("COMMAND", "GETKEYS", "sort_ro", "k", "BY", "x"), []any{"k"}},
			{cmd("COMMAND", "GETKEYS", "object", "encoding", "k"), []any{"k"}},
			{cmd("COMMAND", "GETKEYS", "zunionstore", "d", "abc", "a"), errText("ERR Invalid arguments specified for command")},
			{cmd("COMMAND", "GETKEYS", "zunionstore", "d", 3, "a"), errText("ERR Invalid arguments specified for command")},
			{cmd("COMMAND", "GETKEYS", "lmpop", -1, "a", "LEFT"), errText("ERR Invalid arguments specified for command")},
			{cmd("COMMAND", "GETKEYS", "get", "a", "b"), errText("ERR Invalid number of arguments specified for command")},
			{cmd("COMMAND", "GETKEYS", "nosuch", "a"), errText("ERR Invalid command specified")},
			{cmd("COMMAND", "GETKEYS", "config", "get", "x"), errText("ERR The command has no key arguments")},
			{cmd("COMMAND", "GETKEYS", "get"), errText("ERR wrong number of arguments for 'command|getkeys' command")},
		})
		// COMMAND COUNT agrees with the full COMMAND listing.
		all := do(t, c, "COMMAND").([]any)
		if n := doInt(t, c, "COMMAND", "COUNT"); int64(len(all)) != n {
			t.Errorf("COMMAND lists %d commands, COMMAND COUNT says %d", len(all), n)
		}
	})
}

func TestConnectionInfo(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("INFO"), containsAll("# Server\r\n", "# Keyspace\r\n", "redis_version:")},
			{cmd("INFO", "keyspace"), "# Keyspace\r\n"},
			{cmd("MSET", "a", "1", "b", "2"), ok},
			{cmd("SET", "e", "v", "EX", 100), ok},
			{cmd("HSET", "h", "f", "v"), 1},
			{cmd("EXPIRE", "h", 100), 1},
			{cmd("INFO", "keyspace"), matchesRe(`^# Keyspace\r\ndb0:keys=4,expires=2,avg_ttl=\d+\r\n$`)},
			{cmd("INFO", "server"), containsAll("# Server\r\n", "redis_version:", "tcp_port:"+strconv.Itoa(b.Proc.Port)+"\r\n")},
			{cmd("DEL", "e"), 1},
			{cmd("INFO", "KEYSPACE"), matchesRe(`^# Keyspace\r\ndb0:keys=3,expires=1,avg_ttl=\d+\r\n$`)},
		})
		conn := newConn(t, b.Addr)
		run(t, conn, []step{
			{cmd("SELECT", 3), ok},
			{cmd("SET", "x", "1"), ok},
			{cmd("INFO", "keyspace"), matchesRe(`^# Keyspace\r\ndb0:keys=3,expires=1,avg_ttl=\d+\r\ndb3:keys=1,expires=0,avg_ttl=0\r\n$`)},
		})
	})
}

func TestConnectionRedisCli(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		for _, tc := range []struct {
			args []string
			want string
		}{
			{[]string{"PING"}, "PONG"},
			{[]string{"SET", "a", "1"}, "OK"},
			{[]string{"GET", "a"}, "1"},
			{[]string{"INCR", "a"}, "2"},
			{[]string{"GET", "nope"}, ""},
			{[]string{"HSET", "h", "f", "v"}, "1"},
			{[]string{"HGETALL", "h"}, "f\nv"},
			{[]string{"GET", "h"}, wrongType},
			{[]string{"-n", "2", "SET", "a", "db2"}, "OK"},
			{[]string{"-n", "2", "GET", "a"}, "db2"},
			{[]string{"DBSIZE"}, "2"},
		} {
			if got := cli(t, b.Addr, tc.args...); got != tc.want {
				t.Errorf("redis-cli %q: got %q, want %q", tc.args, got, tc.want)
			}
		}
	})
}
