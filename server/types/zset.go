package types

import (
	"bytes"
	"errors"
	"fmt"
	"math"

	"github.com/shaledb/shale/metadata"
	"github.com/shaledb/shale/server/store"
	"github.com/shaledb/shale/subkey"
)

// A sorted set keeps every member twice, always in the same batch:
//
//	subkey CF: uid · member        -> score (subkey.AppendZSetValue)
//	score CF:  uid · score · member -> empty (subkey.AppendScoreKey)
//
// The first answers ZSCORE and membership in one point read; the second
// sorts the members by score, then bytewise by member, which is Redis's zset
// order, so score ranges are one seek and a scan. Meta.Size is the
// cardinality.
//
// Ranks are not stored: ZRANK, ZRANGE by index and the other rank queries
// walk the score CF from the nearer end, so they cost O(rank) rather than
// Redis's O(log N), as in Kvrocks. ZCOUNT and ZLEXCOUNT count by walking the
// range, O(log N + M).
//
// Scores are never stored as -0: a -0 score is stored as +0, which is what
// Redis 7.0 keeps for every zset small enough to be a listpack (the only
// encoding in which it is visible, as "0", through ZSCORE and WITHSCORES).

// ErrScoreNaN is ZADD INCR's and ZINCRBY's error when the new score would
// be NaN (inf plus -inf).
var ErrScoreNaN = errors.New("resulting score is not a number (NaN)")

// ScoreMember is one element of a sorted set.
type ScoreMember struct {
	Member []byte
	Score  float64
}

// storedScore is the score as it is written: -0 becomes +0.
func storedScore(s float64) float64 {
	if s == 0 {
		return 0
	}
	return s
}

// putMember writes member with score in both column families of uid.
func putMember(b *store.Batch, uid uint64, member []byte, score float64) {
	b.Put(store.CFSubkey, subkey.AppendKey(nil, uid, member), subkey.AppendZSetValue(nil, score))
	b.Put(store.CFScore, subkey.AppendScoreKey(nil, uid, score, member), nil)
}

// delMember removes member, whose stored score is score, from both column
// families of uid.
func delMember(b *store.Batch, uid uint64, member []byte, score float64) {
	b.Delete(store.CFSubkey, subkey.AppendKey(nil, uid, member))
	b.Delete(store.CFScore, subkey.AppendScoreKey(nil, uid, score, member))
}

// zscores reads the scores of members; found[i] tells whether members[i]
// is in the set.
func (d *DB) zscores(ks *keyState, members [][]byte) ([]float64, []bool, error) {
	vals, found, err := d.subValues(ks, members)
	if err != nil {
		return nil, nil, err
	}
	scores := make([]float64, len(members))
	for i, ok := range found {
		if !ok {
			continue
		}
		if scores[i], err = subkey.DecodeZSetValue(vals[i]); err != nil {
			return nil, nil, fmt.Errorf("zset %q member %q: %w", ks.key, members[i], err)
		}
	}
	return scores, found, nil
}

// ZAddFlags are ZADD's options. XX combines with GT or LT; the server
// refuses the other combinations, as Redis does.
type ZAddFlags uint8

// The ZADD options that change what is written (CH only changes the reply).
const (
	ZAddNX   ZAddFlags = 1 << iota // only add new members
	ZAddXX                         // only update existing members
	ZAddGT                         // update only to a greater score
	ZAddLT                         // update only to a smaller score
	ZAddIncr                       // add the score to the current one (ZINCRBY)
)

// ZAddResult is what ZADD and ZINCRBY reply from.
type ZAddResult struct {
	Added   int64   // members that were new
	Updated int64   // existing members whose score changed
	Score   float64 // with ZAddIncr: the member's new score
	Done    bool    // with ZAddIncr: false when the options skipped the member (reply nil)
}

// zaddState is one member's score during a ZADD: repeated members in one
// command apply in order, as in Redis.
type zaddState struct {
	score, orig        float64 // current and on-disk scores
	exists, origExists bool    // current and on-disk membership
}

