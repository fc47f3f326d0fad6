package tests

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// notifyScript are the commands whose keyspace notifications
// TestKeyspaceNotifications compares: every write command's events, in
// order, on both servers.
var notifyScript = [][]any{
	{"SET", "s", "1"}, {"SET", "s", "2", "EX", "100"}, {"SETNX", "s", "3"}, {"SETEX", "s2", "100", "v"},
	{"PSETEX", "s3", "100000", "v"}, {"GETSET", "s", "4"}, {"MSET", "m1", "1", "m2", "2"}, {"MSETNX", "m3", "1"},
	{"APPEND", "s", "x"}, {"SETRANGE", "s", "0", "y"}, {"INCR", "n"}, {"DECR", "n"}, {"INCRBY", "n", "5"},
	{"DECRBY", "n", "2"}, {"INCRBYFLOAT", "n", "1.5"}, {"GETEX", "s", "PX", "100000"}, {"GETEX", "s", "PERSIST"},
	{"GETDEL", "m1"}, {"SET", "k", "v", "KEEPTTL"}, {"SET", "k", "v", "NX"},
	{"EXPIRE", "k", "100"}, {"PEXPIRE", "k", "100000"}, {"PERSIST", "k"}, {"EXPIRE", "nokey", "10"},
	{"EXPIRE", "k", "-1"}, {"SET", "k", "v"}, {"RENAME", "k", "k2"}, {"RENAMENX", "k2", "k3"},
	{"MOVE", "k3", "1"}, {"SET", "c", "v"}, {"COPY", "c", "c2"}, {"COPY", "c", "c3", "DB", "2"},
	{"DEL", "c", "c2", "nokey"}, {"UNLINK", "m2"},
	{"HSET", "h", "a", "1", "b", "2"}, {"HSETNX", "h", "c", "3"}, {"HSETNX", "h", "c", "3"}, {"HMSET", "h", "d", "4"},
	{"HINCRBY", "h", "a", "1"}, {"HINCRBYFLOAT", "h", "a", "1.5"}, {"HDEL", "h", "a", "nofield"},
	{"HDEL", "h", "b", "c", "d"}, {"HDEL", "h", "x"},
	{"RPUSH", "l", "a", "b", "c", "d", "e"}, {"LPUSH", "l", "z"}, {"LPUSHX", "l", "y"}, {"RPUSHX", "nolist", "y"},
	{"LPOP", "l"}, {"RPOP", "l", "2"}, {"LINSERT", "l", "BEFORE", "b", "q"}, {"LSET", "l", "0", "w"},
	{"LREM", "l", "0", "q"}, {"LREM", "l", "0", "nothing"}, {"LTRIM", "l", "0", "2"}, {"RPOPLPUSH", "l", "l2"},
	{"LMOVE", "l", "l2", "LEFT", "RIGHT"}, {"BLPOP", "nolist", "l", "0"}, {"BRPOP", "l2", "0"},
	{"LMPOP", "2", "nolist", "l2", "LEFT"}, {"RPUSH", "l2", "x", "y"}, {"BLMOVE", "l2", "l3", "RIGHT", "LEFT", "0"}, {"BRPOPLPUSH", "l3", "l4", "0"},
	{"LPOP", "l4"},
	{"SADD", "st", "a", "b", "c"}, {"SADD", "st", "a"}, {"SREM", "st", "a"}, {"SREM", "st", "nope"},
	{"SMOVE", "st", "st2", "b"}, {"SPOP", "st"}, {"SADD", "st", "x"}, {"SINTERSTORE", "st3", "st", "st2"},
	{"SUNIONSTORE", "st3", "st", "st2"}, {"SDIFFSTORE", "st4", "st", "st"}, {"SDIFFSTORE", "nost", "st", "st"},
	{"ZADD", "z", "1", "a", "2", "b", "3", "c"}, {"ZADD", "z", "INCR", "5", "a"}, {"ZADD", "z", "NX", "1", "a"},
	{"ZINCRBY", "z", "1", "b"}, {"ZREM", "z", "c"}, {"ZADD", "z", "9", "x", "10", "y"}, {"ZREMRANGEBYSCORE", "z", "9", "9"},
	{"ZREMRANGEBYRANK", "z", "0", "0"}, {"ZADD", "zl", "0", "a", "0", "b"}, {"ZREMRANGEBYLEX", "zl", "[a", "[a"},
	{"ZUNIONSTORE", "zu", "2", "z", "zl"}, {"ZINTERSTORE", "zi", "2", "z", "zl"}, {"ZDIFFSTORE", "zd", "1", "z"},
	{"ZRANGESTORE", "zr", "z", "0", "-1"}, {"ZPOPMIN", "z"}, {"ZPOPMAX", "zu"}, {"BZPOPMIN", "noz", "zu", "0"},
	{"BZPOPMAX", "zr", "0"}, {"ZMPOP", "1", "zd", "MIN"}, {"BZMPOP", "0", "1", "zl", "MAX"},
	{"RPUSH", "srt", "3", "1", "2"}, {"SORT", "srt", "STORE", "srt2"}, {"SORT", "nolist", "STORE", "srt2"},
	{"HSET", "hq", "q", "1"}, {"HSET", "hq", "q", "1"}, {"ZADD", "zq", "1", "m"}, {"ZADD", "zq", "1", "m"},
	{"RPUSH", "lq", "a"}, {"LTRIM", "lq", "0", "100"},
	{"PFADD", "hl", "a", "b"}, {"PFADD", "hl", "a"}, {"PFCOUNT", "hl"}, {"PFMERGE", "hl2", "hl", "nohll"},
	{"PFCOUNT", "nohll2", "hl"}, {"PFADD", "hl3"},
	{"GEOADD", "geo", "13.361389", "38.115556", "a", "15.087269", "37.502669", "b"}, {"GEOADD", "geo", "NX", "1", "1", "a"},
	{"GEOADD", "geo", "XX", "CH", "1", "1", "a"}, {"GEOSEARCHSTORE", "geo2", "geo", "FROMMEMBER", "a", "BYRADIUS", "1", "km"},
	{"GEOSEARCHSTORE", "geo2", "geo", "FROMLONLAT", "50", "50", "BYRADIUS", "1", "km"},
	{"GEORADIUS", "geo", "1", "1", "10", "km", "STORE", "geo3"}, {"GEORADIUSBYMEMBER", "geo", "a", "1", "km", "STOREDIST", "geo3"},
	{"GEORADIUS", "nogeo", "1", "1", "10", "km", "STORE", "geo3"}, {"GEOSEARCH", "nogeo2", "FROMLONLAT", "1", "1", "BYRADIUS", "1", "m"},
	{"GEOPOS", "nogeo3", "a"}, {"GEODIST", "nogeo4", "a", "b"}, {"GEOHASH", "nogeo5", "a"},
	// Reads of missing keys: keymiss, with m.
	{"GET", "nokey1"}, {"MGET", "s", "nokey2"}, {"HGET", "nohash", "f"}, {"LRANGE", "nolist2", "0", "-1"},
	{"EXISTS", "nokey3"}, {"TYPE", "nokey4"}, {"TTL", "nokey5"}, {"SMEMBERS", "noset"}, {"ZSCORE", "nozset", "m"},
	{"STRLEN", "nokey6"}, {"INCR", "newcounter"}, {"HGETALL", "nohash2"}, {"SCARD", "noset2"}, {"LLEN", "nolist3"},
	{"ZCARD", "noz2"}, {"HEXISTS", "nohash3", "f"}, {"GETRANGE", "nokey7", "0", "1"}, {"SISMEMBER", "noset3", "x"},
	{"ZRANGE", "noz3", "0", "-1"}, {"LINDEX", "nolist4", "0"}, {"HLEN", "nohash4"}, {"GET", "s"},
	{"SORT", "nolist5"}, {"SORT", "nolist6", "STORE", "nodst"}, {"OBJECT", "ENCODING", "nokey8"}, {"GETEX", "nokey13"},
	{"GETDEL", "nokey14"}, {"COPY", "nokey15", "nodst2"}, {"HRANDFIELD", "nohash5"}, {"LPOS", "nolist7", "a"},
	{"SET", "exp", "v", "PX", "1"},
}

