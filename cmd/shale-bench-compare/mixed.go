package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/shaledb/shale/cmd/internal/benchhost"
)

// The mixed phase: the tail latency of a read/write load while the server
// does its heaviest background work. A fresh server gets string keys and
// hashes, then clients send GET, HGET, SET and HSET (70% reads), one
// request per round trip, while the harness builds a big hash, DELs it
// (Shale then reclaims its elements in the background) and, on Shale,
// runs COMPACT once. Every request's latency goes into a histogram per
// second of the load, so that the windows around the DEL and the
// compaction, known only once they happen, are sums of whole seconds.

// mixedConfig sizes the mixed phase.
type mixedConfig struct {
	For        time.Duration // the load's planned length; it runs longer when a window needs it
	Clients    int           // connections, each one request at a time
	Rounds     int           // alternating runs per server (shale, redis, shale, ...)
	StringKeys int           // string keys loaded first
	Hashes     int           // hashes loaded first
	HashFields int           // fields per loaded hash
	ValueBytes int           // bytes per string and hash value
	BigFields  int           // fields of the hash built and deleted during the load
}

const (
	mixedReadPercent = 70
	// mixedWindowLength is the length of the windows around the DEL and the
	// compaction; they start mixedWindowLead before the second in which
	// the command was sent, so that each shows a little of the load
	// before it and the aftermath, where the background work is.
	mixedWindowLength = 10 * time.Second
	mixedWindowLead   = time.Second
	// mixedOverrun bounds how far past its planned length the load may
	// run while it waits for the big hash's build, the DEL and COMPACT.
	mixedOverrun = 10 * time.Minute
	mixedBigKey  = "mixed:big"
)

// The windows of a mixed run, in report order.
const (
	windowWhole   = "whole run"
	windowDel     = "DEL"
	windowCompact = "COMPACT"
)

var mixedWindows = []string{windowWhole, windowDel, windowCompact}

// mixedRun is one server's mixed run.
type mixedRun struct {
	Round  int
	Server string
	// Windows holds the counts of each window that ran, by name; Redis
	// has no COMPACT window.
	Windows map[string]*mixedWindow
	// Timeline is one entry per second of the load.
	Timeline []mixedSecond
	// Events, in seconds since the load started and lengths.
	BuildAt, BuildSeconds float64 // the big hash
	DelAt                 float64
	Del                   time.Duration // DEL's round trip
	CompactAt             float64       // -1 when none ran
	Compact               time.Duration // COMPACT's round trip, the whole compaction
	Info                  []infoFigure  // Shale only
}

// mixedWindow is the requests of one window of a run.
type mixedWindow struct {
	From, To float64 // seconds since the load started
	Counts   benchhost.Counts
}

// Seconds is the window's length.
func (w *mixedWindow) Seconds() float64 { return w.To - w.From }

// mixedSecond summarizes one second of a run's load.
type mixedSecond struct {
	Requests       int64
	P50, P99, P999 time.Duration
}

// mixedTimeline is the load's histograms, one per second, made on first
// use: the load's length is known only at its end.
type mixedTimeline struct {
	start   time.Time
	seconds []atomic.Pointer[benchhost.Histogram]
}

func newMixedTimeline(start time.Time, bound time.Duration) *mixedTimeline {
	return &mixedTimeline{start: start, seconds: make([]atomic.Pointer[benchhost.Histogram], int(bound/time.Second)+1)}
}

// record counts one request sent at sent that took d.
func (t *mixedTimeline) record(sent time.Time, d time.Duration) {
	i := min(int(sent.Sub(t.start)/time.Second), len(t.seconds)-1)
	h := t.seconds[i].Load()
	if h == nil {
		t.seconds[i].CompareAndSwap(nil, new(benchhost.Histogram))
		h = t.seconds[i].Load()
	}
	h.Record(d)
}

// window sums the seconds [from, to), clipped to the timeline.
func (t *mixedTimeline) window(from, to int) *mixedWindow {
	from, to = max(0, from), min(to, len(t.seconds))
	w := &mixedWindow{From: float64(from), To: float64(to)}
	for i := from; i < to; i++ {
		w.Counts.Add(t.seconds[i].Load())
	}
	return w
}

