package store

import (
	"hash/maphash"
	"sync"

	"github.com/shaledb/shale/subkey"
)

// listRuns cache runs of consecutive list elements beside the sub-key
// cache, for range reads (LRANGE, LPOP/RPOP with a count). Served from
// the sub-key cache, a range cost a lookup per element, each a map probe
// and an arena read that missed the CPU's caches: 37% of the server's CPU
// under redis-benchmark's LRANGE_100. A run holds the elements of one
// aligned block of runSlots indexes of one list (one uid), those known,
// so that a range of 100 elements is two or three lookups.
//
// A run is filled from the sub-key cache only, by a reader that found the
// elements there, and only if no write touched the run's shard since it
// began (the shard's epoch), as recordCache.fill. Every write of a
// sub-key of subkey.ListKeyLen bytes that the cache hears of (written,
// forget) drops the run its uid and index fall in, whatever type the key
// belongs to: a uid is never reused, so a hash or set's sub-key that has a
// list key's shape names a run that does not exist. clear drops them all.
// A deleted list's runs are never read again and age out, as its elements'
// entries do.
type listRuns struct {
	seed     maphash.Seed
	shards   [runShards]runShard
	shardMax int64 // bytes per shard
}

// runSlots is how many indexes a run spans; the bits of listRun.present.
const runSlots = 64

// runShards spreads the lock; a power of two. Fewer than the records'
// shards: a run is a few hundred bytes to a few KiB, and a shard must hold
// many.
const runShards = 16

// runOverhead is about what a run costs beyond its values' bytes: its
// offsets, its header and its map slot.
const runOverhead = runSlots*8 + 96

type runShard struct {
	mu     sync.Mutex
	runs   map[runID]*listRun
	bytes  int64
	epoch  uint64
	closed bool
}

// runID names a run: its list's uid and its block of indexes (index /
// runSlots).
type runID struct{ uid, block uint64 }

// listRun is a run's known elements. It is never changed once in its
// shard: a fill that adds elements replaces it.
type listRun struct {
	present uint64 // bit i: the run holds the element at block*runSlots+i
	// The element in slot i is data[start[i]:start[i]+size[i]].
	data        []byte
	start, size [runSlots]uint32
}

// val is slot i's element.
func (run *listRun) val(i uint64) []byte {
	return run.data[run.start[i] : run.start[i]+run.size[i]]
}

// add puts val in slot i.
func (run *listRun) add(i uint64, val []byte) {
	run.start[i], run.size[i] = uint32(len(run.data)), uint32(len(val))
	run.data = append(run.data, val...)
	run.present |= 1 << i
}

func (run *listRun) bytes() int64 { return int64(cap(run.data)) + runOverhead }

// newListRuns returns runs of at most maxBytes in all, or nil for 0.
func newListRuns(maxBytes int64) *listRuns {
	if maxBytes <= 0 {
		return nil
	}
	r := &listRuns{seed: maphash.MakeSeed(), shardMax: max(maxBytes/runShards, 1)}
	for i := range r.shards {
		r.shards[i].runs = make(map[runID]*listRun)
	}
	return r
}

func (r *listRuns) shard(id runID) *runShard {
	return &r.shards[maphash.Comparable(r.seed, id)&(runShards-1)]
}

// written drops the run that key, a sub-key just written or deleted,
// falls in, if key has a list key's shape. The caller has changed key's
// own entry first, so a reader that took the shard's epoch before the drop
// fills nothing, and one that takes it after finds the new entry.
func (r *listRuns) written(key []byte) {
	if r == nil || len(key) != subkey.ListKeyLen {
		return
	}
	uid, index, err := subkey.DecodeListKey(key)
	if err != nil {
		return
	}
	id := runID{uid, index / runSlots}
	sh := r.shard(id)
	sh.mu.Lock()
	sh.drop(id)
	sh.epoch++
	sh.mu.Unlock()
}

// drop removes a run; sh.mu is held.
func (sh *runShard) drop(id runID) {
	if old, ok := sh.runs[id]; ok {
		sh.bytes -= old.bytes()
		delete(sh.runs, id)
	}
}

// clear drops every run; close also keeps any from being cached again.
func (r *listRuns) clear(closing bool) {
	if r == nil {
		return
	}
	for i := range r.shards {
		sh := &r.shards[i]
		sh.mu.Lock()
		clear(sh.runs)
		sh.bytes = 0
		sh.epoch++
		sh.closed = sh.closed || closing
		sh.mu.Unlock()
	}
}

