package types

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/shaledb/shale/metadata"
	"github.com/shaledb/shale/server/store"
)

const (
	expiryTick      = 100 * time.Millisecond
	expiryBatch     = 256                   // due entries read per pass
	expiryTickLimit = 25 * time.Millisecond // work per tick before yielding
)

// activeExpiry removes due keys in the background, so they leave DBSIZE,
// KEYS and SCAN within about a tick of expiring even if nobody reads them.
// It reads the expire CF up to now and removes each due key through the
// normal remove path, under the key's lock, so counters stay exact. Index
// entries whose key has since changed (new TTL, deleted, FLUSHDB) are stale
// and dropped.
type activeExpiry struct {
	e     *Engine
	stopc chan struct{}
	wg    sync.WaitGroup
	once  sync.Once
	// found are expired keys that commands in a transaction came across
	// (ExpireFound): removed at once, and not a tick later. Full, it drops
	// them for the ticks to find.
	found chan metadata.ExpireKey
	// onExpired, when set (before Start), is called with each key active
	// expiry removes, once the removal is written.
	onExpired func(db int, key []byte)
	// onCycle, when set (before Start), is called with how long each tick's
	// passes took: the latency monitor's expire-cycle event.
	onCycle func(took time.Duration)

	expired atomic.Int64 // keys removed by active expiry (INFO expired_keys)

	// paused makes ticks and found keys do nothing: a replica removes no
	// key itself, it waits for its primary's removals (SetExpiring).
	paused atomic.Bool
}

func newActiveExpiry(e *Engine) *activeExpiry {
	return &activeExpiry{e: e, stopc: make(chan struct{}), found: make(chan metadata.ExpireKey, 1024)}
}

// OnExpired makes active expiry call fn, from its goroutine, with each key
// it removes, once the removal is written: keyspace notifications' expired
// event. Call it before Start.
func (e *Engine) OnExpired(fn func(db int, key []byte)) { e.expiry.onExpired = fn }

// ExpireFound removes a key a command found expired (f is a
// KeyFoundExpired fact), unless a write did since, through active expiry's
// path, which calls the OnExpired function: at once when now is set (the
// caller holds no lock), else soon, by active expiry's goroutine (the
// caller runs in a transaction that holds locks). It never waits for that
// goroutine.
func (e *Engine) ExpireFound(f KeyFact, now bool) {
	// The fact names a logical database; the index, a physical one. Should
	// a SWAPDB have moved the database since, expireOne finds another key
	// (or none) there and leaves the found one to the ticks.
	ek := metadata.ExpireKey{ExpireMs: f.ExpireMs, DB: e.st.PhysicalDB(f.DB), Key: f.Key}
	if e.expiry.paused.Load() {
		return
	}
	if now {
		if err := e.expireOne(ek, e.now()); err != nil {
			e.log.Warn().Err(err).Msg("expiry of a key found expired failed")
		}
		return
	}
	select {
	case e.expiry.found <- ek:
	default:
	}
}

// OnExpireCycle makes active expiry call fn, from its goroutine, with how
// long each tick's work took. Call it before Start.
func (e *Engine) OnExpireCycle(fn func(took time.Duration)) { e.expiry.onCycle = fn }

// SetExpiring turns the removal of expired keys, by active expiry and by
// ExpireFound, on or off. A removal under way when it is turned off may
// still write: a replica's store refuses it (store.SetReadOnly). Reads
// treat an expired key as absent either way.
func (e *Engine) SetExpiring(on bool) { e.expiry.paused.Store(!on) }

// Start begins active expiry.
func (e *Engine) Start() {
	e.expiry.wg.Add(1)
	go e.expiry.run()
}

// Stop ends active expiry and waits for it.
func (e *Engine) Stop() {
	e.expiry.once.Do(func() { close(e.expiry.stopc) })
	e.expiry.wg.Wait()
}

func (x *activeExpiry) run() {
	defer x.wg.Done()
	t := time.NewTicker(expiryTick)
	defer t.Stop()
	for {
		select {
		case <-x.stopc:
			return
		case ek := <-x.found:
			if !x.paused.Load() {
				if err := x.e.expireOne(ek, x.e.now()); err != nil {
					x.e.log.Warn().Err(err).Msg("active expiry of a key found expired failed")
				}
			}
			continue
		case <-t.C:
		}
		x.tick()
	}
}

