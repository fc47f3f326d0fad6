package tests

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestClientGoRedisApp uses go-redis as an application would: default
// options (HELLO first, CLIENT SETINFO on connect), typed helpers rather
// than Do, pipelines, iterators, struct scanning, blocking pops and typed
// errors, once in each protocol: go-redis v9 speaks RESP3 by default
// (Protocol 3, HELLO 3), and parses maps, sets, doubles and pushes then
// where RESP2 gives it arrays and bulk strings. The rest of tests/ drives
// go-redis with Do and a RESP2 client tuned for tests.
func TestClientGoRedisApp(t *testing.T) {
	t.Parallel()
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("app/resp%d", proto), func(t *testing.T) {
			t.Parallel()
			forEachBackend(t, func(t *testing.T, _ *redis.Client, b backend) {
				c := redis.NewClient(&redis.Options{Addr: b.Addr, Protocol: proto, ClientName: "shale-e2e-go"})
				t.Cleanup(func() { c.Close() })
				app := goRedisApp{t: t, c: c, ctx: ctxT(t)}
				app.speaks(proto)
				app.run()
			})
		})
	}
	// With a password, go-redis sends HELLO 3 AUTH default PASSWORD SETNAME
	// NAME, and on a server that refuses HELLO 3, AUTH and CLIENT SETNAME.
	t.Run("password", func(t *testing.T) {
		t.Parallel()
		forEachBackendOpts(t, passwordBackends, func(t *testing.T, _ *redis.Client, b backend) {
			ctx := ctxT(t)
			c := redis.NewClient(&redis.Options{Addr: b.Addr, Password: clientPassword, DB: 2, ClientName: "shale-e2e-go"})
			t.Cleanup(func() { c.Close() })
			app := goRedisApp{t: t, c: c, ctx: ctx}
			app.speaks(3)
			app.must("ping", c.Ping(ctx).Err())
			name, err := c.ClientGetName(ctx).Result()
			app.must("client getname", err)
			app.equal("client getname", name, "shale-e2e-go")
			app.must("set", c.Set(ctx, "k", "v", 0).Err())
			n, err := c.DBSize(ctx).Result()
			app.must("dbsize", err)
			app.equal("dbsize of db 2", n, 1)
			for _, tc := range []struct{ password, want string }{
				{"", errNoAuth},
				{"wrong", errWrongPass},
			} {
				other := redis.NewClient(&redis.Options{Addr: b.Addr, Password: tc.password, MaxRetries: -1})
				err := other.Get(ctx, "k").Err()
				other.Close()
				if err == nil || err.Error() != tc.want {
					t.Fatalf("password %q: err %v, want %q", tc.password, err, tc.want)
				}
			}
		})
	})
}

type goRedisApp struct {
	t   *testing.T
	c   *redis.Client
	ctx context.Context
}

// run is the application's whole session.
func (a goRedisApp) run() {
	a.strings()
	a.pipelines()
	a.scans()
	a.hashes()
	a.lists()
	a.setsAndZSets()
	a.shapes()
	a.transactions()
	a.errors()
	a.pubsub()
	a.server()
}

// speaks checks that the client's connections speak RESP proto, as the
// server's CLIENT INFO tells.
func (a goRedisApp) speaks(proto int) {
	a.t.Helper()
	info, err := a.c.Do(a.ctx, "CLIENT", "INFO").Text()
	a.must("client info", err)
	if want := fmt.Sprintf(" resp=%d", proto); !strings.Contains(info, want) {
		a.t.Fatalf("client info %q: want%s", info, want)
	}
}

// must fails the test on err (redis.Nil included).
func (a goRedisApp) must(what string, err error) {
	a.t.Helper()
	if err != nil {
		a.t.Fatalf("%s: %v", what, err)
	}
}

func (a goRedisApp) equal(what string, got, want any) {
	a.t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		a.t.Fatalf("%s: got %v, want %v", what, got, want)
	}
}

