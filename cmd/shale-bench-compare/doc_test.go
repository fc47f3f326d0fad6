package main

import (
	"strings"
	"testing"
)

// TestBenchmarksDocThroughput renders the report's description of the
// throughput phase: every verb filled, the tests and the targets named.
func TestBenchmarksDocThroughput(t *testing.T) {
	o := options{Rounds: 3, Requests: 100000, PipelineRequests: 300000, Clients: 50, Keyspace: 100000,
		Phases: map[string]bool{"throughput": true, "publish": true}}
	o.Repl.SyncValue = 1
	doc := benchmarksDoc(&results{Opts: o}, "", nil, "bench")
	if i := strings.Index(doc, "%!"); i >= 0 {
		t.Errorf("a bad format verb: %s", doc[i:min(len(doc), i+80)])
	}
	for _, want := range []string{
		"`redis-benchmark -c 50 -r 100000 -n 100000 -t <test>`, one run per test",
		"`set,get,incr,lpush,rpush,lpop,sadd,hset,zadd`, then LRANGE_100, then `-t set` and `-t get` with `-P 16 -n 300000`",
		"the harness sends those LPUSHes in a run of\n  their own right before it",
		"At 10 µs per request, a run of 100000\n  requests spans 100 ticks.",
		"round (its publish runs on Shale and Redis included), the harness reads each server's",
		"and Shale's peak RSS at most 230 MB.",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
}
