package server

import (
	"errors"
	"fmt"
	"net"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidwall/redcon"
	"golang.org/x/sys/unix"

	"github.com/shaledb/shale/server/resp"
	"github.com/shaledb/shale/server/store"
)

// Event loops serve the connections as Redis does (server.io_loops): each
// loop waits on epoll for many connections, reads those that sent
// something, runs their commands, and writes their replies, without a
// goroutine per connection to wake for every request.
//
// A loop must never wait for another client, or it would hold up every
// connection it serves. So it runs only the commands that touch nothing
// but the keys their rows name and never block (Grouped and NoKeyspace
// rows, of at most loopMaxArgs arguments), and those that change the
// connection's own state (HELLO, AUTH, SELECT, CLIENT SETNAME...), for a
// client in no mode that other goroutines write to or that waits (MULTI,
// subscribed, tracking, MONITOR, CLIENT REPLY, a pause, a long script).
// Before any other command, the loop hands the connection to a goroutine
// of its own, as redcon serves it, for good: its unread commands go with
// it (guardConn.out) and its client stays the same (guardConn.handoff).
// Nor may one connection's pipeline hold the others: after connTurnShare
// of its commands, the rest wait for the loop's next turn.
//
// Writes: a connection's pipeline group (pipeline.go) does not wait for
// its write on the loop. It queues its batch with its records in the
// write queue's overlay and releases its locks (store.Group.Submit); the
// loop awaits the writes of its turn at the turn's end, leading them, so
// that one RocksDB write carries the turn's groups, and only then sends
// their replies. A command on a key its connection's open group holds (a
// pipeline on one key) ends the group so, and opens a group of its own in
// the same turn, reading the queued one's records; each queued group's
// replies, events and woken keys wait aside (groupState) until the turn's
// end finishes the groups in order; a command of the connection that is
// not grouped waits for the next turn. A loop must not wait for anything
// while a write it queued is unled, since another client may wait for
// that write: before it waits for a lock or writes on its own, it lands
// its writes first (land). A turn of pipelines hands the writes it queued
// so far to the loop's lander goroutine while it serves the rest
// (loop_lander.go).
type eventLoop struct {
	s      *Server
	epfd   int
	wakefd int
	// turnStart is when the running turn began (monotonic ns), 0 between
	// turns: a loop stuck in a turn gets no new connections.
	turnStart atomic.Int64

	mu     sync.Mutex
	conns  map[int32]*loopConn // by id, the key of their epoll events
	closed []*loopConn         // closed by another goroutine, to drop
	stop   bool                // the server is closing its connections
	exited bool                // the loop has stopped: its descriptors are closed

	// Only the loop's goroutine touches what follows.
	pending []submitted // groups queued this turn, awaited at its end
	again   []*loopConn // connections with commands left once landed
	dirty   []*loopConn // connections with replies to send
	buf     []byte      // socket reads
	// The lander (loop_lander.go): pending[:launched] are landed or
	// handed to it; unlaunched counts the commands of the rest.
	launched, unlaunched int
	landing              bool    // the lander holds job
	job                  landJob // the one job, reused
	landerIn, landerOut  chan *landJob
	// storeUse holds the store for the whole turn (storeGate), the writes
	// queued in it included: a full sync's swap waits for the turn's end.
	storeUse atomic.Int64
}

// loopStats are the event loops and INFO clients' figures of them.
type loopStats struct {
	all      []*eventLoop // set before the loops serve, then only read
	count    int          // loops serving (server.io_loops)
	clients  atomic.Int64 // clients a loop serves now
	handoffs atomic.Int64 // connections handed to goroutines since start
	// landerJobs counts the runs of queued writes loops handed to their
	// landers (INFO's io_loop_lander_writes).
	landerJobs atomic.Int64
}

// submitted is a connection's group whose write the loop awaits.
type submitted struct {
	lc    *loopConn
	n     int
	start time.Duration
	wait  func() error
	err   error
	done  bool
	// state is the group's replies, ready keys and events, set aside so
	// that the connection's next group may run in the same turn.
	state    groupState
	finished bool // finishConn finished it before the turn's end
}

