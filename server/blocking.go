package server

import (
	"sync"
	"sync/atomic"
	"time"
)

// Blocking commands (BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BLMPOP, the
// sorted-set ones BZPOPMIN, BZPOPMAX, BZMPOP, and XREAD ... BLOCK) park
// their client until another client adds what they wait for. This file is
// the machinery every one of them shares; a command family uses it through
// two calls.
//
// A blocking handler parses its arguments, then returns
//
//	c.Srv.blockOn(c, keys, timeout, "list", try)
//
// where try(keys) runs the non-blocking form of the command on keys (for
// BLPOP: pop one element from the first non-empty list among keys) and, when
// it finds something, writes the reply and returns served=true. blockOn
// calls try at once with all the command's keys; when nothing was served it
// waits until a writer signals one of the keys, then calls try again with
// just that key, until try serves, fails, the timeout passes (blockOn then
// replies the null array, Redis 7's RESP2 reply to every blocking command
// that times out), or the client disconnects or the server closes. An error
// from try ends the wait and is the command's reply, as for any handler. The
// kind ("list", "zset": TYPE's name) says which keys can serve the client: a
// key that now holds another type is passed over, as Redis passes over a
// BZPOPMIN client when a list appears under its key.
//
// A writer that may have added elements to a key calls, after its write is
// done and its key locks are released,
//
//	c.signalKeyReady(db, key)
//
// (LPUSH, RPUSH, LMOVE's destination, ZADD, XADD, and RENAME, MOVE and COPY onto
// the key; a try that adds elements, as BLMOVE's does, signals too). When nobody waits anywhere this is one atomic load. Otherwise,
// before the signalling command returns, the clients waiting on the key are
// served one at a time in FIFO order among those whose kind is the key's
// type, each by its own goroutine running its try on that key while the
// signaller waits for the answer, until a try finds nothing (the rest keep
// waiting, first in line stays first; stream readers, who take nothing,
// are each offered the key). Like Redis, which serves blocked
// clients before it reads the next command, a client that pushes and then
// reads sees what the blocked clients took.
//
// Invariants:
//   - A blocked client holds no lock: the types layer locks keys per call,
//     and blockOn waits between calls. Each connection has its own
//     goroutine, so other clients are served meanwhile.
//   - One goroutine at a time serves signalled keys (serveMu). A try that
//     itself signals (BLMOVE pushing to its destination) only queues the key
//     for the goroutine already serving, which would otherwise wait for
//     itself.
//   - A waiter is registered before its first try and skipped while that
//     try runs; a signal that finds it so marks it, and it tries again. No
//     wake-up is lost between the first try and the wait.
//   - While a client waits, its socket is read by a watcher (guardConn.watch)
//     so a disconnect is noticed and the waiter leaves the queue; bytes sent
//     meanwhile are kept for redcon.
//   - Server.Close wakes every waiter and waits until each has returned
//     before the store closes.
//
// Inside a transaction (MULTI/EXEC, when it lands) a blocking command must
// not wait: it then runs try once and replies the null array, as Redis does.

// blockKey names a key of a logical database in the registry.
type blockKey struct {
	db  int
	key string
}

// waiter is one blocked command.
type waiter struct {
	c    *Ctx
	keys []blockKey
	kind string
	try  func(keys [][]byte) (served bool, err error)
	// onLoss: the waiter is also tried when its key is deleted or
	// overwritten by another type (XREADGROUP: Redis unblocks it with an
	// error); see signalKeysLost.
	onLoss bool

	// Guarded by blockRegistry.mu.
	busy   bool // a try of this waiter is running: signallers pass it over
	missed bool // a signal passed it over while busy: try again

	wake   chan []byte // a signaller's request to try this key (capacity 1)
	result chan bool   // the answer: true when the waiter is done (served or failed)

	// unblocked is CLIENT UNBLOCK's order to stop waiting (capacity 1):
	// nil to reply as a timeout, else the error to reply. Sent under
	// blockRegistry.mu, once, by unblock, which also removes the waiter.
	unblocked chan error
	removed   bool // taken off the queues; guarded by blockRegistry.mu
}

