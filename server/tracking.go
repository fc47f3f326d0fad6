package server

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tidwall/redcon"
)

// Client-side caching (CLIENT TRACKING), as Redis 7.0's tracking.c. The
// handlers are in cmd_tracking.go.
//
// Default mode: the keys a tracking client reads (a ReadOnly command's
// keys, the command table's key positions) go into the tracking table, key
// -> the ids of the clients that read it, whatever the database, as in
// Redis. A write of the key sends each of them one invalidation and
// forgets the key: the client must read it again to hear of the next
// write. BCAST mode tracks nothing per client: a write of any key that
// starts with one of the client's prefixes invalidates it. OPTIN tracks
// only the command after CLIENT CACHING YES, OPTOUT all but the one after
// CLIENT CACHING NO; NOLOOP leaves out the client's own writes.
//
// What a write changed is what keyspace notifications already learn
// (notify.go): the keys of a command's events, published when the command,
// its pipeline group or its transaction commits, and active expiry's
// expired keys. FLUSHDB and FLUSHALL are a "flush" event of their own (a
// null invalidation to every tracking client, and the table is emptied).
// Once a client has turned tracking on, writes keep the facts events are
// made of even with notifications off (beginEvents).
//
// No stale cache: a read registers its keys before it reads, and a write
// invalidates after it commits, so a read that saw the old value is in the
// table when the write looks. Its reply must then reach the client before
// the invalidation does: a client's invalidations wait in its pending
// buffer while its connection runs a batch of commands (busy), and follow
// the reply of the command running (in a pipeline group, of the command
// that wrote: publishGroupEvents); between batches they are written at
// once, through the queue pub/sub messages use (guardConn.sendMessage),
// whole frames between whole replies. Redis sends a client the
// invalidations of its own writes after the command's reply too. A write
// takes a key's readers out of the table and hands them their
// invalidations under the table's lock: a later write of the key, which
// finds no reader left, must not answer its client while the earlier
// write's invalidation is still on its way.
//
// Redirection (REDIRECT id) sends the invalidations to another client: as
// RESP3 pushes, or, to a RESP2 client in subscribed mode, as messages of
// the __redis__:invalidate channel. A redirect client that is gone marks
// the tracking client's redirection broken and, in RESP3, tells it with a
// tracking-redir-broken push.

// trackFlag is a set of a client's tracking flags.
type trackFlag uint32

const (
	trackOn          trackFlag = 1 << iota // CLIENT TRACKING ON
	trackBcast                             // BCAST
	trackOptin                             // OPTIN
	trackOptout                            // OPTOUT
	trackNoloop                            // NOLOOP
	trackCaching                           // CLIENT CACHING YES (OPTIN) or NO (OPTOUT), for the next command
	trackBrokenRedir                       // the redirect client is gone
)

// trackingChannel is the channel a RESP2 redirect client hears of
// invalidations on.
const trackingChannel = "__redis__:invalidate"

// clientTracking is one client's tracking state. Its own goroutine changes
// the mode (CLIENT TRACKING, CLIENT CACHING); writers of other clients read
// flags and redirect, and set trackBrokenRedir.
type clientTracking struct {
	flags    atomic.Uint32 // a trackFlag
	redirect atomic.Int64  // the client the invalidations go to; 0 = this one
	// used: tracking was turned on once on this connection, and the
	// dispatcher brackets its batches (trackingEnter, trackingLeave).
	used atomic.Bool
	// prefixes are the BCAST prefixes, sorted; the server's tracking.mu
	// guards them.
	prefixes []string

	mu      sync.Mutex // guards busy and pending; held while sending to the client
	busy    bool       // the connection's goroutine runs a batch of commands
	pending []byte     // encoded pushes held back while busy
}

func (t *clientTracking) has(f trackFlag) bool { return trackFlag(t.flags.Load())&f != 0 }

func (t *clientTracking) set(f trackFlag) { t.flags.Or(uint32(f)) }

func (t *clientTracking) unset(f trackFlag) { t.flags.And(^uint32(f)) }

