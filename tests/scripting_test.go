package tests

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// luaScripts are scripts whose replies TestScriptsMatchRedis compares
// between real redis-server and Shale: conversions both ways, the redis
// object, error shapes, the sandbox. Each runs as EVAL script 1 a b, after
// SET str v and LPUSH l a.
var luaScripts = []string{
	// Lua to reply.
	"return 3.99", "return -0.5", "return 1e20", "return {1,2,nil,4}", "return true", "return false", "return nil",
	"return {1,{2,3},'x'}", "local t = {} t[1]=1 t[3]=3 return t", "return {1, 'a', {ok='x'}, {err='y'}}",
	"return 'é'", "return {err='My Error'}", "return {err='ERR x'}", "return {err='-Q w'}", "return {ok='fine'}",
	// Reply to Lua.
	"return redis.call('get','nokey')", "return redis.call('lrange','l',0,-1)", "return redis.call('set','a','b')",
	"return redis.call('ping')", "return redis.call('hgetall','nokey')", "return redis.call('exists','a','b')",
	"return type(redis.call('get','nokey'))", "return type(redis.call('set','a','b'))",
	"return redis.call('set','a','b').ok", "return type(redis.call('lrange','l',0,-1))",
	"return redis.call('get', 1.5)", "return redis.call('set', 'f', 0.1) and redis.call('get', 'f')",
	"return redis.call('set', 'f', 1e20) and redis.call('get', 'f')",
	"return redis.call('set', 'f', 123456789012345678) and redis.call('get', 'f')",
	// C's texts for the infinities and NaNs, -nan for 0/0 (Shale sent Go's
	// +Inf, -Inf and NaN), and math.huge is +inf (gopher-lua's was the
	// largest finite number).
	"return redis.call('set', 'f', 0/0) and redis.call('get', 'f')",
	"return redis.call('set', 'f', -(0/0)) and redis.call('get', 'f')",
	"return redis.call('set', 'f', 1/0) and redis.call('get', 'f')",
	"return redis.call('set', 'f', -1/0) and redis.call('get', 'f')",
	"return redis.call('set', 'f', math.huge) and redis.call('get', 'f')",
	"return {math.huge == 1/0, -math.huge == -1/0}",
	"return redis.call('set', KEYS[1], ARGV[1])", "return #KEYS", "return #ARGV",
	// The redis object.
	"return redis.error_reply('boom')", "return redis.error_reply('-X y')", "return redis.error_reply('MYCODE z')",
	"return redis.status_reply('fine')", "return redis.sha1hex('')", "return redis.sha1hex('abc')",
	"return redis.REDIS_VERSION", "return {redis.REPL_ALL, redis.REPL_AOF, redis.REPL_REPLICA, redis.REPL_SLAVE, redis.REPL_NONE}",
	"return {redis.LOG_DEBUG, redis.LOG_VERBOSE, redis.LOG_NOTICE, redis.LOG_WARNING, redis.REDIS_VERSION_NUM}",
	"redis.log(redis.LOG_WARNING, 'from a script') return 1", "return redis.replicate_commands()",
	"return redis.setresp(4)", "return redis.set_repl(9)", "return redis.pcall('incr','str')",
	// The redis object's argument checks, as Redis 7.0 words them.
	"return redis.error_reply('a', 'b')", "return redis.status_reply()", "return redis.status_reply(5)",
	"return redis.sha1hex('a', 'b')", "return redis.sha1hex({})", "return {pcall(redis.sha1hex)}",
	"redis.log('3', 'x') return 1", "redis.log(' 0x2 ', 'x') return 1", "redis.log(3.9, 'x') return 1",
	"redis.log(-1, 'x') return 1", "redis.log(4, 'x') return 1", "redis.log(nil, 'x') return 1",
	"local ok, e = pcall(redis.log, 9, 'x') return e", "return {redis.breakpoint(), redis.debug('x')}",
	"local e = redis.pcall('incr','str') return e.err", "local e = redis.pcall('incr','str') return e.ignore_error_stats_update",
	"local ok, e = pcall(function() redis.call('incr','str') end) return e",
	"local ok, e = pcall(function() redis.call('incr','str') end) return type(e)",
	// Errors.
	"return redis.call('nosuch')", "return redis.call('get')", "return redis.call('incr','str')",
	"return redis.call('subscribe','c')", "return redis.call('get', {})", "return redis.call('eval', 'return 1', 0)",
	"return redis.call('multi')", "return redis.call('blpop', 'nolist', 0)", "return redis.call('client','nosuch')",
	"return redis.call('config','get','maxclients')", "return redis.call()", "error('custom')", "error({err='tbl'})",
	"local ok, e = pcall(function() error('x') end) return e", "\nlocal a = 1\nerror('on line 3')",
	"redis.call('incr', 'str')\nreturn 1", "\n\nreturn redis.call('nosuch')",
	// The sandbox.
	"x = 5", "return y", "return tostring(print)", "return tostring(io)", "return tostring(os)", "return tostring(dofile)",
	"return tostring(loadfile)", "return tostring(require)", "return tostring(setfenv)", "return _G.x",
	"string.foo = 1", "redis.call = nil", "math.x = 1", "_G.y = 1", "return _VERSION", "return type(coroutine)",
	"return type(load)", "return type(loadstring)", "return type(gcinfo)", "return type(collectgarbage)",
	"return type(rawset)", "return type(unpack)", "return type(table.getn)", "return type(math.pow)",
	// Raw writes to the read-only tables, and the globals of a loaded
	// chunk: each changed Shale's state for the scripts after it.
	"rawset(_G, 'x', 1) return 1", "rawset(string, 'upper', 1) return 1", "table.insert(string, 5) return 1",
	"return pcall(rawset, math, 'pi', 3)", "table.remove(math) table.sort(_G) return 1",
	"local t = {3, 1, 2} table.sort(t) table.insert(t, 4) table.remove(t, 1) rawset(t, 'a', 1) return t",
	"setmetatable(_G, nil) return 1", "local ok = pcall(loadstring('leak = 5')) return ok",
	"return loadstring('return KEYS[1]')()", "return load(function() return nil end) ~= nil",
	// The libraries (server/lualib has their byte-exact tests).
	"return cjson.encode({1,2,{a=3}})", "return cjson.decode('[1,2,{\"a\":3}]')[3].a", "return cjson.encode(cjson.decode('{\"x\":null}'))",
	"return cmsgpack.pack(1, -1, 2^40, 1.5, 'x', {1,2})", "return {cmsgpack.unpack(cmsgpack.pack(1, 'x', {2}))}",
	"return struct.pack('>i2s', 7, 'ab')", "return {struct.unpack('>i2', struct.pack('>i2', -3))}",
	"return {bit.band(0xff, 0x0f), bit.bor(1, 2), bit.bxor(3, 1), bit.tohex(255), bit.lshift(1, 4)}",
	"cjson.x = 1", "bit.y = 1", "return cjson.decode('{bad')",
	// The shebang.
	"#!lua flags=no-writes\nreturn redis.call('set','a','b')", "#!lua flags=no-writes\nerror('x')",
	"#!lua\nreturn redis.call('set','a','b')", "#!luax\nreturn 1", "#!lua flags=bad\nreturn 1",
	"#!lua flags=no-writes,allow-stale,no-cluster,allow-cross-slot-keys,allow-oom\nreturn 1", "#!lua name=x\nreturn 1",
	"#!lua flags=\nreturn 2", "#! lua\nreturn 3", "#!lua flags=no-writes return 4", "#!lua  flags=no-writes\nreturn redis.call('get','a')",
	// Atomic: a script reads its own writes.
	"redis.call('set','x','1') redis.call('incr','x') return redis.call('get','x')",
	"redis.call('del','L') redis.call('rpush','L','a','b') return redis.call('lrange','L',0,-1)",
	"redis.call('select', 9) redis.call('set','x','1') local n = redis.call('dbsize') redis.call('flushdb') return {n, redis.call('dbsize')}",
}

