package types

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/shaledb/shale/metadata"
	"github.com/shaledb/shale/server/store"
	"github.com/shaledb/shale/subkey"
)

// RangeBy is what a ZRANGE-style range is expressed in.
type RangeBy uint8

// The kinds of range: by index (ZRANGE), by score (BYSCORE), by member
// (BYLEX).
const (
	ByRank RangeBy = iota
	ByScore
	ByLex
)

// ZRangeSpec is one range of ZRANGE, ZRANGESTORE, ZREMRANGEBY* and their
// older forms (ZRANGEBYSCORE, ZREVRANGE...).
type ZRangeSpec struct {
	By          RangeBy
	Rev         bool       // walk from the highest element down
	Start, Stop int64      // ByRank: inclusive indexes, negative from the end
	Score       ScoreRange // ByScore
	Lex         LexRange   // ByLex
	Offset      int64      // ByScore, ByLex: elements to skip; negative selects nothing
	Limit       int64      // ByScore, ByLex: at most this many; negative = no limit
}

// scoreIter calls fn for each member of uid whose score-CF key lies in
// [lower, upper) (nil: the uid's first key, or past its last), in score
// order or in reverse, starting past the tombstones the store's edges let
// it skip (edgedWalk). member is valid only during the call.
func (d *DB) scoreIter(uid uint64, lower, upper []byte, rev bool, fn func(member []byte, score float64) bool) error {
	if lower == nil {
		lower = subkey.AppendPrefix(nil, uid)
	}
	if upper == nil {
		upper = subkey.AppendUpperBound(nil, uid)
	}
	return d.edgedWalk(scoreRange(uid), scoresStart(uid), scoresEnd(uid), lower, upper, rev, func(k, _ []byte) (bool, error) {
		_, score, member, err := subkey.DecodeScoreKey(k)
		if err != nil {
			return false, fmt.Errorf("zset uid %d: %w", uid, err)
		}
		return fn(member, score), nil
	})
}

// scoreRange is the range of uid's score records, for the store's edges.
func scoreRange(uid uint64) store.EdgeRange {
	return store.EdgeRange{CF: store.CFScore, Prefix: subkey.AppendPrefix(nil, uid)}
}

// scoresStart and scoresEnd bound every score-CF key of uid: the key of
// -inf with no member, and the one past +inf.
func scoresStart(uid uint64) []byte { return scoreAt(uid, math.Inf(-1)) }
func scoresEnd(uid uint64) []byte   { return scoreAfter(uid, math.Inf(1)) }

// scoreAt is the first score-CF key of uid with score s.
func scoreAt(uid uint64, s float64) []byte {
	return subkey.AppendScoreKey(nil, uid, s, nil)
}

// scoreAfter is the first score-CF key of uid above every key with score s:
// the score's 8-byte encoding plus one. The encoding of +inf plus one is a
// NaN encoding, which no key holds.
func scoreAfter(uid uint64, s float64) []byte {
	k := scoreAt(uid, s)
	binary.BigEndian.PutUint64(k[8:16], binary.BigEndian.Uint64(k[8:16])+1)
	return k
}

// scoreBounds is the key range [lower, upper) of the scores in r.
func scoreBounds(uid uint64, r ScoreRange) (lower, upper []byte) {
	if r.MinEx {
		lower = scoreAfter(uid, r.Min)
	} else {
		lower = scoreAt(uid, r.Min)
	}
	if r.MaxEx {
		upper = scoreAt(uid, r.Max)
	} else {
		upper = scoreAfter(uid, r.Max)
	}
	return lower, upper
}

// zwalk calls fn for the elements of the live zset ks that sp selects, in
// reply order, until fn returns false. member is valid only during the call.
func (d *DB) zwalk(ks *keyState, sp ZRangeSpec, fn func(member []byte, score float64) bool) error {
	switch sp.By {
	case ByScore:
		return d.walkScore(ks.m.UID, sp, fn)
	case ByLex:
		return d.walkLex(ks.m.UID, sp, fn)
	}
	return d.walkRank(ks.m.UID, int64(ks.m.Size), sp, fn)
}

