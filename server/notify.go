package server

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/shaledb/shale/server/types"
)

// Keyspace notifications (notify-keyspace-events): after a write command
// that changed something, the events Redis emits for it are published on
// __keyspace@<db>__:<key> (the event's name) and __keyevent@<db>__:<event>
// (the key). Two sources, in Redis's order:
//   - what the write did to whole keys, as the types layer tells it
//     (types.WriteLog's facts): "new" and "expired" come before the
//     command's own events, "del" for a collection emptied after them;
//   - the command's own events, named in one table, writeEvents, below.
//
// Active expiry's "expired" comes from the types layer's OnExpired hook. A
// pipeline group's or a transaction's events wait for its commit, and are
// dropped if it fails. With notifications off, a write pays one atomic
// load.

// notifyClass is a set of Redis's NOTIFY_* classes.
type notifyClass uint32

const (
	notifyKeyspace notifyClass = 1 << iota // K
	notifyKeyevent                         // E
	notifyGeneric                          // g: DEL, EXPIRE, RENAME...
	notifyString                           // $
	notifyList                             // l
	notifySet                              // s
	notifyHash                             // h
	notifyZSet                             // z
	notifyExpired                          // x
	notifyEvicted                          // e: never fires, Shale does not evict
	notifyStream                           // t
	notifyKeyMiss                          // m
	notifyModule                           // d: never fires, Shale has no modules
	notifyNew                              // n
	notifyAll      = notifyGeneric | notifyString | notifyList | notifySet | notifyHash | notifyZSet |
		notifyExpired | notifyEvicted | notifyStream | notifyModule // A
)

// notifyLetters are the classes' letters, in the order Redis writes them.
var notifyLetters = []struct {
	class  notifyClass
	letter byte
}{
	{notifyGeneric, 'g'}, {notifyString, '$'}, {notifyList, 'l'}, {notifySet, 's'}, {notifyHash, 'h'},
	{notifyZSet, 'z'}, {notifyExpired, 'x'}, {notifyEvicted, 'e'}, {notifyStream, 't'},
	{notifyModule, 'd'}, {notifyNew, 'n'},
}

// parseNotifyClasses reads notify-keyspace-events, as Redis's
// keyspaceEventsStringToFlags; false for a letter it does not know.
func parseNotifyClasses(s string) (notifyClass, bool) {
	var f notifyClass
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case 'A':
			f |= notifyAll
		case 'K':
			f |= notifyKeyspace
		case 'E':
			f |= notifyKeyevent
		case 'm':
			f |= notifyKeyMiss
		default:
			found := false
			for _, l := range notifyLetters {
				if l.letter == c {
					f |= l.class
					found = true
				}
			}
			if !found {
				return 0, false
			}
		}
	}
	return f, true
}

// String writes the classes as Redis's keyspaceEventsFlagsToString does: A
// for all of A's classes (and then no n, a quirk of Redis's kept here).
func (f notifyClass) String() string {
	var b []byte
	if f&notifyAll == notifyAll {
		b = append(b, 'A')
	} else {
		for _, l := range notifyLetters {
			if f&l.class != 0 {
				b = append(b, l.letter)
			}
		}
	}
	for _, l := range []struct {
		class  notifyClass
		letter byte
	}{{notifyKeyspace, 'K'}, {notifyKeyevent, 'E'}, {notifyKeyMiss, 'm'}} {
		if f&l.class != 0 {
			b = append(b, l.letter)
		}
	}
	return string(b)
}

// notifyEventsValue is notify-keyspace-events' codec: CONFIG SET keeps
// the letters it was given, CONFIG GET answers Redis's spelling of them
// (which drops n beside A, as Redis's does).
var notifyEventsValue = valueCodec[string]{
	format: func(s string) string {
		f, _ := parseNotifyClasses(s)
		return f.String()
	},
	parse: func(s string) (string, error) {
		if _, ok := parseNotifyClasses(s); !ok {
			return "", errNotifyClass
		}
		return s, nil
	},
}

// keyEvent is one keyspace event: its class and name, and the key.
type keyEvent struct {
	class notifyClass
	name  string
	db    int
	key   []byte
}

