package tests

import (
	"cmp"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/shaledb/shale/server/geo"
)

// The model-based test (model_run_test.go) drives shale with a random but
// seed-determined stream of operations and compares, after every one, the
// whole keyspace with an in-memory model of what Redis would hold. This file
// is the model: the operations, their generator, and what each one does to
// the keyspace and replies.

// Model keyspace: a few names in a few dbs, so that a full comparison after
// every operation stays cheap, and collisions (overwrites, RENAME onto a
// live key, COPY without REPLACE) are frequent.
const (
	modelDBs  = 2
	modelKeys = 6 // names per db: 12 keys in all
	// modelReclaimMin is the server's compaction.reclaim_min_elements in
	// the model test: removing a collection of at least this many elements
	// queues it for the reclaimer.
	modelReclaimMin = 4
)

var (
	modelNames   = []string{"mk:0", "mk:1", "mk:2", "{mk}3", "{mk}4", "mk:5"}
	modelFields  = []string{"a", "b", "c", "d", "e"}
	modelMembers = []string{"m0", "m1", "m2", "m3", "m4", "m5"}
	// Scores and increments whose sums are exact in binary, so the model's
	// float64 arithmetic matches the server's.
	modelScores = []string{"-1.5", "-1", "0", "0.5", "1", "2", "3.25"}
	modelIncrs  = []string{"1", "-0.5", "2"}
	// GEOADD's points, as longitude and latitude: their scores are the
	// geohashes server/geo computes, Redis's.
	modelPoints = [][2]string{{"13.361389", "38.115556"}, {"0", "0"}, {"-180", "-85.05112878"}, {"179.5", "85"}}
)

// opKind says how the runner executes a modelOp.
type opKind int

const (
	opCmd        opKind = iota // a command on a key, in db
	opTinyExpire               // PEXPIRE key 1, then the follow-up if any, then wait until active expiry removed the key
	opCompact                  // COMPACT: every CF, through the filters
	opCompactCF                // DEBUG COMPACT-CF args[0]
	opReclaim                  // DEBUG RECLAIM: the reclaimer's queue, now
	opCompactBG                // COMPACT from another connection, while the next ops run
	opRestart                  // SIGTERM and restart on the same directory
	opKill                     // SIGKILL and restart on the same directory
	opMulti                    // MULTI, the txn ops' commands (SELECT between dbs), then EXEC or DISCARD
	opScript                   // a script whose redis.call's are the txn ops' commands (SELECT between dbs)
)

// txnEnd is how a transaction (opMulti) ends.
type txnEnd int

const (
	txnExec    txnEnd = iota // EXEC: the commands run, the reply is theirs
	txnDiscard               // DISCARD: nothing runs
	txnAbort                 // a refused command (bad) was queued: EXEC answers EXECABORT, nothing runs
)

// modelTxnEvery is the mean number of steps between two transactions.
const modelTxnEvery = 8

// scriptMode is how an opScript is sent.
type scriptMode int

const (
	scriptEval      scriptMode = iota // EVAL body
	scriptEvalSha                     // SCRIPT LOAD body, then EVALSHA sha
	scriptEvalRO                      // EVAL_RO body: reads, and maybe a refused write last
	scriptEvalShaRO                   // SCRIPT LOAD body, then EVALSHA_RO sha
)

func (s scriptMode) readOnly() bool { return s == scriptEvalRO || s == scriptEvalShaRO }
func (s scriptMode) bySha() bool    { return s == scriptEvalSha || s == scriptEvalShaRO }

// command is the command that runs the script.
func (s scriptMode) command() string {
	return [...]string{"EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO"}[s]
}

// modelScriptEvery is the mean number of steps between two scripts.
const modelScriptEvery = 10

// modelReads are the read commands scripts call (EVAL_RO's only ones),
// which the generator's main stream never picks: a check reads the whole
// state after every step anyway. What they read inside a script is the
// script's own writes, not yet committed. The typed ones have their type
// in modelCmdType.
var modelReads = []string{"TYPE", "EXISTS", "DBSIZE", "GET", "STRLEN", "HGET", "HLEN", "HGETALL", "LLEN", "LINDEX", "LRANGE",
	"SISMEMBER", "SCARD", "ZSCORE", "ZCARD", "ZRANGE", "LCS", "XLEN", "XRANGE"}

// indexRange is what LRANGE and ZRANGE reply for the elements in order and
// the start and stop indexes given, as Redis counts them.
func indexRange(elems []string, startArg, stopArg string) any {
	start, _ := strconv.Atoi(startArg)
	stop, _ := strconv.Atoi(stopArg)
	if start < 0 {
		start += len(elems)
	}
	if stop < 0 {
		stop += len(elems)
	}
	start, stop = max(start, 0), min(stop, len(elems)-1)
	if start > stop {
		return []any{}
	}
	return slices.Clone(elems[start : stop+1])
}

// modelOp is one step of a model run.
type modelOp struct {
	kind opKind
	db   int      // the db selected for opCmd and opTinyExpire
	args []string // the command for opCmd and opTinyExpire; the CF for opCompactCF
	// then is, for opTinyExpire, a command sent in db thenDB once the key
	// has expired but (most likely) before active expiry removed it: it
	// meets the expired key lazily.
	then   []string
	thenDB int
	// txn are an opMulti's or an opScript's commands (opCmd ops, in
	// their dbs). An opMulti ends how end says; with txnAbort, bad is
	// the refused command, queued before txn[badAt]. An EXEC'd
	// transaction reads, after each txn[i] with reads[i] set, txn[i]'s
	// key and DBSIZE: what the commands before wrote, not yet committed.
	txn   []modelOp
	end   txnEnd
	bad   []string
	badAt int
	reads []bool
	// script is how an opScript is sent, and pcall whether its calls are
	// redis.pcall, whose errors become elements of the script's reply,
	// rather than redis.call, whose first error ends the script.
	script scriptMode
	pcall  bool
}

