package tests

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// rawID asks a raw connection for its CLIENT ID.
func rawID(t *testing.T, r *rawConn) int64 {
	t.Helper()
	r.send("CLIENT ID\r\n")
	line := r.readLine()
	id, err := strconv.ParseInt(strings.TrimSpace(strings.TrimPrefix(line, ":")), 10, 64)
	if err != nil {
		t.Fatalf("CLIENT ID reply %q", line)
	}
	return id
}

func TestClientKill(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("CLIENT", "KILL", "1.2.3.4:5"), errText("ERR No such client")},
			{cmd("CLIENT", "KILL", "ID"), errText("ERR No such client")},
			{cmd("CLIENT", "KILL", "ID", "0"), errText("ERR client-id should be greater than 0")},
			{cmd("CLIENT", "KILL", "ID", "abc"), errText("ERR client-id should be greater than 0")},
			{cmd("CLIENT", "KILL", "TYPE", "foo"), errText("ERR Unknown client type 'foo'")},
			{cmd("CLIENT", "KILL", "USER", "bob"), errText("ERR No such user 'bob'")},
			{cmd("CLIENT", "KILL", "SKIPME", "maybe"), errText("ERR syntax error")},
			{cmd("CLIENT", "KILL", "FOO", "bar"), errText("ERR syntax error")},
			{cmd("CLIENT", "KILL", "ID", "1", "TYPE"), errText("ERR syntax error")},
			// Options are read in order: a bad value before a dangling
			// option is the value's error.
			{cmd("CLIENT", "KILL", "ID", "abc", "FOO"), errText("ERR client-id should be greater than 0")},
			{cmd("CLIENT", "KILL", "ID", "-9223372036854775808", "FOO"), errText("ERR client-id should be greater than 0")},
			{cmd("CLIENT", "KILL", "TYPE", "foo", "FOO"), errText("ERR Unknown client type 'foo'")},
			{cmd("CLIENT", "KILL", "USER", "bob", "FOO"), errText("ERR No such user 'bob'")},
			{cmd("CLIENT", "KILL", "ADDR", "1.2.3.4:5", "FOO"), errText("ERR syntax error")},
			{cmd("CLIENT", "KILL", "ID", "999999"), int64(0)},
			{cmd("CLIENT", "KILL", "TYPE", "pubsub"), int64(0)},
			{cmd("CLIENT", "KILL", "LADDR", "1.1.1.1:1"), int64(0)},
		})

		// By ID, and the victim's connection closes.
		victim := dialRaw(t, b.Addr)
		id := rawID(t, victim)
		run(t, c, []step{{cmd("CLIENT", "KILL", "ID", strconv.FormatInt(id, 10)), int64(1)}})
		victim.expectClosed()
		if list := doStr(t, c, "CLIENT", "LIST"); strings.Contains(list, fmt.Sprintf("id=%d ", id)) {
			t.Errorf("killed client %d still listed:\n%s", id, list)
		}

		// The old form, by address.
		victim = dialRaw(t, b.Addr)
		rawID(t, victim)
		run(t, c, []step{{cmd("CLIENT", "KILL", victim.conn.LocalAddr().String()), ok}})
		victim.expectClosed()

		// ADDR with USER; SKIPME yes spares the caller.
		victim = dialRaw(t, b.Addr)
		rawID(t, victim)
		run(t, c, []step{{cmd("CLIENT", "KILL", "ADDR", victim.conn.LocalAddr().String(), "USER", "default"), int64(1)}})
		victim.expectClosed()

		// Itself, with SKIPME no: the reply comes, then the close.
		self := dialRaw(t, b.Addr)
		selfID := rawID(t, self)
		self.send(fmt.Sprintf("CLIENT KILL ID %d SKIPME no\r\n", selfID))
		if got := self.readLine(); got != ":1\r\n" {
			t.Errorf("CLIENT KILL of itself = %q", got)
		}
		self.expectClosed()

		// A client blocked in BLPOP is killed too.
		blocked := dialRaw(t, b.Addr)
		blockedID := rawID(t, blocked)
		blocked.send("BLPOP nolist 0\r\n")
		waitBlocked(t, c, 1)
		run(t, c, []step{{cmd("CLIENT", "KILL", "ID", strconv.FormatInt(blockedID, 10)), int64(1)}})
		blocked.expectClosed()

		// TYPE normal kills every other client.
		others := []*rawConn{dialRaw(t, b.Addr), dialRaw(t, b.Addr)}
		for _, o := range others {
			rawID(t, o)
		}
		if n := doInt(t, c, "CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes"); n < 2 {
			t.Errorf("CLIENT KILL TYPE normal = %d, want at least 2", n)
		}
		for _, o := range others {
			o.expectClosed()
		}
		run(t, c, []step{{cmd("PING"), "PONG"}})
	})
}

