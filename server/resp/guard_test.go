package resp

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/redcon"

	"github.com/shaledb/shale/conf"
)

// defaultLimits are conf.Default's, which the server starts with.
func defaultLimits() Limits {
	d := conf.Default().Server
	return Limits{MaxBulk: int64(d.ProtoMaxBulkLen), MaxMultibulk: d.ProtoMaxMultibulkLen, QueryBuffer: int64(d.ClientQueryBufferLimit)}
}

// feedAll runs in through a guard in chunks of size chunk and returns what
// redcon would see and the first error.
func feedAll(in string, chunk int, authed bool) (string, Error) {
	g := Guard{NeedsAuth: func() bool { return !authed }, Limits: defaultLimits}
	var out []byte
	b := []byte(in)
	for len(b) > 0 {
		k := min(chunk, len(b))
		var err Error
		if out, err = g.Feed(b[:k], out); err != "" {
			return string(out), err
		}
		b = b[k:]
	}
	return string(out), ""
}

func TestGuard(t *testing.T) {
	ping := "*1\r\n$4\r\nPING\r\n"
	tests := []struct {
		name    string
		in      string
		authed  bool
		want    string // what redcon sees
		wantErr Error
	}{
		{"command", "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n", true, "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n", ""},
		{"pipeline", strings.Repeat(ping, 20), true, strings.Repeat(ping, 20), ""},
		{"empty bulk", "*2\r\n$3\r\nGET\r\n$0\r\n\r\n", true, "*2\r\n$3\r\nGET\r\n$0\r\n\r\n", ""},
		{"inline", "PING\r\n", true, ping, ""},
		{"inline without CR", "PING\n", true, ping, ""},
		{"inline quotes", "SET \"a b\" 'c\\'d' \"\\x41\\n\"\r\n", true, "*4\r\n$3\r\nSET\r\n$3\r\na b\r\n$3\r\nc'd\r\n$2\r\nA\n\r\n", ""},
		{"empty inline line", "\r\n  \r\n" + ping, true, ping, ""},
		{"empty multibulks", "*0\r\n*-1\r\n" + ping, true, ping, ""},
		{"unbalanced quotes", "SET \"a\r\n", true, "", "ERR Protocol error: unbalanced quotes in request"},
		{"quote not followed by space", "SET \"a\"b\r\n", true, "", "ERR Protocol error: unbalanced quotes in request"},
		{"good then bad", ping + "*1\r\n$-1\r\n", true, ping + "*1\r\n", "ERR Protocol error: invalid bulk length"},
		{"bulk too long", "*1\r\n$536870913\r\n", true, "*1\r\n", "ERR Protocol error: invalid bulk length"},
		{"bulk overflow", "*1\r\n$9223372036854775807\r\n", true, "*1\r\n", "ERR Protocol error: invalid bulk length"},
		{"bad bulk digits", "*1\r\n$abc\r\n", true, "*1\r\n", "ERR Protocol error: invalid bulk length"},
		{"multibulk too long", "*2147483648\r\n", true, "", "ERR Protocol error: invalid multibulk length"},
		{"bad multibulk", "*x\r\n", true, "", "ERR Protocol error: invalid multibulk length"},
		{"not a dollar", "*1\r\n:5\r\n", true, "*1\r\n", "ERR Protocol error: expected '$', got ':'"},
		{"unauthenticated multibulk", "*11\r\n", false, "", "ERR Protocol error: unauthenticated multibulk length"},
		{"unauthenticated bulk", "*1\r\n$16385\r\n", false, "*1\r\n", "ERR Protocol error: unauthenticated bulk length"},
		{"inline too big", strings.Repeat("a", protoInlineMax+1), true, "", "ERR Protocol error: too big inline request"},
		{"bulk CRLF taken as is", "*1\r\n$4\r\nPINGxy", true, ping, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The result must not depend on how the bytes are chunked.
			for _, chunk := range []int{1, 3, len(tt.in)} {
				got, err := feedAll(tt.in, chunk, tt.authed)
				if got != tt.want || err != tt.wantErr {
					t.Fatalf("chunk %d: got %q, %q; want %q, %q", chunk, got, err, tt.want, tt.wantErr)
				}
			}
		})
	}
}

