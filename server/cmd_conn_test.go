package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/rs/zerolog"

	"github.com/shaledb/shale/conf"
)

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

func resp(args ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	return b.String()
}

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
		{[]any{"HELLO", "3"}, wantErr("NOPROTO unsupported protocol version")},
		{[]any{"HELLO", "1"}, wantErr("NOPROTO unsupported protocol version")},
		{[]any{"HELLO", "x"}, wantErr("ERR Protocol version is not an integer or out of range")},
		{[]any{"HELLO", "2", "AUTH", "default"}, wantErr("ERR Syntax error in HELLO option 'AUTH'")},
		{[]any{"HELLO", "2", "SETNAME"}, wantErr("ERR Syntax error in HELLO option 'SETNAME'")},
		{[]any{"HELLO", "2", "SETNAME", "a b"}, wantErr("ERR Client names cannot contain spaces, newlines or special characters.")},
		{[]any{"HELLO", "2", "AUTH", "bob", "x"}, wantErr("WRONGPASS")},
		{[]any{"HELLO", "2", "AUTH", "default", "x", "SETNAME", "h1"}, hello(id)},
		{[]any{"CLIENT", "GETNAME"}, "h1"},
	})
	if got := rawExchange(t, s, resp("QUIT")+resp("PING")); got != "+OK\r\n" {
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
	if got := rawExchange(t, s, resp("QUIT")); got != "+OK\r\n" {
		t.Errorf("QUIT unauthenticated: %q", got)
	}
}

func TestClientCommands(t *testing.T) {
	s, c := startAdminServer(t, nil)
	ctx := context.Background()
	other := newAdminClient(t, s, "")
	otherID, err := other.Do(ctx, "CLIENT", "ID").Int64()
	if err != nil {
		t.Fatal(err)
	}
	id, err := c.Do(ctx, "CLIENT", "ID").Int64()
	if err != nil {
		t.Fatal(err)
	}
	line := fmt.Sprintf(`^id=%d addr=127\.0\.0\.1:\d+ laddr=127\.0\.0\.1:\d+ fd=\d+ name=me age=\d+ idle=\d+ flags=N db=2 sub=0 psub=0 ssub=0 multi=-1 qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 rbs=0 rbp=0 obl=0 oll=0 omem=0 tot-mem=0 events=r cmd=client\|%%s user=default redir=-1 resp=2\n`, id)
	runScript(t, c, []step{
		{[]any{"CLIENT", "GETNAME"}, redis.Nil},
		{[]any{"CLIENT", "SETNAME", "a b"}, wantErr("ERR Client names cannot contain spaces, newlines or special characters.")},
		{[]any{"CLIENT", "SETNAME", "é"}, wantErr("ERR Client names cannot contain spaces")},
		{[]any{"CLIENT", "SETNAME", "me"}, "OK"},
		{[]any{"CLIENT", "GETNAME"}, "me"},
		{[]any{"CLIENT", "SETNAME", ""}, "OK"},
		{[]any{"CLIENT", "GETNAME"}, redis.Nil},
		{[]any{"CLIENT", "SETNAME", "me"}, "OK"},
		{[]any{"SELECT", "2"}, "OK"},
		{[]any{"CLIENT", "INFO"}, wantMatch(fmt.Sprintf(line, "info") + `$`)},
		{[]any{"CLIENT", "LIST", "ID", fmt.Sprint(id)}, wantMatch(fmt.Sprintf(line, "list") + `$`)},
		{[]any{"CLIENT", "LIST"}, wantMatch(fmt.Sprintf(`(?m)^id=%d .*\n^id=%d .*\n$`, min(id, otherID), max(id, otherID)))},
		{[]any{"CLIENT", "LIST", "TYPE", "NORMAL"}, wantMatch(`(?s)^id=.*\nid=.*\n$`)},
		{[]any{"CLIENT", "LIST", "TYPE", "pubsub"}, ""},
		{[]any{"CLIENT", "LIST", "TYPE", "foo"}, wantErr("ERR Unknown client type 'foo'")},
		{[]any{"CLIENT", "LIST", "TYPE"}, wantErr("ERR syntax error")},
		{[]any{"CLIENT", "LIST", "ID"}, wantErr("ERR syntax error")},
		{[]any{"CLIENT", "LIST", "ID", "x"}, wantErr("ERR Invalid client ID")},
		{[]any{"CLIENT", "LIST", "ID", "999999"}, ""},
		{[]any{"CLIENT", "LIST", "foo"}, wantErr("ERR syntax error")},
		{[]any{"CLIENT", "SETNAME"}, wantErr("ERR wrong number of arguments for 'client|setname' command")},
		{[]any{"CLIENT", "GETNAME", "x"}, wantErr("ERR wrong number of arguments for 'client|getname' command")},
		{[]any{"CLIENT", "Nope"}, wantErr("ERR unknown subcommand 'Nope'. Try CLIENT HELP.")},
		{[]any{"CLIENT"}, wantErr("ERR wrong number of arguments for 'client' command")},
	})
	help, err := c.Do(ctx, "CLIENT", "HELP").StringSlice()
	if err != nil || len(help) < 3 || !strings.HasPrefix(help[0], "CLIENT <subcommand>") || help[len(help)-2] != "HELP" {
		t.Errorf("CLIENT HELP: %q, %v", help, err)
	}
}

