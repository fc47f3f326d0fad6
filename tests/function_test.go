package tests

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// libraryLoads are FUNCTION LOAD bodies whose replies
// TestFunctionLoadMatchesRedis compares between real redis-server and
// Shale, each after FUNCTION FLUSH: the shebang's errors, the library API
// (register_function's two forms and each of its errors, redis.log, what a
// library's body may not reach) and the load timeout.
var libraryLoads = []string{
	// The shebang.
	"return 1", "#!lua", "#!lua name=a b=c\n", "#!lua\n", "#!lua name=\"a\n", "#!luax name=x-y\n",
	"#!luax name=x\nredis.register_function('f', function() return 1 end)", "#!lua name=z2 name=z3\n",
	"#! name=q\n", "#!lua name=\n", "#!lua name='q'\nredis.register_function('f', function() return 1 end)",
	"#!LUA NAME=q\nredis.register_function('f', function() return 1 end)", "#!lua  name=q \nredis.register_function('f', function() return 1 end)",
	"#!lua name=x\nreturn 1", "#!lua name=x\n",
	// register_function.
	"#!lua name=y\nredis.register_function('f', function(k, a) return 1 end)",
	"#!lua name=y\nredis.register_function('g-', function() return 1 end)",
	"#!lua name=y\nredis.register_function('', function() return 1 end)",
	"#!lua name=y\nredis.register_function('g', function() return 1 end)\nredis.register_function('g', function() return 1 end)",
	"#!lua name=y\nredis.register_function('g', function() return 1 end)\nredis.register_function('G', function() return 2 end)",
	"#!lua name=y\nredis.register_function('g', 'notfn')",
	"#!lua name=y\nredis.register_function{function_name='g', callback=function() return 1 end, flags={'bad'}}",
	"#!lua name=y\nredis.register_function{function_name='g', callback=function() return 1 end, flags={{}}}",
	"#!lua name=y\nredis.register_function{function_name='g', callback=function() return 1 end, flags={1}}",
	"#!lua name=y\nredis.register_function{function_name='g', callback=function() return 1 end, flags='no-writes'}",
	"#!lua name=y\nredis.register_function{function_name='g', callback=function() return 1 end, foo=1}",
	"#!lua name=y\nredis.register_function{function_name='g'}",
	"#!lua name=y\nredis.register_function{callback=function() end}",
	"#!lua name=y\nredis.register_function{function_name='g', callback=5}",
	"#!lua name=y\nredis.register_function{function_name=1, callback=function() return 1 end}",
	"#!lua name=y\nredis.register_function{function_name='g', callback=function() return 1 end, description=1}",
	"#!lua name=y\nredis.register_function{[1]=1, callback=function() end}",
	"#!lua name=y\nredis.register_function({[{}]=1})",
	"#!lua name=y\nredis.register_function(5)",
	"#!lua name=y\nredis.register_function()",
	"#!lua name=y\nredis.register_function('a', 'b', 'c')",
	"#!lua name=y\nredis.register_function({}, function() end)",
	"#!lua name=y\nredis.register_function(1, function() end)",
	"#!lua name=y\nredis.register_function{function_name='g', callback=function() return 1 end, flags={'no-writes', 'allow-oom', 'allow-stale', 'no-cluster', 'allow-cross-slot-keys'}, description='d'}",
	// What a library's body sees: redis.register_function, redis.log and
	// the constants, nothing else.
	"#!lua name=y\nredis.log(redis.LOG_WARNING, 'loading', redis.REDIS_VERSION, redis.REDIS_VERSION_NUM)\nredis.register_function('f', function() end)",
	"#!lua name=y\nredis.log(redis.LOG_WARNING)",
	"#!lua name=y\nredis.call('set', 'a', 'b')", "#!lua name=y\nredis.pcall('get', 'a')", "#!lua name=y\nredis.setresp(3)",
	"#!lua name=y\nlocal a = redis.sha1hex", "#!lua name=y\nlocal a = redis.error_reply", "#!lua name=y\nerror('boom')",
	"#!lua name=y\nlocal t = string", "#!lua name=y\nlocal t = KEYS", "#!lua name=y\nx = 1", "#!lua name=y\nredis.x = 1",
	"#!lua name=y\nredis.register_function('f', function() end)\nreturn redis.register_function",
	// The load timeout (500 ms).
	"#!lua name=y\nredis.register_function('f', function() end)\nwhile true do end",
}