// eventList collects the events of one write command.
type eventList struct {
	db     int
	events []keyEvent
	facts  []types.KeyFact
	done   []bool // facts whose event is in events
}

func (e *eventList) add(class notifyClass, name string, key []byte) {
	e.addIn(e.db, class, name, key)
}

// addIn is add for a key of another database (MOVE, COPY ... DB). The
// key's expired and new events go first, if not yet.
func (e *eventList) addIn(db int, class notifyClass, name string, key []byte) {
	e.factsOf(db, key)
	e.events = append(e.events, keyEvent{class, name, db, key})
}

// factsOf adds the expired and new events of a key now, if not yet: where
// Redis has them (RENAME's new, of its destination, before rename_from).
func (e *eventList) factsOf(db int, key []byte) {
	for i, f := range e.facts {
		if ev, ok := factBefore(f); ok && !e.done[i] && f.DB == db && string(f.Key) == string(key) {
			e.events = append(e.events, ev)
			e.done[i] = true
		}
	}
}

// has reports whether the write did kind to key (in the command's
// database).
func (e *eventList) has(kind types.FactKind, key []byte) bool {
	for _, f := range e.facts {
		if f.Kind == kind && f.DB == e.db && string(f.Key) == string(key) {
			return true
		}
	}
	return false
}

// changed is the first of keys whose collection the write changed or
// emptied: the key a multi-key pop (BLPOP, ZMPOP) popped from.
func (e *eventList) changed(keys [][]byte) []byte {
	for _, k := range keys {
		if e.has(types.KeySaved, k) || e.has(types.KeyEmptied, k) {
			return k
		}
	}
	return nil
}

// stored is the event of a command that stores a result in key
// (SINTERSTORE, ZUNIONSTORE, SORT ... STORE): its own name, or del when
// the result was empty and removed the key.
func (e *eventList) stored(class notifyClass, name string, key []byte) {
	if e.has(types.KeyRemoved, key) && !e.has(types.KeyCreated, key) && !e.has(types.KeySaved, key) {
		e.add(notifyGeneric, "del", key)
		return
	}
	e.add(class, name, key)
}

// expiring adds the expire event of a write that gave key a time to live
// (SET ... EX, GETEX ... PX) or persist when it took it away, and del when
// a time in the past removed the key.
func (e *eventList) expiring(args [][]byte, key []byte) {
	for _, a := range args {
		switch strings.ToLower(string(a)) {
		case "ex", "px", "exat", "pxat":
			if e.has(types.KeyRemoved, key) {
				e.add(notifyGeneric, "del", key)
			} else {
				e.add(notifyGeneric, "expire", key)
			}
			return
		case "persist":
			e.add(notifyGeneric, "persist", key)
			return
		}
	}
}

// pops names the event of a pop from the left or the right end.
func pops(left bool) string {
	if left {
		return "lpop"
	}
	return "rpop"
}

// pushes names the event of a push at the left or the right end.
func pushes(left bool) string {
	if left {
		return "lpush"
	}
	return "rpush"
}

// isLeft reads a LEFT|RIGHT or MIN|MAX argument: true for LEFT or MIN.
func isLeft(a []byte) bool {
	return strings.EqualFold(string(a), "left") || strings.EqualFold(string(a), "min")
}

// numkeysAt returns the keys of a command with numkeys at args[i]
// (ZUNIONSTORE, LMPOP) and the arguments after them.
func numkeysAt(args [][]byte, i int) (keys, rest [][]byte) {
	n, err := strconv.Atoi(string(args[i]))
	if err != nil || n < 0 || n > len(args)-i-1 { // i+1+n could overflow
		return nil, nil
	}
	return args[i+1 : i+1+n], args[i+1+n:]
}

