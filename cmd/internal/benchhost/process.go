package benchhost

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Process is a server process a harness started, and stops by its PID.
type Process struct {
	Name string
	PID  int

	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
}

// started holds every started process, so that an interrupt stops them
// all, and the temporary directory of their data, which it then removes.
var started struct {
	sync.Mutex
	processes []*Process
	tempWork  string
}

// Start starts argv in dir ("" for the harness's own), with its stdout and
// stderr going to out. The process dies with the harness, and StopAll stops
// it.
func Start(name string, argv []string, dir string, out io.Writer) (*Process, error) {
	bin := argv[0]
	if strings.Contains(bin, "/") && !filepath.IsAbs(bin) {
		// A path relative to the harness's directory, not to dir: the
		// Makefile passes bin/shale-server.
		abs, err := filepath.Abs(bin)
		if err != nil {
			return nil, fmt.Errorf("start %s: %w", name, err)
		}
		bin = abs
	}
	cmd := exec.Command(bin, argv[1:]...)
	cmd.Dir = dir
	// One writer for both: os/exec then never writes to it from two
	// goroutines at once.
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &Process{Name: name, PID: cmd.Process.Pid, cmd: cmd, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(p.done)
	}()
	started.Lock()
	started.processes = append(started.processes, p)
	started.Unlock()
	return p, nil
}

// Args is the process's command line.
func (p *Process) Args() []string { return p.cmd.Args }

// Exited reports whether the process has exited.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Stop sends SIGTERM to the process, then SIGKILL if it has not exited
// within timeout, and returns how long it took to exit.
func (p *Process) Stop(timeout time.Duration) time.Duration {
	if p.Exited() {
		return 0
	}
	begin := time.Now()
	_ = syscall.Kill(p.PID, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(timeout):
		fmt.Fprintf(os.Stderr, "%s pid %d: still running %v after SIGTERM; sending SIGKILL\n", p.Name, p.PID, timeout)
		_ = syscall.Kill(p.PID, syscall.SIGKILL)
		<-p.done
	}
	return time.Since(begin)
}

// StopAll stops every process still running, newest first.
func StopAll(timeout time.Duration) {
	started.Lock()
	processes := started.processes
	started.processes = nil
	started.Unlock()
	for i := len(processes) - 1; i >= 0; i-- {
		processes[i].Stop(timeout)
	}
}

// TempWorkDir makes a temporary directory for the run's data, which an
// interrupt (StopOnSignal) removes too; the caller removes it when done.
func TempWorkDir(pattern string) (string, error) {
	dir, err := os.MkdirTemp("", pattern)
	if err != nil {
		return "", err
	}
	started.Lock()
	started.tempWork = dir
	started.Unlock()
	return dir, nil
}

// StopOnSignal makes SIGINT and SIGTERM stop every process (StopAll),
// remove the temporary work directory and exit with status 130.
func StopOnSignal(timeout time.Duration) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		sig := <-sigs
		fmt.Fprintf(os.Stderr, "%v: stopping the servers\n", sig)
		StopAll(timeout)
		started.Lock()
		work := started.tempWork
		started.Unlock()
		if work != "" {
			os.RemoveAll(work)
		}
		os.Exit(130)
	}()
}
