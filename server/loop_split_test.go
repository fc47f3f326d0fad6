package server

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/rs/zerolog"
	"github.com/tidwall/redcon"
)

// The event loop splits the guard's canonical bytes into commands itself
// (wholeCommands, splitCommands): golden bytes, and a fuzz test that the
// split agrees with redcon's parser on whatever the guard lets through.

func TestSplitCommandsGolden(t *testing.T) {
	canon := []byte("*2\r\n$3\r\nGET\r\n$1\r\na\r\n*1\r\n$4\r\nPING\r\n*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$5\r\nhel")
	n := wholeCommands(canon)
	if want := len("*2\r\n$3\r\nGET\r\n$1\r\na\r\n*1\r\n$4\r\nPING\r\n"); n != want {
		t.Fatalf("wholeCommands = %d, want %d", n, want)
	}
	cmds := splitCommands(canon[:n], nil)
	if got := fmt.Sprintf("%q", argsOf(cmds)); got != `[["GET" "a"] ["PING"]]` {
		t.Fatalf("split %s", got)
	}
	if string(cmds[1].Raw) != "*1\r\n$4\r\nPING\r\n" {
		t.Errorf("Raw %q", cmds[1].Raw)
	}
	for _, bad := range []string{"*x\r\n", "*1\r\n$-1\r\n", "*1\r\n$1\r\nab\r\n"[:6], "$1\r\na\r\n"} {
		if n := wholeCommands([]byte(bad)); n != 0 {
			t.Errorf("wholeCommands(%q) = %d", bad, n)
		}
	}
}

func argsOf(cmds []redcon.Command) [][]string {
	var out [][]string
	for _, c := range cmds {
		var args []string
		for _, a := range c.Args {
			args = append(args, string(a))
		}
		out = append(out, args)
	}
	return out
}

func FuzzSplitCommands(f *testing.F) {
	f.Add([]byte("*2\r\n$3\r\nGET\r\n$1\r\na\r\n"), 5)
	f.Add([]byte("SET a \"b c\"\r\nPING\r\n*1\r\n$4\r\nPI"), 3)
	f.Add([]byte("*3\r\n$3\r\nSET\r\n$0\r\n\r\n$2\r\n\x00\xff\r\n"), 1)
	f.Fuzz(func(t *testing.T, in []byte, chunk int) {
		g := newGuardConn(nil, nil, nil, zerolog.Nop())
		chunk = max(1, chunk%64)
		var canon, all []byte // what the loop holds; all the guard let through
		var got [][]string
		for i := 0; i < len(in); i += chunk {
			var perr string
			var e error
			before := len(canon)
			canon, e = feed(g, in[i:min(i+chunk, len(in))], canon)
			all = append(all, canon[before:]...)
			if e != nil {
				perr = e.Error()
			}
			n := wholeCommands(canon)
			cmds := splitCommands(append([]byte(nil), canon[:n]...), nil)
			var raw []byte
			for _, c := range cmds {
				raw = append(raw, c.Raw...)
			}
			if !bytes.Equal(raw, canon[:n]) {
				t.Fatalf("Raw %q of commands %q", raw, canon[:n])
			}
			got = append(got, argsOf(cmds)...)
			canon = append(canon[:0], canon[n:]...)
			if perr != "" {
				break
			}
		}
		// redcon parses the same commands from the same bytes.
		rd := redcon.NewReader(bytes.NewReader(all))
		var want [][]string
		for {
			cmds, err := rd.ReadCommands()
			if err != nil {
				break
			}
			want = append(want, argsOf(cmds)...)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("split %q, redcon %q", got, want)
		}
	})
}

// feed passes b through g's guard onto canon, as the loop's read does.
func feed(g *guardConn, b, canon []byte) ([]byte, error) {
	out, perr := g.guard.Feed(b, canon)
	if perr != "" {
		return out, perr
	}
	return out, nil
}
