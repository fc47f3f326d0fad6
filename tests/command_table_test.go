package tests

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// comparedFlags are the COMMAND INFO flags Shale's table sets (server/table.go
// and movablekeys, from a row's key finder); the others (denyoom, noscript,
// loading, stale...) Shale does not report yet, so they are not compared.
var comparedFlags = []string{"write", "readonly", "admin", "fast", "no_auth", "movablekeys"}

// tableDifferences are the differences from redis-server 7.0 that are on
// purpose, keyed by "name: what", as TestCommandTable words them. Each says why.
var tableDifferences = map[string]string{
	// OBJECT keeps Redis 6's COMMAND INFO: the key range (2, 2, 1) and
	// readonly on the container, none on its subcommands, because the
	// dispatcher reads keys and access flags from top-level rows only
	// (COMMAND GETKEYS, read-only checks). Redis 7 moved both onto the
	// subcommands.
	"object: first key 2, redis 0":          "Redis 6 layout",
	"object: last key 2, redis 0":           "Redis 6 layout",
	"object: step 1, redis 0":               "Redis 6 layout",
	"object: flag readonly, not in redis":   "Redis 6 layout",
	"object|encoding: first key 0, redis 2": "Redis 6 layout",
	"object|encoding: last key 0, redis 2":  "Redis 6 layout",
	"object|encoding: step 0, redis 1":      "Redis 6 layout",
	"object|freq: first key 0, redis 2":     "Redis 6 layout",
	"object|freq: last key 0, redis 2":      "Redis 6 layout",
	"object|freq: step 0, redis 1":          "Redis 6 layout",
	"object|refcount: first key 0, redis 2": "Redis 6 layout",
	"object|refcount: last key 0, redis 2":  "Redis 6 layout",
	"object|refcount: step 0, redis 1":      "Redis 6 layout",
}

// TestCommandTable compares every row and subcommand of Shale's command
// table, as COMMAND INFO reports it, with real redis-server's COMMAND INFO for
// the same name: arity, first/last/step, and the flags Shale sets. Names
// redis-server 7.0 does not know (COMPACT, CLIENT SETINFO) are logged and
// skipped. A difference
// not in tableDifferences fails; so does an entry there that no longer differs.
func TestCommandTable(t *testing.T) {
	shale := startShale(t, shaleOpts{})
	redis := startRedis(t)
	var got []string
	seen := map[string]bool{}
	for _, entry := range do(t, shale.Client, "COMMAND").([]any) {
		row := entry.([]any)
		rows := [][]any{row}
		for _, sub := range row[9].([]any) {
			rows = append(rows, sub.([]any))
		}
		for _, r := range rows {
			name := r[0].(string)
			want := do(t, redis.Client, "COMMAND", "INFO", name).([]any)[0]
			if want == nil {
				t.Logf("%s: not in redis-server 7.0 (Shale's own, or newer), not compared", name)
				continue
			}
			for _, d := range infoDifferences(name, r, want.([]any)) {
				seen[d] = true
				if _, ok := tableDifferences[d]; !ok {
					got = append(got, d)
				}
			}
		}
	}
	for _, d := range got {
		t.Errorf("%s (add it to tableDifferences, with the reason, only if it is on purpose)", d)
	}
	for d := range tableDifferences {
		if !seen[d] {
			t.Errorf("tableDifferences lists %q, which no longer differs: remove it", d)
		}
	}
}

// infoDifferences lists how Shale's COMMAND INFO entry for name differs from
// Redis's, one "name: what" string per difference.
func infoDifferences(name string, shale, redis []any) []string {
	var out []string
	for i, field := range []string{"arity", "", "first key", "last key", "step"} {
		if field == "" {
			continue // flags, below
		}
		if s, r := shale[i+1], redis[i+1]; s != r {
			out = append(out, fmt.Sprintf("%s: %s %v, redis %v", name, field, s, r))
		}
	}
	shaleFlags, redisFlags := statusSet(shale[2]), statusSet(redis[2])
	for _, f := range comparedFlags {
		switch s, r := slices.Contains(shaleFlags, f), slices.Contains(redisFlags, f); {
		case s && !r:
			out = append(out, fmt.Sprintf("%s: flag %s, not in redis", name, f))
		case r && !s:
			out = append(out, fmt.Sprintf("%s: no flag %s, redis has it", name, f))
		}
	}
	return out
}

// statusSet reads a COMMAND INFO flags set as lower-case strings.
func statusSet(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, strings.ToLower(fmt.Sprint(x)))
	}
	return out
}
