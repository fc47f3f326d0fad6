package server

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidwall/redcon"

	"github.com/shaledb/shale/server/store"
)

// Transactions (MULTI, EXEC, DISCARD) and WATCH.
//
// Between MULTI and EXEC the dispatcher queues each command (queueCommand)
// after the checks Redis makes before queueing (name, arity, subcommand,
// authentication); a command refused there makes EXEC answer EXECABORT.
// EXEC runs the queue in one store.BeginTxn group: it takes, before the
// first command, the lock stripes of every key the commands name, or the
// world lock's write side when one of them names no key or touches keys
// its row does not name (FLUSHDB, KEYS, SELECT, MOVE, EVAL...: namesItsKeys).
// Every command writes into the group's one batch and reads it back
// (a later GET sees an earlier INCR), and the batch is written once, at the
// end: other clients see all of the transaction or none of it, and so does
// the WAL after a crash. docs/ENCODING.md, "Transactions", has the design.
//
// WATCH is optimistic locking. The watchRegistry maps each watched key to
// its watchers. A write command on a watched key marks the key's entry as
// being written before it runs, and, if it wrote, marks the watchers dirty
// after; EXEC, once it holds its locks, fails (a null reply) if its client
// is dirty, if a watched key is being written (that writer has released
// the key's lock but not marked its watchers yet), or if a watched key that
// was live at WATCH has expired since. A write decides what it claims
// before it takes its key locks, so a WATCH registering meanwhile would
// miss it: WATCH therefore waits, after registering and before reading
// the keys' expiries, for the writes under way to end (settleWriters).
// When nobody watches, a write pays two atomic adds on its own client
// and one atomic load.

// txnState is a client's transaction: the queue between MULTI and EXEC, and
// its watched keys. The client's own goroutine changes it; dirty and
// queuedCount are read by others.
type txnState struct {
	active  bool // between MULTI and EXEC or DISCARD
	aborted bool // a command was refused while queueing: EXEC answers EXECABORT
	queued  []queuedCommand
	watched []watchedKey
	// dirty: a watched key was written since WATCH.
	dirty atomic.Bool
	// queuedCount is CLIENT LIST's multi=: -1 outside MULTI.
	queuedCount atomic.Int32
	// writeSeq is odd while the client runs a write command, from
	// beginWatchedWrite to endWatchedWrite; WATCH reads it.
	writeSeq atomic.Uint64
}

// queuedCommand is a command queued by MULTI, resolved as the dispatcher
// resolved it: run is its handler, or the failure its shape earned.
type queuedCommand struct {
	cmd  *Command
	sub  int
	run  func(*Ctx, [][]byte) error
	args [][]byte // copies: redcon reuses its read buffer
}

// watchedKey is one key a client watches, and when it expires: the unix ms
// of the expiry it had at WATCH, 0 when it was missing or had none.
type watchedKey struct {
	key      watchKey
	expireAt int64
}

type watchKey struct {
	db  int
	key string
}

// runsDuringMulti reports whether cmd runs at once between MULTI and EXEC
// instead of being queued, as in Redis.
func runsDuringMulti(cmd *Command) bool {
	switch cmd.Name {
	case "multi", "exec", "discard", "watch", "quit", "reset":
		return true
	}
	return false
}

// queueCommand queues a command between MULTI and EXEC, or refuses it.
func (s *Server) queueCommand(c *Client, conn redcon.Conn, cmd *Command, sub int, run func(*Ctx, [][]byte) error, args [][]byte) {
	t := &c.txn
	if cmd.Flags&NoMulti != 0 {
		s.rejectCommand(c, conn, cmd, errNotInMulti)
		return
	}
	q := queuedCommand{cmd: cmd, sub: sub, run: run, args: make([][]byte, len(args))}
	for i, a := range args {
		q.args[i] = slices.Clone(a)
	}
	t.queued = append(t.queued, q)
	t.queuedCount.Store(int32(len(t.queued)))
	Reply{conn: conn}.Status("QUEUED")
}

// flagTransaction makes the client's EXEC fail with EXECABORT: a command
// was refused while it queued.
func (c *Client) flagTransaction() {
	if c.txn.active {
		c.txn.aborted = true
	}
}

// endTransaction leaves MULTI and drops the watches: after EXEC, DISCARD,
// RESET, and when the client leaves.
func (s *Server) endTransaction(c *Client) {
	t := &c.txn
	clear(t.queued)
	t.active, t.aborted, t.queued = false, false, t.queued[:0]
	t.queuedCount.Store(-1)
	s.watches.unwatchAll(c)
}

