package tests

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Pub/Sub against both servers, over raw connections: the subscriber's
// replies and messages are compared frame by frame, as Redis 7.0 writes them
// in RESP2.

// respCmd encodes args as a RESP array of bulk strings.
func respCmd(args ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	return b.String()
}

// readFrame reads one reply and renders it as a string: arrays as
// [a b c], a null as (nil), integers as :n, errors as -text, so that a
// whole pub/sub frame compares as one string.
func (r *rawConn) readFrame() string {
	r.t.Helper()
	line := strings.TrimSuffix(r.readLine(), "\r\n")
	switch line[0] {
	case '*':
		n, _ := strconv.Atoi(line[1:])
		if n < 0 {
			return "(nil)"
		}
		parts := make([]string, n)
		for i := range parts {
			parts[i] = r.readFrame()
		}
		return "[" + strings.Join(parts, " ") + "]"
	case '$':
		n, _ := strconv.Atoi(line[1:])
		if n < 0 {
			return "(nil)"
		}
		b, err := r.readBytes(n + 2)
		if err != nil {
			r.t.Fatalf("read bulk: %v", err)
		}
		if b == "\r\n" {
			return `""`
		}
		return b[:n]
	case ':', '-', '+':
		return line
	}
	r.t.Fatalf("unexpected reply line %q", line)
	return ""
}

// expectFrames reads len(want) replies and compares them in order.
func (r *rawConn) expectFrames(want ...string) {
	r.t.Helper()
	for i, w := range want {
		if got := r.readFrame(); got != w {
			r.t.Fatalf("frame %d: got %s, want %s", i, got, w)
		}
	}
}

// expectFrameSet reads len(want) replies and compares them in any order:
// Redis delivers the messages of several matching patterns in its dict's
// order.
func (r *rawConn) expectFrameSet(want ...string) {
	r.t.Helper()
	got := make([]string, len(want))
	for i := range got {
		got[i] = r.readFrame()
	}
	slices.Sort(got)
	w := slices.Clone(want)
	slices.Sort(w)
	if !slices.Equal(got, w) {
		r.t.Fatalf("got %q, want %q in any order", got, w)
	}
}

// expectQuiet fails if anything arrives within d.
func (r *rawConn) expectQuiet(d time.Duration) {
	r.t.Helper()
	_ = r.conn.SetReadDeadline(time.Now().Add(d))
	if b, err := r.r.Peek(1); err == nil {
		r.t.Fatalf("unexpected bytes %q", b)
	}
	r.r = bufio.NewReader(r.conn) // a timed-out read leaves the reader failed
}

func TestPubSubMessages(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		sub := dialRaw(t, b.Addr)
		sub.send(respCmd("SUBSCRIBE", "a", "b", "a"))
		sub.expectFrames("[subscribe a :1]", "[subscribe b :2]", "[subscribe a :2]")
		sub.send(respCmd("PSUBSCRIBE", "h?llo", "h[ae]llo"))
		sub.expectFrames("[psubscribe h?llo :3]", "[psubscribe h[ae]llo :4]")
		// Shard channels are counted apart from channels and patterns.
		sub.send(respCmd("SSUBSCRIBE", "z"))
		sub.expectFrames("[ssubscribe z :1]")

		run(t, c, []step{
			{cmd("PUBLISH", "a", "m1"), int64(1)},
			{cmd("PUBLISH", "hello", "m2"), int64(2)},
			{cmd("PUBLISH", "hxllo", "m3"), int64(1)},
			{cmd("PUBLISH", "nobody", "m4"), int64(0)},
			{cmd("SPUBLISH", "z", "m5"), int64(1)},
			// A shard channel and a channel of the same name are apart.
			{cmd("PUBLISH", "z", "m6"), int64(0)},
			{cmd("SPUBLISH", "a", "m7"), int64(0)},
		})
		sub.expectFrames("[message a m1]")
		sub.expectFrameSet("[pmessage h?llo hello m2]", "[pmessage h[ae]llo hello m2]")
		sub.expectFrames("[pmessage h?llo hxllo m3]", "[smessage z m5]")

		// A client subscribed to a channel and a matching pattern gets
		// both, the channel's first.
		sub.send(respCmd("SUBSCRIBE", "hello"))
		sub.expectFrames("[subscribe hello :5]")
		if n := doInt(t, c, "PUBLISH", "hello", "m8"); n != 3 {
			t.Fatalf("PUBLISH hello: %d receivers, want 3", n)
		}
		sub.expectFrames("[message hello m8]")
		sub.expectFrameSet("[pmessage h?llo hello m8]", "[pmessage h[ae]llo hello m8]")

		// No message follows the unsubscribe.
		sub.send(respCmd("UNSUBSCRIBE", "a", "nosuch"))
		sub.expectFrames("[unsubscribe a :4]", "[unsubscribe nosuch :4]")
		sub.send(respCmd("PUNSUBSCRIBE", "h?llo"))
		sub.expectFrames("[punsubscribe h?llo :3]")
		if n := doInt(t, c, "PUBLISH", "a", "m9"); n != 0 {
			t.Fatalf("PUBLISH a after UNSUBSCRIBE: %d receivers", n)
		}
		sub.expectQuiet(100 * time.Millisecond)
	})
}

