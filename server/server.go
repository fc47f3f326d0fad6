package server

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
	"github.com/tidwall/redcon"

	"github.com/shaledb/shale/conf"
	"github.com/shaledb/shale/server/store"
	"github.com/shaledb/shale/server/types"
)

// Version is the server version INFO and HELLO report.
const Version = "0.1.0"

// redisVersion is the Redis version whose behaviour Shale follows; clients
// that gate features on INFO's redis_version read it.
const redisVersion = "7.0.15"

// Server is a running Shale server: store, engine and listener.
type Server struct {
	log   zerolog.Logger
	st    *store.Store
	eng   *types.Engine
	table commandTable
	rs    *redcon.Server
	ln    net.Listener
	// handoff passes the connections event loops hand over to redcon
	// (loop.go); nil without loops.
	handoff *handoffListener
	loops   loopStats

	mu         sync.Mutex // guards cfg's runtime-settable fields and clients
	cfg        conf.Config
	configFile string     // INFO's config_file, "" = none; guarded by mu (SetConfigFile)
	configMu   sync.Mutex // serializes CONFIG SET; taken before mu, never while holding it

	clients       map[int64]*Client
	nextID        atomic.Int64
	started       time.Time
	stats         serverStats
	shutdown      chan struct{}
	stopOnce      sync.Once
	closeOnce     sync.Once
	serveDone     chan struct{}
	shutdownMu    sync.Mutex
	blocking      blockRegistry              // clients parked in BLPOP and the like (blocking.go)
	pause         pauser                     // CLIENT PAUSE (pause.go)
	backup        backups                    // BGSAVE (backup.go)
	slowlog       slowlog                    // SLOWLOG (slowlog.go)
	latency       latencyMonitor             // LATENCY (latency.go)
	access        accessClock                // OBJECT IDLETIME's clock (access.go)
	monitors      monitorSet                 // MONITOR clients (monitor.go)
	watches       watchRegistry              // WATCHed keys (multi.go)
	scripts       scriptCache                // EVAL's and SCRIPT LOAD's scripts (script.go)
	scriptRunning runningScript              // the script running now (script.go)
	functions     functionLibs               // FUNCTION's libraries (function.go)
	notify        atomic.Uint32              // notify-keyspace-events, a notifyClass (notify.go)
	pubsub        pubsubHub                  // subscriptions (pubsub.go)
	tracking      trackingTable              // CLIENT TRACKING's keys and prefixes (tracking.go)
	metrics       *metricsServer             // /metrics, nil when metrics.addr is "" (metrics.go)
	statsStop     chan struct{}              // ends the ops sampler
	limits        atomic.Pointer[connLimits] // protocol and buffer limits (guard_conn.go)
	minReplicas   atomic.Int64               // replication.min_replicas_to_write, which every write checks (writeRefusal) without cfg's lock
	diskLog       zerolog.Logger             // log, at most one line a second: a broken disk fails every write

	// Shutdown: closing stops new commands from running; inflight counts
	// the ones running; drained lets the listener's Accept fail, after which
	// redcon closes every connection; sweepStop ends closeIdle.
	closing   atomic.Bool
	inflight  atomic.Int64
	gate      storeGate   // held back while a full sync swaps the store's files
	repl      replication // replication.go
	drained   chan struct{}
	sweepStop chan struct{}
}