// TestFunctionLoadMatchesRedis runs libraryLoads on both servers and
// compares the replies.
func TestFunctionLoadMatchesRedis(t *testing.T) {
	redisP, shale := startRedis(t), startShale(t, shaleOpts{})
	ctx := context.Background()
	results := func(c *redis.Client) []string {
		var out []string
		for _, code := range libraryLoads {
			c.Do(ctx, "FUNCTION", "FLUSH")
			out = append(out, fmtReply(c.Do(ctx, "FUNCTION", "LOAD", code).Result()))
		}
		return out
	}
	want, got := results(redisP.Client), results(shale.Client)
	for i := range libraryLoads {
		if got[i] != want[i] {
			t.Errorf("FUNCTION LOAD %q:\n\tshale: %s\n\tredis: %s", libraryLoads[i], got[i], want[i])
		}
	}
}

// fcallLibrary is the library TestFCallMatchesRedis calls.
const fcallLibrary = `#!lua name=lib
redis.register_function('w', function(keys, args) return redis.call('set', keys[1], args[1]) end)
redis.register_function{function_name='ro', callback=function(keys, args) return redis.call('get', keys[1]) end, flags={'no-writes'}, description='reads'}
redis.register_function{function_name='rw', callback=function(keys, args) return redis.call('set', keys[1], 'x') end, flags={'no-writes'}}
redis.register_function('err', function(keys, args) return error('boom') end)
redis.register_function('err2', function(keys, args)
  local x = 1
  return redis.call('nosuch') end)
redis.register_function('err3', function(keys, args) return redis.error_reply('MY bad') end)
redis.register_function('err5', function(keys, args) return redis.call('incr', keys[1]) end)
redis.register_function('glob', function(keys, args) x = 1 end)
redis.register_function('nokeys', function(keys, args) return KEYS end)
redis.register_function('echo', function(keys, args) return {#keys, #args, keys[1], args[1], args[2], type(string), redis.sha1hex('')} end)
redis.register_function('pc', function(keys, args) local e = redis.pcall('incr', keys[1]) return e.err end)
redis.register_function('conv', function(keys, args) return {1.9, true, false, {ok='fine'}, 'é'} end)
redis.register_function('atomic', function(keys, args) redis.call('set', keys[1], '1') redis.call('incr', keys[1]) return redis.call('get', keys[1]) end)
redis.register_function('resp', function(keys, args) return redis.setresp(2) end)
redis.register_function('plant', function() local r = redis getmetatable('').__index.evil = function() return r.call('ping') end end)
redis.register_function('strmeta', function() return {type(getmetatable('')), tostring(getmetatable('').__index == string), ('x'):upper()} end)
redis.register_function{function_name='flagged', callback=function() return 1 end, flags={'allow-cross-slot-keys', 'no-writes', 'allow-oom', 'allow-stale', 'no-cluster'}}
`