// runMixedPhase runs the mixed load on a fresh Shale and a fresh Redis,
// alternating, cfg.Rounds times each.
func runMixedPhase(ctx context.Context, o options, work string, r *results) error {
	cfg := o.Mixed
	for round := 1; round <= cfg.Rounds; round++ {
		for _, name := range []string{"shale", "redis"} {
			var s *server
			var err error
			if name == "shale" {
				s, err = startShale(o, work, "shale-mixed", "")
			} else {
				s, err = startRedis(o, work)
			}
			if err != nil {
				return err
			}
			run, err := runMixed(ctx, s, cfg)
			s.Stop()
			if err != nil {
				return fmt.Errorf("mixed, %s: %w", name, err)
			}
			run.Round = round
			whole := run.Windows[windowWhole]
			compact := ""
			if run.CompactAt >= 0 {
				compact = fmt.Sprintf("; COMPACT at %.1fs took %s", run.CompactAt, formatDuration(run.Compact))
			}
			logf("mixed: round %d/%d %-5s %6.0f ops/s, p50 %s p99 %s p99.9 %s; DEL at %.1fs took %s%s", round, cfg.Rounds, name,
				float64(whole.Counts.Total())/whole.Seconds(), formatDuration(whole.Counts.Percentile(50)), formatDuration(whole.Counts.Percentile(99)),
				formatDuration(whole.Counts.Percentile(99.9)), run.DelAt, formatDuration(run.Del), compact)
			r.Mixed = append(r.Mixed, run)
		}
	}
	return nil
}

// runMixed loads s, then runs the mixed load with the big hash and, on
// Shale, COMPACT.
func runMixed(ctx context.Context, s *server, cfg mixedConfig) (mixedRun, error) {
	run := mixedRun{Server: s.Name, CompactAt: -1}
	c := newClient(s.Addr)
	defer c.Close()
	loadStart := time.Now()
	if err := preloadMixed(ctx, c, cfg); err != nil {
		return run, fmt.Errorf("load: %w", err)
	}
	// The load meets only the background work it and the harness cause,
	// not the tail of the preload's.
	if err := settle(ctx, c); err != nil {
		return run, err
	}
	logf("mixed: %s loaded %d keys and %d hashes of %d fields in %.0fs", s.Name, cfg.StringKeys, cfg.Hashes, cfg.HashFields, time.Since(loadStart).Seconds())
	shale := s.Name == "shale"
	var infoBefore string
	if shale {
		var err error
		if infoBefore, err = c.Info(ctx, "all").Result(); err != nil {
			return run, fmt.Errorf("INFO: %w", err)
		}
	}

	start := time.Now()
	bound := cfg.For + mixedOverrun
	timeline := newMixedTimeline(start, bound+mixedWindowLength)
	// A client's failure ends the load and the events at once.
	eventsCtx, cancel := context.WithDeadline(ctx, start.Add(bound))
	defer cancel()
	var stop atomic.Bool
	var wg sync.WaitGroup
	clientErrs := make(chan error, cfg.Clients)
	for id := range cfg.Clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := mixedClient(s.Addr, id, cfg, start.Add(bound+mixedWindowLength), timeline, &stop); err != nil {
				clientErrs <- fmt.Errorf("client %d: %w", id, err)
				stop.Store(true)
				cancel()
			}
		}()
	}
	err := mixedEvents(eventsCtx, c, shale, cfg, start, &run)
	// The load lasts its planned length, or until the last window ends.
	end := start.Add(cfg.For)
	for _, at := range []float64{run.DelAt, run.CompactAt} {
		if at >= 0 {
			_, to := eventWindow(at)
			end = later(end, start.Add(time.Duration(to)*time.Second))
		}
	}
	if err == nil {
		for !stop.Load() && time.Now().Before(end) {
			time.Sleep(10 * time.Millisecond)
		}
	}
	stop.Store(true)
	wg.Wait()
	close(clientErrs)
	if clientErr := <-clientErrs; clientErr != nil {
		return run, clientErr // the cause of a cancelled event, if one was
	}
	if err != nil {
		return run, err
	}
	elapsed := int(time.Since(start) / time.Second) // whole seconds: the last, partial one is left out

	run.Windows = map[string]*mixedWindow{windowWhole: timeline.window(0, elapsed)}
	for name, at := range map[string]float64{windowDel: run.DelAt, windowCompact: run.CompactAt} {
		if at >= 0 {
			from, to := eventWindow(at)
			run.Windows[name] = timeline.window(from, to)
		}
	}
	for i := range elapsed {
		w := timeline.window(i, i+1)
		run.Timeline = append(run.Timeline, mixedSecond{w.Counts.Total(), w.Counts.Percentile(50), w.Counts.Percentile(99), w.Counts.Percentile(99.9)})
	}
	if shale {
		infoAfter, err := c.Info(ctx, "all").Result()
		if err != nil {
			return run, fmt.Errorf("INFO: %w", err)
		}
		run.Info = infoFigures(infoBefore, infoAfter)
	}
	return run, nil
}