// execAborted is the reply to an EXEC refused before it ran (NOAUTH, a
// wrong arity, pub/sub mode), which discards the transaction, as in Redis:
// the refusal's text, without "ERR ", under EXECABORT.
func (s *Server) execAborted(c *Client, err replyError) replyError {
	s.endTransaction(c)
	return replyError("EXECABORT Transaction discarded because of: " + strings.TrimPrefix(string(err), "ERR "))
}

// MULTI
func cmdMulti(c *Ctx, _ [][]byte) error {
	t := &c.Client.txn
	if t.active {
		return errMultiNested
	}
	t.active = true
	t.queuedCount.Store(0)
	c.Reply().OK()
	return nil
}

// DISCARD
func cmdDiscard(c *Ctx, _ [][]byte) error {
	if !c.Client.txn.active {
		return errDiscardWithoutMulti
	}
	c.Srv.endTransaction(c.Client)
	c.Reply().OK()
	return nil
}

// WATCH key [key ...]
func cmdWatch(c *Ctx, args [][]byte) error {
	t := &c.Client.txn
	if t.active {
		return errWatchInMulti
	}
	// The keys are registered first; then the writes under way, which
	// may have looked for watchers before that, end; then the expiries
	// are read. So every write either marks this client or lands before
	// these reads and the client's own.
	first := len(t.watched)
	for _, k := range args[1:] {
		c.Srv.watches.watch(c.Client, watchedKey{key: watchKey{c.DB.Index(), string(k)}})
	}
	c.Srv.settleWriters(c.Client)
	for i := first; i < len(t.watched); i++ {
		wk := &t.watched[i]
		expireMs, now, err := c.DB.TTL([]byte(wk.key.key))
		if err != nil {
			return err
		}
		if expireMs > now {
			wk.expireAt = expireMs
		}
	}
	c.Reply().OK()
	return nil
}

// settleWriters waits until the write commands other clients were running
// when c registered its watches have ended. Such a write may have looked
// for watchers (beginWatchedWrite) before c's existed, and take its key
// locks only now: it would neither mark c nor show as busy to c's EXEC,
// and c could read the key before the write and commit over it. Writes
// that start later see c's watches. WATCH holds no lock while it waits,
// and stops waiting for a client that has left: a command that panicked
// never ends its write, and its connection closes.
func (s *Server) settleWriters(c *Client) {
	type running struct {
		cl  *Client
		seq uint64
	}
	var writers []running
	s.mu.Lock()
	for _, cl := range s.clients {
		if seq := cl.txn.writeSeq.Load(); seq%2 == 1 && cl != c {
			writers = append(writers, running{cl, seq})
		}
	}
	s.mu.Unlock()
	for _, w := range writers {
		wait := 10 * time.Microsecond
		for w.cl.txn.writeSeq.Load() == w.seq && s.connected(w.cl) {
			time.Sleep(wait)
			wait = min(2*wait, time.Millisecond)
		}
	}
}

// connected reports whether c is still one of the server's clients.
func (s *Server) connected(c *Client) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clients[c.ID] == c
}

// UNWATCH
func cmdUnwatch(c *Ctx, _ [][]byte) error {
	c.Srv.watches.unwatchAll(c.Client)
	c.Reply().OK()
	return nil
}

// EXEC
func cmdExec(c *Ctx, _ [][]byte) error {
	s, cl := c.Srv, c.Client
	t := &cl.txn
	if !t.active {
		return errExecWithoutMulti
	}
	defer s.endTransaction(cl)
	if t.aborted {
		s.stats.txnAborted.Add(1)
		return errExecAbort
	}
	g := s.beginTxn(cl)
	defer g.Abort() // a command that panics leaves no lock held; a no-op after Commit
	if t.dirty.Load() || s.watches.expiredOrBusy(cl, s.eng.Now()) {
		g.Abort()
		s.stats.txnWatchFailed.Add(1)
		c.Reply().NullArray()
		return nil
	}
	s.watches.unwatchAll(cl) // as Redis: the transaction's own writes must not mark it
	var mark int
	if wr := cl.pipe.wr; wr != nil {
		mark = bufferedLen(wr)
	}
	c.Reply().Array(len(t.queued))
	cl.atomicRun.active = true
	for i := range t.queued {
		q := &t.queued[i]
		// The protocol and the database are read per command: a HELLO or
		// SELECT in the transaction changes them for the commands after
		// it, as in Redis.
		ctx := &Ctx{Conn: c.Conn, Srv: s, Client: cl, DB: cl.currentDB().InGroup(g), resp3: cl.resp3.Load()}
		s.call(ctx, q.cmd, q.sub, q.run, q.args)
	}
	cl.atomicRun.active = false
	err := g.Commit()
	ready := cl.atomicRun.ready
	cl.atomicRun.ready = nil
	if err != nil {
		// Nothing was written: the replies already buffered must not
		// leave. If they have left (a huge reply flushed them), the
		// connection closes instead, so that no client takes them for
		// the truth.
		if wr := cl.pipe.wr; wr != nil && bufferedLen(wr) >= mark {
			wr.SetBuffer(wr.Buffer()[:mark])
		} else {
			cl.closeAfterReply = true
		}
		s.stats.txnAborted.Add(1)
		s.dropEvents(cl)
		return err
	}
	s.stats.txnCommitted.Add(1)
	s.publishEvents(cl)
	for _, bk := range ready {
		s.keyReady(nil, bk.db, []byte(bk.key))
	}
	return nil
}