// fcalls are the calls of fcallLibrary TestFCallMatchesRedis compares,
// after SET str v; and FUNCTION HELP.
var fcalls = [][]any{
	{"FCALL", "w", "1", "k", "v"}, {"FCALL", "ro", "1", "k"}, {"FCALL_RO", "ro", "1", "k"},
	{"FCALL_RO", "w", "1", "k", "v"}, {"FCALL_RO", "rw", "1", "k"}, {"FCALL", "rw", "1", "k"},
	{"FCALL", "err", "0"}, {"FCALL", "err2", "0"}, {"FCALL", "err3", "0"}, {"FCALL", "err5", "1", "str"},
	{"FCALL", "glob", "0"}, {"FCALL", "nokeys", "0"}, {"FCALL", "echo", "2", "a", "b", "c"},
	{"FCALL", "echo", "0", "a"}, {"FCALL", "pc", "1", "str"}, {"FCALL", "conv", "0"},
	{"FCALL", "atomic", "1", "n"}, {"FCALL", "resp", "0"}, {"FCALL_RO", "flagged", "0"},
	{"FCALL", "ECHO", "0"}, {"FCALL", "nosuch", "0"}, {"FCALL", "nosuch", "x"}, {"FCALL_RO", "nosuch", "0"},
	{"FCALL", "w", "-1"}, {"FCALL", "w", "5", "a"}, {"FCALL", "w", "x"}, {"FCALL", "w", "1.5"},
	{"FCALL", "w"}, {"FCALL_RO", "ro"}, {"FUNCTION", "HELP"},
	// The strings' metatable is read-only, in functions and scripts: Shale's
	// let a function plant code there that a library's body then ran.
	{"FCALL", "plant", "0"}, {"FCALL", "strmeta", "0"},
	{"EVAL", "getmetatable('').__index.upper = function() return 'planted' end return string.upper('a')", "0"},
	{"EVAL", "getmetatable('').__index = {}", "0"}, {"EVAL", "return string.upper('a')", "0"},
}

// TestFCallMatchesRedis loads fcallLibrary on both servers, runs fcalls
// and compares the replies.
func TestFCallMatchesRedis(t *testing.T) {
	redisP, shale := startRedis(t), startShale(t, shaleOpts{})
	ctx := context.Background()
	results := func(c *redis.Client) []string {
		if err := c.Do(ctx, "FUNCTION", "LOAD", fcallLibrary).Err(); err != nil {
			t.Fatal(err)
		}
		c.Set(ctx, "str", "v", 0)
		var out []string
		for _, call := range fcalls {
			out = append(out, fmtReply(c.Do(ctx, call...).Result()))
		}
		return out
	}
	want, got := results(redisP.Client), results(shale.Client)
	for i := range fcalls {
		if got[i] != want[i] {
			t.Errorf("%s:\n\tshale: %s\n\tredis: %s", fmtArgs(fcalls[i]), got[i], want[i])
		}
	}
}