// Start opens the store in cfg.Storage.Dir, starts active expiry and serves
// RESP on cfg's address (port 0 picks a free port; see Addr).
func Start(cfg conf.Config, log zerolog.Logger) (*Server, error) {
	st, err := store.Open(cfg, log)
	if err != nil {
		return nil, err
	}
	eng := types.New(st, log)
	ln, err := net.Listen("tcp", cfg.Addr())
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("server: listen %s: %w", cfg.Addr(), err)
	}
	s := &Server{
		log:       log.With().Str("component", "server").Logger(),
		diskLog:   log.With().Str("component", "server").Logger().Sample(&zerolog.BurstSampler{Burst: 1, Period: time.Second}),
		st:        st,
		eng:       eng,
		table:     buildTable(allCommands()),
		ln:        ln,
		cfg:       cfg,
		clients:   make(map[int64]*Client),
		started:   time.Now(),
		shutdown:  make(chan struct{}),
		serveDone: make(chan struct{}),
		drained:   make(chan struct{}),
		sweepStop: make(chan struct{}),
	}
	s.backup.lastSave, s.backup.lastOK = s.started, true
	s.blocking.init()
	s.initStats()
	s.setLimits(cfg.Server)
	eng.SetEncodingLimits(encodingLimits(cfg.Encoding))
	s.slowlog.init(cfg.Server.SlowlogLogSlowerThan, cfg.Server.SlowlogMaxLen, s.log)
	s.latency.init(cfg.Server.LatencyMonitorThresholdMs)
	s.access.init(eng.Databases())
	s.setNotify(cfg.Server.NotifyKeyspaceEvents)
	s.tracking.maxKeys.Store(cfg.Server.TrackingTableMaxKeys)
	s.minReplicas.Store(int64(cfg.Replication.MinReplicasToWrite))
	if err := s.loadFunctions(); err != nil {
		ln.Close()
		st.Close()
		return nil, err
	}
	eng.OnExpired(s.keyExpired)
	eng.OnExpireCycle(func(took time.Duration) { s.latency.observe(latencyExpireCycle, took) })
	s.statsStop = make(chan struct{})
	go s.stats.runSampler(s.statsStop)
	if a := cfg.Metrics.ListenAddr(); a != "" {
		if s.metrics, err = s.startMetrics(a, cfg.Metrics.Pprof); err != nil {
			close(s.statsStop)
			ln.Close()
			st.Close()
			return nil, err
		}
	}
	s.rs = redcon.NewServerNetwork("tcp", ln.Addr().String(), s.handle, s.accept, s.closed)
	if err := s.initReplication(cfg); err != nil {
		close(s.statsStop)
		ln.Close()
		st.Close()
		return nil, err
	}
	eng.Start()
	// Before the first client is served, so that it is the first thing an
	// operator sees.
	if cfg.Server.RequirePass == "" && !isLoopback(cfg.Server.Bind) {
		s.log.Warn().Str("bind", cfg.Server.Bind).
			Msg("WARNING: no requirepass is set and the server listens on a non-loopback address: " +
				"anyone who can reach this port can read, change and delete every key. " +
				"Set server.requirepass, or bind to 127.0.0.1")
	}
	go s.closeIdle(s.sweepStop)
	// redcon serves every connection from a goroutine of its own, or, with
	// event loops, those the loops hand over (loop.go).
	var serving sync.WaitGroup
	served := net.Listener(ln)
	if n := loopCount(cfg.Server.IOLoops); n > 0 {
		s.loops.count = n
		s.handoff = newHandoffListener(ln.Addr())
		served = s.handoff
		serving.Add(1)
		if err := s.startLoops(ln, n, s.handoff, serving.Done); err != nil {
			close(s.statsStop)
			close(s.sweepStop)
			ln.Close()
			st.Close()
			return nil, fmt.Errorf("server: event loops: %w", err)
		}
	}
	serving.Add(1)
	go func() {
		defer serving.Done()
		if err := s.rs.Serve(guardListener{Listener: served, drained: s.drained, stats: &s.stats, limits: &s.limits, log: s.log}); err != nil && !errors.Is(err, net.ErrClosed) {
			s.log.Error().Err(err).Msg("serve failed")
		}
	}()
	go func() {
		serving.Wait()
		close(s.serveDone)
	}()
	s.log.Info().Str("addr", ln.Addr().String()).Str("version", Version).Dict("config", configDict(&cfg)).Msg("listening")
	return s, nil
}

// isLoopback reports whether bind (an IP address or a host name) only
// listens on the loopback interface. "localhost" counts; an empty or
// unspecified address ("0.0.0.0", "::") and any other name do not.
func isLoopback(bind string) bool {
	if bind == "localhost" {
		return true
	}
	ip := net.ParseIP(bind)
	return ip != nil && ip.IsLoopback()
}

// setLimits makes the [server] section's protocol and buffer limits current.
func (s *Server) setLimits(c conf.Server) {
	s.limits.Store(limitsOf(c))
	s.eng.SetMaxStringBytes(int64(c.ProtoMaxBulkLen))
}

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// ShutdownRequested is closed when a client sends SHUTDOWN.
func (s *Server) ShutdownRequested() <-chan struct{} { return s.shutdown }

// shutdownGrace bounds the wait for running commands at shutdown.
const shutdownGrace = 10 * time.Second

