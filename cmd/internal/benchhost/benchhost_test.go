package benchhost

import (
	"os"
	"testing"
	"time"
)

func TestProcStatusBytes(t *testing.T) {
	rss, err := ProcStatusBytes(os.Getpid(), "VmRSS")
	if err != nil || rss < 1<<20 {
		t.Fatalf("VmRSS of this test: %d, %v; want at least 1 MiB", rss, err)
	}
	if _, err := ProcStatusBytes(os.Getpid(), "NoSuchField"); err == nil {
		t.Fatal("a missing field read without an error")
	}
}

func TestCommandLine(t *testing.T) {
	defer func(args []string) { os.Args = args }(os.Args)
	os.Args = []string{"/tmp/x/shale-bench-scale", "-sizes", "1,2", "-note", "two words"}
	if got, want := CommandLine(), `bin/shale-bench-scale -sizes 1,2 -note "two words"`; got != want {
		t.Fatalf("CommandLine() = %s, want %s", got, want)
	}
}

func TestParseStatCPUTicks(t *testing.T) {
	// Fields 14 and 15 (utime, stime) are 7 and 5; the command name holds
	// a space and a ')', as a thread's name may.
	tail := " S 1 1 1 0 -1 4194560 100 0 0 0 7 5 0 0 20 0 3 0 12345 1000 200 18446744073709551615"
	for _, tc := range []struct {
		name, stat string
		want       int64 // -1: an error
	}{
		{"plain", "4242 (shale-server)" + tail, 12},
		{"odd name", "4242 (a) b (c)" + tail, 12},
		{"no name", "4242 shale-server" + tail, -1},
		{"truncated", "4242 (shale-server) S 1 1 1 0 -1 4194560 100 0 0 0 7", -1},
		{"not a number", "4242 (x) S 1 1 1 0 -1 4194560 100 0 0 0 7 five 0", -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseStatCPUTicks(tc.stat)
			if tc.want < 0 {
				if err == nil {
					t.Fatalf("got %d, want an error", got)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %d, %v; want %d", got, err, tc.want)
			}
		})
	}
}

func TestProcCPUTime(t *testing.T) {
	before, err := ProcCPUTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	// Spin until the process's CPU time moves on by some ticks; the
	// deadline only bounds the test on a machine too busy to schedule it.
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		after, err := ProcCPUTime(os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		if after < before {
			t.Fatalf("CPU time went back from %v to %v", before, after)
		}
		if after-before >= 50*time.Millisecond {
			return
		}
	}
	t.Fatal("20 s of spinning added less than 50 ms of CPU time")
}