// walkRank serves a range of indexes the way Redis sanitises them, walking
// from whichever end of the score CF is nearer: O(min(start, n-stop) +
// count).
func (d *DB) walkRank(uid uint64, n int64, sp ZRangeSpec, fn func([]byte, float64) bool) error {
	from, to := listSpan(sp.Start, sp.Stop, uint64(n))
	if from == to {
		return nil
	}
	start, stop := int64(from), int64(to)-1
	count := stop - start + 1
	if start <= n-1-stop {
		var i int64
		return d.scoreIter(uid, nil, nil, sp.Rev, func(m []byte, s float64) bool {
			i++
			if i <= start {
				return true
			}
			return fn(m, s) && i <= stop
		})
	}
	// Nearer from the other end: collect the range backwards, then emit it.
	skip := n - 1 - stop
	buf := make([]ScoreMember, 0, count)
	var i int64
	err := d.scoreIter(uid, nil, nil, !sp.Rev, func(m []byte, s float64) bool {
		i++
		if i <= skip {
			return true
		}
		buf = append(buf, ScoreMember{append([]byte{}, m...), s})
		return int64(len(buf)) < count
	})
	if err != nil {
		return err
	}
	for j := len(buf) - 1; j >= 0; j-- {
		if !fn(buf[j].Member, buf[j].Score) {
			break
		}
	}
	return nil
}

// zlimit applies LIMIT offset count to a walk: skip says whether to pass
// over an element, stop whether the one just emitted was the last.
type zlimit struct{ skip, left int64 }

func (l *zlimit) skipOne() bool {
	if l.skip > 0 {
		l.skip--
		return true
	}
	return false
}

func (l *zlimit) emitted() (more bool) {
	if l.left > 0 {
		l.left--
		return l.left != 0
	}
	return true
}

// walkScore serves a score range: one seek and a scan.
func (d *DB) walkScore(uid uint64, sp ZRangeSpec, fn func([]byte, float64) bool) error {
	if sp.Score.Empty() || sp.Offset < 0 || sp.Limit == 0 {
		return nil
	}
	lower, upper := scoreBounds(uid, sp.Score)
	lim := zlimit{sp.Offset, sp.Limit}
	return d.scoreIter(uid, lower, upper, sp.Rev, func(m []byte, s float64) bool {
		if lim.skipOne() {
			return true
		}
		return fn(m, s) && lim.emitted()
	})
}

// zsetEnds returns the first and the last element of uid.
func (d *DB) zsetEnds(uid uint64) (head, tail ScoreMember, ok bool, err error) {
	for _, rev := range []bool{false, true} {
		e := &head
		if rev {
			e = &tail
		}
		err = d.scoreIter(uid, nil, nil, rev, func(m []byte, s float64) bool {
			*e, ok = ScoreMember{append([]byte{}, m...), s}, true
			return false
		})
		if err != nil || !ok {
			return head, tail, false, err
		}
	}
	return head, tail, true, nil
}

// walkLex serves a member range. Redis answers it by walking its zset in
// score order from one end: it starts at the first element inside the
// bound it walks from and stops at the first element beyond the other
// bound. When every score is equal, as ZRANGEBYLEX requires, that is
// exactly the members between the bounds. walkLex walks the same way, so it
// gives Redis's (listpack) answer for mixed scores too, but it first seeks
// past the elements of the end score group that lie outside the starting
// bound: O(log N + M) for the equal-score case.
func (d *DB) walkLex(uid uint64, sp ZRangeSpec, fn func([]byte, float64) bool) error {
	r := sp.Lex
	if r.Empty() || sp.Offset < 0 || sp.Limit == 0 {
		return nil
	}
	head, tail, ok, err := d.zsetEnds(uid)
	if err != nil || !ok {
		return err
	}
	// Redis's zzlIsInLexRange.
	if !r.gteMin(tail.Member) || !r.lteMax(head.Member) {
		return nil
	}
	var lower, upper []byte
	switch {
	case !sp.Rev && r.Min.Inf == 0:
		lower = subkey.AppendScoreKey(nil, uid, head.Score, r.Min.Value)
		if r.Min.Excl {
			lower = append(lower, 0)
		}
	case sp.Rev && r.Max.Inf == 0:
		upper = subkey.AppendScoreKey(nil, uid, tail.Score, r.Max.Value)
		if !r.Max.Excl {
			upper = append(upper, 0)
		}
	}
	// from is the bound the walk starts inside, to the one it stops beyond.
	from, to := r.gteMin, r.lteMax
	if sp.Rev {
		from, to = r.lteMax, r.gteMin
	}
	started := false
	lim := zlimit{sp.Offset, sp.Limit}
	return d.scoreIter(uid, lower, upper, sp.Rev, func(m []byte, s float64) bool {
		if !started {
			if !from(m) {
				return true
			}
			if !to(m) {
				return false
			}
			started = true
		}
		// Redis skips the offset without checking the range.
		if lim.skipOne() {
			return true
		}
		return to(m) && fn(m, s) && lim.emitted()
	})
}

