package server

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
)

// The slow log, which observe fills and SLOWLOG reads (cmd_slowlog.go): the
// commands that ran for at least server.slowlog_log_slower_than
// microseconds, newest first, at most server.slowlog_max_len of them. Each
// one is also logged (sampled, so a storm of slow commands cannot flood the
// log).

// Redis's limits on what an entry keeps of a command.
const (
	slowlogMaxArgs     = 32  // SLOWLOG_ENTRY_MAX_ARGC
	slowlogMaxArgBytes = 128 // SLOWLOG_ENTRY_MAX_STRING
)

// slowEntry is one slow log entry, in Redis's shape.
type slowEntry struct {
	id     int64
	at     int64 // unix seconds
	usec   int64
	args   [][]byte // truncated copies
	client string   // "ip:port"
	name   string   // CLIENT SETNAME's name
}

// slowlog is the server's slow log: a ring of the newest entries.
type slowlog struct {
	threshold atomic.Int64 // microseconds; negative = off
	log       zerolog.Logger

	mu      sync.Mutex
	maxLen  int
	entries []slowEntry // oldest first
	nextID  int64
}

func (l *slowlog) init(thresholdUsec int64, maxLen int, log zerolog.Logger) {
	l.threshold.Store(thresholdUsec)
	l.maxLen = maxLen
	l.log = log.Sample(&zerolog.BurstSampler{Burst: 10, Period: time.Second})
}

// setMaxLen changes the capacity, dropping the oldest entries beyond it.
func (l *slowlog) setMaxLen(n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.maxLen = n
	if over := len(l.entries) - n; over > 0 {
		l.entries = append(l.entries[:0], l.entries[over:]...)
	}
}

// add records a command (name: "get", "config|set") that ran for usec
// microseconds.
func (l *slowlog) add(c *Client, name string, args [][]byte, usec int64) {
	args = redactArgs(args)
	now := time.Now()
	e := slowEntry{
		at:     now.Unix(),
		usec:   usec,
		args:   slowlogArgs(args),
		client: c.addr,
		name:   c.getName(),
	}
	l.mu.Lock()
	e.id = l.nextID
	l.nextID++
	if l.maxLen > 0 {
		if len(l.entries) >= l.maxLen {
			l.entries = append(l.entries[:0], l.entries[len(l.entries)-l.maxLen+1:]...)
		}
		l.entries = append(l.entries, e)
	}
	l.mu.Unlock()
	l.log.Warn().Str("cmd", name).Int("args", len(args)-1).Dur("took", time.Duration(usec)*time.Microsecond).
		Str("client", e.client).Time("started", now.Add(-time.Duration(usec)*time.Microsecond)).Msg("slow command")
}

// slowlogArgs copies args as Redis keeps them: at most 32, the last one
// saying how many more there were, each cut to 128 bytes plus a note.
func slowlogArgs(args [][]byte) [][]byte {
	n := min(len(args), slowlogMaxArgs)
	out := make([][]byte, n)
	for j := range n {
		a := args[j]
		switch {
		case n != len(args) && j == n-1:
			out[j] = []byte("... (" + strconv.Itoa(len(args)-n+1) + " more arguments)")
		case len(a) > slowlogMaxArgBytes:
			b := append([]byte(nil), a[:slowlogMaxArgBytes]...)
			out[j] = append(b, "... ("+strconv.Itoa(len(a)-slowlogMaxArgBytes)+" more bytes)"...)
		default:
			out[j] = append([]byte(nil), a...)
		}
	}
	return out
}

// redacted replaces secrets in what SLOWLOG and MONITOR show, as Redis's
// redactClientCommandArgument does.
var redacted = []byte("(redacted)")

// redactArgs returns args with AUTH's and HELLO ... AUTH's credentials
// replaced by "(redacted)"; args itself when there are none.
func redactArgs(args [][]byte) [][]byte {
	switch {
	case is(args[0], "auth"):
		out := make([][]byte, len(args))
		out[0] = args[0]
		for i := 1; i < len(out); i++ {
			out[i] = redacted
		}
		return out
	case is(args[0], "hello"):
		for j := 2; j < len(args); j++ {
			if is(args[j], "auth") && j+2 < len(args) {
				out := append([][]byte(nil), args...)
				out[j+1], out[j+2] = redacted, redacted
				return out
			}
		}
	}
	return args
}

// newest returns up to n entries, newest first; n < 0 means all.
func (l *slowlog) newest(n int) []slowEntry {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n < 0 || n > len(l.entries) {
		n = len(l.entries)
	}
	out := make([]slowEntry, n)
	for i := range out {
		out[i] = l.entries[len(l.entries)-1-i]
	}
	return out
}

func (l *slowlog) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.entries)
}

func (l *slowlog) reset() {
	l.mu.Lock()
	l.entries = l.entries[:0]
	l.mu.Unlock()
}
