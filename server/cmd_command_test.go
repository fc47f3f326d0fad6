package server

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"reflect"
	"strings"
	"testing"
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