// followUp is the op's then command as an op of its own.
func (op modelOp) followUp() modelOp {
	return modelOp{kind: opCmd, db: op.thenDB, args: op.then}
}

// txnCommands are the commands an opMulti queues after MULTI, which runs
// in op.db: its ops' commands, with a SELECT before each op in another db
// than the one before it. The refused command of txnAbort is not one.
func (op modelOp) txnCommands() [][]string {
	var cmds [][]string
	db := op.db
	for _, sub := range op.txn {
		if sub.db != db {
			cmds = append(cmds, []string{"SELECT", strconv.Itoa(sub.db)})
			db = sub.db
		}
		cmds = append(cmds, sub.args)
	}
	return cmds
}

// modelScript is an opScript's script: a body that names no key and no
// value (they come in KEYS and ARGV, as a careful client passes them, so
// that ops with the same shape share a script and EVALSHA's cache), its
// SHA1, and the line of each txn op's call, which an error names.
type modelScript struct {
	body, sha  string
	keys, argv []string
	lines      []int
}

// luaScript writes op's script: one line per call, in the order of
// op.txn, with redis.call('select', ...) before an op in another db than
// the one before it (a SELECT a script makes is its own: the caller's db
// stays selected), then a line returning every call's reply.
func (op modelOp) luaScript() modelScript {
	var s modelScript
	var b strings.Builder
	call := "redis.call"
	if op.pcall {
		call = "redis.pcall"
	}
	argv := func(v string) string {
		s.argv = append(s.argv, v)
		return "ARGV[" + strconv.Itoa(len(s.argv)) + "]"
	}
	db, line := op.db, 0
	var results []string
	for i, sub := range op.txn {
		if sub.db != db {
			line++
			fmt.Fprintf(&b, "redis.call('select', %s)\n", argv(strconv.Itoa(sub.db)))
			db = sub.db
		}
		params := []string{argv(sub.args[0])}
		for j, a := range sub.args[1:] {
			if j == 0 { // every model command with arguments has its key first
				s.keys = append(s.keys, a)
				params = append(params, "KEYS["+strconv.Itoa(len(s.keys))+"]")
			} else {
				params = append(params, argv(a))
			}
		}
		line++
		results = append(results, "r"+strconv.Itoa(i+1))
		fmt.Fprintf(&b, "local r%d = %s(%s)\n", i+1, call, strings.Join(params, ", "))
		s.lines = append(s.lines, line)
	}
	fmt.Fprintf(&b, "return {%s}\n", strings.Join(results, ", "))
	s.body = b.String()
	sum := sha1.Sum([]byte(s.body))
	s.sha = hex.EncodeToString(sum[:])
	return s
}

func (op modelOp) String() string {
	switch op.kind {
	case opCmd:
		return fmt.Sprintf("db%d: %s", op.db, strings.Join(op.args, " "))
	case opTinyExpire:
		s := fmt.Sprintf("db%d: %s", op.db, strings.Join(op.args, " "))
		if op.then != nil {
			s += fmt.Sprintf(", expired; then db%d: %s", op.thenDB, strings.Join(op.then, " "))
		}
		return s
	case opCompact:
		return "COMPACT"
	case opCompactCF:
		return "DEBUG COMPACT-CF " + op.args[0]
	case opReclaim:
		return "DEBUG RECLAIM"
	case opCompactBG:
		return "COMPACT (background)"
	case opRestart:
		return "restart (SIGTERM)"
	case opKill:
		return "restart (SIGKILL)"
	case opMulti:
		var b strings.Builder
		fmt.Fprintf(&b, "db%d: MULTI", op.db)
		for i, sub := range op.txnCommands() {
			if op.end == txnAbort && i == op.badAt {
				fmt.Fprintf(&b, "; %s", strings.Join(op.bad, " "))
			}
			fmt.Fprintf(&b, "; %s", strings.Join(sub, " "))
		}
		if op.end == txnDiscard {
			return b.String() + "; DISCARD"
		}
		if op.end == txnExec && slices.Contains(op.reads, true) {
			fmt.Fprintf(&b, " (reads after ops %v)", op.reads)
		}
		return b.String() + "; EXEC"
	case opScript:
		var b strings.Builder
		fmt.Fprintf(&b, "db%d: %s, redis.", op.db, op.script.command())
		if op.pcall {
			b.WriteString("pcall:")
		} else {
			b.WriteString("call:")
		}
		db := op.db
		for i, sub := range op.txn {
			if i > 0 {
				b.WriteByte(';')
			}
			if sub.db != db {
				fmt.Fprintf(&b, " SELECT %d;", sub.db)
				db = sub.db
			}
			fmt.Fprintf(&b, " %s", strings.Join(sub.args, " "))
		}
		return b.String()
	}
	return fmt.Sprintf("op kind %d", op.kind)
}

// mval is the model of one live key. A long TTL is modelled as present or
// not: the test never lets one run out.
type mval struct {
	typ  string // the TYPE reply: "string", "hash", "list", "set", "zset" or "stream"
	str  string
	hash map[string]string
	list []string
	set  map[string]bool
	zset map[string]float64
	// stream is a stream's entries and header (model_stream_test.go).
	stream *mstream
	ttl    bool
}

// size is the number of sub-key records the value has on disk: 0 for a string.
func (v *mval) size() int {
	switch v.typ {
	case "hash":
		return len(v.hash)
	case "list":
		return len(v.list)
	case "set":
		return len(v.set)
	case "zset":
		return len(v.zset)
	case "stream":
		return len(v.stream.entries) + v.stream.groupRecords()
	}
	return 0
}