// writeEvents are the events each write command emits once it changed
// something, as Redis 7.0 emits them: the one table of them. A command
// without a row emits only the facts' events.
var writeEvents = map[string]func(e *eventList, a [][]byte){
	// Keyspace.
	"del": func(e *eventList, a [][]byte) {
		for _, k := range a[1:] {
			if e.has(types.KeyRemoved, k) {
				e.add(notifyGeneric, "del", k)
			}
		}
	},
	"getdel":  func(e *eventList, a [][]byte) { e.add(notifyGeneric, "del", a[1]) },
	"expire":  func(e *eventList, a [][]byte) { e.expiring([][]byte{[]byte("ex")}, a[1]) },
	"persist": func(e *eventList, a [][]byte) { e.add(notifyGeneric, "persist", a[1]) },
	"rename": func(e *eventList, a [][]byte) {
		e.factsOf(e.db, a[2])
		e.add(notifyGeneric, "rename_from", a[1])
		e.add(notifyGeneric, "rename_to", a[2])
	},
	"move": func(e *eventList, a [][]byte) {
		db, _ := strconv.Atoi(string(a[2]))
		e.factsOf(db, a[1])
		e.add(notifyGeneric, "move_from", a[1])
		e.addIn(db, notifyGeneric, "move_to", a[1])
	},
	"copy": func(e *eventList, a [][]byte) {
		db := e.db
		for i := 3; i+1 < len(a); i++ {
			if strings.EqualFold(string(a[i]), "db") {
				db, _ = strconv.Atoi(string(a[i+1]))
			}
		}
		e.addIn(db, notifyGeneric, "copy_to", a[2])
	},
	// No keyspace event: client-side caching's flush (tracking.go).
	"flushdb": func(e *eventList, a [][]byte) { e.events = append(e.events, keyEvent{name: flushEvent, db: e.db}) },
	"sort": func(e *eventList, a [][]byte) {
		for i := 2; i+1 < len(a); i++ {
			if strings.EqualFold(string(a[i]), "store") {
				e.stored(notifyList, "sortstore", a[i+1])
			}
		}
	},
	// Strings.
	"set": func(e *eventList, a [][]byte) {
		e.add(notifyString, "set", a[1])
		e.expiring(a[3:], a[1])
	},
	"setex": func(e *eventList, a [][]byte) {
		e.add(notifyString, "set", a[1])
		e.add(notifyGeneric, "expire", a[1])
	},
	"mset": func(e *eventList, a [][]byte) {
		for i := 1; i+1 < len(a); i += 2 {
			e.add(notifyString, "set", a[i])
		}
	},
	"getex":       func(e *eventList, a [][]byte) { e.expiring(a[2:], a[1]) },
	"append":      func(e *eventList, a [][]byte) { e.add(notifyString, "append", a[1]) },
	"setrange":    func(e *eventList, a [][]byte) { e.add(notifyString, "setrange", a[1]) },
	"incrby":      func(e *eventList, a [][]byte) { e.add(notifyString, "incrby", a[1]) },
	"incrbyfloat": func(e *eventList, a [][]byte) { e.add(notifyString, "incrbyfloat", a[1]) },
	// HyperLogLogs. PFMERGE's event is pfadd too, as in Redis. PFCOUNT,
	// which wrote only when it stored the cardinality it computed in the
	// value's cache, emits no event, but the value changed: client-side
	// caching invalidates it (Redis's signalModifiedKey).
	"pfadd":   func(e *eventList, a [][]byte) { e.add(notifyString, "pfadd", a[1]) },
	"pfmerge": func(e *eventList, a [][]byte) { e.add(notifyString, "pfadd", a[1]) },
	"pfcount": func(e *eventList, a [][]byte) {
		e.events = append(e.events, keyEvent{name: "changed", db: e.db, key: a[1]})
	},
	// Bitmaps. SETBIT and BITFIELD's setbit is for a change of bits (or a
	// growth); BITOP's result is a set, or a del when empty.
	"setbit": func(e *eventList, a [][]byte) {
		if e.has(types.KeyBitsSet, a[1]) {
			e.add(notifyString, "setbit", a[1])
		}
	},
	"bitop": func(e *eventList, a [][]byte) { e.stored(notifyString, "set", a[2]) },
	// Hashes.
	"hset":         func(e *eventList, a [][]byte) { e.add(notifyHash, "hset", a[1]) },
	"hdel":         func(e *eventList, a [][]byte) { e.add(notifyHash, "hdel", a[1]) },
	"hincrby":      func(e *eventList, a [][]byte) { e.add(notifyHash, "hincrby", a[1]) },
	"hincrbyfloat": func(e *eventList, a [][]byte) { e.add(notifyHash, "hincrbyfloat", a[1]) },
	// Lists.
	"lpush":   func(e *eventList, a [][]byte) { e.add(notifyList, "lpush", a[1]) },
	"rpush":   func(e *eventList, a [][]byte) { e.add(notifyList, "rpush", a[1]) },
	"lpop":    func(e *eventList, a [][]byte) { e.add(notifyList, "lpop", a[1]) },
	"rpop":    func(e *eventList, a [][]byte) { e.add(notifyList, "rpop", a[1]) },
	"linsert": func(e *eventList, a [][]byte) { e.add(notifyList, "linsert", a[1]) },
	"lset":    func(e *eventList, a [][]byte) { e.add(notifyList, "lset", a[1]) },
	"lrem":    func(e *eventList, a [][]byte) { e.add(notifyList, "lrem", a[1]) },
	"ltrim":   func(e *eventList, a [][]byte) { e.add(notifyList, "ltrim", a[1]) },
	// A move's push comes before its pop, as in Redis.
	"rpoplpush": func(e *eventList, a [][]byte) {
		e.add(notifyList, "lpush", a[2])
		e.add(notifyList, "rpop", a[1])
	},
	"lmove": func(e *eventList, a [][]byte) {
		e.add(notifyList, pushes(isLeft(a[4])), a[2])
		e.add(notifyList, pops(isLeft(a[3])), a[1])
	},
	"blpop": func(e *eventList, a [][]byte) {
		if k := e.changed(a[1 : len(a)-1]); k != nil {
			e.add(notifyList, "lpop", k)
		}
	},
	"brpop": func(e *eventList, a [][]byte) {
		if k := e.changed(a[1 : len(a)-1]); k != nil {
			e.add(notifyList, "rpop", k)
		}
	},
	"lmpop": func(e *eventList, a [][]byte) {
		keys, rest := numkeysAt(a, 1)
		if k := e.changed(keys); k != nil && len(rest) > 0 {
			e.add(notifyList, pops(isLeft(rest[0])), k)
		}
	},
	"blmpop": func(e *eventList, a [][]byte) {
		keys, rest := numkeysAt(a, 2)
		if k := e.changed(keys); k != nil && len(rest) > 0 {
			e.add(notifyList, pops(isLeft(rest[0])), k)
		}
	},
	// Sets.
	"sadd": func(e *eventList, a [][]byte) { e.add(notifySet, "sadd", a[1]) },
	"srem": func(e *eventList, a [][]byte) { e.add(notifySet, "srem", a[1]) },
	"spop": func(e *eventList, a [][]byte) { e.add(notifySet, "spop", a[1]) },
	"smove": func(e *eventList, a [][]byte) {
		e.add(notifySet, "srem", a[1])
		e.add(notifySet, "sadd", a[2])
	},
	"sinterstore": func(e *eventList, a [][]byte) { e.stored(notifySet, "sinterstore", a[1]) },
	"sunionstore": func(e *eventList, a [][]byte) { e.stored(notifySet, "sunionstore", a[1]) },
	"sdiffstore":  func(e *eventList, a [][]byte) { e.stored(notifySet, "sdiffstore", a[1]) },
	// Sorted sets.
	"zadd": func(e *eventList, a [][]byte) {
		for _, x := range a[2:] {
			if strings.EqualFold(string(x), "incr") {
				e.add(notifyZSet, "zincr", a[1])
				return
			}
		}
		e.add(notifyZSet, "zadd", a[1])
	},
	"zincrby":          func(e *eventList, a [][]byte) { e.add(notifyZSet, "zincr", a[1]) },
	"zrem":             func(e *eventList, a [][]byte) { e.add(notifyZSet, "zrem", a[1]) },
	"zremrangebyscore": func(e *eventList, a [][]byte) { e.add(notifyZSet, "zremrangebyscore", a[1]) },
	"zremrangebyrank":  func(e *eventList, a [][]byte) { e.add(notifyZSet, "zremrangebyrank", a[1]) },
	"zremrangebylex":   func(e *eventList, a [][]byte) { e.add(notifyZSet, "zremrangebylex", a[1]) },
	"zunionstore":      func(e *eventList, a [][]byte) { e.stored(notifyZSet, "zunionstore", a[1]) },
	"zinterstore":      func(e *eventList, a [][]byte) { e.stored(notifyZSet, "zinterstore", a[1]) },
	"zdiffstore":       func(e *eventList, a [][]byte) { e.stored(notifyZSet, "zdiffstore", a[1]) },
	"zrangestore":      func(e *eventList, a [][]byte) { e.stored(notifyZSet, "zrangestore", a[1]) },
	"zpopmin":          func(e *eventList, a [][]byte) { e.add(notifyZSet, "zpopmin", a[1]) },
	// Geo: GEOADD is ZADD; a search's STORE names its command.
	"geoadd":         func(e *eventList, a [][]byte) { e.add(notifyZSet, "zadd", a[1]) },
	"geosearchstore": func(e *eventList, a [][]byte) { e.stored(notifyZSet, "geosearchstore", a[1]) },
	"georadius": func(e *eventList, a [][]byte) {
		if dst := geoStoreKey(a); dst != nil {
			e.stored(notifyZSet, "georadiusstore", dst)
		}
	},
	"georadiusbymember": func(e *eventList, a [][]byte) {
		if dst := geoStoreKey(a); dst != nil {
			e.stored(notifyZSet, "georadiusstore", dst)
		}
	},
	"zpopmax": func(e *eventList, a [][]byte) { e.add(notifyZSet, "zpopmax", a[1]) },
	"bzpopmin": func(e *eventList, a [][]byte) {
		if k := e.changed(a[1 : len(a)-1]); k != nil {
			e.add(notifyZSet, "zpopmin", k)
		}
	},
	"bzpopmax": func(e *eventList, a [][]byte) {
		if k := e.changed(a[1 : len(a)-1]); k != nil {
			e.add(notifyZSet, "zpopmax", k)
		}
	},
	"zmpop": func(e *eventList, a [][]byte) {
		keys, rest := numkeysAt(a, 1)
		if k := e.changed(keys); k != nil && len(rest) > 0 {
			e.add(notifyZSet, "zpop"+strings.ToLower(string(rest[0])), k)
		}
	},
	"bzmpop": func(e *eventList, a [][]byte) {
		keys, rest := numkeysAt(a, 2)
		if k := e.changed(keys); k != nil && len(rest) > 0 {
			e.add(notifyZSet, "zpop"+strings.ToLower(string(rest[0])), k)
		}
	},
	// Streams: XADD's trim is an xtrim after its xadd.
	"xadd": func(e *eventList, a [][]byte) {
		e.add(notifyStream, "xadd", a[1])
		if e.has(types.KeyTrimmed, a[1]) {
			e.add(notifyStream, "xtrim", a[1])
		}
	},
	"xdel":   func(e *eventList, a [][]byte) { e.add(notifyStream, "xdel", a[1]) },
	"xtrim":  func(e *eventList, a [][]byte) { e.add(notifyStream, "xtrim", a[1]) },
	"xsetid": func(e *eventList, a [][]byte) { e.add(notifyStream, "xsetid", a[1]) },
	// Consumer groups (cmd_stream_group.go): an XGROUP subcommand that
	// wrote did what its event says; the others name the consumers they
	// made.
	"xgroup": func(e *eventList, a [][]byte) {
		if len(a) > 2 {
			e.add(notifyStream, "xgroup-"+strings.ToLower(string(a[1])), a[2])
		}
	},
	"xreadgroup": func(e *eventList, a [][]byte) {
		for _, i := range xreadKeys(a) {
			if e.has(types.KeyConsumerCreated, a[i]) {
				e.add(notifyStream, "xgroup-createconsumer", a[i])
			}
		}
	},
	"xclaim":     consumerCreatedEvent,
	"xautoclaim": consumerCreatedEvent,
}

