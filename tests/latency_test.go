package tests

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// doctorDisabled is LATENCY DOCTOR's report while the monitor is off and
// has no samples, Redis's text.
const doctorDisabled = "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order to enable it. If we weren't in a deep space mission I'd suggest to take a look at https://redis.io/topics/latency-monitor.\n"

// TestLatencyEmpty covers LATENCY with no samples: its replies, its
// errors, and latency-monitor-threshold's CONFIG texts.
func TestLatencyEmpty(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, _ backend) {
		run(t, c, []step{
			{cmd("CONFIG", "GET", "latency-monitor-threshold"), []any{"latency-monitor-threshold", "0"}},
			{cmd("LATENCY", "LATEST"), []any{}},
			{cmd("LATENCY", "HISTORY", "command"), []any{}},
			{cmd("LATENCY", "GRAPH", "command"), errText("ERR No samples available for event 'command'")},
			{cmd("LATENCY", "GRAPH", "x y"), errText("ERR No samples available for event 'x y'")},
			{cmd("LATENCY", "RESET"), 0},
			{cmd("LATENCY", "RESET", "command", "fast-command"), 0},
			{cmd("LATENCY", "DOCTOR"), doctorDisabled},
			{cmd("LATENCY"), errText("ERR wrong number of arguments for 'latency' command")},
			{cmd("LATENCY", "FOO"), errText("ERR unknown subcommand 'FOO'. Try LATENCY HELP.")},
			{cmd("LATENCY", "LATEST", "x"), errText("ERR wrong number of arguments for 'latency|latest' command")},
			{cmd("LATENCY", "DOCTOR", "x"), errText("ERR wrong number of arguments for 'latency|doctor' command")},
			{cmd("LATENCY", "GRAPH"), errText("ERR wrong number of arguments for 'latency|graph' command")},
			{cmd("LATENCY", "HISTORY"), errText("ERR wrong number of arguments for 'latency|history' command")},
			{cmd("LATENCY", "HISTORY", "a", "b"), errText("ERR wrong number of arguments for 'latency|history' command")},
			{cmd("LATENCY", "HELP", "x"), errText("ERR wrong number of arguments for 'latency|help' command")},
			{cmd("CONFIG", "SET", "latency-monitor-threshold", "-1"), errText("ERR CONFIG SET failed (possibly related to argument 'latency-monitor-threshold') - argument must be between 0 and 9223372036854775807 inclusive")},
			{cmd("CONFIG", "SET", "latency-monitor-threshold", "abc"), errText("ERR CONFIG SET failed (possibly related to argument 'latency-monitor-threshold') - argument couldn't be parsed into an integer")},
			{cmd("CONFIG", "SET", "latency-monitor-threshold", "100"), ok},
			{cmd("CONFIG", "GET", "latency-monitor-threshold"), []any{"latency-monitor-threshold", "100"}},
			// Enabled, without samples: no longer "disabled".
			{cmd("LATENCY", "DOCTOR"), matchesRe(`^Dave, `)},
		})
	})
}

