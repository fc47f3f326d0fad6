package server

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/tidwall/redcon"
)

// failWriter fails every write, which makes redcon's Writer keep an error.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("broken") }

func TestBufferedLen(t *testing.T) {
	if !writerLayoutMatches {
		t.Fatal("redcon.Writer's fields changed: update writerMirror, or bufferedLen copies every reply buffer")
	}
	var out bytes.Buffer
	w := redcon.NewWriter(&out)
	check := func(when string) {
		t.Helper()
		if got, want := bufferedLen(w), len(w.Buffer()); got != want {
			t.Fatalf("%s: bufferedLen = %d, len(Buffer()) = %d", when, got, want)
		}
	}
	check("empty")
	w.WriteString("OK")
	w.WriteBulk(bytes.Repeat([]byte("x"), 1000))
	w.WriteInt(42)
	check("after writes")
	if bufferedLen(w) == 0 {
		t.Fatal("bufferedLen is 0 after writes")
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	check("after flush")

	bad := redcon.NewWriter(failWriter{})
	bad.WriteString("OK")
	_ = bad.Flush()
	if got, want := bufferedLen(bad), len(bad.Buffer()); got != want {
		t.Fatalf("after a failed flush: bufferedLen = %d, len(Buffer()) = %d", got, want)
	}
}

func TestSameLayoutNoticesChanges(t *testing.T) {
	type moved struct {
		b   []byte
		w   any
		err error
	}
	if sameLayout(reflect.TypeFor[redcon.Writer](), reflect.TypeFor[moved]()) {
		t.Fatal("sameLayout accepted reordered fields")
	}
}

func TestCommandLookup(t *testing.T) {
	table := buildTable(allCommands())
	for _, name := range []string{"set", "SET", "SeT", "hgetall", "ZRANGEBYSCORE"} {
		if c := table.lookup([]byte(name)); c == nil || c.Name != lower([]byte(name)) {
			t.Errorf("lookup(%q) = %v", name, c)
		}
	}
	for _, name := range []string{"", "nosuch", "set\x00", string(bytes.Repeat([]byte("a"), 100))} {
		if c := table.lookup([]byte(name)); c != nil {
			t.Errorf("lookup(%q) = %s, want none", name, c.Name)
		}
	}
	if n := testing.AllocsPerRun(100, func() { table.lookup([]byte("HSET")) }); n != 0 {
		t.Errorf("lookup allocates %v times", n)
	}
}
