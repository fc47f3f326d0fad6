package server

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

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