// writeEventAliases are commands whose events are another's.
var writeEventAliases = map[string]string{
	"unlink": "del", "pexpire": "expire", "expireat": "expire", "pexpireat": "expire",
	"renamenx": "rename", "setnx": "set", "psetex": "setex", "getset": "set",
	"msetnx": "mset", "incr": "incrby", "decr": "incrby", "decrby": "incrby",
	"hsetnx": "hset", "hmset": "hset", "lpushx": "lpush", "rpushx": "rpush",
	"brpoplpush": "rpoplpush", "blmove": "lmove", "flushall": "flushdb",
	"bitfield": "setbit",
}

func init() {
	for alias, of := range writeEventAliases {
		writeEvents[alias] = writeEvents[of]
	}
}

// orderEvents appends the events of the command c ran, whose writes did
// facts, to out, in Redis's order: a key's "expired" and "new" just before
// the command's first event on it (MSET: new, set, new, set), those of keys
// the command names no event for first of all; "del" for a collection
// emptied after the command's events.
func orderEvents(out []keyEvent, c *Ctx, facts []types.KeyFact) []keyEvent {
	e := &eventList{db: c.DB.Index(), facts: facts, done: make([]bool, len(facts))}
	if rule := writeEvents[c.cmd.Name]; rule != nil {
		rule(e, c.args)
	}
	for i, f := range facts {
		if ev, ok := factBefore(f); ok && !e.done[i] {
			out = append(out, ev)
		}
	}
	out = append(out, e.events...)
	for _, f := range facts {
		if f.Kind == types.KeyEmptied {
			out = append(out, keyEvent{notifyGeneric, "del", f.DB, f.Key})
		}
	}
	return out
}