// ZAdd is ZADD and ZINCRBY (ZAddIncr with one element). With ZAddIncr a
// result that is NaN (inf plus -inf) fails with ErrScoreNaN and changes
// nothing.
func (d *DB) ZAdd(key []byte, flags ZAddFlags, elems []ScoreMember) (ZAddResult, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	err := d.loadZSet(ks, key)
	if err != nil {
		return ZAddResult{}, err
	}
	var res ZAddResult
	if !ks.live && flags&ZAddXX != 0 {
		return res, nil
	}
	states := make(map[string]*zaddState, len(elems))
	order := make([][]byte, 0, len(elems)) // distinct members, first-seen order
	for _, e := range elems {
		if _, seen := states[string(e.Member)]; !seen {
			states[string(e.Member)] = &zaddState{}
			order = append(order, e.Member)
		}
	}
	if ks.live {
		scores, found, err := d.zscores(ks, order)
		if err != nil {
			return res, err
		}
		for i, m := range order {
			st := states[string(m)]
			st.score, st.orig, st.exists, st.origExists = scores[i], scores[i], found[i], found[i]
		}
	}
	for _, e := range elems {
		st := states[string(e.Member)]
		score := e.Score
		if st.exists {
			if flags&ZAddNX != 0 {
				continue
			}
			if flags&ZAddIncr != 0 {
				score += st.score
				if math.IsNaN(score) {
					return ZAddResult{}, ErrScoreNaN
				}
			}
			if (flags&ZAddLT != 0 && score >= st.score) || (flags&ZAddGT != 0 && score <= st.score) {
				continue
			}
			res.Done, res.Score = true, score
			if score != st.score {
				st.score = storedScore(score)
				res.Updated++
			}
		} else if flags&ZAddXX == 0 {
			res.Done, res.Score = true, score
			st.score, st.exists = storedScore(score), true
			res.Added++
		}
	}
	if res.Added == 0 && res.Updated == 0 {
		return res, nil
	}
	if err := d.resolveEnc(ks); err != nil {
		return res, err
	}
	err = d.write(func(b *store.Batch) error {
		if !ks.live {
			if err := ks.create(b, metadata.TypeZSet); err != nil {
				return err
			}
		}
		var added int64
		longestNew := 0
		for _, m := range order {
			st := states[string(m)]
			switch {
			case !st.exists:
				continue
			case !st.origExists:
				ks.m.Size++
				added++
				longestNew = max(longestNew, len(m))
			case st.score == st.orig:
				continue
			default:
				b.Delete(store.CFScore, subkey.AppendScoreKey(nil, ks.m.UID, st.orig, m))
			}
			putMember(b, ks.m.UID, m, st.score)
		}
		ks.zsetAdded(added, longestNew)
		ks.save(b)
		return nil
	})
	d.checkZSet(key)
	return res, err
}

// ZScore is ZSCORE.
func (d *DB) ZScore(key, member []byte) (float64, bool, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	if err := d.loadZSet(ks, key); err != nil || !ks.live {
		return 0, false, err
	}
	scores, found, err := d.zscores(ks, [][]byte{member})
	if err != nil {
		return 0, false, err
	}
	return scores[0], found[0], nil
}

// ZMScore is ZMSCORE: found[i] is false for a missing member.
func (d *DB) ZMScore(key []byte, members [][]byte) ([]float64, []bool, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	if err := d.loadZSet(ks, key); err != nil {
		return nil, nil, err
	}
	if !ks.live {
		return make([]float64, len(members)), make([]bool, len(members)), nil
	}
	return d.zscores(ks, members)
}

// ZCard is ZCARD.
func (d *DB) ZCard(key []byte) (int64, error) { return d.card(key, metadata.TypeZSet) }

// ZRem is ZREM; it returns the number of members removed. Removing the last
// member removes the key.
func (d *DB) ZRem(key []byte, members [][]byte) (int64, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	if err := d.loadZSet(ks, key); err != nil || !ks.live {
		return 0, err
	}
	uniq := uniqueMembers(members)
	scores, found, err := d.zscores(ks, uniq)
	if err != nil {
		return 0, err
	}
	var removed []ScoreMember
	for i, m := range uniq {
		if found[i] {
			removed = append(removed, ScoreMember{m, scores[i]})
		}
	}
	if len(removed) == 0 {
		return 0, nil
	}
	err = d.write(func(b *store.Batch) error {
		d.zremove(b, ks, removed)
		return nil
	})
	d.checkZSet(key)
	return int64(len(removed)), err
}