func (v *mval) clone() *mval {
	c := *v
	c.hash = maps.Clone(v.hash)
	c.list = slices.Clone(v.list)
	c.set = maps.Clone(v.set)
	c.zset = maps.Clone(v.zset)
	c.stream = v.stream.clone()
	return &c
}

// orphans are the records a dead collection left on disk for the
// compaction filters. A compaction may drop them at any time; the ones
// the model knows were compacted are zeroed.
type orphans struct {
	subkey, score, book int
	queued              bool // in the reclaimer's in-memory queue
}

// model is the expected state of the server.
type model struct {
	dbs     [modelDBs]map[string]*mval
	orphans []orphans
}

func newModel() *model {
	m := &model{}
	for i := range m.dbs {
		m.dbs[i] = map[string]*mval{}
	}
	return m
}

// bury records the orphans of a collection removed by the normal remove
// path (DEL, overwrite, RENAME or COPY onto it, expiry): its bookkeeping
// record goes in the same batch, its sub-keys stay, and a big one is queued
// for the reclaimer.
func (m *model) bury(v *mval) {
	if n := v.size(); n > 0 {
		score := 0
		if v.typ == "zset" {
			score = n
		}
		// The server queues by the key's size: a stream's entries, not
		// its groups' records.
		elems := n
		if v.typ == "stream" {
			elems = len(v.stream.entries)
		}
		m.orphans = append(m.orphans, orphans{subkey: n, score: score, queued: elems >= modelReclaimMin})
	}
}

// flush records FLUSHDB of one db: a range delete of the metadata, which
// leaves the bookkeeping records too, and queues nothing.
func (m *model) flush(db int) {
	for _, v := range m.dbs[db] {
		// An emptied stream (XDEL, XTRIM) has no sub-keys but its
		// bookkeeping record.
		if n := v.size(); n > 0 || v.typ == "stream" {
			score := 0
			if v.typ == "zset" {
				score = n
			}
			m.orphans = append(m.orphans, orphans{subkey: n, score: score, book: 1})
		}
	}
	m.dbs[db] = map[string]*mval{}
}

// compacted zeroes the orphans a finished compaction must have dropped.
func (m *model) compacted(subkey, score, book, onlyQueued bool) {
	kept := m.orphans[:0]
	for _, o := range m.orphans {
		if !onlyQueued || o.queued {
			if subkey {
				o.subkey = 0
			}
			if score {
				o.score = 0
			}
			if book {
				o.book = 0
			}
			if onlyQueued && subkey && score {
				o.queued = false
			}
		}
		if o.subkey+o.score+o.book > 0 {
			kept = append(kept, o)
		}
	}
	m.orphans = kept
}

// restarted forgets the reclaimer's queue, which lives in memory only.
func (m *model) restarted() {
	for i := range m.orphans {
		m.orphans[i].queued = false
	}
}

// cfBounds is the range a column family's record count must lie in.
type cfBounds struct{ lo, hi int }

// bounds returns, per CF, the records the live keys imply (lo) and that
// plus the orphans not yet known to be compacted (hi).
func (m *model) bounds() map[string]cfBounds {
	b := map[string]cfBounds{}
	add := func(cf string, lo, hi int) {
		x := b[cf]
		b[cf] = cfBounds{x.lo + lo, x.hi + hi}
	}
	for _, db := range m.dbs {
		for _, v := range db {
			add("metadata", 1, 1)
			if v.ttl {
				add("expire", 1, 0)
			}
			if v.typ != "string" {
				add("bookkeeping", 1, 1)
				add("subkey", v.size(), v.size())
			}
			if v.typ == "zset" {
				add("score", v.size(), v.size())
			}
		}
	}
	for _, o := range m.orphans {
		add("subkey", 0, o.subkey)
		add("score", 0, o.score)
		add("bookkeeping", 0, o.book)
	}
	// FLUSHDB leaves the index entries of the flushed keys: active expiry
	// drops them once due, which for the long TTLs here is never.
	add("expire", 0, 1<<30)
	for _, cf := range []string{"metadata", "bookkeeping", "subkey", "score"} {
		add(cf, 0, 0) // present even when zero
	}
	return b
}

// modelCmdType is the type each typed command of the model needs its key to
// hold, when the key exists: another type is a WRONGTYPE error.
var modelCmdType = map[string]string{
	"APPEND": "string", "INCR": "string", "SETBIT": "string",
	"HSET": "hash", "HDEL": "hash",
	"LPUSH": "list", "RPUSH": "list", "LPOP": "list", "RPOP": "list", "LTRIM": "list",
	"SADD": "set", "SREM": "set",
	"ZADD": "zset", "ZREM": "zset", "ZINCRBY": "zset", "GEOADD": "zset",
	"ZPOPMIN": "zset", "ZPOPMAX": "zset", "ZREMRANGEBYSCORE": "zset",
	"GET": "string", "STRLEN": "string", "HGET": "hash", "HLEN": "hash", "HGETALL": "hash", "LLEN": "list", "LINDEX": "list", "LRANGE": "list",
	"SISMEMBER": "set", "SCARD": "set", "ZSCORE": "zset", "ZCARD": "zset", "ZRANGE": "zset",
	"LCS":  "string",
	"XADD": "stream", "XDEL": "stream", "XTRIM": "stream", "XLEN": "stream", "XRANGE": "stream",
}

const (
	modelWrongType = errText("WRONGTYPE Operation against a key holding the wrong kind of value")
	modelOK        = "OK"
)

