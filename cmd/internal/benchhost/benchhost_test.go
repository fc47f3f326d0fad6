package benchhost

import (
	"os"
	"testing"
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
