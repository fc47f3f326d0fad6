package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/shaledb/shale/cmd/internal/benchhost"
)

const (
	startTimeout = 10 * time.Minute // until a (re)started server serves a GET: Redis loads its whole RDB first
	stopTimeout  = 5 * time.Minute  // from SIGTERM until SIGKILL; Shale flushes its memtables
)

// server is one server process the harness starts, stops by PID and
// restarts on the same data.
type server struct {
	Name string // "shale" or "redis"
	Addr string
	Dir  string // data directory
	PID  int    // of the last launch

	argv []string
	log  string             // file of the process's stdout and stderr
	proc *benchhost.Process // the last launch; nil before the first
}

// launch starts the process and returns without waiting for it to serve.
func (s *server) launch() error {
	out, err := os.OpenFile(s.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer out.Close()
	if s.proc, err = benchhost.Start(s.Name, s.argv, s.Dir, out); err != nil {
		return err
	}
	s.PID = s.proc.PID
	return nil
}

// startTimes is how long a start took until the server answered PING and
// until it served a GET of a loaded key.
type startTimes struct {
	Ping, Get time.Duration
}

// start launches the server and waits until it answers PING and, when
// probeKey is not empty, until GET probeKey returns a value.
func (s *server) start(probeKey string) (startTimes, error) {
	var t startTimes
	begin := time.Now()
	if err := s.launch(); err != nil {
		return t, err
	}
	deadline := begin.Add(startTimeout)
	wait := func(what string, ok func() bool) error {
		for !ok() {
			if s.proc.Exited() {
				return fmt.Errorf("%s exited before %s; its log: %s\n%s", s.Name, what, s.log, tail(s.log))
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("%s: no %s within %v", s.Name, what, startTimeout)
			}
			time.Sleep(2 * time.Millisecond)
		}
		return nil
	}
	if err := wait("PONG", func() bool {
		reply, err := doString(s.Addr, time.Second, "PING")
		return err == nil && reply == "PONG"
	}); err != nil {
		return t, err
	}
	t.Ping = time.Since(begin)
	if probeKey != "" {
		if err := wait("GET "+probeKey, func() bool {
			v, err := doString(s.Addr, time.Second, "GET", probeKey)
			return err == nil && v != ""
		}); err != nil {
			return t, err
		}
	}
	t.Get = time.Since(begin)
	return t, nil
}

// Stop stops the server by its PID, if it runs, and returns how long it
// took to exit.
func (s *server) Stop() time.Duration {
	if s.proc == nil {
		return 0
	}
	return s.proc.Stop(stopTimeout)
}

// newShale prepares (does not start) shale-server on its own directory
// under work, with the default configuration plus backup_dir (for SAVE's
// checkpoint, which measureDisk removes again) and the TOML text extra.
func newShale(o options, work string, port int) (*server, error) {
	dir := filepath.Join(work, "shale")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	config := fmt.Sprintf("[storage]\nbackup_dir = %q\n\n%s\n", filepath.Join(dir, "backup"), o.ShaleConfig)
	confPath := filepath.Join(dir, "shale.toml")
	if err := os.WriteFile(confPath, []byte(config), 0o644); err != nil {
		return nil, err
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	return &server{
		Name: "shale", Addr: addr, Dir: dir, log: filepath.Join(dir, "server.log"),
		argv: []string{o.ShaleBin, "--bind", "127.0.0.1", "--port", strconv.Itoa(port),
			"--dir", filepath.Join(dir, "data"), "--config", confPath, "--log-level", "warn"},
	}, nil
}

// newRedis prepares redis-server without automatic persistence; the
// harness's SAVE writes the RDB that a restart loads.
func newRedis(o options, work string, port int) (*server, error) {
	dir := filepath.Join(work, "redis")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	return &server{
		Name: "redis", Addr: addr, Dir: dir, log: filepath.Join(dir, "server.log"),
		argv: []string{o.RedisBin, "--bind", "127.0.0.1", "--port", strconv.Itoa(port),
			"--save", "", "--appendonly", "no", "--dir", dir, "--dbfilename", redisRDB},
	}, nil
}

const redisRDB = "scale.rdb"

// pickPort returns base+offset when the user gave a port base, else a
// loopback port that was free a moment ago.
func pickPort(base, offset int) (int, error) {
	if base > 0 {
		return base + offset, nil
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// tail returns the last lines of a log file, for error messages.
func tail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-20):], "\n")
}

// rssSampler records the largest VmRSS of a server, four times a second,
// until stopped.
type rssSampler struct {
	stop chan struct{}
	done chan int64
}

func sampleRSS(s *server) *rssSampler {
	r := &rssSampler{stop: make(chan struct{}), done: make(chan int64, 1)}
	go func() {
		var peak int64
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			if b, err := benchhost.ProcStatusBytes(s.PID, "VmRSS"); err == nil {
				peak = max(peak, b)
			}
			select {
			case <-r.stop:
				r.done <- peak
				return
			case <-t.C:
			}
		}
	}()
	return r
}

// Stop ends the sampling and returns the peak, in bytes.
func (r *rssSampler) Stop() int64 {
	close(r.stop)
	return <-r.done
}

// dirBytes is the size of the regular files under dir, as du counts them
// (each hard-linked file once).
func dirBytes(dir string) (int64, error) {
	var total int64
	seen := map[uint64]bool{}
	err := filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, os.ErrNotExist) { // a file compaction just deleted
				return nil
			}
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil
			}
			return err
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			if seen[st.Ino] {
				return nil
			}
			seen[st.Ino] = true
		}
		total += fi.Size()
		return nil
	})
	return total, err
}

// freeDiskBytes is the space available to an unprivileged user on dir's
// filesystem.
func freeDiskBytes(dir string) (int64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return int64(st.Bavail) * st.Bsize, nil
}