// tick runs one tick's passes, unless paused.
func (x *activeExpiry) tick() {
	if x.paused.Load() {
		return
	}
	start := time.Now()
	deadline := start.Add(expiryTickLimit)
	for {
		n, err := x.e.ExpirePass(expiryBatch)
		if err != nil {
			x.e.log.Warn().Err(err).Msg("active expiry pass failed")
			break
		}
		if n < expiryBatch || time.Now().After(deadline) {
			break
		}
	}
	if x.onCycle != nil {
		x.onCycle(time.Since(start))
	}
}

// ExpirePass handles up to limit due entries of the expire index and returns
// how many it handled.
func (e *Engine) ExpirePass(limit int) (int, error) {
	now := e.now()
	var due []metadata.ExpireKey
	var ierr error
	err := e.st.Iterate(store.CFExpire, nil, metadata.AppendExpireUpTo(nil, now), false, func(k, _ []byte) bool {
		ek, err := metadata.DecodeExpireKey(k)
		if err != nil {
			ierr = err
			return false
		}
		ek.Key = append([]byte{}, ek.Key...)
		due = append(due, ek)
		return len(due) < limit
	})
	if err != nil {
		return 0, err
	}
	if ierr != nil {
		return 0, ierr
	}
	for _, ek := range due {
		if err := e.expireOne(ek, now); err != nil {
			return 0, err
		}
	}
	return len(due), nil
}

func (e *Engine) expireOne(ek metadata.ExpireKey, now int64) error {
	n, ok := e.st.LogicalDB(ek.DB)
	if !ok {
		return e.dropIndexEntry(ek)
	}
	d := e.dbs[n]
	unlock := d.lock(ek.Key)
	defer unlock()
	if d.phys() != ek.DB {
		// A SWAPDB moved the database before the lock was taken: the
		// entry is still good, and the next pass finds it again.
		return nil
	}
	ks := &keyState{}
	if err := d.load(ks, ek.Key, now); err != nil {
		return err
	}
	if !ks.onDisk || ks.diskExpire != ek.ExpireMs || ks.live {
		return e.dropIndexEntry(ek)
	}
	if err := d.write(func(b *store.Batch) error { ks.remove(b); return nil }); err != nil {
		return err
	}
	e.expiry.expired.Add(1)
	if fn := e.expiry.onExpired; fn != nil {
		fn(d.n, ek.Key)
	}
	return nil
}

// ExpiredKeys is the number of keys active expiry has removed since start or
// the last ResetExpiredKeys (INFO's expired_keys).
func (e *Engine) ExpiredKeys() int64 { return e.expiry.expired.Load() }

// ResetExpiredKeys zeroes ExpiredKeys (CONFIG RESETSTAT).
func (e *Engine) ResetExpiredKeys() { e.expiry.expired.Store(0) }

func (e *Engine) dropIndexEntry(ek metadata.ExpireKey) error {
	b := e.st.NewBatch()
	defer b.Release()
	b.Delete(store.CFExpire, ek.Append(nil))
	return e.st.Write(b)
}

// AvgTTL estimates, per database, the average remaining TTL in ms of the
// keys that have one (INFO keyspace's avg_ttl, itself an estimate in Redis).
// It reads at most limit entries of the expiry index, the soonest to
// expire, so with more keys than that it leans short. 0 means none seen.
func (e *Engine) AvgTTL(limit int) ([]int64, error) {
	now := e.now()
	sums := make([]float64, len(e.dbs))
	seen := make([]int64, len(e.dbs))
	read := 0
	err := e.st.Iterate(store.CFExpire, metadata.AppendExpireUpTo(nil, now), nil, false, func(k, _ []byte) bool {
		read++
		ek, derr := metadata.DecodeExpireKey(k)
		if derr != nil {
			return read < limit
		}
		if db, ok := e.st.LogicalDB(ek.DB); ok {
			sums[db] += float64(ek.ExpireMs - now)
			seen[db]++
		}
		return read < limit
	})
	avg := make([]int64, len(e.dbs))
	for db := range avg {
		if seen[db] > 0 {
			avg[db] = int64(sums[db] / float64(seen[db]))
		}
	}
	return avg, err
}