// TestLatencyHelp pins LATENCY HELP's lines. Redis 7.0 also has LATENCY
// HISTOGRAM (per-command latency histograms), which Shale does not: its
// lines are the only difference.
func TestLatencyHelp(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		got, err := c.Do(ctxT(t), "LATENCY", "HELP").StringSlice()
		if err != nil {
			t.Fatal(err)
		}
		want := []string{
			"LATENCY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
			"DOCTOR",
			"    Return a human readable latency analysis report.",
			"GRAPH <event>",
			"    Return an ASCII latency graph for the <event> class.",
			"HISTORY <event>",
			"    Return time-latency samples for the <event> class.",
			"LATEST",
			"    Return the latest latency samples for all events.",
			"RESET [<event> ...]",
			"    Reset latency data of one or more <event> classes.",
			"    (default: reset all data for all event classes)",
		}
		if !b.isShale() {
			want = append(want,
				"HISTOGRAM [COMMAND ...]",
				"    Return a cumulative distribution of latencies in the format of a histogram for the specified command names.",
				"    If no commands are specified then all histograms are replied.")
		}
		want = append(want, "HELP", "    Prints this help.")
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("LATENCY HELP:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
}

// TestLatencySamples has a slow command (DEBUG SLEEP) sampled under the
// "command" event and reads it back through every subcommand.
func TestLatencySamples(t *testing.T) {
	opts := backendOpts{RedisArgs: []string{"--enable-debug-command", "yes"}, Shale: shaleOpts{Config: debugConfig}}
	forEachBackendOpts(t, opts, func(t *testing.T, c *redis.Client, _ backend) {
		run(t, c, []step{
			{cmd("CONFIG", "SET", "latency-monitor-threshold", "20"), ok},
			{cmd("DEBUG", "SLEEP", "0"), ok}, // below the threshold: no sample
			{cmd("LATENCY", "LATEST"), []any{}},
			{cmd("DEBUG", "SLEEP", "0.05"), ok},
			{cmd("LATENCY", "LATEST"), []any{[]any{"command", atLeast(1_000_000_000), between(50, 5000), between(50, 5000)}}},
			{cmd("LATENCY", "HISTORY", "command"), []any{[]any{atLeast(1_000_000_000), between(50, 5000)}}},
			{cmd("LATENCY", "HISTORY", "COMMAND"), []any{}}, // names are exact, as Redis's lookup
			{cmd("LATENCY", "GRAPH", "command"), matchesRe(`^command - high \d+ ms, low \d+ ms \(all time high \d+ ms\)\n-{80}\n \n \n \n_\n \n\d\ns\n$`)},
			{cmd("LATENCY", "DOCTOR"), containsAll("Dave, I have observed latency spikes in this Redis instance.",
				"1. command: 1 latency spikes (average ", "- Check your Slow Log")},
			{cmd("LATENCY", "RESET", "COMMAND", "command", "other"), 1}, // RESET's names are in any case
			{cmd("LATENCY", "LATEST"), []any{}},
			{cmd("CONFIG", "SET", "latency-monitor-threshold", "0"), ok},
			{cmd("DEBUG", "SLEEP", "0.05"), ok},
			{cmd("LATENCY", "LATEST"), []any{}},
		})
	})
}

// TestLatencyExpireCycle has active expiry remove enough keys in one tick
// to take a millisecond, which the monitor samples as expire-cycle. Shale
// only: Redis's expire cycle removes them faster than its threshold's
// millisecond resolution can show.
func TestLatencyExpireCycle(t *testing.T) {
	s := startShale(t, shaleOpts{})
	c := s.Client
	run(t, c, []step{{cmd("CONFIG", "SET", "latency-monitor-threshold", "1"), ok}})
	pipe := c.Pipeline()
	for i := range 5000 {
		pipe.Do(ctxT(t), "SET", "k"+strconv.Itoa(i), "v", "PX", "50")
	}
	if _, err := pipe.Exec(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		samples, err := c.Do(ctxT(t), "LATENCY", "HISTORY", "expire-cycle").Slice()
		if err != nil {
			t.Fatal(err)
		}
		if len(samples) > 0 {
			break
		}
		if time.Now().After(deadline) {
			n, _ := c.DBSize(ctxT(t)).Result()
			t.Fatalf("no expire-cycle sample after active expiry (%d keys left)", n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestGoRuntimeFromConfig starts Shale with server.go_max_procs and
// server.go_gc_percent set and reads the values in effect from INFO: the
// Go runtime takes both from the configuration file, unless the
// environment sets GOMAXPROCS or GOGC, which win.
func TestGoRuntimeFromConfig(t *testing.T) {
	for _, env := range []string{"GOMAXPROCS", "GOGC"} {
		if _, set := os.LookupEnv(env); set {
			t.Skipf("%s is set in the environment, and overrides the configuration", env)
		}
	}
	// 7, not 1: a value that no development or CI machine has as its default.
	p := startShale(t, shaleOpts{Config: "[server]\ngo_max_procs = 7\ngo_gc_percent = 70\n"})
	info := infoFields(do(t, p.Client, "INFO", "latency").(string))
	if info["go_gomaxprocs"] != "7" || info["go_gogc"] != "70" {
		t.Fatalf("INFO latency: go_gomaxprocs %q, go_gogc %q; want 7 and 70", info["go_gomaxprocs"], info["go_gogc"])
	}
	run(t, p.Client, []step{
		{cmd("CONFIG", "GET", "server.go_max_procs"), []any{"server.go_max_procs", "7"}},
	})
}