// applyAll applies op and, for a tiny TTL with a follow-up, the follow-up,
// and returns their replies.
func (m *model) applyAll(op modelOp) (want, thenWant any) {
	want = m.apply(op)
	if op.kind == opTinyExpire && op.then != nil {
		thenWant = m.apply(op.followUp())
	}
	return want, thenWant
}

// applyTxn runs an opMulti on the model. It returns the commands the
// transaction queues after MULTI, and the reply of its EXEC or DISCARD.
// An EXEC'd transaction's commands are txnCommands with the reads that
// reads asks for, whose commands depend on the state they read
// (addKeyProbes); EXEC's reply is each command's, errors included.
func (m *model) applyTxn(op modelOp) (cmds [][]any, want any) {
	if op.end != txnExec {
		for _, c := range op.txnCommands() {
			cmds = append(cmds, strsToAny(c))
		}
		if op.end == txnDiscard {
			return cmds, modelOK
		}
		return cmds, errText("EXECABORT Transaction discarded because of previous errors.")
	}
	replies := []any{}
	add := func(want any, args ...any) {
		cmds = append(cmds, args)
		replies = append(replies, want)
	}
	db := op.db
	for i, sub := range op.txn {
		if sub.db != db {
			add(modelOK, "SELECT", strconv.Itoa(sub.db))
			db = sub.db
		}
		add(m.apply(sub), strsToAny(sub.args)...)
		if i < len(op.reads) && op.reads[i] {
			if len(sub.args) > 1 {
				addKeyProbes(add, sub.args[1], m.dbs[db][sub.args[1]])
			}
			add(int64(len(m.dbs[db])), "DBSIZE")
		}
	}
	return cmds, replies
}

// applyScript runs an opScript on the model and returns the script's
// reply: its calls' replies, which come back through Lua as they were (a
// status as {ok=...} and back, a nil bulk as false and back, an integer as
// a number), or the error that ended it, with where it was raised. As in
// Redis, the writes before that error stay. A write in a read-only script
// is refused and writes nothing.
func (m *model) applyScript(op modelOp) any {
	s := op.luaScript()
	replies := []any{}
	for i, sub := range op.txn {
		var want any
		if op.script.readOnly() && !slices.Contains(modelReads, sub.args[0]) {
			want = errText("ERR Write commands are not allowed from read-only scripts.")
		} else {
			want = m.apply(sub)
		}
		if e, isErr := want.(errText); isErr && !op.pcall {
			return errText(fmt.Sprintf("%s script: %s, on @user_script:%d.", e, s.sha, s.lines[i]))
		}
		replies = append(replies, want)
	}
	return replies
}

