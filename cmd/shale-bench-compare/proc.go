package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

const (
	startTimeout = 30 * time.Second // until a server answers PING
	stopTimeout  = 60 * time.Second // from SIGTERM until SIGKILL; shale flushes its memtables
)

// server is one server process the harness started and must stop.
type server struct {
	Name string // "shale", "redis" or "ceiling"
	Addr string // 127.0.0.1:port
	PID  int
	Dir  string // shale's data directory (its WAL is there); "" for the others

	cmd  *exec.Cmd
	out  *bytes.Buffer // stdout and stderr, for error messages
	done chan struct{} // closed when the process has exited
}

// running holds every started server, so that an interrupt stops them all,
// and the temporary directory of their data, which it then removes.
var running struct {
	sync.Mutex
	servers  []*server
	tempWork string
}

// startServer starts bin with argv(port) on a free loopback port and waits
// until it answers PING. It retries when another process took the port
// between the probe and the server's bind.
func startServer(name, bin string, argv func(port int) []string) (*server, error) {
	for attempt := 1; ; attempt++ {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		s := &server{
			Name: name,
			Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
			out:  &bytes.Buffer{},
			done: make(chan struct{}),
		}
		s.cmd = exec.Command(bin, argv(port)...)
		// One writer for both: os/exec then never writes to it from two
		// goroutines at once.
		s.cmd.Stdout, s.cmd.Stderr = s.out, s.out
		// If the harness dies, its servers die with it.
		s.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := s.cmd.Start(); err != nil {
			return nil, fmt.Errorf("start %s: %w", name, err)
		}
		s.PID = s.cmd.Process.Pid
		go func() {
			_ = s.cmd.Wait()
			close(s.done)
		}()
		running.Lock()
		running.servers = append(running.servers, s)
		running.Unlock()
		err = s.waitReady()
		if err == nil {
			return s, nil
		}
		s.Stop()
		if attempt < 5 && strings.Contains(strings.ToLower(s.output()), "address already in use") {
			continue
		}
		return nil, fmt.Errorf("%s %v did not start: %w\n%s", name, s.cmd.Args, err, s.output())
	}
}

// output is what the server printed; call it only once the server has
// exited (after Stop), when nothing writes to the buffer any more.
func (s *server) output() string { return s.out.String() }

func (s *server) exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// waitReady polls with a raw PING until the server answers +PONG.
func (s *server) waitReady() error {
	deadline := time.Now().Add(startTimeout)
	for time.Now().Before(deadline) {
		if s.exited() {
			return errors.New("process exited")
		}
		if reply, err := rawPing(s.Addr); err == nil && reply == "+PONG" {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("no PONG within %v", startTimeout)
}

// Stop sends SIGTERM to the server's PID, then SIGKILL if it has not exited
// within stopTimeout.
func (s *server) Stop() {
	if s.exited() {
		return
	}
	_ = syscall.Kill(s.PID, syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(stopTimeout):
		fmt.Fprintf(os.Stderr, "%s pid %d: still running %v after SIGTERM; sending SIGKILL\n", s.Name, s.PID, stopTimeout)
		_ = syscall.Kill(s.PID, syscall.SIGKILL)
		<-s.done
	}
}

// stopAll stops every server still running, newest first.
func stopAll() {
	running.Lock()
	servers := running.servers
	running.servers = nil
	running.Unlock()
	for i := len(servers) - 1; i >= 0; i-- {
		servers[i].Stop()
	}
}

// freePort returns a loopback port that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// rawPing sends one PING without a client library and returns the reply
// line.
func rawPing(addr string) (string, error) {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("*1\r\n$4\r\nPING\r\n")); err != nil {
		return "", err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return strings.TrimRight(line, "\r\n"), err
}
