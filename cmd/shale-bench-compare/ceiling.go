package main

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/tidwall/redcon"
)

// ceilingStore is the whole state of the in-memory ceiling server: every
// key in one map behind one mutex. It serves the commands of
// redis-benchmark's main tests (SET, GET, INCR, LPUSH, RPUSH, LPOP, SADD,
// HSET, ZADD, LRANGE), with the replies Redis gives them and no more, so
// its throughput is what a Go server over redcon can reach on this machine
// before it does any storage work at all. The ceiling was such a
// server too.
type ceilingStore struct {
	mu   sync.RWMutex
	data map[string]any // []byte, *ceilingList, ceilingSet, ceilingHash or ceilingZSet
}

type (
	ceilingSet  map[string]struct{}
	ceilingHash map[string][]byte
	// ceilingZSet keeps each member's score and no order: ZADD needs no
	// more.
	ceilingZSet map[string]float64
)

// ceilingList is a deque: front holds the elements before back's, in
// reverse, so that LPUSH and RPUSH both append and LPOP takes from the end
// of front (or the start of back once front is empty).
type ceilingList struct {
	front, back [][]byte
}

func (l *ceilingList) len() int { return len(l.front) + len(l.back) }

func (l *ceilingList) at(i int) []byte {
	if i < len(l.front) {
		return l.front[len(l.front)-1-i]
	}
	return l.back[i-len(l.front)]
}

func (l *ceilingList) popFront() []byte {
	if n := len(l.front); n > 0 {
		v := l.front[n-1]
		l.front = l.front[:n-1]
		return v
	}
	v := l.back[0]
	l.back = l.back[1:]
	return v
}

func newCeilingStore() *ceilingStore {
	return &ceilingStore{data: make(map[string]any)}
}

// The ceiling's error replies, Redis's texts.
var (
	errCeilingWrongType = errors.New("WRONGTYPE Operation against a key holding the wrong kind of value")
	errCeilingNotInt    = errors.New("ERR value is not an integer or out of range")
	errCeilingOverflow  = errors.New("ERR increment or decrement would overflow")
	errCeilingNotFloat  = errors.New("ERR value is not a valid float")
)

// ceilingCommand is one command the ceiling serves. Arity counts the name,
// -N meaning at least N, as in Redis's COMMAND; pairs: the arguments after
// the key come in pairs (HSET's field and value, ZADD's score and member).
// run holds the write lock, or the read lock when readOnly.
type ceilingCommand struct {
	arity    int
	pairs    bool
	readOnly bool
	run      func(s *ceilingStore, conn redcon.Conn, args [][]byte) error
}

var ceilingCommands = map[string]ceilingCommand{
	"ping":   {arity: 1, readOnly: true, run: (*ceilingStore).ping},
	"set":    {arity: 3, run: (*ceilingStore).set},
	"get":    {arity: 2, readOnly: true, run: (*ceilingStore).get},
	"incr":   {arity: 2, run: (*ceilingStore).incr},
	"lpush":  {arity: -3, run: (*ceilingStore).lpush},
	"rpush":  {arity: -3, run: (*ceilingStore).rpush},
	"lpop":   {arity: 2, run: (*ceilingStore).lpop},
	"lrange": {arity: 4, readOnly: true, run: (*ceilingStore).lrange},
	"sadd":   {arity: -3, run: (*ceilingStore).sadd},
	"hset":   {arity: -4, pairs: true, run: (*ceilingStore).hset},
	"zadd":   {arity: -4, pairs: true, run: (*ceilingStore).zadd},
}

// handle checks the command's name and arity, runs it under the store's
// lock and writes its error, if any; every other command gets an error.
func (s *ceilingStore) handle(conn redcon.Conn, cmd redcon.Command) {
	name := strings.ToLower(string(cmd.Args[0]))
	c, ok := ceilingCommands[name]
	if !ok {
		conn.WriteError("ERR the ceiling server does not serve '" + name + "'")
		return
	}
	n := len(cmd.Args)
	if (c.arity > 0 && n != c.arity) || (c.arity < 0 && n < -c.arity) || (c.pairs && n%2 != 0) {
		conn.WriteError("ERR wrong number of arguments for '" + name + "' command")
		return
	}
	if c.readOnly {
		s.mu.RLock()
		defer s.mu.RUnlock()
	} else {
		s.mu.Lock()
		defer s.mu.Unlock()
	}
	if err := c.run(s, conn, cmd.Args); err != nil {
		conn.WriteError(err.Error())
	}
}

// copyArg copies an argument: redcon reuses their buffers.
func copyArg(b []byte) []byte { return append([]byte(nil), b...) }

// lookup returns key's value as a T; ok is false when key does not exist,
// and the error is WRONGTYPE when it holds another type.
func lookup[T any](s *ceilingStore, key []byte) (v T, ok bool, err error) {
	raw, found := s.data[string(key)]
	if !found {
		return v, false, nil
	}
	if v, ok = raw.(T); !ok {
		return v, false, errCeilingWrongType
	}
	return v, true, nil
}

// PING
func (s *ceilingStore) ping(conn redcon.Conn, _ [][]byte) error {
	conn.WriteString("PONG")
	return nil
}

// SET key value
func (s *ceilingStore) set(conn redcon.Conn, args [][]byte) error {
	s.data[string(args[1])] = copyArg(args[2])
	conn.WriteString("OK")
	return nil
}