// apply runs op on the model and returns the reply the server must give
// (nil for a nil reply). Only opCmd, opTinyExpire, opMulti and opScript
// have a reply; for opTinyExpire, apply covers the PEXPIRE, not the
// follow-up.
func (m *model) apply(op modelOp) any {
	switch op.kind {
	case opCompact:
		m.compacted(true, true, true, false)
		return modelOK
	case opCompactCF:
		m.compacted(op.args[0] == "subkey", op.args[0] == "score", op.args[0] == "bookkeeping", false)
		return modelOK
	case opReclaim:
		m.compacted(true, true, false, true)
		return modelOK
	case opRestart, opKill:
		m.restarted()
		return nil
	case opCompactBG:
		return nil // it only ever lowers the record counts
	case opMulti:
		_, want := m.applyTxn(op)
		return want
	case opScript:
		return m.applyScript(op)
	}
	db := m.dbs[op.db]
	a := op.args
	switch a[0] {
	case "FLUSHDB":
		m.flush(op.db)
		return modelOK
	case "DBSIZE":
		return int64(len(db))
	case "SWAPDB":
		x, _ := strconv.Atoi(a[1])
		y, _ := strconv.Atoi(a[2])
		m.dbs[x], m.dbs[y] = m.dbs[y], m.dbs[x]
		return modelOK
	case "XGROUP", "XREADGROUP", "XACK", "XPENDING", "XCLAIM", "XAUTOCLAIM":
		return applyGroup(db, a)
	case "PFADD", "PFCOUNT", "PFMERGE":
		return applyHLL(db, a)
	}
	key := a[1]
	v := db[key]
	if t, typed := modelCmdType[a[0]]; typed && v != nil && v.typ != t {
		if a[0] == "LCS" {
			return errText("ERR The specified keys must contain string values")
		}
		return modelWrongType
	}
	// create makes an empty collection of type t under key.
	create := func(t string) *mval {
		nv := &mval{typ: t, hash: map[string]string{}, set: map[string]bool{}, zset: map[string]float64{}}
		if t == "stream" {
			nv.stream = &mstream{}
		}
		db[key] = nv
		return nv
	}
	// emptied removes a collection whose last element was deleted one by one.
	emptied := func(v *mval) {
		if v.size() == 0 {
			delete(db, key)
		}
	}
	switch a[0] {
	case "GET":
		if v == nil {
			return nil
		}
		return v.str
	case "STRLEN", "LCS": // LCS key key LEN: the string is its own LCS
		if v == nil {
			return int64(0)
		}
		return int64(len(v.str))
	case "HGET":
		if v == nil {
			return nil
		}
		if f, has := v.hash[a[2]]; has {
			return f
		}
		return nil
	case "HGETALL":
		if v == nil {
			return []any{}
		}
		return pairs(maps.Clone(v.hash))
	case "LRANGE":
		if v == nil {
			return []any{}
		}
		return indexRange(v.list, a[2], a[3])
	case "ZRANGE":
		if v == nil {
			return []any{}
		}
		members := slices.Collect(maps.Keys(v.zset))
		slices.SortFunc(members, func(x, y string) int {
			if c := cmp.Compare(v.zset[x], v.zset[y]); c != 0 {
				return c
			}
			return strings.Compare(x, y)
		})
		return indexRange(members, a[2], a[3])
	case "HLEN", "LLEN", "SCARD", "ZCARD":
		if v == nil {
			return int64(0)
		}
		return int64(v.size())
	case "LINDEX":
		if v == nil {
			return nil
		}
		i, _ := strconv.Atoi(a[2])
		if i < 0 {
			i += len(v.list)
		}
		if i < 0 || i >= len(v.list) {
			return nil
		}
		return v.list[i]
	case "SISMEMBER":
		if v == nil || !v.set[a[2]] {
			return int64(0)
		}
		return int64(1)
	case "ZSCORE":
		if v == nil {
			return nil
		}
		if f, has := v.zset[a[2]]; has {
			return floatApprox(f)
		}
		return nil
	case "TYPE":
		if v == nil {
			return "none"
		}
		return v.typ
	case "SET":
		if v != nil {
			m.bury(v)
		}
		db[key] = &mval{typ: "string", str: a[2]}
		return modelOK
	case "APPEND":
		if v == nil {
			v = &mval{typ: "string"}
			db[key] = v
		}
		v.str += a[2]
		return int64(len(v.str))
	case "SETBIT":
		return applySetBit(db, key, a)
	case "INCR":
		n := int64(0)
		if v != nil {
			var isInt bool
			if n, isInt = redisInt(v.str); !isInt {
				return errText("ERR value is not an integer or out of range")
			}
		} else {
			v = &mval{typ: "string"}
			db[key] = v
		}
		v.str = strconv.FormatInt(n+1, 10)
		return n + 1
	case "HSET":
		if v == nil {
			v = create("hash")
		}
		added := 0
		for i := 2; i < len(a); i += 2 {
			if _, had := v.hash[a[i]]; !had {
				added++
			}
			v.hash[a[i]] = a[i+1]
		}
		return int64(added)
	case "HDEL":
		if v == nil {
			return int64(0)
		}
		removed := removeAll(v.hash, a[2:])
		emptied(v)
		return removed
	case "LPUSH", "RPUSH":
		if v == nil {
			v = create("list")
		}
		for _, e := range a[2:] {
			if a[0] == "LPUSH" {
				v.list = append([]string{e}, v.list...)
			} else {
				v.list = append(v.list, e)
			}
		}
		return int64(len(v.list))
	case "LPOP", "RPOP":
		if v == nil {
			return nil
		}
		if len(v.list) == 1 {
			// Popping the last element removes the key and leaves the
			// element to the filters, as a removal does (O(1) for LPOP
			// with a count).
			e := v.list[0]
			m.bury(v)
			delete(db, key)
			return e
		}
		var e string
		if a[0] == "LPOP" {
			e, v.list = v.list[0], v.list[1:]
		} else {
			e, v.list = v.list[len(v.list)-1], v.list[:len(v.list)-1]
		}
		return e
	case "LTRIM":
		if v == nil {
			return modelOK
		}
		start, _ := strconv.Atoi(a[2])
		stop, _ := strconv.Atoi(a[3])
		n := len(v.list)
		if start < 0 {
			start = max(n+start, 0)
		}
		if stop < 0 {
			stop += n
		}
		stop = min(stop, n-1)
		if start > stop {
			// Emptied by moving head and tail: the elements stay on disk
			// as orphans of the removed uid.
			m.bury(v)
			delete(db, key)
			return modelOK
		}
		v.list = slices.Clone(v.list[start : stop+1])
		return modelOK
	case "SADD":
		if v == nil {
			v = create("set")
		}
		added := 0
		for _, e := range a[2:] {
			if !v.set[e] {
				v.set[e] = true
				added++
			}
		}
		return int64(added)
	case "SREM":
		if v == nil {
			return int64(0)
		}
		removed := removeAll(v.set, a[2:])
		emptied(v)
		return removed
	case "ZADD":
		if v == nil {
			v = create("zset")
		}
		added := 0
		for i := 2; i < len(a); i += 2 {
			if _, had := v.zset[a[i+1]]; !had {
				added++
			}
			v.zset[a[i+1]] = parseScore(a[i])
		}
		return int64(added)
	case "GEOADD": // ZADD of the points' geohashes
		if v == nil {
			v = create("zset")
		}
		added := 0
		for i := 2; i+2 < len(a); i += 3 {
			if _, had := v.zset[a[i+2]]; !had {
				added++
			}
			lon, _ := strconv.ParseFloat(a[i], 64)
			lat, _ := strconv.ParseFloat(a[i+1], 64)
			v.zset[a[i+2]] = geo.Score(lon, lat)
		}
		return int64(added)
	case "ZREM":
		if v == nil {
			return int64(0)
		}
		removed := removeAll(v.zset, a[2:])
		emptied(v)
		return removed
	case "ZPOPMIN", "ZPOPMAX":
		out := []any{}
		if v == nil {
			return out
		}
		n := 1
		if len(a) > 2 {
			n, _ = strconv.Atoi(a[2])
		}
		order := slices.SortedFunc(maps.Keys(v.zset), func(x, y string) int {
			return cmp.Or(cmp.Compare(v.zset[x], v.zset[y]), strings.Compare(x, y))
		})
		if a[0] == "ZPOPMAX" {
			slices.Reverse(order)
		}
		for _, member := range order[:min(n, len(order))] {
			out = append(out, member, floatApprox(v.zset[member]))
			delete(v.zset, member)
		}
		emptied(v)
		return out
	case "ZREMRANGEBYSCORE": // the generator drains from -inf only
		if v == nil {
			return int64(0)
		}
		upTo := parseScore(a[3])
		removed := 0
		for member, score := range v.zset {
			if score <= upTo {
				delete(v.zset, member)
				removed++
			}
		}
		emptied(v)
		return int64(removed)
	case "ZINCRBY":
		if v == nil {
			v = create("zset")
		}
		v.zset[a[3]] += parseScore(a[2])
		return floatApprox(v.zset[a[3]])
	case "XADD", "XDEL", "XTRIM", "XLEN", "XRANGE":
		return applyStream(a, v, create)
	case "DEL", "UNLINK":
		removed := 0
		for _, k := range a[1:] {
			if v := db[k]; v != nil {
				m.bury(v)
				delete(db, k)
				removed++
			}
		}
		return int64(removed)
	case "EXPIRE", "PEXPIRE":
		if v == nil {
			return int64(0)
		}
		if op.kind == opTinyExpire {
			m.bury(v) // reaped by active expiry through the remove path
			delete(db, key)
		} else {
			v.ttl = true
		}
		return int64(1)
	case "EXISTS":
		if v == nil {
			return int64(0)
		}
		return int64(1)
	case "PERSIST":
		if v == nil || !v.ttl {
			return int64(0)
		}
		v.ttl = false
		return int64(1)
	case "RENAME":
		if v == nil {
			return errText("ERR no such key")
		}
		if dst := a[2]; dst != key {
			if old := db[dst]; old != nil {
				m.bury(old)
			}
			db[dst] = v
			delete(db, key)
		}
		return modelOK
	case "MOVE":
		to, _ := strconv.Atoi(a[2])
		if to == op.db {
			return errText("ERR source and destination objects are the same")
		}
		if v == nil || m.dbs[to][key] != nil {
			return int64(0)
		}
		m.dbs[to][key] = v
		delete(db, key)
		return int64(1)
	case "COPY":
		dst, to, replace := a[2], op.db, false
		for i := 3; i < len(a); i++ {
			switch a[i] {
			case "DB":
				to, _ = strconv.Atoi(a[i+1])
				i++
			case "REPLACE":
				replace = true
			}
		}
		if to == op.db && dst == key {
			return errText("ERR source and destination objects are the same")
		}
		if v == nil {
			return int64(0)
		}
		old := m.dbs[to][dst]
		if old != nil {
			if !replace {
				return int64(0)
			}
			m.bury(old)
		}
		m.dbs[to][dst] = v.clone()
		return int64(1)
	}
	panic("model: no semantics for " + a[0])
}

