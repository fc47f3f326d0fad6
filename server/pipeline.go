package server

import (
	"errors"
	"time"

	"github.com/tidwall/redcon"

	"github.com/shaledb/shale/server/store"
	"github.com/shaledb/shale/server/types"
)

// A pipelined client sends many commands before it reads a reply, and redcon
// hands the dispatcher every command of a read at once. Run one by one, each
// write would wait for its own trip through RocksDB's write path. Instead,
// consecutive commands marked Grouped in the table join the connection's
// store.Group: they take their key locks without waiting, write into one
// shared batch, and the group commits (one DB.Write) before anything else
// runs on the connection and before redcon flushes the replies: at the last
// command of the read, before a command that cannot join, when a command's
// keys are busy, and every maxGroupCommands commands.
//
// A lone command marked Grouped runs in a group of its own: the group is
// an early one (store.NewEarlyGroup), which releases its keys' locks before
// its write lands when another command waits for them, so that commands on
// one hot key do not queue behind each other's writes (docs/WRITES.md).
//
// Each reply is exactly what the command would get alone: a command joins
// only when none of its keys was touched earlier in the group, and the group
// holds the keys until its commit, so no one else sees them in between. If
// the commit fails, nothing of the group was written, and the reply of each
// command that wrote is replaced by the error (rewriteReplies).

// maxGroupCommands bounds a group, and so the time its locks are held and
// the size of its batch.
const maxGroupCommands = 256

// pipelineGroup is a connection's open group and what it owes once it
// commits.
type pipelineGroup struct {
	g *store.Group
	// mark is the length of redcon's reply buffer when the group began:
	// the group's replies follow it.
	mark int
	// wr is redcon's reply buffer of the connection; nil when there is
	// none (tests), and then there are no groups.
	wr *redcon.Writer
	// ready are keys the group's pushes made ready for blocked clients,
	// signalled once the group is written: serving them takes key locks.
	ready []blockKey
	// replies are where each command's reply lies in redcon's buffer, and
	// whether the command wrote, for a failed commit.
	replies []groupReply
	// view is base's view in g (types.DB.InGroup), kept so that grouped
	// commands do not allocate one each.
	view, base *types.DB
	// expired are the keys the group's commands found expired, removed
	// once the group has released their locks.
	expired []types.KeyFact
}

// viewOf returns db's view in the group.
func (p *pipelineGroup) viewOf(db *types.DB) *types.DB {
	if p.base != db {
		p.view, p.base = db.InGroup(p.g), db
	}
	return p.view
}

// groupReply is one grouped command's reply, buf[start:end] of redcon's
// reply buffer, its record for the command statistics, and how many of
// the client's events there were once it ran.
type groupReply struct {
	start, end int
	wrote      bool
	call       heldCall
	events     int
}

// joined records where the grouped command that just ran put its reply:
// from start to the end of the buffer. wrote tells whether its writes are
// in the batch; call is its run, recorded once the group commits; events
// is the length of the client's events after it.
func (p *pipelineGroup) joined(start int, wrote bool, call heldCall, events int) {
	p.replies = append(p.replies, groupReply{start, bufferedLen(p.wr), wrote, call, events})
}

func (p *pipelineGroup) active() bool { return p.g != nil && p.g.Active() }

// groupState is what a queued group leaves for its finish (finishGroup)
// besides its write: where its replies lie, the keys it made ready or
// found expired, and the client's events. An event loop sets it aside
// when it queues the group (detach), so that the connection's next
// command may open a group of its own in the same turn (a pipeline on one
// key), and brings it back to finish the group (attach).
type groupState struct {
	mark    int
	replies []groupReply
	ready   []blockKey
	expired []types.KeyFact
	events  []keyEvent
}

// detach takes the group's state out of p and c, which start empty.
func (p *pipelineGroup) detach(c *Client) groupState {
	st := groupState{p.mark, p.replies, p.ready, p.expired, c.events}
	p.replies, p.ready, p.expired, c.events = nil, nil, nil, nil
	return st
}

// attach puts a detached group's state back, its replies shift bytes
// further in the reply buffer (a failed group before it rewrote its own).
// p and c hold no other group's.
func (p *pipelineGroup) attach(c *Client, st groupState, shift int) {
	for i := range st.replies {
		st.replies[i].start += shift
		st.replies[i].end += shift
	}
	p.mark = st.mark + shift
	p.replies, p.ready, p.expired, c.events = st.replies, st.ready, st.expired, st.events
}

// groupDB returns the view of db that cmd must run on to join the
// connection's group, or nil when it runs alone. Either way, an open group
// that cmd cannot join is committed first.
func (s *Server) groupDB(c *Client, conn redcon.Conn, cmd *Command, args [][]byte, db *types.DB) *types.DB {
	p := &c.pipe
	if _, muted := conn.(mutedConn); !cmd.grouped(args) || p.wr == nil || muted {
		// A muted client (CLIENT REPLY OFF) has no replies to rewrite if
		// the group fails: it runs its commands alone.
		s.commitGroup(c, conn)
		return nil
	}
	if p.active() && p.g.Commands() >= maxGroupCommands {
		s.commitGroup(c, conn)
	}
	if p.g == nil {
		p.g = s.st.NewEarlyGroup()
	}
	pos := keyPositions(cmd, args)
	keys := make([]store.LockKey, len(pos))
	for i, at := range pos {
		keys[i] = store.LockKey{DB: db.Index(), Key: args[at]}
	}
	if p.g.Active() {
		if p.g.TryLock(keys...) {
			return p.viewOf(db)
		}
		// An earlier command of the group holds a key, or another client
		// does: write the group, then wait for the keys as the first of a
		// new one.
		s.commitGroup(c, conn)
	}
	// Even a lone command runs in a group: the group releases its locks
	// before its write lands when another command waits for them (see
	// store.NewEarlyGroup), so commands on one hot key do not queue
	// behind each other's writes.
	if c.loop == nil {
		p.g.Lock(keys...)
	} else if !p.g.TryLock(keys...) {
		c.loop.loop.land() // a loop lands its queued writes before it may wait
		p.g.Lock(keys...)
	}
	p.mark = bufferedLen(p.wr)
	return p.viewOf(db)
}

