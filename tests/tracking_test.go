package tests

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Client-side caching (CLIENT TRACKING). The cases of trackingCorpus run
// as the RESP3 corpus's do (runResp3Case): on fresh connections to a real
// redis-server 7.0.15 and to Shale, after HELLO 2 and after HELLO 3, and
// every reply, invalidation push and __redis__:invalidate message must be
// the same bytes on both. An invalidation for the tracking connection
// itself is a push, which RESP2 cannot send: those reads run under RESP3
// alone (under(3, recv())). TestTrackingCacheNeverStale drives a small
// client-side cache against Shale while another connection writes.

var trackingCorpus = []resp3Case{
	{"errors", []r3step{
		c("CLIENT", "TRACKING"),
		c("CLIENT", "TRACKING", "maybe"),
		c("CLIENT", "TRACKING", "on", "foo"),
		c("CLIENT", "TRACKING", "on", "redirect"),
		c("CLIENT", "TRACKING", "on", "redirect", "abc"),
		c("CLIENT", "TRACKING", "off", "redirect", "abc"),
		c("CLIENT", "TRACKING", "on", "redirect", "999999"),
		c("CLIENT", "TRACKING", "on", "redirect", "0"),
		c("CLIENT", "TRACKING", "on", "prefix", "a"),
		c("CLIENT", "TRACKING", "on", "bcast", "prefix"),
		c("CLIENT", "TRACKING", "on", "bcast", "optin"),
		c("CLIENT", "TRACKING", "on", "optin", "optout"),
		c("CLIENT", "TRACKING", "on", "bcast", "prefix", "a", "prefix", "ab"),
		c("CLIENT", "TRACKING", "on", "bcast", "prefix", "a", "prefix", "b", "prefix", "a"),
		c("CLIENT", "TRACKING", "on", "bcast", "prefix", "a", "prefix", ""),
		// Redis prints the prefixes with %s: up to a NUL byte.
		c("CLIENT", "TRACKING", "on", "bcast", "prefix", "a\x00b", "prefix", "a"),
		// OFF parses the options, and checks none.
		c("CLIENT", "TRACKING", "off", "prefix", "a", "bcast", "optin", "optout"),
		c("CLIENT", "CACHING", "yes"),
		c("CLIENT", "CACHING", "maybe"),
		c("CLIENT", "CACHING"),
		c("CLIENT", "CACHING", "yes", "no"),
		c("CLIENT", "TRACKINGINFO", "x"),
		c("CLIENT", "GETREDIR", "x"),
		c1("CLIENT", "ID").kept().with(anyInts),
		c("CLIENT", "TRACKING", "on", "redirect", prevReply, "redirect", prevReply),
		c("CLIENT", "TRACKING", "on", "optin"),
		c("CLIENT", "TRACKING", "on", "bcast"),
		c("CLIENT", "TRACKING", "on", "optout"),
		c("CLIENT", "CACHING", "no"),
		c("CLIENT", "CACHING", "maybe"),
		c("CLIENT", "CACHING", "yes"),
		c("CLIENT", "TRACKINGINFO"),
		c("CLIENT", "TRACKING", "off"),
		c("CLIENT", "TRACKING", "on", "bcast", "prefix", "ab", "prefix", "cd"),
		c("CLIENT", "TRACKING", "on", "bcast", "prefix", "a"),
		c("CLIENT", "TRACKING", "on", "bcast", "prefix", "cde"),
		c("CLIENT", "TRACKING", "on", "bcast", "prefix", "ab"),
		c("CLIENT", "TRACKING", "on"),
		c("CLIENT", "CACHING", "yes"),
	}},
	{"trackinginfo and getredir", []r3step{
		c("CLIENT", "TRACKINGINFO"),
		c("CLIENT", "GETREDIR"),
		c("CLIENT", "TRACKING", "on", "optin", "noloop"),
		c("CLIENT", "CACHING", "yes"),
		c("CLIENT", "TRACKINGINFO"),
		c("CLIENT", "INFO").with(clientInfoNorm),
		c("CLIENT", "GETREDIR"),
		// ON again resets the mode flags, not CLIENT CACHING's.
		c("CLIENT", "TRACKING", "on", "optin"),
		c("CLIENT", "TRACKINGINFO"),
		c("CLIENT", "TRACKING", "on"),
		c("CLIENT", "TRACKINGINFO"),
		c("CLIENT", "TRACKING", "off"),
		c("CLIENT", "TRACKING", "on", "optout"),
		c("CLIENT", "CACHING", "no"),
		c("CLIENT", "TRACKINGINFO"),
		c("CLIENT", "TRACKING", "off"),
		// BCAST prefixes add up, sorted; ON BCAST without one adds "".
		c("CLIENT", "TRACKING", "on", "bcast", "prefix", "q", "prefix", "\x00z", "prefix", "b\r\nc"),
		c("CLIENT", "TRACKING", "on", "bcast", "prefix", "x", "noloop"),
		c("CLIENT", "TRACKINGINFO"),
		c("CLIENT", "INFO").with(clientInfoNorm),
		c("CLIENT", "TRACKING", "on", "bcast"),
		c("CLIENT", "TRACKINGINFO"),
		c("CLIENT", "TRACKING", "on", "bcast", "prefix", "y"),
		c("CLIENT", "TRACKING", "off"),
		c("CLIENT", "TRACKINGINFO"),
		c("CLIENT", "INFO").with(clientInfoNorm),
	}},
	{"default mode", []r3step{
		c("CLIENT", "TRACKING", "on"),
		c("GET", "k1"),
		c("MGET", "k2", "k3"),
		c("HGET", "h", "f"),
		c("SMEMBERS", "s"),
		c("ZSCORE", "z", "m"),
		c("EXISTS", "e1", "e2"),
		c("TTL", "t"),
		c("LRANGE", "l", "0", "-1"),
		c1("SET", "k1", "v"),
		under(3, recv()),
		c1("MSET", "k2", "v", "k3", "v", "k1", "v"),
		under(3, recv()),
		under(3, recv()),
		c1("HSET", "h", "f", "1"),
		under(3, recv()),
		c1("SADD", "s", "1"),
		under(3, recv()),
		c1("ZADD", "z", "1", "m"),
		under(3, recv()),
		c1("SET", "e2", "1"),
		under(3, recv()),
		c1("SET", "t", "1", "EX", "100"),
		under(3, recv()),
		c1("RPUSH", "l", "a"),
		under(3, recv()),
		// Read again to hear of the next write; a write that changes
		// nothing invalidates nothing.
		c("GET", "k1"),
		c("GET", "k2"),
		c1("DEL", "nothing", "k2"),
		under(3, recv()),
		c1("EXPIRE", "nothing", "100"),
		c1("RENAME", "k1", "k2"),
		under(3, recv()),
		c("GET", "k2"),
		c("GET", "k4"),
		c1("SELECT", "1"),
		// Keys are tracked by name, whatever the database.
		c1("SET", "k2", "db1"),
		under(3, recv()),
		c1("SELECT", "0"),
		c("SMEMBERS", "dst"),
		c1("SADD", "src", "a"),
		c1("SINTERSTORE", "dst", "src"),
		under(3, recv()),
		c("GET", "mv"),
		c1("SET", "mv", "1"),
		under(3, recv()),
		c("GET", "mv"),
		c("GET", "cp2"),
		c1("MOVE", "mv", "1"),
		under(3, recv()),
		c1("COPY", "src", "cp2"),
		under(3, recv()),
		c("GET", "k4"),
		c1("FLUSHDB"),
		under(3, recv()),
		c1("FLUSHALL"),
		under(3, recv()),
		// The flush emptied the table: k4 needs another read.
		c1("SET", "k4", "v"),
		c("GET", "k4"),
		c1("SET", "k4", "w"),
		under(3, recv()),
	}},
	{"own writes", []r3step{
		c("CLIENT", "TRACKING", "on"),
		c("GET", "k"),
		// The invalidation of a key the client itself writes follows the
		// write's reply.
		c("SET", "k", "1"),
		under(3, recv()),
		c("MGET", "a", "b"),
		c("MSET", "a", "1", "b", "2"),
		under(3, recv()),
		under(3, recv()),
		// A write pipelined with a command that runs apart (ECHO): the
		// invalidation comes between their replies.
		c("GET", "k"),
		pipe([]string{"SET", "k", "3"}, []string{"ECHO", "next"}),
		recv(),
		under(3, recv()),
		recv(),
		// Two writes Shale groups: the invalidation follows the first
		// one's reply, not the group's last.
		c("GET", "k"),
		pipe([]string{"SET", "k", "4"}, []string{"SET", "other", "1"}, []string{"ECHO", "next"}),
		recv(),
		under(3, recv()),
		recv(),
		recv(),
		c("GET", "k"),
		c("MULTI"),
		c("SET", "k", "2"),
		c("GET", "k"),
		// After the whole of EXEC's reply.
		c("EXEC"),
		under(3, recv()),
		c("GET", "k"),
		c("FLUSHDB"),
		under(3, recv()),
		c("CLIENT", "TRACKING", "off"),
		c("CLIENT", "TRACKING", "on", "noloop"),
		c("GET", "n"),
		c("SET", "n", "1"),
		c1("SET", "n", "2"),
		c("PING"),
	}},
	{"optin and optout", []r3step{
		c("CLIENT", "TRACKING", "on", "optin"),
		c("GET", "o1"),
		c("CLIENT", "CACHING", "yes"),
		c("GET", "o2"),
		c("GET", "o3"),
		// Any CLIENT subcommand keeps CLIENT CACHING for the next
		// command; an unknown one does not, nor does any other command.
		c("CLIENT", "CACHING", "yes"),
		c("CLIENT", "ID").with(anyInts),
		c("GET", "o4"),
		c("CLIENT", "CACHING", "yes"),
		c("CLIENT", "NOSUCH"),
		c("GET", "o5"),
		c("CLIENT", "CACHING", "yes"),
		c("PING"),
		c("GET", "o6"),
		// MULTI keeps it for the transaction's commands.
		c("CLIENT", "CACHING", "yes"),
		c("MULTI"),
		c("GET", "o7"),
		c("EXEC"),
		c("GET", "o8"),
		c("MULTI"),
		c("CLIENT", "CACHING", "yes"),
		c("GET", "o9"),
		c("EXEC"),
		c1("MSET", "o1", "1", "o3", "1", "o5", "1", "o6", "1", "o8", "1"),
		c1("SET", "o2", "1"),
		under(3, recv()),
		c1("SET", "o4", "1"),
		under(3, recv()),
		c1("SET", "o7", "1"),
		under(3, recv()),
		c1("SET", "o9", "1"),
		under(3, recv()),
		c("CLIENT", "TRACKING", "off"),
		c("CLIENT", "TRACKING", "on", "optout"),
		c("GET", "p1"),
		c("CLIENT", "CACHING", "no"),
		c("GET", "p2"),
		c("GET", "p3"),
		c1("MSET", "p2", "1"),
		c1("SET", "p1", "1"),
		under(3, recv()),
		c1("SET", "p3", "1"),
		under(3, recv()),
	}},
	{"bcast", []r3step{
		c("CLIENT", "TRACKING", "on", "bcast", "prefix", "user:", "prefix", "obj:"),
		c1("CLIENT", "TRACKING", "on", "bcast", "noloop"),
		c1("SET", "user:1", "x"),
		under(3, recv()),
		// One message per prefix, its keys sorted.
		c1("MSET", "user:2", "x", "obj:1", "y", "user:0", "z", "other", "q"),
		under(3, recv()),
		under(3, recv()),
		c("SET", "obj:2", "1"),
		under(3, recv()),
		under(3, recv1()),
		c1("MULTI"),
		c1("SET", "user:9", "1"),
		c1("SET", "user:8", "1"),
		c1("DEL", "user:9"),
		c1("EXEC"),
		under(3, recv()),
		c1("FLUSHALL"),
		under(3, recv()),
		under(3, recv1()),
	}},
	{"redirect", []r3step{
		c1("CLIENT", "ID").kept().with(anyInts),
		c1("SUBSCRIBE", "__redis__:invalidate"),
		c("CLIENT", "TRACKING", "on", "redirect", prevReply),
		c("CLIENT", "GETREDIR").with(anyInts),
		c("CLIENT", "TRACKINGINFO").with(field("redirect", anyInts)),
		c("GET", "k"),
		c("GET", "j"),
		c("SET", "k", "1"),
		recv1(),
		c("GET", "k"),
		c("RENAME", "k", "j"),
		recv1(),
		recv1(),
		c("GET", "j"),
		c("SET", "j", "1", "PX", "1"),
		recv1(),
		c("FLUSHALL"),
		recv1(),
		// The redirect client leaves: the next invalidation breaks the
		// redirection, which a RESP3 client hears of.
		c("CLIENT", "KILL", "ID", prevReply),
		c("GET", "k"),
		c("SET", "k", "2"),
		under(3, recv().with(anyInts)),
		c("CLIENT", "TRACKINGINFO").with(field("redirect", anyInts)),
		c("CLIENT", "INFO").with(clientInfoNorm, redact(`redir=\d+`, "redir=*")),
		c("FLUSHALL"),
		under(3, recv().with(anyInts)),
	}},
	{"expiry", []r3step{
		c("CLIENT", "TRACKING", "on"),
		c1("SET", "x", "1", "PX", "100"),
		c("GET", "x"),
		// Active expiry removes x meanwhile, or, in Redis, which the
		// sleep blocks, right after.
		c1("DEBUG", "SLEEP", "0.3"),
		under(3, recv()),
		c("GET", "x"),
		c1("SET", "x", "2"),
		under(3, recv()),
	}},
	{"scripts", []r3step{
		c("CLIENT", "TRACKING", "on"),
		// Redis 7.0 tracks, for a read a script runs, the keys the script
		// was given.
		c("EVAL", "return redis.call('get', KEYS[1])", "1", "ev"),
		c("EVAL_RO", "return redis.call('get', 'other')", "1", "ev2"),
		c1("MSET", "ev", "1", "ev2", "1", "other", "1"),
		under(3, recv()),
		under(3, recv()),
		c("GET", "ev"),
		c1("EVAL", "redis.call('set', KEYS[1], '2') return 1", "1", "ev"),
		under(3, recv()),
	}},
	{"swapdb", []r3step{
		c1("SET", "sw", "0"),
		c1("SELECT", "1"),
		c1("SET", "sw", "1"),
		c("CLIENT", "TRACKING", "on"),
		c("GET", "sw"),
		// Redis 7.0 invalidates nothing for SWAPDB: a cache keeps the
		// value of the database it read.
		c1("SWAPDB", "0", "1"),
		c("GET", "sw"),
		c1("SET", "sw", "2"),
		under(3, recv()),
	}},
	{"blocked client", []r3step{
		c("CLIENT", "TRACKING", "on"),
		c("GET", "k"),
		send("BLPOP", "list", "0"),
		// A client that waits hears of its keys meanwhile.
		c1("SET", "k", "1"),
		under(3, recv()),
		c1("RPUSH", "list", "a"),
		recv(),
	}},
	{"reset and hello", []r3step{
		c("CLIENT", "TRACKING", "on", "optin"),
		c("CLIENT", "CACHING", "yes"),
		c("RESET"),
		c("CLIENT", "TRACKINGINFO"),
		c("HELLO", "3").with(helloNorm...),
		c("CLIENT", "TRACKING", "on"),
		c("GET", "rk"),
		// A RESP2 client without REDIRECT hears nothing; the key is
		// forgotten all the same.
		c("HELLO", "2").with(helloNorm...),
		c1("SET", "rk", "1"),
		c("GET", "rk"),
		c("HELLO", "3").with(helloNorm...),
		c1("SET", "rk", "2"),
		recv(),
	}},
	{"info", []r3step{
		c("INFO", "stats").with(infoLines("tracking_")),
		c("INFO", "clients").with(infoLines("tracking_")),
		c("CLIENT", "TRACKING", "on"),
		c("MGET", "a", "b", "c"),
		c1("CLIENT", "TRACKING", "on"),
		c1("GET", "a"),
		c1("CLIENT", "TRACKING", "on", "bcast", "prefix", "x", "prefix", "y"),
		c("INFO", "stats").with(infoLines("tracking_")),
		c("INFO", "clients").with(infoLines("tracking_")),
		c1("CLIENT", "TRACKING", "off"),
		c1("SET", "a", "1"),
		under(3, recv()),
		c("INFO", "stats").with(infoLines("tracking_")),
		c("INFO", "clients").with(infoLines("tracking_")),
	}},
}