// TestScriptsMatchRedis runs luaScripts on both servers and compares the
// replies.
func TestScriptsMatchRedis(t *testing.T) {
	redisP, shale := startRedis(t), startShale(t, shaleOpts{})
	ctx := context.Background()
	results := func(c *redis.Client) []string {
		var out []string
		for _, s := range luaScripts {
			c.Set(ctx, "str", "v", 0)
			c.Del(ctx, "l")
			c.LPush(ctx, "l", "a")
			got, err := c.Eval(ctx, s, []string{"a"}, "b").Result()
			out = append(out, fmtReply(got, err))
		}
		return out
	}
	want, got := results(redisP.Client), results(shale.Client)
	for i := range luaScripts {
		if got[i] != want[i] {
			t.Errorf("EVAL %q:\n\tshale: %s\n\tredis: %s", luaScripts[i], got[i], want[i])
		}
	}
}

// TestScripts runs EVALSHA, EVAL_RO, SCRIPT and the argument errors on both
// servers.
func TestScripts(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		const one = "e0e1f9fabfc9d4800c877a703b823ac0578ff8db" // SHA1 of "return 1"
		run(t, c, []step{
			{cmd("SCRIPT", "FLUSH"), ok},
			{cmd("EVALSHA", one, "0"), errText("NOSCRIPT No matching script. Please use EVAL.")},
			{cmd("EVALSHA_RO", one, "0"), errText("NOSCRIPT No matching script. Please use EVAL.")},
			{cmd("SCRIPT", "EXISTS", one, "ffff"), []any{0, 0}},
			{cmd("SCRIPT", "LOAD", "return 1"), one},
			{cmd("EVALSHA", one, "0"), 1},
			{cmd("EVALSHA", "E0E1F9FABFC9D4800C877A703B823AC0578FF8DB", "0"), 1},
			{cmd("SCRIPT", "EXISTS", one, "ffff"), []any{1, 0}},
			{cmd("SCRIPT", "FLUSH", "SYNC"), ok},
			{cmd("SCRIPT", "EXISTS", one), []any{0}},
			{cmd("EVAL", "return 1", "0"), 1},
			{cmd("SCRIPT", "EXISTS", one), []any{1}}, // EVAL caches its script
			{cmd("SCRIPT", "FLUSH", "ASYNC"), ok},
			{cmd("SCRIPT", "FLUSH", "bad"), errText("ERR SCRIPT FLUSH only support SYNC|ASYNC option")},
			{cmd("SCRIPT", "KILL"), errText("NOTBUSY No scripts in execution right now.")},
			{cmd("SCRIPT", "LOAD", "syntax error"), errPrefix("ERR Error compiling script (new function): user_script:1:")},
			{cmd("EVAL", "return 1", "-1"), errText("ERR Number of keys can't be negative")},
			{cmd("EVAL", "return 1", "2", "a"), errText("ERR Number of keys can't be greater than number of args")},
			{cmd("EVAL", "return 1", "x"), errText("ERR value is not an integer or out of range")},
			{cmd("EVAL", "return 1"), errText("ERR wrong number of arguments for 'eval' command")},
			{cmd("SET", "a", "b"), ok},
			{cmd("EVAL_RO", "return redis.call('get', KEYS[1])", "1", "a"), "b"},
			{cmd("EVAL_RO", "return redis.call('set', KEYS[1], 'c')", "1", "a"),
				errText("ERR Write commands are not allowed from read-only scripts. script: 9591804fdd163171aeb9358875bf0b66fe1b4c02, on @user_script:1.")},
			{cmd("SCRIPT", "LOAD", "return redis.call('get', KEYS[1])"), anyString},
			{cmd("EVALSHA_RO", "4e6d8fc8bb01276962cce5371fa795a7763657ae", "1", "a"), "b"},
			{cmd("GET", "a"), "b"},
			{cmd("COMMAND", "GETKEYS", "EVAL", "return 1", "2", "k1", "k2", "arg"), []any{"k1", "k2"}},
		})
	})
}

