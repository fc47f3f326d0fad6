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

	mu         sync.Mutex // guards cfg's runtime-settable fields and clients
	cfg        conf.Config
	configFile string     // INFO's config_file, "" = none; guarded by mu (SetConfigFile)
	configMu   sync.Mutex // serializes CONFIG SET; taken before mu, never while holding it

	clients    map[int64]*Client
	nextID     atomic.Int64
	started    time.Time
	stats      serverStats
	shutdown   chan struct{}
	stopOnce   sync.Once
	closeOnce  sync.Once
	serveDone  chan struct{}
	shutdownMu sync.Mutex
	blocking   blockRegistry              // clients parked in BLPOP and the like (blocking.go)
	limits     atomic.Pointer[connLimits] // protocol and buffer limits (protocol.go)
	diskLog    zerolog.Logger             // log, at most one line a second: a broken disk fails every write
}

type serverStats struct {
	commands         atomic.Int64
	connections      atomic.Int64
	rejected         atomic.Int64
	errorReplies     atomic.Int64
	expiredKeysTicks atomic.Int64
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
	}
	s.blocking.init()
	s.setLimits(cfg.Server)
	s.rs = redcon.NewServerNetwork("tcp", ln.Addr().String(), s.handle, s.accept, s.closed)
	if cfg.Server.Timeout.Duration > 0 {
		s.rs.SetIdleClose(cfg.Server.Timeout.Duration)
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
	go func() {
		defer close(s.serveDone)
		if err := s.rs.Serve(guardListener{Listener: ln, limits: &s.limits, log: s.log}); err != nil && !errors.Is(err, net.ErrClosed) {
			s.log.Error().Err(err).Msg("serve failed")
		}
	}()
	s.log.Info().Str("addr", ln.Addr().String()).Str("version", Version).Msg("listening")
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

// Close stops accepting, closes every client, stops background work and
// closes the store (which flushes).
func (s *Server) Close() error {
	var err error
	s.closeOnce.Do(func() {
		s.rs.Close()
		<-s.serveDone
		// Blocked clients hold no lock: wake them and wait for them.
		s.blocking.close()
		// redcon closes client connections but handlers may still be running
		// a command: the world lock waits for every keyed command to finish.
		unlock := s.st.LockWorld()
		unlock()
		s.eng.Stop()
		err = s.st.Close()
		s.log.Info().Msg("server stopped")
	})
	return err
}

func (s *Server) accept(conn redcon.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.clients) >= s.cfg.Server.MaxClients {
		s.stats.rejected.Add(1)
		conn.WriteError(string(errMaxClients))
		return false
	}
	db, _ := s.eng.DB(0)
	c := &Client{
		ID:      s.nextID.Add(1),
		conn:    conn,
		addr:    conn.RemoteAddr(),
		laddr:   s.ln.Addr().String(),
		created: time.Now(),
		db:      db,
		authed:  s.cfg.Server.RequirePass == "",
	}
	c.lastActive.Store(c.created.UnixMilli())
	if nc := conn.NetConn(); nc != nil {
		c.laddr = nc.LocalAddr().String()
		if g, ok := nc.(*guardConn); ok {
			g.guard.needsAuth = func() bool { return !c.isAuthed() }
			c.out = &replyCounter{Conn: conn, g: g}
		}
	}
	s.clients[c.ID] = c
	conn.SetContext(c)
	s.stats.connections.Add(1)
	return true
}

