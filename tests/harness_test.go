// Package tests holds Shale's end-to-end tests. The real shale-server binary
// is built once per run, when the first test needs it. Each test starts its
// servers as processes on free loopback ports, each with its own data
// directory, and drives them over the wire with go-redis and, where a user
// would, redis-cli.
//
// Most scripts run twice through forEachBackend: once against a real
// redis-server (which checks the expectations themselves) and once against
// shale. Tests of restarts, crashes and compaction run against shale only.
//
// Run with `go test -count=1 ./tests/` (the Makefile's `make e2e` adds -race).
// While cmd/shale-server does not build yet, SHALE_SKIP_BUILD=1 skips every
// shale backend and runs the redis half alone. SHALE_BUILD_FLAGS adds flags to
// the `go build` of the server, e.g. SHALE_BUILD_FLAGS=-race, and SHALE_BIN
// names a prebuilt binary to use instead of building one.
package tests

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

const (
	redisServerBin    = "/usr/bin/redis-server"
	redisCliBin       = "/usr/bin/redis-cli"
	redisBenchmarkBin = "/usr/bin/redis-benchmark"

	startTimeout = 20 * time.Second // until PING answers
	stopTimeout  = 20 * time.Second // from SIGTERM until SIGKILL
	stepTimeout  = 60 * time.Second // one command of a script
)

// The shale-server binary is built once per run, on first use, into binDir.
// Building lazily keeps `go test -run TestLayering` (make lint) and runs of
// redis-only subtests free of the cgo build.
var (
	skipShale  bool   // SHALE_SKIP_BUILD=1
	binDir     string // temp dir for the binary, removed after the run
	buildOnce  sync.Once
	shaleBin   string // set once built
	shaleBuild error  // the build's error, if any
)

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	if os.Getenv("SHALE_SKIP_BUILD") == "1" {
		skipShale = true
		fmt.Fprintln(os.Stderr, "tests: SHALE_SKIP_BUILD=1: shale backends are skipped, redis backends run")
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "shale-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "tests:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	binDir = dir
	return m.Run()
}

// shaleBinary builds ../cmd/shale-server on the first call and returns its
// path. When the build fails, it prints the compiler's output once and every
// test that needs shale fails with it.
func shaleBinary(t testing.TB) string {
	t.Helper()
	if skipShale {
		t.Skip("SHALE_SKIP_BUILD=1: shale-server is not built")
	}
	buildOnce.Do(func() {
		if bin := os.Getenv("SHALE_BIN"); bin != "" {
			shaleBin = bin
			return
		}
		bin := filepath.Join(binDir, "shale-server")
		start := time.Now()
		if shaleBuild = buildShale(bin); shaleBuild != nil {
			fmt.Fprintf(os.Stderr, "tests: building ../cmd/shale-server failed: %v\n", shaleBuild)
			fmt.Fprintln(os.Stderr, "tests: set SHALE_SKIP_BUILD=1 to run the redis backends only")
			return
		}
		shaleBin = bin
		fmt.Fprintf(os.Stderr, "tests: built shale-server in %v\n", time.Since(start).Round(time.Millisecond))
	})
	if shaleBuild != nil {
		t.Fatalf("building ../cmd/shale-server failed (SHALE_SKIP_BUILD=1 runs the redis backends only): %v", shaleBuild)
	}
	return shaleBin
}

// buildShale runs `go build -o bin ../cmd/shale-server` with the inherited
// environment. The Makefile exports CGO_LDFLAGS; when the tests run without
// make, the Makefile's default is supplied so that grocksdb links.
func buildShale(bin string) error {
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = "/usr/local/go/bin/go"
	}
	args := []string{"build", "-o", bin}
	args = append(args, strings.Fields(os.Getenv("SHALE_BUILD_FLAGS"))...)
	args = append(args, "../cmd/shale-server")
	cmd := exec.Command(goBin, args...)
	cmd.Env = os.Environ()
	if _, set := os.LookupEnv("CGO_LDFLAGS"); !set {
		cmd.Env = append(cmd.Env, "CGO_LDFLAGS=-lrocksdb -lstdc++ -lm -lz -lsnappy -llz4 -lzstd -lbz2")
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%v\n%s", err, out)
	}
	return nil
}