// infoLines keeps, of an INFO reply, the lines that start with prefix.
func infoLines(prefix string) normalizer {
	return func(n *rnode) {
		var kept []string
		for _, l := range strings.Split(n.text, "\r\n") {
			if strings.HasPrefix(l, prefix) {
				kept = append(kept, l)
			}
		}
		n.text = strings.Join(kept, "\r\n")
	}
}

func TestTrackingCorpus(t *testing.T) {
	t.Parallel()
	rp := startRedis(t, "--enable-debug-command", "yes")
	sp := startShale(t, shaleOpts{Config: debugConfig})
	servers := [2]resp3Server{{"redis", rp.Addr}, {"shale", sp.Addr}}
	for _, tc := range trackingCorpus {
		t.Run(tc.name, func(t *testing.T) {
			for _, proto := range []int{2, 3} {
				t.Run("resp"+strconv.Itoa(proto), func(t *testing.T) {
					for _, srv := range servers {
						flushServer(t, srv.addr)
					}
					runResp3Case(t, servers, proto, tc)
				})
			}
		})
	}
}

// TestTrackingTableMaxKeys: past tracking-table-max-keys, keys leave the
// table at random and their readers hear of it as of a write.
func TestTrackingTableMaxKeys(t *testing.T) {
	t.Parallel()
	rp, sp := startRedis(t), startShale(t, shaleOpts{})
	servers := [2]resp3Server{{"redis", rp.Addr}, {"shale", sp.Addr}}
	oneOfTwo := redact(`^[ab]$`, "a|b")
	tc := resp3Case{"max keys", []r3step{
		c("CONFIG", "GET", "tracking-table-max-keys"),
		c("CONFIG", "SET", "tracking-table-max-keys", "-1"),
		c("CONFIG", "SET", "tracking-table-max-keys", "1"),
		c1("CLIENT", "ID").kept().with(anyInts),
		c1("SUBSCRIBE", "__redis__:invalidate"),
		c("CLIENT", "TRACKING", "on", "redirect", prevReply),
		c("GET", "a"),
		c("GET", "b"),
		recv1().with(oneOfTwo),
		c("CONFIG", "SET", "tracking-table-max-keys", "1000000"),
	}}
	for _, proto := range []int{2, 3} {
		t.Run("resp"+strconv.Itoa(proto), func(t *testing.T) {
			for _, srv := range servers {
				flushServer(t, srv.addr)
			}
			runResp3Case(t, servers, proto, tc)
		})
	}
}