// loopConn is a connection an event loop serves. Its reply buffer is
// redcon's Writer, flushed through its guardConn, which sends what the
// kernel takes and queues the rest (output.go).
type loopConn struct {
	*redcon.Writer
	id    int32
	loop  *eventLoop
	g     *guardConn
	sock  *loopSocket
	addr  string
	ctx   any
	canon []byte           // what the guard let through, not yet run
	cmds  []redcon.Command // the rest of the batch running now
	rest  []redcon.Command // commands of a batch cut short, for the next turn
	perr  resp.Error       // the guard's error, replied after the good commands

	closing bool // close once its replies are sent
	waiting bool // groups it queued this turn are in flight
	// shift is how far finish has moved the replies of the connection's
	// groups not yet finished, by rewriting those of a failed one.
	shift   int
	missed  bool // epoll reported it while it waited
	eof     bool // the client closed its side: close once its commands ran
	isDirty bool
	again   bool // in the loop's again list
	gone    bool // dropped, or handed to a goroutine
}

func (lc *loopConn) RemoteAddr() string { return lc.addr }

// hasCommands reports whether lc has whole commands left to run.
func (lc *loopConn) hasCommands() bool {
	return len(lc.rest) > 0 || wholeCommands(lc.canon) > 0
}

// Close closes the connection once its replies are sent. Only the loop
// calls it (QUIT, a rejected client); others close the guardConn.
func (lc *loopConn) Close() error                   { lc.closing = true; return nil }
func (lc *loopConn) Context() any                   { return lc.ctx }
func (lc *loopConn) SetContext(v any)               { lc.ctx = v }
func (lc *loopConn) SetReadBuffer(int)              {}
func (lc *loopConn) NetConn() net.Conn              { return lc.g }
func (lc *loopConn) PeekPipeline() []redcon.Command { return lc.cmds }

// Detach is never called: the commands that detach their connection
// (MONITOR, SYNC) do not run on a loop.
func (lc *loopConn) Detach() redcon.DetachedConn {
	panic("server: Detach on an event loop's connection")
}

func (lc *loopConn) ReadPipeline() []redcon.Command {
	cmds := lc.cmds
	lc.cmds = nil
	return cmds
}

// loopCount is how many loops server.io_loops asks for.
func loopCount(n int) int {
	if n < 0 {
		return max(1, runtime.NumCPU()/2)
	}
	return n
}

// startLoops serves ln's connections from n event loops; handoff is the
// listener the goroutine side (redcon) serves the connections the loops
// hand over from. done is called once every loop has closed its
// connections and stopped.
func (s *Server) startLoops(ln net.Listener, n int, handoff *handoffListener, done func()) error {
	loops := make([]*eventLoop, n)
	for i := range loops {
		l, err := newEventLoop(s)
		if err != nil {
			for _, made := range loops[:i] {
				made.closeFDs()
			}
			return err
		}
		loops[i] = l
	}
	s.loops.all = loops
	var wg sync.WaitGroup
	for _, l := range loops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.run()
		}()
	}
	go func() {
		<-s.drained
		for _, l := range loops {
			l.mu.Lock()
			l.stop = true
			l.wakeLocked()
			l.mu.Unlock()
		}
		wg.Wait()
		done()
	}()
	go s.acceptLoops(ln, loops, handoff)
	return nil
}

// newEventLoop makes a loop's epoll and wake-up descriptors.
func newEventLoop(s *Server) (*eventLoop, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	wfd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		unix.Close(epfd)
		return nil, err
	}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, wfd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: 0}); err != nil {
		unix.Close(epfd)
		unix.Close(wfd)
		return nil, err
	}
	return &eventLoop{s: s, epfd: epfd, wakefd: wfd, conns: map[int32]*loopConn{}, buf: make([]byte, 64<<10)}, nil
}

// closeFDs closes the loop's epoll and wake-up descriptors.
func (l *eventLoop) closeFDs() {
	unix.Close(l.epfd)
	unix.Close(l.wakefd)
}