// pubsub subscribes as a go-redis application does (one PubSub, its
// channel of messages), publishes, and checks that closing the PubSub
// drops its subscriptions on the server.
func (a goRedisApp) pubsub() {
	c, ctx := a.c, a.ctx
	ps := c.Subscribe(ctx, "news", "alerts")
	sub, err := ps.Receive(ctx)
	a.must("subscribe", err)
	a.equal("subscribe reply", sub, &redis.Subscription{Kind: "subscribe", Channel: "news", Count: 1})
	sub, err = ps.Receive(ctx)
	a.must("subscribe", err)
	a.equal("subscribe reply", sub, &redis.Subscription{Kind: "subscribe", Channel: "alerts", Count: 2})
	a.must("psubscribe", ps.PSubscribe(ctx, "news.*"))
	sub, err = ps.Receive(ctx)
	a.must("psubscribe", err)
	a.equal("psubscribe reply", sub, &redis.Subscription{Kind: "psubscribe", Channel: "news.*", Count: 3})
	n, err := c.Publish(ctx, "news", "hello").Result()
	a.must("publish", err)
	a.equal("publish receivers", n, 1)
	a.must("publish", c.Publish(ctx, "news.tech", "go").Err())
	for _, want := range []redis.Message{
		{Channel: "news", Payload: "hello"},
		{Channel: "news.tech", Pattern: "news.*", Payload: "go"},
	} {
		msg, err := ps.ReceiveMessage(ctx)
		a.must("receive message", err)
		a.equal("message", *msg, want)
	}
	numsub, err := c.PubSubNumSub(ctx, "news", "nobody").Result()
	a.must("pubsub numsub", err)
	a.equal("pubsub numsub", numsub, map[string]int64{"news": 1, "nobody": 0})
	a.must("close pubsub", ps.Close())
	deadline := time.Now().Add(5 * time.Second)
	for {
		numsub, err = c.PubSubNumSub(ctx, "news").Result()
		a.must("pubsub numsub", err)
		if numsub["news"] == 0 {
			break
		}
		if time.Now().After(deadline) {
			a.t.Fatalf("pubsub numsub news after Close: %v", numsub)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (a goRedisApp) strings() {
	c, ctx := a.c, a.ctx
	a.must("set", c.Set(ctx, "greeting", "héllo", 0).Err())
	v, err := c.Get(ctx, "greeting").Result()
	a.must("get", err)
	a.equal("get", v, "héllo")
	if _, err := c.Get(ctx, "nobody").Result(); err != redis.Nil {
		a.t.Fatalf("get of a missing key: err %v, want redis.Nil", err)
	}
	ok, err := c.SetNX(ctx, "greeting", "x", 0).Result()
	a.must("setnx", err)
	a.equal("setnx on existing", ok, false)
	n, err := c.IncrBy(ctx, "visits", 42).Result()
	a.must("incrby", err)
	a.equal("incrby", n, 42)
	a.must("mset", c.MSet(ctx, map[string]any{"a": 1, "b": "two"}).Err())
	vals, err := c.MGet(ctx, "a", "missing", "b").Result()
	a.must("mget", err)
	a.equal("mget", vals, []any{"1", nil, "two"})

	// Expiry through the typed helpers.
	a.must("set with ttl", c.Set(ctx, "session", "tok", 100*time.Second).Err())
	ttl, err := c.TTL(ctx, "session").Result()
	a.must("ttl", err)
	if ttl < 95*time.Second || ttl > 100*time.Second {
		a.t.Fatalf("ttl %v, want about 100s", ttl)
	}
	a.must("set px", c.Set(ctx, "flash", "v", 150*time.Millisecond).Err())
	a.must("pexpire", c.PExpire(ctx, "a", 150*time.Millisecond).Err())
	time.Sleep(400 * time.Millisecond)
	if err := c.Get(ctx, "flash").Err(); err != redis.Nil {
		a.t.Fatalf("get of an expired key: err %v, want redis.Nil", err)
	}
	n, err = c.Exists(ctx, "flash", "a").Result()
	a.must("exists", err)
	a.equal("exists after expiry", n, 0)
	ttl, err = c.TTL(ctx, "flash").Result()
	a.must("ttl of missing", err)
	a.equal("ttl of missing", ttl, time.Duration(-2))
}

func (a goRedisApp) pipelines() {
	c, ctx := a.c, a.ctx
	var incr *redis.IntCmd
	var get *redis.StringCmd
	cmds, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i := range 200 {
			p.Set(ctx, fmt.Sprint("p:", i), i, 0)
		}
		p.Incr(ctx, "p:counter")
		incr = p.Incr(ctx, "p:counter")
		get = p.Get(ctx, "p:199")
		return nil
	})
	a.must("pipelined", err)
	a.equal("pipeline length", len(cmds), 203)
	a.equal("pipeline incr", incr.Val(), 2)
	a.equal("pipeline get", get.Val(), "199")

	// A failing command keeps its place; Exec returns the first error and
	// every command still has its own result.
	p := c.Pipeline()
	set := p.Set(ctx, "p:str", "x", 0)
	push := p.LPush(ctx, "p:str", "y")
	after := p.Get(ctx, "p:str")
	bad := p.Do(ctx, "SET", "p:k", "v", "BOGUS")
	_, err = p.Exec(ctx)
	if err == nil || !strings.HasPrefix(err.Error(), "WRONGTYPE") {
		a.t.Fatalf("pipeline Exec: err %v, want the WRONGTYPE of LPUSH", err)
	}
	a.must("pipeline set", set.Err())
	if !redis.HasErrorPrefix(push.Err(), "WRONGTYPE") {
		a.t.Fatalf("pipeline lpush: %v, want WRONGTYPE", push.Err())
	}
	a.equal("pipeline get after error", after.Val(), "x")
	a.equal("pipeline syntax error", bad.Err(), "ERR syntax error")

	// Concurrent use of the pool: every increment lands once.
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				if err := c.Incr(ctx, "p:shared").Err(); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		a.t.Fatalf("concurrent incr: %v", err)
	}
	n, err := c.Get(ctx, "p:shared").Int()
	a.must("get shared", err)
	a.equal("concurrent increments", n, 400)
}