// trackingTable is the server's tracking state.
type trackingTable struct {
	// used: a client turned tracking on once since start; from then on,
	// writes keep the facts their invalidations are made of.
	used    atomic.Bool
	clients atomic.Int64 // clients with tracking on (INFO tracking_clients)
	maxKeys atomic.Int64 // tracking-table-max-keys; 0 = no limit

	// mu guards what follows and the clients' prefixes, and is held while
	// a write hands its invalidations over (push). Lock order: mu, then
	// s.mu (clientByID) or a client's trk.mu.
	mu sync.Mutex
	// keys: each tracked key's readers, by client id. items counts the
	// pairs (INFO tracking_total_items).
	keys  map[string]map[int64]struct{}
	items int64
	// prefixes: each BCAST prefix's clients.
	prefixes map[string]map[*Client]struct{}
}

// trackingEnter marks the client's connection busy: a batch of its
// commands runs, and its invalidations wait for their replies. The
// dispatcher calls it before each command of a client that used tracking.
func (cl *Client) trackingEnter() {
	t := &cl.trk
	t.mu.Lock()
	t.busy = true
	t.mu.Unlock()
}

// trackingLeave ends a command of a client that used tracking: the
// invalidations held back follow its reply in redcon's buffer, and at the
// end of the batch the buffer is flushed and the connection stops being
// busy. It also ends CLIENT CACHING's effect, as Redis's resetClient: after
// any command but a CLIENT subcommand and those queued by MULTI.
func (s *Server) trackingLeave(cl *Client, conn redcon.Conn, args [][]byte) {
	t := &cl.trk
	if !t.used.Load() {
		return
	}
	if t.has(trackCaching) && !cl.txn.active {
		// A CLIENT subcommand keeps it, whatever its outcome; an unknown
		// one does not, nor CLIENT alone: Redis resolves no command for
		// them.
		if cmd := s.table.lookup(args[0]); cmd == nil || cmd.Name != "client" || cmd.subcommandIndex(args) < 0 {
			t.unset(trackCaching)
		}
	}
	last := len(conn.PeekPipeline()) == 0 || cl.closeAfterReply
	t.mu.Lock()
	defer t.mu.Unlock()
	wr := redcon.BaseWriter(conn)
	if len(t.pending) > 0 {
		if wr != nil && !cl.closeAfterReply {
			wr.WriteRaw(t.pending)
		} else {
			cl.sendFrame(t.pending)
		}
		t.pending = resetPending(t.pending)
	}
	if last {
		if wr != nil {
			_ = wr.Flush()
		}
		t.busy = false
	}
}

// trackingIdle lets the invalidations of a client that waits (BLPOP and
// the like) out while it waits, after the replies it flushed; the function
// it returns makes the connection busy again.
func (cl *Client) trackingIdle() func() {
	if cl == nil || !cl.trk.used.Load() {
		return func() {}
	}
	t := &cl.trk
	t.mu.Lock()
	if len(t.pending) > 0 {
		cl.sendFrame(t.pending)
		t.pending = resetPending(t.pending)
	}
	wasBusy := t.busy
	t.busy = false
	t.mu.Unlock()
	return func() {
		t.mu.Lock()
		t.busy = wasBusy
		t.mu.Unlock()
	}
}

// takePending appends the invalidations held back for cl to out, and
// forgets them: a pipeline group puts them after the reply of the command
// that made them (publishGroupEvents).
func (cl *Client) takePending(out []byte) []byte {
	t := &cl.trk
	t.mu.Lock()
	defer t.mu.Unlock()
	out = append(out, t.pending...)
	t.pending = resetPending(t.pending)
	return out
}

// resetPending empties a pending buffer, and lets a large one go.
func resetPending(b []byte) []byte {
	if cap(b) > 64<<10 {
		return nil
	}
	return b[:0]
}

// push sends frame, an encoded push or pub/sub message, to cl: after the
// reply of the command it runs, if its connection is busy, else now.
func (cl *Client) push(frame []byte) {
	t := &cl.trk
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.busy {
		t.pending = append(t.pending, frame...)
		// Held back, they are unsent output all the same: past the
		// client's hard output limit (a long command while BCAST keys
		// change fast), it is cut off, as Redis would.
		if cl.out != nil {
			if limit := cl.out.g.classLimits().hard; limit > 0 && int64(len(t.pending)) > limit {
				cl.out.g.cutOff(int64(len(t.pending)), limit)
				t.pending = nil
			}
		}
		return
	}
	if len(t.pending) > 0 {
		cl.sendFrame(t.pending)
		t.pending = resetPending(t.pending)
	}
	cl.sendFrame(frame)
}