// acceptLoops hands each new connection to a loop in turn, or to a
// goroutine of its own while that loop is stuck in a turn (a script
// holding every key, say), so that a client can still come in and end it.
func (s *Server) acceptLoops(ln net.Listener, loops []*eventLoop, handoff *handoffListener) {
	var next int
	for {
		nc, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			s.log.Warn().Err(err).Msg("accept failed")
			time.Sleep(10 * time.Millisecond)
			continue
		}
		l := loops[next%len(loops)]
		next++
		tc, ok := nc.(*net.TCPConn)
		if !ok || l.stuck() {
			handoff.give(nc) // guardListener guards it
			continue
		}
		setKeepAlive(tc, s.config().Server.TCPKeepalive.Duration)
		// A descriptor of its own, outside Go's netpoller, which Close
		// takes the accepted one out of; non-blocking, as Go set it.
		fd, err := -1, error(nil)
		if raw, rerr := tc.SyscallConn(); rerr != nil {
			err = rerr
		} else if cerr := raw.Control(func(f uintptr) { fd, err = unix.Dup(int(f)) }); cerr != nil {
			err = cerr
		}
		local, remote := tc.LocalAddr(), tc.RemoteAddr()
		_ = tc.Close()
		if err != nil {
			s.log.Warn().Err(err).Msg("accept failed")
			continue
		}
		l.add(newLoopSocket(fd, local, remote))
	}
}

// stuckTurn is how long a turn may run before new connections skip its loop.
const stuckTurn = 100 * time.Millisecond

func (l *eventLoop) stuck() bool {
	t := l.turnStart.Load()
	return t != 0 && time.Duration(int64(monoNow())-t) > stuckTurn
}

var loopConnIDs atomic.Uint32

// nextLoopConnID is a connection's key in its loop's epoll events: never 0,
// the wake-up's.
func nextLoopConnID() int32 {
	for {
		if id := int32(loopConnIDs.Add(1) & 0x7fffffff); id != 0 {
			return id
		}
	}
}

// add serves the socket from the loop, once the server accepts it as a
// client.
func (l *eventLoop) add(ls *loopSocket) {
	g := newGuardConn(ls, &l.s.stats, &l.s.limits, l.s.log)
	g.raw, _ = ls.SyscallConn()
	lc := &loopConn{loop: l, g: g, sock: ls, addr: ls.remote.String(), id: nextLoopConnID()}
	ls.loop, ls.lc = l, lc
	lc.Writer = redcon.NewWriter(g)
	if !l.s.accept(lc) {
		_ = lc.Writer.Flush()
		ls.release()
		return
	}
	l.mu.Lock()
	l.conns[lc.id] = lc
	l.mu.Unlock()
	l.s.loops.clients.Add(1)
	if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, ls.fd, &unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP | unix.EPOLLET, Fd: lc.id}); err != nil {
		_ = ls.Close() // the loop drops it
	}
}

// closedElsewhere queues lc to be dropped: its socket was closed by
// another goroutine (CLIENT KILL, the idle timeout, the output limit).
func (l *eventLoop) closedElsewhere(lc *loopConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = append(l.closed, lc)
	l.wakeLocked()
}

// wake interrupts the loop's wait in epoll.
func (l *eventLoop) wake() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.wakeLocked()
}

// wakeLocked is wake with l.mu held, which keeps the loop from closing
// wakefd meanwhile.
func (l *eventLoop) wakeLocked() {
	if !l.exited {
		one := [8]byte{1}
		_, _ = unix.Write(l.wakefd, one[:])
	}
}

// loopYieldEvery is how often a loop that writes lets the runtime's other
// goroutines run (the collector's workers, timers, the expiry loop): once
// a turn that wrote has sent its replies, when no client waits for the
// loop. Each write used to yield before it was led, while every client of
// the loop waited for it (writeQueue.lead); with no yield at all, the
// others waited until the runtime preempted the loop, 10 ms on, at any
// point of a turn, and ZADD's p99 rose by a seventh. A turn that only
// read does not yield: yielding every millisecond cost GET about 5%.
// docs/BENCHMARKS.md, "Where a loop yields".
const loopYieldEvery = time.Millisecond

