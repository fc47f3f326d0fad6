// Package benchhost is what the benchmark harnesses
// (cmd/shale-bench-compare, cmd/shale-bench-scale) share about their host:
// the server processes they start and stop by PID (process.go), and what
// their reports say of the machine, of the binaries they measure and of
// those processes, so that each report documents where its figures came
// from.
package benchhost

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Machine describes the machine and the software of a run.
type Machine struct {
	CPUs, CPUModel, Memory, Kernel, LoadAvg string
	RocksDB                                 string // the installed librocksdb-dev
	Go                                      string
}

// ReadMachine reads the machine's description now.
func ReadMachine() Machine {
	return Machine{
		CPUs:     CmdOutput("nproc"),
		CPUModel: procField("/proc/cpuinfo", "model name"),
		Memory:   memTotal(),
		Kernel:   readTrimmed("/proc/sys/kernel/osrelease"),
		LoadAvg:  readTrimmed("/proc/loadavg"),
		RocksDB:  "librocksdb-dev " + CmdOutput("dpkg-query", "-W", "-f", "${Version}", "librocksdb-dev"),
		Go:       runtime.Version(),
	}
}

// ShaleVersion is `bin --version` and the checkout's git commit, marked
// when the checkout has uncommitted changes.
func ShaleVersion(bin string) string {
	v := CmdOutput(bin, "--version")
	if commit := CmdOutput("git", "rev-parse", "--short", "HEAD"); commit != "?" {
		if dirty := CmdOutput("git", "status", "--porcelain", "--untracked-files=no"); dirty != "" && dirty != "?" {
			commit += " (with uncommitted changes)"
		}
		v += ", commit " + commit
	}
	return v
}

// LinksReleaseRocksDB reports whether bin, a dynamic executable, loads no
// shared librocksdb: it links the release build of `make rocksdb-release`
// statically. False when ldd cannot tell.
func LinksReleaseRocksDB(bin string) bool {
	out := CmdOutput("ldd", bin)
	return out != "?" && !strings.Contains(out, "librocksdb")
}

// RocksDBLinked says which RocksDB bin links: the shared library ldd
// resolves, or the static release build when ldd lists none.
func RocksDBLinked(bin string) string {
	out := CmdOutput("ldd", bin)
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

// CommandLine is how this run was invoked, as bin/<program> and its
// arguments, quoted where a shell needs it: for the report.
func CommandLine() string {
	args := append([]string{"bin/" + filepath.Base(os.Args[0])}, os.Args[1:]...)
	for i, a := range args {
		if strings.ContainsAny(a, " \t\n\"'$") {
			args[i] = fmt.Sprintf("%q", a)
		}
	}
	return strings.Join(args, " ")
}

// ProcStatusBytes reads a "VmRSS"-style field of /proc/PID/status, in
// bytes.
func ProcStatusBytes(pid int, field string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(b)) {
		name, rest, found := strings.Cut(line, ":")
		if !found || name != field {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			break
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		return kb << 10, err
	}
	return 0, fmt.Errorf("/proc/%d/status: no %s", pid, field)
}

// clockTicksPerSecond is the unit of the CPU times in /proc/PID/stat:
// USER_HZ, what `getconf CLK_TCK` prints, which the kernel fixes at 100 on
// every architecture Go runs Linux on, whatever its internal HZ.
const clockTicksPerSecond = 100

// ProcCPUTime is the CPU time process pid has used so far, in user and
// kernel mode together (utime + stime of /proc/PID/stat), all its threads
// included, those that have exited too. Its resolution is one clock tick,
// 10 ms: measure intervals of seconds.
func ProcCPUTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	ticks, err := parseStatCPUTicks(string(b))
	if err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return time.Duration(ticks) * time.Second / clockTicksPerSecond, nil
}

// parseStatCPUTicks returns utime + stime, fields 14 and 15 of a
// /proc/PID/stat line, in clock ticks. The second field, the command name
// in parentheses, may itself hold spaces and parentheses, so the fields
// are counted from the last ')'.
func parseStatCPUTicks(stat string) (int64, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, errors.New("no command name")
	}
	f := strings.Fields(stat[i+1:]) // f[0] is field 3, the state
	const utime, stime = 14 - 3, 15 - 3
	if len(f) <= stime {
		return 0, fmt.Errorf("%d fields after the command name, want more than %d", len(f), stime)
	}
	var sum int64
	for _, s := range []string{f[utime], f[stime]} {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, err
		}
		sum += n
	}
	return sum, nil
}

// CmdOutput runs a command and returns its trimmed output, or "?".
func CmdOutput(name string, args ...string) string {
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
// file, or "?".
func procField(path, name string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "?"
	}
	for line := range strings.Lines(string(b)) {
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