func (a goRedisApp) scans() {
	c, ctx := a.c, a.ctx
	want := map[string]bool{}
	_, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i := range 250 {
			k := fmt.Sprint("user:", i)
			want[k] = true
			p.Set(ctx, k, i, 0)
		}
		for i := range 20 {
			p.SAdd(ctx, fmt.Sprint("group:", i), "m")
		}
		return nil
	})
	a.must("fill", err)
	got := map[string]bool{}
	it := c.Scan(ctx, 0, "user:*", 17).Iterator()
	for it.Next(ctx) {
		got[it.Val()] = true
	}
	a.must("scan iterator", it.Err())
	if !maps.Equal(got, want) {
		a.t.Fatalf("scan iterator found %d keys, want %d", len(got), len(want))
	}
	var groups []string
	it = c.ScanType(ctx, 0, "", 50, "set").Iterator()
	for it.Next(ctx) {
		groups = append(groups, it.Val())
	}
	a.must("scan type iterator", it.Err())
	slices.Sort(groups)
	groups = slices.Compact(groups)
	a.equal("scan type count", len(groups), 20)

	fields := map[string]string{}
	for i := range 300 {
		fields[fmt.Sprint("f", i)] = fmt.Sprint(i * i)
	}
	a.must("hset map", c.HSet(ctx, "profile", fields).Err())
	gotFields := map[string]string{}
	hit := c.HScan(ctx, "profile", 0, "", 25).Iterator()
	for hit.Next(ctx) {
		field := hit.Val()
		if !hit.Next(ctx) {
			a.t.Fatalf("hscan iterator: field %q without a value", field)
		}
		gotFields[field] = hit.Val()
	}
	a.must("hscan iterator", hit.Err())
	if !maps.Equal(gotFields, fields) {
		a.t.Fatalf("hscan iterator found %d fields, want %d", len(gotFields), len(fields))
	}
	zs := make([]redis.Z, 150)
	for i := range zs {
		zs[i] = redis.Z{Score: float64(i), Member: fmt.Sprint("player", i)}
	}
	a.must("zadd", c.ZAdd(ctx, "board", zs...).Err())
	var seen int
	zit := c.ZScan(ctx, "board", 0, "player1*", 40).Iterator()
	for zit.Next(ctx) {
		if !strings.HasPrefix(zit.Val(), "player1") || !zit.Next(ctx) {
			a.t.Fatalf("zscan iterator: bad member/score pair at %q", zit.Val())
		}
		seen++
	}
	a.must("zscan iterator", zit.Err())
	a.equal("zscan matched", seen, 61) // player1, player10..19, player100..149
}

