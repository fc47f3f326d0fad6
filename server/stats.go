package server

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidwall/redcon"
)

// Command statistics: what INFO commandstats, errorstats and stats report
// and what /metrics exports, kept once. The dispatcher calls observe after
// each command runs and rejectCommand when it refuses one; replyError counts
// error replies. Every counter is an atomic in a struct the table lookup
// already found, so the hot path allocates nothing and takes no lock.

// latencyBoundsUsec are the upper bounds, in microseconds, of the latency
// histogram buckets; a last bucket holds everything slower.
var latencyBoundsUsec = [...]int64{
	10, 25, 50, 100, 250, 500,
	1_000, 2_500, 5_000, 10_000, 25_000, 50_000,
	100_000, 250_000, 500_000, 1_000_000, 2_500_000, 5_000_000, 10_000_000,
}

// commandStats are one command's (or subcommand's) counters, as Redis's
// cmdstat_<name> line reports them.
type commandStats struct {
	name     string                                   // "get", or "client|list" for a subcommand
	calls    atomic.Int64                             // runs, failed ones included
	usec     atomic.Int64                             // total run time in microseconds
	rejected atomic.Int64                             // refused before running (arity, NOAUTH)
	failed   atomic.Int64                             // ran and replied an error
	buckets  [len(latencyBoundsUsec) + 1]atomic.Int64 // runs per latency bucket
	subs     []*commandStats                          // a container's subcommands, parallel to Command.Subcommands
}

func (st *commandStats) record(usec int64, failed bool) {
	st.calls.Add(1)
	st.usec.Add(usec)
	i := 0
	for i < len(latencyBoundsUsec) && usec > latencyBoundsUsec[i] {
		i++
	}
	st.buckets[i].Add(1)
	if failed {
		st.failed.Add(1)
	}
}

func (st *commandStats) reset() {
	st.calls.Store(0)
	st.usec.Store(0)
	st.rejected.Store(0)
	st.failed.Store(0)
	for i := range st.buckets {
		st.buckets[i].Store(0)
	}
}

// maxErrorCodes caps the distinct error codes errorstats tracks, as Redis's
// ERROR_STATS_NUMBER does; later new codes still count in
// total_error_replies.
const maxErrorCodes = 128

// serverStats are the server-wide counters.
type serverStats struct {
	connections  atomic.Int64 // connections accepted
	rejected     atomic.Int64 // connections refused by maxclients
	errorReplies atomic.Int64 // error replies sent
	panics       atomic.Int64 // commands that panicked (panic.go)
	netIn        atomic.Int64 // bytes read from clients
	netOut       atomic.Int64 // bytes written to clients

	// Pipeline groups (pipeline.go): commits, and the commands they wrote.
	groupCommits    atomic.Int64
	groupedCommands atomic.Int64

	// Transactions (multi.go): EXECs that wrote, EXECs that failed for a
	// watched key, and EXECs discarded for a refused command or a failed
	// write.
	txnCommitted   atomic.Int64
	txnWatchFailed atomic.Int64
	txnAborted     atomic.Int64

	// Scripts (script.go): EVAL runs that ended under their keys' locks,
	// runs under the world lock, and keyed runs that ran again under it.
	scriptRunsKeyed     atomic.Int64
	scriptRunsExclusive atomic.Int64
	scriptReruns        atomic.Int64

	commands []*commandStats // every command and subcommand, by name

	errMu  sync.RWMutex
	errors map[string]*atomic.Int64 // error replies by code ("ERR", "WRONGTYPE")

	ops opsSampler
}

// initStats gives every command of the table (and every subcommand) its
// counters.
func (s *Server) initStats() {
	for _, c := range s.table {
		c.stats = &commandStats{name: c.Name}
		if c.declaredSubcommands() == nil {
			s.stats.commands = append(s.stats.commands, c.stats)
			continue
		}
		for _, sc := range c.declaredSubcommands() {
			sub := &commandStats{name: c.Name + "|" + sc.Name}
			c.stats.subs = append(c.stats.subs, sub)
			s.stats.commands = append(s.stats.commands, sub)
		}
	}
	slices.SortFunc(s.stats.commands, func(a, b *commandStats) int { return strings.Compare(a.name, b.name) })
	s.stats.errors = make(map[string]*atomic.Int64)
}

// clockBase anchors monoNow.
var clockBase = time.Now()

// monoNow reads the monotonic clock only: one clock read, where time.Now
// takes two (wall and monotonic). The dispatcher times commands with it.
func monoNow() time.Duration { return time.Since(clockBase) }

// unixMilliAt converts a monoNow reading to unix milliseconds, sparing the
// wall-clock read of time.Now on every command.
func unixMilliAt(mono time.Duration) int64 { return clockBase.UnixMilli() + mono.Milliseconds() }

// observe records a command the dispatcher ran for dur: its counters and
// latency, the slow log, the latency monitor (latency.go), and the MONITOR
// feed. Time spent blocked (BLPOP waiting) does not count, as in Redis.
//
// A command of a pipeline group (pipeline.go) is fed to MONITOR now, but
// its counters, latency and slow-log entry wait for the group's commit
// (heldCall), whose time they include: its reply waited for that write.
//
// sub is the subcommand the dispatcher resolved (Command.subcommandIndex),
// -1 for none. A container's counters are its subcommands': a container
// called without one (COMMAND) counts nowhere.
func (s *Server) observe(c *Ctx, cmd *Command, sub int, args [][]byte, dur time.Duration, err error) {
	st, flags := cmd.stats, cmd.Flags
	if subs := cmd.declaredSubcommands(); subs != nil {
		if sub < 0 {
			return
		}
		st, flags = st.subs[sub], subs[sub].Flags
	}
	if s.monitors.count.Load() > 0 && flags&Admin == 0 {
		s.monitors.feed(c, args, time.Now())
	}
	call := heldCall{st: st, flags: flags, args: args, dur: dur - c.blocked, failed: err != nil}
	if c.grouped {
		c.held = call
		return
	}
	s.record(c.Client, call)
}

