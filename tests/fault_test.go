package tests

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Disk faults: a data directory on a small tmpfs fills up, or is read-only.
// Mounting needs root (CAP_SYS_ADMIN); elsewhere the tests skip with the
// reason (go test -v shows it).

// mountTmpfs mounts a tmpfs of sizeMiB on a new directory and unmounts it at
// cleanup, after the servers using it have stopped (cleanups run last
// registered first, and this one is registered before any server starts).
func mountTmpfs(t *testing.T, sizeMiB int) string {
	t.Helper()
	if euid := os.Geteuid(); euid != 0 {
		t.Skipf("mounting a tmpfs needs root, and this runs as uid %d", euid)
	}
	dir := t.TempDir()
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%dm", sizeMiB), "tmpfs", dir).CombinedOutput()
	if err != nil {
		// Root in a container without CAP_SYS_ADMIN ends here.
		t.Skipf("root cannot mount a tmpfs here (no CAP_SYS_ADMIN?): %v: %s", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

func remount(t *testing.T, dir, opts string) {
	t.Helper()
	if out, err := exec.Command("mount", "-o", "remount,"+opts, dir).CombinedOutput(); err != nil {
		t.Fatalf("remount %s %s: %v: %s", dir, opts, err, out)
	}
}

// TestFaultDiskFull: when the disk fills up, writes get a clear MISCONF
// error, reads and other clients go on, and after space is freed and the
// server restarted every acknowledged write is there.
func TestFaultDiskFull(t *testing.T) {
	t.Parallel()
	fs := mountTmpfs(t, 40)
	filler := filepath.Join(fs, "filler")
	if err := os.WriteFile(filler, make([]byte, 24<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(fs, "data")
	p := startShale(t, shaleOpts{Dir: dir})
	c := p.Client

	const valueBytes = 256 << 10
	value := func(i int) string { return fmt.Sprintf("%06d", i) + strings.Repeat("v", valueBytes-6) }
	acked := 0
	var writeErr error
	for i := 0; i < 200; i++ { // 50 MiB: more than the disk holds
		if writeErr = c.Set(ctxT(t), fmt.Sprintf("k%d", i), value(i), 0).Err(); writeErr != nil {
			break
		}
		acked++
	}
	const misconf = "MISCONF Errors writing to disk: No space left on device."
	if writeErr == nil || !strings.HasPrefix(writeErr.Error(), misconf) {
		t.Fatalf("after %d writes: got %v, want an error starting %q", acked, writeErr, misconf)
	}
	if acked == 0 {
		t.Fatal("no write succeeded before the disk was full")
	}
	t.Logf("%d writes of %d KiB acknowledged before the disk was full", acked, valueBytes>>10)

	// Every write is refused the same way; reads and other clients go on.
	other := newClient(p.Addr, "")
	defer other.Close()
	run(t, other, []step{
		{cmd("SET", "small", "1"), errPrefix(misconf)},
		{cmd("HSET", "h", "f", "v"), errPrefix(misconf)},
		{cmd("RPUSH", "l", "a"), errPrefix(misconf)},
		{cmd("DEL", "nosuch"), int64(0)}, // changes nothing, writes nothing
		{cmd("DBSIZE"), int64(acked)},
		{cmd("GET", "k0"), value(0)},
		{cmd("EXISTS", fmt.Sprintf("k%d", acked)), int64(0)}, // the refused write is not there
		{cmd("PING"), "PONG"},
	})
	// A pipeline whose writes share one batch (server/pipeline.go): the
	// writes fail as they do alone, the reads between them still answer.
	groupedBefore, _ := strconv.Atoi(infoFields(other.Info(ctxT(t), "stats").Val())["pipeline_grouped_commands"])
	pipe := other.Pipeline()
	piped := []*redis.Cmd{
		pipe.Do(ctxT(t), "SET", "p1", "x"),
		pipe.Do(ctxT(t), "GET", "k0"),
		pipe.Do(ctxT(t), "EXISTS", "nosuch"),
		pipe.Do(ctxT(t), "INCR", "p2"),
		pipe.Do(ctxT(t), "STRLEN", "k1"),
	}
	_, _ = pipe.Exec(ctxT(t))
	for i, want := range []any{errPrefix(misconf), value(0), int64(0), errPrefix(misconf), int64(valueBytes)} {
		if why := matchReply(want, piped[i].Val(), piped[i].Err()); why != "" {
			t.Errorf("pipelined %v: %s", piped[i].Args(), why)
		}
	}
	if n, _ := strconv.Atoi(infoFields(other.Info(ctxT(t), "stats").Val())["pipeline_grouped_commands"]); n-groupedBefore != 5 {
		t.Errorf("pipeline_grouped_commands grew by %d, want the 5 pipelined commands in one group", n-groupedBefore)
	}
	// A pipeline on one key: each INCR ends the group before it, and on an
	// event loop each group's write is queued in the same turn; every
	// failed write's reply becomes the error, each in its place, and the
	// reads of other keys between them still answer. The EXISTS of the
	// key read the last INCR's queued write, which failed: it fails too
	// (docs/WRITES.md), unless it ran once that write had settled.
	pipe = other.Pipeline()
	piped = []*redis.Cmd{
		pipe.Do(ctxT(t), "INCR", "p3"),
		pipe.Do(ctxT(t), "GET", "k0"),
		pipe.Do(ctxT(t), "INCR", "p3"),
		pipe.Do(ctxT(t), "STRLEN", "k1"),
		pipe.Do(ctxT(t), "INCR", "p3"),
		pipe.Do(ctxT(t), "EXISTS", "p3"),
	}
	_, _ = pipe.Exec(ctxT(t))
	for i, want := range []any{errPrefix(misconf), value(0), errPrefix(misconf), int64(valueBytes), errPrefix(misconf)} {
		if why := matchReply(want, piped[i].Val(), piped[i].Err()); why != "" {
			t.Errorf("pipelined on one key %v: %s", piped[i].Args(), why)
		}
	}
	if why, whyErr := matchReply(int64(0), piped[5].Val(), piped[5].Err()), matchReply(errPrefix("MISCONF "), piped[5].Val(), piped[5].Err()); why != "" && whyErr != "" {
		t.Errorf("pipelined on one key EXISTS p3: %s, and not the write's error: %s", why, whyErr)
	}
	if !strings.Contains(p.Output(), "write refused by the disk") {
		t.Errorf("no log line about the refused write:\n%s", p.Output())
	}

	// Free the space. RocksDB keeps refusing writes until a restart; the
	// server still shuts down on SIGTERM, reporting the failed flush.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	other.Close()
	stopExpectingError(t, p)

	p2 := startShale(t, shaleOpts{Dir: dir})
	checkValues(t, p2.Client, acked, value)
	run(t, p2.Client, []step{
		{cmd("SET", "after", "1"), ok},
		{cmd("DBSIZE"), int64(acked + 1)},
	})
}

// stopExpectingError sends SIGTERM and waits for the exit, which may report
// an error (the disk broke under the server).
func stopExpectingError(t *testing.T, p *serverProc) {
	t.Helper()
	p.Client.Close()
	if err := p.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.done:
		t.Logf("shale exited: %v", p.waitErr)
	case <-time.After(stopTimeout):
		t.Fatalf("shale did not exit within %v of SIGTERM", stopTimeout)
	}
}

// checkValues checks that keys k0..k{n-1} hold value(i), and nothing else.
func checkValues(t *testing.T, c *redis.Client, n int, value func(int) string) {
	t.Helper()
	if got := doInt(t, c, "DBSIZE"); got != int64(n) {
		t.Fatalf("DBSIZE %d, want %d", got, n)
	}
	for i := 0; i < n; i++ {
		got, err := c.Get(ctxT(t), fmt.Sprintf("k%d", i)).Result()
		if err != nil || got != value(i) {
			t.Fatalf("k%d: %d bytes, %v; want its %d acknowledged bytes", i, len(got), err, len(value(i)))
		}
	}
}

// TestFaultReadOnlyDir: a server whose data directory is read-only does not
// start, and says why; made writable again, the data is all there.
func TestFaultReadOnlyDir(t *testing.T) {
	t.Parallel()
	fs := mountTmpfs(t, 32)
	dir := filepath.Join(fs, "data")
	p := startShale(t, shaleOpts{Dir: dir})
	value := func(i int) string { return fmt.Sprintf("value-%d", i) }
	for i := 0; i < 100; i++ {
		do(t, p.Client, "SET", fmt.Sprintf("k%d", i), value(i))
	}
	p.Stop()

	remount(t, fs, "ro")
	defer remount(t, fs, "rw") // umount at cleanup works either way
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, shaleBinary(t), "--port", "0", "--dir", dir)
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("shale started on a read-only data directory:\n%s", out)
	}
	if !strings.Contains(string(out), "Read-only file system") || !strings.Contains(string(out), dir) {
		t.Errorf("start-up error does not say the directory is read-only:\n%s", out)
	}
	t.Logf("start-up on a read-only dir: %v: %s", err, strings.TrimSpace(string(out)))

	remount(t, fs, "rw")
	p2 := startShale(t, shaleOpts{Dir: dir})
	checkValues(t, p2.Client, 100, value)
}