// trackingCache is a client-side cache over one RESP3 connection with
// tracking on: GET fills it, an invalidation push empties the key (a null
// one, all of it). One goroutine drives it; the pushes are read in line
// with the replies, as a RESP3 client reads them.
type trackingCache struct {
	conn   net.Conn
	r      *bufio.Reader
	values map[string]string
	log    []string // what it did, for a failure's report
}

func dialTrackingCache(t *testing.T, addr string) *trackingCache {
	t.Helper()
	cn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cn.Close() })
	tc := &trackingCache{conn: cn, r: bufio.NewReader(cn), values: map[string]string{}}
	for _, args := range [][]string{{"HELLO", "3"}, {"CLIENT", "TRACKING", "on"}} {
		if _, err := tc.do(args...); err != nil {
			t.Fatal(err)
		}
	}
	return tc
}

// do sends a command and returns its reply, applying the pushes that come
// before it.
func (tc *trackingCache) do(args ...string) (rnode, error) {
	_ = tc.conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := tc.conn.Write([]byte(respCmd(args...))); err != nil {
		return rnode{}, err
	}
	for {
		n, err := readReply(tc.r)
		if err != nil {
			return rnode{}, err
		}
		if n.kind != '>' {
			return n, nil
		}
		if len(n.elems) != 2 || n.elems[0].text != "invalidate" {
			return rnode{}, fmt.Errorf("unexpected push %s", n)
		}
		if n.elems[1].null || n.elems[1].kind == '_' {
			clear(tc.values)
			continue
		}
		for _, k := range n.elems[1].elems {
			tc.log = append(tc.log, "inval "+k.text+" had "+tc.values[k.text])
			delete(tc.values, k.text)
		}
	}
}

