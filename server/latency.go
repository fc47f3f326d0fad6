package server

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The latency monitor, which LATENCY reads (cmd_latency.go): as Redis's
// latency.c, a time series per event of the latencies, in milliseconds, of
// at least server.latency_monitor_threshold_ms (0: off), the highest per
// second, the latest latencyHistoryLen seconds that had one.
//
// Shale feeds the events it has a counterpart for: "command" and
// "fast-command" (a command that ran that long, by its table row's Fast
// flag, with observe's measurement: time blocked in BLPOP and the like left
// out), and "expire-cycle" (one tick of active expiry, which runs on its
// own goroutine and holds up only the keys it removes). Redis's other
// events (fork, aof-*, rdb-*, eviction-*, active-defrag-cycle) have no
// counterpart: Shale does not fork, keeps no AOF and never evicts.

// latencyHistoryLen is how many samples an event keeps (LATENCY_TS_LEN).
const latencyHistoryLen = 160

// Latency event names, as Redis names them.
const (
	latencyCommand     = "command"
	latencyFastCommand = "fast-command"
	latencyExpireCycle = "expire-cycle"
)

// latencySample is the highest latency of one second.
type latencySample struct {
	at int64 // unix seconds; 0 = unused slot
	ms int64
}

// latencySeries is one event's history, a ring as Redis's.
type latencySeries struct {
	samples [latencyHistoryLen]latencySample
	next    int   // the slot the next second's sample goes to
	max     int64 // the highest latency ever sampled, in ms
}

// latencyMonitor holds every event's series.
type latencyMonitor struct {
	threshold atomic.Int64 // ms; 0 = off

	mu     sync.Mutex
	events map[string]*latencySeries
}

func (m *latencyMonitor) init(thresholdMs int64) {
	m.threshold.Store(thresholdMs)
	m.events = make(map[string]*latencySeries)
}

// observe samples a duration of event if it reaches the threshold. The
// hot path: one atomic load when it does not.
func (m *latencyMonitor) observe(event string, d time.Duration) {
	limit := m.threshold.Load()
	if limit == 0 {
		return
	}
	if ms := d.Milliseconds(); ms >= limit {
		m.add(event, ms, time.Now().Unix())
	}
}

// add records ms for event at unix second now, as latencyAddSample: a
// second keeps its highest sample.
func (m *latencyMonitor) add(event string, ms, now int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ts := m.events[event]
	if ts == nil {
		ts = &latencySeries{}
		m.events[event] = ts
	}
	ts.max = max(ts.max, ms)
	prev := &ts.samples[(ts.next+latencyHistoryLen-1)%latencyHistoryLen]
	if prev.at == now {
		prev.ms = max(prev.ms, ms)
		return
	}
	ts.samples[ts.next] = latencySample{at: now, ms: ms}
	ts.next = (ts.next + 1) % latencyHistoryLen
}

// reset forgets the events named (any case), or every event when names is
// empty, and returns how many it forgot.
func (m *latencyMonitor) reset(names [][]byte) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	var n int64
	for event := range m.events {
		if len(names) == 0 {
			delete(m.events, event)
			n++
			continue
		}
		for _, name := range names {
			if strings.EqualFold(event, string(name)) {
				delete(m.events, event)
				n++
				break
			}
		}
	}
	return n
}

// latencyLatest is one row of LATENCY LATEST.
type latencyLatest struct {
	event   string
	at, ms  int64 // the latest sample
	allTime int64
}

// latest returns each event's latest sample, by event name.
func (m *latencyMonitor) latest() []latencyLatest {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]latencyLatest, 0, len(m.events))
	for event, ts := range m.events {
		last := ts.samples[(ts.next+latencyHistoryLen-1)%latencyHistoryLen]
		out = append(out, latencyLatest{event, last.at, last.ms, ts.max})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].event < out[j].event })
	return out
}

// history returns event's samples, oldest first, its highest latency
// ever, and whether the event exists (exact name, as Redis's lookup).
func (m *latencyMonitor) history(event string) (samples []latencySample, allTime int64, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ts := m.events[event]
	if ts == nil {
		return nil, 0, false
	}
	for j := range latencyHistoryLen {
		if s := ts.samples[(ts.next+j)%latencyHistoryLen]; s.at != 0 {
			samples = append(samples, s)
		}
	}
	return samples, ts.max, true
}

// eventNames returns the events monitored, by name.
func (m *latencyMonitor) eventNames() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	names := make([]string, 0, len(m.events))
	for e := range m.events {
		names = append(names, e)
	}
	sort.Strings(names)
	return names
}

// latencyStats are Redis's analyzeLatencyForEvent figures for an event.
type latencyStats struct {
	samples           int
	avg, mad, allTime int64
	period            int64 // seconds since the oldest sample, at least 1
}