// peekList calls fn with the elements of list uid at indexes [from, to),
// from the first on (reverse: from the last down), as long as the runs or
// the sub-key cache c hold them, and returns how many it served. fn runs
// under a lock and must copy what it keeps.
func (r *listRuns) peekList(c *recordCache, uid, from, to uint64, reverse bool, fn func(val []byte)) uint64 {
	var served uint64
	var key [subkey.ListKeyLen]byte
	for from < to {
		// The block of the next index to serve, and the indexes of the
		// range in it, [lo, hi): hi is past the block's last index, not
		// the next block's first, which overflows for the last block.
		next := from
		if reverse {
			next = to - 1
		}
		id := runID{uid, next / runSlots}
		lo, hi := max(from, id.block*runSlots), min(to-1, id.block*runSlots+runSlots-1)+1
		sh := r.shard(id)
		sh.mu.Lock()
		run, epoch := sh.runs[id], sh.epoch
		n := eachIndex(lo, hi, reverse, func(i uint64) bool {
			if run == nil || run.present&(1<<(i%runSlots)) == 0 {
				return false
			}
			fn(run.val(i % runSlots))
			return true
		})
		sh.mu.Unlock()
		if n > 0 {
			c.hits.Add(n)
		}
		if n < hi-lo {
			// The rest of the block from the sub-key cache, one element
			// at a time; what it had joins the run.
			restLo, restHi := lo+n, hi
			if reverse {
				restLo, restHi = lo, hi-n
			}
			fill := &listRun{}
			got := eachIndex(restLo, restHi, reverse, func(i uint64) bool {
				return c.peek(subkey.AppendListKey(key[:0], uid, i), func(val []byte) {
					fill.add(i%runSlots, val)
					fn(val)
				})
			})
			if got > 0 {
				r.fill(sh, id, epoch, run, fill)
			}
			if n += got; n < hi-lo {
				return served + n // the sub-key cache lacks the next one
			}
		}
		served += n
		if reverse {
			to = lo
		} else {
			from = hi
		}
	}
	return served
}

// peekEach serves the elements of list uid at indexes [from, to), in
// PeekList's order, one peek at a time until one fails; it returns how
// many peek served.
func peekEach(uid, from, to uint64, reverse bool, peek func(key []byte) bool) uint64 {
	var key [subkey.ListKeyLen]byte
	return eachIndex(from, to, reverse, func(i uint64) bool {
		return peek(subkey.AppendListKey(key[:0], uid, i))
	})
}

// eachIndex calls fn with the indexes [from, to), the first one on
// (reverse: the last one down), until fn returns false, and returns how
// many it returned true for.
func eachIndex(from, to uint64, reverse bool, fn func(i uint64) bool) uint64 {
	var n uint64
	for ; from+n < to; n++ {
		i := from + n
		if reverse {
			i = to - 1 - n
		}
		if !fn(i) {
			break
		}
	}
	return n
}

// fill caches the elements of add, with those of run (what the shard held
// when the reader began, or nil), unless a write reached the shard since
// the reader read epoch.
func (r *listRuns) fill(sh *runShard, id runID, epoch uint64, run, add *listRun) {
	if run != nil {
		for slot := range uint64(runSlots) {
			if run.present&(1<<slot) != 0 && add.present&(1<<slot) == 0 {
				add.add(slot, run.val(slot))
			}
		}
	}
	size := add.bytes()
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.epoch != epoch || sh.closed || sh.runs[id] != run || size > r.shardMax/2 {
		return
	}
	sh.drop(id)
	for sh.bytes+size > r.shardMax && len(sh.runs) > 0 {
		for old := range sh.runs { // map order is random enough
			sh.drop(old)
			break
		}
	}
	sh.runs[id] = add
	sh.bytes += size
}

// stats returns the runs held and their bytes.
func (r *listRuns) stats() (runs, bytes int64) {
	if r == nil {
		return 0, 0
	}
	for i := range r.shards {
		sh := &r.shards[i]
		sh.mu.Lock()
		runs += int64(len(sh.runs))
		bytes += sh.bytes
		sh.mu.Unlock()
	}
	return runs, bytes
}