// factBefore is the event a fact makes before the command's own: expired
// or new.
func factBefore(f types.KeyFact) (keyEvent, bool) {
	switch f.Kind {
	case types.KeyExpired:
		return keyEvent{notifyExpired, "expired", f.DB, f.Key}, true
	case types.KeyCreated:
		return keyEvent{notifyNew, "new", f.DB, f.Key}, true
	}
	return keyEvent{}, false
}

// setNotify applies notify-keyspace-events, validated.
func (s *Server) setNotify(classes string) {
	f, _ := parseNotifyClasses(classes)
	s.notify.Store(uint32(f))
}

// beginEvents readies the client's write log for the running command.
func (s *Server) beginEvents(c *Ctx) {
	log := &c.Client.log
	// Client-side caching invalidates what the events name (tracking.go).
	log.KeepFacts = s.notify.Load() != 0 || s.tracking.used.Load() || s.blocking.onLoss.Load() != 0
	c.writesBefore = log.Writes
}

// endEvents turns what the running command wrote into its events, and
// publishes them, or keeps them for the commit of the client's pipeline
// group or transaction.
func (s *Server) endEvents(c *Ctx) {
	log := &c.Client.log
	cl := c.Client
	if !log.KeepFacts {
		if s.tracking.used.Load() && log.Writes != c.writesBefore {
			// Tracking came on while the command ran (trackingOn): no
			// facts, so every key it may have changed is invalidated.
			cl.events = appendChanged(cl.events, c)
			if !cl.pipe.active() && !cl.atomicRun.active {
				s.publishEvents(cl)
			}
		}
		return
	}
	if log.Writes != c.writesBefore {
		cl.events = orderEvents(cl.events, c, log.Facts)
		if _, named := writeEvents[c.cmd.Name]; !named && c.cmd.Flags&Write != 0 && s.tracking.used.Load() {
			// A write without a row names no event for the keys it only
			// changed: client-side caching invalidates all it may change.
			cl.events = appendChanged(cl.events, c)
		}
	}
	alone := !cl.pipe.active() && !cl.atomicRun.active
	if alone {
		s.publishEvents(cl)
	}
	// Keys the command found expired go now, with their expired event, as
	// Redis deletes a key its lookup finds expired; in a group or a
	// transaction, which hold locks, active expiry's goroutine does it. A
	// read's lookups that found nothing make keymiss events, after that.
	expired := false
	for _, f := range log.Facts {
		switch f.Kind {
		case types.KeyFoundExpired:
			if alone || !cl.pipe.active() || cl.atomicRun.active {
				s.eng.ExpireFound(f, alone)
			} else {
				// The group holds the key's lock: the key goes at its
				// commit (expireFoundInGroup), before the group's
				// events, as Redis sends expired before keymiss.
				f.Key = bytes.Clone(f.Key)
				cl.pipe.expired = append(cl.pipe.expired, f)
			}
			expired = true
			if missNotifies(c.cmd, c.args, f.Key) {
				s.keyMissed(cl, f, alone)
			}
		case types.KeyMissed:
			if missNotifies(c.cmd, c.args, f.Key) {
				s.keyMissed(cl, f, alone)
			}
		}
	}
	s.signalKeysLost(c, log.Facts)
	clear(log.Facts)
	log.Facts = log.Facts[:0]
	if expired && alone {
		// The removal invalidated the keys the command read, its reader
		// too; Redis remembers them after the command (tracking.go).
		s.trackReads(c)
	}
}