// Close shuts down in order: stop accepting; run no new command; wake
// blocked and paused clients; let the commands under way finish and send
// their replies; close every connection; stop background work, wait for a
// checkpoint under way, and close the store, which flushes the memtables.
func (s *Server) Close() error {
	var err error
	s.closeOnce.Do(func() {
		// redcon closes the listener it serves, but only once Serve has
		// begun; close both ourselves for a server closed straight away.
		s.rs.Close()
		s.ln.Close()
		if s.handoff != nil {
			s.handoff.Close()
		}
		s.closing.Store(true)
		s.log.Info().Msg("shutdown: stopped accepting connections")
		s.blocking.close()
		s.stopReplication()
		s.pause.close()
		s.monitors.close()
		s.st.CancelManualCompactions() // a COMPACT under way returns now
		s.scriptRunning.stopForShutdown()
		deadline := time.Now().Add(shutdownGrace)
		for s.inflight.Load() > 0 && time.Now().Before(deadline) {
			time.Sleep(2 * time.Millisecond)
		}
		if n := s.inflight.Load(); n > 0 {
			s.log.Warn().Int64("commands", n).Msg("shutdown: commands still running; closing their connections")
		} else {
			s.log.Info().Msg("shutdown: in-flight commands finished")
		}
		close(s.drained)
		<-s.serveDone
		close(s.sweepStop)
		if s.metrics != nil {
			s.metrics.close()
		}
		close(s.statsStop)
		s.log.Info().Msg("shutdown: client connections closed")
		// The world lock waits for any keyed command still running.
		unlock := s.st.LockWorld()
		unlock()
		s.eng.Stop()
		s.backup.wg.Wait()
		err = s.st.Close()
		s.log.Info().Msg("server stopped")
	})
	return err
}

func (s *Server) accept(conn redcon.Conn) bool {
	if g, ok := conn.NetConn().(*guardConn); ok && g.handoff != nil {
		s.adopt(conn, g)
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.clients) >= s.cfg.Server.MaxClients {
		s.stats.rejected.Add(1)
		Reply{conn: conn}.Error(string(errMaxClients))
		return false
	}
	db, _ := s.eng.DB(0)
	c := &Client{
		ID:      s.nextID.Add(1),
		conn:    conn,
		addr:    conn.RemoteAddr(),
		laddr:   s.ln.Addr().String(),
		created: time.Now(),
		authed:  s.cfg.Server.RequirePass == "",
	}
	c.netConn = conn.NetConn()
	c.setDB(db)
	c.txn.queuedCount.Store(-1)
	c.lastActive.Store(c.created.UnixMilli())
	if nc := conn.NetConn(); nc != nil {
		setKeepAlive(nc, s.cfg.Server.TCPKeepalive.Duration)
		c.laddr = nc.LocalAddr().String()
		if g, ok := nc.(*guardConn); ok {
			g.guard.NeedsAuth = func() bool { return !c.isAuthed() }
			c.out = &replyCounter{Conn: conn, g: g}
		}
	}
	s.clients[c.ID] = c
	c.pipe.wr = redcon.BaseWriter(conn)
	if lc, ok := conn.(*loopConn); ok {
		c.loop, c.pipe.wr = lc, lc.Writer
	}
	conn.SetContext(c)
	s.stats.connections.Add(1)
	return true
}

// adopt makes conn, the goroutine side's connection for a socket an event
// loop handed over (loop.go), the connection of the loop's client.
func (s *Server) adopt(conn redcon.Conn, g *guardConn) {
	c := g.handoff
	g.handoff = nil
	s.mu.Lock()
	c.conn = conn
	s.mu.Unlock()
	c.loop = nil
	c.out = &replyCounter{Conn: conn, g: g}
	c.pipe.wr = redcon.BaseWriter(conn)
	conn.SetContext(c)
}

func (s *Server) closed(conn redcon.Conn, err error) {
	c, ok := conn.Context().(*Client)
	if !ok {
		return
	}
	if c.isMonitor() {
		return // detached: the monitor drops it when it ends
	}
	s.dropClient(c)
}

// dropClient forgets a client whose connection ended.
func (s *Server) dropClient(c *Client) {
	s.watches.unwatchAll(c)
	s.unsubscribeAll(c)
	s.trackingOff(c)
	s.mu.Lock()
	delete(s.clients, c.ID)
	s.mu.Unlock()
}

// requirePass returns the current password ("" = none).
func (s *Server) requirePass() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg.Server.RequirePass
}