func (l *eventLoop) run() {
	defer func() {
		l.mu.Lock()
		l.exited = true
		l.closeFDs()
		l.mu.Unlock()
	}()
	l.landerIn, l.landerOut = make(chan *landJob, 1), make(chan *landJob, 1)
	go l.lander()
	defer close(l.landerIn)
	events := make([]unix.EpollEvent, 256)
	var again, closed []*loopConn
	var drain [8]byte
	var yielded time.Duration // when the loop last let other goroutines run
	msec := -1
	for {
		if len(l.again) > 0 {
			msec = 0
		}
		n, err := unix.EpollWait(l.epfd, events, msec)
		if n < 0 && err != unix.EINTR {
			l.s.log.Error().Err(err).Msg("epoll_wait failed")
			return
		}
		if n <= 0 && len(l.again) == 0 {
			// Nothing ready: let other goroutines run, then sleep in
			// epoll until something is.
			msec = -1
			runtime.Gosched()
			yielded = monoNow()
			continue
		}
		msec = 0
		l.turnStart.Store(int64(monoNow()))
		l.s.gate.enter(&l.storeUse)
		for i := range max(n, 0) {
			id := events[i].Fd
			if id == 0 {
				_, _ = unix.Read(l.wakefd, drain[:])
				continue
			}
			l.mu.Lock()
			lc := l.conns[id]
			l.mu.Unlock()
			if lc != nil {
				l.serve(lc, true)
				if i+1 < n {
					l.launchWrites()
				}
			}
		}
		again, l.again = l.again, again[:0]
		for i, lc := range again {
			lc.again = false
			l.serve(lc, false)
			if i+1 < len(again) {
				l.launchWrites()
			}
		}
		clear(again)
		wrote := len(l.pending) > 0
		l.land()
		l.finish()
		l.s.gate.leave(&l.storeUse)
		l.mu.Lock()
		closed, l.closed = l.closed, closed[:0]
		stop := l.stop
		l.mu.Unlock()
		for _, lc := range closed {
			l.drop(lc)
		}
		clear(closed)
		l.flush()
		l.turnStart.Store(0)
		if wrote && monoNow()-yielded >= loopYieldEvery {
			runtime.Gosched()
			yielded = monoNow()
		}
		if stop {
			l.closeAll()
			return
		}
	}
}

// serve reads what lc sent (when read is set, or epoll reported it while
// it waited) and runs its commands, until one of its groups waits for its
// write.
func (l *eventLoop) serve(lc *loopConn, read bool) {
	if lc.gone {
		return
	}
	// A command's panic costs its connection only (dispatchSafely); one
	// in the loop's own work must not cost the server either.
	defer func() {
		if r := recover(); r != nil {
			l.s.log.Error().Str("panic", fmt.Sprint(r)).Str("stack", string(debug.Stack())).Msg("event loop: panic while serving a connection; closing it")
			lc.closing = true
		}
	}()
	if lc.waiting {
		lc.missed = true // epoll is edge-triggered: read it once landed
		return
	}
	if lc.missed {
		lc.missed, read = false, true
	}
	l.markDirty(lc)
	if read && !lc.closing && !lc.eof && lc.perr == "" {
		l.read(lc)
	}
	start := monoNow()
	yielded := false
	for !lc.waiting && !lc.closing && !lc.gone && !yielded {
		cmds := lc.rest
		lc.rest = nil
		if len(cmds) == 0 {
			n := wholeCommands(lc.canon)
			if n == 0 {
				break
			}
			// A batch of its own for each read: the commands' arguments
			// may outlive their run (events, the slow log), as with redcon.
			batch := append([]byte(nil), lc.canon[:n]...)
			lc.canon = append(lc.canon[:0], lc.canon[n:]...)
			cmds = splitCommands(batch, lc.cmds[:0])
		}
		for i, cmd := range cmds {
			c, _ := lc.ctx.(*Client)
			if c == nil {
				return
			}
			row, ok := l.s.loopCommand(c, cmd.Args)
			if lc.waiting && (!ok || row == nil || !row.grouped(cmd.Args)) {
				// The connection has groups queued this turn: only
				// grouped commands follow them before they land and
				// finish; the others wait for the next turn, and the
				// open group is queued too.
				l.endBatch(lc, c)
				lc.rest = cmds[i:]
				yielded = true
				break
			}
			if !ok {
				l.handOff(lc, c, cmds[i:])
				return
			}
			if l.s.keyInOpenGroup(c, row, cmd.Args) {
				// The command would end the open group on the spot, with
				// a write the loop waits for (a pipeline on one key): end
				// the group as a batch's end does, queued with the turn's
				// other writes, and run the command in a group of its
				// own, which reads the queued one's records (overlay.go).
				l.endBatch(lc, c)
			}
			lc.cmds = cmds[i+1:]
			l.s.handle(lc, cmd)
			if lc.closing || lc.gone {
				break
			}
			if i+1 < len(cmds) && monoNow()-start > connTurnShare {
				// Its share of the turn is spent: its batch ends here, as
				// if the rest had not come yet, and the rest waits for
				// the next turn.
				l.endBatch(lc, c)
				lc.rest = cmds[i+1:]
				yielded = true
				break
			}
		}
		lc.cmds = cmds[:0]
		if !yielded && monoNow()-start > connTurnShare && lc.hasCommands() {
			yielded = true
		}
	}
	if yielded && !lc.closing && !lc.gone && !lc.waiting {
		l.serveAgain(lc)
	}
	if lc.eof && !lc.waiting && !lc.hasCommands() {
		lc.closing = true
	}
	if lc.perr != "" && !lc.waiting && !lc.gone && !lc.hasCommands() {
		// The commands before the protocol error have run: now its reply,
		// and the connection closes, as guardConn.Read does.
		if lc.perr == resp.ErrQueryBuffer {
			l.s.log.Warn().Str("addr", lc.addr).Int64("limit", lc.g.guard.Current().QueryBuffer).
				Msg("client closed: it reached the query buffer limit")
		} else {
			lc.WriteError(string(lc.perr))
		}
		lc.closing = true
	}
}

