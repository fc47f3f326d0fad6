package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shaledb/shale/server/resp"
	"github.com/shaledb/shale/server/store"
)

// The replica's side of a link: connect, hand-shake, resume or take a
// checkpoint, then apply the primary's log batch by batch, acknowledging
// the offset reached.

// upstream is a replica's link to its primary.
type upstream struct {
	s    *Server
	host string
	port int

	state     atomic.Int32 // an upstreamState
	lastIO    atomic.Int64 // unix ms of the last frame read
	downSince atomic.Int64 // unix ms the link went down; 0 while up
	syncTotal atomic.Int64 // bytes of the checkpoint being received
	syncRead  atomic.Int64 // of which received so far

	mu       sync.Mutex
	conn     net.Conn
	stopped  bool
	stopc    chan struct{}
	stopOnce sync.Once
	done     chan struct{} // closed when run returns
	// ctx ends with the link, so that a connection attempt under way
	// ends too.
	ctx    context.Context
	cancel context.CancelFunc
}

type upstreamState int32

const (
	upConnect    upstreamState = iota // waiting to connect
	upConnecting                      // connecting, handshaking
	upSync                            // receiving a checkpoint
	upConnected                       // following the log
)

// String is the state as ROLE names it.
func (st upstreamState) String() string {
	return [...]string{"connect", "connecting", "sync", "connected"}[st]
}

// Limits of the primary's frames: the most arguments, and the largest
// argument (a write batch; one command's may be big).
const (
	maxFrameArgs  = 8
	maxFrameBytes = 1 << 31
	// maxApplyBatches and maxApplyBytes bound what one apply takes the
	// world lock for: the batches already read, to amortize the lock.
	maxApplyBatches = 1024
	maxApplyBytes   = 8 << 20
	reconnectDelay  = time.Second
)

// follow makes the server a replica of host:port and starts the link.
func (s *Server) follow(host string, port int) {
	u := &upstream{s: s, host: host, port: port, stopc: make(chan struct{}), done: make(chan struct{})}
	u.ctx, u.cancel = context.WithCancel(context.Background())
	u.downSince.Store(time.Now().UnixMilli())
	s.st.SetReadOnly(true)
	s.eng.SetExpiring(false)
	s.repl.replica.Store(true)
	s.repl.mu.Lock()
	s.repl.upstream = u
	s.repl.mu.Unlock()
	s.setConfigReplicaOf(host + " " + strconv.Itoa(port))
	go u.run()
}

// stop ends the link; its goroutine exits at its next step.
func (u *upstream) stop() {
	u.stopOnce.Do(func() {
		u.mu.Lock()
		u.stopped = true
		close(u.stopc)
		u.cancel()
		if u.conn != nil {
			u.conn.Close()
		}
		u.mu.Unlock()
	})
}

func (u *upstream) isStopped() bool {
	select {
	case <-u.stopc:
		return true
	default:
		return false
	}
}

// upstreamConnected reports whether this replica follows its primary's
// log now (a replica serves replicas of its own only then).
func (s *Server) upstreamConnected() bool {
	s.repl.mu.Lock()
	u := s.repl.upstream
	s.repl.mu.Unlock()
	return u != nil && upstreamState(u.state.Load()) == upConnected
}

func (u *upstream) addr() string { return net.JoinHostPort(u.host, strconv.Itoa(u.port)) }

// run connects again and again until the link is stopped.
func (u *upstream) run() {
	defer close(u.done)
	log := u.s.log.With().Str("primary", u.addr()).Logger()
	for {
		err := u.session()
		u.state.Store(int32(upConnect))
		u.downSince.CompareAndSwap(0, time.Now().UnixMilli())
		if u.isStopped() {
			return
		}
		log.Warn().Err(err).Msg("replication: link to the primary lost; reconnecting")
		select {
		case <-u.stopc:
			return
		case <-time.After(reconnectDelay):
		}
	}
}

