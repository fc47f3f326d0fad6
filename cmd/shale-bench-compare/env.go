package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
)

// environment describes the machine and the software versions of a run, so
// that the report documents itself.
type environment struct {
	CPUs, CPUModel, Memory, Kernel, LoadAvg string
	Redis, RedisBenchmark, RocksDB, Go      string
	Shale                                   string // shale-server --version and the git commit
	// ReleaseRocksDB: shale-server links the release build of `make
	// rocksdb-release` statically instead of Debian's shared library.
	ReleaseRocksDB bool
	// ShaleRocksDB and DebianlibRocksDB say which RocksDB each Shale
	// binary links (rocksdbLinked); DebianlibRocksDB is "" when the
	// Debian-library binary does not exist, and DebianlibMissing then
	// says why.
	ShaleRocksDB, DebianlibRocksDB, DebianlibMissing string
}

func collectEnvironment(o options) environment {
	e := environment{
		CPUs:           strings.TrimSpace(cmdOutput("nproc")),
		CPUModel:       procField("/proc/cpuinfo", "model name"),
		Memory:         memTotal(),
		Kernel:         readTrimmed("/proc/sys/kernel/osrelease"),
		LoadAvg:        readTrimmed("/proc/loadavg"),
		Redis:          cmdOutput(o.RedisBin, "--version"),
		RedisBenchmark: cmdOutput(o.BenchBin, "--version"),
		RocksDB:        "librocksdb-dev " + cmdOutput("dpkg-query", "-W", "-f", "${Version}", "librocksdb-dev"),
		ReleaseRocksDB: linksStatically(o.ShaleBin, "librocksdb"),
		Go:             runtime.Version(),
		Shale:          cmdOutput(o.ShaleBin, "--version"),
	}
	if e.ReleaseRocksDB {
		e.RocksDB = "release build (make rocksdb-release: DEBUG_LEVEL=0, static) of " + e.RocksDB
	}
	e.ShaleRocksDB = rocksdbLinked(o.ShaleBin)
	if _, err := os.Stat(o.DebianlibBin); err != nil {
		e.DebianlibMissing = err.Error()
	} else {
		e.DebianlibRocksDB = rocksdbLinked(o.DebianlibBin)
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

func readTrimmed(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(b))
}

// procField returns the value of the first "name: value" line of a /proc
// file.
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

// rocksdbLinked says which RocksDB the shale-server bin links: the shared
// library ldd resolves, or the static release build when ldd lists none.
func rocksdbLinked(bin string) string {
	out := cmdOutput("ldd", bin)
	if out == "?" {
		return "unknown (ldd failed)"
	}
	for line := range strings.Lines(out) {
		if strings.Contains(line, "librocksdb") {
			f := strings.Fields(line) // librocksdb.so.7.8 => /lib/.../librocksdb.so.7.8 (0x7f...)
			if n := len(f); n > 1 && strings.HasPrefix(f[n-1], "(0x") {
				f = f[:n-1]
			}
			return "Debian's shared library: " + strings.Join(f, " ")
		}
	}
	return "the release build, linked statically (make rocksdb-release)"
}

// linksStatically reports whether bin, a dynamic executable, does not load a
// shared library whose name contains lib; false when ldd cannot tell.
func linksStatically(bin, lib string) bool {
	out := cmdOutput("ldd", bin)
	return out != "?" && !strings.Contains(out, lib)
}