// endBatch ends lc's running batch here, as if the rest had not come yet:
// its open group is settled as at a batch's end.
func (l *eventLoop) endBatch(lc *loopConn, c *Client) {
	lc.cmds = nil
	l.s.settleGroup(c, lc)
}

// connTurnShare is how long one connection's commands may run in a turn
// before the loop serves the others and sends the turn's replies: a client
// pipelining thousands of commands would otherwise hold every other
// connection of its loop for the whole pipeline. A variable for the tests.
var connTurnShare = time.Millisecond

// read reads what the socket holds and passes it through the guard.
func (l *eventLoop) read(lc *loopConn) {
	for {
		n, err := unix.Read(lc.sock.fd, l.buf)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return
		case err != nil || n == 0:
			lc.eof = true // the client went away: what it sent still runs
			return
		}
		l.s.stats.netIn.Add(int64(n))
		lc.canon, lc.perr = lc.g.guard.Feed(l.buf[:n], lc.canon)
		if lc.perr != "" || n < len(l.buf) {
			return
		}
	}
}

// wholeCommands is the length of the complete commands at the start of
// canon, the guard's canonical multibulk form (*N, then N bulks).
func wholeCommands(canon []byte) int {
	done, i := 0, 0
	for i < len(canon) {
		n, next, ok := canonLine(canon, i, '*')
		if !ok {
			return done
		}
		i = next
		for range n {
			size, next, ok := canonLine(canon, i, '$')
			if !ok || next+size+2 > len(canon) {
				return done
			}
			i = next + size + 2
		}
		done = i
	}
	return done
}

// splitCommands appends to cmds the commands of batch, whole commands in
// the guard's canonical form; their Raw and Args are slices of batch.
func splitCommands(batch []byte, cmds []redcon.Command) []redcon.Command {
	for i := 0; i < len(batch); {
		start := i
		n, next, _ := canonLine(batch, i, '*')
		i = next
		args := make([][]byte, n)
		for j := range args {
			size, next, _ := canonLine(batch, i, '$')
			args[j] = batch[next : next+size : next+size]
			i = next + size + 2
		}
		cmds = append(cmds, redcon.Command{Raw: batch[start:i:i], Args: args})
	}
	return cmds
}

// canonLine reads the "<kind><number>\r\n" line at canon[i:].
func canonLine(canon []byte, i int, kind byte) (n, next int, ok bool) {
	if i >= len(canon) || canon[i] != kind {
		return 0, 0, false
	}
	for j := i + 1; j < len(canon); j++ {
		c := canon[j]
		if c == '\r' {
			if j+1 >= len(canon) {
				return 0, 0, false
			}
			return n, j + 2, true
		}
		if c < '0' || c > '9' || n > 1<<40 {
			return 0, 0, false // not the guard's form: never whole
		}
		n = n*10 + int(c-'0')
	}
	return 0, 0, false
}

// loopMaxArgs is the most arguments a command run on a loop has. A bigger
// one (HSET of 1000 fields, MSET of 1000 keys) may take milliseconds of
// reads and a big write, and hold up every connection of the loop: its
// connection goes to a goroutine, as a bulk loader's should.
const loopMaxArgs = 128