func (s *Server) closed(conn redcon.Conn, err error) {
	c, ok := conn.Context().(*Client)
	if !ok {
		return
	}
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

// handle is the dispatcher: lookup, auth, arity, run, error mapping.
func (s *Server) handle(conn redcon.Conn, rc redcon.Command) {
	c, ok := conn.Context().(*Client)
	if !ok || len(rc.Args) == 0 {
		return
	}
	var out redcon.Conn = conn
	if c.out != nil {
		if c.out.g.cut.Load() {
			return // cut off for its output: the rest of its pipeline is dropped
		}
		out = c.out
		defer c.out.g.checkOutputLimit()
	}
	s.stats.commands.Add(1)
	c.lastActive.Store(time.Now().UnixMilli())
	name := lower(rc.Args[0])
	cmd, found := s.table[name]
	if !found {
		s.replyError(conn, unknownCommand(rc.Args))
		return
	}
	c.setLastCmd(name)
	// Redis's order: unknown command, then arity, then authentication.
	if !cmd.arityOK(len(rc.Args)) {
		s.replyError(conn, errWrongArity(cmd.Name))
		return
	}
	if cmd.Subcommands != nil && len(rc.Args) > 1 {
		// Redis resolves a container's subcommand and checks its arity
		// before authentication too.
		if err := checkSubcommand(cmd, rc.Args); err != "" {
			s.replyError(conn, err)
			return
		}
	}
	if !c.isAuthed() && cmd.Flags&NoAuth == 0 {
		if name == "debug" && !s.config().Server.EnableDebugCommand {
			s.replyError(conn, errDebugDisabled) // Redis checks this first
		} else {
			s.replyError(conn, errNoAuth)
		}
		return
	}
	ctx := &Ctx{Conn: out, Srv: s, Client: c, DB: c.currentDB()}
	if err := cmd.Run(ctx, rc.Args); err != nil {
		text, known := errorText(err)
		switch {
		case !known:
			s.log.Error().Err(err).Str("cmd", name).Msg("command failed")
		case errors.Is(err, store.ErrWrite):
			s.diskLog.Error().Err(err).Str("cmd", name).Msg("write refused by the disk")
		}
		s.replyError(conn, replyError(text))
	}
}

// checkSubcommand returns the error for an unknown subcommand of container
// command cmd or for its wrong arity; "" when args name a known subcommand
// with a fitting arity.
func checkSubcommand(cmd *Command, args [][]byte) replyError {
	name := lower(args[1])
	for i := range cmd.Subcommands {
		if sc := &cmd.Subcommands[i]; sc.Name == name {
			if !arityFits(sc.Arity, len(args)) {
				return errWrongArity(cmd.Name + "|" + name)
			}
			return ""
		}
	}
	return errUnknownSubcommand(string(args[1]), cmd.Name)
}

func (s *Server) replyError(conn redcon.Conn, err replyError) {
	s.stats.errorReplies.Add(1)
	conn.WriteError(sanitize(string(err)))
}

// unknownCommand is Redis's reply for a name not in the table, quoting up
// to 128 bytes of the arguments.
func unknownCommand(args [][]byte) replyError {
	var quoted []byte
	for _, a := range args[1:] {
		if len(quoted) >= 128 {
			break
		}
		quoted = append(quoted, '\'')
		quoted = append(quoted, truncate(string(a), 128-len(quoted)+1)...)
		quoted = append(quoted, '\'', ' ')
	}
	return replyError(fmt.Sprintf("ERR unknown command '%s', with args beginning with: %s", truncate(string(args[0]), 128), quoted))
}

// Ctx is what a handler needs: the connection to reply on, the server, the
// client's state and its selected database.
type Ctx struct {
	Conn   redcon.Conn
	Srv    *Server
	Client *Client
	DB     *types.DB
}

// writeBulks replies with an array of bulk strings; nil entries are nulls.
func (c *Ctx) writeBulks(items [][]byte) {
	c.Conn.WriteArray(len(items))
	for _, it := range items {
		if it == nil {
			c.Conn.WriteNull()
		} else {
			c.Conn.WriteBulk(it)
		}
	}
}

// writeBulkOrNull replies with v, or a null when !ok.
func (c *Ctx) writeBulkOrNull(v []byte, ok bool) {
	if !ok {
		c.Conn.WriteNull()
		return
	}
	c.Conn.WriteBulk(v)
}

func (c *Ctx) writeBool(b bool) {
	if b {
		c.Conn.WriteInt(1)
	} else {
		c.Conn.WriteInt(0)
	}
}

// ok replies +OK.
func (c *Ctx) ok() { c.Conn.WriteString("OK") }