// handle is the dispatcher: lookup, auth, arity, pause, run, error mapping.
func (s *Server) handle(conn redcon.Conn, rc redcon.Command) {
	c, ok := conn.Context().(*Client)
	if !ok || len(rc.Args) == 0 {
		return
	}
	s.inflight.Add(1)
	defer s.inflight.Add(-1)
	s.gate.enter(&c.storeUse)
	defer s.gate.leave(&c.storeUse)
	defer c.runAfterCommand()
	// Invalidations held back while the batch ran follow its replies
	// (tracking.go), once the group below is written.
	if c.trk.used.Load() {
		c.trackingEnter()
	}
	defer s.trackingLeave(c, conn, rc.Args)
	// Last of all: a group open at the end of redcon's batch, or left by a
	// command cut short, is written before the replies can leave.
	defer s.settleGroup(c, conn)
	if s.closing.Load() {
		return // shutting down: the connection closes without a reply
	}
	var out redcon.Conn = conn
	if c.out != nil {
		if c.out.g.cut.Load() {
			return // cut off for its output: the rest of its pipeline is dropped
		}
		out = c.out
		defer c.out.g.checkOutputLimit()
	}
	c.inCmd.Add(1)
	defer c.inCmd.Add(-1)
	mode := replyMode(c.replyMode.Load())
	if mode != replyOn {
		out = mutedConn{out}
	}
	s.dispatchSafely(c, out, rc.Args)
	if mode == replySkip && !c.skipSetNow {
		c.replyMode.CompareAndSwap(int32(replySkip), int32(replyOn))
	}
	c.skipSetNow = false
	switch {
	case c.closeAfterReply:
		// The replies of a pipeline group may leave only once it is written.
		s.commitGroup(c, conn)
		conn.Close() // flushes the reply first
	case s.closing.Load():
		// Close waits for this command, then closes the connection: send
		// the reply now.
		if wr := redcon.BaseWriter(conn); wr != nil {
			_ = wr.Flush()
		}
	}
}

func (s *Server) dispatch(c *Client, conn redcon.Conn, args [][]byte) {
	c.lastActive.Store(unixMilliAt(monoNow()))
	cmd := s.table.lookup(args[0])
	if cmd == nil {
		c.flagTransaction()
		s.replyError(conn, errUnknownCommand(args))
		return
	}
	name := cmd.Name
	c.setLastCmd(name)
	// Redis's order: unknown command, then arity (the subcommand's too),
	// then DEBUG's switch, then authentication.
	if !cmd.arityOK(len(args)) {
		s.rejectCommand(c, conn, cmd, errWrongArity(cmd.Name))
		return
	}
	run, shape, shapeName, sub := cmd.Run, cmd.Shape, name, -1
	if cmd.Subcommands != nil && len(args) > 1 {
		sub = cmd.subcommandIndex(args)
		switch {
		case sub >= 0 && arityFits(cmd.Subcommands[sub].Arity, len(args)):
			sc := &cmd.Subcommands[sub]
			run, shape = sc.Run, sc.Shape
			if shape != (Shape{}) {
				shapeName = cmd.Name + "|" + sc.Name
			}
		case cmd.PrivateSubcommands:
			// Redis runs DEBUG, which fails: after authentication, and
			// counted as a failed call.
			run = failWith(cmd.subcommandError(args, sub))
		default:
			if sub >= 0 && cmd.stats != nil {
				// A known subcommand with the wrong arity is a rejected
				// call of it, in INFO commandstats as in Redis.
				cmd.stats.subs[sub].rejected.Add(1)
			}
			c.flagTransaction()
			s.replyError(conn, cmd.subcommandError(args, sub))
			return
		}
	}
	if name == "debug" && !s.config().Server.EnableDebugCommand {
		s.rejectCommand(c, conn, cmd, errDebugDisabled)
		return
	}
	if !c.isAuthed() && cmd.Flags&NoAuth == 0 {
		s.rejectCommand(c, conn, cmd, errNoAuth)
		return
	}
	if flags := cmd.flagsOf(sub); flags&Write != 0 {
		if err := s.writeRefusal(); err != "" {
			s.rejectCommand(c, conn, cmd, err)
			return
		}
	}
	if err := subscribedModeError(c, cmd, sub); err != "" {
		s.rejectCommand(c, conn, cmd, err)
		return
	}
	if s.scriptRunning.started.Load() != 0 && s.busyRefuses(cmd, sub) {
		s.rejectCommand(c, conn, cmd, s.scriptRunning.busyError())
		return
	}
	if err := shape.check(shapeName, args); err != "" {
		run = failWith(err)
	}
	if c.txn.active && !runsDuringMulti(cmd) {
		s.queueCommand(c, conn, cmd, sub, run, args)
		return
	}
	if sub >= 0 && !cmd.PrivateSubcommands {
		// CLIENT LIST shows "container|sub", as in Redis.
		c.setLastCmd(cmd.stats.subs[sub].name)
	}
	if s.pause.active.Load() {
		s.commitGroup(c, conn) // never wait with the group's locks held
		// The replies of the commands pipelined before this one go out
		// now, as Redis sends them before it parks the client.
		if c.pipe.wr != nil {
			_ = c.pipe.wr.Flush()
		}
		c.blocked.Store(true)
		s.pause.wait(mayWrite(c, cmd))
		c.blocked.Store(false)
	}
	ctx := &c.ctx
	*ctx = Ctx{Conn: conn, Srv: s, Client: c, DB: c.currentDB(), resp3: c.resp3.Load()}
	grouped := s.groupDB(c, conn, cmd, args, ctx.DB)
	var replyStart, writesBefore int
	if grouped != nil {
		ctx.DB, ctx.grouped = grouped, true
		replyStart, writesBefore = bufferedLen(c.pipe.wr), c.pipe.g.Writes()
	}
	s.call(ctx, cmd, sub, run, args)
	if grouped != nil {
		c.pipe.joined(replyStart, c.pipe.g.Writes() > writesBefore, ctx.held, len(c.events))
	}
}

