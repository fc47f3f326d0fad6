package tests

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// The client suites under clients/ are applications written against a
// client library. Each runs once against a real redis-server and once
// against shale, with no branch per server, so the expectations are Redis's.
const (
	debianPython  = "/usr/bin/python3" // Debian's, which sees the python3-redis package
	nodeBin       = "/usr/bin/node"
	clientTimeout = 90 * time.Second // one run of a client script
)

// minChecks guards against a script that exits 0 having checked little:
// each suite must report at least this many passed checks.
const (
	minPythonChecks = 100
	minNodeChecks   = 80
	minAuthChecks   = 7 // the PASSWORD mode of either script
)

// passwordBackends is backendOpts for servers that require clientPassword.
const clientPassword = "s3cret-pw"

var passwordBackends = backendOpts{
	RedisArgs: []string{"--requirepass", clientPassword},
	Shale:     shaleOpts{Config: "[server]\nrequirepass = \"" + clientPassword + "\"\n"},
}

// TestClientRedisPy runs clients/python/app.py with Debian's redis-py.
func TestClientRedisPy(t *testing.T) {
	t.Parallel()
	out, err := exec.Command(debianPython, "-c", "import redis; print(redis.__version__)").CombinedOutput()
	if err != nil {
		t.Fatalf("%s cannot import redis (make deps installs python3-redis): %v\n%s", debianPython, err, out)
	}
	t.Logf("redis-py %s", strings.TrimSpace(string(out)))
	dir := filepath.Join("clients", "python")
	t.Run("app", func(t *testing.T) {
		t.Parallel()
		forEachBackend(t, func(t *testing.T, _ *redis.Client, b backend) {
			runClientScript(t, b, minPythonChecks, debianPython, dir, "app.py")
		})
	})
	t.Run("password", func(t *testing.T) {
		t.Parallel()
		forEachBackendOpts(t, passwordBackends, func(t *testing.T, _ *redis.Client, b backend) {
			runClientScript(t, b, minAuthChecks, debianPython, dir, "app.py", clientPassword)
		})
	})
	// redis-py writes a whole pipeline before it reads: a server that stops
	// reading while its replies wait for the client deadlocks with it.
	t.Run("bulk", func(t *testing.T) {
		t.Parallel()
		forEachBackend(t, func(t *testing.T, _ *redis.Client, b backend) {
			runClientScript(t, b, 4, debianPython, dir, "app.py", "--bulk")
		})
	})
}

// TestClientIORedis runs clients/node/app.js with the ioredis that
// package-lock.json pins; make e2e runs `npm ci` first.
func TestClientIORedis(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("clients", "node")
	installed := filepath.Join(dir, "node_modules", ".package-lock.json")
	if _, err := os.Stat(installed); err != nil {
		t.Fatalf("ioredis is not installed: run `make e2e`, or `npm ci` in tests/%s (%v)", dir, err)
	}
	t.Run("app", func(t *testing.T) {
		t.Parallel()
		forEachBackend(t, func(t *testing.T, _ *redis.Client, b backend) {
			runClientScript(t, b, minNodeChecks, nodeBin, dir, "app.js")
		})
	})
	t.Run("password", func(t *testing.T) {
		t.Parallel()
		forEachBackendOpts(t, passwordBackends, func(t *testing.T, _ *redis.Client, b backend) {
			runClientScript(t, b, minAuthChecks, nodeBin, dir, "app.js", clientPassword)
		})
	})
}

var passLine = regexp.MustCompile(`(?m)^PASS (\d+) checks$`)

// runClientScript runs `interpreter script PORT args...` in dir against
// backend b and fails unless it exits 0 with "PASS <n> checks", n >= minChecks.
func runClientScript(t *testing.T, b backend, minChecks int, interpreter, dir, script string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), clientTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, interpreter, append([]string{script, strconv.Itoa(b.Proc.Port)}, args...)...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	if err != nil || ctx.Err() != nil {
		t.Fatalf("%s %s against %s: %v (context: %v)\n%s", interpreter, script, b.Name, err, ctx.Err(), lastLines(out.String(), 40))
	}
	m := passLine.FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("%s %s against %s: no PASS line\n%s", interpreter, script, b.Name, lastLines(out.String(), 40))
	}
	if n, _ := strconv.Atoi(m[1]); n < minChecks {
		t.Fatalf("%s %s against %s: only %d checks ran, want at least %d", interpreter, script, b.Name, n, minChecks)
	}
	t.Logf("%s against %s: %s in %v", script, b.Name, m[0], time.Since(start).Round(time.Millisecond))
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("... %d lines before", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}
