package tests

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// tableDifferences are the differences from redis-server 7.0 that are on
// purpose, keyed by "name: what", as TestCommandTable words them. Each says why.
var tableDifferences = map[string]string{
	// OBJECT keeps Redis 6's COMMAND INFO: the key range (2, 2, 1) and
	// readonly on the container, none on its subcommands, because the
	// dispatcher reads keys and access flags from top-level rows only
	// (COMMAND GETKEYS, read-only checks). Redis 7 moved both onto the
	// subcommands.
	"object: first key 2, redis 0":             "Redis 6 layout",
	"object: last key 2, redis 0":              "Redis 6 layout",
	"object: step 1, redis 0":                  "Redis 6 layout",
	"object: flags [readonly], redis []":       "Redis 6 layout",
	"object: acl [@read @slow], redis [@slow]": "Redis 6 layout: readonly implies @read",
	"object|encoding: first key 0, redis 2":    "Redis 6 layout",
	"object|encoding: last key 0, redis 2":     "Redis 6 layout",
	"object|encoding: step 0, redis 1":         "Redis 6 layout",
	"object|encoding: key specs 0, redis 1":    "Redis 6 layout",
	"object|freq: first key 0, redis 2":        "Redis 6 layout",
	"object|freq: last key 0, redis 2":         "Redis 6 layout",
	"object|freq: step 0, redis 1":             "Redis 6 layout",
	"object|freq: key specs 0, redis 1":        "Redis 6 layout",
	"object|refcount: first key 0, redis 2":    "Redis 6 layout",
	"object|refcount: last key 0, redis 2":     "Redis 6 layout",
	"object|refcount: step 0, redis 1":         "Redis 6 layout",
	"object|refcount: key specs 0, redis 1":    "Redis 6 layout",
	"object|idletime: first key 0, redis 2":    "Redis 6 layout",
	"object|idletime: last key 0, redis 2":     "Redis 6 layout",
	"object|idletime: step 0, redis 1":         "Redis 6 layout",
	"object|idletime: key specs 0, redis 1":    "Redis 6 layout",
	// MEMORY keeps OBJECT's layout, for MEMORY USAGE's key.
	"memory: first key 2, redis 0":             "Redis 6 layout, as OBJECT",
	"memory: last key 2, redis 0":              "Redis 6 layout, as OBJECT",
	"memory: step 1, redis 0":                  "Redis 6 layout, as OBJECT",
	"memory: flags [readonly], redis []":       "Redis 6 layout, as OBJECT",
	"memory: acl [@read @slow], redis [@slow]": "Redis 6 layout: readonly implies @read",
	"memory|usage: first key 0, redis 2":       "Redis 6 layout, as OBJECT",
	"memory|usage: last key 0, redis 2":        "Redis 6 layout, as OBJECT",
	"memory|usage: step 0, redis 1":            "Redis 6 layout, as OBJECT",
	"memory|usage: key specs 0, redis 1":       "Redis 6 layout, as OBJECT",
	// XINFO keeps OBJECT's layout, for XINFO STREAM's key (part 2 adds
	// GROUPS and CONSUMERS, whose key is at the same place).
	"xinfo: first key 2, redis 0":                 "Redis 6 layout, as OBJECT",
	"xinfo: last key 2, redis 0":                  "Redis 6 layout, as OBJECT",
	"xinfo: step 1, redis 0":                      "Redis 6 layout, as OBJECT",
	"xinfo: flags [readonly], redis []":           "Redis 6 layout, as OBJECT",
	"xinfo: acl [@read @slow], redis [@slow]":     "Redis 6 layout: readonly implies @read",
	"xinfo|stream: first key 0, redis 2":          "Redis 6 layout, as OBJECT",
	"xinfo|stream: last key 0, redis 2":           "Redis 6 layout, as OBJECT",
	"xinfo|stream: step 0, redis 1":               "Redis 6 layout, as OBJECT",
	"xinfo|stream: key specs 0, redis 1":          "Redis 6 layout, as OBJECT",
	"xgroup: first key 2, redis 0":                "Redis 6 layout, as OBJECT",
	"xgroup: last key 2, redis 0":                 "Redis 6 layout, as OBJECT",
	"xgroup: step 1, redis 0":                     "Redis 6 layout, as OBJECT",
	"xgroup: flags [write], redis []":             "Redis 6 layout, as OBJECT",
	"xgroup: acl [@slow @write], redis [@slow]":   "Redis 6 layout: write implies @write",
	"xgroup|create: first key 0, redis 2":         "Redis 6 layout, as OBJECT",
	"xgroup|create: last key 0, redis 2":          "Redis 6 layout, as OBJECT",
	"xgroup|create: step 0, redis 1":              "Redis 6 layout, as OBJECT",
	"xgroup|create: key specs 0, redis 1":         "Redis 6 layout, as OBJECT",
	"xgroup|setid: first key 0, redis 2":          "Redis 6 layout, as OBJECT",
	"xgroup|setid: last key 0, redis 2":           "Redis 6 layout, as OBJECT",
	"xgroup|setid: step 0, redis 1":               "Redis 6 layout, as OBJECT",
	"xgroup|setid: key specs 0, redis 1":          "Redis 6 layout, as OBJECT",
	"xgroup|destroy: first key 0, redis 2":        "Redis 6 layout, as OBJECT",
	"xgroup|destroy: last key 0, redis 2":         "Redis 6 layout, as OBJECT",
	"xgroup|destroy: step 0, redis 1":             "Redis 6 layout, as OBJECT",
	"xgroup|destroy: key specs 0, redis 1":        "Redis 6 layout, as OBJECT",
	"xgroup|createconsumer: first key 0, redis 2": "Redis 6 layout, as OBJECT",
	"xgroup|createconsumer: last key 0, redis 2":  "Redis 6 layout, as OBJECT",
	"xgroup|createconsumer: step 0, redis 1":      "Redis 6 layout, as OBJECT",
	"xgroup|createconsumer: key specs 0, redis 1": "Redis 6 layout, as OBJECT",
	"xgroup|delconsumer: first key 0, redis 2":    "Redis 6 layout, as OBJECT",
	"xgroup|delconsumer: last key 0, redis 2":     "Redis 6 layout, as OBJECT",
	"xgroup|delconsumer: step 0, redis 1":         "Redis 6 layout, as OBJECT",
	"xgroup|delconsumer: key specs 0, redis 1":    "Redis 6 layout, as OBJECT",
	"xinfo|groups: first key 0, redis 2":          "Redis 6 layout, as OBJECT",
	"xinfo|groups: last key 0, redis 2":           "Redis 6 layout, as OBJECT",
	"xinfo|groups: step 0, redis 1":               "Redis 6 layout, as OBJECT",
	"xinfo|groups: key specs 0, redis 1":          "Redis 6 layout, as OBJECT",
	"xinfo|consumers: first key 0, redis 2":       "Redis 6 layout, as OBJECT",
	"xinfo|consumers: last key 0, redis 2":        "Redis 6 layout, as OBJECT",
	"xinfo|consumers: step 0, redis 1":            "Redis 6 layout, as OBJECT",
	"xinfo|consumers: key specs 0, redis 1":       "Redis 6 layout, as OBJECT",
	// Shard channels: Redis's key range over them (flagged not_key in its
	// key specs, which Shale's rows have too) is for cluster routing;
	// Shale's key ranges are keys (COMMAND GETKEYS, locking), and Redis's
	// COMMAND GETKEYS finds no keys in these commands either.
	"ssubscribe: first key 0, redis 1":   "shard channels are no keys",
	"ssubscribe: last key 0, redis -1":   "shard channels are no keys",
	"ssubscribe: step 0, redis 1":        "shard channels are no keys",
	"sunsubscribe: first key 0, redis 1": "shard channels are no keys",
	"sunsubscribe: last key 0, redis -1": "shard channels are no keys",
	"sunsubscribe: step 0, redis 1":      "shard channels are no keys",
	"spublish: first key 0, redis 1":     "shard channels are no keys",
	"spublish: last key 0, redis 1":      "shard channels are no keys",
	"spublish: step 0, redis 1":          "shard channels are no keys",
	// Summaries that describe Shale where it differs from Redis.
	"debug: summary":    "names the setting that enables DEBUG in Shale",
	"shutdown: summary": "Shale flushes RocksDB; it has no dump file to save",
}