// TestGuardLimits runs the configurable limits at small values.
func TestGuardLimits(t *testing.T) {
	lim := Limits{MaxBulk: 10, MaxMultibulk: 3, QueryBuffer: 20}
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr Error
	}{
		{"bulk at the limit", "*1\r\n$10\r\n0123456789\r\n", "*1\r\n$10\r\n0123456789\r\n", ""},
		{"bulk over the limit", "*1\r\n$11\r\n", "*1\r\n", "ERR Protocol error: invalid bulk length"},
		{"multibulk at the limit", "*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n", "*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n", ""},
		{"multibulk over the limit", "*4\r\n", "", "ERR Protocol error: invalid multibulk length"},
		// Parsed arguments leave the query buffer: 3 x 10 bytes pass a limit of 20.
		{"command over the query limit", "*3\r\n$10\r\n0123456789\r\n$10\r\n0123456789\r\n$10\r\n0123456789\r\n",
			"*3\r\n$10\r\n0123456789\r\n$10\r\n0123456789\r\n$10\r\n0123456789\r\n", ""},
		{"line over the query limit", "*1\r\n$000000000000000000001\r\n", "*1\r\n", ErrQueryBuffer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, chunk := range []int{1, 3, len(tt.in)} {
				g := Guard{Limits: func() Limits { return lim }}
				var out []byte
				var err Error
				for b := []byte(tt.in); len(b) > 0 && err == ""; {
					k := min(chunk, len(b))
					out, err = g.Feed(b[:k], out)
					b = b[k:]
				}
				if string(out) != tt.want || err != tt.wantErr {
					t.Fatalf("chunk %d: got %q, %q; want %q, %q", chunk, out, err, tt.want, tt.wantErr)
				}
			}
		})
	}
}

func TestSplitArgs(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		ok   bool
	}{
		{"a b  c", []string{"a", "b", "c"}, true},
		{`"a\tb" 'x y'`, []string{"a\tb", "x y"}, true},
		{`"\x4g"`, []string{"x4g"}, true},
		{`""`, []string{""}, true},
		{"a\x00b", []string{"a"}, true},
		{`'a`, nil, false},
		{`'a\'b' "c\"d"`, []string{"a'b", `c"d`}, true},
		{`'\n' "it's"`, []string{`\n`, "it's"}, true},
		{`'a'b`, nil, false},
		{`"a"b`, nil, false},
	}
	for _, tt := range tests {
		got, ok := splitArgs([]byte(tt.in))
		if ok != tt.ok || len(got) != len(tt.want) {
			t.Fatalf("splitArgs(%q) = %q, %v", tt.in, got, ok)
		}
		for i := range got {
			if string(got[i]) != tt.want[i] {
				t.Fatalf("splitArgs(%q)[%d] = %q, want %q", tt.in, i, got[i], tt.want[i])
			}
		}
	}
}

func FuzzGuard(f *testing.F) {
	f.Add([]byte("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"), 3)
	f.Add([]byte("*1\r\n$99999999999\r\n"), 1)
	f.Add([]byte("SET \"a\\x41\" 'b'\r\n"), 2)
	f.Fuzz(func(t *testing.T, b []byte, chunk int) {
		chunk = max(1, chunk%64)
		whole, errWhole := feedAll(string(b), len(b)+1, true)
		parts, errParts := feedAll(string(b), chunk, true)
		if whole != parts || errWhole != errParts {
			t.Fatalf("chunking changed the result: %q %q vs %q %q", whole, errWhole, parts, errParts)
		}
		if errWhole == "" && bytes.Count([]byte(whole), []byte("\r\n")) == 0 && len(whole) > 0 {
			t.Fatalf("output without a line end: %q", whole)
		}
	})
}

// encodeMultibulk is the canonical RESP form of one command.
func encodeMultibulk(args [][]byte) []byte {
	out := []byte("*" + strconv.Itoa(len(args)) + "\r\n")
	for _, a := range args {
		out = append(out, "$"+strconv.Itoa(len(a))+"\r\n"...)
		out = append(out, a...)
		out = append(out, "\r\n"...)
	}
	return out
}