// trackingOn turns tracking on for cl with the given mode flags
// (trackBcast, trackOptin, trackOptout, trackNoloop), redirection and BCAST
// prefixes, as Redis's enableTracking: the previous mode flags go, the
// prefixes add to those the client has. The caller checked the options.
func (s *Server) trackingOn(cl *Client, mode trackFlag, redirect int64, prefixes []string) {
	t := &cl.trk
	tt := &s.tracking
	if !t.has(trackOn) {
		tt.clients.Add(1)
	}
	if !tt.used.Load() {
		tt.used.Store(true)
		// Writes that began before used was set keep no facts. Those
		// holding key locks end now: what they wrote is in place before
		// this client reads. Those that take their locks later find used
		// set when they end (endEvents). Inside EXEC, this client holds
		// the world lock itself.
		if !cl.atomicRun.active {
			unlock := s.st.LockWorld()
			unlock()
		}
	}
	t.used.Store(true)
	keep := t.flags.Load() & uint32(trackCaching)
	t.flags.Store(uint32(trackOn|mode) | keep)
	t.redirect.Store(redirect)
	if mode&trackBcast != 0 {
		if len(prefixes) == 0 {
			prefixes = []string{""}
		}
		tt.mu.Lock()
		if tt.prefixes == nil {
			tt.prefixes = make(map[string]map[*Client]struct{})
		}
		for _, p := range prefixes {
			i, dup := slices.BinarySearch(t.prefixes, p)
			if dup {
				continue // ON BCAST again, without PREFIX: "" twice
			}
			t.prefixes = slices.Insert(t.prefixes, i, p)
			cs := tt.prefixes[p]
			if cs == nil {
				cs = make(map[*Client]struct{})
				tt.prefixes[p] = cs
			}
			cs[cl] = struct{}{}
		}
		tt.mu.Unlock()
	}
}

// trackingOff turns tracking off for cl, as Redis's disableTracking: its
// prefixes go; the keys it read stay in the table until they are written,
// and a client that turns tracking on again hears of them then.
func (s *Server) trackingOff(cl *Client) {
	t := &cl.trk
	if !t.has(trackOn) {
		return
	}
	tt := &s.tracking
	tt.mu.Lock()
	for _, p := range t.prefixes {
		if cs := tt.prefixes[p]; cs != nil {
			delete(cs, cl)
			if len(cs) == 0 {
				delete(tt.prefixes, p)
			}
		}
	}
	t.prefixes = nil
	tt.mu.Unlock()
	t.flags.Store(0)
	t.redirect.Store(0)
	tt.clients.Add(-1)
}

// trackReads remembers the keys of the read command c runs, for its client
// when it tracks them: default mode (not BCAST), and CLIENT CACHING as
// OPTIN or OPTOUT ask. call runs it before the command reads, so that a
// write committed after the read finds the client in the table. Reads
// that scripts run count for the script's caller; EVAL_RO, EVALSHA_RO and
// FCALL_RO themselves do not, as in Redis, their reads do.
func (s *Server) trackReads(c *Ctx) {
	cl := c.Client
	if cl == nil || !cl.trk.used.Load() || c.cmd.Flags&ReadOnly == 0 {
		return
	}
	f := trackFlag(cl.trk.flags.Load())
	if f&trackOn == 0 || f&trackBcast != 0 ||
		f&trackOptin != 0 && f&trackCaching == 0 || f&trackOptout != 0 && f&trackCaching != 0 {
		return
	}
	if runsScript(c.cmd) {
		return
	}
	// Redis 7.0 remembers, for a read a script runs, the keys the script
	// was given (its caller's argv), not those of the read.
	keysOf := c
	if top := &cl.ctx; top != c && top.cmd != nil && runsScript(top.cmd) {
		keysOf = top
	}
	pos := keyPositions(keysOf.cmd, keysOf.args)
	if len(pos) == 0 {
		return
	}
	args := keysOf.args
	tt := &s.tracking
	tt.mu.Lock()
	if tt.keys == nil {
		tt.keys = make(map[string]map[int64]struct{})
	}
	for _, at := range pos {
		ids := tt.keys[string(args[at])]
		if ids == nil {
			ids = make(map[int64]struct{}, 1)
			tt.keys[string(args[at])] = ids
		}
		if _, ok := ids[cl.ID]; !ok {
			ids[cl.ID] = struct{}{}
			tt.items++
		}
	}
	for _, v := range tt.overLimit() {
		s.invalidateReaders(nil, v.key, v.ids)
	}
	tt.mu.Unlock()
}