// TestScriptSelectIsItsOwn: a SELECT inside a script changes the db of the
// script's commands only; once the script ends, its caller's db is
// selected again, after an error too. Shale left the script's db selected
// (the model test found it).
func TestScriptSelectIsItsOwn(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		conn := c.Conn()
		defer conn.Close()
		const selectGet = "redis.call('select', ARGV[1]) return redis.call('get', KEYS[1])"
		run(t, conn, []step{
			{cmd("SELECT", "1"), ok},
			{cmd("SET", "k", "db1"), ok},
			{cmd("EVAL", "redis.call('select', ARGV[1]) redis.call('set', KEYS[1], 'db0') return redis.call('get', KEYS[1])", "1", "k", "0"), "db0"},
			{cmd("GET", "k"), "db1"},
			{cmd("EVAL_RO", selectGet, "1", "k", "0"), "db0"},
			{cmd("GET", "k"), "db1"},
			{cmd("SCRIPT", "LOAD", selectGet), anyString},
			{cmd("EVALSHA", "9567bb5ebb8958db311827963476ad8cfc26aa80", "1", "k", "0"), "db0"},
			{cmd("GET", "k"), "db1"},
			{cmd("EVAL", "redis.call('select', ARGV[1]) return redis.call('hget', KEYS[1], 'f')", "1", "k", "0"), errPrefix("WRONGTYPE")},
			{cmd("GET", "k"), "db1"},
			{cmd("EVAL", "redis.call('select', ARGV[1]) return redis.pcall('select', ARGV[2])", "0", "0", "99"), errText("ERR DB index is out of range")},
			{cmd("GET", "k"), "db1"},
			{cmd("SELECT", "0"), ok},
			{cmd("GET", "k"), "db0"},
		})
	})
}

