package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
)

// environment describes the machine and the versions of a run, so that the
// report documents itself.
type environment struct {
	CPUs, CPUModel, Memory, Kernel, LoadAvg string
	Shale, Redis, RocksDB, Go               string
	// ReleaseRocksDB: shale-server links a release build of RocksDB
	// statically instead of Debian's shared library (built with assertions).
	ReleaseRocksDB bool
}

func collectEnvironment(o options) environment {
	e := environment{
		CPUs:     cmdOutput("nproc"),
		CPUModel: procField("/proc/cpuinfo", "model name"),
		Memory:   memTotal(),
		Kernel:   cmdOutput("uname", "-r"),
		LoadAvg:  cmdOutput("cat", "/proc/loadavg"),
		Shale:    cmdOutput(o.ShaleBin, "--version"),
		Redis:    cmdOutput(o.RedisBin, "--version"),
		RocksDB:  "librocksdb-dev " + cmdOutput("dpkg-query", "-W", "-f", "${Version}", "librocksdb-dev"),
		Go:       runtime.Version(),
	}
	// A dynamic executable that loads no librocksdb links it statically: the
	// release build.
	if out := cmdOutput("ldd", o.ShaleBin); out != "?" && !strings.Contains(out, "librocksdb") {
		e.ReleaseRocksDB = true
		e.RocksDB = "release build (DEBUG_LEVEL=0, static) of " + e.RocksDB
	}
	if commit := cmdOutput("git", "rev-parse", "--short", "HEAD"); commit != "?" {
		if dirty := cmdOutput("git", "status", "--porcelain", "--untracked-files=no"); dirty != "" && dirty != "?" {
			commit += " (with uncommitted changes)"
		}
		e.Shale += ", commit " + commit
	}
	return e
}

// cmdOutput runs a command and returns its trimmed output, or "?".
func cmdOutput(name string, args ...string) string {
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(out))
}

// procField returns the value of the first "name: value" line of a /proc
// file, or "?".
func procField(path, name string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "?"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, found := strings.Cut(line, ":"); found && strings.TrimSpace(k) == name {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}

// memTotal returns the machine's memory from /proc/meminfo, in GiB.
func memTotal() string {
	var kb int64
	if _, err := fmt.Sscanf(procField("/proc/meminfo", "MemTotal"), "%d kB", &kb); err != nil {
		return "?"
	}
	return fmt.Sprintf("%.1f GiB", float64(kb)/(1<<20))
}

// commandLine is how this run was invoked, for the report.
func commandLine() string {
	return strings.Join(append([]string{"bin/shale-bench-scale"}, quoteArgs(os.Args[1:])...), " ")
}

func quoteArgs(args []string) []string {
	q := make([]string, len(args))
	for i, a := range args {
		if strings.ContainsAny(a, " \t\n'\"$") {
			a = fmt.Sprintf("%q", a)
		}
		q[i] = a
	}
	return q
}