// appendChanged appends to out an event for every key the write c ran may
// have changed, and a flush for FLUSHDB and FLUSHALL: for a write that ran
// without facts (endEvents).
func appendChanged(out []keyEvent, c *Ctx) []keyEvent {
	keys, flushed := watchTargets(c, c.cmd, c.args)
	if flushed != -1 {
		out = append(out, keyEvent{name: flushEvent})
	}
	for _, k := range keys {
		out = append(out, keyEvent{name: "changed", db: k.db, key: []byte(k.key)})
	}
	return out
}

// runsScript reports whether cmd runs a script or a function.
func runsScript(cmd *Command) bool {
	switch cmd.Name {
	case "eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro":
		return true
	}
	return false
}

// trackedKey is a key taken out of the tracking table, and its readers.
type trackedKey struct {
	key string
	ids map[int64]struct{}
}

// overLimit takes keys out of the table until it holds at most
// tracking-table-max-keys, for their readers to be told, as Redis evicts
// them: at random (Go's map order). tt.mu is held.
func (tt *trackingTable) overLimit() []trackedKey {
	limit := tt.maxKeys.Load()
	if limit <= 0 || int64(len(tt.keys)) <= limit {
		return nil
	}
	var out []trackedKey
	for k, ids := range tt.keys {
		if int64(len(tt.keys)) <= limit {
			break
		}
		delete(tt.keys, k)
		tt.items -= int64(len(ids))
		out = append(out, trackedKey{k, ids})
	}
	return out
}

// take takes key out of the table and returns its readers. tt.mu is held.
func (tt *trackingTable) take(key []byte) map[int64]struct{} {
	ids, ok := tt.keys[string(key)]
	if !ok {
		return nil
	}
	delete(tt.keys, string(key))
	tt.items -= int64(len(ids))
	return ids
}

// flushEvent is the event FLUSHDB and FLUSHALL add to a client's events
// (writeEvents): no keyspace notification, a flush for tracking.
const flushEvent = "flush"

// invalidateEvents sends the invalidations of the events writer's
// command, group or transaction made (writer is nil for expiry): every
// changed key, to its readers and to the BCAST clients of its prefixes.
func (s *Server) invalidateEvents(writer *Client, events []keyEvent) {
	tt := &s.tracking
	if !tt.used.Load() {
		return
	}
	var bcast [][]byte
	tt.mu.Lock()
	defer tt.mu.Unlock()
	// The command's own events first, then the keys only a fact names
	// (expired, new), which mostly have an event of their own too: Redis
	// invalidates in the order the command changes its keys (RENAME: the
	// source, then the destination).
	for _, facts := range []bool{false, true} {
		for _, ev := range events {
			fact := ev.class&(notifyNew|notifyExpired) != 0
			switch {
			case ev.class == notifyKeyMiss || fact != facts:
				continue // a read's, or not this pass's
			case ev.class == 0 && ev.name == flushEvent:
				s.invalidateAll()
				continue
			}
			if ids := tt.take(ev.key); ids != nil {
				s.invalidateReaders(writer, string(ev.key), ids)
			}
			bcast = append(bcast, ev.key)
		}
	}
	if len(bcast) > 0 {
		s.broadcast(writer, bcast)
	}
}