// loopCommand reports whether the loop may run args for c (see
// eventLoop), and returns the command's row (nil for an unknown command).
func (s *Server) loopCommand(c *Client, args [][]byte) (*Command, bool) {
	if c.txn.active || c.subscribed() || c.trk.used.Load() || c.isMonitor() ||
		replyMode(c.replyMode.Load()) != replyOn || s.pause.active.Load() ||
		s.scriptRunning.started.Load() != 0 {
		return nil, false
	}
	cmd := s.table.lookup(args[0])
	if cmd == nil {
		return nil, true // its error reply
	}
	if cmd.Flags&Blocking != 0 || len(args) > loopMaxArgs {
		return cmd, false
	}
	if cmd.Flags&NoKeyspace != 0 || cmd.grouped(args) {
		return cmd, true
	}
	switch cmd.Name {
	case "hello", "auth", "select":
		return cmd, true
	case "client":
		if len(args) < 2 {
			return cmd, true // its arity error
		}
		switch lower(args[1]) {
		case "setname", "getname", "id", "setinfo", "info":
			return cmd, true
		}
	}
	return cmd, false
}

// keyInOpenGroup reports whether cmd names a key whose lock c's open
// pipeline group holds: it cannot join the group, which ends before it.
func (s *Server) keyInOpenGroup(c *Client, cmd *Command, args [][]byte) bool {
	p := &c.pipe
	if cmd == nil || !cmd.grouped(args) || !p.active() || p.base == nil || !cmd.arityOK(len(args)) {
		return false
	}
	db := p.base.Index()
	for _, at := range keyPositions(cmd, args) {
		if p.g.Holds(store.LockKey{DB: db, Key: args[at]}) {
			return true
		}
	}
	return false
}

// submit queues the connection's open group for the turn's end.
func (lc *loopConn) submit(s *Server, c *Client) {
	p := &c.pipe
	n, start := s.countGroup(p)
	wait, done := p.g.Submit(lc.loop.land)
	if done {
		s.finishWritten(c, n, start, wait())
		return
	}
	lc.waiting = true
	lc.loop.pending = append(lc.loop.pending, submitted{lc: lc, n: n, start: start, wait: wait, state: p.detach(c)})
	lc.loop.unlaunched += n
}

// land awaits the writes the loop queued, leading them. Their groups are
// finished at the turn's end (finish): signalling the keys they made
// ready may take locks, which the group of the command running now may
// hold.
func (l *eventLoop) land() {
	l.collect(true)
	for i := range l.pending {
		if g := &l.pending[i]; !g.done {
			g.err, g.done = g.wait(), true
		}
	}
	l.launched, l.unlaunched = len(l.pending), 0
}

// finish finishes the landed groups, whose replies may now be sent.
func (l *eventLoop) finish() {
	for i := range l.pending {
		g := &l.pending[i]
		if c, _ := g.lc.ctx.(*Client); c != nil && !g.finished {
			l.finishOne(g, c)
		}
		g.lc.waiting = false
		l.markDirty(g.lc)
		if g.lc.missed || g.lc.eof || g.lc.hasCommands() {
			l.serveAgain(g.lc)
		}
	}
	for i := range l.pending {
		l.pending[i].lc.shift = 0
	}
	clear(l.pending)
	l.pending = l.pending[:0]
	l.launched, l.unlaunched = 0, 0
}

// finishOne finishes a landed group of client c: its state comes back
// into c's pipeline, shifted by what the connection's earlier groups'
// rewrites moved.
func (l *eventLoop) finishOne(g *submitted, c *Client) {
	p := &c.pipe
	p.attach(c, g.state, g.lc.shift)
	before := bufferedLen(p.wr)
	l.s.finishGroup(c, g.n, g.start, g.err)
	g.lc.shift += bufferedLen(p.wr) - before
	g.finished = true
}

// finishConn finishes lc's landed groups now, in the order they queued,
// before the group c just wrote on the spot finishes (finishWritten). The
// loop has landed (land) and holds no lock.
func (l *eventLoop) finishConn(lc *loopConn, c *Client) {
	p := &c.pipe
	shift := lc.shift
	open := p.detach(c)
	for i := range l.pending {
		if g := &l.pending[i]; g.lc == lc && !g.finished {
			l.finishOne(g, c)
		}
	}
	p.attach(c, open, lc.shift-shift)
}