// blockRegistry is the server's set of blocked clients.
type blockRegistry struct {
	waiting atomic.Int64 // registered waiters: signalKeyReady's fast path
	onLoss  atomic.Int64 // registered waiters with onLoss: signalKeysLost's fast path
	serveMu sync.Mutex   // held by the one goroutine serving ready keys
	active  sync.WaitGroup

	mu       sync.Mutex
	queues   map[blockKey][]*waiter // FIFO per key
	byClient map[int64]*waiter      // the waiter of each blocked client, for CLIENT UNBLOCK
	settled  *sync.Cond             // on mu: a try ended (settle), for unblock
	ready    []blockKey             // signalled keys not yet served
	readySet map[blockKey]bool
	current  *Ctx // the waiter whose wake-up try runs now
	closed   bool
	closing  chan struct{} // closed by close
}

func (r *blockRegistry) init() {
	r.queues = make(map[blockKey][]*waiter)
	r.byClient = make(map[int64]*waiter)
	r.settled = sync.NewCond(&r.mu)
	r.readySet = make(map[blockKey]bool)
	r.closing = make(chan struct{})
}

// blocked is the number of blocked clients (INFO's blocked_clients).
func (r *blockRegistry) blocked() int64 { return r.waiting.Load() }

// register queues w on each of its keys, busy, and reports false when the
// server is closing.
func (r *blockRegistry) register(w *waiter) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return false
	}
	r.active.Add(1)
	w.busy = true
	for _, k := range w.keys {
		r.queues[k] = append(r.queues[k], w)
	}
	if w.c.Client != nil {
		r.byClient[w.c.Client.ID] = w
	}
	r.waiting.Add(1)
	if w.onLoss {
		r.onLoss.Add(1)
	}
	return true
}

// remove takes w off its queues, once. The caller holds mu.
func (r *blockRegistry) remove(w *waiter) {
	if w.removed {
		return // CLIENT UNBLOCK took it off already
	}
	w.removed = true
	if w.c.Client != nil {
		delete(r.byClient, w.c.Client.ID)
	}
	for _, k := range w.keys {
		q := r.queues[k]
		for i, x := range q {
			if x == w {
				q = append(q[:i:i], q[i+1:]...)
				break
			}
		}
		if len(q) == 0 {
			delete(r.queues, k)
		} else {
			r.queues[k] = q
		}
	}
	r.waiting.Add(-1)
	if w.onLoss {
		r.onLoss.Add(-1)
	}
}

// leave takes w off its queues unless a signaller has claimed it, and
// reports whether it did.
func (r *blockRegistry) leave(w *waiter) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if w.busy {
		return false
	}
	r.remove(w)
	return true
}

// settle ends a try of w: w is removed when done, or else made eligible
// again. It reports whether a signal passed w over meanwhile.
func (r *blockRegistry) settle(w *waiter, done bool) (missed bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	w.busy = false
	r.settled.Broadcast()
	if done {
		r.remove(w)
		return false
	}
	missed, w.missed = w.missed, false
	if missed {
		w.busy = true
	}
	return missed
}

// unblock is CLIENT UNBLOCK: it ends the wait of client id, blocked in a
// blocking command, with reason (nil: as a timeout; else the error to
// reply) and reports whether it was blocked. A client whose try runs now
// (busy) is neither served nor blocked yet, which in Redis, where a
// client is one or the other when another runs a command, cannot be: the
// call waits for the try's outcome, a few key reads, and INFO's
// blocked_clients, which counts the client from its first try, agrees
// with the answer. A caller that holds key locks (in EXEC) must not wait,
// as the try may want them: wait false counts a busy client as not
// blocked. A client paused by CLIENT PAUSE is not blocked: Redis 7.0.15
// crashes on CLIENT UNBLOCK TIMEOUT of one, and Valkey, which fixed that,
// answers 0 since.
func (r *blockRegistry) unblock(id int64, reason error, wait bool) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	w := r.byClient[id]
	for w != nil && w.busy {
		if !wait {
			return false
		}
		r.settled.Wait()
		w = r.byClient[id] // served meanwhile: gone
	}
	if w == nil {
		return false
	}
	r.remove(w)
	w.unblocked <- reason // capacity 1, and remove ran once: never full
	return true
}

// close wakes every waiter, refuses new ones, and returns once every
// blockOn has returned.
func (r *blockRegistry) close() {
	r.mu.Lock()
	if !r.closed {
		r.closed = true
		close(r.closing)
	}
	r.mu.Unlock()
	r.active.Wait()
}