// invalidateReaders tells the clients ids, which read key, that it
// changed: those still tracking in default mode, but the writer itself in
// NOLOOP mode. tt.mu is held.
func (s *Server) invalidateReaders(writer *Client, key string, ids map[int64]struct{}) {
	for id := range ids {
		target := s.clientByID(id)
		if target == nil {
			continue
		}
		f := trackFlag(target.trk.flags.Load())
		if f&trackOn == 0 || f&trackBcast != 0 || f&trackNoloop != 0 && target == writer {
			continue
		}
		s.sendInvalidation(target, [][]byte{[]byte(key)})
	}
}

// broadcast tells the BCAST clients whose prefixes match some of keys,
// once per prefix with the keys it matches in Redis's order (sorted, each
// once), but the writer itself in NOLOOP mode. tt.mu is held.
func (s *Server) broadcast(writer *Client, keys [][]byte) {
	tt := &s.tracking
	if len(tt.prefixes) == 0 {
		return
	}
	slices.SortFunc(keys, func(a, b []byte) int { return strings.Compare(string(a), string(b)) })
	keys = slices.CompactFunc(keys, func(a, b []byte) bool { return string(a) == string(b) })
	prefixes := make([]string, 0, len(tt.prefixes))
	for p := range tt.prefixes {
		prefixes = append(prefixes, p)
	}
	slices.Sort(prefixes)
	for _, p := range prefixes {
		var matched [][]byte
		for _, k := range keys {
			if strings.HasPrefix(string(k), p) {
				matched = append(matched, k)
			}
		}
		if len(matched) == 0 {
			continue
		}
		for cl := range tt.prefixes[p] {
			if cl != writer || !cl.trk.has(trackNoloop) {
				s.sendInvalidation(cl, matched)
			}
		}
	}
}

// invalidateAll is a flush's: every tracking client gets the null
// invalidation, and the table empties, as Redis's
// trackingInvalidateKeysOnFlush. tt.mu is held.
func (s *Server) invalidateAll() {
	tt := &s.tracking
	tt.keys, tt.items = nil, 0
	for _, cl := range s.clientList() {
		if cl.trk.has(trackOn) {
			s.sendInvalidation(cl, nil)
		}
	}
}

// sendInvalidation sends target's invalidation of keys (nil: of all, a
// flush's null) where target asked: to itself as a RESP3 push, or to its
// redirect client, as a push or, to a RESP2 client in subscribed mode, as
// a __redis__:invalidate message. Redis's sendTrackingMessage: a RESP2
// client without redirection gets nothing, and a redirect client that is
// gone breaks the redirection.
func (s *Server) sendInvalidation(target *Client, keys [][]byte) {
	to := target
	redirected := false
	if id := target.trk.redirect.Load(); id != 0 {
		to = s.clientByID(id)
		if to == nil {
			target.trk.set(trackBrokenRedir)
			if target.resp3.Load() {
				f := &frame{}
				r := Reply{conn: f, resp3: true}
				r.Push(2)
				r.BulkString("tracking-redir-broken")
				r.Int(id)
				target.push(f.b)
			}
			return
		}
		redirected = true
	}
	f := &frame{}
	r := Reply{conn: f, resp3: to.resp3.Load()}
	switch {
	case r.resp3:
		r.Push(2)
		r.BulkString("invalidate")
	case redirected && to.subscribed():
		r.Push(3)
		r.BulkString(subKindNames[channelSub].message)
		r.BulkString(trackingChannel)
	default:
		return
	}
	if keys == nil {
		// The null is in the tracking client's protocol, as Redis's
		// shared.null[c->resp].
		Reply{conn: f, resp3: target.resp3.Load()}.Null()
	} else {
		r.Bulks(keys)
	}
	to.push(f.b)
}

// clientByID returns the connected client id, or nil.
func (s *Server) clientByID(id int64) *Client {
	s.mu.Lock()
	defer s.mu.Unlock()
	cl := s.clients[id]
	if cl == nil || cl.killed.Load() {
		return nil
	}
	return cl
}

// trackingStats are INFO's tracking figures: tracked keys, (key, client)
// pairs and BCAST prefixes.
func (s *Server) trackingStats() (keys, items, prefixes int64) {
	tt := &s.tracking
	tt.mu.Lock()
	defer tt.mu.Unlock()
	return int64(len(tt.keys)), tt.items, int64(len(tt.prefixes))
}