// profile is an application struct stored as a hash.
type profile struct {
	Name  string  `redis:"name"`
	Age   int     `redis:"age"`
	Score float64 `redis:"score"`
	Admin bool    `redis:"admin"`
}

func (a goRedisApp) hashes() {
	c, ctx := a.c, a.ctx
	in := profile{Name: "Ada", Age: 36, Score: 9.5, Admin: true}
	a.must("hset struct", c.HSet(ctx, "user:ada", in).Err())
	var out profile
	a.must("hgetall scan", c.HGetAll(ctx, "user:ada").Scan(&out))
	a.equal("struct round trip", out, in)
	n, err := c.HIncrBy(ctx, "user:ada", "age", 1).Result()
	a.must("hincrby", err)
	a.equal("hincrby", n, 37)
	a.must("hmget scan", c.HMGet(ctx, "user:ada", "name", "age").Scan(&out))
	a.equal("hmget scan", out.Age, 37)
	all, err := c.HGetAll(ctx, "user:nobody").Result()
	a.must("hgetall missing", err)
	a.equal("hgetall missing", len(all), 0)
}

func (a goRedisApp) lists() {
	c, ctx := a.c, a.ctx
	a.must("rpush", c.RPush(ctx, "queue", "a", "b", "c").Err())
	items, err := c.LRange(ctx, "queue", 0, -1).Result()
	a.must("lrange", err)
	a.equal("lrange", items, []string{"a", "b", "c"})
	popped, err := c.LPopCount(ctx, "queue", 2).Result()
	a.must("lpop count", err)
	a.equal("lpop count", popped, []string{"a", "b"})

	start := time.Now()
	if err := c.BLPop(ctx, time.Second, "empty:q").Err(); err != redis.Nil {
		a.t.Fatalf("blpop timeout: err %v, want redis.Nil", err)
	}
	if d := time.Since(start); d < 800*time.Millisecond || d > 3*time.Second {
		a.t.Fatalf("blpop with 1s timeout returned after %v", d)
	}
	// Another goroutine's push wakes the waiter.
	go func() {
		time.Sleep(200 * time.Millisecond)
		c.RPush(ctx, "jobs", "job-1")
	}()
	kv, err := c.BLPop(ctx, 5*time.Second, "empty:q", "jobs").Result()
	a.must("blpop woken", err)
	a.equal("blpop woken", kv, []string{"jobs", "job-1"})
	a.must("rpush", c.RPush(ctx, "jobs", "job-2").Err())
	moved, err := c.BLMove(ctx, "jobs", "working", "LEFT", "RIGHT", time.Second).Result()
	a.must("blmove", err)
	a.equal("blmove", moved, "job-2")
}