// beginTxn takes the locks of the client's queued transaction: the stripes
// of every key its commands name when each touches only those
// (namesItsKeys; none of them changes the selected database), else the
// world lock.
func (s *Server) beginTxn(c *Client) *store.Group {
	db := c.currentDB().Index()
	var keys []store.LockKey
	for i := range c.txn.queued {
		q := &c.txn.queued[i]
		if !namesItsKeys(q.cmd) {
			return s.st.BeginTxn(true)
		}
		for _, at := range keyPositions(q.cmd, q.args) {
			keys = append(keys, store.LockKey{DB: db, Key: q.args[at]})
		}
	}
	return s.st.BeginTxn(false, keys...)
}

// watchRegistry is every client's watched keys.
type watchRegistry struct {
	keys    atomic.Int64 // watched keys: the writers' fast path
	mu      sync.Mutex
	entries map[watchKey]*watchEntry
}

// watchEntry is one watched key: its watchers, and the writers of the key
// that have started and not yet marked them (see beginWrite).
type watchEntry struct {
	watchers map[*Client]struct{}
	writing  int
}

func (r *watchRegistry) watch(c *Client, wk watchedKey) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if slices.ContainsFunc(c.txn.watched, func(w watchedKey) bool { return w.key == wk.key }) {
		return
	}
	if r.entries == nil {
		r.entries = make(map[watchKey]*watchEntry)
	}
	e := r.entries[wk.key]
	if e == nil {
		e = &watchEntry{watchers: make(map[*Client]struct{})}
		r.entries[wk.key] = e
		r.keys.Add(1)
	}
	e.watchers[c] = struct{}{}
	c.txn.watched = append(c.txn.watched, wk)
}

// unwatchAll drops every watch of c and its dirty mark.
func (r *watchRegistry) unwatchAll(c *Client) {
	t := &c.txn
	if len(t.watched) > 0 {
		r.mu.Lock()
		for _, wk := range t.watched {
			e := r.entries[wk.key]
			delete(e.watchers, c)
			if len(e.watchers) == 0 && e.writing == 0 {
				delete(r.entries, wk.key)
				r.keys.Add(-1)
			}
		}
		r.mu.Unlock()
		t.watched = t.watched[:0]
	}
	t.dirty.Store(false)
}