// eventWindow is the window, in whole seconds of the load, around an
// event at seconds since the load started.
func eventWindow(at float64) (from, to int) {
	from = int(at) - int(mixedWindowLead/time.Second)
	return from, from + int(mixedWindowLength/time.Second)
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// mixedEvents is the harness's part of the load: a tenth of the way in,
// it builds the big hash and DELs it once built; on Shale, it sends
// COMPACT in the middle of the load, or a window's length after the DEL
// if that is later, so that the two windows do not overlap.
func mixedEvents(ctx context.Context, c *redis.Client, shale bool, cfg mixedConfig, start time.Time, run *mixedRun) error {
	since := func(t time.Time) float64 { return t.Sub(start).Seconds() }
	sleepUntil := func(t time.Time) error {
		select {
		case <-time.After(time.Until(t)):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if err := sleepUntil(start.Add(cfg.For / 10)); err != nil {
		return err
	}
	built := time.Now()
	run.BuildAt = since(built)
	if err := buildKey(ctx, c, "hash", "HSET", mixedBigKey, cfg.BigFields); err != nil {
		return err
	}
	run.BuildSeconds = time.Since(built).Seconds()
	sent := time.Now()
	n, err := c.Del(ctx, mixedBigKey).Result()
	run.Del, run.DelAt = time.Since(sent), since(sent)
	if err != nil || n != 1 {
		return fmt.Errorf("DEL %s = %d, %v", mixedBigKey, n, err)
	}
	if !shale {
		return nil
	}
	if err := sleepUntil(later(start.Add(cfg.For/2), sent.Add(mixedWindowLength))); err != nil {
		return err
	}
	sent = time.Now()
	err = c.Do(ctx, "COMPACT").Err()
	run.Compact, run.CompactAt = time.Since(sent), since(sent)
	if err != nil {
		return fmt.Errorf("COMPACT: %w", err)
	}
	return nil
}

// Key names of the mixed phase, numbered with fixed widths so that a
// client rewrites only the digits.
const (
	mixedStringPrefix = "mixed:s:"
	mixedHashPrefix   = "mixed:h:"
	mixedFieldPrefix  = "f:"
	mixedDigits       = 9
)

// appendPadded appends n in decimal, zero-padded to width digits.
func appendPadded(dst []byte, n, width int) []byte {
	start := len(dst)
	dst = append(dst, make([]byte, width)...)
	putPadded(dst[start:], n)
	return dst
}

// putPadded writes n into all of dst in decimal, zero-padded.
func putPadded(dst []byte, n int) {
	for i := len(dst) - 1; i >= 0; i-- {
		dst[i] = byte('0' + n%10)
		n /= 10
	}
}

// mixedValues is random printable bytes; a value is a slice of it at a
// random offset, so that values differ and do not compress to nothing.
func mixedValues(size int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 7))
	b := make([]byte, size+4096)
	for i := range b {
		b[i] = byte('a' + rng.IntN(26))
	}
	return b
}

// preloadMixed loads the string keys and hashes with a few pipelining
// connections, each a share of the keys.
func preloadMixed(ctx context.Context, c *redis.Client, cfg mixedConfig) error {
	const loaders, keysPerMSET, perPipe = 4, 100, 20
	values := mixedValues(cfg.ValueBytes, 1)
	value := func(rng *rand.Rand) string {
		off := rng.IntN(len(values) - cfg.ValueBytes)
		return string(values[off : off+cfg.ValueBytes])
	}
	errs := make(chan error, loaders)
	var wg sync.WaitGroup
	for w := range loaders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 9))
			pipe := c.Pipeline()
			flush := func(last bool) error {
				if pipe.Len() == perPipe || (last && pipe.Len() > 0) {
					_, err := pipe.Exec(ctx)
					return err
				}
				return nil
			}
			// Loader w takes every loaders-th batch of strings and every
			// loaders-th hash.
			for first := w * keysPerMSET; first < cfg.StringKeys; first += loaders * keysPerMSET {
				args := []any{"MSET"}
				for k := first; k < min(first+keysPerMSET, cfg.StringKeys); k++ {
					args = append(args, string(appendPadded([]byte(mixedStringPrefix), k, mixedDigits)), value(rng))
				}
				pipe.Do(ctx, args...)
				if err := flush(false); err != nil {
					errs <- err
					return
				}
			}
			for h := w; h < cfg.Hashes; h += loaders {
				args := []any{"HSET", string(appendPadded([]byte(mixedHashPrefix), h, mixedDigits))}
				for f := range cfg.HashFields {
					args = append(args, string(appendPadded([]byte(mixedFieldPrefix), f, mixedDigits)), value(rng))
				}
				pipe.Do(ctx, args...)
				if err := flush(false); err != nil {
					errs <- err
					return
				}
			}
			if err := flush(true); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// mixedOp is one kind of request of the mixed load.
