package server

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidwall/redcon"

	"github.com/shaledb/shale/server/resp"
	"github.com/shaledb/shale/server/store"
	"github.com/shaledb/shale/server/types"
)

// The primary's side of a link: a replica connects as a client, says where
// it listens (REPLCONF), and asks to resume (PSYNC). The connection then
// carries the primary's frames one way and the replica's acknowledgements
// (REPLCONF ACK) the other; docs/REPLICATION.md has the frames.

// downstream is one replica following this server.
type downstream struct {
	s    *Server
	cl   *Client
	conn redcon.DetachedConn
	ip   string
	port int

	// resumeAt is where the log resumes, 0 for a full sync; reader reads
	// it, and first holds what PSYNC read to check the log still has it.
	resumeAt uint64
	reader   *store.WALReader
	first    []store.WALBatch

	state   atomic.Int32  // a downstreamState
	online  atomic.Bool   // past the full sync: WAIT and min-replicas count it
	ack     atomic.Uint64 // the offset it acknowledged
	lastAck atomic.Int64  // unix ms of its last acknowledgement
	loaded  chan uint64   // its first acknowledgement after a full sync

	pubMu   sync.Mutex
	pubs    []byte        // PUBLISH frames to forward
	pubWake chan struct{} // capacity 1: pubs has frames

	stopOnce sync.Once
	stopc    chan struct{}
}

type downstreamState int32

const (
	stateWaitBgsave downstreamState = iota // making the checkpoint
	stateSendBulk                          // sending it
	stateOnline                            // streaming the log
)

// String is the state as INFO's slaveN lines name it.
func (st downstreamState) String() string {
	return [...]string{"wait_bgsave", "send_bulk", "online"}[st]
}

// Frame sizes: the most log bytes one read gathers, the size of a
// checkpoint file's chunks, and what a link may hold of PUBLISH frames
// before it is dropped (Redis's client-output-buffer-limit replica is
// 256mb).
const (
	logReadBytes     = 1 << 20
	fileChunkBytes   = 1 << 20
	maxPendingPubs   = 64 << 20
	replPingInterval = time.Second
)

// REPLCONF option value [option value ...]: a replica's handshake, and its
// acknowledgements once it follows.
func cmdReplconf(c *Ctx, args [][]byte) error {
	if len(args)%2 == 0 {
		return errSyntax
	}
	for i := 1; i < len(args); i += 2 {
		v := args[i+1]
		switch lower(args[i]) {
		case "listening-port":
			port, ok := types.ParseInt(v)
			if !ok || port < 0 || port > 65535 {
				return replyError("ERR value is not an integer or out of range")
			}
			c.Client.mu.Lock()
			c.Client.replPort = int(port)
			c.Client.mu.Unlock()
		case "ip-address":
			c.Client.mu.Lock()
			c.Client.replIP = string(v)
			c.Client.mu.Unlock()
		case "capa", "rdb-only", "rdb-filter-only":
			// Capabilities are for Redis's RDB transfer, which Shale
			// never sends.
		case "ack", "getack":
			// Only a replica's link sends these, after PSYNC; on a
			// client they mean nothing, and Redis answers nothing.
			return nil
		default:
			return replyError("ERR Unrecognized REPLCONF option: " + sanitize(string(args[i])))
		}
	}
	c.Reply().OK()
	return nil
}

// PSYNC replicationid offset: a replica asks to resume at offset (the
// sequence number it needs next) in history replicationid ("?" and -1 for
// none). The answer is +CONTINUE id, then the log from offset; or
// +FULLRESYNC id offset, then a checkpoint.
func cmdPsync(c *Ctx, args [][]byte) error {
	s := c.Srv
	if s.isReplica() && !s.upstreamConnected() {
		return errNoMasterLink
	}
	d := &downstream{
		s: s, cl: c.Client, loaded: make(chan uint64, 1),
		pubWake: make(chan struct{}, 1), stopc: make(chan struct{}),
	}
	d.ip, d.port = c.Client.replicaAddr()
	id := string(args[1])
	next, ok := types.ParseInt(args[2])
	r := &s.repl
	last := s.st.LastSequence()
	r.mu.Lock()
	resume := ok && next > 0 && r.canResume(id, uint64(next), last)
	histID := r.id
	r.mu.Unlock()
	if resume {
		d.resumeAt = uint64(next)
		d.reader = s.st.ReadWAL(d.resumeAt)
		first, err := d.reader.Next(logReadBytes)
		if err != nil {
			d.reader.Close()
			d.reader, d.resumeAt, resume = nil, 0, false
		}
		d.first = first
	}
	if resume {
		r.syncPartialOK.Add(1)
		c.Reply().Status("CONTINUE " + histID)
	} else {
		if id != "?" {
			r.syncPartialErr.Add(1)
		}
		r.syncFull.Add(1)
		c.Reply().Status("FULLRESYNC " + histID + " " + strconv.FormatUint(last, 10))
	}
	d.conn = c.Conn.Detach()
	c.Client.replica.Store(d)
	c.Client.afterCommand = func() { go d.run() }
	return nil
}

