package server

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/shaledb/shale/server/store"
	"github.com/shaledb/shale/server/types"
)

// Server commands: INFO, DBSIZE, FLUSHDB, FLUSHALL, SWAPDB (cmd_swapdb.go),
// TIME, COMPACT, SHUTDOWN, DEBUG and MONITOR (its machinery is monitor.go).
// The rows of CONFIG (cmd_config.go) and SLOWLOG (cmd_slowlog.go) are here
// too.

// INFO [section ...]: see info.go.
func cmdInfo(c *Ctx, args [][]byte) error {
	c.Reply().Verbatim(c.Srv.info(args[1:]))
	return nil
}

// DBSIZE: exact and O(1).
func cmdDBSize(c *Ctx, _ [][]byte) error {
	c.Reply().Int(c.DB.KeyCount())
	return nil
}

// flushMode accepts FLUSHDB's and FLUSHALL's optional ASYNC or SYNC. Both
// flushes are O(1) here (a range delete), so the mode changes nothing.
func flushMode(args [][]byte) error {
	switch {
	case len(args) == 1:
		return nil
	case len(args) == 2 && (is(args[1], "ASYNC") || is(args[1], "SYNC")):
		return nil
	}
	return errSyntax
}

// FLUSHDB [ASYNC|SYNC]
func cmdFlushDB(c *Ctx, args [][]byte) error {
	if err := flushMode(args); err != nil {
		return err
	}
	return replyOK(c, c.DB.FlushDB())
}

// FLUSHALL [ASYNC|SYNC]
func cmdFlushAll(c *Ctx, args [][]byte) error {
	if err := flushMode(args); err != nil {
		return err
	}
	return replyOK(c, c.DB.FlushAll())
}

// TIME: unix seconds and microseconds, as two bulk strings.
func cmdTime(c *Ctx, _ [][]byte) error {
	r := c.Reply()
	now := time.Now()
	r.Array(2)
	r.BulkString(strconv.FormatInt(now.Unix(), 10))
	r.BulkString(strconv.Itoa(now.Nanosecond() / 1000))
	return nil
}

// COMPACT: a full manual compaction of every column family, through the
// compaction filters; replies when it is done. Shale's own command.
func cmdCompact(c *Ctx, _ [][]byte) error {
	c.Srv.st.Compact() // logs its progress and result
	c.Reply().OK()
	return nil
}

// SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT]: every write is already in
// the WAL, so the options change nothing. On success nothing is replied:
// the main program closes the server, and with it the connection.
func cmdShutdown(c *Ctx, args [][]byte) error {
	var save, nosave, abort, flags bool
	for _, a := range args[1:] {
		switch {
		case is(a, "NOSAVE"):
			nosave, flags = true, true
		case is(a, "SAVE"):
			save, flags = true, true
		case is(a, "NOW"), is(a, "FORCE"):
			flags = true
		case is(a, "ABORT"):
			abort = true
		default:
			return errSyntax
		}
	}
	// ABORT goes with nothing but itself, as in Redis.
	if (save && nosave) || (abort && flags) {
		return errSyntax
	}
	if abort {
		return errNoShutdown
	}
	c.Srv.log.Info().Int64("client", c.Client.ID).Msg("shutdown requested")
	c.Srv.stopOnce.Do(func() { close(c.Srv.shutdown) })
	return nil
}

// debugSubcommands are DEBUG's subcommands: Shale's own, for tests, and
// only with server.enable_debug_command (the dispatcher checks it).
var debugSubcommands = []Subcommand{
	sub("cf-records", 3, 0, cmdDebugCFRecords, noDoc),
	sub("sst-bytes", 3, 0, cmdDebugSSTBytes, noDoc),
	sub("uid", 3, 0, cmdDebugUID, noDoc),
	sub("compact-cf", 3, 0, cmdDebugCompactCF, noDoc),
	sub("reclaim", 2, 0, cmdDebugReclaim, noDoc),
	sub("sleep", 3, 0, cmdDebugSleep, noDoc),
	sub("object", 3, 0, cmdDebugObject, noDoc),
	sub("panic", 3, 0, cmdDebugPanic, noDoc),
	sub("help", 2, 0, cmdDebugHelp, noDoc),
}

func parseCF(b []byte) (store.CF, error) {
	cf, ok := store.ParseCF(string(b))
	if !ok {
		return 0, errUnknownCF(b)
	}
	return cf, nil
}

// DEBUG CF-RECORDS cf: the records visible in a column family, O(records).
func cmdDebugCFRecords(c *Ctx, args [][]byte) error {
	cf, err := parseCF(args[2])
	if err != nil {
		return err
	}
	n, err := c.Srv.st.CountRecords(cf)
	return replyInt(c, n, err)
}

// DEBUG SST-BYTES cf: the size of a column family's live SST files.
func cmdDebugSSTBytes(c *Ctx, args [][]byte) error {
	cf, err := parseCF(args[2])
	if err != nil {
		return err
	}
	c.Reply().Uint(c.Srv.st.SSTBytes(cf))
	return nil
}