// heldCall is a command's run as observe records it.
type heldCall struct {
	st     *commandStats
	flags  Flags
	args   [][]byte // redcon's: valid until its next read, so only until the group commits
	dur    time.Duration
	failed bool
}

// record counts call in its command's counters, the latency monitor and
// the slow log.
func (s *Server) record(c *Client, call heldCall) {
	usec := call.dur.Microseconds()
	call.st.record(usec, call.failed)
	if call.flags&Fast != 0 {
		s.latency.observe(latencyFastCommand, call.dur)
	} else {
		s.latency.observe(latencyCommand, call.dur)
	}
	if limit := s.slowlog.threshold.Load(); limit >= 0 && usec >= limit && call.flags&SkipSlowlog == 0 {
		s.slowlog.add(c, call.st.name, call.args, usec)
	}
}

// rejectCommand replies err to a command refused before it ran (wrong
// arity, NOAUTH) and counts it in the command's rejected_calls.
// Refused between MULTI and EXEC, it makes EXEC fail with EXECABORT.
func (s *Server) rejectCommand(c *Client, conn redcon.Conn, cmd *Command, err replyError) {
	c.flagTransaction()
	if cmd.Name == "exec" {
		err = s.execAborted(c, err)
	}
	cmd.stats.rejected.Add(1)
	s.replyError(conn, err)
}

// countError counts one error reply under its code, the text's first word.
func (st *serverStats) countError(text string) {
	st.errorReplies.Add(1)
	code := text
	if i := strings.IndexByte(text, ' '); i >= 0 {
		code = text[:i]
	}
	st.errMu.RLock()
	n := st.errors[code]
	st.errMu.RUnlock()
	if n == nil {
		st.errMu.Lock()
		if n = st.errors[code]; n == nil && len(st.errors) < maxErrorCodes {
			n = new(atomic.Int64)
			st.errors[strings.Clone(code)] = n
		}
		st.errMu.Unlock()
	}
	if n != nil {
		n.Add(1)
	}
}

// errorCounts returns the error codes seen and their counts, sorted by code.
func (st *serverStats) errorCounts() []errorCount {
	st.errMu.RLock()
	out := make([]errorCount, 0, len(st.errors))
	for code, n := range st.errors {
		out = append(out, errorCount{code, n.Load()})
	}
	st.errMu.RUnlock()
	slices.SortFunc(out, func(a, b errorCount) int { return strings.Compare(a.code, b.code) })
	return out
}

type errorCount struct {
	code  string
	count int64
}

// totalCommands is total_commands_processed: every run of every command.
func (st *serverStats) totalCommands() int64 {
	var n int64
	for _, c := range st.commands {
		n += c.calls.Load()
	}
	return n
}

// reset is CONFIG RESETSTAT's part: the stats, commandstats and errorstats
// counters. Connected and blocked clients, keys and RocksDB's figures are
// states, not counters, and stay.
func (st *serverStats) reset() {
	st.connections.Store(0)
	st.rejected.Store(0)
	st.errorReplies.Store(0)
	st.panics.Store(0)
	st.netIn.Store(0)
	st.netOut.Store(0)
	st.groupCommits.Store(0)
	st.groupedCommands.Store(0)
	for _, c := range st.commands {
		c.reset()
	}
	st.errMu.Lock()
	clear(st.errors)
	st.errMu.Unlock()
	st.ops.reset()
}

// opsSampler computes instantaneous_ops_per_sec and the input and output
// kbps as Redis does: the mean of the last 16 samples of each rate, taken
// every 100 ms.
type opsSampler struct {
	mu      sync.Mutex
	samples [3][16]float64 // commands, input bytes, output bytes per second
	idx     int
	last    [3]int64  // the totals at the last sample
	lastAt  time.Time // when it was taken
}

const opsSampleEvery = 100 * time.Millisecond

// runSampler samples the server's totals until stop is closed.
func (st *serverStats) runSampler(stop <-chan struct{}) {
	t := time.NewTicker(opsSampleEvery)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case now := <-t.C:
			st.ops.sample([3]int64{st.totalCommands(), st.netIn.Load(), st.netOut.Load()}, now)
		}
	}
}

func (o *opsSampler) sample(totals [3]int64, now time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.lastAt.IsZero() {
		if el := now.Sub(o.lastAt).Seconds(); el > 0 {
			for i, v := range totals {
				o.samples[i][o.idx] = max(0, float64(v-o.last[i])/el)
			}
			o.idx = (o.idx + 1) % len(o.samples[0])
		}
	}
	o.last, o.lastAt = totals, now
}

func (o *opsSampler) mean(i int) float64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	var sum float64
	for _, v := range o.samples[i] {
		sum += v
	}
	return sum / float64(len(o.samples[i]))
}

// perSecond is instantaneous_ops_per_sec, rounded down as Redis prints it.
func (o *opsSampler) perSecond() int64 { return int64(o.mean(0)) }

// kbps is instantaneous_input_kbps and instantaneous_output_kbps.
func (o *opsSampler) kbps() (in, out float64) { return o.mean(1) / 1024, o.mean(2) / 1024 }

// reset forgets the samples; the next one only sets the baseline.
func (o *opsSampler) reset() {
	o.mu.Lock()
	o.samples = [3][16]float64{}
	o.idx, o.lastAt = 0, time.Time{}
	o.mu.Unlock()
}
