package store

import "slices"

// Group lets consecutive commands of one client's pipeline share one batch
// and one DB.Write: with a pipeline of N writes, N-1 trips through RocksDB's
// write path are saved. That matters when few clients write; with many, the
// writeQueue already joins their batches.
//
// Isolation comes from the key locks. The group takes each command's stripes
// before the command runs and keeps them all until Commit, so no other client
// reads or changes those keys while their writes wait in the batch. The
// group's commands therefore take effect together, at Commit, and their
// replies must not leave before it. A command may only join the group when
// none of its stripes is held already, by another client or by an earlier
// command of the group, whose writes it could not read back (the batch is not
// indexed): TryLock says so without waiting, and the caller then commits the
// group and runs the command on its own. Never waiting while holding stripes
// is also what keeps groups free of deadlocks.
//
// A Group belongs to one connection and is not safe for concurrent use.
type Group struct {
	s       *Store
	b       *Batch
	world   bool                    // holds the world lock's read side
	held    [numStripes / 64]uint64 // bit i: stripe i is held
	stripes []int                   // the held stripes, in the order taken
	cmds    int                     // commands that joined
	writes  int                     // successful Adds
	after   []func(Reader)          // After's: run once the batch is final, stripes still held
	// txn is set in a transaction's group (BeginTxn): its commands read
	// its batch through the index, and it holds its locks until Commit or
	// Abort. exclusive: it holds the world lock's write side, and so every
	// key.
	txn       *pendingIndex
	exclusive bool
	// early is set in a group that releases its locks before its write
	// lands when another command waits for them (NewEarlyGroup). Its
	// commands read through the overlay; readFrom and readUpTo bound the
	// tickets they may have read (see overlay).
	early              bool
	readFrom, readUpTo uint64
}

// NewGroup returns an empty group.
func (s *Store) NewGroup() *Group { return &Group{s: s} }

// NewEarlyGroup returns an empty group that releases its locks before its
// write lands when another command waits for one of them (overlay.go).
// Its commands read through Reader, and its Commit returns once its
// writes, and those they read, have landed.
func (s *Store) NewEarlyGroup() *Group { return &Group{s: s, early: true} }

// took notes that the group has just taken stripe i: an early group
// remembers which queued writes its commands may read there; any other
// waits for them to land, and then reads the store itself.
func (g *Group) took(i int) {
	if !g.early {
		g.s.ov.settleStripe(i)
		return
	}
	if g.readFrom == 0 {
		g.readFrom = g.s.ov.landed.Load() + 1
	}
	g.readUpTo = max(g.readUpTo, g.s.ov.stripe[i].Load())
}

// Commands is the number of commands that joined since the last Commit.
func (g *Group) Commands() int { return g.cmds }

// Active reports whether the group holds locks or writes, so that Commit
// must run before the connection's replies leave.
func (g *Group) Active() bool { return g.world }

func (g *Group) has(i int) bool { return g.held[i/64]&(1<<(i%64)) != 0 }
func (g *Group) set(i int)      { g.held[i/64] |= 1 << (i % 64) }
func (g *Group) clear(i int)    { g.held[i/64] &^= 1 << (i % 64) }

// TryLock adds a command on keys to the group, taking their stripes without
// waiting. It reports false, with nothing taken, when a stripe is busy:
// held by another client, or by an earlier command of the group. It also
// reports false while FLUSHDB waits for the world lock, which a group must
// not hold up.
func (g *Group) TryLock(keys ...LockKey) bool {
	if !g.world {
		if !g.s.locks.world.TryRLock() {
			return false
		}
		g.world = true
		g.b = g.s.NewBatch()
	}
	start := len(g.stripes)
	for _, k := range keys {
		i := stripeOf(k)
		if g.has(i) {
			if slices.Contains(g.stripes[start:], i) {
				continue // the command names the key twice (MSET k v k w)
			}
			g.untake(start)
			return false
		}
		if !g.s.locks.stripes[i].TryLock() {
			g.untake(start)
			return false
		}
		g.set(i)
		g.stripes = append(g.stripes, i)
		g.took(i)
	}
	g.cmds++
	return true
}

// Lock adds the first command on keys to an empty group, waiting for the
// world lock's read side and for the keys' stripes, in sorted order as
// Store.Lock takes them: the group holds nothing else, so it cannot
// deadlock.
func (g *Group) Lock(keys ...LockKey) {
	if g.world {
		panic("store: Group.Lock on a group that holds locks")
	}
	var wait lockWait
	if !g.s.locks.world.TryRLock() {
		wait.busy()
		g.s.locks.world.RLock()
	}
	g.world = true
	g.b = g.s.NewBatch()
	for _, i := range sortedStripes(keys) {
		g.s.ov.lockWaiting(&g.s.locks.stripes[i], i, &wait)
		g.set(i)
		g.stripes = append(g.stripes, i)
		g.took(i)
	}
	wait.done(&g.s.waits.lock)
	g.cmds++
}