func TestClientPause(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("CLIENT", "PAUSE", "abc"), errText("ERR timeout is not an integer or out of range")},
			{cmd("CLIENT", "PAUSE", "-1"), errText("ERR timeout is negative")},
			{cmd("CLIENT", "PAUSE", "10", "foo"), errText("ERR CLIENT PAUSE mode must be WRITE or ALL")},
			// The mode is read before the timeout.
			{cmd("CLIENT", "PAUSE", "abc", "foo"), errText("ERR CLIENT PAUSE mode must be WRITE or ALL")},
			{cmd("CLIENT", "PAUSE", "-1", "foo"), errText("ERR CLIENT PAUSE mode must be WRITE or ALL")},
			// The timeout is an integer as Redis reads them: no '+' or
			// leading zeros.
			{cmd("CLIENT", "PAUSE", "+5", "WRITE"), errText("ERR timeout is not an integer or out of range")},
			{cmd("CLIENT", "PAUSE", "05", "WRITE"), errText("ERR timeout is not an integer or out of range")},
			{cmd("CLIENT", "PAUSE", "9223372036854775808", "WRITE"), errText("ERR timeout is not an integer or out of range")},
			{cmd("CLIENT", "PAUSE", "-9223372036854775808", "WRITE"), errText("ERR timeout is negative")},
			// CLIENT takes PAUSE with 3 or 4 arguments only.
			{cmd("CLIENT", "PAUSE", "0", "WRITE", "x"), errText("ERR unknown subcommand or wrong number of arguments for 'PAUSE'. Try CLIENT HELP.")},
			{cmd("CLIENT", "UNPAUSE"), ok},
		})
		if b.isShale() {
			// Redis 7.0 adds the timeout to its clock unchecked; a sum that
			// overflows ends the pause at once. Later Redis refuses it.
			run(t, c, []step{{cmd("CLIENT", "PAUSE", "9223372036854775807", "WRITE"), errText("ERR timeout is out of range")}})
		}
		admin := newConn(t, b.Addr)
		writer := dialRaw(t, b.Addr)
		reader := dialRaw(t, b.Addr)

		// WRITE: writes wait, reads do not; UNPAUSE lets the writes go.
		run(t, admin, []step{{cmd("CLIENT", "PAUSE", "10000", "WRITE"), ok}})
		start := time.Now()
		writer.send("SET k v\r\n")
		reader.send("GET k\r\n")
		if got := reader.readLine(); got != "$-1\r\n" {
			t.Errorf("GET during a write pause = %q", got)
		}
		if time.Since(start) > time.Second {
			t.Errorf("a read waited %v during a write pause", time.Since(start))
		}
		time.Sleep(300 * time.Millisecond)
		run(t, admin, []step{{cmd("CLIENT", "UNPAUSE"), ok}})
		if got := writer.readLine(); got != "+OK\r\n" {
			t.Errorf("SET after UNPAUSE = %q", got)
		}
		if waited := time.Since(start); waited < 250*time.Millisecond {
			t.Errorf("SET answered after %v: not paused", waited)
		}

		// A timeout past time.Duration's range pauses (for ever, in
		// effect), rather than wrapping to no pause at all.
		run(t, admin, []step{{cmd("CLIENT", "PAUSE", "9000000000000000000", "WRITE"), ok}})
		start = time.Now()
		writer.send("SET k v2\r\n")
		time.Sleep(300 * time.Millisecond)
		run(t, admin, []step{{cmd("CLIENT", "UNPAUSE"), ok}})
		if got := writer.readLine(); got != "+OK\r\n" {
			t.Errorf("SET after UNPAUSE = %q", got)
		}
		if waited := time.Since(start); waited < 250*time.Millisecond {
			t.Errorf("SET answered after %v: a huge timeout did not pause", waited)
		}

		// ALL: every command waits until the pause ends by itself.
		run(t, admin, []step{{cmd("CLIENT", "PAUSE", "400", "ALL"), ok}})
		start = time.Now()
		reader.send("PING\r\n")
		if got := reader.readLine(); got != "+PONG\r\n" {
			t.Errorf("PING after an ALL pause = %q", got)
		}
		if waited := time.Since(start); waited < 300*time.Millisecond {
			t.Errorf("PING answered after %v during an ALL pause", waited)
		}
	})
}

