package types

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/shaledb/shale/server/store"
	"github.com/shaledb/shale/subkey"
)

// DefaultMaxStringBytes is Redis's default proto-max-bulk-len: no string
// value may grow beyond it through APPEND, SETRANGE and the like, unless
// SetMaxStringBytes says otherwise.
const DefaultMaxStringBytes = 512 << 20

// Engine serves every logical database of one store.
type Engine struct {
	st      *store.Store
	log     zerolog.Logger
	dbs     []*DB
	now     func() int64
	expiry  *activeExpiry
	cursors *cursorTable
	churn   churnTable // members removed under each set's and hash's uid (churn.go)
	// maxString is the largest a string value may grow to, in bytes.
	maxString atomic.Int64
	// encLimits are the encoding limits (encoding.go); nil until set, which
	// means DefaultEncodingLimits.
	encLimits atomic.Pointer[EncodingLimits]
}

// New returns an Engine over st. Call Start to begin active expiry and Stop
// before closing the store.
func New(st *store.Store, log zerolog.Logger) *Engine {
	e := &Engine{st: st, log: log.With().Str("component", "types").Logger(), now: nowMs, cursors: newCursorTable()}
	e.dbs = make([]*DB, st.Databases())
	for i := range e.dbs {
		e.dbs[i] = &DB{e: e, st: st, rd: st, n: i}
	}
	e.expiry = newActiveExpiry(e)
	e.maxString.Store(DefaultMaxStringBytes)
	return e
}

// SetMaxStringBytes sets the largest a string value may grow to through
// APPEND and SETRANGE (the server's proto_max_bulk_len).
func (e *Engine) SetMaxStringBytes(n int64) { e.maxString.Store(n) }

func nowMs() int64 { return time.Now().UnixMilli() }

// Now is the engine's clock, in unix ms: what expiry compares with.
func (e *Engine) Now() int64 { return e.now() }

// Store is the engine's store (INFO, COMPACT and CONFIG read it).
func (e *Engine) Store() *store.Store { return e.st }

// Databases is the number of logical databases.
func (e *Engine) Databases() int { return len(e.dbs) }

// DB returns logical database n, or ErrDBIndex.
func (e *Engine) DB(n int) (*DB, error) {
	if n < 0 || n >= len(e.dbs) {
		return nil, ErrDBIndex
	}
	return e.dbs[n], nil
}

// DB is one logical database (SELECT index).
type DB struct {
	e  *Engine
	st *store.Store
	// rd is what the database reads: st, or a snapshot of it in a view
	// that atSnapshot made.
	rd store.Reader
	n  int // the logical database: the index SELECT names
	// pinned, set in a snapshot view, fixes the physical database to idx,
	// the one that held n when the snapshot was taken; other views ask
	// the store's map (phys).
	pinned bool
	idx    uint16
	// grp, when set, is the pipeline group this view of the database runs
	// in: the caller took the command's key locks through it, and writes
	// go to its batch (InGroup).
	grp *store.Group
	// snapshot is set in a view that reads a snapshot: it takes no locks
	// and must not write.
	snapshot bool
	// log, when set, is the write log of the client whose view this is
	// (writelog.go).
	log *WriteLog
}

// WalkLockedUpTo is the most records a read walks while it holds its
// keys' locks; a longer walk reads a snapshot instead (walkView).
const WalkLockedUpTo = 512

// walkView returns the view of d that a read-only command walks records
// through once it has loaded its keys' metadata under their locks, and the
// function to call when done. A walk of up to WalkLockedUpTo records reads
// d itself, the locks held. A longer one (HGETALL, SMEMBERS or LRANGE of a
// big key, SINTER, SORT) reads a snapshot taken while the locks are still
// held, so that it agrees with the metadata loaded, and lets the locks go:
// each command's writes land in one batch, so the snapshot is consistent
// on its own, and the walk, however long, holds up no writer of those
// keys, of the keys sharing their lock stripes, or FLUSHALL. unlock is the
// caller's deferred Unlock, replaced by a no-op once called.
func (d *DB) walkView(records uint64, unlock *store.Unlock) (*DB, func()) {
	if records <= WalkLockedUpTo || d.grp != nil || d.snapshot {
		return d, noUnlock
	}
	sn := d.st.Snapshot()
	v := *d
	v.rd, v.snapshot = sn, true
	// A SWAPDB may run once the locks go: the view keeps reading the
	// database the snapshot holds (SORT's GET patterns load other keys).
	v.idx, v.pinned = d.phys(), true
	(*unlock)()
	*unlock = noUnlock
	return &v, sn.Release
}

// phys is the physical database of d (store/dbmap.go): the db field of
// its records, the one its counters are kept under. A caller that holds a
// key lock, or the world lock, reads the same one throughout: SWAPDB takes
// the world lock's write side.
func (d *DB) phys() uint16 {
	switch {
	case d.pinned:
		return d.idx
	case d.grp != nil:
		return d.grp.PhysicalDB(d.n)
	}
	return d.st.PhysicalDB(d.n)
}

// InGroup returns a view of d whose commands run in group g: the caller has
// already added the command's keys to g (store.Group.TryLock), locking
// them, and the command's writes join g's batch, to be written by
// g.Commit. Only commands that touch nothing but the keys they lock may run
// in a group; the server's command table marks them.
//
// A transaction's group (store.BeginTxn) holds its locks from the start,
// and its commands read through it, so that each reads what the earlier
// ones wrote.
func (d *DB) InGroup(g *store.Group) *DB {
	v := *d
	v.grp = g
	if r := g.Reader(); r != nil {
		v.rd = r
	}
	return &v
}

