package server

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/shaledb/shale/conf"
)

// redisDump is what redis-server 7.0.15's FUNCTION DUMP returned for one
// library: the library's code (66 bytes, so a 14-bit length), RDB version
// 10, the CRC.
const redisDump = "\xf5@B#!lua name=x\nredis.register_function('f', function() return 1 end)" + "\n\x00" + "$\xdfoC\xa8\xd1n\xd9"

// redisLZFDump is redis-server 7.0.15's FUNCTION DUMP of a library whose
// code it compressed with LZF: the string starts 0xC3.
const redisLZFDump = "\xf5\xc3@i@\xed\x1f#!lua name=big\nredis.register_fu\x0cnction('f0', \xe0\x00\x0e\x19) return 0 end) -- padding\xc0\x07\xe0\x12I\x001\xe0\x0cI\x001\xe0*I\x002\xe0\x0cI\x002\xe0\x0eI\x01g\n\n\x00\x9aB\xd8\x0f\nt\xe6\x90"

func TestRedisCRC64(t *testing.T) {
	// The check value of CRC-64/Jones as Redis computes it (crc64.c's test).
	if got := redisCRC64([]byte("123456789")); got != 0xe9c6d914c4b8d9ca {
		t.Fatalf("crc64(123456789) = %#x, want 0xe9c6d914c4b8d9ca", got)
	}
}

// TestFunctionDumpGolden: Shale's payload of a library is the one Redis
// gives, byte for byte, and reads back.
func TestFunctionDumpGolden(t *testing.T) {
	code := "#!lua name=x\nredis.register_function('f', function() return 1 end)"
	b := appendRDBString([]byte{rdbOpFunction}, code)
	b = append(b, 10, 0)
	var crc [8]byte
	for i, v := 0, redisCRC64(b); i < 8; i, v = i+1, v>>8 {
		crc[i] = byte(v)
	}
	if got := string(append(b, crc[:]...)); got != redisDump {
		t.Fatalf("payload changed:\n got %q\nwant %q", got, redisDump)
	}
	codes, err := parseFunctionDump([]byte(redisDump))
	if err != nil || len(codes) != 1 || codes[0] != code {
		t.Fatalf("parseFunctionDump = %q, %v", codes, err)
	}
}

func TestParseFunctionDumpLZF(t *testing.T) {
	codes, err := parseFunctionDump([]byte(redisLZFDump))
	if err != nil || len(codes) != 1 {
		t.Fatalf("parseFunctionDump = %q, %v", codes, err)
	}
	var want strings.Builder
	want.WriteString("#!lua name=big\n")
	for i := range 3 {
		fmt.Fprintf(&want, "redis.register_function('f%d', function() return %d end) -- padding padding\n", i, i)
	}
	if codes[0] != want.String() {
		t.Fatalf("decompressed %q", codes[0])
	}
}

func TestRDBStringRoundTrip(t *testing.T) {
	for _, n := range []int{0, 1, 63, 64, 16383, 16384, 70000} {
		s := strings.Repeat("x", n)
		b := appendRDBString(nil, s)
		got, rest, ok := readRDBString(append(b, 'z'))
		if !ok || got != s || string(rest) != "z" {
			t.Fatalf("n=%d: %v, %d bytes, rest %q", n, ok, len(got), rest)
		}
	}
}

func TestParseFunctionDumpErrors(t *testing.T) {
	seal := func(body string) []byte {
		b := append([]byte(body), 10, 0)
		v := redisCRC64(b)
		for i := 0; i < 8; i, v = i+1, v>>8 {
			b = append(b, byte(v))
		}
		return b
	}
	corrupt := []byte(redisDump)
	corrupt[4] ^= 1
	tests := []struct {
		name    string
		payload []byte
		want    error
	}{
		{"empty", nil, errFunctionPayload},
		{"short", []byte("abc"), errFunctionPayload},
		{"bad crc", corrupt, errFunctionPayload},
		{"newer version", append([]byte("\x0b\x00"), make([]byte, 8)...), errFunctionPayload},
		{"not a function", seal("\x00abc"), errNotAFunction},
		{"pre-GA function", seal("\xf6abc"), errPreGAFunction},
		{"truncated string", seal("\xf5\x05ab"), errFunctionsPayload},
		{"truncated length", seal("\xf5\x40"), errFunctionsPayload},
		{"huge LZF", seal("\xf5\xc3\x01\x81\x7f\xff\xff\xff\xff\xff\xff\xffa"), errFunctionsPayload},
		{"bad LZF", seal("\xf5\xc3\x02\x05\x20\x00"), errFunctionsPayload},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := parseFunctionDump(tt.payload); err != tt.want {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
		})
	}
	if codes, err := parseFunctionDump(seal("")); err != nil || len(codes) != 0 {
		t.Fatalf("an empty dump: %q, %v", codes, err)
	}
}

// FuzzParseFunctionDump: a payload never panics, and never makes the
// parser allocate more than it bounds.
func FuzzParseFunctionDump(f *testing.F) {
	f.Add([]byte(redisDump))
	f.Add([]byte(redisLZFDump))
	f.Fuzz(func(t *testing.T, b []byte) {
		parseFunctionDump(b)
		if len(b) > 0 {
			readRDBString(b)
			lzfDecompress(b, 1024)
		}
	})
}