// TestServerCommandArgs pins how SLOWLOG, SHUTDOWN, DEBUG SLEEP and CONFIG
// SET read their numeric arguments and in which order they check them.
func TestServerCommandArgs(t *testing.T) {
	t.Parallel()
	opts := backendOpts{RedisArgs: []string{"--enable-debug-command", "yes"}, Shale: shaleOpts{Config: debugConfig}}
	forEachBackendOpts(t, opts, func(t *testing.T, c *redis.Client, b backend) {
		const countErr = "ERR count should be greater than or equal to -1"
		failed := func(name, why string) errText {
			return errText("ERR CONFIG SET failed (possibly related to argument '" + name + "') - " + why)
		}
		run(t, c, []step{
			{cmd("SLOWLOG", "GET", "+1"), errText(countErr)},
			{cmd("SLOWLOG", "GET", "01"), errText(countErr)},
			{cmd("SLOWLOG", "GET", "1", "2"), errText("ERR unknown subcommand or wrong number of arguments for 'GET'. Try SLOWLOG HELP.")},

			// ABORT goes with no other option, but may be repeated.
			{cmd("SHUTDOWN", "ABORT", "ABORT"), errText("ERR No shutdown in progress.")},
			{cmd("SHUTDOWN", "ABORT", "NOW"), errText("ERR syntax error")},

			// BGSAVE takes SCHEDULE alone (its row's Shape, then the handler).
			{cmd("BGSAVE", "NOW"), errText("ERR syntax error")},
			{cmd("BGSAVE", "SCHEDULE", "SCHEDULE"), errText("ERR syntax error")},

			// DEBUG SLEEP: times that overflow Redis's conversion, and
			// negative ones, do not sleep.
			{cmd("DEBUG", "SLEEP", "inf"), ok},
			{cmd("DEBUG", "SLEEP", "nan"), ok},
			{cmd("DEBUG", "SLEEP", "1e308"), ok},
			{cmd("DEBUG", "SLEEP", "9300000000000"), ok},
			{cmd("DEBUG", "SLEEP", "-1"), ok},
			{cmd("DEBUG", "SLEEP", "abc"), ok},

			// CONFIG SET of the parameters that have Redis's names: Redis's
			// integers, ranges and memory units, with its texts.
			{cmd("CONFIG", "SET", "maxclients", "+5"), failed("maxclients", "argument couldn't be parsed into an integer")},
			{cmd("CONFIG", "SET", "maxclients", "0"), failed("maxclients", "argument must be between 1 and 4294967295 inclusive")},
			{cmd("CONFIG", "SET", "maxclients", "4294967296"), failed("maxclients", "argument must be between 1 and 4294967295 inclusive")},
			{cmd("CONFIG", "SET", "maxclients", "9223372036854775807"), failed("maxclients", "argument must be between 1 and 4294967295 inclusive")},
			{cmd("CONFIG", "SET", "timeout", "-1"), failed("timeout", "argument must be between 0 and 2147483647 inclusive")},
			{cmd("CONFIG", "SET", "timeout", "2147483648"), failed("timeout", "argument must be between 0 and 2147483647 inclusive")},
			{cmd("CONFIG", "SET", "timeout", "9223372036854775807"), failed("timeout", "argument must be between 0 and 2147483647 inclusive")},
			{cmd("CONFIG", "SET", "tcp-keepalive", "2147483648"), failed("tcp-keepalive", "argument must be between 0 and 2147483647 inclusive")},
			{cmd("CONFIG", "SET", "slowlog-log-slower-than", "-2"), failed("slowlog-log-slower-than", "argument must be between -1 and 9223372036854775807 inclusive")},
			{cmd("CONFIG", "SET", "slowlog-max-len", "-1"), failed("slowlog-max-len", "argument must be between 0 and 9223372036854775807 inclusive")},
			{cmd("CONFIG", "SET", "proto-max-bulk-len", "-1"), failed("proto-max-bulk-len", "argument must be a memory value")},
			{cmd("CONFIG", "SET", "proto-max-bulk-len", "+5"), failed("proto-max-bulk-len", "argument must be a memory value")},
			{cmd("CONFIG", "SET", "proto-max-bulk-len", "1.5gb"), failed("proto-max-bulk-len", "argument must be a memory value")},
			{cmd("CONFIG", "SET", "proto-max-bulk-len", "1048575"), failed("proto-max-bulk-len", "argument must be between 1048576 and 9223372036854775807 inclusive")},
			{cmd("CONFIG", "SET", "proto-max-bulk-len", "9223372036854775808"), failed("proto-max-bulk-len", "argument must be between 1048576 and 9223372036854775807 inclusive")},
			{cmd("CONFIG", "SET", "proto-max-bulk-len", "99999999999gb"), failed("proto-max-bulk-len", "argument must be between 1048576 and 9223372036854775807 inclusive")},
			{cmd("CONFIG", "SET", "client-query-buffer-limit", "-1"), failed("client-query-buffer-limit", "argument must be a memory value")},
			{cmd("CONFIG", "SET", "client-query-buffer-limit", "1048575"), failed("client-query-buffer-limit", "argument must be between 1048576 and 9223372036854775807 inclusive")},
			// mb is 1024*1024 and m 1000*1000, as in Redis.
			{cmd("CONFIG", "SET", "proto-max-bulk-len", "512mb"), ok},
			{cmd("CONFIG", "GET", "proto-max-bulk-len"), []any{"proto-max-bulk-len", "536870912"}},
			{cmd("CONFIG", "SET", "client-query-buffer-limit", "2m"), ok},
			{cmd("CONFIG", "GET", "client-query-buffer-limit"), []any{"client-query-buffer-limit", "2000000"}},
			{cmd("CONFIG", "SET", "client-query-buffer-limit", "1gb"), ok},
			{cmd("CONFIG", "GET", "client-query-buffer-limit"), []any{"client-query-buffer-limit", "1073741824"}},
			{cmd("CONFIG", "SET", "loglevel", "loud"), failed("loglevel", "argument(s) must be one of the following: debug, verbose, notice, warning")},
			{cmd("CONFIG", "SET", "maxclients", "4294967295"), ok},
			{cmd("CONFIG", "SET", "maxclients", "10000"), ok},
		})

		// DEBUG SLEEP reads its time with strtod: a prefix, after blanks.
		for _, arg := range []string{"0.3abc", " 0.3"} {
			start := time.Now()
			run(t, c, []step{{cmd("DEBUG", "SLEEP", arg), ok}})
			if took := time.Since(start); took < 250*time.Millisecond {
				t.Errorf("DEBUG SLEEP %q took %v, want 0.3s", arg, took)
			}
		}
		if b.isShale() {
			// Shale's own limit on a command's arguments: below 4, not even
			// a CONFIG SET could raise it again.
			run(t, c, []step{
				{cmd("CONFIG", "SET", "server.proto_max_multibulk_len", "3"), failed("server.proto_max_multibulk_len", "argument must be between 4 and 9223372036854775807 inclusive")},
				{cmd("CONFIG", "SET", "server.proto_max_multibulk_len", "4"), ok},
				{cmd("CONFIG", "SET", "server.proto_max_multibulk_len", "2147483647"), ok},
			})
			// Past time.Duration's range the sleep is as long as Redis's
			// (which would block its whole server): not wrapped to nothing.
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			if err := c.Do(ctx, "DEBUG", "SLEEP", "10000000000").Err(); err == nil {
				t.Errorf("DEBUG SLEEP 10000000000 returned at once")
			}
		}
	})
}

