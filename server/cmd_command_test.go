package server

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/tidwall/redcon"
)

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
		[]any{"@read", "@string", "@fast"}, []any{}, []any{[]any{
			"flags", []any{"RO", "access"},
			"begin_search", []any{"type", "index", "spec", []any{"index", int64(1)}},
			"find_keys", []any{"type", "range", "spec", []any{"lastkey", int64(0), "keystep", int64(1), "limit", int64(0)}},
		}}, []any{}}
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
	wantSetName := []any{"client|setname", int64(3), []any{"noscript", "loading", "stale"}, int64(0), int64(0), int64(0),
		[]any{"@slow", "@connection"}, []any{}, []any{}, []any{}}
	if !reflect.DeepEqual(info[3], wantSetName) {
		t.Errorf("COMMAND INFO client|setname = %#v\nwant %#v", info[3], wantSetName)
	}
	auth, err := c.Do(ctx, "COMMAND", "INFO", "auth").Slice()
	if err != nil || !reflect.DeepEqual(auth[0].([]any)[2], []any{"noscript", "loading", "stale", "fast", "no_auth", "allow_busy"}) {
		t.Errorf("COMMAND INFO auth flags: %#v, %v", auth, err)
	}

	docs, err := c.Do(ctx, "COMMAND", "DOCS", "hset", "nosuch", "client").Slice()
	if err != nil || len(docs) != 4 || docs[0] != "hset" || docs[2] != "client" {
		t.Fatalf("COMMAND DOCS: %#v, %v", docs, err)
	}
	wantHSet := []any{"summary", "Set the string value of a hash field", "since", "2.0.0", "group", "hash",
		"complexity", "O(1) for each field/value pair added, so O(N) to add N field/value pairs when the command is called with multiple field/value pairs.",
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
		{[]any{"COMMAND", "LIST", "FILTERBY", "PATTERN", "client*"}, []any{"client", "client|setname", "client|getname", "client|id", "client|info", "client|list", "client|kill", "client|pause", "client|unpause", "client|reply", "client|no-evict", "client|setinfo", "client|getredir", "client|tracking", "client|caching", "client|trackinginfo", "client|unblock", "client|help"}},
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

// TestDocArgs checks that redis-cli rebuilds each hint from the
// arguments COMMAND DOCS reports.
func TestDocArgs(t *testing.T) {
	docs := map[string]cmdDoc{}
	for _, row := range allCommands() {
		docs[row.Name] = row.Doc
		for _, sc := range row.declaredSubcommands() {
			docs[row.Name+"|"+sc.Name] = sc.Doc
		}
	}
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

// respConn is a redcon.Conn that records the RESP2 replies written to it.
type respConn struct {
	redcon.Conn
	out strings.Builder
}

func (r *respConn) WriteArray(n int)         { fmt.Fprintf(&r.out, "*%d\r\n", n) }
func (r *respConn) WriteBulkString(s string) { fmt.Fprintf(&r.out, "$%d\r\n%s\r\n", len(s), s) }
func (r *respConn) WriteString(s string)     { fmt.Fprintf(&r.out, "+%s\r\n", s) }
func (r *respConn) WriteInt64(n int64)       { fmt.Fprintf(&r.out, ":%d\r\n", n) }

// TestWriteKeySpecs checks the encoding of each kind of key spec against
// Redis 7.0's COMMAND INFO (MIGRATE's KEYS keyword spec, ZUNIONSTORE's
// keynum spec, SORT's unknown one), which the rows of today do not all use.
func TestWriteKeySpecs(t *testing.T) {
	bulk := func(s string) string { return fmt.Sprintf("$%d\r\n%s\r\n", len(s), s) }
	for _, tc := range []struct {
		name string
		spec KeySpec
		want string
	}{
		{"keyword", KeySpec{Flags: KeyRW | KeyAccess | KeyDelete | KeyIncomplete, Begin: BeginSearch{Keyword: "KEYS", StartFrom: -2}, Find: FindKeys{LastKey: -1, KeyStep: 1}},
			"*6\r\n" + bulk("flags") + "*4\r\n+RW\r\n+access\r\n+delete\r\n+incomplete\r\n" +
				bulk("begin_search") + "*4\r\n" + bulk("type") + bulk("keyword") + bulk("spec") + "*4\r\n" + bulk("keyword") + bulk("KEYS") + bulk("startfrom") + ":-2\r\n" +
				bulk("find_keys") + "*4\r\n" + bulk("type") + bulk("range") + bulk("spec") + "*6\r\n" + bulk("lastkey") + ":-1\r\n" + bulk("keystep") + ":1\r\n" + bulk("limit") + ":0\r\n"},
		{"keynum", numKeysSpec(2, KeyRO|KeyAccess),
			"*6\r\n" + bulk("flags") + "*2\r\n+RO\r\n+access\r\n" +
				bulk("begin_search") + "*4\r\n" + bulk("type") + bulk("index") + bulk("spec") + "*2\r\n" + bulk("index") + ":2\r\n" +
				bulk("find_keys") + "*4\r\n" + bulk("type") + bulk("keynum") + bulk("spec") + "*6\r\n" + bulk("keynumidx") + ":0\r\n" + bulk("firstkey") + ":1\r\n" + bulk("keystep") + ":1\r\n"},
		{"unknown", unknownKeys(KeyOW|KeyUpdate, "For STORE"),
			"*8\r\n" + bulk("notes") + bulk("For STORE") + bulk("flags") + "*2\r\n+OW\r\n+update\r\n" +
				bulk("begin_search") + "*4\r\n" + bulk("type") + bulk("unknown") + bulk("spec") + "*0\r\n" +
				bulk("find_keys") + "*4\r\n" + bulk("type") + bulk("unknown") + bulk("spec") + "*0\r\n"},
	} {
		conn := &respConn{}
		writeKeySpecs(&Ctx{Conn: conn}, []KeySpec{tc.spec})
		if got, want := conn.out.String(), "*1\r\n"+tc.want; got != want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, want)
		}
	}
}