// Group returns the group d's commands run in (InGroup), or nil.
func (d *DB) Group() *store.Group { return d.grp }

// sameView returns to as d sees it: in d's group, if d runs in one, and
// writing into d's log.
func (d *DB) sameView(to *DB) *DB {
	v := to
	if d.grp != nil {
		v = to.InGroup(d.grp)
	} else {
		c := *to
		v = &c
	}
	v.log = d.log
	return v
}

// Index is the database number.
func (d *DB) Index() int { return d.n }

func (d *DB) lock(keys ...[]byte) store.Unlock {
	if d.snapshot {
		return noUnlock
	}
	lk := make([]store.LockKey, len(keys))
	for i, k := range keys {
		lk[i] = store.LockKey{DB: d.n, Key: k}
	}
	return d.lockAcross(lk...)
}

// lockWorld excludes every other command (FLUSHDB, FLUSHALL). A group
// that runs such a command holds the world already: only a transaction's
// does (store.BeginTxn).
func (d *DB) lockWorld() store.Unlock {
	if d.grp != nil {
		if invariants && !d.grp.Exclusive() {
			panic("types: a command of a pipeline group takes the world lock")
		}
		return noUnlock
	}
	return d.st.LockWorld()
}

// lockAcross locks keys that may lie in several databases (MOVE, COPY).
func (d *DB) lockAcross(lk ...store.LockKey) store.Unlock {
	if d.grp != nil {
		// The group took the locks before the command ran, and releases
		// them at its commit.
		if !d.grp.Holds(lk...) {
			// A command marked for groups locks a key its table row does
			// not name: a bug, which the invariants build reports. Waiting
			// for the key while the group holds others could deadlock
			// against another group, but it is the only way on that is
			// still correct.
			if invariants {
				panic(fmt.Sprintf("types: grouped command locks %v, which its group does not hold", lk))
			}
			d.grp.Wait(lk...)
		}
		return noUnlock
	}
	return d.st.Lock(lk...)
}

func noUnlock() {}

// write runs fn with a fresh batch and writes the batch if fn succeeds. In
// a group, fn writes to the group's batch instead, undone if fn fails.
func (d *DB) write(fn func(b *store.Batch) error) error {
	if d.snapshot {
		panic("types: a write through a snapshot view") // a bug: the view holds no lock
	}
	from := d.logged()
	if d.grp != nil {
		n := d.grp.Len()
		err := d.grp.Add(fn)
		d.settle(from, d.grp.Len() > n, err)
		return err
	}
	b := d.st.NewBatch()
	defer b.Release()
	err := fn(b)
	if err == nil {
		changed := b.Len() > 0
		err = d.st.Write(b)
		d.settle(from, changed, err)
		return err
	}
	d.settle(from, false, err)
	return err
}

// iterSub calls fn for every sub-key record of the key's current uid, in
// order. sub and val are valid only during the call.
func (d *DB) iterSub(uid uint64, fn func(sub, val []byte) bool) error {
	lower := subkey.AppendPrefix(nil, uid)
	upper := subkey.AppendUpperBound(nil, uid)
	return d.rd.Iterate(store.CFSubkey, lower, upper, false, func(k, v []byte) bool {
		return fn(k[8:], v)
	})
}

// iterate walks [lower, upper) of cf like Iterate, for a callback that can
// fail: the first error stops the walk and is returned.
func (d *DB) iterate(cf store.CF, lower, upper []byte, reverse bool, fn func(k, v []byte) (more bool, err error)) error {
	var ferr error
	err := d.rd.Iterate(cf, lower, upper, reverse, func(k, v []byte) bool {
		more, err := fn(k, v)
		if err != nil {
			ferr = err
			return false
		}
		return more
	})
	if err == nil {
		err = ferr
	}
	return err
}

// checkLater defers check of key, when d runs in a group, to once the
// group's batch is written, or queued with its records in the overlay
// (store.Group.After), reading the key as the batch leaves it; it reports
// whether it did. An invariants check in a group would otherwise read the
// key as it was before the command.
func (d *DB) checkLater(key []byte, check func(d *DB, key []byte)) bool {
	if d.grp == nil {
		return false
	}
	base := d.e.dbs[d.n]
	key = append([]byte(nil), key...)
	d.grp.After(func(r store.Reader) {
		v := *base
		v.rd = r
		check(&v, key)
	})
	return true
}

// checkSize, with the invariants build tag, panics when a live composite
// key's Size differs from the number of its sub-keys. The caller holds the
// key's lock and has written its batch, or runs in a group (checkLater).
func (d *DB) checkSize(key []byte) {
	if !invariants || d.checkLater(key, (*DB).checkSize) {
		return
	}
	ks := &keyState{}
	if err := d.load(ks, key, d.e.now()); err != nil || !ks.live || !ks.m.Type.Composite() {
		return
	}
	var n uint64
	if ks.m.Type == streamType {
		// A stream's size counts its entries, not its groups' records.
		lower, upper := entryBounds(ks.m.UID)
		if err := d.rd.Iterate(store.CFSubkey, lower, upper, false, func(_, _ []byte) bool { n++; return true }); err != nil {
			return
		}
	} else if err := d.iterSub(ks.m.UID, func(_, _ []byte) bool { n++; return true }); err != nil {
		return
	}
	if n != ks.m.Size {
		panic(fmt.Sprintf("invariant: key %q has Size %d but %d sub-keys", key, ks.m.Size, n))
	}
}