// redisInt parses s as Redis parses an integer value: an optional minus
// sign and digits, no plus sign, no leading zero, no "-0".
// applySetBit is SETBIT on the model: the string grows with zero bytes
// to hold the bit; the reply is the bit's old value.
func applySetBit(db map[string]*mval, key string, a []string) any {
	v := db[key]
	if v == nil {
		v = &mval{typ: "string"}
		db[key] = v
	}
	off, _ := strconv.Atoi(a[2])
	b := []byte(v.str)
	for len(b) <= off/8 {
		b = append(b, 0)
	}
	mask := byte(0x80) >> (off % 8)
	old := int64(0)
	if b[off/8]&mask != 0 {
		old = 1
	}
	if a[3] == "1" {
		b[off/8] |= mask
	} else {
		b[off/8] &^= mask
	}
	v.str = string(b)
	return old
}

func redisInt(s string) (int64, bool) {
	digits := strings.TrimPrefix(s, "-")
	if digits == "" || strings.Trim(digits, "0123456789") != "" ||
		(digits[0] == '0' && (len(digits) > 1 || len(s) > 1)) {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

func parseScore(s string) float64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		panic(err)
	}
	return f
}

// opGen generates a model run's operations from a seed. It keeps a model
// of its own, so that it can aim at keys that exist (a tiny TTL on an
// absent key tests nothing), while the ops stay a function of the seed and
// their number only: never of the server's replies or timing.
type opGen struct {
	rng          *rand.Rand
	m            *model
	restartEvery int // mean steps between restarts; 0 = never
	// txr decides which ops of rng's stream a transaction wraps, and how
	// it ends: a stream of its own, so that rng's stream, and what each
	// seed covers, is the same as before transactions.
	txr *rand.Rand
	// scr decides which ops of rng's stream a script wraps, how it is
	// sent, and the reads it adds: a stream of its own, as txr is.
	scr *rand.Rand
	// held is an op of rng's stream that could not join the transaction
	// or script being built (a restart, a compaction, a tiny TTL): the
	// next op.
	held *modelOp
}

func newOpGen(seed uint64, restartEvery int) *opGen {
	return &opGen{rng: rand.New(rand.NewPCG(seed, 0x5ea1e)), m: newModel(), restartEvery: restartEvery,
		txr: rand.New(rand.NewPCG(seed, 0x7a11)), scr: rand.New(rand.NewPCG(seed, 0x5c21))}
}

// next returns the next operation.
func (g *opGen) next() modelOp {
	var op modelOp
	switch {
	case g.held != nil:
		op, g.held = *g.held, nil
	case g.txr.IntN(modelTxnEvery) == 0:
		op = g.transaction()
	case g.scr.IntN(modelScriptEvery) == 0:
		op = g.script()
	default:
		op = g.pick()
	}
	g.m.applyAll(op)
	return op
}

// transaction wraps the next one to six commands of rng's stream in MULTI
// and, most often, EXEC; sometimes in DISCARD, or a refused command
// (wrong arity, unknown name) that makes EXEC answer EXECABORT.
func (g *opGen) transaction() modelOp {
	t := g.txr
	op := modelOp{kind: opMulti}
	if first, ok := g.gather(&op, 1+t.IntN(6), nil); !ok {
		return first
	}
	switch x := t.IntN(10); {
	case x == 0:
		op.end = txnDiscard
	case x == 1:
		op.end, op.bad = txnAbort, []string{"HSET", op.txn[0].args[len(op.txn[0].args)-1]}
	case x == 2:
		op.end, op.bad = txnAbort, []string{"NOSUCHCOMMAND", "x"}
	}
	op.badAt = t.IntN(len(op.txnCommands()) + 1)
	for range op.txn {
		op.reads = append(op.reads, t.IntN(2) == 0)
	}
	return op
}