// DEBUG UID key: the uid of a live composite key, or null.
func cmdDebugUID(c *Ctx, args [][]byte) error {
	uid, ok, err := c.DB.UID(args[2])
	if err != nil {
		return err
	}
	if !ok {
		c.Reply().Null()
		return nil
	}
	c.Reply().Uint(uid)
	return nil
}

// DEBUG COMPACT-CF cf: a full manual compaction of one column family,
// through its compaction filter (COMPACT does every CF); replies when done.
func cmdDebugCompactCF(c *Ctx, args [][]byte) error {
	cf, err := parseCF(args[2])
	if err != nil {
		return err
	}
	c.Srv.st.CompactRange(cf, nil, nil)
	c.Reply().OK()
	return nil
}

// DEBUG RECLAIM: runs the reclaimer's queued targeted compactions now,
// without their delay and rate limit; replies when they are done.
func cmdDebugReclaim(c *Ctx, _ [][]byte) error {
	c.Srv.st.ReclaimNow()
	c.Reply().OK()
	return nil
}

// DEBUG SLEEP seconds: sleeps this connection only (Redis blocks the whole
// server), or until the server shuts down: Server.Close closes the blocking
// registry's channel before it waits for running commands.
func cmdDebugSleep(c *Ctx, args [][]byte) error {
	if d := debugSleepTime(args[2]); d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-c.Srv.blocking.closing:
		}
		t.Stop()
	}
	c.Reply().OK()
	return nil
}

// debugSleepTime is how long Redis's DEBUG SLEEP sleeps: strtod reads the
// seconds (a prefix: "0.5s" is 0.5, "abc" 0), and their microseconds are
// converted to a long long, which x86 turns into LLONG_MIN when they are
// NaN or out of its range. A negative time fails nanosleep: no sleep. A
// time beyond time.Duration's 292 years sleeps 292 years, as good as
// Redis's, never wrapped to a short or negative one.
func debugSleepTime(arg []byte) time.Duration {
	us := types.Strtod(arg) * 1e6
	if !(us >= 1 && us < math.MaxInt64) { // also false for NaN
		return 0
	}
	if us >= math.MaxInt64/float64(time.Microsecond) {
		return math.MaxInt64
	}
	return time.Duration(us) * time.Microsecond
}

// DEBUG OBJECT key: Redis's line of low-level facts about a value, which
// tools parse for its encoding, serializedlength and lru_seconds_idle. The
// encoding and refcount are OBJECT ENCODING's and OBJECT REFCOUNT's, the
// idle time OBJECT IDLETIME's (from which lru, Redis's clock of seconds
// modulo 2^24 at the last access, follows), the serialized length and a
// list's quicklist figures Redis 7.0's layout of the same elements
// (types.DebugObject); the address is the value's uid.
func cmdDebugObject(c *Ctx, args [][]byte) error {
	key := args[2]
	enc, ok, err := c.DB.ObjectEncoding(key)
	if err != nil {
		return err
	}
	cfg := c.Srv.config().Encoding
	info, found, err := c.DB.DebugObject(key, cfg.ListMaxListpackSize)
	if err != nil {
		return err
	}
	if !ok || !found {
		return types.ErrNoSuchKey
	}
	idle := c.Srv.access.idle(c.DB.Index(), key, accessSeconds(monoNow()))
	lru := (time.Now().Unix() - idle) & (1<<24 - 1)
	line := fmt.Sprintf("Value at:%#x refcount:%d encoding:%s serializedlength:%d lru:%d lru_seconds_idle:%d",
		info.UID, refCount(enc, info.Value), enc, info.SerializedLength, lru, idle)
	if ql := info.Quicklist; ql != nil {
		compressed := 0
		if cfg.ListCompressDepth != 0 {
			compressed = 1
		}
		line += fmt.Sprintf(" ql_nodes:%d ql_avg_node:%.2f ql_listpack_max:%d ql_compressed:%d ql_uncompressed_size:%d",
			ql.Nodes, float64(ql.Elements)/float64(max(ql.Nodes, 1)), cfg.ListMaxListpackSize, compressed, ql.Bytes)
	}
	c.Reply().Status(line)
	return nil
}

// DEBUG HELP
func cmdDebugHelp(c *Ctx, _ [][]byte) error {
	writeHelp(c, "debug", []string{
		"CF-RECORDS <cf>",
		"    Count the records visible in a column family (default, metadata, subkey,",
		"    score, bookkeeping, expire). O(records).",
		"COMPACT-CF <cf>",
		"    Compact one column family fully, through its compaction filter.",
		"RECLAIM",
		"    Run the reclaimer's queued targeted compactions now, ignoring their delay",
		"    and rate limit.",
		"SST-BYTES <cf>",
		"    Return the size of a column family's live SST files.",
		"PANIC <key>",
		"    Panic while holding the key's lock with an unwritten change to it, as a bug",
		"    would: the client gets an error and loses its connection; the server, the",
		"    key and the other clients carry on.",
		"OBJECT <key>",
		"    Show low level info about `key` and associated value.",
		"SLEEP <seconds>",
		"    Sleep for the given time (a float) before replying.",
		"UID <key>",
		"    Return the uid of a live hash, list, set or sorted set, or null.",
	})
	return nil
}