// expiredOrBusy reports whether one of c's watched keys, live at WATCH,
// has expired by now (unix ms), or is being written.
func (r *watchRegistry) expiredOrBusy(c *Client, now int64) bool {
	if len(c.txn.watched) == 0 {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, wk := range c.txn.watched {
		if wk.expireAt != 0 && wk.expireAt <= now {
			return true
		}
		if e := r.entries[wk.key]; e != nil && e.writing > 0 {
			return true
		}
	}
	return false
}

// watchWrite is a write command's claim on the watched keys it may change:
// taken before it runs (beginWrite), settled after (end).
type watchWrite struct {
	r       *watchRegistry
	entries []*watchEntry
	// writer is the client whose writeSeq the claim made odd; nil for a
	// command that is no write.
	writer *Client
}

// allDatabases, as beginWrite's flushed, names every database.
const allDatabases = -2

// beginWrite marks the watched keys among keys, and every watched key of
// database flushed (allDatabases: of all; -1: none), as being written.
func (r *watchRegistry) beginWrite(keys []watchKey, flushed int) watchWrite {
	w := watchWrite{r: r}
	r.mu.Lock()
	defer r.mu.Unlock()
	claim := func(e *watchEntry) {
		if !slices.Contains(w.entries, e) {
			e.writing++
			w.entries = append(w.entries, e)
		}
	}
	for _, k := range keys {
		if e := r.entries[k]; e != nil {
			claim(e)
		}
	}
	if flushed != -1 {
		for k, e := range r.entries {
			if flushed == allDatabases || k.db == flushed {
				claim(e)
			}
		}
	}
	return w
}

// end settles the claim: the watchers of its keys are dirty if the
// command wrote.
func (w watchWrite) end(wrote bool) {
	if len(w.entries) == 0 {
		return
	}
	r := w.r
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range w.entries {
		e.writing--
		if wrote {
			for c := range e.watchers {
				c.txn.dirty.Store(true)
			}
		}
	}
	// Entries whose watchers left while the write ran go now.
	for k, e := range r.entries {
		if len(e.watchers) == 0 && e.writing == 0 {
			delete(r.entries, k)
			r.keys.Add(-1)
		}
	}
}

// watchTargets are the keys a write command may change, in the database
// of c, and the database it empties (-1: none; allDatabases). Most
// commands change only the keys their row names; this is the one place for
// those that change others.
func watchTargets(c *Ctx, cmd *Command, args [][]byte) ([]watchKey, int) {
	db := c.DB.Index()
	keys := make([]watchKey, 0, 2)
	for _, at := range keyPositions(cmd, args) {
		keys = append(keys, watchKey{db, string(args[at])})
	}
	switch cmd.Name {
	case "flushdb":
		return keys, db
	case "flushall":
		return keys, allDatabases
	case "swapdb":
		keys = append(keys, swapWatchTargets(c, args)...)
	case "move":
		if n, err := parseCInt(args[2]); err == nil {
			keys = append(keys, watchKey{n, string(args[1])})
		}
	case "georadius", "georadiusbymember":
		// The key specs name the first STORE and STOREDIST keys; the
		// command stores in the last (geoStoreKey).
		if dst := geoStoreKey(args); dst != nil {
			keys = append(keys, watchKey{db, string(dst)})
		}
	case "copy":
		for i := 3; i+1 < len(args); i++ {
			if strings.EqualFold(string(args[i]), "db") {
				if n, err := parseCInt(args[i+1]); err == nil {
					keys = append(keys, watchKey{n, string(args[2])})
				}
			}
		}
	}
	return keys, -1
}

// beginWatchedWrite claims the watched keys the running command may write,
// when it is a write and somebody watches; endWatchedWrite settles the
// claim. call brackets every command with them; blockOn lets the claim go
// while its command waits, and takes it again around each try.
func (s *Server) beginWatchedWrite(c *Ctx) {
	// PFCOUNT is read-only but may store the cardinality it computed in
	// the value: Redis then signals the key modified, and its watchers fail.
	if c.cmd == nil || (c.cmd.Flags&Write == 0 && c.cmd.Name != "pfcount") || c.Client == nil {
		return
	}
	// The write shows before the registry is read: a WATCH that
	// registers after this read waits for it (settleWriters).
	c.Client.txn.writeSeq.Add(1)
	c.watched.writer = c.Client
	if s.watches.keys.Load() == 0 {
		return
	}
	keys, flushed := watchTargets(c, c.cmd, c.args)
	c.watched = s.watches.beginWrite(keys, flushed)
	c.watched.writer = c.Client
	c.writesAt = c.Client.log.Writes
}

func (s *Server) endWatchedWrite(c *Ctx) {
	w := c.watched
	c.watched = watchWrite{}
	if w.r != nil {
		w.end(c.Client.log.Writes != c.writesAt)
	}
	if w.writer != nil {
		w.writer.txn.writeSeq.Add(1) // after the marks: a WATCH waiting sees them
	}
}

// abandonWatchedWrite settles the claim of a command that did not end (it
// panicked) as a write: its watchers must not trust the key.
func (s *Server) abandonWatchedWrite(c *Ctx) {
	if c.watched.r == nil && c.watched.writer == nil {
		return
	}
	c.writesAt = c.Client.log.Writes - 1 // counts as a write
	s.endWatchedWrite(c)
}

var transactionCommands = []Command{
	cmd("multi", 1, NoScript|Loading|Stale|Fast|AllowBusy, 0, 0, 0, cmdMulti).
		doc("Mark the start of a transaction block", "1.2.0", "transactions", "O(1)", ""),
	cmd("exec", 1, NoScript|Loading|Stale|SkipSlowlog, 0, 0, 0, cmdExec).
		doc("Execute all commands issued after MULTI", "1.2.0", "transactions", "Depends on commands in the transaction", ""),
	cmd("discard", 1, NoScript|Loading|Stale|Fast|AllowBusy, 0, 0, 0, cmdDiscard).
		doc("Discard all commands issued after MULTI", "2.0.0", "transactions", "O(N), when N is the number of queued commands", ""),
	cmd("watch", -2, NoScript|Loading|Stale|Fast|AllowBusy, 1, -1, 1, cmdWatch).keyFlags(KeyRO).
		doc("Watch the given keys to determine execution of the MULTI/EXEC block", "2.2.0", "transactions", "O(1) for every key.", "key [key ...]"),
	cmd("unwatch", 1, NoScript|Loading|Stale|Fast|AllowBusy, 0, 0, 0, cmdUnwatch).
		doc("Forget about all watched keys", "2.2.0", "transactions", "O(1)", ""),
}