// zremove deletes elems, which are members of ks with their stored scores,
// and saves the new size (removing the key when it drops to zero).
func (d *DB) zremove(b *store.Batch, ks *keyState, elems []ScoreMember) {
	for _, e := range elems {
		delMember(b, ks.m.UID, e.Member, e.Score)
	}
	ks.m.Size -= uint64(len(elems))
	ks.save(b)
}

// ZScan is ZSCAN: about count members after cursor whose names match (nil =
// all), in member order, and the next cursor (0 when done).
func (d *DB) ZScan(key []byte, cursor uint64, match []byte, count int) (uint64, []ScoreMember, error) {
	var out []ScoreMember
	next, err := d.scanKey(key, metadata.TypeZSet, cursor, match, count, func(m, v []byte) error {
		score, err := subkey.DecodeZSetValue(v)
		if err != nil {
			return fmt.Errorf("zset %q: %w", key, err)
		}
		out = append(out, ScoreMember{append([]byte{}, m...), score})
		return nil
	})
	return next, out, err
}

// checkZSet, with the invariants build tag, panics unless a live zset's
// two column families hold the same members with the same scores, as many
// as Meta.Size. The caller holds the key's lock and has written its batch,
// or runs in a group (checkLater).
func (d *DB) checkZSet(key []byte) {
	if !invariants || d.checkLater(key, (*DB).checkZSet) {
		return
	}
	ks := &keyState{}
	if err := d.load(ks, key, d.e.now()); err != nil || !ks.live || ks.m.Type != metadata.TypeZSet {
		return
	}
	if err := d.zsetConsistent(ks.m.UID, ks.m.Size); err != nil {
		panic(fmt.Sprintf("invariant: zset %q: %v", key, err))
	}
}

// zsetConsistent checks that uid's subkey and score records describe the
// same size members with the same scores.
func (d *DB) zsetConsistent(uid uint64, size uint64) error {
	bySub := make(map[string]float64)
	var derr error
	err := d.iterSub(uid, func(m, v []byte) bool {
		s, err := subkey.DecodeZSetValue(v)
		if err != nil {
			derr = err
			return false
		}
		if math.Signbit(s) && s == 0 {
			derr = fmt.Errorf("member %q stored with score -0", m)
			return false
		}
		bySub[string(m)] = s
		return true
	})
	if err != nil || derr != nil {
		return fmt.Errorf("subkey CF: %v %v", err, derr)
	}
	// Every record, not just those past the edges, which must hold: no
	// live record before the first edge, none at or after the end edge.
	// A pipeline group's command reads the state before its own write,
	// and may have moved an edge past what that write removes.
	var first, end []byte
	if d.grp == nil || d.grp.ReadsOwnWrites() {
		first, end, _ = d.st.Edges(scoreRange(uid))
	}
	n := 0
	err = d.iterate(store.CFScore, subkey.AppendPrefix(nil, uid), subkey.AppendUpperBound(nil, uid), false, func(k, _ []byte) (bool, error) {
		_, s, m, err := subkey.DecodeScoreKey(k)
		if err != nil {
			return false, err
		}
		n++
		if want, ok := bySub[string(m)]; !ok || want != s {
			return false, fmt.Errorf("score CF has %q at %v, subkey CF has %v (present %v)", m, s, want, ok)
		}
		if (first != nil && bytes.Compare(k, first) < 0) || (end != nil && bytes.Compare(k, end) >= 0) {
			return false, fmt.Errorf("member %q at %v lies outside the edges %q, %q", m, s, first, end)
		}
		return true, nil
	})
	switch {
	case err != nil || derr != nil:
		return fmt.Errorf("score CF: %v %v", err, derr)
	case n != len(bySub):
		return fmt.Errorf("%d score records, %d subkey records", n, len(bySub))
	case uint64(n) != size:
		return fmt.Errorf("Size %d, %d members", size, n)
	}
	return nil
}