func analyzeLatency(samples []latencySample, allTime, now int64) latencyStats {
	ls := latencyStats{samples: len(samples), allTime: allTime}
	if len(samples) == 0 {
		return ls
	}
	var sum, oldest int64
	for _, s := range samples {
		sum += s.ms
		if oldest == 0 || s.at < oldest {
			oldest = s.at
		}
	}
	ls.avg = sum / int64(len(samples))
	ls.period = max(now-oldest, 1)
	var dev int64
	for _, s := range samples {
		d := ls.avg - s.ms
		if d < 0 {
			d = -d
		}
		dev += d
	}
	ls.mad = dev / int64(len(samples))
	return ls
}

// The texts of LATENCY DOCTOR, Redis's (latency.c), where they apply.
const (
	doctorDisabled = "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order to enable it. If we weren't in a deep space mission I'd suggest to take a look at https://redis.io/topics/latency-monitor.\n"
	doctorNoSpike  = "Dave, no latency spike was observed during the lifetime of this Redis instance, not in the slightest bit. I honestly think you ought to sit down calmly, take a stress pill, and think things over.\n"
	doctorSpikes   = "Dave, I have observed latency spikes in this Redis instance. You don't mind talking about it, do you Dave?\n\n"
	doctorNoAdvice = "\nWhile there are latency events logged, I'm not able to suggest any easy fix. Please use the Redis community to get some help, providing this report in your help request.\n"
	doctorAdvices  = "\nI have a few advices for you:\n\n"

	adviceSlowlogEnable = "- There are latency issues with potentially slow commands you are using. Try to enable the Slow Log Redis feature using the command 'CONFIG SET slowlog-log-slower-than %d'. If the Slow log is disabled Redis is not able to log slow commands execution for you.\n"
	adviceSlowlogTuning = "- Your current Slow Log configuration only logs events that are slower than your configured latency monitor threshold. Please use 'CONFIG SET slowlog-log-slower-than %d'.\n"
	adviceSlowlogLook   = "- Check your Slow Log to understand what are the commands you are running which are too slow to execute. Please check https://redis.io/commands/slowlog for more information.\n"
	adviceScheduler     = "- The system is slow to execute Redis code paths not containing system calls. This usually means the system does not provide Redis CPU time to run for long periods. You should try to:\n" +
		"  1) Lower the system load.\n" +
		"  2) Use a computer / VM just for Redis if you are running other software in the same system.\n" +
		"  3) Check if you have a \"noisy neighbour\" problem.\n" +
		"  4) Check with 'redis-cli --intrinsic-latency 100' what is the intrinsic latency in your system.\n" +
		"  5) Check if the problem is allocator-related by recompiling Redis with MALLOC=libc, if you are using Jemalloc. However this may create fragmentation problems.\n"
	adviceLargeObjects = "- Deleting, expiring or evicting (because of maxmemory policy) large objects is a blocking operation. If you have very large objects that are often deleted, expired, or evicted, try to fragment those objects into multiple smaller objects.\n"
	adviceDisableTHP   = "- I detected a non zero amount of anonymous huge pages used by your process. This creates very serious latency events in different conditions, especially when Redis is persisting on disk. To disable THP support use the command 'echo never > /sys/kernel/mm/transparent_hugepage/enabled', make sure to also add it into /etc/rc.local so that the command will be executed again after a reboot. Note that even if you have already disabled THP, you still need to restart the Redis process to get rid of the huge pages already created.\n"
)

// doctor is LATENCY DOCTOR's report, as Redis's createLatencyReport words
// it, with the advice that applies to Shale's events; slowlogUsec is
// server.slowlog_log_slower_than.
func (m *latencyMonitor) doctor(slowlogUsec int64) string {
	threshold := m.threshold.Load()
	names := m.eventNames()
	if len(names) == 0 && threshold == 0 {
		return doctorDisabled
	}
	var b strings.Builder
	var slowlogEnable, slowlogTuning, slowlogLook, scheduler, largeObjects, thp bool
	advices, events := 0, 0
	now := time.Now().Unix()
	for _, event := range names {
		samples, allTime, ok := m.history(event)
		if !ok {
			continue // reset meanwhile
		}
		events++
		if events == 1 {
			b.WriteString(doctorSpikes)
		}
		ls := analyzeLatency(samples, allTime, now)
		fmt.Fprintf(&b, "%d. %s: %d latency spikes (average %dms, mean deviation %dms, period %.2f sec). Worst all time event %dms.",
			events, event, ls.samples, ls.avg, ls.mad, float64(ls.period)/float64(max(ls.samples, 1)), ls.allTime)
		switch strings.ToLower(event) {
		case latencyCommand:
			if slowlogUsec < 0 {
				slowlogEnable = true
				advices++
			} else if slowlogUsec/1000 > threshold {
				slowlogTuning = true
				advices++
			}
			slowlogLook, largeObjects = true, true
			advices += 2
		case latencyFastCommand:
			scheduler = true
			advices++
		case latencyExpireCycle:
			// Redis also advises a higher hz; Shale has none to raise.
			largeObjects = true
			advices += 2
		}
		b.WriteByte('\n')
	}
	if anonHugePages() > 0 {
		thp = true
		advices++
	}
	switch {
	case events == 0 && advices == 0:
		b.WriteString(doctorNoSpike)
	case advices == 0:
		b.WriteString(doctorNoAdvice)
	default:
		b.WriteString(doctorAdvices)
		if slowlogEnable {
			fmt.Fprintf(&b, adviceSlowlogEnable, threshold*1000)
		}
		if slowlogTuning {
			fmt.Fprintf(&b, adviceSlowlogTuning, threshold*1000)
		}
		if slowlogLook {
			b.WriteString(adviceSlowlogLook)
		}
		if scheduler {
			b.WriteString(adviceScheduler)
		}
		if largeObjects {
			b.WriteString(adviceLargeObjects)
		}
		if thp {
			b.WriteString(adviceDisableTHP)
		}
	}
	return b.String()
}