// blockOn serves a blocking command; see the top of this file. timeout 0
// waits forever. keys may repeat. It returns try's error, or nil once a
// reply is written.
func (s *Server) blockOn(c *Ctx, keys [][]byte, timeout time.Duration, kind string, try func(keys [][]byte) (served bool, err error)) error {
	return s.block(c, keys, timeout, &waiter{kind: kind, try: try})
}

// block is blockOn for the waiter w, whose kind, try and onLoss are set.
func (s *Server) block(c *Ctx, keys [][]byte, timeout time.Duration, w *waiter) error {
	try := w.try
	if c.Client != nil && c.Client.atomicRun.active {
		// In a transaction, as in Redis, a blocking command is its
		// non-blocking form: one try, and the timeout's reply.
		served, err := try(keys)
		if err == nil && !served {
			c.Reply().NullArray()
		}
		return err
	}
	r := &s.blocking
	w.c, w.wake, w.result, w.unblocked = c, make(chan []byte, 1), make(chan bool, 1), make(chan error, 1)
	seen := make(map[blockKey]bool, len(keys))
	for _, k := range keys {
		bk := blockKey{c.DB.Index(), string(k)}
		if !seen[bk] {
			seen[bk] = true
			w.keys = append(w.keys, bk)
		}
	}
	if !r.register(w) {
		// The server is closing, and the connection with it: no reply, as
		// a nil would read as a timeout.
		c.Conn = mutedConn{c.Conn}
		c.Reply().NullArray()
		return nil
	}
	defer r.active.Done()
	// attempt runs try, and again on every key while signals passed w over
	// during it; it reports whether w is done.
	attempt := func(ks [][]byte) (bool, error) {
		for {
			served, err := try(ks)
			done := served || err != nil
			if !r.settle(w, done) {
				return done, err
			}
			ks = keys
		}
	}
	if done, err := attempt(keys); done {
		return err
	}
	// A wait holds no claim on watched keys: each later try takes one.
	s.endWatchedWrite(c)
	if c.Client != nil { // unit tests drive blockOn without one
		c.Client.blocked.Store(true)
		defer c.Client.blocked.Store(false)
	}

	// Replies to the commands pipelined before this one go out now, as
	// Redis sends them before it blocks the client.
	if wr := c.baseWriter(); wr != nil {
		_ = wr.Flush()
	}
	// Invalidations need not wait for the reply (tracking.go).
	defer c.Client.trackingIdle()()
	gone, stopWatch := watchConn(c)
	defer stopWatch()
	var timer <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		timer = t.C
	}
	closing := r.closing
	leaving := false  // the wait is over, but a signaller claimed w first
	shutdown := false // the server is closing
	vanished := false // the client went away or overflowed its query buffer
	// Time spent waiting is not the command's latency (INFO commandstats,
	// SLOWLOG): only the tries count, as in Redis.
	waitStart := time.Now()
	defer func() { c.blocked += time.Since(waitStart) }()
	// A parked client does not use the store: a replica's full sync may
	// swap its files meanwhile (storeGate).
	use := &s.gate.others // unit tests drive blockOn without a client
	if c.Client != nil {
		use = &c.Client.storeUse
	}
	s.gate.leave(use)
	defer s.gate.enter(use)
	for {
		select {
		case key := <-w.wake:
			c.blocked += time.Since(waitStart)
			s.gate.enter(use)
			s.beginWatchedWrite(c)
			done, err := attempt([][]byte{key})
			s.endWatchedWrite(c)
			s.gate.leave(use)
			waitStart = time.Now()
			w.result <- done
			if done {
				return err
			}
			if !leaving {
				continue
			}
		case <-timer:
		case <-gone:
			vanished = true
		case <-closing:
			shutdown = true
		case reason := <-w.unblocked:
			return unblockedReply(c, reason)
		}
		if r.leave(w) {
			// CLIENT UNBLOCK may have removed w first: its reason wins.
			select {
			case reason := <-w.unblocked:
				return unblockedReply(c, reason)
			default:
			}
			// A client that is gone gets no reply, as in Redis; at shutdown
			// the connection closes without one too: a nil would read as a
			// timeout. (A client served meanwhile gets its reply.)
			if !vanished && !shutdown {
				c.Reply().NullArray()
			}
			return nil
		}
		// Claimed: the request is in w.wake, or about to be.
		leaving = true
		timer, gone, closing = nil, nil, nil
	}
}