// serveAgain has the next turn serve lc, without waiting for its socket.
func (l *eventLoop) serveAgain(lc *loopConn) {
	if !lc.again {
		lc.again = true
		l.again = append(l.again, lc)
	}
}

func (l *eventLoop) markDirty(lc *loopConn) {
	if !lc.isDirty {
		lc.isDirty = true
		l.dirty = append(l.dirty, lc)
	}
}

// flush sends the replies of the turn and closes what was to close.
func (l *eventLoop) flush() {
	for _, lc := range l.dirty {
		lc.isDirty = false
		if lc.gone || lc.waiting {
			continue // its replies wait for its write
		}
		if err := lc.Writer.Flush(); err != nil {
			lc.closing = true
		}
		if lc.closing {
			l.drop(lc)
		}
	}
	clear(l.dirty)
	l.dirty = l.dirty[:0]
}

// drop forgets lc: its client ends and its socket closes, once the
// replies it owes have gone.
func (l *eventLoop) drop(lc *loopConn) {
	if lc.gone {
		return
	}
	if lc.waiting {
		lc.closing = true // after its write lands
		return
	}
	l.forget(lc)
	l.s.loops.clients.Add(-1)
	_ = lc.Writer.Flush()
	l.s.closed(lc, nil)
	_ = lc.g.Close()
	lc.sock.release()
}

// forget takes lc out of the loop.
func (l *eventLoop) forget(lc *loopConn) {
	lc.gone = true
	_ = unix.EpollCtl(l.epfd, unix.EPOLL_CTL_DEL, lc.sock.fd, nil)
	l.mu.Lock()
	delete(l.conns, lc.id)
	l.mu.Unlock()
}

// handOff gives lc to a goroutine of its own before cmds, which it has
// not run: its group is written and its replies sent first, its socket
// goes back to Go's netpoller, and the goroutine reads cmds, then the rest
// of what the client sent.
func (l *eventLoop) handOff(lc *loopConn, c *Client, cmds []redcon.Command) {
	l.s.commitGroup(c, lc)
	rest := unrun(cmds, lc.canon)
	lc.canon, lc.cmds = nil, nil
	_ = lc.Writer.Flush()
	l.forget(lc)
	l.s.loops.clients.Add(-1)
	if err := lc.sock.toNetpoller(); err != nil {
		l.s.log.Warn().Err(err).Str("addr", lc.addr).Msg("event loop: cannot hand the connection over; closing it")
		l.s.closed(lc, nil)
		_ = lc.g.Close()
		lc.sock.release()
		return
	}
	l.s.loops.handoffs.Add(1)
	lc.sock.release()
	g := lc.g
	g.out, g.pending = rest, lc.perr
	g.handoff = c
	c.loop = nil
	l.s.handoff.give(g)
}

// unrun is the raw form of cmds, then canon: what a connection handed to a
// goroutine has sent and not run.
func unrun(cmds []redcon.Command, canon []byte) []byte {
	var size int
	for _, cmd := range cmds {
		size += len(cmd.Raw)
	}
	out := make([]byte, 0, size+len(canon))
	for _, cmd := range cmds {
		out = append(out, cmd.Raw...)
	}
	return append(out, canon...)
}

// closeAll ends every connection of the loop, at shutdown.
func (l *eventLoop) closeAll() {
	l.mu.Lock()
	conns := make([]*loopConn, 0, len(l.conns))
	for _, lc := range l.conns {
		conns = append(conns, lc)
	}
	l.mu.Unlock()
	for _, lc := range conns {
		l.drop(lc)
	}
}

// handoffListener is what redcon serves on when event loops accept the
// connections: the connections the loops hand over.
type handoffListener struct {
	addr   net.Addr
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

func newHandoffListener(addr net.Addr) *handoffListener {
	return &handoffListener{addr: addr, conns: make(chan net.Conn), closed: make(chan struct{})}
}

func (h *handoffListener) give(c net.Conn) {
	select {
	case h.conns <- c:
	case <-h.closed:
		_ = c.Close()
	}
}

func (h *handoffListener) Accept() (net.Conn, error) {
	select {
	case c := <-h.conns:
		return c, nil
	case <-h.closed:
		return nil, net.ErrClosed
	}
}

func (h *handoffListener) Close() error {
	h.once.Do(func() { close(h.closed) })
	return nil
}

func (h *handoffListener) Addr() net.Addr { return h.addr }
