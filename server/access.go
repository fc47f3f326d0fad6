package server

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shaledb/shale/server/types"
)

// The access clock behind OBJECT IDLETIME: when each key was last read or
// written, in whole seconds since the server started, as Redis's LRU clock
// (one second of resolution, reset by a restart) keeps it in every object.
//
// Shale keeps it in memory only, and bounded: a key is a 64-bit hash of
// its database's identity and its name (a collision, at odds of 2^-64 per
// pair, makes two keys share a time). Each of accessShards shards holds
// two generations of at most accessShardCap/2 entries: touches go to the
// current one; when it is full it becomes the previous one and the
// previous one is dropped. A dropped key was last touched before the
// rotation that preceded this one, so a key found in neither generation has
// been idle at least since then (floor); a key the shard never dropped was
// not touched since the server started, which is Redis's answer for a key
// loaded at start-up. Either way the answer never overstates how recently a
// key was used.
//
// The dispatcher's call touches the keys its table row names (keyPositions'
// rule, without its allocation) once the command has run, with the time it
// already read to measure the command: one hash, one lock of one shard and
// one map write per key. Commands flagged NoTouch (EXISTS, TYPE, TTL,
// OBJECT, MEMORY USAGE: Redis's LOOKUP_NOTOUCH lookups) and keyed commands
// that neither read nor write (WATCH) touch nothing. Keys are touched
// whether or not they exist: a missing key costs an entry until its
// generation is dropped.
//
// A database's identity starts as its index; SWAPDB swaps two identities
// (swapDBs), so that idle times follow the data, in O(1).

const (
	accessShards   = 64
	accessShardCap = 1 << 14 // entries per shard, both generations: 1Mi keys, about 40 MB at most
)

// accessClock is the server's access clock; the zero value is not usable:
// call init.
type accessClock struct {
	seed   maphash.Seed
	dbIDs  []atomic.Uint64 // database index -> identity hashed into its keys
	shards [accessShards]accessShard
}

type accessShard struct {
	mu        sync.Mutex
	cur, prev map[uint64]uint32 // key hash -> seconds since start of its last touch
	rotated   uint32            // when cur was started (seconds since start)
	floor     uint32            // keys dropped so far were last touched before it
	dropped   bool              // a generation was dropped: floor holds
}

func (a *accessClock) init(databases int) {
	a.seed = maphash.MakeSeed()
	a.dbIDs = make([]atomic.Uint64, databases)
	for i := range a.dbIDs {
		a.dbIDs[i].Store(uint64(i))
	}
	for i := range a.shards {
		a.shards[i].cur = make(map[uint64]uint32)
	}
}

// accessSeconds converts a monoNow reading to the clock's seconds. The
// clock starts at clockBase, which is process start: close enough to the
// server's start, and the same for every reading.
func accessSeconds(mono time.Duration) uint32 { return uint32(mono / time.Second) }

// hash is the map key of key in database db.
func (a *accessClock) hash(db int, key []byte) uint64 {
	h := maphash.Bytes(a.seed, key)
	// Mix in the identity so that the same name in two databases differs.
	return h ^ (a.dbIDs[db].Load()+1)*0x9e3779b97f4a7c15
}

// touch records an access of key in database db at now (accessSeconds).
func (a *accessClock) touch(db int, key []byte, now uint32) {
	h := a.hash(db, key)
	sh := &a.shards[h%accessShards]
	sh.mu.Lock()
	if len(sh.cur) >= accessShardCap/2 {
		if _, ok := sh.cur[h]; !ok {
			sh.rotate(now)
		}
	}
	sh.cur[h] = now
	sh.mu.Unlock()
}

// rotate drops the previous generation and starts a new current one.
// Entries in the dropped generation were touched before the last rotation
// at the latest, which becomes the floor.
func (sh *accessShard) rotate(now uint32) {
	if len(sh.prev) > 0 {
		sh.floor, sh.dropped = sh.rotated, true
	}
	sh.prev, sh.cur = sh.cur, make(map[uint64]uint32, accessShardCap/2)
	sh.rotated = now
}

// idle returns the seconds since key in database db was last touched, as
// of now (accessSeconds); see accessClock for a key it no longer holds.
func (a *accessClock) idle(db int, key []byte, now uint32) int64 {
	h := a.hash(db, key)
	sh := &a.shards[h%accessShards]
	sh.mu.Lock()
	at, ok := sh.cur[h]
	if !ok {
		at, ok = sh.prev[h]
	}
	if !ok && sh.dropped {
		at = sh.floor
	}
	sh.mu.Unlock()
	if at > now { // a touch in a second that started after now was read
		return 0
	}
	return int64(now - at)
}

// swapDBs makes database x hold y's keys' access times and y x's: SWAPDB.
func (a *accessClock) swapDBs(x, y int) {
	ix, iy := a.dbIDs[x].Load(), a.dbIDs[y].Load()
	a.dbIDs[x].Store(iy)
	a.dbIDs[y].Store(ix)
}

// touchKeys touches the keys of a call of cmd that ran in database db and
// ended at end (a monoNow reading).
func (a *accessClock) touchKeys(cmd *Command, args [][]byte, db int, end time.Duration) {
	if cmd.Flags&(Write|ReadOnly) == 0 || cmd.Flags&NoTouch != 0 {
		return
	}
	now := accessSeconds(end)
	if cmd.Keys != nil {
		for _, i := range cmd.Keys(args) {
			a.touch(db, args[i], now)
		}
		return
	}
	if cmd.FirstKey == 0 {
		return
	}
	last := cmd.LastKey
	if last < 0 {
		last += len(args)
	}
	for i := cmd.FirstKey; i <= last && i < len(args); i += max(cmd.Step, 1) {
		a.touch(db, args[i], now)
	}
	if to, key, ok := movedTo(cmd, args, len(a.dbIDs)); ok {
		a.touch(to, key, now)
	}
}

// movedTo finds the key a call of MOVE, or of COPY with DB, puts in
// another database, which Redis counts as accessed there too.
func movedTo(cmd *Command, args [][]byte, databases int) (db int, key []byte, ok bool) {
	var arg []byte
	switch cmd.Name {
	case "move":
		arg, key = args[2], args[1]
	case "copy":
		for i := 3; i+1 < len(args); i++ {
			if is(args[i], "DB") {
				arg, key = args[i+1], args[2]
			}
		}
	}
	if arg == nil {
		return 0, nil, false
	}
	n, isInt := types.ParseInt(arg)
	if !isInt || n < 0 || n >= int64(databases) {
		return 0, nil, false
	}
	return int(n), key, true
}