func (a goRedisApp) setsAndZSets() {
	c, ctx := a.c, a.ctx
	a.must("sadd", c.SAdd(ctx, "s1", "a", "b", "c").Err())
	a.must("sadd", c.SAdd(ctx, "s2", "b", "c", "d").Err())
	inter, err := c.SInter(ctx, "s1", "s2").Result()
	a.must("sinter", err)
	slices.Sort(inter)
	a.equal("sinter", inter, []string{"b", "c"})
	is, err := c.SIsMember(ctx, "s1", "a").Result()
	a.must("sismember", err)
	a.equal("sismember", is, true)

	a.must("zadd", c.ZAdd(ctx, "scores", redis.Z{Score: 10, Member: "alice"}, redis.Z{Score: 20, Member: "bob"}).Err())
	score, err := c.ZIncrBy(ctx, "scores", 15, "alice").Result()
	a.must("zincrby", err)
	a.equal("zincrby", score, 25)
	top, err := c.ZRevRangeWithScores(ctx, "scores", 0, 0).Result()
	a.must("zrevrange withscores", err)
	a.equal("zrevrange withscores", top, []redis.Z{{Score: 25, Member: "alice"}})
	if _, err := c.ZScore(ctx, "scores", "nobody").Result(); err != redis.Nil {
		a.t.Fatalf("zscore of a missing member: err %v, want redis.Nil", err)
	}

	start := time.Now()
	if err := c.BZPopMin(ctx, time.Second, "empty:z").Err(); err != redis.Nil {
		a.t.Fatalf("bzpopmin timeout: err %v, want redis.Nil", err)
	}
	if d := time.Since(start); d < 800*time.Millisecond || d > 3*time.Second {
		a.t.Fatalf("bzpopmin with 1s timeout returned after %v", d)
	}
	got, err := c.BZPopMin(ctx, time.Second, "empty:z", "scores").Result()
	a.must("bzpopmin", err)
	a.equal("bzpopmin", *got, redis.ZWithKey{Key: "scores", Z: redis.Z{Score: 20, Member: "bob"}})
}

// shapes uses the typed helpers whose replies take another type under
// RESP3 (maps, sets, doubles, member-score pairs, nulls), so that go-redis
// parses each from Shale as it does from Redis, in both protocols.
func (a goRedisApp) shapes() {
	c, ctx := a.c, a.ctx
	a.must("hset", c.HSet(ctx, "shape:h", "f", "v").Err())
	h, err := c.HGetAll(ctx, "shape:h").Result()
	a.must("hgetall", err)
	a.equal("hgetall", h, map[string]string{"f": "v"})
	kv, err := c.HRandFieldWithValues(ctx, "shape:h", -2).Result()
	a.must("hrandfield withvalues", err)
	a.equal("hrandfield withvalues", kv, []redis.KeyValue{{Key: "f", Value: "v"}, {Key: "f", Value: "v"}})
	a.must("sadd", c.SAdd(ctx, "shape:s", "x").Err())
	members, err := c.SMembers(ctx, "shape:s").Result()
	a.must("smembers", err)
	a.equal("smembers", members, []string{"x"})
	a.must("zadd", c.ZAdd(ctx, "shape:z", redis.Z{Score: 1.5, Member: "m"}, redis.Z{Score: 2, Member: "n"}).Err())
	incr, err := c.ZAddArgsIncr(ctx, "shape:z", redis.ZAddArgs{Members: []redis.Z{{Score: 0.25, Member: "m"}}}).Result()
	a.must("zadd incr", err)
	a.equal("zadd incr", incr, 1.75)
	scores, err := c.ZMScore(ctx, "shape:z", "m", "nobody").Result()
	a.must("zmscore", err)
	a.equal("zmscore", scores, []float64{1.75, 0})
	rnd, err := c.ZRandMemberWithScores(ctx, "shape:z", -1).Result()
	a.must("zrandmember withscores", err)
	if len(rnd) != 1 || (rnd[0] != redis.Z{Score: 1.75, Member: "m"} && rnd[0] != redis.Z{Score: 2, Member: "n"}) {
		a.t.Fatalf("zrandmember withscores: %v", rnd)
	}
	union, err := c.ZUnionWithScores(ctx, redis.ZStore{Keys: []string{"shape:z", "shape:z"}}).Result()
	a.must("zunion withscores", err)
	a.equal("zunion withscores", union, []redis.Z{{Score: 3.5, Member: "m"}, {Score: 4, Member: "n"}})
	popped, err := c.ZPopMin(ctx, "shape:z").Result()
	a.must("zpopmin", err)
	a.equal("zpopmin", popped, []redis.Z{{Score: 1.75, Member: "m"}})
	if err := c.LPopCount(ctx, "shape:missing", 2).Err(); err != redis.Nil {
		a.t.Fatalf("lpop count of a missing key: err %v, want redis.Nil", err)
	}
	conf, err := c.ConfigGet(ctx, "timeout").Result()
	a.must("config get", err)
	a.equal("config get", conf, map[string]string{"timeout": "0"})
	info, err := c.ClientInfo(ctx).Result()
	a.must("client info", err)
	a.equal("client info name", info.Name, "shale-e2e-go")
	a.must("function load", c.FunctionLoad(ctx, "#!lua name=shapes\n"+
		"redis.register_function{function_name='ro', callback=function() return 1 end, flags={'no-writes'}}").Err())
	libs, err := c.FunctionList(ctx, redis.FunctionListQuery{LibraryNamePattern: "shapes"}).Result()
	a.must("function list", err)
	a.equal("function list", libs, []redis.Library{{Name: "shapes", Engine: "LUA",
		Functions: []redis.Function{{Name: "ro", Flags: []string{"no-writes"}}}}})
	a.must("function delete", c.FunctionDelete(ctx, "shapes").Err())
}