// TestScriptAtomicUnderConcurrency: 8 clients run a read-modify-write
// script 10,000 times in all on the same keys; the result is exact, and no
// reader ever sees one key changed without the other.
func TestScriptAtomicUnderConcurrency(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		ctx := context.Background()
		incr := redis.NewScript(`
local a = tonumber(redis.call('get', KEYS[1]) or '0')
local b = tonumber(redis.call('get', KEYS[2]) or '0')
redis.call('set', KEYS[1], a + 1)
redis.call('set', KEYS[2], b + 1)
return a + 1`)
		const clients, perClient = 8, 1250
		var wg sync.WaitGroup
		errs := make(chan error, clients+1)
		stop := make(chan struct{})
		go func() { // a reader: a and b move together
			for {
				select {
				case <-stop:
					return
				default:
				}
				vals, err := c.MGet(ctx, "sa", "sb").Result()
				if err != nil {
					errs <- err
					return
				}
				if fmt.Sprint(vals[0]) != fmt.Sprint(vals[1]) {
					errs <- fmt.Errorf("a reader saw a=%v b=%v", vals[0], vals[1])
					return
				}
			}
		}()
		for range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range perClient {
					if err := incr.Run(ctx, c, []string{"sa", "sb"}).Err(); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(stop)
		select {
		case err := <-errs:
			t.Fatal(err)
		default:
		}
		for _, k := range []string{"sa", "sb"} {
			v, err := c.Get(ctx, k).Result()
			if err != nil || v != strconv.Itoa(clients*perClient) {
				t.Errorf("%s = %q (%v), want %d", k, v, err, clients*perClient)
			}
		}
	})
}

// TestScriptUndeclaredKeysAtomic: 8 clients each run a script on a key of
// their own that also moves a unit between two keys no script declares, as
// Redis allows, and increments the next client's key, undeclared too; no
// run sees the two out of balance, and the sums are exact. In Shale a run
// that finds an undeclared key locked runs again under the world lock:
// with every client on the same two keys, many do. Waiting for it instead,
// while holding its own key, could deadlock with the next client's run.
func TestScriptUndeclaredKeysAtomic(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		ctx := context.Background()
		move := redis.NewScript(`
local total = tonumber(redis.call('get', 'u:total') or '0')
local pool = tonumber(redis.call('get', 'u:pool') or '0')
if total + pool ~= 0 then return redis.error_reply('torn: ' .. total .. ' ' .. pool) end
redis.call('incr', 'u:total')
redis.call('decr', 'u:pool')
redis.call('incr', ARGV[1])
return redis.call('incr', KEYS[1])`)
		const clients, perClient = 8, 500
		var wg sync.WaitGroup
		errs := make(chan error, clients)
		for i := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				key, next := fmt.Sprintf("u:own:%d", i), fmt.Sprintf("u:own:%d", (i+1)%clients)
				for range perClient {
					if err := move.Run(ctx, c, []string{key}, next).Err(); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		select {
		case err := <-errs:
			t.Fatal(err)
		default:
		}
		want := map[string]string{"u:total": strconv.Itoa(clients * perClient), "u:pool": strconv.Itoa(-clients * perClient)}
		for i := range clients {
			want[fmt.Sprintf("u:own:%d", i)] = strconv.Itoa(2 * perClient)
		}
		for k, w := range want {
			if v, err := c.Get(ctx, k).Result(); err != nil || v != w {
				t.Errorf("%s = %q (%v), want %s", k, v, err, w)
			}
		}
	})
}