func TestClientReplyNoEvictGetRedir(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		r := dialRaw(t, b.Addr)
		r.send("CLIENT REPLY OFF\r\nPING\r\nSET a 1\r\nNOSUCHCMD\r\nCLIENT REPLY SKIP\r\nPING\r\nCLIENT REPLY ON\r\nPING\r\nCLIENT REPLY SKIP\r\nPING\r\nPING\r\n")
		got, _ := r.readBytes(len("+OK\r\n+PONG\r\n+PONG\r\n"))
		if got != "+OK\r\n+PONG\r\n+PONG\r\n" {
			t.Errorf("CLIENT REPLY sequence = %q", got)
		}
		run(t, c, []step{
			{cmd("GET", "a"), "1"}, // the muted SET did run
			{cmd("CLIENT", "REPLY", "maybe"), errText("ERR syntax error")},
			{cmd("CLIENT", "NO-EVICT", "maybe"), errText("ERR syntax error")},
			{cmd("CLIENT", "GETREDIR"), int64(-1)},
		})
		conn := newConn(t, b.Addr)
		run(t, conn, []step{
			{cmd("CLIENT", "NO-EVICT", "on"), ok},
			{cmd("CLIENT", "INFO"), containsAll(" flags=e ")},
			{cmd("CLIENT", "NO-EVICT", "off"), ok},
			{cmd("CLIENT", "INFO"), containsAll(" flags=N ", " cmd=client|info ")},
		})
	})
}