// replicaAddr is where the replica says it listens: its announced address,
// or its connection's, and its listening port.
func (cl *Client) replicaAddr() (string, int) {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	ip := cl.replIP
	if ip == "" {
		ip, _, _ = net.SplitHostPort(cl.addr)
	}
	return ip, cl.replPort
}

// run serves the link until it fails or the replica goes away.
func (d *downstream) run() {
	s, r := d.s, &d.s.repl
	r.mu.Lock()
	r.replicas[d] = true
	r.mu.Unlock()
	if d.resumeAt > 0 {
		d.state.Store(int32(stateOnline))
		d.online.Store(true)
	}
	go d.readAcks()
	err := d.serve()
	d.stop()
	r.mu.Lock()
	delete(r.replicas, d)
	r.mu.Unlock()
	if d.reader != nil {
		d.reader.Close()
	}
	d.conn.Close()
	s.dropClient(d.cl)
	s.log.Info().Err(err).Str("replica", d.cl.addr).Msg("replication: replica link closed")
}

func (d *downstream) stop() { d.stopOnce.Do(func() { close(d.stopc) }) }

// serve sends the checkpoint when the replica needs one, then the log.
func (d *downstream) serve() error {
	s := d.s
	timeout := s.config().Replication.ReplTimeout.Duration
	if err := d.flush(timeout); err != nil { // PSYNC's answer
		return err
	}
	if d.resumeAt == 0 {
		if err := d.fullSync(timeout); err != nil {
			return err
		}
	}
	s.log.Info().Str("replica", d.cl.addr).Uint64("from", d.resumeAt).Msg("replication: streaming the log to a replica")
	ping := time.NewTicker(replPingInterval)
	defer ping.Stop()
	batches := d.first
	d.first = nil
	var buf []byte
	for {
		// Taken before the log is read, so that a write landing after
		// the read wakes the wait below.
		written := s.st.Written()
		if batches == nil {
			var err error
			if batches, err = d.reader.Next(logReadBytes); err != nil {
				return err
			}
		}
		for _, b := range batches {
			buf = resp.AppendFrame(buf[:0], []byte("BATCH"), strconv.AppendUint(nil, b.Seq, 10), b.Rep)
			d.conn.WriteRaw(buf)
		}
		pubs := d.takePublishes()
		d.conn.WriteRaw(pubs)
		if err := d.flush(timeout); err != nil {
			return err
		}
		if len(batches) > 0 || len(pubs) > 0 {
			batches = nil
			continue
		}
		batches = nil
		select {
		case <-written:
		case <-d.pubWake:
		case <-ping.C:
			if time.Since(time.UnixMilli(d.lastAck.Load())) > timeout {
				return fmt.Errorf("replication: no acknowledgement for %v (repl-timeout)", timeout)
			}
			d.conn.WriteRaw(resp.AppendFrame(nil, []byte("PING")))
		case <-d.stopc:
			return errStopped
		}
	}
}

// flush sends what the link's writer holds, within timeout.
func (d *downstream) flush(timeout time.Duration) error {
	if nc := d.conn.NetConn(); nc != nil && timeout > 0 {
		_ = nc.SetWriteDeadline(time.Now().Add(timeout))
	}
	return d.conn.Flush()
}

