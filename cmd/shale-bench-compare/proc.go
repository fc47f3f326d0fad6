package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/shaledb/shale/cmd/internal/benchhost"
)

const (
	startTimeout = 30 * time.Second // until a server answers PING
	stopTimeout  = 60 * time.Second // from SIGTERM until SIGKILL; shale flushes its memtables
)

// server is one server process the harness started and must stop.
type server struct {
	*benchhost.Process        // Name: "shale", "redis" or "ceiling"
	Addr               string // 127.0.0.1:port
	Dir                string // shale's data directory (its WAL is there); "" for the others

	out *bytes.Buffer // stdout and stderr, for error messages
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
		s := &server{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), out: &bytes.Buffer{}}
		if s.Process, err = benchhost.Start(name, append([]string{bin}, argv(port)...), "", s.out); err != nil {
			return nil, err
		}
		err = s.waitReady()
		if err == nil {
			return s, nil
		}
		s.Stop()
		if attempt < 5 && strings.Contains(strings.ToLower(s.output()), "address already in use") {
			continue
		}
		return nil, fmt.Errorf("%s %v did not start: %w\n%s", name, s.Args(), err, s.output())
	}
}

// output is what the server printed; call it only once the server has
// exited (after Stop), when nothing writes to the buffer any more.
func (s *server) output() string { return s.out.String() }

// waitReady polls with a raw PING until the server answers +PONG.
func (s *server) waitReady() error {
	deadline := time.Now().Add(startTimeout)
	for time.Now().Before(deadline) {
		if s.Exited() {
			return errors.New("process exited")
		}
		if reply, err := rawPing(s.Addr); err == nil && reply == "+PONG" {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("no PONG within %v", startTimeout)
}

// Stop stops the server by its PID (benchhost.Process.Stop).
func (s *server) Stop() { s.Process.Stop(stopTimeout) }

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