// GET key
func (s *ceilingStore) get(conn redcon.Conn, args [][]byte) error {
	v, ok, err := lookup[[]byte](s, args[1])
	switch {
	case err != nil:
		return err
	case ok:
		conn.WriteBulk(v)
	default:
		conn.WriteNull()
	}
	return nil
}

// INCR key
func (s *ceilingStore) incr(conn redcon.Conn, args [][]byte) error {
	v, ok, err := lookup[[]byte](s, args[1])
	if err != nil {
		return err
	}
	var n int64
	if ok {
		if n, err = strconv.ParseInt(string(v), 10, 64); err != nil {
			return errCeilingNotInt
		}
	}
	if n == math.MaxInt64 {
		return errCeilingOverflow
	}
	n++
	s.data[string(args[1])] = strconv.AppendInt(nil, n, 10)
	conn.WriteInt64(n)
	return nil
}

// LPUSH key element [element ...]
func (s *ceilingStore) lpush(conn redcon.Conn, args [][]byte) error {
	return s.push(conn, args, func(l *ceilingList, v []byte) { l.front = append(l.front, v) })
}

// RPUSH key element [element ...]
func (s *ceilingStore) rpush(conn redcon.Conn, args [][]byte) error {
	return s.push(conn, args, func(l *ceilingList, v []byte) { l.back = append(l.back, v) })
}

// push adds each element of args[2:] to key's list, made if missing, with
// add, and replies with the list's length.
func (s *ceilingStore) push(conn redcon.Conn, args [][]byte, add func(*ceilingList, []byte)) error {
	l, ok, err := lookup[*ceilingList](s, args[1])
	if err != nil {
		return err
	}
	if !ok {
		l = &ceilingList{}
		s.data[string(args[1])] = l
	}
	for _, v := range args[2:] {
		add(l, copyArg(v))
	}
	conn.WriteInt(l.len())
	return nil
}

// LPOP key
func (s *ceilingStore) lpop(conn redcon.Conn, args [][]byte) error {
	l, ok, err := lookup[*ceilingList](s, args[1])
	if err != nil {
		return err
	}
	if !ok {
		conn.WriteNull()
		return nil
	}
	conn.WriteBulk(l.popFront())
	if l.len() == 0 {
		delete(s.data, string(args[1]))
	}
	return nil
}

// LRANGE key start stop, with Redis's negative indexes and clamping.
func (s *ceilingStore) lrange(conn redcon.Conn, args [][]byte) error {
	start, err1 := strconv.Atoi(string(args[2]))
	stop, err2 := strconv.Atoi(string(args[3]))
	if err1 != nil || err2 != nil {
		return errCeilingNotInt
	}
	l, ok, err := lookup[*ceilingList](s, args[1])
	if err != nil {
		return err
	}
	n := 0
	if ok {
		n = l.len()
	}
	if start < 0 {
		start = max(n+start, 0)
	}
	if stop < 0 {
		stop = n + stop
	}
	stop = min(stop, n-1)
	if start > stop {
		conn.WriteArray(0)
		return nil
	}
	conn.WriteArray(stop - start + 1)
	for i := start; i <= stop; i++ {
		conn.WriteBulk(l.at(i))
	}
	return nil
}

// SADD key member [member ...]
func (s *ceilingStore) sadd(conn redcon.Conn, args [][]byte) error {
	set, ok, err := lookup[ceilingSet](s, args[1])
	if err != nil {
		return err
	}
	if !ok {
		set = ceilingSet{}
		s.data[string(args[1])] = set
	}
	added := 0
	for _, m := range args[2:] {
		if _, found := set[string(m)]; !found {
			set[string(m)] = struct{}{}
			added++
		}
	}
	conn.WriteInt(added)
	return nil
}

// HSET key field value [field value ...]
func (s *ceilingStore) hset(conn redcon.Conn, args [][]byte) error {
	h, ok, err := lookup[ceilingHash](s, args[1])
	if err != nil {
		return err
	}
	if !ok {
		h = ceilingHash{}
		s.data[string(args[1])] = h
	}
	added := 0
	for i := 2; i < len(args); i += 2 {
		if _, found := h[string(args[i])]; !found {
			added++
		}
		h[string(args[i])] = copyArg(args[i+1])
	}
	conn.WriteInt(added)
	return nil
}

// ZADD key score member [score member ...], without ZADD's flags.
func (s *ceilingStore) zadd(conn redcon.Conn, args [][]byte) error {
	z, ok, err := lookup[ceilingZSet](s, args[1])
	if err != nil {
		return err
	}
	scores := make([]float64, 0, (len(args)-2)/2)
	for i := 2; i < len(args); i += 2 {
		f, err := strconv.ParseFloat(string(args[i]), 64)
		if err != nil || math.IsNaN(f) {
			return errCeilingNotFloat // before any change, as Redis
		}
		scores = append(scores, f)
	}
	if !ok {
		z = ceilingZSet{}
		s.data[string(args[1])] = z
	}
	added := 0
	for i, f := range scores {
		m := string(args[3+2*i])
		if _, found := z[m]; !found {
			added++
		}
		z[m] = f
	}
	conn.WriteInt(added)
	return nil
}

// serveCeiling runs the ceiling server on addr until the process is killed.
// The harness starts it as a separate process (its own binary with
// -serve-ceiling), so that it gets the same treatment as the real servers:
// its own PID, its own scheduler share, stopped by signal.
func serveCeiling(addr string) error {
	s := newCeilingStore()
	return redcon.ListenAndServe(addr, s.handle, nil, nil)
}