// untake releases the stripes taken since index start of g.stripes, and
// the world lock too when no command is left in the group.
func (g *Group) untake(start int) {
	for _, i := range g.stripes[start:] {
		g.s.locks.stripes[i].Unlock()
		g.clear(i)
	}
	g.stripes = g.stripes[:start]
	if g.cmds == 0 {
		g.release()
	}
}

// release drops the batch and the world lock of a group with no stripes.
func (g *Group) release() {
	if g.b != nil {
		g.b.pending = nil
		g.b.Release()
		g.b = nil
	}
	g.world = false
	g.txn = nil
	if g.exclusive {
		g.exclusive = false
		g.s.locks.world.Unlock()
		return
	}
	g.s.locks.world.RUnlock()
}

// Holds reports whether every stripe of keys is held by the group.
func (g *Group) Holds(keys ...LockKey) bool {
	if g.exclusive {
		return true
	}
	for _, k := range keys {
		if !g.has(stripeOf(k)) {
			return false
		}
	}
	return true
}

// Wait takes the stripes of keys that the group lacks, waiting for them.
// It is for a caller that failed to name a key to TryLock (a bug): waiting
// while holding other stripes can deadlock against another group.
func (g *Group) Wait(keys ...LockKey) {
	var wait lockWait
	for _, k := range keys {
		if i := stripeOf(k); !g.has(i) {
			g.s.ov.lockWaiting(&g.s.locks.stripes[i], i, &wait)
			g.set(i)
			g.stripes = append(g.stripes, i)
			g.took(i)
		}
	}
	wait.done(&g.s.waits.lock)
}

// TryAdd takes, for a transaction's group, the stripes of keys that it
// lacks, without waiting. It reports false when another client holds one
// of them, keeping what it took: the caller then aborts the group. Taking
// a stripe out of sorted order cannot deadlock when it never waits.
func (g *Group) TryAdd(keys ...LockKey) bool {
	if g.exclusive {
		return true
	}
	for _, k := range keys {
		i := stripeOf(k)
		if g.has(i) {
			continue
		}
		if !g.s.locks.stripes[i].TryLock() {
			return false
		}
		g.set(i)
		g.stripes = append(g.stripes, i)
		g.took(i)
	}
	return true
}

// Add runs fn on the group's batch, for one command. When fn fails or
// panics, what it wrote is taken out again, so a failed command writes
// nothing, as on its own, and the group's other commands can still commit.
func (g *Group) Add(fn func(b *Batch) error) (err error) {
	mark := g.b.mark()
	done := false
	defer func() {
		if !done {
			g.takeBack(mark) // fn panicked; the panic goes on up
		}
	}()
	err = fn(g.b)
	done = true
	if err != nil {
		g.takeBack(mark)
		return err
	}
	g.writes++
	return nil
}

// takeBack removes from the batch what was written since mark. The
// group's commands may have moved edges past deletes taken back, so
// every edge is forgotten.
func (g *Group) takeBack(mark batchMark) {
	n := g.b.Len()
	g.b.rollback(mark)
	if g.b.Len() != n {
		g.s.forgetEdges()
	}
}

// Len is the number of writes in the group's batch.
func (g *Group) Len() int { return g.b.Len() }

// Writes counts the commands whose writes joined the batch (Add succeeded)
// since the last Commit.
func (g *Group) Writes() int { return g.writes }

// After queues fn to run once the group's batch is written, or, for a
// batch queued early, once its records are in the overlay, while the
// group's stripes are still held: r reads the keys as the batch leaves
// them (the invariants checks read what was written). fn does not run
// when the batch failed before it could.
func (g *Group) After(fn func(r Reader)) { g.after = append(g.after, fn) }

// runAfter runs the After functions with r when ok is set, and forgets
// them.
func (g *Group) runAfter(ok bool, r Reader) {
	if ok {
		for _, fn := range g.after {
			fn(r)
		}
	}
	clear(g.after)
	g.after = g.after[:0]
}

// Commit writes the group's batch, runs the After functions when the write
// succeeded, and releases every lock. The group is then empty and reusable.
// An error means that none of the group's writes took effect; in an early
// group, an error that ErrReadFailed matches means that its commands also
// read a write that failed, so that none of their replies stands.
func (g *Group) Commit() error {
	if !g.world {
		return nil
	}
	if g.early {
		return g.commitEarly()
	}
	return g.end(true)
}