// TestFunctions runs FUNCTION's subcommands and FCALL on both servers.
func TestFunctions(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		const lib = "#!lua name=mylib\nredis.register_function{function_name='get', callback=function(keys, args) return redis.call('get', keys[1]) end, flags={'no-writes'}, description='reads a key'}"
		const lib2 = "#!lua name=mylib\nredis.register_function('set', function(keys, args) return redis.call('set', keys[1], args[1]) end)"
		getInfo := []any{"library_name", "mylib", "engine", "LUA", "functions",
			[]any{[]any{"name", "get", "description", "reads a key", "flags", []any{"no-writes"}}}}
		run(t, c, []step{
			{cmd("FUNCTION", "FLUSH"), ok},
			{cmd("FUNCTION", "LIST"), []any{}},
			{cmd("FUNCTION", "STATS"), []any{"running_script", nil, "engines", []any{"LUA", []any{"libraries_count", 0, "functions_count", 0}}}},
			{cmd("FUNCTION", "LOAD", lib), "mylib"},
			{cmd("FUNCTION", "LOAD", lib), errText("ERR Library 'mylib' already exists")},
			{cmd("FUNCTION", "LOAD", "REPLACE", "x", lib), errText("ERR Unknown option given: x")},
			{cmd("SET", "k", "v"), ok},
			{cmd("FCALL", "get", "1", "k"), "v"},
			{cmd("FCALL_RO", "get", "1", "k"), "v"},
			{cmd("FCALL", "GET", "1", "k"), "v"}, // FCALL's lookup ignores case
			{cmd("FUNCTION", "LIST"), []any{getInfo}},
			{cmd("FUNCTION", "LIST", "LIBRARYNAME", "my*"), []any{getInfo}},
			{cmd("FUNCTION", "LIST", "LIBRARYNAME", "other*"), []any{}},
			{cmd("FUNCTION", "LIST", "LIBRARYNAME", "M[X-Z]L*"), []any{getInfo}}, // without case, as in Redis
			{cmd("FUNCTION", "LIST", "WITHCODE"), []any{append(getInfo, "library_code", lib)}},
			{cmd("FUNCTION", "LIST", "LIBRARYNAME"), errText("ERR library name argument was not given")},
			{cmd("FUNCTION", "LIST", "WITHCODE", "WITHCODE"), errText("ERR Unknown argument WITHCODE")},
			{cmd("FUNCTION", "LIST", "LIBRARYNAME", "a", "LIBRARYNAME", "b"), errText("ERR Unknown argument LIBRARYNAME")},
			{cmd("FUNCTION", "LIST", "foo"), errText("ERR Unknown argument foo")},
			{cmd("FUNCTION", "STATS"), []any{"running_script", nil, "engines", []any{"LUA", []any{"libraries_count", 1, "functions_count", 1}}}},
			{cmd("FUNCTION", "LOAD", "REPLACE", lib2), "mylib"},
			{cmd("FCALL", "get", "1", "k"), errText("ERR Function not found")},
			{cmd("FCALL_RO", "set", "1", "k", "w"), errText("ERR Can not execute a script with write flag using *_ro command.")},
			{cmd("FCALL", "set", "1", "k", "w"), ok},
			{cmd("GET", "k"), "w"},
			{cmd("FUNCTION", "LOAD", "#!lua name=other\nredis.register_function('SET', function() return 1 end)"), errText("ERR Function SET already exists")},
			{cmd("FLUSHALL"), ok}, // keys go, functions stay, as in Redis
			{cmd("FCALL", "set", "1", "k", "x"), ok},
			{cmd("FUNCTION", "DELETE", "nosuch"), errText("ERR Library not found")},
			{cmd("FUNCTION", "DELETE", "MYLIB"), errText("ERR Library not found")}, // library names are case-sensitive
			{cmd("FUNCTION", "DELETE"), errText("ERR wrong number of arguments for 'function|delete' command")},
			{cmd("FUNCTION", "DELETE", "mylib"), ok},
			{cmd("FCALL", "set", "1", "k", "w"), errText("ERR Function not found")},
			{cmd("FUNCTION", "LOAD", lib), "mylib"},
			{cmd("FUNCTION", "FLUSH", "foo"), errText("ERR FUNCTION FLUSH only supports SYNC|ASYNC option")},
			{cmd("FUNCTION", "FLUSH", "ASYNC", "x"), errText("ERR unknown subcommand or wrong number of arguments for 'FLUSH'. Try FUNCTION HELP.")},
			{cmd("FUNCTION", "FLUSH", "SYNC"), ok},
			{cmd("FUNCTION", "LIST"), []any{}},
			{cmd("FUNCTION", "KILL"), errText("NOTBUSY No scripts in execution right now.")},
			{cmd("FUNCTION", "STATS", "x"), errText("ERR wrong number of arguments for 'function|stats' command")},
			{cmd("FUNCTION", "NOSUCH"), errText("ERR unknown subcommand 'NOSUCH'. Try FUNCTION HELP.")},
			// Functions are not callable from scripts, nor FUNCTION.
			{cmd("EVAL", "return redis.call('fcall', 'x', 0)", "0"), errPrefix("ERR This Redis command is not allowed from script")},
			{cmd("EVAL", "return redis.call('function', 'list')", "0"), errPrefix("ERR This Redis command is not allowed from script")},
		})
	})
}