// fullSync sends a checkpoint of the store, file by file, and waits for the
// replica to have installed it: its first acknowledgement is the offset it
// holds, from which the log follows. The log from the checkpoint on is
// kept meanwhile (HoldWAL).
func (d *downstream) fullSync(timeout time.Duration) error {
	s := d.s
	d.lastAck.Store(time.Now().UnixMilli())
	release, err := s.st.HoldWAL()
	if err != nil {
		return err
	}
	defer release()
	dir := filepath.Clean(s.config().Storage.Dir) + ".repl-" + strconv.FormatInt(d.cl.ID, 10)
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := s.st.Checkpoint(dir); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var total int64
	for _, e := range entries {
		if info, err := e.Info(); err == nil {
			total += info.Size()
		}
	}
	d.state.Store(int32(stateSendBulk))
	s.log.Info().Str("replica", d.cl.addr).Int("files", len(entries)).Int64("bytes", total).Msg("replication: sending a checkpoint")
	d.conn.WriteRaw(resp.AppendFrame(nil, []byte("SIZE"), strconv.AppendInt(nil, total, 10)))
	chunk := make([]byte, fileChunkBytes)
	var frame []byte
	for _, e := range entries {
		if !e.Type().IsRegular() {
			return fmt.Errorf("replication: checkpoint holds %s, not a regular file", e.Name())
		}
		name := []byte(e.Name())
		d.conn.WriteRaw(resp.AppendFrame(frame[:0], []byte("FILE"), name, nil))
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			return err
		}
		for {
			n, rerr := io.ReadFull(f, chunk)
			if n > 0 {
				frame = resp.AppendFrame(frame[:0], []byte("FILE"), name, chunk[:n])
				d.conn.WriteRaw(frame)
				if err := d.flush(timeout); err != nil {
					f.Close()
					return err
				}
			}
			if rerr != nil {
				f.Close()
				if errors.Is(rerr, io.EOF) || errors.Is(rerr, io.ErrUnexpectedEOF) {
					break
				}
				return rerr
			}
		}
	}
	d.conn.WriteRaw(resp.AppendFrame(nil, []byte("SYNCED")))
	if err := d.flush(timeout); err != nil {
		return err
	}
	select {
	case at := <-d.loaded:
		d.resumeAt = at + 1
	case <-d.stopc:
		return errStopped
	}
	d.reader = s.st.ReadWAL(d.resumeAt)
	if d.first, err = d.reader.Next(logReadBytes); err != nil {
		return err
	}
	d.state.Store(int32(stateOnline))
	d.online.Store(true)
	return nil
}

// readAcks reads the replica's acknowledgements until the link ends.
func (d *downstream) readAcks() {
	defer d.stop()
	first := true
	for {
		if nc := d.conn.NetConn(); nc != nil {
			// A replica acknowledges every second; a link silent for
			// repl-timeout is dead (serve checks too, for a full sync).
			_ = nc.SetReadDeadline(time.Now().Add(d.s.config().Replication.ReplTimeout.Duration + replPingInterval))
		}
		cmd, err := d.conn.ReadCommand()
		if err != nil {
			return
		}
		if len(cmd.Args) != 3 || !is(cmd.Args[0], "REPLCONF") || !is(cmd.Args[1], "ACK") {
			continue
		}
		off, ok := types.ParseInt(cmd.Args[2])
		if !ok || off < 0 {
			continue
		}
		d.lastAck.Store(time.Now().UnixMilli())
		if first && d.resumeAt == 0 {
			d.loaded <- uint64(off)
		}
		first = false
		d.ack.Store(uint64(off))
		d.s.repl.noteAck()
	}
}

// propagatePublish forwards a PUBLISH (or SPUBLISH) to the replicas, as
// Redis propagates it.
func (s *Server) propagatePublish(command string, channel, msg []byte) {
	r := &s.repl
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.replicas) == 0 {
		return
	}
	for d := range r.replicas {
		d.pubMu.Lock()
		over := len(d.pubs) > maxPendingPubs
		if !over {
			d.pubs = resp.AppendFrame(d.pubs, []byte(command), channel, msg)
		}
		d.pubMu.Unlock()
		if over {
			s.log.Warn().Str("replica", d.cl.addr).Msg("replication: replica too slow for the PUBLISH stream; dropping its link")
			d.stop()
			continue
		}
		select {
		case d.pubWake <- struct{}{}:
		default:
		}
	}
}

// takePublishes returns the PUBLISH frames waiting, and empties the queue.
func (d *downstream) takePublishes() []byte {
	d.pubMu.Lock()
	defer d.pubMu.Unlock()
	p := d.pubs
	d.pubs = nil
	return p
}

// replicaLines are INFO's slaveN lines and ROLE's entries.
type replicaLine struct {
	ip          string
	port        int
	state       downstreamState
	offset, lag int64
}

// replicaLines describes the replicas, in no particular order.
func (s *Server) replicaLines() []replicaLine {
	r := &s.repl
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now().UnixMilli()
	out := make([]replicaLine, 0, len(r.replicas))
	for d := range r.replicas {
		out = append(out, replicaLine{ip: d.ip, port: d.port, state: downstreamState(d.state.Load()),
			offset: int64(d.ack.Load()), lag: (now - d.lastAck.Load()) / 1000})
	}
	return out
}