// publishEvents publishes the client's events, then forgets them.
func (s *Server) publishEvents(cl *Client) {
	s.publishSome(cl, cl.events)
	s.dropEvents(cl)
}

// publishSome publishes events, some of cl's, and sends their
// invalidations.
func (s *Server) publishSome(cl *Client, events []keyEvent) {
	for _, ev := range events {
		s.publishEvent(ev)
	}
	s.invalidateEvents(cl, events)
}

// dropEvents forgets the client's events: its group or transaction wrote
// nothing.
func (s *Server) dropEvents(cl *Client) {
	clear(cl.events)
	cl.events = cl.events[:0]
}

// missNotifies reports whether cmd's lookup of key, which found nothing,
// makes a keymiss event, as Redis's read lookups (lookupKeyRead) do: every
// lookup of a read command, none of a write command's, but for the writes
// that read their source first, and OBJECT's, which do not notify.
func missNotifies(cmd *Command, args [][]byte, key []byte) bool {
	switch cmd.Name {
	case "object":
		return false
	case "getex", "getdel", "pfmerge": // PFMERGE reads its destination as a source first
		return true
	case "copy":
		return string(key) == string(args[1])
	case "georadius", "georadiusbymember": // a search, writing only with STORE
		return string(key) == string(args[1])
	case "geosearchstore":
		return string(key) == string(args[2])
	case "sort":
		// Its source and its BY and GET patterns' keys, not its STORE key.
		for i := 2; i+1 < len(args); i++ {
			if strings.EqualFold(string(args[i]), "store") && string(args[i+1]) == string(key) {
				return false
			}
		}
		return true
	}
	return cmd.Flags&ReadOnly != 0
}