// TestScriptBusyAndKill: once a script has run busy-reply-threshold, other
// clients get BUSY; SCRIPT KILL stops a script that has not written, not one
// that has (UNKILLABLE), and SHUTDOWN NOSAVE stops the server all the same.
func TestScriptBusyAndKill(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		ctx := context.Background()
		if err := c.ConfigSet(ctx, "lua-time-limit", "100").Err(); err != nil {
			t.Fatal(err)
		}
		loop := func(body string) chan error {
			done := make(chan error, 1)
			conn := c.Conn()
			go func() {
				defer conn.Close()
				done <- conn.Eval(ctx, body+" local i = 0 while true do i = i + 1 end", nil).Err()
			}()
			// Wait for BUSY.
			deadline := time.Now().Add(10 * time.Second)
			for {
				err := busyProbe(c)
				if err != nil && strings.HasPrefix(err.Error(), "BUSY ") {
					if err.Error() != "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE." {
						t.Errorf("BUSY text %q", err)
					}
					return done
				}
				if time.Now().After(deadline) {
					t.Fatalf("no BUSY after 10 s: %v", err)
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
		done := loop("")
		run(t, c, []step{{cmd("SCRIPT", "KILL"), ok}})
		if err := <-done; err == nil || err.Error() != "ERR Script killed by user with SCRIPT KILL... script: 6ff4c80fcf28b62e1748cbd59857ba626da18379, on @user_script:1." {
			t.Errorf("the killed script's reply: %v", err)
		}
		run(t, c, []step{
			{cmd("SCRIPT", "KILL"), errText("NOTBUSY No scripts in execution right now.")},
			{cmd("SET", "x", "1"), ok},
		})
		done = loop("redis.call('set', 'w', '1')")
		run(t, c, []step{
			{cmd("SCRIPT", "KILL"), errText("UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.")},
		})
		c.Do(ctx, "SHUTDOWN", "NOSAVE")
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("the script's client got nothing 10 s after SHUTDOWN NOSAVE")
		}
		deadline := time.Now().Add(10 * time.Second)
		for !b.Proc.exited() {
			if time.Now().After(deadline) {
				t.Fatal("the server still runs 10 s after SHUTDOWN NOSAVE")
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}

// TestScriptMemoryBound: a script that allocates without bound is stopped
// past 1 GiB, keeps nothing it wrote, and the server serves on. (Redis has
// no such bound without maxmemory: Shale only.)
func TestScriptMemoryBound(t *testing.T) {
	shale := startShale(t, shaleOpts{})
	run(t, shale.Client, []step{
		{cmd("EVAL", "redis.call('set', 'before', '1') local t = {} local i = 0 while true do i = i + 1 t[i] = string.rep('x', 1000) .. i end", "0"),
			errText("ERR the script used more than 1 GiB of memory and was stopped; nothing it wrote was kept")},
		{cmd("GET", "before"), nil},
		{cmd("EVAL", "return 1", "0"), 1},
	})
}

// busyProbe sends GET x with a short timeout, to poll for BUSY while a
// script starts: a command that reaches the server just before a script
// takes the world lock waits for the script to end (the race noted in
// docs/OPERATIONS.md, "Scripting"), so a probe must not wait for it.
func busyProbe(c *redis.Client) error {
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	return c.Get(ctx, "x").Err()
}

// TestScriptInfoCounts: INFO memory counts cached scripts and functions as
// Redis does.
func TestScriptInfoCounts(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		ctx := context.Background()
		field := func(name string) string {
			info := c.Info(ctx, "memory").Val()
			for _, line := range strings.Split(info, "\r\n") {
				if v, ok := strings.CutPrefix(line, name+":"); ok {
					return v
				}
			}
			return "(missing)"
		}
		run(t, c, []step{{cmd("SCRIPT", "FLUSH"), ok}, {cmd("FUNCTION", "FLUSH"), ok}})
		if got := field("number_of_cached_scripts"); got != "0" {
			t.Errorf("number_of_cached_scripts %s after SCRIPT FLUSH, want 0", got)
		}
		run(t, c, []step{
			{cmd("SCRIPT", "LOAD", "return 1"), anyString},
			{cmd("EVAL", "return 2", "0"), 2},
			{cmd("EVAL", "return 2", "0"), 2},
			{cmd("FUNCTION", "LOAD", "#!lua name=lib\nredis.register_function('f1', function() return 1 end)\nredis.register_function('f2', function() return 2 end)"), "lib"},
		})
		if got := field("number_of_cached_scripts"); got != "2" {
			t.Errorf("number_of_cached_scripts %s, want 2", got)
		}
		if got := field("number_of_functions"); got != "2" {
			t.Errorf("number_of_functions %s, want 2", got)
		}
	})
}
