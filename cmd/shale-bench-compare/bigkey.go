package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// bigKeyTypes are the composite types whose DEL is timed, with the command
// that adds elements to each.
var bigKeyTypes = []struct {
	Name string // hash, list, set, zset, stream
	Cmd  string // HSET, RPUSH, SADD, ZADD, XADD
}{
	{"hash", "HSET"},
	{"list", "RPUSH"},
	{"set", "SADD"},
	{"zset", "ZADD"},
	{"stream", "XADD"},
}

const (
	elementsPerCommand = 1000 // elements in one HSET/RPUSH/SADD/ZADD
	commandsPerPipe    = 50   // commands in one pipeline round trip
)

// buildKey creates key as a kind ("hash", "list", "set", "zset" or
// "stream") with n elements, through pipelined commands of
// elementsPerCommand elements each (a stream's XADD adds one entry).
func buildKey(ctx context.Context, c *redis.Client, kind, cmd, key string, n int) error {
	pipe := c.Pipeline()
	args := []any{cmd, key}
	for i := range n {
		elem := fmt.Sprintf("e:%09d", i)
		switch kind {
		case "hash":
			args = append(args, elem, "value-0123456789")
		case "zset":
			args = append(args, i, elem)
		case "stream":
			args = append(args, "*", "field", elem)
		default:
			args = append(args, elem)
		}
		if kind == "stream" || (i+1)%elementsPerCommand == 0 || i == n-1 {
			pipe.Do(ctx, args...)
			args = []any{cmd, key}
		}
		if pipe.Len() == commandsPerPipe || (i == n-1 && pipe.Len() > 0) {
			if _, err := pipe.Exec(ctx); err != nil {
				return fmt.Errorf("build %s %s: %w", kind, key, err)
			}
		}
	}
	return nil
}

// delSample is the DEL round trips of one key type and size on one server.
type delSample struct {
	Server   string
	Type     string
	Elements int
	Times    []time.Duration // one per repetition
}

// P50 returns the median DEL time.
func (d delSample) P50() time.Duration {
	v := make([]float64, len(d.Times))
	for i, t := range d.Times {
		v[i] = float64(t)
	}
	return time.Duration(median(v))
}

// Min returns the fastest DEL.
func (d delSample) Min() time.Duration {
	s := append([]time.Duration(nil), d.Times...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[0]
}

// timeDel builds a fresh key reps times, settles, and times one DEL round
// trip of it from the client.
func timeDel(ctx context.Context, c *redis.Client, server, kind, cmd string, n, reps int) (delSample, error) {
	d := delSample{Server: server, Type: kind, Elements: n}
	for rep := range reps {
		key := fmt.Sprintf("bigkey:%s:%d:%d", kind, n, rep)
		if err := buildKey(ctx, c, kind, cmd, key, n); err != nil {
			return d, err
		}
		if err := settle(ctx, c); err != nil {
			return d, err
		}
		// After settle's idle wait, the first round trip pays for waking
		// up the machine (about 0.3 ms here, Redis's too): a few PINGs
		// pay it instead of the DEL.
		for range 3 {
			if err := c.Ping(ctx).Err(); err != nil {
				return d, err
			}
		}
		start := time.Now()
		got, err := c.Del(ctx, key).Result()
		elapsed := time.Since(start)
		if err != nil || got != 1 {
			return d, fmt.Errorf("%s: DEL %s = %d, %v", server, key, got, err)
		}
		d.Times = append(d.Times, elapsed)
	}
	return d, nil
}

// settleMax bounds settle's wait.
const settleMax = 60 * time.Second

// settle waits until the server runs no flush and no compaction, seen
// twice 100 ms apart, or settleMax has passed. Building a big key makes
// Shale flush and compact it in the background, on the two cores the DEL
// and the client share: timed right after the build, a DEL measured that
// contention more than its own cost, which a 10-element key never meets.
// Redis has no such work (its INFO has no rocksdb section): it settles
// after the two polls.
func settle(ctx context.Context, c *redis.Client) error {
	deadline := time.Now().Add(settleMax)
	for quiet := 0; quiet < 2 && time.Now().Before(deadline); {
		info, err := c.Info(ctx, "rocksdb").Result()
		if err != nil {
			return fmt.Errorf("INFO rocksdb: %w", err)
		}
		if busy(info) {
			quiet = 0
		} else {
			quiet++
		}
		time.Sleep(100 * time.Millisecond)
	}
	return nil
}

// busy reports whether an INFO rocksdb reply counts a running flush or
// compaction; a reply without those fields counts none.
func busy(info string) bool {
	for line := range strings.Lines(info) {
		for _, field := range []string{"running_flushes:", "running_compactions:"} {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), field); ok && v != "0" {
				return true
			}
		}
	}
	return false
}

// reclaimSample is the subkey column family's SST size at one moment.
type reclaimSample struct {
	Seconds float64 // since the DEL returned
	Bytes   int64
}

// reclaimResult is the disk timeline after deleting one big hash.
type reclaimResult struct {
	Fields    int
	PreInsert int64 // subkey SST bytes before the hash was built
	PreDel    int64 // subkey SST bytes once it was built, just before DEL
	Samples   []reclaimSample
}

// BackWithin returns the first sample time at which the subkey CF was back
// within frac (0.10 = 10%) of its pre-insert size, or -1 if it never was.
func (r reclaimResult) BackWithin(frac float64) float64 {
	limit := float64(r.PreInsert) * (1 + frac)
	for _, s := range r.Samples {
		if float64(s.Bytes) <= limit {
			return s.Seconds
		}
	}
	return -1
}

// sstBytes asks shale for the subkey column family's live SST bytes.
func sstBytes(ctx context.Context, c *redis.Client) (int64, error) {
	return c.Do(ctx, "DEBUG", "SST-BYTES", "subkey").Int64()
}

// measureReclaim builds a baseline, then a hash of fields fields, deletes it
// and samples the subkey CF's SST bytes every second for dur. Before each
// of the two "before" measurements, SAVE (a checkpoint) flushes the
// memtables, so that the sizes count every record; after the DEL nothing but
// DEBUG SST-BYTES is sent.
func measureReclaim(ctx context.Context, c *redis.Client, baseKeys, baseFields, fields int, dur time.Duration) (reclaimResult, error) {
	r := reclaimResult{Fields: fields}
	for i := range baseKeys {
		if err := buildKey(ctx, c, "hash", "HSET", fmt.Sprintf("base:%06d", i), baseFields); err != nil {
			return r, err
		}
	}
	flushAndSize := func() (int64, error) {
		if err := c.Do(ctx, "SAVE").Err(); err != nil {
			return 0, fmt.Errorf("SAVE: %w", err)
		}
		return sstBytes(ctx, c)
	}
	var err error
	if r.PreInsert, err = flushAndSize(); err != nil {
		return r, err
	}
	if err := buildKey(ctx, c, "hash", "HSET", "reclaim:hash", fields); err != nil {
		return r, err
	}
	if r.PreDel, err = flushAndSize(); err != nil {
		return r, err
	}
	if got, err := c.Del(ctx, "reclaim:hash").Result(); err != nil || got != 1 {
		return r, fmt.Errorf("DEL reclaim:hash = %d, %v", got, err)
	}
	start := time.Now()
	for tick := time.Duration(0); tick <= dur; tick += time.Second {
		time.Sleep(time.Until(start.Add(tick)))
		b, err := sstBytes(ctx, c)
		if err != nil {
			return r, err
		}
		r.Samples = append(r.Samples, reclaimSample{Seconds: time.Since(start).Seconds(), Bytes: b})
	}
	return r, nil
}