// script wraps one to four commands in a script. A read-write one
// (EVAL, EVALSHA) takes the next commands of rng's stream and may read,
// after one, its key: what the script wrote so far. A read-only one
// (EVAL_RO, EVALSHA_RO) reads, mostly keys that exist, with a read that
// fits their type, and sometimes ends with a write, which is refused.
func (g *opGen) script() modelOp {
	s := g.scr
	op := modelOp{kind: opScript, script: scriptMode(s.IntN(4)), pcall: s.IntN(3) == 0}
	n := 1 + s.IntN(4)
	if op.script.readOnly() {
		op.db = s.IntN(modelDBs)
		db := op.db
		for range n {
			if s.IntN(4) == 0 {
				db = s.IntN(modelDBs)
			}
			key, typ := modelNames[s.IntN(len(modelNames))], ""
			if live := slices.Sorted(maps.Keys(g.m.dbs[db])); len(live) > 0 && s.IntN(4) != 0 {
				key = live[s.IntN(len(live))]
				typ = g.m.dbs[db][key].typ
			}
			op.txn = append(op.txn, modelOp{kind: opCmd, db: db, args: g.read(key, typ)})
		}
		if s.IntN(6) == 0 {
			op.txn = append(op.txn, modelOp{kind: opCmd, db: db, args: []string{"SET", modelNames[s.IntN(len(modelNames))], "ro"}})
		}
		return op
	}
	first, ok := g.gather(&op, n, func(sub modelOp) {
		if len(sub.args) > 1 && len(op.txn) < n && s.IntN(2) == 0 {
			op.txn = append(op.txn, modelOp{kind: opCmd, db: sub.db, args: g.read(sub.args[1], "")})
		}
	})
	if !ok {
		return first
	}
	return op
}

// gather appends picked commands to op.txn until it holds n, calling then
// (when set) after each. A pick that is no command ends it: held for the
// next step, or, when it came first, returned instead of op (ok false).
func (g *opGen) gather(op *modelOp, n int, then func(sub modelOp)) (first modelOp, ok bool) {
	for len(op.txn) < n {
		sub := g.pick()
		if sub.kind != opCmd {
			if len(op.txn) == 0 {
				return sub, false
			}
			g.held = &sub
			break
		}
		if len(op.txn) == 0 {
			op.db = sub.db
		}
		op.txn = append(op.txn, sub)
		if then != nil {
			then(sub)
		}
	}
	return modelOp{}, true
}

// read picks a read of key, from scr's stream: one for typ, the key's
// type, or for any type when typ is "".
func (g *opGen) read(key, typ string) []string {
	s := g.scr
	var names []string
	for _, r := range modelReads {
		if t, typed := modelCmdType[r]; !typed || typ == "" || t == typ {
			names = append(names, r)
		}
	}
	switch name := names[s.IntN(len(names))]; name {
	case "DBSIZE":
		return []string{name}
	case "HGET":
		return []string{name, key, modelFields[s.IntN(len(modelFields))]}
	case "LINDEX":
		return []string{name, key, strconv.Itoa(s.IntN(5) - 2)}
	case "LRANGE", "ZRANGE":
		// 0 -1 runs alone; the others, bounded, join pipeline groups and
		// run on event loops (cmd_list.go, lrangeBounded; cmd_zset.go,
		// zrangeBounded).
		span := [][2]string{{"0", "-1"}, {"0", "1"}, {"-2", "-1"}, {"1", "3"}, {"2", "0"}}[s.IntN(5)]
		return []string{name, key, span[0], span[1]}
	case "LCS":
		return []string{name, key, key, "LEN"}
	case "XRANGE":
		return []string{name, key, "-", "+"}
	case "SISMEMBER", "ZSCORE":
		return []string{name, key, modelMembers[s.IntN(len(modelMembers))]}
	default:
		return []string{name, key}
	}
}