// lockedBuffer collects a server's stdout and stderr.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// serverProc is one running server process (shale-server or redis-server).
type serverProc struct {
	t      testing.TB
	Name   string // "shale" or "redis"
	Addr   string // 127.0.0.1:port
	Port   int
	Dir    string // data directory
	Cmd    *exec.Cmd
	PID    int
	Client *redis.Client // Protocol 2, no retries; closed by Stop and Kill

	out     *lockedBuffer // stdout and stderr
	done    chan struct{} // closed when the process has exited
	waitErr error         // valid once done is closed
}

// Output returns what the process has written to stdout and stderr so far.
func (p *serverProc) Output() string { return p.out.String() }

func (p *serverProc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Stop sends SIGTERM and waits up to 20s, then SIGKILLs. It fails the test
// if the server needed SIGKILL or exited with an error: a graceful shutdown
// is part of the contract.
func (p *serverProc) Stop() {
	p.t.Helper()
	if p.Client != nil {
		p.Client.Close()
	}
	if p.exited() {
		return
	}
	if err := p.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		// The process may have just exited (a SHUTDOWN the test sent),
		// before its waiter noticed.
		select {
		case <-p.done:
			return
		case <-time.After(5 * time.Second):
			p.t.Errorf("%s pid %d: SIGTERM: %v", p.Name, p.PID, err)
		}
	}
	select {
	case <-p.done:
		if p.waitErr != nil {
			p.t.Errorf("%s pid %d: exit after SIGTERM: %v", p.Name, p.PID, p.waitErr)
		}
	case <-time.After(stopTimeout):
		p.t.Errorf("%s pid %d: still running %v after SIGTERM; sending SIGKILL", p.Name, p.PID, stopTimeout)
		p.Kill()
	}
}

// Kill sends SIGKILL and waits for the process to exit.
func (p *serverProc) Kill() {
	p.t.Helper()
	if p.Client != nil {
		p.Client.Close()
	}
	if p.exited() {
		return
	}
	_ = p.Cmd.Process.Signal(syscall.SIGKILL)
	select {
	case <-p.done:
	case <-time.After(stopTimeout):
		p.t.Errorf("%s pid %d: did not exit after SIGKILL", p.Name, p.PID)
	}
}

// shaleOpts configures startShale.
type shaleOpts struct {
	Config string   // TOML text, written to a file and passed with --config
	Dir    string   // data directory; t.TempDir() when empty (restarts pass the old one)
	Flags  []string // extra command-line flags
}