// TestKeyspaceNotifications runs notifyScript on real redis-server and on
// Shale with every class of notification on, and compares the messages a
// pattern subscriber gets, in order; then expired events, from active
// expiry and from a read, and the class filter.
func TestKeyspaceNotifications(t *testing.T) {
	redisP, shale := startRedis(t), startShale(t, shaleOpts{})
	want := notifications(t, redisP.Client, "KEA"+"n")
	got := notifications(t, shale.Client, "KEA"+"n")
	if !slices.Equal(got, want) {
		t.Errorf("notifications differ from redis-server's:\n%s", diffLines(want, got))
	}
	for _, classes := range []string{"Eg", "Kl", "E$x", "Kz", "KEm", "Exm"} {
		want, got := notifications(t, redisP.Client, classes), notifications(t, shale.Client, classes)
		if !slices.Equal(got, want) {
			t.Errorf("classes %q: notifications differ from redis-server's:\n%s", classes, diffLines(want, got))
		}
	}
}

// notifications flushes the server, sets notify-keyspace-events, runs
// notifyScript, waits for an expiry and a read of an expired key, and
// returns every message a __key*__:* pattern subscriber got, one line each.
func notifications(t *testing.T, c *redis.Client, classes string) []string {
	t.Helper()
	ctx := context.Background()
	if err := c.FlushAll(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.ConfigSet(ctx, "notify-keyspace-events", classes).Err(); err != nil {
		t.Fatal(err)
	}
	defer c.ConfigSet(ctx, "notify-keyspace-events", "")
	ps := c.PSubscribe(ctx, "__key*__:*")
	defer ps.Close()
	if _, err := ps.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	conn := c.Conn()
	defer conn.Close()
	for _, args := range notifyScript {
		if err := conn.Do(ctx, args...).Err(); err != nil && err != redis.Nil {
			t.Fatalf("%v: %v", args, err)
		}
	}
	// An expired key found by a read, then one left to active expiry; a
	// final marker, whose events end the wait.
	time.Sleep(20 * time.Millisecond)
	conn.Get(ctx, "exp")
	conn.Set(ctx, "exp2", "v", 20*time.Millisecond)
	time.Sleep(1500 * time.Millisecond)
	if err := conn.ConfigSet(ctx, "notify-keyspace-events", "KEA").Err(); err != nil {
		t.Fatal(err)
	}
	conn.Set(ctx, "zz-end", "1", 0)
	var out []string
	for {
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		msg, err := ps.ReceiveMessage(rctx)
		cancel()
		if err != nil {
			t.Fatalf("after %d messages: %v", len(out), err)
		}
		if strings.Contains(msg.Channel, "zz-end") {
			return out
		}
		if strings.HasSuffix(msg.Payload, "zz-end") {
			continue
		}
		out = append(out, fmt.Sprintf("%s %s", msg.Channel, msg.Payload))
	}
}

// diffLines shows two lists of lines side by side from their first
// difference.
func diffLines(want, got []string) string {
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	var b strings.Builder
	fmt.Fprintf(&b, "first difference at line %d (of %d and %d)\n", i, len(want), len(got))
	for j := max(0, i-3); j < i+12 && (j < len(want) || j < len(got)); j++ {
		var w, g string
		if j < len(want) {
			w = want[j]
		}
		if j < len(got) {
			g = got[j]
		}
		mark := " "
		if w != g {
			mark = "!"
		}
		fmt.Fprintf(&b, "%s %-50s | %s\n", mark, w, g)
	}
	return b.String()
}