// TestCommandTable compares every row and subcommand of Shale's command
// table with real redis-server's for the same name: COMMAND INFO's arity,
// flags, first/last/step, ACL categories, tips and key specs, and COMMAND
// DOCS' summary, since, group and complexity. Names redis-server 7.0 does
// not know (COMPACT, CLIENT SETINFO) are logged and skipped. A difference
// not in tableDifferences fails; so does an entry there that no longer
// differs.
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
			diffs := infoDifferences(name, r, want.([]any))
			diffs = append(diffs, docsDifferences(name, docsOf(t, shale, name), docsOf(t, redis, name))...)
			for _, d := range diffs {
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
// Redis's, one "name: what" string per difference. Flags, ACL categories
// and tips are sets; key specs are compared whole, in order (COMMAND DOCS
// refers to them by index), with their maps in Redis's key order.
func infoDifferences(name string, shale, redis []any) []string {
	var out []string
	for i, field := range []string{1: "arity", 3: "first key", 4: "last key", 5: "step"} {
		if field == "" {
			continue
		}
		if s, r := shale[i], redis[i]; s != r {
			out = append(out, fmt.Sprintf("%s: %s %v, redis %v", name, field, s, r))
		}
	}
	for i, field := range []string{2: "flags", 6: "acl", 7: "tips"} {
		if field == "" {
			continue
		}
		if s, r := sortedSet(shale[i]), sortedSet(redis[i]); !slices.Equal(s, r) {
			out = append(out, fmt.Sprintf("%s: %s %v, redis %v", name, field, s, r))
		}
	}
	shaleSpecs, redisSpecs := shale[8].([]any), redis[8].([]any)
	if len(shaleSpecs) != len(redisSpecs) {
		return append(out, fmt.Sprintf("%s: key specs %d, redis %d", name, len(shaleSpecs), len(redisSpecs)))
	}
	for i := range shaleSpecs {
		if s, r := fmt.Sprint(shaleSpecs[i]), fmt.Sprint(redisSpecs[i]); s != r {
			out = append(out, fmt.Sprintf("%s: key spec %d %s, redis %s", name, i, s, r))
		}
	}
	return out
}

// docsOf returns the COMMAND DOCS fields of name (a subcommand's from its
// container's entry) as a map; nil when the server has no docs for it.
func docsOf(t *testing.T, srv *serverProc, name string) map[string]any {
	container, _, isSub := strings.Cut(name, "|")
	reply := respMap(do(t, srv.Client, "COMMAND", "DOCS", container))
	if reply == nil {
		return nil
	}
	doc := respMap(reply[container])
	if isSub {
		doc = respMap(respMap(doc["subcommands"])[name])
	}
	return doc
}

// docsDifferences lists how Shale's COMMAND DOCS fields for name differ from
// Redis's: summary, since, group and complexity.
func docsDifferences(name string, shale, redis map[string]any) []string {
	var out []string
	for _, field := range []string{"summary", "since", "group", "complexity"} {
		if s, r := shale[field], redis[field]; s != r {
			out = append(out, fmt.Sprintf("%s: %s", name, field))
		}
	}
	return out
}

// respMap reads a RESP2 map, a flat array of keys and values, or go-redis's
// map of a RESP3 one, into a map; nil for anything else.
func respMap(v any) map[string]any {
	switch v := v.(type) {
	case []any:
		m := make(map[string]any, len(v)/2)
		for i := 0; i+1 < len(v); i += 2 {
			m[fmt.Sprint(v[i])] = v[i+1]
		}
		return m
	case map[any]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[fmt.Sprint(k)] = x
		}
		return m
	}
	return nil
}

// sortedSet reads a COMMAND INFO set (flags, ACL categories, tips) as
// sorted lower-case strings.
func sortedSet(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, strings.ToLower(fmt.Sprint(x)))
	}
	slices.Sort(out)
	return out
}