// TestClientSetInfo covers Redis 7.2's CLIENT SETINFO, which client
// libraries send on connect (Redis 7.0 lacks it: Shale only).
func TestClientSetInfo(t *testing.T) {
	t.Parallel()
	p := startShale(t, shaleOpts{})
	conn := newConn(t, p.Addr)
	run(t, conn, []step{
		{cmd("CLIENT", "SETINFO", "LIB-NAME", "go-redis(shale-test)"), ok},
		{cmd("CLIENT", "SETINFO", "lib-ver", "9.0.0"), ok},
		{cmd("CLIENT", "SETINFO", "LIB-NAME", "a b"), errText("ERR lib-name cannot contain spaces, newlines or special characters.")},
		{cmd("CLIENT", "SETINFO", "color", "x"), errText("ERR Unrecognized option 'color'")},
		{cmd("CLIENT", "INFO"), containsAll(" lib-name=go-redis(shale-test) lib-ver=9.0.0")},
	})
	// A default go-redis client sends SETINFO itself.
	lib := redis.NewClient(&redis.Options{Addr: p.Addr, Protocol: 2})
	defer lib.Close()
	if info, err := lib.ClientInfo(ctxT(t)).Result(); err != nil || info.LibName == "" {
		t.Errorf("go-redis CLIENT INFO = %+v, %v", info, err)
	}
}

