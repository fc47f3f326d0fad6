package types

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/shaledb/shale/metadata"
	"github.com/shaledb/shale/subkey"
)

// SetOp is the operation of ZUNION, ZINTER and ZDIFF and their STORE forms.
type SetOp uint8

// The sorted-set operations.
const (
	OpUnion SetOp = iota
	OpInter
	OpDiff
)

// Aggregate is how ZUNION and ZINTER combine the scores of a member found in
// several inputs.
type Aggregate uint8

// AGGREGATE SUM (the default), MIN and MAX.
const (
	AggSum Aggregate = iota
	AggMin
	AggMax
)

// ZSetOpSpec is one ZUNION, ZINTER or ZDIFF. Inputs may be zsets or sets
// (whose members count with score 1, as in Redis); a missing key is empty.
type ZSetOpSpec struct {
	Op      SetOp
	Keys    [][]byte
	Weights []float64 // one per key; nil means every weight is 1 (ZDIFF has none)
	Agg     Aggregate
}

// zsrc is one input of a set operation.
type zsrc struct {
	ks     *keyState // nil when the key does not exist
	weight float64
}

func (s zsrc) size() uint64 {
	if s.ks == nil {
		return 0
	}
	return s.ks.m.Size
}

// loadSources loads the inputs in order. A live key that is neither a zset
// nor a set is ErrWrongType.
func (d *DB) loadSources(keys [][]byte, weights []float64) ([]zsrc, error) {
	now := d.e.now()
	srcs := make([]zsrc, len(keys))
	states := make([]keyState, len(keys)) // one allocation for all the sources
	for i, k := range keys {
		ks := &states[i]
		if err := d.load(ks, k, now); err != nil {
			return nil, err
		}
		srcs[i].weight = 1
		if weights != nil {
			srcs[i].weight = weights[i]
		}
		if !ks.live {
			continue
		}
		if ks.m.Type != metadata.TypeZSet && ks.m.Type != metadata.TypeSet {
			return nil, ErrWrongType
		}
		srcs[i].ks = ks
	}
	return srcs, nil
}

// ZSetOpCheck returns ErrWrongType when one of keys holds neither a zset nor
// a set. Redis checks the input types before it parses WEIGHTS and
// AGGREGATE, so the server asks this first when those options are bad.
func (d *DB) ZSetOpCheck(keys [][]byte) error {
	unlock := d.lock(keys...)
	defer unlock()
	_, err := d.loadSources(keys, nil)
	return err
}

// srcEach calls fn for every member of src with its score (1 for a set
// member). member is valid only during the call.
func (d *DB) srcEach(src zsrc, fn func(member []byte, score float64) bool) error {
	if src.ks == nil {
		return nil
	}
	var derr error
	err := d.iterSub(src.ks.m.UID, func(m, v []byte) bool {
		score := 1.0
		if src.ks.m.Type == metadata.TypeZSet {
			var err error
			if score, err = subkey.DecodeZSetValue(v); err != nil {
				derr = fmt.Errorf("zset %q: %w", src.ks.key, err)
				return false
			}
		}
		return fn(m, score)
	})
	if err != nil {
		return err
	}
	return derr
}

// srcScores looks members up in src: their scores (1 in a set) and whether
// each is there.
func (d *DB) srcScores(src zsrc, members [][]byte) ([]float64, []bool, error) {
	if src.ks == nil {
		return make([]float64, len(members)), make([]bool, len(members)), nil
	}
	if src.ks.m.Type == metadata.TypeZSet {
		return d.zscores(src.ks, members)
	}
	_, found, err := d.subValues(src.ks, members)
	scores := make([]float64, len(members))
	for i := range scores {
		scores[i] = 1
	}
	return scores, found, err
}

// zaggregate folds val into *target as Redis's zunionInterAggregate does: a
// SUM that is NaN (inf + -inf) becomes 0.
func zaggregate(target *float64, val float64, agg Aggregate) {
	switch agg {
	case AggSum:
		*target += val
		if math.IsNaN(*target) {
			*target = 0
		}
	case AggMin:
		if val < *target {
			*target = val
		}
	case AggMax:
		if val > *target {
			*target = val
		}
	}
}

// zweighted is weight times score, with NaN (0 times inf) read as 0.
func zweighted(weight, score float64) float64 {
	v := weight * score
	if math.IsNaN(v) {
		return 0
	}
	return v
}

// zprobeChunk is how many members of the driving input a set operation
// looks up in the other inputs with one MultiGet each.
const zprobeChunk = 512

// zprobe walks the driving input src[0] and, for each chunk of its members,
// looks them up in the other inputs. keep is called per member of src[0]
// with its score and, for each other input, its score and presence; it
// returns false to stop the walk.
func (d *DB) zprobe(srcs []zsrc, keep func(member []byte, score0 float64, scores [][]float64, found [][]bool, i int) bool) error {
	var members [][]byte
	var scores0 []float64
	stopped := false
	flush := func() error {
		scores := make([][]float64, len(srcs))
		found := make([][]bool, len(srcs))
		for j := 1; j < len(srcs); j++ {
			var err error
			if scores[j], found[j], err = d.srcScores(srcs[j], members); err != nil {
				return err
			}
		}
		for i, m := range members {
			if !keep(m, scores0[i], scores, found, i) {
				stopped = true
				break
			}
		}
		members, scores0 = members[:0], scores0[:0]
		return nil
	}
	var ferr error
	err := d.srcEach(srcs[0], func(m []byte, s float64) bool {
		members = append(members, append([]byte{}, m...))
		scores0 = append(scores0, s)
		if len(members) == zprobeChunk {
			if ferr = flush(); ferr != nil || stopped {
				return false
			}
		}
		return true
	})
	if err != nil || ferr != nil {
		return cmp.Or(err, ferr)
	}
	if len(members) > 0 && !stopped {
		return flush()
	}
	return nil
}