// TestPubSubPatterns checks PSUBSCRIBE's globs as Redis's stringmatchlen
// matches them: escapes, classes, negation, and "*", which does not match
// the empty channel.
func TestPubSubPatterns(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		for _, tc := range []struct {
			pattern string
			match   []string
			miss    []string
		}{
			{`news.*`, []string{"news.", "news.art"}, []string{"news", "xnews.a"}},
			{`h\*llo`, []string{"h*llo"}, []string{"hello", `h\*llo`}},
			{`[a-c]x`, []string{"ax", "cx"}, []string{"dx", "x"}},
			{`[c-a]x`, []string{"bx"}, []string{"dx"}}, // a backwards range is swapped
			{`[^a]y`, []string{"by"}, []string{"ay", "y"}},
			{`a\`, []string{`a\`}, []string{"a"}}, // a trailing backslash is literal
			{`*`, []string{"x"}, []string{""}},
		} {
			sub := dialRaw(t, b.Addr)
			sub.send(respCmd("PSUBSCRIBE", tc.pattern))
			sub.expectFrames("[psubscribe " + tc.pattern + " :1]")
			for _, ch := range tc.miss {
				if n := doInt(t, c, "PUBLISH", ch, "m"); n != 0 {
					t.Errorf("pattern %q matched %q", tc.pattern, ch)
				}
			}
			for _, ch := range tc.match {
				if n := doInt(t, c, "PUBLISH", ch, "m"); n != 1 {
					t.Fatalf("pattern %q did not match %q", tc.pattern, ch)
				}
				sub.expectFrames("[pmessage " + tc.pattern + " " + ch + " m]")
			}
			sub.conn.Close()
			pollUntil(t, 5*time.Second, func() (bool, string) {
				n := doInt(t, c, "PUBSUB", "NUMPAT")
				return n == 0, fmt.Sprintf("NUMPAT %d after the subscriber left", n)
			})
		}

		// The empty channel: "*" does not match it, in PUBLISH as in
		// PUBSUB CHANNELS *, but PUBSUB CHANNELS without a pattern lists it.
		sub := dialRaw(t, b.Addr)
		sub.send(respCmd("PSUBSCRIBE", "*") + respCmd("SUBSCRIBE", ""))
		sub.expectFrames("[psubscribe * :1]", `[subscribe "" :2]`)
		run(t, c, []step{
			{cmd("PUBLISH", "", "m"), int64(1)},
			{cmd("PUBSUB", "CHANNELS"), []any{""}},
			{cmd("PUBSUB", "CHANNELS", "*"), []any{}},
		})
		sub.expectFrames(`[message "" m]`)
	})
}

const subscribedModeText = "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context"

// TestPubSubSubscribedMode checks what a RESP2 client in subscribed mode may
// send, and that it leaves the mode only once it has no channel, pattern
// or shard channel left.
func TestPubSubSubscribedMode(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		sub := dialRaw(t, b.Addr)
		// Unsubscribing from nothing: a null channel and a count of 0.
		sub.send(respCmd("UNSUBSCRIBE") + respCmd("PUNSUBSCRIBE") + respCmd("SUNSUBSCRIBE"))
		sub.expectFrames("[unsubscribe (nil) :0]", "[punsubscribe (nil) :0]", "[sunsubscribe (nil) :0]")

		sub.send(respCmd("SUBSCRIBE", "a"))
		sub.expectFrames("[subscribe a :1]")
		sub.send(respCmd("GET", "x") + respCmd("CLIENT", "LIST") + respCmd("CONFIG", "GET", "port") + respCmd("MULTI"))
		sub.expectFrames(
			"-ERR Can't execute 'get"+subscribedModeText,
			"-ERR Can't execute 'client|list"+subscribedModeText,
			"-ERR Can't execute 'config|get"+subscribedModeText,
			"-ERR Can't execute 'multi"+subscribedModeText)
		// Unknown commands and wrong arities are refused first.
		sub.send(respCmd("NOSUCH") + respCmd("GET"))
		sub.expectFrames("-ERR unknown command 'NOSUCH', with args beginning with: ", "-ERR wrong number of arguments for 'get' command")
		sub.send(respCmd("PING") + respCmd("PING", "hi") + respCmd("PING", "a", "b"))
		sub.expectFrames(`[pong ""]`, "[pong hi]", "-ERR wrong number of arguments for 'ping' command")

		// Shard channels keep the client in subscribed mode.
		sub.send(respCmd("SSUBSCRIBE", "x", "y") + respCmd("UNSUBSCRIBE") + respCmd("GET", "x"))
		sub.expectFrames("[ssubscribe x :1]", "[ssubscribe y :2]", "[unsubscribe a :0]", "-ERR Can't execute 'get"+subscribedModeText)
		sub.send(respCmd("UNSUBSCRIBE") + respCmd("SUNSUBSCRIBE", "y", "x") + respCmd("GET", "x") + respCmd("PING"))
		sub.expectFrames("[unsubscribe (nil) :0]", "[sunsubscribe y :1]", "[sunsubscribe x :0]", "(nil)", "+PONG")

		// QUIT is allowed.
		sub.send(respCmd("PSUBSCRIBE", "p*") + respCmd("QUIT"))
		sub.expectFrames("[psubscribe p* :1]", "+OK")
		sub.expectClosed()
	})
}

// TestPubSubIntrospection checks PUBSUB's subcommands, INFO's pubsub
// fields, CLIENT LIST's, and that a subscriber's disconnection drops its
// subscriptions.
func TestPubSubIntrospection(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		sub := dialRaw(t, b.Addr)
		sub.send(respCmd("CLIENT", "ID"))
		id := strings.TrimPrefix(sub.readFrame(), ":")
		sub.send(respCmd("SUBSCRIBE", "a", "b") + respCmd("PSUBSCRIBE", "a*") + respCmd("SSUBSCRIBE", "s"))
		sub.expectFrames("[subscribe a :1]", "[subscribe b :2]", "[psubscribe a* :3]", "[ssubscribe s :1]")
		other := dialRaw(t, b.Addr)
		other.send(respCmd("SUBSCRIBE", "a") + respCmd("PSUBSCRIBE", "a*", "b*"))
		other.expectFrames("[subscribe a :1]", "[psubscribe a* :2]", "[psubscribe b* :3]")

		run(t, c, []step{
			{cmd("PUBSUB", "CHANNELS"), unordered([]any{"a", "b"})},
			{cmd("PUBSUB", "CHANNELS", "[a]"), []any{"a"}},
			{cmd("PUBSUB", "NUMSUB"), []any{}},
			{cmd("PUBSUB", "NUMSUB", "a", "b", "s", "a*"), []any{"a", int64(2), "b", int64(1), "s", int64(0), "a*", int64(0)}},
			{cmd("PUBSUB", "NUMPAT"), int64(2)},
			{cmd("PUBSUB", "SHARDCHANNELS"), []any{"s"}},
			{cmd("PUBSUB", "SHARDCHANNELS", "x*"), []any{}},
			{cmd("PUBSUB", "SHARDNUMSUB", "s", "a"), []any{"s", int64(1), "a", int64(0)}},
			{cmd("PUBSUB", "CHANNELS", "a", "b"), errText("ERR unknown subcommand or wrong number of arguments for 'CHANNELS'. Try PUBSUB HELP.")},
			{cmd("PUBSUB", "SHARDCHANNELS", "a", "b"), errText("ERR unknown subcommand or wrong number of arguments for 'SHARDCHANNELS'. Try PUBSUB HELP.")},
			{cmd("PUBSUB", "NUMPAT", "x"), errText("ERR wrong number of arguments for 'pubsub|numpat' command")},
			{cmd("PUBSUB", "FOO"), errText("ERR unknown subcommand 'FOO'. Try PUBSUB HELP.")},
			{cmd("PUBSUB"), errText("ERR wrong number of arguments for 'pubsub' command")},
			{cmd("PUBLISH", "a"), errText("ERR wrong number of arguments for 'publish' command")},
			{cmd("SPUBLISH", "a", "b", "c"), errText("ERR wrong number of arguments for 'spublish' command")},
		})
		help := do(t, c, "PUBSUB", "HELP").([]any)
		if len(help) != 14 || help[0] != "PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:" {
			t.Errorf("PUBSUB HELP: %q", help)
		}

		info := infoFields(c.Info(ctxT(t), "stats").Val())
		for f, want := range map[string]string{"pubsub_channels": "2", "pubsub_patterns": "2", "pubsubshard_channels": "1"} {
			if info[f] != want {
				t.Errorf("INFO %s: %q, want %q", f, info[f], want)
			}
		}
		line := ""
		for _, l := range strings.Split(doStr(t, c, "CLIENT", "LIST"), "\n") {
			if strings.HasPrefix(l, "id="+id+" ") {
				line = l
			}
		}
		if !regexp.MustCompile(` flags=P db=0 sub=2 psub=1 ssub=1 `).MatchString(line) {
			t.Errorf("CLIENT LIST of the subscriber: %q", line)
		}

		// The subscribers are of the pubsub type.
		pubsubIDs := func() []string {
			var out []string
			for _, l := range strings.Split(strings.TrimSpace(doStr(t, c, "CLIENT", "LIST", "TYPE", "pubsub")), "\n") {
				if l != "" {
					out = append(out, strings.Fields(l)[0])
				}
			}
			return out
		}
		if ids := pubsubIDs(); len(ids) != 2 || !slices.Contains(ids, "id="+id) {
			t.Errorf("CLIENT LIST TYPE pubsub: %q", ids)
		}
		if normal := doStr(t, c, "CLIENT", "LIST", "TYPE", "normal"); strings.Contains(normal, "id="+id+" ") || strings.Contains(normal, "flags=P") {
			t.Errorf("CLIENT LIST TYPE normal lists a subscriber: %q", normal)
		}

		// Disconnecting drops every subscription.
		if n := doInt(t, c, "CLIENT", "KILL", "TYPE", "pubsub"); n != 2 {
			t.Fatalf("CLIENT KILL TYPE pubsub: %d", n)
		}
		sub.expectClosed()
		other.expectClosed()
		pollUntil(t, 5*time.Second, func() (bool, string) {
			got := fmt.Sprint(do(t, c, "PUBSUB", "NUMSUB", "a", "b"), do(t, c, "PUBSUB", "NUMPAT"), do(t, c, "PUBSUB", "SHARDNUMSUB", "s"))
			return got == "[a 0 b 0] 0 [s 0]", got
		})
		info = infoFields(c.Info(ctxT(t), "stats").Val())
		if info["pubsub_channels"] != "0" || info["pubsub_patterns"] != "0" || info["pubsubshard_channels"] != "0" {
			t.Errorf("INFO after the subscribers left: %q %q %q", info["pubsub_channels"], info["pubsub_patterns"], info["pubsubshard_channels"])
		}
	})
}

// TestPubSubReset checks RESET: out of subscribed mode, database 0, no
// name, CLIENT REPLY on.
func TestPubSubReset(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		r := dialRaw(t, b.Addr)
		r.send(respCmd("SUBSCRIBE", "a") + respCmd("RESET") + respCmd("GET", "x"))
		r.expectFrames("[subscribe a :1]", "+RESET", "(nil)")
		if n := doInt(t, c, "PUBLISH", "a", "m"); n != 0 {
			t.Fatalf("PUBLISH after RESET: %d receivers", n)
		}
		r.send(respCmd("SELECT", "3") + respCmd("CLIENT", "SETNAME", "x") + respCmd("CLIENT", "REPLY", "OFF") + respCmd("RESET") + respCmd("CLIENT", "INFO"))
		r.expectFrames("+OK", "+OK", "+RESET")
		if got := r.readFrame(); !strings.Contains(got, " name= ") || !strings.Contains(got, " db=0 ") {
			t.Fatalf("CLIENT INFO after RESET: %s", got)
		}
		// After CLIENT REPLY SKIP, RESET is the command skipped.
		r.send(respCmd("CLIENT", "REPLY", "SKIP") + respCmd("RESET") + respCmd("PING"))
		r.expectFrames("+PONG")
		r.send(respCmd("RESET", "x"))
		r.expectFrames("-ERR wrong number of arguments for 'reset' command")

		// RESET discards a transaction and the watches.
		r.send(respCmd("WATCH", "w") + respCmd("MULTI") + respCmd("SET", "w", "1") + respCmd("RESET") + respCmd("EXEC"))
		r.expectFrames("+OK", "+OK", "+QUEUED", "+RESET", "-ERR EXEC without MULTI")
		r.send(respCmd("CLIENT", "INFO"))
		if got := r.readFrame(); !strings.Contains(got, " multi=-1 ") || !strings.Contains(got, " flags=N ") {
			t.Fatalf("CLIENT INFO after RESET in MULTI: %s", got)
		}

		// RESET leaves MONITOR: keyed commands run again and the feed
		// stops, until a new MONITOR.
		m := dialRaw(t, b.Addr)
		m.send(respCmd("MONITOR") + respCmd("RESET") + respCmd("SET", "k", "v") + respCmd("GET", "k"))
		m.expectFrames("+OK", "+RESET", "+OK", "v")
		run(t, c, []step{{cmd("PING"), "PONG"}})
		m.expectQuiet(100 * time.Millisecond)
		m.send(respCmd("MONITOR"))
		m.expectFrames("+OK")
		run(t, c, []step{{cmd("ECHO", "fed"), "fed"}})
		if line := m.readLine(); !strings.HasSuffix(line, `"ECHO" "fed"`+"\r\n") {
			t.Fatalf("MONITOR after RESET: %q", line)
		}
	})
}

// TestPubSubClientReplyOff checks that CLIENT REPLY OFF does not silence
// the subscribe replies and the messages, as in Redis 7.0.
func TestPubSubClientReplyOff(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		sub := dialRaw(t, b.Addr)
		sub.send(respCmd("CLIENT", "REPLY", "OFF") + respCmd("SUBSCRIBE", "a"))
		sub.expectFrames("[subscribe a :1]")
		if n := doInt(t, c, "PUBLISH", "a", "m"); n != 1 {
			t.Fatalf("PUBLISH: %d receivers", n)
		}
		sub.expectFrames("[message a m]")
	})
}

// TestPubSubOutputLimit checks the pubsub class of client-output-buffer-limit:
// CONFIG GET and SET as Redis has them, and a subscriber that does not read
// cut off while the publisher goes on and the server keeps serving.
func TestPubSubOutputLimit(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		const name = "client-output-buffer-limit"
		const wrong = "ERR CONFIG SET failed (possibly related to argument 'client-output-buffer-limit') - "
		run(t, c, []step{
			// Shale's normal class has a hard limit of 1 GiB by default,
			// Redis's none: set it as Redis has it, then compare.
			{cmd("CONFIG", "SET", name, "normal 0 0 0"), ok},
			{cmd("CONFIG", "GET", name), []any{name, "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"}},
			{cmd("CONFIG", "SET", name, "pubsub 1mb 64kb 30"), ok},
			{cmd("CONFIG", "GET", name), []any{name, "normal 0 0 0 slave 268435456 67108864 60 pubsub 1048576 65536 30"}},
			{cmd("CONFIG", "SET", name, "PUBSUB 2mb 0 0 replica 268435456 67108864 60"), ok},
			{cmd("CONFIG", "GET", name), []any{name, "normal 0 0 0 slave 268435456 67108864 60 pubsub 2097152 0 0"}},
			{cmd("CONFIG", "SET", name, "pubsub 1 2"), errText(wrong + "Wrong number of arguments in buffer limit configuration.")},
			{cmd("CONFIG", "SET", name, "foo 1 2 3"), errText(wrong + "Invalid client class specified in buffer limit configuration.")},
			{cmd("CONFIG", "SET", name, "master 1 2 3"), errText(wrong + "Invalid client class specified in buffer limit configuration.")},
			{cmd("CONFIG", "SET", name, "pubsub -1 2 3"), errText(wrong + "Error in hard, soft or soft_seconds setting in buffer limit configuration.")},
			{cmd("CONFIG", "SET", name, "pubsub 1x 2 3"), errText(wrong + "Error in hard, soft or soft_seconds setting in buffer limit configuration.")},
			{cmd("CONFIG", "SET", name, "pubsub 1mb 2mb -3"), errText(wrong + "Error in hard, soft or soft_seconds setting in buffer limit configuration.")},
			// All or nothing: a bad class later leaves the pubsub class.
			{cmd("CONFIG", "SET", name, "pubsub 4mb 0 0 foo 1 2 3"), errText(wrong + "Invalid client class specified in buffer limit configuration.")},
			{cmd("CONFIG", "GET", name), []any{name, "normal 0 0 0 slave 268435456 67108864 60 pubsub 2097152 0 0"}},
		})

		slow := dialRaw(t, b.Addr)
		slow.send(respCmd("SUBSCRIBE", "flood"))
		slow.expectFrames("[subscribe flood :1]")
		// It reads no more. Each PUBLISH must answer at once: the loop
		// runs on go-redis's 3s timeouts.
		msg := strings.Repeat("x", 64<<10)
		cut := false
		for i := 0; i < 4096 && !cut; i++ {
			cut = doInt(t, c, "PUBLISH", "flood", msg) == 0
		}
		if !cut {
			t.Fatal("the subscriber was not cut off after 256 MiB of messages")
		}
		run(t, c, []step{
			{cmd("PING"), "PONG"},
			{cmd("PUBSUB", "NUMSUB", "flood"), []any{"flood", int64(0)}},
		})
		// The subscriber reads what was sent before the cut, then the end.
		_ = slow.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.Copy(io.Discard, slow.r); err != nil {
			t.Fatalf("the slow subscriber's connection did not end: %v", err)
		}
	})
}

// TestPubSubSoftLimit checks the soft limit: a subscriber over it for
// longer than its seconds is cut off, on the next message.
func TestPubSubSoftLimit(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{{cmd("CONFIG", "SET", "client-output-buffer-limit", "pubsub 0 1mb 1"), ok}})
		slow := dialRaw(t, b.Addr)
		slow.send(respCmd("SUBSCRIBE", "flood"))
		slow.expectFrames("[subscribe flood :1]")
		msg := strings.Repeat("x", 64<<10)
		// Well past the soft limit, and whatever the kernel buffers.
		for range 256 {
			if doInt(t, c, "PUBLISH", "flood", msg) != 1 {
				t.Fatal("cut off before the soft limit's seconds")
			}
		}
		time.Sleep(2100 * time.Millisecond)
		pollUntil(t, 5*time.Second, func() (bool, string) {
			n := doInt(t, c, "PUBLISH", "flood", "m")
			return n == 0, fmt.Sprintf("%d receivers", n)
		})
	})
}

// TestPubSubNoIdleTimeout checks that a subscriber waiting for messages is
// never closed by the idle timeout, as in Redis, while an idle normal
// client is.
func TestPubSubNoIdleTimeout(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{{cmd("CONFIG", "SET", "timeout", "1"), ok}})
		sub := dialRaw(t, b.Addr)
		sub.send(respCmd("SUBSCRIBE", "a"))
		sub.expectFrames("[subscribe a :1]")
		idle := dialRaw(t, b.Addr)
		idle.send(respCmd("PING"))
		idle.expectFrames("+PONG")
		time.Sleep(3 * time.Second)
		idle.expectClosed()
		if n := doInt(t, c, "PUBLISH", "a", "still here"); n != 1 {
			t.Fatalf("PUBLISH after the timeout: %d receivers", n)
		}
		sub.expectFrames("[message a still here]")
	})
}

// TestResetAuthentication checks that RESET authenticates the client as a
// new connection is: not at all when the server has a password.
func TestResetAuthentication(t *testing.T) {
	forEachBackendOpts(t, passwordBackends, func(t *testing.T, _ *redis.Client, b backend) {
		r := dialRaw(t, b.Addr)
		r.send(respCmd("RESET") + respCmd("AUTH", clientPassword) + respCmd("GET", "k") + respCmd("RESET") + respCmd("GET", "k"))
		r.expectFrames("+RESET", "+OK", "(nil)", "+RESET", "-NOAUTH Authentication required.")
	})
}