// ZRange is ZRANGE and its older forms: the selected elements in reply
// order.
func (d *DB) ZRange(key []byte, sp ZRangeSpec) ([]ScoreMember, error) {
	unlock := d.lock(key)
	defer func() { unlock() }()
	ks := &keyState{}
	err := d.loadZSet(ks, key)
	if err != nil || !ks.live {
		return nil, err
	}
	d, done := d.walkView(sp.walkLength(ks.m.Size), &unlock)
	defer done()
	return d.zcollect(ks, sp)
}

// walkLength is the most live elements a walk of sp reads in a zset of
// size elements: ZRANGE 0 9 of a big zset reads ten, under the key's lock.
func (sp ZRangeSpec) walkLength(size uint64) uint64 {
	if sp.By == ByRank {
		from, to := listSpan(sp.Start, sp.Stop, size)
		return min(from, size-to) + (to - from)
	}
	if sp.Offset < 0 || sp.Limit < 0 {
		return size
	}
	// ByLex reads both ends first.
	return min(size, uint64(sp.Offset)+uint64(sp.Limit)+2)
}

// WalksAtMost reports whether a walk of sp reads at most n live elements
// whatever the zset's size (walkLength): by rank, for indexes counted from
// the same end, up to n from it; by score or lex, with a LIMIT whose offset
// and count add up to at most n-2 (walkLength counts two more).
func (sp ZRangeSpec) WalksAtMost(n uint64) bool {
	switch {
	case sp.By == ByRank && sp.Start >= 0 && sp.Stop >= 0:
		return uint64(sp.Stop) < n
	case sp.By == ByRank && sp.Start < 0 && sp.Stop < 0:
		return uint64(-(sp.Start + 1)) < n // -Start, without MinInt64's overflow
	case sp.By == ByRank:
		return false
	}
	return sp.Offset >= 0 && sp.Limit >= 0 && uint64(sp.Offset) <= n && uint64(sp.Limit) <= n &&
		uint64(sp.Offset)+uint64(sp.Limit)+2 <= n
}

// zcollect returns the elements of the live zset ks that sp selects, in
// reply order, copied out of the walk.
func (d *DB) zcollect(ks *keyState, sp ZRangeSpec) ([]ScoreMember, error) {
	var out []ScoreMember
	err := d.zwalk(ks, sp, func(m []byte, s float64) bool {
		out = append(out, ScoreMember{append([]byte{}, m...), s})
		return true
	})
	return out, err
}

// ZRangeStore is ZRANGESTORE: it stores the range of src in dst, replacing
// whatever dst held (or removing dst when the range is empty), and returns
// the number of elements stored.
func (d *DB) ZRangeStore(dst, src []byte, sp ZRangeSpec) (int64, error) {
	unlock := d.lock(dst, src)
	defer unlock()
	ks := &keyState{}
	err := d.loadZSet(ks, src)
	if err != nil {
		return 0, err
	}
	var elems []ScoreMember
	if ks.live {
		if elems, err = d.zcollect(ks, sp); err != nil {
			return 0, err
		}
	}
	return d.zstoreKey(dst, elems)
}