type mixedOp int

const (
	opGet mixedOp = iota
	opHGet
	opSet
	opHSet
)

// pickOp draws a request kind: mixedReadPercent reads, half GET and half
// HGET, the rest SET and HSET, half each.
func pickOp(rng *rand.Rand) mixedOp {
	n := rng.IntN(200)
	switch {
	case n < mixedReadPercent:
		return opGet
	case n < 2*mixedReadPercent:
		return opHGet
	case n < 100+mixedReadPercent:
		return opSet
	default:
		return opHSet
	}
}

// The mixed load's command names, made once.
var (
	cmdGet, cmdHGet, cmdSet, cmdHSet = []byte("GET"), []byte("HGET"), []byte("SET"), []byte("HSET")
)

// mixedClient is one connection of the mixed load: until stop, it sends
// one random request, reads and checks its reply and records the round
// trip. deadline bounds every read and write, so that a stalled server
// fails the load instead of hanging it.
func mixedClient(addr string, id int, cfg mixedConfig, deadline time.Time, timeline *mixedTimeline, stop *atomic.Bool) error {
	c, r, err := dialLoad(addr, deadline)
	if err != nil {
		return err
	}
	defer c.Close()
	rng := rand.New(rand.NewPCG(uint64(id), 0x313ed))
	values := mixedValues(cfg.ValueBytes, uint64(id)+2)
	var (
		buf   []byte
		skey  = appendPadded([]byte(mixedStringPrefix), 0, mixedDigits)
		hkey  = appendPadded([]byte(mixedHashPrefix), 0, mixedDigits)
		field = appendPadded([]byte(mixedFieldPrefix), 0, mixedDigits)
	)
	digits := func(b []byte) []byte { return b[len(b)-mixedDigits:] }
	for !stop.Load() {
		op := pickOp(rng)
		off := rng.IntN(len(values) - cfg.ValueBytes)
		value := values[off : off+cfg.ValueBytes]
		switch op {
		case opGet, opSet:
			putPadded(digits(skey), rng.IntN(cfg.StringKeys))
		default:
			putPadded(digits(hkey), rng.IntN(cfg.Hashes))
			putPadded(digits(field), rng.IntN(cfg.HashFields))
		}
		switch op {
		case opGet:
			buf = appendCommand(buf[:0], cmdGet, skey)
		case opHGet:
			buf = appendCommand(buf[:0], cmdHGet, hkey, field)
		case opSet:
			buf = appendCommand(buf[:0], cmdSet, skey, value)
		case opHSet:
			buf = appendCommand(buf[:0], cmdHSet, hkey, field, value)
		}
		sent := time.Now()
		if _, err := c.Write(buf); err != nil {
			return err
		}
		rep, err := readReply(r)
		if err != nil {
			return err
		}
		took := time.Since(sent)
		if err := checkMixedReply(op, rep); err != nil {
			return fmt.Errorf("%q: %w", buf, err)
		}
		timeline.record(sent, took)
	}
	return nil
}