// commitGroup writes the connection's open group, if any, and then signals
// the keys its commands made ready. When the write fails, the reply of
// every command that wrote is replaced by the error; a read keeps its reply,
// which was true of the state before the group.
func (s *Server) commitGroup(c *Client, conn redcon.Conn) {
	p := &c.pipe
	if !p.active() {
		return
	}
	if c.loop != nil {
		c.loop.loop.land() // a loop lands its queued writes before it may wait
	}
	n, start := s.countGroup(p)
	s.finishWritten(c, n, start, p.g.Commit())
}

// finishWritten finishes a group written on the spot, which has released
// its locks: after the groups its event loop's connection queued earlier
// in the turn (finishConn), now that no lock is held that their blocked
// clients' wake-ups may take, so that a connection's groups finish in
// order.
func (s *Server) finishWritten(c *Client, n int, start time.Duration, err error) {
	if lc := c.loop; lc != nil && lc.waiting {
		lc.loop.finishConn(lc, c)
	}
	s.finishGroup(c, n, start, err)
}

// countGroup counts the group's commit in the statistics, and returns its
// commands and when it began.
func (s *Server) countGroup(p *pipelineGroup) (n int, start time.Duration) {
	n = p.g.Commands()
	s.stats.groupCommits.Add(1)
	s.stats.groupedCommands.Add(int64(n))
	return n, monoNow()
}

// finishGroup does what follows a group's write, which began at start and
// ended with err: it records the group's calls, and either replaces the
// replies of a failed group or publishes its events and signals the keys
// its commands made ready.
func (s *Server) finishGroup(c *Client, n int, start time.Duration, err error) {
	p := &c.pipe
	s.recordGroupCalls(c, p, monoNow()-start, err)
	s.expireFoundInGroup(p)
	if err != nil {
		text, _ := errorText(err)
		s.diskLog.Error().Err(err).Int("commands", n).Msg("write refused by the disk")
		// A group that read another client's write which then failed
		// loses its reads' replies too.
		s.rewriteReplies(p, text, errors.Is(err, store.ErrReadFailed))
		p.ready = p.ready[:0]
		s.dropEvents(c)
		return
	}
	s.publishGroupEvents(c, p)
	clear(p.replies) // their arguments are redcon's buffer
	p.replies = p.replies[:0]
	for _, bk := range p.ready {
		s.keyReady(nil, bk.db, []byte(bk.key))
	}
	clear(p.ready)
	p.ready = p.ready[:0]
}

// publishGroupEvents publishes the events of the written group command by
// command, and puts the invalidations each command's writes send its own
// client right after that command's reply, where Redis sends them, rather
// than after the reply of whatever command runs next.
func (s *Server) publishGroupEvents(c *Client, p *pipelineGroup) {
	if !c.trk.used.Load() {
		s.publishEvents(c)
		return
	}
	buf := p.wr.Buffer()
	var out []byte // a copy of buf, made once a push goes between replies
	end, from := 0, 0
	for _, r := range p.replies {
		s.publishSome(c, c.events[from:r.events])
		from = r.events
		pushes := c.takePending(nil)
		if len(pushes) == 0 {
			continue
		}
		out = append(out, buf[end:r.end]...)
		out = append(out, pushes...)
		end = r.end
	}
	s.publishSome(c, c.events[from:])
	if out != nil {
		p.wr.SetBuffer(append(out, buf[end:]...))
	}
	s.dropEvents(c)
}

// recordGroupCalls records the runs of the group's commands (observe),
// each with the commit's time, took, added: every reply waited for it, so
// the slow log and latency histograms show a slow write on every command
// it held back. A failed commit (err) fails each command whose reply
// rewriteReplies replaces.
func (s *Server) recordGroupCalls(c *Client, p *pipelineGroup, took time.Duration, err error) {
	readFailed := errors.Is(err, store.ErrReadFailed)
	for i := range p.replies {
		r := &p.replies[i]
		if r.call.st == nil {
			continue // a container without its subcommand: counted nowhere
		}
		call := r.call
		call.dur += took
		call.failed = call.failed || err != nil && (r.wrote || readFailed)
		s.record(c, call)
	}
}

// expireFoundInGroup removes the keys the group's commands found expired,
// with their expired events, now that the group holds no lock.
func (s *Server) expireFoundInGroup(p *pipelineGroup) {
	for _, f := range p.expired {
		s.eng.ExpireFound(f, true)
	}
	clear(p.expired)
	p.expired = p.expired[:0]
}

// rewriteReplies replaces, in redcon's reply buffer, the reply of each
// command of the failed group that wrote (every command's, with all) with
// the error text.
func (s *Server) rewriteReplies(p *pipelineGroup, text string, all bool) {
	buf := p.wr.Buffer()
	out := make([]byte, 0, len(buf))
	out = append(out, buf[:p.mark]...)
	end := p.mark
	for _, r := range p.replies {
		out = append(out, buf[end:r.start]...) // nothing, unless a reply came between
		if r.wrote || all {
			s.stats.countError(text)
			out = redcon.AppendError(out, sanitize(text))
		} else {
			out = append(out, buf[r.start:r.end]...)
		}
		end = r.end
	}
	out = append(out, buf[end:]...)
	p.wr.SetBuffer(out)
	clear(p.replies)
	p.replies = p.replies[:0]
}