// get answers from the cache, or reads the key and caches it.
func (tc *trackingCache) get(key string) (string, error) {
	if v, ok := tc.values[key]; ok {
		return v, nil
	}
	n, err := tc.do("GET", key)
	if err != nil {
		return "", err
	}
	v := n.text // "" for a missing key: cached too
	tc.values[key] = v
	tc.log = append(tc.log, "get "+key+" = "+v)
	return v, nil
}

// TestTrackingCacheNeverStale: writers change keys, alone, pipelined
// (one pipeline group), in transactions and in scripts, while readers
// serve them from client-side caches. Once a write's reply is back and a
// reader then makes a round trip (PING), the reader's cache never serves
// the value that write replaced.
func TestTrackingCacheNeverStale(t *testing.T) {
	t.Parallel()
	sp := startShale(t, shaleOpts{})
	const keys, readers, writers, rounds = 8, 3, 2, 500
	key := func(i int) string { return "cache:" + strconv.Itoa(i) }
	// last holds each key's latest value whose write has returned: the
	// values are counters (INCR), so stale means below it.
	var last [keys]atomic.Int64
	errs := make(chan error, readers+writers)
	var writing, reading sync.WaitGroup
	// writes names the write that made each value, for a failure's report.
	var wmu sync.Mutex
	writes := map[string]string{}
	for w := range writers {
		writing.Add(1)
		go func() {
			defer writing.Done()
			wc := dialRaw(t, sp.Addr)
			rng := rand.New(rand.NewPCG(uint64(w), 17))
			for range rounds {
				k, j := rng.IntN(keys), rng.IntN(keys)
				var cmds [][]string
				switch rng.IntN(4) {
				case 0:
					cmds = [][]string{{"INCR", key(k)}}
				case 1: // pipelined: one group, one write
					cmds = [][]string{{"INCR", key(k)}, {"INCR", key(j)}}
				case 2:
					cmds = [][]string{{"MULTI"}, {"INCR", key(k)}, {"EXEC"}}
				default:
					cmds = [][]string{{"EVAL", "return redis.call('INCR', KEYS[1])", "1", key(k)}}
				}
				var req string
				for _, cmd := range cmds {
					req += respCmd(cmd...)
				}
				if _, err := wc.conn.Write([]byte(req)); err != nil {
					errs <- err
					return
				}
				for _, cmd := range cmds {
					_ = wc.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
					n, err := readReply(wc.r)
					if err != nil {
						errs <- err
						return
					}
					if cmd[0] == "EXEC" {
						n, cmd = n.elems[0], cmds[1]
					}
					if n.kind != ':' {
						continue // MULTI's +OK, INCR's +QUEUED
					}
					v, _ := strconv.ParseInt(n.text, 10, 64)
					raise(&last[keyIndex(cmd)], v)
					wmu.Lock()
					writes[key(keyIndex(cmd))+"="+n.text] = fmt.Sprintf("writer %d: %q", w, cmds)
					wmu.Unlock()
				}
			}
		}()
	}
	var stop atomic.Bool
	for range readers {
		reading.Add(1)
		go func() {
			defer reading.Done()
			tc := dialTrackingCache(t, sp.Addr)
			for !stop.Load() {
				// What was written before the round trip ...
				var floor [keys]int64
				for k := range keys {
					floor[k] = last[k].Load()
				}
				if _, err := tc.do("PING"); err != nil {
					errs <- err
					return
				}
				// ... the cache must not answer older than.
				for k := range keys {
					v, err := tc.get(key(k))
					if err != nil {
						errs <- err
						return
					}
					if n, _ := strconv.ParseInt(v, 10, 64); n < floor[k] {
						var hist []string
						for _, l := range tc.log {
							if strings.Contains(l, key(k)+" ") {
								hist = append(hist, l)
							}
						}
						if len(hist) > 12 {
							hist = hist[len(hist)-12:]
						}
						errs <- fmt.Errorf("%s: the cache served %d after %d was written; %q", key(k), n, floor[k], hist)
						return
					}
				}
			}
		}()
	}
	writing.Wait()
	stop.Store(true)
	reading.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		for k, v := range writes {
			t.Log(k, v)
		}
	}
}

// keyIndex is the number of the cache:N key an INCR or an EVAL names.
func keyIndex(cmd []string) int {
	n, _ := strconv.Atoi(cmd[len(cmd)-1][len("cache:"):])
	return n
}

// raise sets v to at least n.
func raise(v *atomic.Int64, n int64) {
	for {
		old := v.Load()
		if old >= n || v.CompareAndSwap(old, n) {
			return
		}
	}
}