// TestFunctionDumpRestore: FUNCTION DUMP's payload restores with each
// policy, and RESTORE refuses a corrupt one with Redis's error.
func TestFunctionDumpRestore(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		const a = "#!lua name=a\nredis.register_function('fa', function() return 'a' end)"
		const b2 = "#!lua name=b\nredis.register_function('fb', function() return 'b' end)"
		run(t, c, []step{
			{cmd("FUNCTION", "LOAD", a), "a"},
			{cmd("FUNCTION", "LOAD", b2), "b"},
		})
		dump := doStr(t, c, "FUNCTION", "DUMP")
		corrupt := []byte(dump)
		corrupt[3] ^= 1
		run(t, c, []step{
			// Which library Redis names depends on its hash table's order.
			{cmd("FUNCTION", "RESTORE", dump), errPrefix("ERR Library ")},
			{cmd("FUNCTION", "RESTORE", dump, "APPEND"), errPrefix("ERR Library ")},
			{cmd("FUNCTION", "RESTORE", dump, "REPLACE"), ok},
			{cmd("FUNCTION", "RESTORE", dump, "nosuch"), errText("ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.")},
			{cmd("FUNCTION", "RESTORE", dump, "FLUSH", "x"), errText("ERR unknown subcommand or wrong number of arguments for 'RESTORE'. Try FUNCTION HELP.")},
			{cmd("FUNCTION", "RESTORE", string(corrupt)), errText("ERR DUMP payload version or checksum are wrong")},
			{cmd("FUNCTION", "RESTORE", "garbage"), errText("ERR DUMP payload version or checksum are wrong")},
			{cmd("FUNCTION", "RESTORE", ""), errText("ERR DUMP payload version or checksum are wrong")},
			{cmd("FUNCTION", "DELETE", "a"), ok},
			{cmd("FUNCTION", "LOAD", "#!lua name=c\nredis.register_function('fa', function() return 'c' end)"), "c"},
			{cmd("FUNCTION", "RESTORE", dump, "REPLACE"), errText("ERR Function fa already exists")},
			{cmd("FCALL", "fa", "0"), "c"}, // the failed RESTORE changed nothing
			{cmd("FUNCTION", "RESTORE", dump, "FLUSH"), ok},
			{cmd("FCALL", "fa", "0"), "a"},
			{cmd("FCALL", "fb", "0"), "b"},
			{cmd("FUNCTION", "LIST", "LIBRARYNAME", "c"), []any{}},
			{cmd("FUNCTION", "FLUSH"), ok},
			{cmd("FUNCTION", "RESTORE", dump), ok},
			{cmd("FUNCTION", "STATS"), []any{"running_script", nil, "engines", []any{"LUA", []any{"libraries_count", 2, "functions_count", 2}}}},
		})
	})
}

// TestFunctionDumpPortable: a payload of either server restores on the
// other. Redis compresses long strings in it (LZF), which Shale reads.
func TestFunctionDumpPortable(t *testing.T) {
	redisP, shale := startRedis(t), startShale(t, shaleOpts{})
	var lib strings.Builder
	lib.WriteString("#!lua name=big\n")
	for i := range 30 {
		fmt.Fprintf(&lib, "redis.register_function('f%d', function() return %d end) -- compresses well, compresses well\n", i, i)
	}
	for _, from := range []*serverProc{redisP, shale} {
		to := shale
		if from == shale {
			to = redisP
		}
		do(t, from.Client, "FUNCTION", "FLUSH")
		do(t, to.Client, "FUNCTION", "FLUSH")
		run(t, from.Client, []step{{cmd("FUNCTION", "LOAD", lib.String()), "big"}})
		dump := doStr(t, from.Client, "FUNCTION", "DUMP")
		run(t, to.Client, []step{
			{cmd("FUNCTION", "RESTORE", dump), ok},
			{cmd("FCALL", "f29", "0"), 29},
			{cmd("FUNCTION", "LIST", "WITHCODE"), []any{[]any{"library_name", "big", "engine", "LUA", "functions", matchFunc{"30 functions", func(got any) string {
				if l, isList := got.([]any); !isList || len(l) != 30 {
					return "want 30 functions"
				}
				return ""
			}}, "library_code", lib.String()}}},
		})
	}
}

// TestFunctionsInMulti: FCALL and FUNCTION LOAD queue in MULTI and run in
// EXEC, in order. Shale's EXEC held the world lock that EVAL and FCALL
// then waited for, for ever.
func TestFunctionsInMulti(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		conn := newConn(t, b.Addr)
		run(t, conn, []step{
			{cmd("MULTI"), ok},
			{cmd("FUNCTION", "LOAD", "#!lua name=m\nredis.register_function('incr', function(keys) return redis.call('incr', keys[1]) end)"), "QUEUED"},
			{cmd("FCALL", "incr", "1", "n"), "QUEUED"},
			{cmd("EVAL", "return redis.call('incr', KEYS[1])", "1", "n"), "QUEUED"},
			{cmd("FCALL", "nosuch", "0"), "QUEUED"},
			{cmd("FCALL", "incr", "1", "n"), "QUEUED"},
			{cmd("EXEC"), []any{"m", 1, 2, errText("ERR Function not found"), 3}},
			{cmd("GET", "n"), "3"},
		})
	})
}

