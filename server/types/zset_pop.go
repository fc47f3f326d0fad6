package types

import (
	"math/rand/v2"
	"slices"

	"github.com/shaledb/shale/metadata"
	"github.com/shaledb/shale/server/store"
)

// ScoreEnd is the end of a sorted set that ZPOPMIN, ZPOPMAX and their
// siblings pop from.
type ScoreEnd uint8

// The ends of a sorted set.
const (
	Lowest  ScoreEnd = iota // the lowest scores: ZPOPMIN, ZMPOP MIN
	Highest                 // the highest scores: ZPOPMAX, ZMPOP MAX
)

// ZPop is ZPOPMIN (end Lowest), ZPOPMAX and ZMPOP: it removes up to count
// elements with the lowest (highest) scores from the first of keys that
// exists, and returns that key with the elements in pop order. Keys before it
// that do not exist are skipped; the first one that exists must be a zset
// (ErrWrongType otherwise), as in Redis, which checks that even for a count
// of 0 (which pops nothing). No key: key is nil.
func (d *DB) ZPop(keys [][]byte, end ScoreEnd, count int64) (key []byte, elems []ScoreMember, err error) {
	unlock := d.lock(keys...)
	defer unlock()
	return d.zpop(keys, end, count)
}

// zpop is ZPop with the keys' locks held.
func (d *DB) zpop(keys [][]byte, end ScoreEnd, count int64) ([]byte, []ScoreMember, error) {
	for _, k := range keys {
		ks := &keyState{}
		err := d.loadZSet(ks, k)
		if err != nil {
			return nil, nil, err
		}
		if !ks.live {
			continue
		}
		if count < 1 {
			return k, nil, nil
		}
		_, _, epoch := d.st.Edges(scoreRange(ks.m.UID))
		var elems []ScoreMember
		err = d.scoreIter(ks.m.UID, nil, nil, end == Highest, func(m []byte, s float64) bool {
			elems = append(elems, ScoreMember{append([]byte{}, m...), s})
			return int64(len(elems)) < count
		})
		if err != nil {
			return nil, nil, err
		}
		err = d.write(func(b *store.Batch) error {
			d.zremove(b, ks, elems)
			return nil
		})
		if err == nil && len(elems) > 0 && d.mayMoveEdges() {
			// The next pop starts past these (store.Edges); if the write
			// fails, every edge is forgotten.
			lowest, highest := elems[0], elems[len(elems)-1]
			if end == Highest {
				lowest, highest = highest, lowest
			}
			d.passRemoved(ks.m.UID, lowest, highest, epoch)
		}
		d.checkZSet(k)
		return k, elems, err
	}
	return nil, nil, nil
}

// ZRandMember is ZRANDMEMBER with a count: count > 0 returns up to count
// distinct members (the whole zset, in score order, when count >= its
// size), count < 0 returns exactly -count members that may repeat, in
// random order (ErrRandCount beyond MaxRandCount). It walks the score CF
// once up to the highest rank drawn, so it costs O(N) in the worst case and
// O(|count|) memory.
func (d *DB) ZRandMember(key []byte, count int64) ([]ScoreMember, error) {
	unlock := d.lock(key)
	defer func() { unlock() }()
	ks := &keyState{}
	d, done, err := d.randView(ks, key, metadata.TypeZSet, count, &unlock)
	if d == nil {
		return nil, err
	}
	defer done()
	n := int64(ks.m.Size)
	if count >= n {
		return d.zwalkAll(ks)
	}
	var picks []int64 // ranks, in reply order
	if count < 0 {
		picks = make([]int64, -count)
		for i := range picks {
			picks[i] = rand.Int64N(n)
		}
	} else {
		picks = sampleDistinct(n, count)
	}
	ranks := slices.Clone(picks)
	slices.Sort(ranks)
	ranks = slices.Compact(ranks)
	at := make(map[int64]ScoreMember, len(ranks))
	var rank int64
	next := 0
	err = d.scoreIter(ks.m.UID, nil, nil, false, func(m []byte, s float64) bool {
		if rank == ranks[next] {
			at[rank] = ScoreMember{append([]byte{}, m...), s}
			next++
		}
		rank++
		return next < len(ranks)
	})
	if err != nil {
		return nil, err
	}
	out := make([]ScoreMember, len(picks))
	for i, p := range picks {
		out[i] = at[p]
	}
	return out, nil
}

// zwalkAll returns every element of the live zset ks in score order.
func (d *DB) zwalkAll(ks *keyState) ([]ScoreMember, error) {
	out := make([]ScoreMember, 0, ks.m.Size)
	err := d.scoreIter(ks.m.UID, nil, nil, false, func(m []byte, s float64) bool {
		out = append(out, ScoreMember{append([]byte{}, m...), s})
		return true
	})
	return out, err
}

// sampleDistinct draws k distinct integers from [0, n), 0 < k < n, in random
// order (Floyd's algorithm, O(k)).
func sampleDistinct(n, k int64) []int64 {
	seen := make(map[int64]bool, k)
	out := make([]int64, 0, k)
	for j := n - k; j < n; j++ {
		t := rand.Int64N(j + 1)
		if seen[t] {
			t = j
		}
		seen[t] = true
		out = append(out, t)
	}
	rand.Shuffle(len(out), func(a, b int) { out[a], out[b] = out[b], out[a] })
	return out
}