// TestBackupUnderLoadRestores takes a checkpoint with BGSAVE while writers
// run, restores it into a new directory, and checks every key of the
// restored database. Each writer w appends to its own sequence: SET w:n,
// then HSET w:h f<n>, then SET w:last n, one command at a time. A
// checkpoint is one point in time, so for each writer the restored data
// must be a prefix of its sequence: keys w:0..w:M and fields f0..fK with
// K <= M <= K+1, w:last equal to K or K-1 (or absent when K < 0), every
// value as written, and nothing else. Every write acknowledged before BGSAVE
// replied must be in it.
func TestBackupUnderLoadRestores(t *testing.T) {
	t.Parallel()
	backupDir := filepath.Join(t.TempDir(), "backups")
	p := startShale(t, shaleOpts{Config: fmt.Sprintf("[storage]\nbackup_dir = %q\n", backupDir)})
	ctx := ctxT(t)
	const writers = 4
	val := func(w, n int) string { return fmt.Sprintf("w%d-n%d-%s", w, n, strings.Repeat("x", n%50)) }
	var acked [writers]atomic.Int64 // last n whose three writes are acknowledged
	for i := range acked {
		acked[i].Store(-1)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := newClient(p.Addr, "")
			defer c.Close()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				err := c.Set(ctx, fmt.Sprintf("%d:%d", w, n), val(w, n), 0).Err()
				if err == nil {
					err = c.HSet(ctx, fmt.Sprintf("%d:h", w), fmt.Sprint("f", n), val(w, n)).Err()
				}
				if err == nil {
					err = c.Set(ctx, fmt.Sprintf("%d:last", w), n, 0).Err()
				}
				if err != nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
				acked[w].Store(int64(n))
			}
		}()
	}
	time.Sleep(700 * time.Millisecond)
	var before [writers]int64
	for w := range before {
		before[w] = acked[w].Load()
	}
	run(t, p.Client, []step{{cmd("BGSAVE"), "Background saving started"}})
	pollUntil(t, 20*time.Second, func() (bool, string) {
		info := doStr(t, p.Client, "INFO", "persistence")
		return strings.Contains(info, "rdb_bgsave_in_progress:0") && strings.Contains(info, "rdb_saves:1"), info
	})
	time.Sleep(200 * time.Millisecond) // writers go on after the checkpoint
	close(stop)
	wg.Wait()
	info := doStr(t, p.Client, "INFO", "persistence")
	if !strings.Contains(info, "rdb_last_bgsave_status:ok") {
		t.Fatalf("INFO persistence after BGSAVE:\n%s", info)
	}
	if last := doInt(t, p.Client, "LASTSAVE"); time.Since(time.Unix(last, 0)) > time.Minute {
		t.Errorf("LASTSAVE = %d, not the checkpoint's time", last)
	}
	cp := regexp.MustCompile(`last_checkpoint_dir:(\S+)`).FindStringSubmatch(info)
	if cp == nil || !strings.HasPrefix(cp[1], backupDir) {
		t.Fatalf("no checkpoint dir under %s in\n%s", backupDir, info)
	}

	newDir := filepath.Join(t.TempDir(), "restored")
	if out, err := exec.Command(shaleBinary(t), "--restore-from", cp[1], "--dir", newDir).CombinedOutput(); err != nil {
		t.Fatalf("restore: %v\n%s", err, out)
	}
	if out, err := exec.Command(shaleBinary(t), "--restore-from", cp[1], "--dir", newDir).CombinedOutput(); err == nil || !strings.Contains(string(out), "not empty") {
		t.Errorf("restore into a non-empty dir: %v\n%s", err, out)
	}
	r := startShale(t, shaleOpts{Dir: newDir})
	keys := scanAll(t, r.Client)
	total := 0
	for w := range writers {
		// K: fields present; M: string keys present.
		h := r.Client.HGetAll(ctx, fmt.Sprintf("%d:h", w)).Val()
		k := len(h) - 1
		for n := 0; n <= k; n++ {
			if h[fmt.Sprint("f", n)] != val(w, n) {
				t.Fatalf("writer %d: field f%d = %q, want %q (fields %d)", w, n, h[fmt.Sprint("f", n)], val(w, n), len(h))
			}
		}
		m := -1
		for keys[fmt.Sprintf("%d:%d", w, m+1)] {
			m++
			if got := r.Client.Get(ctx, fmt.Sprintf("%d:%d", w, m)).Val(); got != val(w, m) {
				t.Fatalf("writer %d: key %d = %q", w, m, got)
			}
		}
		if m < k || m > k+1 {
			t.Errorf("writer %d: keys 0..%d and fields 0..%d are not one point in time", w, m, k)
		}
		if int64(k) < before[w] {
			t.Errorf("writer %d: restored up to %d, but %d was acknowledged before BGSAVE", w, k, before[w])
		}
		last, err := r.Client.Get(ctx, fmt.Sprintf("%d:last", w)).Int()
		switch {
		case err == redis.Nil && k <= 0:
		case err != nil:
			t.Errorf("writer %d: last: %v (k=%d)", w, err, k)
		case last != k && last != k-1:
			t.Errorf("writer %d: last = %d with fields 0..%d", w, last, k)
		}
		total += m + 1 + 1
		if err == nil {
			total++
		}
	}
	if len(keys) != total {
		t.Errorf("restored db has %d keys, want %d", len(keys), total)
	}
	t.Logf("restored %d keys; acknowledged before BGSAVE: %v", len(keys), before)
}