// parseRedcon parses canonical RESP with redcon's own reader, as the server
// does after the guard.
func parseRedcon(t *testing.T, b []byte) [][][]byte {
	t.Helper()
	rd := redcon.NewReader(bytes.NewReader(b))
	var cmds [][][]byte
	for {
		cmd, err := rd.ReadCommand()
		if err == io.EOF {
			return cmds
		}
		if err != nil {
			t.Fatalf("redcon cannot parse the guard's output %q: %v", b, err)
		}
		args := make([][]byte, len(cmd.Args))
		for i, a := range cmd.Args {
			args[i] = bytes.Clone(a)
		}
		cmds = append(cmds, args)
	}
}

// FuzzRequest is the whole request path up to the dispatcher: arbitrary
// bytes through the guard, in arbitrary chunks, then redcon's parser. What
// the guard lets through must parse into non-empty commands, and be its own
// canonical form: fed again, it comes out unchanged.
func FuzzRequest(f *testing.F) {
	for _, s := range []string{
		"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n",
		"*3\r\n$3\r\nSET\r\n$4\r\nk\x00\r\n\r\n$2\r\n\r\n\r\n", // NUL and CRLF inside a key and a value
		"*1\r\n$-1\r\n", "*-5\r\n", "*1\r\n$9223372036854775808\r\n", "*99999999999999999999\r\n",
		"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n*1\r\n$4\r\nPI", // a command cut short
		"PING\r\nSET a \"b\\x00c\" 'd\\'e'\r\n\r\n",
		"\"unbalanced\r\n", "*1\r\n+OK\r\n", "*0\r\n*1\r\n$0\r\n\r\n",
	} {
		f.Add([]byte(s), uint8(1))
	}
	f.Fuzz(func(t *testing.T, b []byte, chunk uint8) {
		out, _ := feedAll(string(b), max(1, int(chunk)), true)
		cmds := parseRedcon(t, []byte(out))
		var canonical []byte
		for _, args := range cmds {
			if len(args) == 0 {
				t.Fatalf("an empty command reached redcon from %q", b)
			}
			canonical = append(canonical, encodeMultibulk(args)...)
		}
		// What redcon parsed is exactly what the guard emitted; the guard
		// may cut its output short only at the end (an unfinished command).
		if !strings.HasPrefix(out, string(canonical)) {
			t.Fatalf("guard output %q is not canonical: re-encoded %q", out, canonical)
		}
		again, err := feedAll(string(canonical), len(canonical)+1, true)
		if again != string(canonical) || err != "" {
			t.Fatalf("canonical input %q changed: %q, %q", canonical, again, err)
		}
	})
}

// FuzzBinaryArgs sends arbitrary arguments (binary, with NUL, CR and LF
// bytes, empty ones) as a multibulk in arbitrary chunks: redcon must get
// them back byte for byte.
func FuzzBinaryArgs(f *testing.F) {
	f.Add([]byte("SET\x00key\r\nwith crlf\x00\x00"), byte(0), uint8(3))
	f.Add([]byte("a|b||c"), byte('|'), uint8(1))
	f.Add([]byte("\r\n$5\r\n*1\r\n"), byte('$'), uint8(2))
	f.Fuzz(func(t *testing.T, b []byte, sep byte, chunk uint8) {
		args := bytes.Split(b, []byte{sep})
		in := encodeMultibulk(args)
		out, err := feedAll(string(in), max(1, int(chunk)), true)
		if err != "" {
			t.Fatalf("%q: %q", in, err)
		}
		cmds := parseRedcon(t, []byte(out))
		if len(cmds) != 1 || len(cmds[0]) != len(args) {
			t.Fatalf("sent %q, redcon parsed %q", args, cmds)
		}
		for i := range args {
			if !bytes.Equal(cmds[0][i], args[i]) {
				t.Fatalf("argument %d: sent %q, got %q", i, args[i], cmds[0][i])
			}
		}
	})
}
