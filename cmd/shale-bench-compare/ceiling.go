package main

import (
	"strings"
	"sync"

	"github.com/tidwall/redcon"
)

// ceilingStore is the whole state of the in-memory ceiling server: string
// keys in a map behind one mutex. It does no more than redis-benchmark's SET
// and GET need, so its throughput is what a Go server over redcon can reach
// on this machine before it does any storage work at all.
type ceilingStore struct {
	mu   sync.RWMutex
	data map[string][]byte
}

func newCeilingStore() *ceilingStore {
	return &ceilingStore{data: make(map[string][]byte)}
}

// handle serves PING, SET key value and GET key; every other command, or
// another arity, gets an error.
func (s *ceilingStore) handle(conn redcon.Conn, cmd redcon.Command) {
	name := strings.ToLower(string(cmd.Args[0]))
	switch {
	case name == "ping" && len(cmd.Args) == 1:
		conn.WriteString("PONG")
	case name == "set" && len(cmd.Args) == 3:
		// redcon reuses the argument buffers: keep copies.
		val := append([]byte(nil), cmd.Args[2]...)
		s.mu.Lock()
		s.data[string(cmd.Args[1])] = val
		s.mu.Unlock()
		conn.WriteString("OK")
	case name == "get" && len(cmd.Args) == 2:
		s.mu.RLock()
		val, ok := s.data[string(cmd.Args[1])]
		s.mu.RUnlock()
		if ok {
			conn.WriteBulk(val)
		} else {
			conn.WriteNull()
		}
	default:
		conn.WriteError("ERR the ceiling server only serves PING, SET and GET")
	}
}

// serveCeiling runs the ceiling server on addr until the process is killed.
// The harness starts it as a separate process (its own binary with
// -serve-ceiling), so that it gets the same treatment as the real servers:
// its own PID, its own scheduler share, stopped by signal.
func serveCeiling(addr string) error {
	s := newCeilingStore()
	return redcon.ListenAndServe(addr, s.handle, nil, nil)
}