// TestShutdownUnderWrites sends SIGTERM while writers run: every write
// acknowledged is there after a restart, and the log shows the shutdown
// steps in order.
func TestShutdownUnderWrites(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := startShale(t, shaleOpts{Dir: dir, Flags: []string{"--log-level", "info"}})
	const writers = 4
	var acked, sent [writers]atomic.Int64
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := newClient(p.Addr, "")
			defer c.Close()
			for n := int64(1); ; n++ {
				sent[w].Store(n)
				if err := c.Set(context.Background(), fmt.Sprint("seq", w), n, 0).Err(); err != nil {
					return // the server went away
				}
				acked[w].Store(n)
			}
		}()
	}
	time.Sleep(500 * time.Millisecond)
	start := time.Now()
	if err := p.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.done:
	case <-time.After(15 * time.Second):
		t.Fatal("no exit within 15s of SIGTERM")
	}
	took := time.Since(start)
	wg.Wait()
	if p.waitErr != nil {
		t.Fatalf("exit: %v\n%s", p.waitErr, p.Output())
	}
	out := p.Output()
	steps := []string{"shutting down", "stopped accepting connections", "in-flight commands finished",
		"client connections closed", "store closed", "server stopped"}
	at := 0
	for _, s := range steps {
		i := strings.Index(out[at:], s)
		if i < 0 {
			t.Fatalf("log lacks %q after position %d:\n%s", s, at, out)
		}
		at += i
	}
	r := startShale(t, shaleOpts{Dir: dir})
	for w := range writers {
		got, err := r.Client.Get(context.Background(), fmt.Sprint("seq", w)).Int64()
		if err != nil || got < acked[w].Load() || got > sent[w].Load() {
			t.Errorf("writer %d: seq = %d, %v after restart; acknowledged %d, sent %d", w, got, err, acked[w].Load(), sent[w].Load())
		}
	}
	t.Logf("shutdown took %v", took)
}

// TestConfigRewriteRestart: CONFIG SET, CONFIG REWRITE, restart on the
// same file, and the values are back; the file's comments survive.
func TestConfigRewriteRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := "# operator notes\n[server]\ntimeout = \"0s\" # idle clients\n"
	p := startShale(t, shaleOpts{Dir: dir, Config: file})
	run(t, p.Client, []step{
		{cmd("CONFIG", "SET", "timeout", "120", "rocksdb.subkey.write_buffer_bytes", "16MiB", "maxclients", "500"), ok},
		{cmd("CONFIG", "REWRITE"), ok},
		{cmd("CONFIG", "GET", "maxc*", "timeout"), []any{"maxclients", "500", "timeout", "120"}},
	})
	confPath := ""
	for i, a := range p.Cmd.Args {
		if a == "--config" {
			confPath = p.Cmd.Args[i+1]
		}
	}
	got, err := os.ReadFile(confPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(got), "# operator notes\n[server]\ntimeout = \"2m\" # idle clients\n") {
		t.Errorf("rewritten file:\n%s", got)
	}
	p.Stop()
	r := startShale(t, shaleOpts{Dir: dir, Flags: []string{"--config", confPath}})
	run(t, r.Client, []step{
		{cmd("CONFIG", "GET", "timeout"), []any{"timeout", "120"}},
		{cmd("CONFIG", "GET", "maxclients"), []any{"maxclients", "500"}},
		{cmd("CONFIG", "GET", "rocksdb.subkey.write_buffer_bytes"), []any{"rocksdb.subkey.write_buffer_bytes", "16777216"}},
	})
}

// TestFullCompactionWindowShutdown schedules a full compaction that covers
// now and is paced to a crawl, sees it start, and stops the server in the
// middle of it: the shutdown is prompt and the run is logged as cancelled.
func TestFullCompactionWindowShutdown(t *testing.T) {
	t.Parallel()
	p := startShale(t, shaleOpts{
		Config: "[rocksdb]\nwrite_buffer_bytes = \"64KiB\"\ndisable_auto_compactions = true\n",
		Flags:  []string{"--log-level", "info"},
	})
	ctx := ctxT(t)
	pipe := p.Client.Pipeline()
	for i := range 1500 {
		pipe.Set(ctx, fmt.Sprintf("key:%06d", i), strings.Repeat("v", 1000), 0)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	from, to := now.Add(-time.Minute), now.Add(5*time.Minute)
	window := fmt.Sprintf("%02d:%02d-%02d:%02d", from.Hour(), from.Minute(), to.Hour(), to.Minute())
	run(t, p.Client, []step{{cmd("CONFIG", "SET", "compaction.full_window", window, "compaction.full_max_bytes_per_sec", "1"), ok}})
	pollUntil(t, 10*time.Second, func() (bool, string) {
		return strings.Contains(p.Output(), "full compaction started"), "no \"full compaction started\" in the log"
	})
	time.Sleep(300 * time.Millisecond)
	start := time.Now()
	p.Stop()
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("shutdown during the full compaction took %v", took)
	}
	out := p.Output()
	if !strings.Contains(out, "full compaction cancelled") || strings.Contains(out, "full compaction done") {
		t.Errorf("log does not show a cancelled full compaction:\n%s", out)
	}
}