// zbySize sorts the inputs from the smallest, as Redis does for ZUNION and
// ZINTER (it drives ZINTER from the smallest input).
func zbySize(srcs []zsrc) {
	slices.SortStableFunc(srcs, func(a, b zsrc) int { return cmp.Compare(a.size(), b.size()) })
}

// zsetOp computes spec over its sources, loaded with the input keys
// locked. The result's order is unspecified.
func (d *DB) zsetOp(spec ZSetOpSpec, srcs []zsrc) ([]ScoreMember, error) {
	var err error
	var out []ScoreMember
	switch spec.Op {
	case OpUnion:
		zbySize(srcs)
		acc := make(map[string]float64)
		for _, src := range srcs {
			err := d.srcEach(src, func(m []byte, s float64) bool {
				score := zweighted(src.weight, s)
				if cur, ok := acc[string(m)]; ok {
					zaggregate(&cur, score, spec.Agg)
					score = cur
				}
				acc[string(m)] = score
				return true
			})
			if err != nil {
				return nil, err
			}
		}
		out = make([]ScoreMember, 0, len(acc))
		for m, s := range acc {
			out = append(out, ScoreMember{[]byte(m), s})
		}
	case OpInter:
		zbySize(srcs)
		if srcs[0].size() == 0 {
			return nil, nil
		}
		err = d.zprobe(srcs, func(m []byte, s0 float64, scores [][]float64, found [][]bool, i int) bool {
			score := zweighted(srcs[0].weight, s0)
			for j := 1; j < len(srcs); j++ {
				if !found[j][i] {
					return true
				}
				zaggregate(&score, scores[j][i]*srcs[j].weight, spec.Agg)
			}
			out = append(out, ScoreMember{m, score})
			return true
		})
	case OpDiff:
		if srcs[0].size() == 0 {
			return nil, nil
		}
		err = d.zprobe(srcs, func(m []byte, s0 float64, _ [][]float64, found [][]bool, i int) bool {
			for j := 1; j < len(srcs); j++ {
				if found[j][i] {
					return true
				}
			}
			out = append(out, ScoreMember{m, s0})
			return true
		})
	}
	return out, err
}

// sortZSet sorts elements into zset order: by score, then bytewise by
// member.
func sortZSet(elems []ScoreMember) {
	slices.SortFunc(elems, func(a, b ScoreMember) int {
		if c := cmp.Compare(a.Score, b.Score); c != 0 {
			return c
		}
		return bytes.Compare(a.Member, b.Member)
	})
}

// ZSetOp is ZUNION, ZINTER and ZDIFF: the result in zset order.
func (d *DB) ZSetOp(spec ZSetOpSpec) ([]ScoreMember, error) {
	unlock := d.lock(spec.Keys...)
	defer func() { unlock() }()
	srcs, err := d.loadSources(spec.Keys, spec.Weights)
	if err != nil {
		return nil, err
	}
	d, done := d.walkView(srcsSize(srcs), &unlock)
	defer done()
	out, err := d.zsetOp(spec, srcs)
	sortZSet(out)
	return out, err
}

// srcsSize is the number of elements of srcs.
func srcsSize(srcs []zsrc) uint64 {
	var n uint64
	for _, src := range srcs {
		n += src.size()
	}
	return n
}

// ZSetOpStore is ZUNIONSTORE, ZINTERSTORE and ZDIFFSTORE: it replaces dst
// (which may be one of the inputs) with the result, or removes dst when the
// result is empty, and returns the result's size.
func (d *DB) ZSetOpStore(dst []byte, spec ZSetOpSpec) (int64, error) {
	unlock := d.lock(append([][]byte{dst}, spec.Keys...)...)
	defer unlock()
	srcs, err := d.loadSources(spec.Keys, spec.Weights)
	if err != nil {
		return 0, err
	}
	out, err := d.zsetOp(spec, srcs)
	if err != nil {
		return 0, err
	}
	return d.zstoreKey(dst, out)
}

// ZInterCard is ZINTERCARD: the size of the intersection of keys, counting
// stopped at limit when limit > 0.
func (d *DB) ZInterCard(keys [][]byte, limit int64) (int64, error) {
	unlock := d.lock(keys...)
	defer func() { unlock() }()
	srcs, err := d.loadSources(keys, nil)
	if err != nil {
		return 0, err
	}
	d, done := d.walkView(srcsSize(srcs), &unlock)
	defer done()
	zbySize(srcs)
	if srcs[0].size() == 0 {
		return 0, nil
	}
	var n int64
	err = d.zprobe(srcs, func(_ []byte, _ float64, _ [][]float64, found [][]bool, i int) bool {
		for j := 1; j < len(srcs); j++ {
			if !found[j][i] {
				return true
			}
		}
		n++
		return limit == 0 || n < limit
	})
	return n, err
}