// keyMissed publishes the keymiss event of a read's lookup that found
// nothing, or keeps it for the client's group's commit.
func (s *Server) keyMissed(cl *Client, f types.KeyFact, alone bool) {
	ev := keyEvent{notifyKeyMiss, "keymiss", f.DB, f.Key}
	if alone {
		s.publishEvent(ev)
		return
	}
	cl.events = append(cl.events, ev)
}

// keyExpired publishes the expired event of a key active expiry removed.
func (s *Server) keyExpired(db int, key []byte) {
	ev := keyEvent{notifyExpired, "expired", db, key}
	s.publishEvent(ev)
	if s.tracking.used.Load() {
		s.invalidateEvents(nil, []keyEvent{ev})
	}
}

// publishEvent publishes ev on the channels notify-keyspace-events asks
// for.
func (s *Server) publishEvent(ev keyEvent) {
	f := notifyClass(s.notify.Load())
	if f&ev.class == 0 {
		return
	}
	db := strconv.Itoa(ev.db)
	if f&notifyKeyspace != 0 {
		s.publish(channelSub, []byte("__keyspace@"+db+"__:"+string(ev.key)), []byte(ev.name))
	}
	if f&notifyKeyevent != 0 {
		s.publish(channelSub, []byte("__keyevent@"+db+"__:"+ev.name), ev.key)
	}
}