// TestFunctionBusyAndKill: once a function has run busy-reply-threshold,
// other clients get BUSY naming FUNCTION KILL; SCRIPT KILL refuses to stop
// it, FUNCTION STATS shows it, FUNCTION KILL stops it unless it wrote.
func TestFunctionBusyAndKill(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		ctx := context.Background()
		run(t, c, []step{
			{cmd("CONFIG", "SET", "busy-reply-threshold", "100"), ok},
			{cmd("FUNCTION", "LOAD", "#!lua name=loops\n"+
				"redis.register_function('spin', function(keys, args)\n  local i = 0\n  while true do i = i + 1 end\nend)\n"+
				"redis.register_function('wspin', function(keys, args)\n  redis.call('set', 'w', '1')\n  while true do end\nend)"), "loops"},
		})
		const busy = "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE."
		loop := func(name string) chan error {
			done := make(chan error, 1)
			conn := c.Conn()
			go func() {
				defer conn.Close()
				done <- conn.Do(ctx, "FCALL", name, "0", "an-arg").Err()
			}()
			pollUntil(t, 10*time.Second, func() (bool, string) {
				err := busyProbe(c)
				return err != nil && strings.HasPrefix(err.Error(), "BUSY "), fmt.Sprint(err)
			})
			return done
		}
		done := loop("spin")
		run(t, c, []step{
			{cmd("GET", "x"), errText(busy)},
			{cmd("SCRIPT", "KILL"), errText(busy)},
			{cmd("FUNCTION", "STATS"), []any{"running_script", []any{"name", "spin", "command", []any{"FCALL", "spin", "0", "an-arg"}, "duration_ms", atLeast(100)},
				"engines", []any{"LUA", []any{"libraries_count", 1, "functions_count", 2}}}},
			{cmd("FUNCTION", "KILL"), ok},
		})
		if err := <-done; err == nil || err.Error() != "ERR Script killed by user with SCRIPT KILL... script: spin, on @user_function:4." {
			t.Errorf("the killed function's reply: %v", err)
		}
		run(t, c, []step{
			{cmd("FUNCTION", "KILL"), errText("NOTBUSY No scripts in execution right now.")},
			{cmd("FUNCTION", "STATS"), []any{"running_script", nil, "engines", []any{"LUA", []any{"libraries_count", 1, "functions_count", 2}}}},
		})
		// While a script (EVAL) runs, FUNCTION KILL and STATS get BUSY.
		evalDone := make(chan error, 1)
		go func() {
			conn := c.Conn()
			defer conn.Close()
			evalDone <- conn.Eval(ctx, "while true do end", nil).Err()
		}()
		scriptBusy := "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."
		pollUntil(t, 10*time.Second, func() (bool, string) {
			err := busyProbe(c)
			return err != nil && err.Error() == scriptBusy, fmt.Sprint(err)
		})
		run(t, c, []step{
			{cmd("FUNCTION", "KILL"), errText(scriptBusy)},
			{cmd("FUNCTION", "STATS"), errText(scriptBusy)},
			{cmd("SCRIPT", "KILL"), ok},
		})
		<-evalDone
		done = loop("wspin")
		run(t, c, []step{
			{cmd("FUNCTION", "KILL"), errText("UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.")},
			{cmd("SCRIPT", "KILL"), errPrefix("UNKILLABLE")},
		})
		c.Do(ctx, "SHUTDOWN", "NOSAVE")
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("the function's client got nothing 10 s after SHUTDOWN NOSAVE")
		}
	})
}