func (g *opGen) pick() modelOp {
	r := g.rng
	if g.restartEvery > 0 && r.IntN(g.restartEvery) == 0 {
		if r.IntN(2) == 0 {
			return modelOp{kind: opRestart}
		}
		return modelOp{kind: opKill}
	}
	one := func(from []string) string { return from[r.IntN(len(from))] }
	some := func(from []string, n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = one(from)
		}
		return out
	}
	db := r.IntN(modelDBs)
	key := one(modelNames)
	c := func(args ...string) modelOp { return modelOp{kind: opCmd, db: db, args: args} }
	val := func() string { return "v" + strconv.Itoa(r.IntN(100)) }
	n := 1 + r.IntN(3)
	switch x := r.IntN(1000); {
	case x < 4:
		// Longer than the record caches keep whole: the metadata cache
		// keeps its head alone, which SET and MSET read.
		return c("SET", key, strings.Repeat("L", 600)+val())
	case x < 52:
		return c("SET", key, val())
	case x < 60:
		return c(pickHLL(x-52, key, r.IntN, one)...)
	case x < 70:
		return c("INCR", key)
	case x < 90:
		return c("APPEND", key, "+"+strconv.Itoa(r.IntN(10)))
	case x < 100:
		return c("SETBIT", key, strconv.Itoa(r.IntN(100)), strconv.Itoa(r.IntN(2)))
	case x < 180:
		args := []string{"HSET", key}
		for range n {
			args = append(args, one(modelFields), val())
		}
		return c(args...)
	case x < 220:
		return c(append([]string{"HDEL", key}, some(modelFields, n)...)...)
	case x < 290:
		return c(append([]string{one([]string{"LPUSH", "RPUSH"}), key}, some([]string{"x", "y", "z", val()}, n)...)...)
	case x < 330:
		return c(one([]string{"LPOP", "RPOP"}), key)
	case x < 350:
		return c("LTRIM", key, strconv.Itoa(r.IntN(5)-2), strconv.Itoa(r.IntN(6)-3))
	case x < 420:
		return c(append([]string{"SADD", key}, some(modelMembers, n)...)...)
	case x < 455:
		return c(append([]string{"SREM", key}, some(modelMembers, n)...)...)
	case x < 525:
		if r.IntN(4) == 0 {
			args := []string{"GEOADD", key}
			for range n {
				p := modelPoints[r.IntN(len(modelPoints))]
				args = append(args, p[0], p[1], one(modelMembers))
			}
			return c(args...)
		}
		args := []string{"ZADD", key}
		for range n {
			args = append(args, one(modelScores), one(modelMembers))
		}
		return c(args...)
	case x < 545:
		return c(append([]string{"ZREM", key}, some(modelMembers, n)...)...)
	case x < 560:
		// Drains from an end, which move the store's score edges.
		switch r.IntN(3) {
		case 0:
			return c("ZREMRANGEBYSCORE", key, "-inf", one(modelScores))
		case 1:
			return c(one([]string{"ZPOPMIN", "ZPOPMAX"}), key)
		}
		return c(one([]string{"ZPOPMIN", "ZPOPMAX"}), key, strconv.Itoa(r.IntN(3)))
	case x < 580:
		return c("ZINCRBY", key, one(modelIncrs), one(modelMembers))
	case x < 640:
		return c(append([]string{one([]string{"DEL", "UNLINK"})}, some(modelNames, 1+r.IntN(2))...)...)
	case x < 690:
		if r.IntN(2) == 0 {
			return c("EXPIRE", key, strconv.Itoa(10000+r.IntN(100000)))
		}
		return c("PEXPIRE", key, strconv.Itoa(10000000+r.IntN(100000000)))
	case x < 698:
		// A tiny TTL on a key that exists, so that the wait has a point.
		if live := slices.Sorted(maps.Keys(g.m.dbs[db])); len(live) > 0 {
			key = one(live)
		}
		op := modelOp{kind: opTinyExpire, db: db, args: []string{"PEXPIRE", key, "1"}}
		if x >= 693 {
			op.thenDB, op.then = g.lazyFollowUp(db, key)
		}
		return op
	case x < 730:
		return c("PERSIST", key)
	case x < 790:
		return c("RENAME", key, one(modelNames))
	case x < 840:
		return c("MOVE", key, strconv.Itoa(r.IntN(modelDBs)))
	case x < 900:
		args := []string{"COPY", key, one(modelNames)}
		if r.IntN(2) == 0 {
			args = append(args, "DB", strconv.Itoa(r.IntN(modelDBs)))
		}
		if r.IntN(2) == 0 {
			args = append(args, "REPLACE")
		}
		return c(args...)
	case x < 904:
		return c("FLUSHDB")
	case x < 906:
		return modelOp{kind: opCompact}
	case x < 910:
		return modelOp{kind: opCompactCF, args: []string{one([]string{"subkey", "score", "bookkeeping", "metadata"})}}
	case x < 918:
		return modelOp{kind: opReclaim}
	case x < 920:
		return modelOp{kind: opCompactBG}
	case x < 924:
		return c("SWAPDB", "0", "1")
	case x < 984:
		return c(pickStream(x-924, key, r.IntN, one)...)
	case x < 1000:
		return g.pickGroup(x-984, db, key, one)
	}
	// The rest: read-only steps cost a full check too, so write again.
	return c("HSET", key, one(modelFields), val())
}

// lazyFollowUp picks a command that meets key, in db, just after it
// expired: a write that re-creates it, possibly as another type, or a
// command for which it is absent, as source or as destination.
func (g *opGen) lazyFollowUp(db int, key string) (int, []string) {
	r := g.rng
	other := modelNames[r.IntN(len(modelNames))]
	odb := (db + 1) % modelDBs
	switch r.IntN(16) {
	case 0:
		return db, []string{"SET", key, "late"}
	case 1:
		return db, []string{"HSET", key, "f", "late"}
	case 2:
		return db, []string{"SADD", key, "late"}
	case 3:
		return db, []string{"RPUSH", key, "late"}
	case 4:
		return db, []string{"ZADD", key, "1", "late"}
	case 5:
		return db, []string{"INCR", key}
	case 6:
		return db, []string{"APPEND", key, "late"}
	case 7:
		return db, []string{"RENAME", key, other}
	case 8:
		return db, []string{"RENAME", other, key}
	case 9:
		return db, []string{"MOVE", key, strconv.Itoa(odb)}
	case 10:
		return odb, []string{"MOVE", key, strconv.Itoa(db)}
	case 11:
		return db, []string{"COPY", other, key}
	case 12:
		return odb, []string{"COPY", key, key, "DB", strconv.Itoa(db)}
	case 13:
		return db, []string{"COPY", key, other, "REPLACE"}
	case 14:
		return db, []string{"EXISTS", key}
	}
	return db, []string{"DEL", key}
}

// removeAll deletes names from m and returns how many were there: HDEL,
// SREM and ZREM's reply.
func removeAll[V any](m map[string]V, names []string) int64 {
	var n int64
	for _, name := range names {
		if _, had := m[name]; had {
			delete(m, name)
			n++
		}
	}
	return n
}