// link is one connection's reader and writer.
type link struct {
	conn    net.Conn
	r       *resp.FrameReader
	w       *bufio.Writer
	timeout time.Duration
}

// send writes one command frame and flushes it.
func (l *link) send(args ...string) error {
	b := make([][]byte, len(args))
	for i, a := range args {
		b[i] = []byte(a)
	}
	_ = l.conn.SetWriteDeadline(time.Now().Add(l.timeout))
	if _, err := l.w.Write(resp.AppendFrame(nil, b...)); err != nil {
		return err
	}
	return l.w.Flush()
}

// call sends a command and reads its one-line reply; an error reply is an
// error.
func (l *link) call(args ...string) (string, error) {
	if err := l.send(args...); err != nil {
		return "", err
	}
	_ = l.conn.SetReadDeadline(time.Now().Add(l.timeout))
	line, err := l.r.Line()
	if err != nil {
		return "", err
	}
	if strings.HasPrefix(line, "-") {
		return "", fmt.Errorf("primary answered %s to %s", line, args[0])
	}
	return line, nil
}

// session runs one connection: handshake, sync, stream.
func (u *upstream) session() error {
	s := u.s
	cfg := s.config()
	rc := cfg.Replication
	timeout := rc.ReplTimeout.Duration
	u.state.Store(int32(upConnecting))
	dialer := net.Dialer{Timeout: timeout}
	conn, err := dialer.DialContext(u.ctx, "tcp", u.addr())
	if err != nil {
		return err
	}
	u.mu.Lock()
	if u.stopped {
		u.mu.Unlock()
		conn.Close()
		return errStopped
	}
	u.conn = conn
	u.mu.Unlock()
	defer conn.Close()
	l := &link{conn: conn, w: bufio.NewWriter(conn), timeout: timeout,
		r: &resp.FrameReader{R: bufio.NewReaderSize(conn, 1<<16), MaxArgs: maxFrameArgs, MaxBulk: maxFrameBytes}}

	if rc.MasterAuth != "" {
		auth := []string{"AUTH", rc.MasterAuth}
		if rc.MasterUser != "" {
			auth = []string{"AUTH", rc.MasterUser, rc.MasterAuth}
		}
		if _, err := l.call(auth...); err != nil {
			return err
		}
	}
	if _, err := l.call("PING"); err != nil {
		return err
	}
	port := rc.ReplicaAnnouncePort
	if port == 0 {
		port = s.listenPort()
	}
	if _, err := l.call("REPLCONF", "listening-port", strconv.Itoa(port)); err != nil {
		return err
	}
	if rc.ReplicaAnnounceIP != "" {
		if _, err := l.call("REPLCONF", "ip-address", rc.ReplicaAnnounceIP); err != nil {
			return err
		}
	}
	s.repl.mu.Lock()
	id, next := s.repl.id, strconv.FormatUint(s.st.LastSequence()+1, 10)
	s.repl.mu.Unlock()
	if id == "" {
		id, next = "?", "-1"
	}
	line, err := l.call("PSYNC", id, next)
	if err != nil {
		return err
	}
	f := strings.Fields(line)
	switch {
	case len(f) >= 2 && f[0] == "+FULLRESYNC":
		if err := u.fullSync(l, f[1]); err != nil {
			return err
		}
	case len(f) == 2 && f[0] == "+CONTINUE":
		s.repl.mu.Lock()
		s.adoptHistory(f[1], false)
		s.repl.mu.Unlock()
		s.log.Info().Str("primary", u.addr()).Str("from", next).Msg("replication: resuming from the primary's log")
	default:
		return fmt.Errorf("primary answered %q to PSYNC", line)
	}
	return u.stream(l)
}