// anonHugePages is the transparent huge pages the process uses, in kB, as
// Redis's THPGetAnonHugePagesSize reads them; 0 when unknown.
func anonHugePages() int64 {
	f, err := os.Open("/proc/self/smaps_rollup")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := bytes.CutPrefix(sc.Bytes(), []byte("AnonHugePages:")); ok {
			f := strings.Fields(string(rest))
			if len(f) > 0 {
				n, _ := strconv.ParseInt(f[0], 10, 64)
				return n
			}
		}
	}
	return 0
}

// Redis's LATENCY GRAPH layout (latency.c, sparkline.c).
const (
	graphColumns   = 80
	graphRows      = 4
	graphCharset   = "_o#" // filled
	graphLabelSkip = 1     // blank rows between the chart and its labels
)

// graph is LATENCY GRAPH's chart of an event's samples (oldest first) as
// Redis draws it: a title, a rule, and a filled sparkline of graphRows
// rows with, under each column, how long ago the sample was taken, written
// downwards.
func graph(event string, samples []latencySample, allTime, now int64) string {
	var lo, hi int64
	labels := make([]string, len(samples))
	for i, s := range samples {
		if i == 0 {
			lo, hi = s.ms, s.ms
		}
		lo, hi = min(lo, s.ms), max(hi, s.ms)
		labels[i] = agoLabel(now - s.at)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s - high %d ms, low %d ms (all time high %d ms)\n", event, hi, lo, allTime)
	b.WriteString(strings.Repeat("-", graphColumns))
	b.WriteByte('\n')
	for j := 0; j < len(samples); j += graphColumns {
		if j != 0 {
			b.WriteByte('\n')
		}
		n := min(len(samples)-j, graphColumns)
		sparkline(&b, samples[j:j+n], labels[j:j+n], float64(lo), float64(hi))
	}
	return b.String()
}

// agoLabel is how long ago a sample was taken, as Redis labels it.
func agoLabel(secs int64) string {
	switch {
	case secs < 60:
		return strconv.FormatInt(secs, 10) + "s"
	case secs < 3600:
		return strconv.FormatInt(secs/60, 10) + "m"
	case secs < 3600*24:
		return strconv.FormatInt(secs/3600, 10) + "h"
	}
	return strconv.FormatInt(secs/(3600*24), 10) + "d"
}

// sparkline draws one range of samples as sparklineRenderRange does with
// SPARKLINE_FILL, scaled between the whole sequence's lo and hi.
func sparkline(b *strings.Builder, samples []latencySample, labels []string, lo, hi float64) {
	rel := hi - lo
	if rel == 0 {
		rel = 1
	}
	steps := len(graphCharset) * graphRows
	line := make([]byte, len(samples))
	for row := 0; ; row++ {
		for j := range line {
			line[j] = ' '
		}
		more := false
		switch {
		case row < graphRows:
			more = true
			for j, s := range samples {
				// C's (int)(relval*steps)/relmax, truncated again.
				step := int(math.Trunc(float64(int((float64(s.ms)-lo)*float64(steps))) / rel))
				step = min(max(step, 0), steps-1)
				idx := step - (graphRows-row-1)*len(graphCharset)
				switch {
				case idx >= 0 && idx < len(graphCharset):
					line[j] = graphCharset[idx]
				case idx >= len(graphCharset):
					line[j] = '|'
				}
			}
		case row-graphRows < graphLabelSkip:
			more = true // the blank row above the labels
		default:
			at := row - graphRows - graphLabelSkip
			for j, l := range labels {
				if at < len(l) {
					more = true
					line[j] = l[at]
				}
			}
		}
		if !more {
			return
		}
		b.Write(line)
		b.WriteByte('\n')
	}
}