// zstoreKey replaces dst with a zset of elems (distinct members) in one
// batch, or removes it when elems is empty. The caller holds dst's lock.
func (d *DB) zstoreKey(dst []byte, elems []ScoreMember) (int64, error) {
	kd := &keyState{}
	err := d.load(kd, dst, d.e.now())
	if err != nil {
		return 0, err
	}
	err = d.write(func(b *store.Batch) error {
		if len(elems) == 0 {
			kd.remove(b)
			return nil
		}
		if err := kd.create(b, metadata.TypeZSet); err != nil {
			return err
		}
		for _, e := range elems {
			putMember(b, kd.m.UID, e.Member, storedScore(e.Score))
		}
		kd.m.Size = uint64(len(elems))
		kd.m.Enc = d.zsetEncodingOf(elems)
		kd.save(b)
		return nil
	})
	d.checkZSet(dst)
	return int64(len(elems)), err
}

// ZRemRange is ZREMRANGEBYRANK, ZREMRANGEBYSCORE and ZREMRANGEBYLEX: it
// removes the elements sp selects and returns how many.
func (d *DB) ZRemRange(key []byte, sp ZRangeSpec) (int64, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	err := d.loadZSet(ks, key)
	if err != nil || !ks.live {
		return 0, err
	}
	_, _, epoch := d.st.Edges(scoreRange(ks.m.UID))
	elems, err := d.zcollect(ks, sp)
	if err != nil || len(elems) == 0 {
		return 0, err
	}
	err = d.write(func(b *store.Batch) error {
		d.zremove(b, ks, elems)
		return nil
	})
	if err == nil && d.mayMoveEdges() {
		d.passRemoved(ks.m.UID, elems[0], elems[len(elems)-1], epoch)
	}
	d.checkZSet(key)
	return int64(len(elems)), err
}

// passRemoved moves uid's edges past a run of members, lowest to highest
// in score order, just removed, when the run began at an edge: the next
// walk from that end (ZPOPMIN, a sliding window's ZREMRANGEBYSCORE -inf …)
// starts past their tombstones. epoch is the edges' when the run was read.
func (d *DB) passRemoved(uid uint64, lowest, highest ScoreMember, epoch uint64) {
	lo := subkey.AppendScoreKey(nil, uid, lowest.Score, lowest.Member)
	past := keyAfter(subkey.AppendScoreKey(nil, uid, highest.Score, highest.Member))
	r := scoreRange(uid)
	first, end, _ := d.st.Edges(r)
	if bytes.Equal(first, lo) {
		d.st.SetFirstEdge(r, past, epoch)
	}
	if bytes.Equal(end, past) {
		d.st.SetEndEdge(r, lo, epoch)
	}
}

// zcount counts the elements sp selects.
func (d *DB) zcount(key []byte, sp ZRangeSpec) (int64, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	err := d.loadZSet(ks, key)
	if err != nil || !ks.live {
		return 0, err
	}
	var n int64
	err = d.zwalk(ks, sp, func([]byte, float64) bool { n++; return true })
	return n, err
}

// ZCount is ZCOUNT: O(log N + M), it walks the range.
func (d *DB) ZCount(key []byte, r ScoreRange) (int64, error) {
	return d.zcount(key, ZRangeSpec{By: ByScore, Score: r, Limit: -1})
}

// ZLexCount is ZLEXCOUNT: O(log N + M), it walks the range.
func (d *DB) ZLexCount(key []byte, r LexRange) (int64, error) {
	return d.zcount(key, ZRangeSpec{By: ByLex, Lex: r, Limit: -1})
}

// ZRank is ZRANK (rev=false) and ZREVRANK: the member's 0-based index from
// the lowest (highest) score, and its score. It counts the elements before
// the member in the score CF: O(rank).
func (d *DB) ZRank(key, member []byte, rev bool) (rank int64, score float64, found bool, err error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	if err := d.loadZSet(ks, key); err != nil || !ks.live {
		return 0, 0, false, err
	}
	scores, ok, err := d.zscores(ks, [][]byte{member})
	if err != nil || !ok[0] {
		return 0, 0, false, err
	}
	score = scores[0]
	at := subkey.AppendScoreKey(nil, ks.m.UID, score, member)
	lower, upper := []byte(nil), at
	if rev {
		lower, upper = append(at, 0), nil
	}
	err = d.scoreIter(ks.m.UID, lower, upper, false, func([]byte, float64) bool {
		rank++
		return true
	})
	return rank, score, err == nil, err
}