// fullSync receives a checkpoint into a directory beside the data's,
// installs it in place of the data, takes on its history, and tells the
// primary the offset it holds.
func (u *upstream) fullSync(l *link, id string) error {
	s := u.s
	u.state.Store(int32(upSync))
	u.syncTotal.Store(0)
	u.syncRead.Store(0)
	dir := filepath.Clean(s.config().Storage.Dir) + ".sync"
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	defer os.RemoveAll(dir) // gone once installed, or left from a failure
	s.log.Info().Str("primary", u.addr()).Msg("replication: full sync: receiving a checkpoint")
	files := map[string]*os.File{}
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	for {
		args, err := u.next(l)
		if err != nil {
			return err
		}
		switch {
		case len(args) == 2 && string(args[0]) == "SIZE":
			n, _ := strconv.ParseInt(string(args[1]), 10, 64)
			u.syncTotal.Store(n)
		case len(args) == 3 && string(args[0]) == "FILE":
			name := string(args[1])
			if name == "" || filepath.Base(name) != name || name == "." || name == ".." {
				return fmt.Errorf("replication: checkpoint file name %q", name)
			}
			f := files[name]
			if f == nil {
				if f, err = os.OpenFile(filepath.Join(dir, name), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644); err != nil {
					return err
				}
				files[name] = f
			}
			if _, err := f.Write(args[2]); err != nil {
				return err
			}
			u.syncRead.Add(int64(len(args[2])))
		case len(args) == 1 && string(args[0]) == "SYNCED":
			for name, f := range files {
				err := f.Sync()
				if cerr := f.Close(); err == nil {
					err = cerr
				}
				delete(files, name)
				if err != nil {
					return err
				}
			}
			if err := s.installCheckpoint(u, dir); err != nil {
				return err
			}
			s.repl.mu.Lock()
			s.adoptHistory(id, true)
			s.repl.mu.Unlock()
			s.log.Info().Uint64("offset", s.st.LastSequence()).Msg("replication: full sync: checkpoint installed")
			return u.ack(l)
		case len(args) == 1 && string(args[0]) == "PING":
		default:
			return fmt.Errorf("replication: unexpected frame %q during a full sync", args[0])
		}
	}
}

// next reads the primary's next frame, within repl-timeout.
func (u *upstream) next(l *link) ([][]byte, error) {
	_ = l.conn.SetReadDeadline(time.Now().Add(l.timeout))
	args, err := l.r.Next()
	if err == nil {
		u.lastIO.Store(time.Now().UnixMilli())
	}
	return args, err
}

// ack tells the primary the offset this replica holds.
func (u *upstream) ack(l *link) error {
	return l.send("REPLCONF", "ACK", strconv.FormatUint(u.s.st.LastSequence(), 10))
}

// pendingBatch is a batch read and not yet applied.
type pendingBatch struct {
	seq uint64
	rep []byte
}

// stream applies the primary's log as it comes, acknowledging after each
// group of batches and at least every second.
func (u *upstream) stream(l *link) error {
	s := u.s
	u.state.Store(int32(upConnected))
	u.downSince.Store(0)
	if err := u.ack(l); err != nil {
		return err
	}
	lastAck := time.Now()
	var pending []pendingBatch
	size := 0
	for {
		args, err := u.next(l)
		if err != nil {
			return err
		}
		switch {
		case len(args) == 3 && string(args[0]) == "BATCH":
			seq, err := strconv.ParseUint(string(args[1]), 10, 64)
			if err != nil {
				return fmt.Errorf("replication: batch offset %q", args[1])
			}
			pending = append(pending, pendingBatch{seq, args[2]})
			size += len(args[2])
		case len(args) == 3 && (string(args[0]) == "PUBLISH" || string(args[0]) == "SPUBLISH"):
			if err := u.apply(pending); err != nil {
				return err
			}
			pending, size = pending[:0], 0
			kind := channelSub
			if string(args[0]) == "SPUBLISH" {
				kind = shardSub
			}
			s.publish(kind, args[1], args[2])
			s.propagatePublish(string(args[0]), args[1], args[2])
		case len(args) == 1 && string(args[0]) == "PING":
		default:
			return fmt.Errorf("replication: unexpected frame %q", args[0])
		}
		if len(pending) > 0 && (l.r.R.Buffered() == 0 || len(pending) >= maxApplyBatches || size >= maxApplyBytes) {
			if err := u.apply(pending); err != nil {
				return err
			}
			pending, size = pending[:0], 0
			if err := u.ack(l); err != nil {
				return err
			}
			lastAck = time.Now()
		}
		if time.Since(lastAck) >= replPingInterval {
			if err := u.ack(l); err != nil {
				return err
			}
			lastAck = time.Now()
		}
	}
}