// checkMixedReply checks a reply of op: a bulk string for a read of a
// loaded key or field, OK for SET, an integer for HSET.
func checkMixedReply(op mixedOp, rep reply) error {
	ok := false
	switch op {
	case opGet, opHGet:
		ok = rep.Kind == '$' && rep.Line != "-1"
	case opSet:
		ok = rep.Kind == '+' && rep.Line == "OK"
	case opHSet:
		ok = rep.Kind == ':'
	}
	if !ok {
		return fmt.Errorf("unexpected reply %v", rep)
	}
	return nil
}

// infoFigure is one INFO field of Shale's, before the mixed load and
// after it; "n/a" when INFO had no such field.
type infoFigure struct {
	Name, Before, After string
}

// The INFO fields the mixed phase reports: the Go GC's pauses and
// scheduler figures (INFO memory, stats), RocksDB's write stalls (INFO
// rocksdb), the write queue's and the key locks' waits. Fields are taken
// by prefix, so that new ones show without a change here; a prefix no
// field has is reported as "n/a", and so is a named field that is
// missing.
var (
	infoFigureNames    = []string{"go_gc_pause_total_us", "go_gc_pause_max_recent_us", "write_stall_seconds"}
	infoFigurePrefixes = []string{"go_gc_", "go_sched_", "write_stall", "queue_wait_", "key_lock_wait_"}
)

// infoFigures picks the reported fields out of two INFO replies, in the
// order of the later one.
func infoFigures(before, after string) []infoFigure {
	b, a := infoFields(before), infoFields(after)
	var out []infoFigure
	seen := map[string]bool{}
	add := func(name string) {
		if seen[name] {
			return
		}
		seen[name] = true
		out = append(out, infoFigure{name, or(b.values[name], "n/a"), or(a.values[name], "n/a")})
	}
	for _, prefix := range infoFigurePrefixes {
		found := false
		for _, name := range a.order {
			if strings.HasPrefix(name, prefix) {
				add(name)
				found = true
			}
		}
		if !found {
			seen[prefix+"*"] = true
			out = append(out, infoFigure{prefix + "*", "n/a", "n/a"})
		}
	}
	for _, name := range infoFigureNames {
		add(name)
	}
	return out
}

// infoFieldSet is an INFO reply's fields, with their order.
type infoFieldSet struct {
	values map[string]string
	order  []string
}

func infoFields(info string) infoFieldSet {
	s := infoFieldSet{values: map[string]string{}}
	for line := range strings.Lines(info) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if k, v, ok := strings.Cut(line, ":"); ok {
			if _, dup := s.values[k]; !dup {
				s.order = append(s.order, k)
			}
			s.values[k] = v
		}
	}
	return s
}

// mixedSummary is one window of one server's runs, pooled.
type mixedSummary struct {
	Counts  benchhost.Counts
	Seconds float64 // the windows' lengths, summed
	Runs    int
}

// summarizeMixed pools window of server's runs; Runs is 0 when none had
// that window.
func summarizeMixed(runs []mixedRun, server, window string) *mixedSummary {
	s := &mixedSummary{}
	for _, run := range runs {
		if w := run.Windows[window]; run.Server == server && w != nil {
			s.Counts.Merge(&w.Counts)
			s.Seconds += w.Seconds()
			s.Runs++
		}
	}
	return s
}

// OpsPerSec is the pooled throughput; 0 for no runs.
func (s *mixedSummary) OpsPerSec() float64 {
	if s.Seconds == 0 {
		return 0
	}
	return float64(s.Counts.Total()) / s.Seconds
}

// Ms is the pooled p-th percentile in milliseconds; 0 for no runs.
func (s *mixedSummary) Ms(p float64) float64 { return durationMs(s.Counts.Percentile(p)) }

func durationMs(d time.Duration) float64 { return d.Seconds() * 1e3 }