func (a goRedisApp) errors() {
	c, ctx := a.c, a.ctx
	a.must("set", c.Set(ctx, "plain", "v", 0).Err())
	checkErr := func(what string, err error, want string) {
		a.t.Helper()
		var rerr redis.Error
		if !errors.As(err, &rerr) {
			a.t.Fatalf("%s: err %v (%T), want a redis.Error", what, err, err)
		}
		if !strings.HasPrefix(err.Error(), want) {
			a.t.Fatalf("%s: %q, want a message starting %q", what, err, want)
		}
	}
	checkErr("wrongtype lpush", c.LPush(ctx, "plain", "x").Err(), "WRONGTYPE Operation against a key holding the wrong kind of value")
	checkErr("wrongtype hgetall", c.HGetAll(ctx, "plain").Err(), "WRONGTYPE")
	checkErr("wrongtype zadd", c.ZAdd(ctx, "plain", redis.Z{Score: 1, Member: "m"}).Err(), "WRONGTYPE")
	checkErr("syntax error", c.Do(ctx, "SET", "k", "v", "NOPE").Err(), "ERR syntax error")
	checkErr("not an integer", c.Incr(ctx, "plain").Err(), "ERR value is not an integer or out of range")
	checkErr("unknown command", c.Do(ctx, "NOSUCHCOMMAND").Err(), "ERR unknown command 'NOSUCHCOMMAND'")
	checkErr("wrong arity", c.Do(ctx, "GET").Err(), "ERR wrong number of arguments for 'get' command")
	v, err := c.Get(ctx, "plain").Result()
	a.must("get after errors", err)
	a.equal("get after errors", v, "v")
}

func (a goRedisApp) server() {
	c, ctx := a.c, a.ctx
	name, err := c.ClientGetName(ctx).Result()
	a.must("client getname", err)
	a.equal("client getname", name, "shale-e2e-go")
	info, err := c.InfoMap(ctx, "server", "keyspace").Result()
	a.must("info map", err)
	if info["Server"]["redis_version"] == "" {
		a.t.Fatalf("INFO server has no redis_version: %v", info["Server"])
	}
	keys, err := c.DBSize(ctx).Result()
	a.must("dbsize", err)
	if !strings.HasPrefix(info["Keyspace"]["db0"], fmt.Sprintf("keys=%d,", keys)) {
		a.t.Fatalf("INFO keyspace db0 = %q, want keys=%d", info["Keyspace"]["db0"], keys)
	}
	a.must("flushdb", c.FlushDB(ctx).Err())
	keys, err = c.DBSize(ctx).Result()
	a.must("dbsize after flush", err)
	a.equal("dbsize after flush", keys, 0)
}

