package server

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shaledb/shale/conf"
)

// Replication (docs/REPLICATION.md). A primary serves its RocksDB
// write-ahead log to its replicas (replication_primary.go); a replica
// follows one primary (replication_replica.go), applying the log's batches
// as they are, so that its sequence numbers are its primary's: the
// replication offset is the sequence number.
//
// A history id names the sequence of writes a server's data belongs to, as
// Redis's replication ids do: a primary's own, which a replica takes on. A
// replica asks to resume at its offset in its history; the primary agrees
// when that history is its own or the one it had before its last switch
// (id2, up to offset2), and its log still holds the offset. A switch
// happens at a promotion and at every start of a primary: a primary that
// restarted may have lost the tail of its log that a replica has, and
// must not then feed that replica another tail at the same offsets.

// replication is the server's replication state.
type replication struct {
	mu       sync.Mutex
	id       string               // master_replid
	id2      string               // master_replid2; "" for none
	offset2  uint64               // second_repl_offset: the first offset of id's history after id2's; 0 for none
	idFile   string               // where id is kept across restarts
	upstream *upstream            // the primary this server follows; nil on a primary
	replicas map[*downstream]bool // the replicas following this server
	acked    chan struct{}        // closed and replaced at each replica acknowledgement (WAIT)

	// replica is set while the server follows a primary: writes are
	// refused. Read on every write command.
	replica atomic.Bool

	syncFull, syncPartialOK, syncPartialErr atomic.Int64 // INFO stats
}

// zeroReplID is Redis's replication id for none.
const zeroReplID = "0000000000000000000000000000000000000000"