func TestCommandCommand(t *testing.T) {
	s, c := startAdminServer(t, nil)
	ctx := context.Background()

	n, err := c.Do(ctx, "COMMAND", "COUNT").Int64()
	if err != nil || n != int64(len(s.table)) {
		t.Fatalf("COMMAND COUNT = %d, %v; want %d", n, err, len(s.table))
	}
	all, err := c.Do(ctx, "COMMAND").Slice()
	if err != nil || len(all) != len(s.table) {
		t.Fatalf("COMMAND: %d entries, %v; want %d", len(all), err, len(s.table))
	}

	info, err := c.Do(ctx, "COMMAND", "INFO", "get", "NoSuch", "client", "client|setname").Slice()
	if err != nil || len(info) != 4 {
		t.Fatalf("COMMAND INFO: %#v, %v", info, err)
	}
	get := info[0].([]any)
	wantGet := []any{"get", int64(2), []any{"readonly", "fast"}, int64(1), int64(1), int64(1),
		[]any{"@read", "@string", "@fast"}, []any{}, []any{}, []any{}}
	if !reflect.DeepEqual(get, wantGet) {
		t.Errorf("COMMAND INFO get = %#v\nwant %#v", get, wantGet)
	}
	if info[1] != nil {
		t.Errorf("COMMAND INFO NoSuch = %#v, want nil", info[1])
	}
	client := info[2].([]any)
	if len(client) != 10 || client[0] != "client" || client[1] != int64(-2) || len(client[9].([]any)) != len(clientSubcommands) {
		t.Errorf("COMMAND INFO client = %#v", client)
	}
	wantSetName := []any{"client|setname", int64(3), []any{}, int64(0), int64(0), int64(0),
		[]any{"@connection", "@slow"}, []any{}, []any{}, []any{}}
	if !reflect.DeepEqual(info[3], wantSetName) {
		t.Errorf("COMMAND INFO client|setname = %#v\nwant %#v", info[3], wantSetName)
	}
	auth, err := c.Do(ctx, "COMMAND", "INFO", "auth").Slice()
	if err != nil || !reflect.DeepEqual(auth[0].([]any)[2], []any{"fast", "no_auth"}) {
		t.Errorf("COMMAND INFO auth flags: %#v, %v", auth, err)
	}

	docs, err := c.Do(ctx, "COMMAND", "DOCS", "hset", "nosuch", "client").Slice()
	if err != nil || len(docs) != 4 || docs[0] != "hset" || docs[2] != "client" {
		t.Fatalf("COMMAND DOCS: %#v, %v", docs, err)
	}
	wantHSet := []any{"summary", "Set the string value of a hash field", "since", "2.0.0", "group", "hash",
		"arguments", []any{
			[]any{"name", "key", "type", "key"},
			[]any{"name", "field value", "type", "string", "flags", []any{"multiple"}},
		}}
	if !reflect.DeepEqual(docs[1], wantHSet) {
		t.Errorf("COMMAND DOCS hset = %#v\nwant %#v", docs[1], wantHSet)
	}
	clientDoc := docs[3].([]any)
	if clientDoc[len(clientDoc)-2] != "subcommands" || len(clientDoc[len(clientDoc)-1].([]any)) != 2*len(clientSubcommands) {
		t.Errorf("COMMAND DOCS client = %#v", clientDoc)
	}
	allDocs, err := c.Do(ctx, "COMMAND", "DOCS").Slice()
	if err != nil || len(allDocs) != 2*len(s.table) {
		t.Errorf("COMMAND DOCS: %d entries, %v; want %d", len(allDocs), err, 2*len(s.table))
	}

	runScript(t, c, []step{
		{[]any{"COMMAND", "LIST", "FILTERBY", "PATTERN", "client*"}, []any{"client", "client|setname", "client|getname", "client|id", "client|info", "client|list", "client|kill", "client|pause", "client|unpause", "client|reply", "client|no-evict", "client|setinfo", "client|getredir", "client|help"}},
		{[]any{"COMMAND", "LIST", "FILTERBY", "MODULE", "x"}, []any{}},
		{[]any{"COMMAND", "LIST", "FILTERBY", "foo", "x"}, wantErr("ERR syntax error")},
		{[]any{"COMMAND", "LIST", "foo"}, wantErr("ERR syntax error")},
		{[]any{"COMMAND", "COUNT", "x"}, wantErr("ERR wrong number of arguments for 'command|count' command")},
		{[]any{"COMMAND", "foo"}, wantErr("ERR unknown subcommand 'foo'. Try COMMAND HELP.")},
	})
	conn, err := c.Do(ctx, "COMMAND", "LIST", "FILTERBY", "ACLCAT", "connection").StringSlice()
	if err != nil || !contains(conn, "ping") || !contains(conn, "client|list") || contains(conn, "get") {
		t.Errorf("COMMAND LIST FILTERBY ACLCAT connection = %q, %v", conn, err)
	}
	list, err := c.Do(ctx, "COMMAND", "LIST").StringSlice()
	if err != nil || !contains(list, "get") || !contains(list, "config|set") {
		t.Errorf("COMMAND LIST = %q, %v", list, err)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestCommandTable checks every row of the table and every subcommand.
func TestCommandTable(t *testing.T) {
	cmds := allCommands()
	buildTable(cmds) // panics on a duplicate
	for _, c := range cmds {
		t.Run(c.Name, func(t *testing.T) {
			if c.Name != strings.ToLower(c.Name) || c.Name == "" {
				t.Errorf("name %q is not lower-case", c.Name)
			}
			if c.Arity == 0 {
				t.Error("arity 0")
			}
			if why := accessFlagsProblem(c.Flags, c.FirstKey != 0 || movableKeys[c.Name] != nil); why != "" {
				t.Error(why)
			}
			if c.Run == nil {
				t.Error("no handler")
			}
			checkKeys(t, c.Arity, c.FirstKey, c.LastKey, c.Step)
			if _, ok := docs[c.Name]; !ok {
				t.Errorf("no docs entry for %q in cmd_conn.go", c.Name)
			}
			for _, sc := range c.Subcommands {
				full := c.Name + "|" + sc.Name
				if sc.Name != strings.ToLower(sc.Name) || strings.Contains(sc.Name, "|") {
					t.Errorf("subcommand %q is not lower-case", full)
				}
				if sc.Arity == 0 || sc.Arity == 1 || sc.Arity == -1 {
					t.Errorf("%s: arity %d must count the container and the subcommand", full, sc.Arity)
				}
				if sc.Run == nil {
					t.Errorf("%s: no handler", full)
				}
				if why := accessFlagsProblem(sc.Flags, false); why != "" {
					t.Errorf("%s: %s", full, why)
				}
				if _, ok := docs[full]; !ok {
					t.Errorf("no docs entry for %q in cmd_conn.go", full)
				}
			}
		})
	}
}

// accessFlagsProblem says what is wrong with a row's Write and ReadOnly
// flags, or returns "". A command with keys (a key range or a key finder)
// carries exactly one of them: the read-only mode and COMMAND INFO go by it.
// A keyless command may carry one when it reads or writes the whole keyspace
// (DBSIZE, FLUSHALL), or neither when it touches no data (PING, CONFIG), but
// never both.
func accessFlagsProblem(f Flags, keyed bool) string {
	write, readOnly := f&Write != 0, f&ReadOnly != 0
	switch {
	case write && readOnly:
		return "both Write and ReadOnly"
	case keyed && !write && !readOnly:
		return "a command with keys but neither Write nor ReadOnly"
	}
	return ""
}

// checkKeys checks that the key positions fit the arity, as Redis's
// COMMAND INFO requires.
func checkKeys(t *testing.T, arity, first, last, step int) {
	t.Helper()
	switch {
	case first == 0:
		if last != 0 || step != 0 {
			t.Errorf("no keys but last %d, step %d", last, step)
		}
	case first < 0 || (arity > 0 && first >= arity):
		// With a negative arity, a key may sit past the minimum (OBJECT
		// ENCODING key is -2 with its key at 2, as in Redis 6).
		t.Errorf("first key %d outside arity %d", first, arity)
	case step < 1:
		t.Errorf("step %d", step)
	case last > 0 && (last < first || (arity > 0 && last >= arity)):
		t.Errorf("last key %d outside arity %d", last, arity)
	case last < 0 && arity > 0 && arity+last < first:
		t.Errorf("last key %d outside arity %d", last, arity)
	}
}

// TestDocArgs checks that redis-cli rebuilds each hint from the
// arguments COMMAND DOCS reports.
func TestDocArgs(t *testing.T) {
	for name, d := range docs {
		if got := cliHint(docArgs(d.args)); got != d.args {
			t.Errorf("%s: redis-cli would show %q, want %q", name, got, d.args)
		}
		if d.summary == "" || d.since == "" || d.group == "" {
			t.Errorf("%s: incomplete docs %+v", name, d)
		}
	}
}

// cliHint is redis-cli 7.0's cliAddArgument for the arguments Shale reports.
func cliHint(args []docArg) string {
	parts := make([]string, len(args))
	for i, a := range args {
		p := a.name
		if a.multiple {
			p += " [" + a.name + " ...]"
		}
		if a.optional {
			p = "[" + p + "]"
		}
		parts[i] = p
	}
	return strings.Join(parts, " ")
}

// TestRedisCLI runs redis-cli against the server: single commands, and
// commands read from stdin (it then fetches COMMAND DOCS for HELP).
func TestRedisCLI(t *testing.T) {
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		t.Skip("redis-cli not installed")
	}
	s, _ := startAdminServer(t, nil)
	port := fmt.Sprint(s.Addr().(*net.TCPAddr).Port)
	for _, tt := range []struct {
		args  []string
		stdin string
		want  string
	}{
		{[]string{"ping"}, "", "PONG"},
		{[]string{"client", "setname", "cli"}, "", "OK"},
		{[]string{"config", "get", "databases"}, "", "databases\n16"},
		{[]string{"command", "count"}, "", fmt.Sprint(len(s.table))},
		{nil, "ping\necho hi\n", "PONG\nhi"},
	} {
		cmd := exec.Command(cli, append([]string{"-p", port}, tt.args...)...)
		cmd.Stdin = strings.NewReader(tt.stdin)
		out, err := cmd.Output()
		if err != nil || strings.TrimSpace(string(out)) != tt.want {
			t.Errorf("redis-cli %v <%q: %q, %v; want %q", tt.args, tt.stdin, out, err, tt.want)
		}
	}
}
