package server

import (
	"strconv"
	"time"

	"github.com/shaledb/shale/server/types"
)

// REPLICAOF host port | NO ONE (and SLAVEOF): follow a primary, or become
// one. It answers at once; the link connects in the background.
func cmdReplicaOf(c *Ctx, args [][]byte) error {
	s := c.Srv
	if is(args[1], "no") && is(args[2], "one") {
		s.replicaOf("", 0, c.Client.atomicRun.active)
		c.Reply().OK()
		return nil
	}
	if c.Client.replica.Load() != nil {
		return errReplicaOfReplica
	}
	port, ok := types.ParseInt(args[2])
	if !ok || port < 0 || port > 65535 {
		return errInvalidPort
	}
	host := string(args[1])
	s.repl.mu.Lock()
	u := s.repl.upstream
	s.repl.mu.Unlock()
	if u != nil && u.host == host && u.port == int(port) {
		c.Reply().Status("OK Already connected to specified master")
		return nil
	}
	s.replicaOf(host, int(port), c.Client.atomicRun.active)
	c.Reply().OK()
	return nil
}

// ROLE: "master", its offset and its online replicas; or "slave", its
// primary, the link's state and the offset reached (-1 while not
// following).
func cmdRole(c *Ctx, _ [][]byte) error {
	s := c.Srv
	r := c.Reply()
	s.repl.mu.Lock()
	u := s.repl.upstream
	s.repl.mu.Unlock()
	if u != nil {
		state := upstreamState(u.state.Load())
		offset := int64(-1)
		if state == upConnected {
			offset = int64(s.st.LastSequence())
		}
		r.Array(5)
		r.BulkString("slave")
		r.BulkString(u.host)
		r.Int(int64(u.port))
		r.BulkString(state.String())
		r.Int(offset)
		return nil
	}
	var online []replicaLine
	for _, l := range s.replicaLines() {
		if l.state == stateOnline {
			online = append(online, l)
		}
	}
	r.Array(3)
	r.BulkString("master")
	r.Int(int64(s.st.LastSequence()))
	r.Array(len(online))
	for _, l := range online {
		r.Array(3)
		r.BulkString(l.ip)
		r.BulkString(strconv.Itoa(l.port))
		r.BulkString(strconv.FormatInt(l.offset, 10))
	}
	return nil
}

// WAIT numreplicas timeout: how many replicas acknowledged every write
// made before the call, once numreplicas did or timeout milliseconds
// passed (0: no limit). Inside MULTI or a script it does not wait.
func cmdWait(c *Ctx, args [][]byte) error {
	s := c.Srv
	if s.isReplica() {
		return errWaitOnReplica
	}
	want, ok := types.ParseInt(args[1])
	if !ok {
		return errNotInteger
	}
	ms, ok := types.ParseInt(args[2])
	switch {
	case !ok:
		return errPauseTimeoutNotInt
	case ms < 0:
		return errTimeoutNegative
	}
	offset := s.st.LastSequence()
	n := s.repl.replicasAt(offset)
	if int64(n) >= want || c.Client.atomicRun.active {
		c.Reply().Int(int64(n))
		return nil
	}
	s.commitGroup(c.Client, c.Conn) // never wait with a group's locks held
	if wr := c.baseWriter(); wr != nil {
		_ = wr.Flush() // the replies pipelined before it, as Redis sends them
	}
	c.Client.blocked.Store(true)
	defer c.Client.blocked.Store(false)
	s.gate.leave(&c.Client.storeUse) // a waiting client does not use the store
	defer s.gate.enter(&c.Client.storeUse)
	gone, stopWatch := watchConn(c)
	defer stopWatch()
	var timer <-chan time.Time
	if ms > 0 {
		t := time.NewTimer(time.Duration(ms) * time.Millisecond)
		defer t.Stop()
		timer = t.C
	}
	start := time.Now()
	defer func() { c.blocked += time.Since(start) }()
	for {
		acked := s.repl.ackedSince()
		if n = s.repl.replicasAt(offset); int64(n) >= want {
			break
		}
		select {
		case <-acked:
			continue
		case <-timer:
		case <-gone:
			return nil // no reply for a client that left
		case <-s.blocking.closing:
		}
		break
	}
	c.Reply().Int(int64(n))
	return nil
}

// replicationCommands are the replication commands' rows.
var replicationCommands = []Command{
	cmd("replicaof", 3, Admin|NoScript|Stale|NoAsyncLoading, 0, 0, 0, cmdReplicaOf).acl(ACLDangerous).
		doc("Make the server a replica of another instance, or promote it as master.", "5.0.0", "server", "O(1)", "host port"),
	cmd("slaveof", 3, Admin|NoScript|Stale|NoAsyncLoading, 0, 0, 0, cmdReplicaOf).acl(ACLDangerous).
		doc("Make the server a replica of another instance, or promote it as master.", "1.0.0", "server", "O(1)", "host port"),
	cmd("role", 1, NoScript|Loading|Stale|Fast, 0, 0, 0, cmdRole).acl(ACLAdmin|ACLDangerous).
		doc("Return the role of the instance in the context of replication", "2.8.12", "server", "O(1)", ""),
	cmd("wait", 3, NoScript, 0, 0, 0, cmdWait).acl(ACLConnection).tips("request_policy:all_shards", "response_policy:agg_min").
		doc("Wait for the synchronous replication of all the write commands sent in the context of the current connection", "3.0.0", "generic", "O(1)", "numreplicas timeout"),
	cmd("replconf", -1, Admin|NoScript|Loading|Stale|AllowBusy, 0, 0, 0, cmdReplconf).
		doc("An internal command for configuring the replication stream", "3.0.0", "server", "O(1)", ""),
	cmd("psync", -3, Admin|NoScript|NoAsyncLoading|NoMulti, 0, 0, 0, cmdPsync).
		doc("Internal command used for replication", "2.8.0", "server", "", "replicationid offset"),
}