// transactions: TxPipelined (MULTI, the commands, EXEC), an error inside
// EXEC and an EXECABORT, and Watch with the retry loop go-redis documents,
// failing with redis.TxFailedErr when another client writes the watched
// key, alone and with eight goroutines incrementing one key.
func (a goRedisApp) transactions() {
	c, ctx := a.c, a.ctx
	var incr *redis.IntCmd
	var get *redis.StringCmd
	cmds, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, "tx:a", "1", 0)
		incr = p.Incr(ctx, "tx:a")
		get = p.Get(ctx, "tx:a")
		p.HSet(ctx, "tx:h", "f", "v")
		return nil
	})
	a.must("txpipelined", err)
	a.equal("txpipelined length", len(cmds), 4)
	a.equal("txpipelined incr", incr.Val(), 2)
	a.equal("txpipelined get reads the incr", get.Val(), "2")

	// An error inside EXEC keeps its place and stops nothing.
	var push, after *redis.IntCmd
	_, err = c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		push = p.LPush(ctx, "tx:a", "x")
		after = p.Incr(ctx, "tx:a")
		return nil
	})
	if !redis.HasErrorPrefix(err, "WRONGTYPE") || !redis.HasErrorPrefix(push.Err(), "WRONGTYPE") {
		a.t.Fatalf("txpipelined with a wrong type: err %v, lpush %v, want WRONGTYPE", err, push.Err())
	}
	a.equal("txpipelined incr after the error", after.Val(), 3)

	// A command refused while queueing discards the whole transaction.
	_, err = c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Incr(ctx, "tx:a")
		p.Do(ctx, "SET", "tx:a")
		return nil
	})
	if err == nil || err.Error() != "EXECABORT Transaction discarded because of previous errors." {
		a.t.Fatalf("txpipelined with a wrong arity: err %v, want EXECABORT", err)
	}
	n, err := c.Get(ctx, "tx:a").Int()
	a.must("get after execabort", err)
	a.equal("execabort wrote nothing", n, 3)

	// Watch: another client writes the key during the first try, whose
	// EXEC then fails with TxFailedErr; the retry succeeds.
	const key = "tx:counter"
	tries, failures := 0, 0
	txf := func(tx *redis.Tx) error {
		tries++
		n, err := tx.Get(ctx, key).Int()
		if err != nil && !errors.Is(err, redis.Nil) {
			return err
		}
		if tries == 1 {
			if err := c.Set(ctx, key, 100, 0).Err(); err != nil {
				return err
			}
		}
		_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, key, n+1, 0)
			return nil
		})
		return err
	}
	for range 5 {
		if err = c.Watch(ctx, txf, key); !errors.Is(err, redis.TxFailedErr) {
			break
		}
		failures++
	}
	a.must("watch", err)
	a.equal("watch failures", failures, 1)
	a.equal("watch tries", tries, 2)
	got, err := c.Get(ctx, key).Result()
	a.must("get watched", err)
	a.equal("watched increment", got, "101")

	// Eight goroutines increment one key through Watch: none is lost.
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 25 {
				if err := a.watchIncr(ctx, "tx:shared"); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		a.t.Fatalf("concurrent watch increments: %v", err)
	}
	n, err = c.Get(ctx, "tx:shared").Int()
	a.must("get shared", err)
	a.equal("concurrent watch increments", n, 200)
}

// watchIncr adds 1 to key with Watch, retrying on TxFailedErr.
func (a goRedisApp) watchIncr(ctx context.Context, key string) error {
	for {
		err := a.c.Watch(ctx, func(tx *redis.Tx) error {
			n, err := tx.Get(ctx, key).Int()
			if err != nil && !errors.Is(err, redis.Nil) {
				return err
			}
			_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.Set(ctx, key, n+1, 0)
				return nil
			})
			return err
		}, key)
		if !errors.Is(err, redis.TxFailedErr) {
			return err
		}
	}
}