// apply writes batches under the world lock, so that no command sees part
// of one, unless the link was stopped meanwhile (REPLICAOF), then tells
// the server what they changed.
func (u *upstream) apply(batches []pendingBatch) error {
	if len(batches) == 0 {
		return nil
	}
	s := u.s
	applied := make([]store.Applied, 0, len(batches))
	unlock := s.st.LockWorld()
	if u.isStopped() {
		unlock()
		return errStopped
	}
	for _, b := range batches {
		a, err := s.st.Apply(b.seq, b.rep)
		if err != nil {
			unlock()
			if errors.Is(err, store.ErrOutOfOrder) {
				// The data is not the primary's history: sync in full.
				s.repl.mu.Lock()
				s.repl.id = ""
				s.repl.mu.Unlock()
			}
			return err
		}
		applied = append(applied, a)
	}
	unlock()
	for _, a := range applied {
		s.replicated(a)
	}
	return nil
}

// replicated tells watchers, tracking clients and blocked readers of the
// keys a replicated batch changed, and reloads FUNCTION's libraries when
// it changed them.
func (s *Server) replicated(a store.Applied) {
	if a.Functions {
		if err := s.loadFunctions(); err != nil {
			s.log.Error().Err(err).Msg("replication: reload function libraries")
		}
	}
	if a.AllKeys {
		s.watches.beginWrite(nil, allDatabases).end(true)
		s.invalidateEvents(nil, []keyEvent{{name: flushEvent}})
		return
	}
	if len(a.UIDs) > 0 && s.watchesKeys() {
		// Members written without their metadata: name their keys.
		for _, uid := range a.UIDs {
			if k, ok := s.st.KeyOfUID(uid); ok {
				a.Keys = append(a.Keys, k)
			}
		}
	}
	if len(a.Keys) == 0 {
		return
	}
	keys := make([]watchKey, len(a.Keys))
	events := make([]keyEvent, len(a.Keys))
	for i, k := range a.Keys {
		keys[i] = watchKey{db: k.DB, key: string(k.Key)}
		events[i] = keyEvent{class: notifyGeneric, db: k.DB, key: k.Key}
	}
	s.watches.beginWrite(keys, -1).end(true)
	s.invalidateEvents(nil, events)
	for _, k := range a.Keys {
		s.keyReady(nil, k.DB, k.Key)
	}
}

// watchesKeys reports whether a client would hear of a changed key: one
// WATCHes keys, tracks them or waits on them.
func (s *Server) watchesKeys() bool {
	return s.watches.keys.Load() > 0 || s.tracking.used.Load() || s.blocking.waiting.Load() > 0
}

// installCheckpoint puts the checkpoint in dir in place of the data: no
// command runs meanwhile (pauseStore). Functions are reloaded, and
// watchers and tracking clients hear of a flush, as after Redis's load of
// its primary's RDB.
func (s *Server) installCheckpoint(u *upstream, dir string) error {
	resume, ok := s.pauseStore(u.stopc)
	if !ok {
		return errStopped
	}
	err := s.st.Reinstall(dir)
	if errors.Is(err, store.ErrUnusable) {
		// Nothing can be served without a store, and no command may run
		// on a closed one.
		s.log.Fatal().Err(err).Msg("replication: full sync: the store does not open again")
	}
	resume()
	if err != nil {
		return err
	}
	if err := s.loadFunctions(); err != nil {
		s.log.Error().Err(err).Msg("replication: load function libraries")
	}
	s.replicated(store.Applied{AllKeys: true})
	return nil
}