// call runs a command's handler (run: the command's, its subcommand's, or
// the failure the dispatcher found), records it, and replies its error:
// for the dispatcher, and for EXEC, once per queued command. A write to a
// watched key marks the key's watchers (multi.go).
func (s *Server) call(ctx *Ctx, cmd *Command, sub int, run func(*Ctx, [][]byte) error, args [][]byte) {
	c := ctx.Client
	ctx.cmd, ctx.args = cmd, args
	s.beginWatchedWrite(ctx)
	defer s.abandonWatchedWrite(ctx) // a command that panics keeps no claim
	s.beginEvents(ctx)
	s.trackReads(ctx)
	start := monoNow()
	err := run(ctx, args)
	end := monoNow()
	s.endWatchedWrite(ctx)
	s.endEvents(ctx)
	c.lastActive.Store(unixMilliAt(end))
	s.observe(ctx, cmd, sub, args, end-start, err)
	s.access.touchKeys(cmd, args, ctx.DB.Index(), end)
	if err != nil {
		text, known := errorText(err)
		switch {
		case !known:
			s.log.Error().Err(err).Str("cmd", cmd.Name).Msg("command failed")
		case errors.Is(err, store.ErrWrite):
			s.diskLog.Error().Err(err).Str("cmd", cmd.Name).Msg("write refused by the disk")
		}
		s.replyError(ctx.Conn, replyError(text))
	}
}

// failWith is the handler of a call the dispatcher found wrong after
// authentication: it runs, fails with err, and counts as a failed call.
func failWith(err replyError) func(*Ctx, [][]byte) error {
	return func(*Ctx, [][]byte) error { return err }
}

// settleGroup commits the connection's open group unless more commands of
// redcon's batch follow that may join it.
func (s *Server) settleGroup(c *Client, conn redcon.Conn) {
	if !c.pipe.active() {
		return
	}
	if len(conn.PeekPipeline()) > 0 && !s.closing.Load() && (c.out == nil || !c.out.g.cut.Load()) {
		return
	}
	if c.loop != nil && !s.closing.Load() {
		c.loop.submit(s, c)
		return
	}
	s.commitGroup(c, conn)
}

// replyError replies err on conn, the dispatcher's connection (handlers
// return their errors to it), and counts it for INFO errorstats.
func (s *Server) replyError(conn redcon.Conn, err replyError) {
	s.stats.countError(string(err))
	Reply{conn: conn}.Error(sanitize(string(err)))
}

// Ctx is what a handler needs: the connection to reply on, the server, the
// client's state and its selected database.
type Ctx struct {
	Conn   redcon.Conn
	Srv    *Server
	Client *Client
	DB     *types.DB

	blocked time.Duration // time spent waiting in blockOn, left out of the command's latency
	resp3   bool          // reply in RESP3 (Reply): the client's HELLO, or a script's redis.setresp

	// grouped: the command runs in the connection's pipeline group, and
	// observe leaves its record in held for the group's commit.
	grouped bool
	held    heldCall

	cmd  *Command // the command running, and its arguments
	args [][]byte
	// watched is the running write's claim on watched keys, and writesAt
	// the client's write count when it was taken (multi.go).
	watched  watchWrite
	writesAt uint64
	// writesBefore is the client's write count when the command began
	// (notify.go).
	writesBefore uint64
}