func TestLibraryName(t *testing.T) {
	tests := []struct {
		code, name string
		err        error
	}{
		{"#!lua name=x\n", "x", nil},
		{"#!LUA NAME=x_1\n", "x_1", nil},
		{"#!lua  name='q' \nbody", "q", nil},
		{"#!lua name=\"a\\\"\n", "", errInvalidLibMetadata}, // an escaped quote does not close
		{"return 1", "", errMissingLibMetadata},
		{"#!lua name=x", "", errInvalidLibMetadata},
		{"#!lua name=\"x\n", "", errInvalidLibMetadata},
		{"#!lua name=\"x\"y\n", "", errInvalidLibMetadata},
		{"#!lua\n", "", errLibNameNotGiven},
		{"#!lua name=a name=b\n", "", errLibNameRepeated},
		{"#!lua name=a b=c\n", "", replyError("ERR Invalid metadata value given: b=c")},
		{"#!lua name=a-b\n", "", errLibraryName},
		{"#!luax name=a-b\n", "", errLibraryName},
		{"#!luax name=a\n", "", replyError("ERR Engine 'luax' not found")},
	}
	for _, tt := range tests {
		name, err := libraryName(tt.code)
		if name != tt.name || err != tt.err {
			t.Errorf("libraryName(%q) = %q, %v; want %q, %v", tt.code, name, err, tt.name, tt.err)
		}
	}
}

// TestStoredLibraryThatFailsIsLeftOut: at start, a stored library that no
// longer loads is logged and left out, and the others load.
func TestStoredLibraryThatFailsIsLeftOut(t *testing.T) {
	dir := t.TempDir()
	s1, _ := startAdminServer(t, func(c *conf.Config) { c.Storage.Dir = dir })
	b := s1.st.NewBatch()
	for name, code := range map[string]string{
		"good":    "#!lua name=good\nredis.register_function('ok', function() return 'fine' end)",
		"broken":  "#!lua name=broken\nthis is not lua",
		"renamed": "#!lua name=other\nredis.register_function('o', function() return 1 end)",
		"taken":   "#!lua name=taken\nredis.register_function('OK', function() return 1 end)",
	} {
		b.PutLibrary(name, []byte(code))
	}
	if err := s1.st.Write(b); err != nil {
		t.Fatal(err)
	}
	b.Release()
	if err := s1.Close(); err != nil {
		t.Fatal(err)
	}
	s2, logs := startLoggedServer(t, func(c *conf.Config) { c.Storage.Dir = dir })
	c := newAdminClient(t, s2, "")
	ctx := context.Background()
	if got, err := c.Do(ctx, "FCALL", "ok", "0").Text(); err != nil || got != "fine" {
		t.Fatalf("FCALL ok = %q, %v", got, err)
	}
	if n := s2.functions.libCount.Load(); n != 1 {
		t.Fatalf("%d libraries loaded, want 1", n)
	}
	for _, lib := range []string{"broken", "renamed"} {
		if !strings.Contains(logs.String(), `"library":"`+lib+`"`) {
			t.Errorf("no log line for %s:\n%s", lib, logs.String())
		}
	}
	// Libraries load in key order: "taken" comes after "good", whose
	// function it names again.
	if !bytes.Contains([]byte(logs.String()), []byte(`"library":"taken"`)) {
		t.Errorf("no log line for taken:\n%s", logs.String())
	}
}

// TestFunctionsConcurrently runs FCALL, FUNCTION LOAD REPLACE, LIST, STATS
// and DUMP from several clients at once: under -race, it checks the
// locking of the libraries and their state (functionLibs).
func TestFunctionsConcurrently(t *testing.T) {
	s, c := startAdminServer(t, nil)
	ctx := context.Background()
	lib := func(n int) string {
		return fmt.Sprintf("#!lua name=conc\nredis.register_function('inc', function(keys) local i = 0 while i < 20000 do i = i + 1 end return redis.call('incrby', keys[1], %d) end)", n)
	}
	if err := c.Do(ctx, "FUNCTION", "LOAD", lib(1)).Err(); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl := newAdminClient(t, s, "")
			for i := range 25 {
				var err error
				switch (w + i) % 4 {
				case 0, 1:
					err = cl.Do(ctx, "FCALL", "inc", "1", "n").Err()
				case 2:
					err = cl.Do(ctx, "FUNCTION", "LOAD", "REPLACE", lib(1)).Err()
				case 3:
					for _, args := range [][]any{{"FUNCTION", "STATS"}, {"FUNCTION", "LIST"}, {"FUNCTION", "DUMP"}} {
						if err = cl.Do(ctx, args...).Err(); err != nil {
							break
						}
					}
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// Each client called inc 12 or 13 times: (w+i)%4 is 0 or 1 for half of i.
	if n, err := c.Get(ctx, "n").Int(); err != nil || n != 50 {
		t.Fatalf("n = %d, %v; want 50", n, err)
	}
}