// commitEarly commits an early group. When another command waits for one
// of its stripes and its batch may go through the overlay, it queues the
// batch with its records in the overlay, marks its stripes with the
// batch's ticket, and releases its locks before it waits for the write.
// Otherwise it writes under its locks, as end does. Either way it returns
// once the writes its commands read have landed too.
func (g *Group) commitEarly() error {
	s, b := g.s, g.b
	from, upTo := g.readFrom, g.readUpTo
	if !g.contended() || !earlyEligible(b) {
		g.readFrom, g.readUpTo = 0, 0
		b.readFrom, b.readUpTo = from, upTo
		return settleReads(s, g.end(true), from, upTo)
	}
	wait, _ := g.queueEarly(false)
	return wait()
}

// Submit is Commit for a caller that must not wait for the write: an event
// loop, which serves other connections meanwhile. It queues the group's
// batch with its records in the overlay and releases the group's locks
// (as commitEarly does when contended), and returns the wait for the
// write, which the caller must call exactly once, from any goroutine. A
// group that cannot go through the overlay (not early, After functions, a
// batch the overlay does not take) is written now, as Commit does, and
// the wait returns its error; beforeWait runs first, since that write may
// wait. The group is empty and reusable at once. done reports that the
// wait will not block: nothing was queued.
func (g *Group) Submit(beforeWait func()) (wait func() error, done bool) {
	if !g.world {
		return func() error { return nil }, true
	}
	if !g.early || !earlyEligible(g.b) {
		beforeWait()
		err := g.Commit()
		return func() error { return err }, true
	}
	return g.queueEarly(true)
}

// queueEarly queues the batch of an early group with its records in the
// overlay, marks its stripes with the batch's ticket and releases its
// locks; wait waits for the write and for the writes the group's commands
// read. done reports that wait will not block. fromLoop says an event loop
// submits it (queuedWrite.fromLoop).
func (g *Group) queueEarly(fromLoop bool) (wait func() error, done bool) {
	s, b := g.s, g.b
	from, upTo := g.readFrom, g.readUpTo
	g.readFrom, g.readUpTo = 0, 0
	b.readFrom, b.readUpTo = from, upTo
	empty, err := s.prepareWrite(b)
	if err != nil || empty {
		if err != nil {
			s.forgetEdges() // its deletes will not happen
		}
		g.runAfter(err == nil, overlayReader{s})
		g.unlockAll() // releases the batch too
		return func() error { return settleReads(s, err, from, upTo) }, upTo == 0 || s.ov.landed.Load() >= upTo
	}
	w := s.writes.submit(s, b, true, fromLoop)
	s.ov.commits.Add(1)
	for _, i := range g.stripes {
		s.ov.stripe[i].Store(w.ticket)
	}
	g.runAfter(true, overlayReader{s})
	g.b = nil
	g.unlockAll()
	return func() error {
		err := wrapWriteError(s.writes.await(s, w))
		b.Release()
		return err
	}, false
}

// contended reports whether another goroutine waits for a stripe the
// group holds.
func (g *Group) contended() bool {
	for _, i := range g.stripes {
		if g.s.ov.waiting[i].Load() > 0 {
			return true
		}
	}
	return false
}

// settleReads waits for the queued writes an early group's commands may
// have read, from..upTo, and reports ErrReadFailed when one failed, unless
// the group's own write failed already (err).
func settleReads(s *Store, err error, from, upTo uint64) error {
	if upTo == 0 {
		return err
	}
	s.ov.waitLanded(upTo)
	if err == nil && s.ov.failedIn(from, upTo) {
		return wrapWriteError(ErrReadFailed)
	}
	return err
}

// end writes the group's batch when write is set, runs the After functions
// if that succeeded, and releases every lock.
func (g *Group) end(write bool) error {
	var err error
	if write {
		err = g.s.write(g.b, g.exclusive)
	} else if g.b != nil && g.b.Len() > 0 {
		g.s.forgetEdges() // its deletes are dropped
	}
	g.runAfter(err == nil && write, g.s)
	g.unlockAll()
	return err
}

// unlockAll releases every lock of the group, and its batch if it still
// has one.
func (g *Group) unlockAll() {
	for _, i := range g.stripes {
		g.s.locks.stripes[i].Unlock()
		g.clear(i)
	}
	g.stripes = g.stripes[:0]
	g.cmds, g.writes = 0, 0
	g.release()
}