// MONITOR
func cmdMonitor(c *Ctx, _ [][]byte) error {
	if c.Client.isMonitor() {
		return nil // Redis ignores MONITOR from a monitor, without a reply
	}
	if c.Client.atomicRun.active {
		return errMonitorInExec
	}
	c.Reply().OK()
	if c.Srv.monitors.rejoin(c.Client) { // RESET left MONITOR: its connection is detached already
		return nil
	}
	m := &monitor{s: c.Srv, cl: c.Client, wake: make(chan struct{}, 1), stop: make(chan struct{})}
	c.Client.setMonitor(true)
	m.conn = c.Conn.Detach()
	if nc := m.conn.NetConn(); nc != nil {
		_ = nc.SetReadDeadline(time.Time{}) // monitors never time out
	}
	s := c.Srv
	c.Client.afterCommand = func() { s.monitors.add(m) }
	return nil
}

// serverCommands are the server commands' rows.
var serverCommands = []Command{
	cmd("info", -1, Loading|Stale, 0, 0, 0, cmdInfo).acl(ACLDangerous).tips("nondeterministic_output", "request_policy:all_shards", "response_policy:special").
		doc("Get information and statistics about the server", "1.0.0", "server", "O(1)", "[section [section ...]]"),
	cmd("dbsize", 1, ReadOnly|Fast, 0, 0, 0, cmdDBSize).acl(ACLKeyspace).tips("request_policy:all_shards", "response_policy:agg_sum").
		doc("Return the number of keys in the selected database", "1.0.0", "server", "O(1)", ""),
	cmd("flushdb", -1, Write, 0, 0, 0, cmdFlushDB).acl(ACLKeyspace|ACLDangerous).tips("request_policy:all_shards", "response_policy:all_succeeded").
		doc("Remove all keys from the current database", "1.0.0", "server", "O(N) where N is the number of keys in the selected database", "[ASYNC|SYNC]"),
	cmd("flushall", -1, Write, 0, 0, 0, cmdFlushAll).acl(ACLKeyspace|ACLDangerous).tips("request_policy:all_shards", "response_policy:all_succeeded").
		doc("Remove all keys from all databases", "1.0.0", "server", "O(N) where N is the total number of keys in all databases", "[ASYNC|SYNC]"),
	cmd("swapdb", 3, Write|Fast, 0, 0, 0, cmdSwapDB).acl(ACLKeyspace|ACLDangerous).
		doc("Swaps two Redis databases", "4.0.0", "server", "O(N) where N is the count of clients watching or blocking on keys from both databases.", "index1 index2"),
	cmd("time", 1, Loading|Stale|Fast|NoKeyspace, 0, 0, 0, cmdTime).tips("nondeterministic_output").
		doc("Return the current server time", "2.6.0", "server", "O(1)", ""),
	// COMPACT is Shale's own: flagged as BGSAVE, the other long write to disk.
	cmd("compact", 1, Admin|NoScript|NoAsyncLoading, 0, 0, 0, cmdCompact).
		doc("Compact the whole database now, reclaiming the space of removed keys", "0.1.0", "server", "O(N) where N is the size of the data on disk", ""),
	cmd("shutdown", -1, Admin|NoScript|Loading|Stale|NoMulti|AllowBusy, 0, 0, 0, cmdShutdown).
		doc("Flush the data to disk and shut down the server", "1.0.0", "server", "O(N) when saving, where N is the total number of keys in all databases when saving data, otherwise O(1)", "[NOSAVE|SAVE] [NOW] [FORCE] [ABORT]"),
	cmd("debug", -2, Admin|NoScript|Loading|Stale, 0, 0, 0, nil).withPrivateSubcommands(debugSubcommands).
		doc("A container for debugging commands (needs server.enable_debug_command)", "1.0.0", "server", "Depends on subcommand.", "subcommand [arg ...]"),
	cmd("config", -2, 0, 0, 0, 0, nil).withSubcommands(configSubcommands).
		doc("A container for server configuration commands", "2.0.0", "server", "Depends on subcommand.", ""),
	cmd("slowlog", -2, 0, 0, 0, 0, nil).withSubcommands(slowlogSubcommands).
		doc("A container for slow log commands", "2.2.12", "server", "Depends on subcommand.", ""),
	cmd("monitor", 1, Admin|NoScript|Loading|Stale, 0, 0, 0, cmdMonitor).
		doc("Listen for all requests received by the server in real time", "1.0.0", "server", "", ""),
}