// startShale starts shale-server on a free port, waits until it answers PING
// and stops it at cleanup. It skips the test when SHALE_SKIP_BUILD=1.
func startShale(t testing.TB, opts shaleOpts) *serverProc {
	t.Helper()
	bin := shaleBinary(t)
	dir := opts.Dir
	if dir == "" {
		dir = t.TempDir()
	}
	var confPath string
	if opts.Config != "" {
		confPath = filepath.Join(t.TempDir(), "shale.toml")
		if err := os.WriteFile(confPath, []byte(opts.Config), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return startProc(t, "shale", bin, dir, func(port int) []string {
		args := []string{"--bind", "127.0.0.1", "--port", strconv.Itoa(port), "--dir", dir, "--log-level", "warn"}
		if confPath != "" {
			args = append(args, "--config", confPath)
		}
		return append(args, opts.Flags...)
	})
}

// startRedis starts a real redis-server without persistence on a free port,
// with extra arguments such as "--requirepass", "secret".
func startRedis(t testing.TB, extra ...string) *serverProc {
	t.Helper()
	if _, err := os.Stat(redisServerBin); err != nil {
		t.Fatalf("%s is missing (make deps installs it): %v", redisServerBin, err)
	}
	dir := t.TempDir()
	return startProc(t, "redis", redisServerBin, dir, func(port int) []string {
		args := []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1",
			"--save", "", "--appendonly", "no", "--dir", dir}
		return append(args, extra...)
	})
}

// startProc starts bin with argv(port) on a free port, retrying when another
// process took the port between our probe and the server's bind.
func startProc(t testing.TB, name, bin, dir string, argv func(port int) []string) *serverProc {
	t.Helper()
	const attempts = 5
	for attempt := 1; ; attempt++ {
		port := freePort(t)
		// Relative paths (Shale's default backup_dir, Redis's dump.rdb of
		// a SAVE) land in a directory of the test's, not in tests/.
		p, err := launch(t, name, bin, dir, t.TempDir(), port, argv(port))
		if err == nil {
			return p
		}
		out := p.Output()
		if attempt < attempts && portTaken(out) {
			t.Logf("%s: port %d taken, retrying", name, port)
			continue
		}
		t.Fatalf("%s %v did not start: %v\noutput:\n%s", name, p.Cmd.Args, err, out)
	}
}

// Restart starts p's command line again once p has exited: the same port,
// data directory and flags, as an operator restarts a server (Sentinel
// knows a server by its address). It retries for a few seconds while the
// port is still taken.
func (p *serverProc) Restart(t testing.TB) *serverProc {
	t.Helper()
	if !p.exited() {
		t.Fatalf("%s pid %d: restart while it runs", p.Name, p.PID)
	}
	deadline := time.Now().Add(startTimeout)
	for {
		np, err := launch(t, p.Name, p.Cmd.Path, p.Dir, p.Cmd.Dir, p.Port, p.Cmd.Args[1:])
		if err == nil {
			return np
		}
		out := np.Output()
		if time.Now().Before(deadline) && portTaken(out) {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		t.Fatalf("%s %v did not restart on port %d: %v\noutput:\n%s", p.Name, np.Cmd.Args, p.Port, err, out)
	}
}

// portTaken reports whether a server's output says its port was in use.
func portTaken(out string) bool {
	return strings.Contains(strings.ToLower(out), "address already in use")
}

// launch starts bin with args, in cmdDir, as the server name that listens on
// port and keeps its data in dir, and waits until it answers. It stops the
// server at cleanup; when it does not start, it kills it and returns the
// error, and the process for its output.
func launch(t testing.TB, name, bin, dir, cmdDir string, port int, args []string) (*serverProc, error) {
	p := &serverProc{
		t:    t,
		Name: name,
		Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
		Port: port,
		Dir:  dir,
		out:  &lockedBuffer{},
		done: make(chan struct{}),
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = cmdDir
	cmd.Stdout = p.out
	cmd.Stderr = p.out
	// If the test binary dies, so does the server.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	p.Cmd, p.PID = cmd, cmd.Process.Pid
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	if err := p.waitReady(); err != nil {
		p.Kill()
		return p, err
	}
	p.Client = newClient(p.Addr, "")
	t.Cleanup(func() {
		p.Stop()
		if t.Failed() {
			t.Logf("%s pid %d (%s) output:\n%s", name, p.PID, p.Addr, p.Output())
		}
	})
	return p, nil
}

// freePort returns a loopback port that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// waitReady polls with a raw PING until the server answers (+PONG, or
// -NOAUTH when a password is required), the process exits, or 20s pass.
func (p *serverProc) waitReady() error {
	deadline := time.Now().Add(startTimeout)
	for {
		if p.exited() {
			return fmt.Errorf("exited early: %v", p.waitErr)
		}
		if line, err := rawPing(p.Addr); err == nil {
			// The answer must come from our process, not from another
			// test's server that won a race for the port.
			if (strings.HasPrefix(line, "+") || strings.HasPrefix(line, "-NOAUTH")) && listensOn(p.PID, p.Port) {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no answer to PING within %v", startTimeout)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// listensOn reports whether process pid holds the listening socket on
// 127.0.0.1:port, or on every interface (0.0.0.0:port, or [::]:port, which
// is what Go binds for "0.0.0.0"), from /proc. Where /proc cannot say, it
// reports true.
func listensOn(pid, port int) bool {
	tcp, err := os.ReadFile("/proc/net/tcp")
	if err != nil {
		return true
	}
	tcp6, _ := os.ReadFile("/proc/net/tcp6")
	var inodes []string
	lines := append(strings.Split(string(tcp), "\n")[1:], strings.Split(string(tcp6), "\n")...)
	for _, line := range lines {
		f := strings.Fields(line)
		if len(f) < 10 || f[3] != "0A" { // 0A: LISTEN
			continue
		}
		switch f[1] {
		case fmt.Sprintf("0100007F:%04X", port), fmt.Sprintf("00000000:%04X", port),
			fmt.Sprintf("00000000000000000000000000000000:%04X", port):
			inodes = append(inodes, "socket:["+f[9]+"]")
		}
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return true
	}
	for _, fd := range fds {
		link, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if err == nil && slices.Contains(inodes, link) {
			return true
		}
	}
	return false
}

func rawPing(addr string) (string, error) {
	conn, err := net.DialTimeout("tcp", addr, 250*time.Millisecond)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(time.Second))
	if _, err := conn.Write([]byte("*1\r\n$4\r\nPING\r\n")); err != nil {
		return "", err
	}
	return bufio.NewReader(conn).ReadString('\n')
}

// newClient returns a RESP2 go-redis client that never retries, so that a
// failure is seen by the test rather than papered over.
func newClient(addr, password string) *redis.Client {
	return redis.NewClient(&redis.Options{
		Addr:                  addr,
		Password:              password,
		Protocol:              2,
		DisableIdentity:       true, // no CLIENT SETINFO: Redis 7.0 lacks it
		MaxRetries:            -1,
		DialTimeout:           5 * time.Second,
		ReadTimeout:           stepTimeout,
		WriteTimeout:          stepTimeout,
		ContextTimeoutEnabled: true,
	})
}

// newConn returns a connection of its own, for scripts that change
// connection state (SELECT, AUTH, CLIENT SETNAME, HELLO). A Conn taken from
// a shared Client goes back to its pool on Close, state and all, and later
// commands on that Client would run in the wrong db.
func newConn(t testing.TB, addr string) *redis.Conn {
	t.Helper()
	cl := newClient(addr, "")
	cn := cl.Conn()
	t.Cleanup(func() {
		cn.Close()
		cl.Close()
	})
	return cn
}

// backend describes the server a script runs against.
type backend struct {
	Name string // "redis" or "shale"
	Addr string
	Proc *serverProc
}

func (b backend) isShale() bool { return b.Name == "shale" }

// redisOnly skips the rest of the test on shale, for behaviour Shale is
// allowed not to copy. Uses (keep this list current): none so far. The
// OBJECT ENCODING test in keyspace_test.go is the expected candidate if shale
// reports other encoding names.
func redisOnly(t *testing.T, b backend, reason string) {
	t.Helper()
	if b.isShale() {
		t.Skip("redis only: " + reason)
	}
}

// backendOpts configures both servers of forEachBackendOpts.
type backendOpts struct {
	RedisArgs []string  // extra redis-server arguments
	Shale     shaleOpts // shale config; Dir must be empty
}

// forEachBackend runs fn in subtests "redis" and "shale", each against a
// fresh server with an empty database. The subtests run in parallel.
func forEachBackend(t *testing.T, fn func(t *testing.T, c *redis.Client, b backend)) {
	t.Helper()
	forEachBackendOpts(t, backendOpts{}, fn)
}

func forEachBackendOpts(t *testing.T, opts backendOpts, fn func(t *testing.T, c *redis.Client, b backend)) {
	t.Helper()
	for _, name := range []string{"redis", "shale"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var p *serverProc
			if name == "redis" {
				p = startRedis(t, opts.RedisArgs...)
			} else {
				p = startShale(t, opts.Shale)
			}
			fn(t, p.Client, backend{Name: name, Addr: p.Addr, Proc: p})
		})
	}
}

// cli runs `redis-cli -h 127.0.0.1 -p PORT args...` and returns its trimmed
// stdout. Options for redis-cli itself (-a, -n, --no-auth-warning) go first
// in args, as on the command line.
func cli(t testing.TB, addr string, args ...string) string {
	t.Helper()
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, redisCliBin, append([]string{"-h", "127.0.0.1", "-p", port}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Fatalf("redis-cli %q: %v", args, err)
		}
		t.Logf("redis-cli %q: %v; stderr: %s", args, err, stderr.String())
	}
	return strings.TrimSpace(stdout.String())
}

// ctxT returns a context that ends after stepTimeout or with the test.
func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
	t.Cleanup(cancel)
	return ctx
}

// do runs one command and fails the test on any error, redis.Nil included.
func do(t testing.TB, c doer, args ...any) any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
	defer cancel()
	v, err := c.Do(ctx, args...).Result()
	if err != nil {
		t.Fatalf("%s: %v", fmtArgs(args), err)
	}
	return v
}

// doInt runs a command whose reply is an integer.
func doInt(t testing.TB, c doer, args ...any) int64 {
	t.Helper()
	v := do(t, c, args...)
	n, isInt := v.(int64)
	if !isInt {
		t.Fatalf("%s: got %s, want an integer", fmtArgs(args), fmtVal(v))
	}
	return n
}

// doStr runs a command whose reply is a string.
func doStr(t testing.TB, c doer, args ...any) string {
	t.Helper()
	v := do(t, c, args...)
	s, isStr := v.(string)
	if !isStr {
		t.Fatalf("%s: got %s, want a string", fmtArgs(args), fmtVal(v))
	}
	return s
}

// pollUntil calls cond every 20ms until it returns true or timeout passes;
// it then fails the test with the message of the last call.
func pollUntil(t testing.TB, timeout time.Duration, cond func() (done bool, status string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		done, status := cond()
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not true after %v: %s", timeout, status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// sleepUntil waits for a point in time, e.g. the moment a TTL has passed.
// It is a wait, not an assertion.
func sleepUntil(at time.Time) {
	if d := time.Until(at); d > 0 {
		time.Sleep(d)
	}
}

// rawConn is a plain TCP connection for protocol-level tests.
type rawConn struct {
	t    testing.TB
	conn net.Conn
	r    *bufio.Reader
}

func dialRaw(t testing.TB, addr string) *rawConn {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &rawConn{t: t, conn: conn, r: bufio.NewReader(conn)}
}

func (r *rawConn) send(s string) {
	r.t.Helper()
	_ = r.conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	if _, err := r.conn.Write([]byte(s)); err != nil {
		r.t.Fatalf("write %q: %v", s, err)
	}
}

// readLine returns one reply line including its "\r\n".
func (r *rawConn) readLine() string {
	r.t.Helper()
	_ = r.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, err := r.r.ReadString('\n')
	if err != nil {
		r.t.Fatalf("read: %v (got %q so far)", err, line)
	}
	return line
}

// readBytes reads n bytes, or what arrives before an error or 5s.
func (r *rawConn) readBytes(n int) (string, error) {
	_ = r.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, n)
	got, err := io.ReadFull(r.r, buf)
	return string(buf[:got]), err
}

// expectClosed fails unless the server closes the connection within 5s.
func (r *rawConn) expectClosed() {
	r.t.Helper()
	_ = r.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	rest, err := r.r.ReadString('\n')
	if err == nil || rest != "" {
		r.t.Fatalf("connection still open: read %q, err %v", rest, err)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		r.t.Fatalf("connection not closed by the server within 5s")
	}
}