// functionSurvivor is the library the persistence tests load before a
// restart and call after it.
const functionSurvivor = "#!lua name=keep\nredis.register_function('kept', function(keys, args) return redis.call('incrby', keys[1], args[1]) end)"

// TestFunctionsPersist: libraries are stored, so a function loaded before
// a clean stop, or before SIGKILL, answers after the restart; a deleted or
// flushed one stays gone.
func TestFunctionsPersist(t *testing.T) {
	t.Parallel()
	p := startShale(t, shaleOpts{})
	run(t, p.Client, []step{
		{cmd("FUNCTION", "LOAD", functionSurvivor), "keep"},
		{cmd("FUNCTION", "LOAD", "#!lua name=gone\nredis.register_function('gone', function() return 1 end)"), "gone"},
		{cmd("FUNCTION", "DELETE", "gone"), ok},
		{cmd("FCALL", "kept", "1", "n", "2"), 2},
	})
	p.Stop()
	p2 := startShale(t, shaleOpts{Dir: p.Dir})
	run(t, p2.Client, []step{
		{cmd("FCALL", "kept", "1", "n", "3"), 5},
		{cmd("FCALL", "gone", "0"), errText("ERR Function not found")},
		{cmd("FUNCTION", "LIST", "WITHCODE"), []any{[]any{"library_name", "keep", "engine", "LUA", "functions",
			[]any{[]any{"name", "kept", "description", nil, "flags", []any{}}}, "library_code", functionSurvivor}}},
		{cmd("FUNCTION", "LOAD", "REPLACE", strings.Replace(functionSurvivor, "incrby", "decrby", 1)), "keep"},
	})
	p2.Kill()
	p3 := startShale(t, shaleOpts{Dir: p.Dir})
	run(t, p3.Client, []step{
		{cmd("FCALL", "kept", "1", "n", "1"), 4}, // REPLACE's code, acknowledged before SIGKILL
		{cmd("FUNCTION", "FLUSH"), ok},
	})
	p3.Kill()
	p4 := startShale(t, shaleOpts{Dir: p.Dir})
	run(t, p4.Client, []step{
		{cmd("FUNCTION", "LIST"), []any{}},
		{cmd("FCALL", "kept", "1", "n", "1"), errText("ERR Function not found")},
	})
}

// TestFunctionsSurviveBackup: a BGSAVE checkpoint holds the libraries, and
// a server restored from it calls them.
func TestFunctionsSurviveBackup(t *testing.T) {
	t.Parallel()
	backupDir := filepath.Join(t.TempDir(), "backups")
	p := startShale(t, shaleOpts{Config: fmt.Sprintf("[storage]\nbackup_dir = %q\n", backupDir)})
	run(t, p.Client, []step{
		{cmd("FUNCTION", "LOAD", functionSurvivor), "keep"},
		{cmd("BGSAVE"), "Background saving started"},
	})
	var info string
	pollUntil(t, 20*time.Second, func() (bool, string) {
		info = doStr(t, p.Client, "INFO", "persistence")
		return strings.Contains(info, "rdb_bgsave_in_progress:0") && strings.Contains(info, "rdb_saves:1"), info
	})
	run(t, p.Client, []step{{cmd("FUNCTION", "FLUSH"), ok}}) // after the checkpoint: not in it
	cp := regexp.MustCompile(`last_checkpoint_dir:(\S+)`).FindStringSubmatch(info)
	if cp == nil {
		t.Fatalf("no checkpoint dir in\n%s", info)
	}
	newDir := filepath.Join(t.TempDir(), "restored")
	if out, err := exec.Command(shaleBinary(t), "--restore-from", cp[1], "--dir", newDir).CombinedOutput(); err != nil {
		t.Fatalf("restore: %v\n%s", err, out)
	}
	r := startShale(t, shaleOpts{Dir: newDir})
	run(t, r.Client, []step{
		{cmd("FCALL", "kept", "1", "n", "7"), 7},
		{cmd("FUNCTION", "STATS"), []any{"running_script", nil, "engines", []any{"LUA", []any{"libraries_count", 1, "functions_count", 1}}}},
	})
}