// newReplID returns a fresh history id: 40 hex characters, as Redis's.
func newReplID() string {
	var b [20]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// replIDFile is the file in the data directory that holds the history id
// of the data, so that a restarted replica resumes instead of syncing in
// full.
const replIDFile = "REPLICATION_ID"

// initReplication loads the history id and takes the role cfg gives: a
// primary starts a new history (the old one is its id2), a replica keeps
// its primary's and starts following it.
func (s *Server) initReplication(cfg conf.Config) error {
	r := &s.repl
	r.replicas = make(map[*downstream]bool)
	r.acked = make(chan struct{})
	r.idFile = filepath.Join(cfg.Storage.Dir, replIDFile)
	// What a full sync cut short by a crash left beside the data: a
	// primary's checkpoints being sent, a replica's being received.
	data := filepath.Clean(cfg.Storage.Dir)
	stale, _ := filepath.Glob(data + ".repl-*")
	for _, dir := range append(stale, data+".sync") {
		if err := os.RemoveAll(dir); err != nil {
			s.log.Warn().Err(err).Str("dir", dir).Msg("replication: cannot remove a full sync's leftovers")
		}
	}
	old := readReplID(r.idFile)
	host, port, err := conf.ParseReplicaOf(cfg.Replication.ReplicaOf)
	if err != nil {
		return err
	}
	if host == "" {
		r.id = newReplID()
		if old != "" {
			r.id2, r.offset2 = old, s.st.LastSequence()+1
		}
		return writeReplID(r.idFile, r.id)
	}
	r.id = old
	s.follow(host, port)
	return nil
}

// readReplID reads the history id kept in path; "" when there is none.
func readReplID(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	id := strings.TrimSpace(string(b))
	if len(id) != len(zeroReplID) {
		return ""
	}
	return id
}

// writeReplID keeps id in path, replacing it whole.
func writeReplID(path, id string) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(id+"\n"), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// switchHistory starts a new history after the data's current one, as
// Redis's shiftReplicationId: at a promotion, the old history stays valid
// as id2 up to this offset. r.mu is held.
func (s *Server) switchHistory() {
	r := &s.repl
	if r.id != "" {
		r.id2, r.offset2 = r.id, s.st.LastSequence()+1
	}
	r.id = newReplID()
	s.saveReplID()
}

// adoptHistory makes id the data's history: the primary's, after a full
// sync (full) or a resync it agreed to. r.mu is held.
func (s *Server) adoptHistory(id string, full bool) {
	r := &s.repl
	switch {
	case full:
		r.id2, r.offset2 = "", 0
	case id != r.id && r.id != "":
		r.id2, r.offset2 = r.id, s.st.LastSequence()+1
	}
	r.id = id
	s.saveReplID()
}

func (s *Server) saveReplID() {
	if err := writeReplID(s.repl.idFile, s.repl.id); err != nil {
		s.log.Error().Err(err).Msg("replication: cannot keep the history id; a restart will sync in full")
	}
}

// canResume reports whether a replica of history id that has everything
// before offset next may resume there: next is in this server's history.
// r.mu is held.
func (r *replication) canResume(id string, next, last uint64) bool {
	switch {
	case next == 0 || next > last+1:
		return false
	case id == r.id:
		return true
	default:
		return id == r.id2 && r.id2 != "" && next <= r.offset2
	}
}

// resetStats zeroes INFO's sync_* counters (CONFIG RESETSTAT).
func (r *replication) resetStats() {
	r.syncFull.Store(0)
	r.syncPartialOK.Store(0)
	r.syncPartialErr.Store(0)
}

// isReplica reports whether the server follows a primary.
func (s *Server) isReplica() bool { return s.repl.replica.Load() }

// replicaOf makes the server follow host:port, or a primary when host is
// "" (REPLICAOF NO ONE). It returns at once; the link connects in the
// background. inAtomic says the caller runs inside EXEC or a script,
// whose group holds the store's locks already.
func (s *Server) replicaOf(host string, port int, inAtomic bool) {
	r := &s.repl
	r.mu.Lock()
	old := r.upstream
	r.upstream = nil
	r.mu.Unlock()
	if old != nil {
		old.stop()
		if !inAtomic {
			// An apply under way finishes first; later ones see the
			// link stopped (upstream.apply).
			s.st.LockWorld()()
		}
	}
	if host == "" {
		if old == nil {
			return
		}
		s.promote()
		return
	}
	s.follow(host, port)
}

// stopReplication ends the links, at shutdown: the one to the primary,
// whose goroutine is waited for (it may be installing a checkpoint), and
// those of the replicas.
func (s *Server) stopReplication() {
	r := &s.repl
	r.mu.Lock()
	u := r.upstream
	var ds []*downstream
	for d := range r.replicas {
		ds = append(ds, d)
	}
	r.mu.Unlock()
	for _, d := range ds {
		d.stop()
		// The network connection, not redcon's: its Close flushes the
		// writer that the link's goroutine may be filling (fullSync);
		// that goroutine closes it once its write fails.
		if nc := d.conn.NetConn(); nc != nil {
			nc.Close()
		}
	}
	if u != nil {
		u.stop()
		<-u.done
	}
}

// promote makes a replica a primary: a new history, writes taken, expiry
// on, uids above every one the old primary reserved.
func (s *Server) promote() {
	r := &s.repl
	r.mu.Lock()
	s.switchHistory()
	r.mu.Unlock()
	if err := s.st.ReloadUIDs(); err != nil {
		s.log.Error().Err(err).Msg("replication: reload the uid high-water mark")
	}
	s.st.SetReadOnly(false)
	r.replica.Store(false)
	s.eng.SetExpiring(true)
	s.setConfigReplicaOf("")
	s.log.Info().Msg("replication: promoted to primary")
}

// setConfigReplicaOf records the primary followed in the config, for
// CONFIG GET and CONFIG REWRITE.
func (s *Server) setConfigReplicaOf(v string) {
	s.mu.Lock()
	s.cfg.Replication.ReplicaOf = v
	s.mu.Unlock()
}

// replicationIDs returns the history ids and offset2, for INFO.
func (s *Server) replicationIDs() (id, id2 string, offset2 int64) {
	r := &s.repl
	r.mu.Lock()
	defer r.mu.Unlock()
	id, id2, offset2 = r.id, r.id2, int64(r.offset2)
	if id == "" {
		id = zeroReplID
	}
	if id2 == "" {
		id2, offset2 = zeroReplID, -1
	}
	return id, id2, offset2
}

// ackedSince returns a channel closed at the next acknowledgement.
func (r *replication) ackedSince() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.acked
}