// unblockedReply ends a wait that CLIENT UNBLOCK ended: with the timeout's
// reply when reason is nil, else with the error reason.
func unblockedReply(c *Ctx, reason error) error {
	if reason == nil {
		c.Reply().NullArray()
	}
	return reason
}

// watchConn starts watching c's connection for a disconnect while it
// waits; see guardConn.watch. Connections that are not guardConns (none
// today) are not watched.
func watchConn(c *Ctx) (gone <-chan struct{}, stop func()) {
	if g, ok := c.Conn.NetConn().(*guardConn); ok {
		return g.watch()
	}
	return nil, func() {}
}

// signalKeyReady tells the clients blocked on key in database db that it may
// now hold what they wait for, and serves them before it returns; see the
// top of this file. Call it after the write, with no key lock held.
func (c *Ctx) signalKeyReady(db int, key []byte) {
	if c.Client != nil && c.Client.atomicRun.active {
		// The transaction holds the key's lock until its commit (EXEC).
		if c.Srv.blocking.waiting.Load() != 0 {
			c.Client.atomicRun.ready = append(c.Client.atomicRun.ready, blockKey{db, string(key)})
		}
		return
	}
	if c.Client != nil && c.Client.pipe.active() {
		// The write waits in the client's group, which holds the key's
		// lock: signal once the group is written (commitGroup).
		if c.Srv.blocking.waiting.Load() != 0 {
			c.Client.pipe.ready = append(c.Client.pipe.ready, blockKey{db, string(key)})
		}
		return
	}
	c.Srv.keyReady(c, db, key)
}

// keyReady is signalKeyReady; c is the command's context, nil for a signal
// made after a group was written.
func (s *Server) keyReady(c *Ctx, db int, key []byte) {
	r := &s.blocking
	if r.waiting.Load() == 0 {
		return
	}
	bk := blockKey{db, string(key)}
	r.mu.Lock()
	if len(r.queues[bk]) == 0 {
		r.mu.Unlock()
		return
	}
	if !r.readySet[bk] {
		r.readySet[bk] = true
		r.ready = append(r.ready, bk)
	}
	nested := c != nil && r.current == c
	r.mu.Unlock()
	if !nested {
		s.serveReady()
	}
}

// serveReady serves every signalled key, including those signalled by the
// tries it runs.
func (s *Server) serveReady() {
	r := &s.blocking
	r.serveMu.Lock()
	defer r.serveMu.Unlock()
	for {
		r.mu.Lock()
		if len(r.ready) == 0 {
			r.mu.Unlock()
			return
		}
		bk := r.ready[0]
		r.ready = r.ready[1:]
		delete(r.readySet, bk)
		r.mu.Unlock()
		s.serveKey(bk)
	}
}

// serveKey offers key to its waiters whose kind is the key's type, in FIFO
// order, until one finds nothing. The caller holds serveMu.
func (s *Server) serveKey(bk blockKey) {
	r := &s.blocking
	db, err := s.eng.DB(bk.db)
	if err != nil {
		return
	}
	kind, err := db.Type([]byte(bk.key))
	if err != nil {
		s.log.Error().Err(err).Msg("blocked clients: key type")
		return
	}
	if kind == "none" && r.onLoss.Load() == 0 {
		return
	}
	tried := make(map[*waiter]bool)
	for {
		r.mu.Lock()
		var w *waiter
		for _, x := range r.queues[bk] {
			if tried[x] || (x.kind != kind && !x.onLoss) {
				continue
			}
			if x.busy {
				x.missed = true
				continue
			}
			w = x
			break
		}
		if w == nil {
			r.mu.Unlock()
			return
		}
		tried[w] = true
		w.busy = true
		r.current = w.c
		r.mu.Unlock()

		w.wake <- []byte(bk.key)
		done := <-w.result

		r.mu.Lock()
		r.current = nil
		r.mu.Unlock()
		// A pop that finds nothing leaves nothing for those behind it. A
		// stream reader takes nothing: one waiting past the last entry
		// says nothing of the others, each of whom waits from its own ID.
		if !done && kind != "stream" {
			return
		}
	}
}

// lossKeys are the keys that waiters with onLoss wait on.
func (r *blockRegistry) lossKeys() []blockKey {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []blockKey
	for bk, q := range r.queues {
		for _, w := range q {
			if w.onLoss {
				out = append(out, bk)
				break
			}
		}
	}
	return out
}
