package server

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

func TestAppendMonitorLine(t *testing.T) {
	at := time.Unix(1700000000, 123456789)
	tests := []struct {
		name string
		db   int
		args []string
		want string
	}{
		{"plain", 0, []string{"set", "k", "v"}, `+1700000000.123456 [0 127.0.0.1:5000] "set" "k" "v"` + "\r\n"},
		{"escapes", 3, []string{"SET", "a b", "q\"\\\n\r\t\a\b", "\x00\x7f\xff~"},
			`+1700000000.123456 [3 127.0.0.1:5000] "SET" "a b" "q\"\\\n\r\t\a\b" "\x00\x7f\xff~"` + "\r\n"},
		{"empty arg", 15, []string{"echo", ""}, `+1700000000.123456 [15 127.0.0.1:5000] "echo" ""` + "\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(appendMonitorLine(nil, at, tt.db, "127.0.0.1:5000", bytesArgs(tt.args...)))
			if got != tt.want {
				t.Fatalf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
	// Microseconds are zero-padded.
	if got := string(appendMonitorLine(nil, time.Unix(5, 42000), 0, "a", bytesArgs("ping"))); got != "+5.000042 [0 a] \"ping\"\r\n" {
		t.Fatalf("padding: %q", got)
	}
}

func bytesArgs(args ...string) [][]byte {
	out := make([][]byte, len(args))
	for i, a := range args {
		out[i] = []byte(a)
	}
	return out
}

func TestRedactArgs(t *testing.T) {
	tests := []struct{ in, want string }{
		{"auth pass", "auth (redacted)"},
		{"AUTH user pass", "AUTH (redacted) (redacted)"},
		{"hello 3 AUTH user pass SETNAME x", "hello 3 AUTH (redacted) (redacted) SETNAME x"},
		{"hello 3 auth user", "hello 3 auth user"},
		{"set auth pass", "set auth pass"},
	}
	for _, tt := range tests {
		in := bytesArgs(strings.Fields(tt.in)...)
		got := redactArgs(in)
		var words []string
		for _, a := range got {
			words = append(words, string(a))
		}
		if strings.Join(words, " ") != tt.want {
			t.Errorf("redactArgs(%q) = %q, want %q", tt.in, words, tt.want)
		}
		if strings.Join(strings.Fields(tt.in), " ") != string(joinArgs(in)) {
			t.Errorf("redactArgs(%q) changed its input", tt.in)
		}
	}
}

func joinArgs(args [][]byte) []byte {
	var words []string
	for _, a := range args {
		words = append(words, string(a))
	}
	return []byte(strings.Join(words, " "))
}

func TestSlowlogArgs(t *testing.T) {
	long := strings.Repeat("x", 130)
	many := make([]string, 40)
	for i := range many {
		many[i] = fmt.Sprint(i)
	}
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{"short", []string{"get", "k"}, []string{"get", "k"}},
		{"128 bytes kept", []string{"set", "k", long[:128]}, []string{"set", "k", long[:128]}},
		{"129 bytes cut", []string{"set", "k", long[:129]}, []string{"set", "k", long[:128] + "... (1 more bytes)"}},
		{"32 args kept", many[:32], many[:32]},
		{"33 args cut", many[:33], append(append([]string{}, many[:31]...), "... (2 more arguments)")},
		{"40 args cut", many, append(append([]string{}, many[:31]...), "... (9 more arguments)")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := slowlogArgs(bytesArgs(tt.in...))
			if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", bytesArgs(tt.want...)) {
				t.Fatalf("got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestSlowlogRing(t *testing.T) {
	var l slowlog
	l.init(0, 3, testLogger(t))
	c := &Client{addr: "127.0.0.1:1"}
	for i := range 5 {
		l.add(c, "get", bytesArgs("get", fmt.Sprint(i)), int64(i))
	}
	got := l.newest(-1)
	if len(got) != 3 || got[0].id != 4 || got[2].id != 2 || string(got[0].args[1]) != "4" {
		t.Fatalf("newest(-1) = %+v", got)
	}
	if got := l.newest(1); len(got) != 1 || got[0].id != 4 {
		t.Fatalf("newest(1) = %+v", got)
	}
	l.setMaxLen(1)
	if got := l.newest(-1); len(got) != 1 || got[0].id != 4 {
		t.Fatalf("after setMaxLen(1): %+v", got)
	}
	l.setMaxLen(0)
	l.add(c, "get", bytesArgs("get", "x"), 1)
	if l.len() != 0 {
		t.Fatalf("max len 0 keeps %d entries", l.len())
	}
	l.setMaxLen(3)
	l.add(c, "get", bytesArgs("get", "y"), 1)
	l.reset()
	if l.len() != 0 {
		t.Fatal("reset kept entries")
	}
	l.add(c, "get", bytesArgs("get", "z"), 1)
	if got := l.newest(1); got[0].id != 7 {
		t.Fatalf("ids restart after reset: %d, want 7 as in Redis", got[0].id)
	}
}

func TestLatencyBuckets(t *testing.T) {
	var st commandStats
	for _, usec := range []int64{0, 10, 11, 999, 1000, 1001, 10_000_000, 10_000_001, 1 << 40} {
		st.record(usec, false)
	}
	want := map[int]int64{0: 2, 1: 1, 6: 2, 7: 1, 18: 1, 19: 2}
	for i := range st.buckets {
		if got := st.buckets[i].Load(); got != want[i] {
			t.Errorf("bucket %d (le %v) = %d, want %d", i, boundOrInf(i), got, want[i])
		}
	}
	if st.calls.Load() != 9 {
		t.Fatalf("calls = %d", st.calls.Load())
	}
}

func boundOrInf(i int) any {
	if i < len(latencyBoundsUsec) {
		return latencyBoundsUsec[i]
	}
	return "+Inf"
}

func TestOpsSampler(t *testing.T) {
	var o opsSampler
	t0 := time.Unix(1000, 0)
	o.sample([3]int64{0, 0, 0}, t0)
	for i := 1; i <= 16; i++ {
		o.sample([3]int64{int64(i) * 100, int64(i) * 1024, int64(i) * 2048}, t0.Add(time.Duration(i)*opsSampleEvery))
	}
	if got := o.perSecond(); got != 1000 {
		t.Fatalf("perSecond = %d, want 1000", got)
	}
	if in, out := o.kbps(); in != 10 || out != 20 {
		t.Fatalf("kbps = %v, %v; want 10, 20", in, out)
	}
	o.reset()
	o.sample([3]int64{5, 5, 5}, t0.Add(time.Hour)) // a baseline only
	if got := o.perSecond(); got != 0 {
		t.Fatalf("perSecond after reset = %d", got)
	}
}

func TestErrorStats(t *testing.T) {
	var st serverStats
	st.errors = make(map[string]*atomic.Int64)
	st.countError("ERR syntax error")
	st.countError("ERR value is not an integer")
	st.countError("WRONGTYPE Operation against a key")
	st.countError("NOSPACE")
	got := fmt.Sprint(st.errorCounts())
	if want := "[{ERR 2} {NOSPACE 1} {WRONGTYPE 1}]"; got != want {
		t.Fatalf("errorCounts = %s, want %s", got, want)
	}
	for i := range 2 * maxErrorCodes {
		st.countError(fmt.Sprintf("CODE%d text", i))
	}
	if n := len(st.errorCounts()); n != maxErrorCodes {
		t.Fatalf("%d codes tracked, want the cap %d", n, maxErrorCodes)
	}
	if n := st.errorReplies.Load(); n != 4+2*maxErrorCodes {
		t.Fatalf("errorReplies = %d", n)
	}
}

func testLogger(t *testing.T) zerolog.Logger { return zerolog.New(zerolog.NewTestWriter(t)) }