// noteAck wakes WAIT.
func (r *replication) noteAck() {
	r.mu.Lock()
	close(r.acked)
	r.acked = make(chan struct{})
	r.mu.Unlock()
}

// replicasAt counts the replicas that acknowledged offset at least.
func (r *replication) replicasAt(offset uint64) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for d := range r.replicas {
		if d.online.Load() && d.ack.Load() >= offset {
			n++
		}
	}
	return n
}

// goodReplicas counts the online replicas whose last acknowledgement is at
// most maxLag seconds old (min-replicas-max-lag).
func (r *replication) goodReplicas(maxLag int) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n, now := 0, time.Now().UnixMilli()
	for d := range r.replicas {
		if d.online.Load() && (now-d.lastAck.Load())/1000 <= int64(maxLag) {
			n++
		}
	}
	return n
}

// writeRefusal is the error a write command gets from replication before
// it runs: READONLY on a replica, NOREPLICAS on a primary short of good
// replicas (min-replicas-to-write); "" when it may run.
func (s *Server) writeRefusal() replyError {
	if s.isReplica() {
		return errReadOnlyReplica
	}
	if s.minReplicas.Load() == 0 {
		return "" // the common case, without copying the configuration
	}
	rc := s.config().Replication
	if rc.MinReplicasToWrite > 0 && s.repl.goodReplicas(rc.MinReplicasMaxLag) < rc.MinReplicasToWrite {
		return errNoReplicas
	}
	return ""
}

// errStopped ends a link that REPLICAOF replaced or the server closes.
var errStopped = errors.New("replication: link stopped")

// storeGate lets a replica's full sync replace the store's files while no
// command uses the store (installCheckpoint): commands enter it, and wait
// while a swap is on. Each client counts its own use (Client.storeUse), so
// that a command costs no write to a counter all cores share; others
// counts the rest (the metrics collector).
type storeGate struct {
	others   atomic.Int64
	swapping atomic.Bool
	mu       sync.Mutex
	done     chan struct{} // closed when the swap ends
}

// enter waits out a swap, then counts one more use in n.
func (g *storeGate) enter(n *atomic.Int64) {
	for {
		n.Add(1)
		if !g.swapping.Load() {
			return
		}
		n.Add(-1)
		g.mu.Lock()
		done := g.done
		g.mu.Unlock()
		if done != nil {
			<-done
		}
	}
}

// leave undoes enter.
func (g *storeGate) leave(n *atomic.Int64) { n.Add(-1) }

// pauseStore waits until nothing uses the store and holds new users back
// until resume is called; it gives up, with ok false, when stop closes.
func (s *Server) pauseStore(stop <-chan struct{}) (resume func(), ok bool) {
	g := &s.gate
	g.mu.Lock()
	g.done = make(chan struct{})
	g.mu.Unlock()
	g.swapping.Store(true)
	resume = func() {
		g.swapping.Store(false)
		g.mu.Lock()
		close(g.done)
		g.done = nil
		g.mu.Unlock()
	}
	for s.storeInUse() {
		select {
		case <-stop:
			resume()
			return nil, false
		case <-time.After(time.Millisecond):
		}
	}
	return resume, true
}

// storeInUse reports whether a command or anything else uses the store.
func (s *Server) storeInUse() bool {
	if s.gate.others.Load() > 0 {
		return true
	}
	for _, l := range s.loops.all { // a turn, and the writes it queued
		if l.storeUse.Load() > 0 {
			return true
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.clients { // a killed one's command may still run
		if c.storeUse.Load() > 0 {
			return true
		}
	}
	return false
}

// listenPort is the port the server listens on.
func (s *Server) listenPort() int {
	if a, ok := s.ln.Addr().(*net.TCPAddr); ok {
		return a.Port
	}
	return 0
}
