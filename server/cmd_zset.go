package server

import (
	"strconv"

	"github.com/shaledb/shale/server/types"
)

// elemShape is how writeElems lays out sorted-set elements. The shapes
// differ only in RESP3, but they differ there as Redis 7.0's replies do.
type elemShape int

const (
	membersOnly elemShape = iota // an array of members
	scoredPairs                  // member-score Pairs: ZRANGE WITHSCORES and kin
	scoredFlat                   // members and scores in one array, under every protocol: ZPOPMIN without a count
	// scoredText: members and scores in one array, the scores as bulk
	// strings under every protocol: ZSCAN, which Redis answers with the
	// scores' text as its listpack or skiplist holds it, never a double.
	scoredText
)

// shapeFor is the shape of a reply that has scores when withScores is set.
func shapeFor(withScores bool) elemShape {
	if withScores {
		return scoredPairs
	}
	return membersOnly
}

// writeElems replies with elems in the given shape.
func (c *Ctx) writeElems(elems []types.ScoreMember, shape elemShape) {
	r := c.Reply()
	switch shape {
	case membersOnly:
		r.Array(len(elems))
	case scoredPairs:
		r.Pairs(len(elems))
	case scoredFlat, scoredText:
		r.Array(2 * len(elems))
	}
	for _, e := range elems {
		if shape == scoredPairs {
			r.Pair()
		}
		r.Bulk(e.Member)
		switch shape {
		case scoredText:
			r.Bulk(formatDouble(e.Score))
		case scoredPairs, scoredFlat:
			r.Double(e.Score)
		}
	}
}

// parseScore parses a score or increment argument.
func parseScore(b []byte) (float64, error) {
	f, ok := types.ParseScore(b)
	if !ok {
		return 0, errNotFloat
	}
	return f, nil
}

// ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member [score member ...]
func cmdZAdd(c *Ctx, args [][]byte) error { return zaddGeneric(c, args, 0) }

// ZINCRBY key increment member. As in Redis it is ZADD INCR, options
// parsing included: "ZINCRBY k nx m" is a syntax error.
func cmdZIncrBy(c *Ctx, args [][]byte) error { return zaddGeneric(c, args, types.ZAddIncr) }

// zaddOptions reads ZADD's options after the key into flags: the flags, CH,
// and the index of the first score. geoadd reads GEOADD's, NX, XX and CH
// only: there a GT, LT or INCR is the first longitude, as in Redis.
func zaddOptions(args [][]byte, flags types.ZAddFlags, geoadd bool) (types.ZAddFlags, bool, int) {
	ch := false
	i := 2
	for ; i < len(args); i++ {
		switch {
		case is(args[i], "NX"):
			flags |= types.ZAddNX
		case is(args[i], "XX"):
			flags |= types.ZAddXX
		case is(args[i], "CH"):
			ch = true
		case geoadd:
			return flags, ch, i
		case is(args[i], "INCR"):
			flags |= types.ZAddIncr
		case is(args[i], "GT"):
			flags |= types.ZAddGT
		case is(args[i], "LT"):
			flags |= types.ZAddLT
		default:
			return flags, ch, i // the first score
		}
	}
	return flags, ch, i
}

func zaddGeneric(c *Ctx, args [][]byte, flags types.ZAddFlags) error {
	flags, ch, i := zaddOptions(args, flags, false)
	pairs := args[i:]
	has := func(f types.ZAddFlags) bool { return flags&f != 0 }
	switch {
	case len(pairs) == 0 || len(pairs)%2 != 0: // not a Shape: the pairs start after the options
		return errSyntax
	case has(types.ZAddNX) && has(types.ZAddXX):
		return errZAddXXNX
	case has(types.ZAddNX) && (has(types.ZAddGT) || has(types.ZAddLT)), has(types.ZAddGT) && has(types.ZAddLT):
		return errZAddGTLTNX
	case has(types.ZAddIncr) && len(pairs) > 2:
		return errZAddIncrPair
	}
	elems := make([]types.ScoreMember, len(pairs)/2)
	for j := range elems {
		score, err := parseScore(pairs[2*j])
		if err != nil {
			return err
		}
		elems[j] = types.ScoreMember{Member: pairs[2*j+1], Score: score}
	}
	res, err := c.DB.ZAdd(args[1], flags, elems)
	if err == nil && res.Added > 0 {
		c.signalKeyReady(c.DB.Index(), args[1])
	}
	switch {
	case err != nil:
		return err
	case has(types.ZAddIncr) && !res.Done:
		c.Reply().Null()
	case has(types.ZAddIncr):
		c.Reply().Double(res.Score)
	case ch:
		c.Reply().Int(res.Added + res.Updated)
	default:
		c.Reply().Int(res.Added)
	}
	return nil
}

// ZSCORE key member
func cmdZScore(c *Ctx, args [][]byte) error {
	s, ok, err := c.DB.ZScore(args[1], args[2])
	if err != nil {
		return err
	}
	c.Reply().DoubleOrNull(s, ok)
	return nil
}

// ZMSCORE key member [member ...]
func cmdZMScore(c *Ctx, args [][]byte) error {
	scores, found, err := c.DB.ZMScore(args[1], args[2:])
	if err != nil {
		return err
	}
	c.Reply().Array(len(scores))
	for i, s := range scores {
		c.Reply().DoubleOrNull(s, found[i])
	}
	return nil
}

// ZCARD key
func cmdZCard(c *Ctx, args [][]byte) error {
	n, err := c.DB.ZCard(args[1])
	return replyInt(c, n, err)
}

// ZCOUNT key min max
func cmdZCount(c *Ctx, args [][]byte) error {
	r, ok := types.ParseScoreRange(args[2], args[3])
	if !ok {
		return errMinMaxNotFloat
	}
	n, err := c.DB.ZCount(args[1], r)
	return replyInt(c, n, err)
}

// ZLEXCOUNT key min max
func cmdZLexCount(c *Ctx, args [][]byte) error {
	r, ok := types.ParseLexRange(args[2], args[3])
	if !ok {
		return errMinMaxNotLex
	}
	n, err := c.DB.ZLexCount(args[1], r)
	return replyInt(c, n, err)
}

// rangeBy is a ZRANGE range kind, or rangeAuto while the options may still
// choose one.
type rangeBy int8

const (
	rangeAuto rangeBy = iota - 1
	rangeRank
	rangeScore
	rangeLex
)

// rangeDir is a ZRANGE direction, or dirAuto while REV may still set it.
type rangeDir int8

const (
	dirAuto rangeDir = iota
	dirForward
	dirReverse
)

// zrangeGeneric serves ZRANGE, ZRANGESTORE and the older range commands,
// which fix the kind or the direction that ZRANGE takes as options. The
// source key is args[keyIdx], followed by min and max (start and stop);
// ZRANGESTORE's destination is args[1]. Checks run in Redis's order:
// options, conflicts, the range itself, then the key.
func zrangeGeneric(c *Ctx, args [][]byte, keyIdx int, store bool, by rangeBy, dir rangeDir) error {
	sp, withScores, err := parseZRange(args, keyIdx, store, by, dir)
	if err != nil {
		return err
	}
	if store {
		n, err := c.DB.ZRangeStore(args[1], args[keyIdx], sp)
		return replyIntWaking(c, c.DB.Index(), args[1], n, err)
	}
	elems, err := c.DB.ZRange(args[keyIdx], sp)
	if err != nil {
		return err
	}
	c.writeElems(elems, shapeFor(withScores))
	return nil
}

// parseZRange parses the range and options of zrangeGeneric's commands.
func parseZRange(args [][]byte, keyIdx int, store bool, by rangeBy, dir rangeDir) (sp types.ZRangeSpec, withScores bool, err error) {
	minIdx, maxIdx := keyIdx+1, keyIdx+2
	offset, limit := int64(0), int64(-1)
	for j := keyIdx + 3; j < len(args); j++ {
		switch {
		case !store && is(args[j], "WITHSCORES"):
			withScores = true
		case is(args[j], "LIMIT") && len(args)-j-1 >= 2:
			if offset, err = parseInt(args[j+1]); err != nil {
				return sp, false, err
			}
			if limit, err = parseInt(args[j+2]); err != nil {
				return sp, false, err
			}
			j += 2
		case dir == dirAuto && is(args[j], "REV"):
			dir = dirReverse
		case by == rangeAuto && is(args[j], "BYLEX"):
			by = rangeLex
		case by == rangeAuto && is(args[j], "BYSCORE"):
			by = rangeScore
		default:
			return sp, false, errSyntax
		}
	}
	if by == rangeAuto {
		by = rangeRank
	}
	// Redis tells "no LIMIT" by a count of -1, so LIMIT x -1 passes here.
	if limit != -1 && by == rangeRank {
		return sp, false, errLimitNeedsBy
	}
	if withScores && by == rangeLex {
		return sp, false, errWithScoresByLex
	}
	sp = types.ZRangeSpec{Rev: dir == dirReverse, Offset: offset, Limit: limit}
	if sp.Rev && by != rangeRank {
		minIdx, maxIdx = maxIdx, minIdx // given as max, min
	}
	switch by {
	case rangeRank:
		sp.By = types.ByRank
		if sp.Start, err = parseInt(args[minIdx]); err != nil {
			return sp, false, err
		}
		if sp.Stop, err = parseInt(args[maxIdx]); err != nil {
			return sp, false, err
		}
	case rangeScore:
		sp.By = types.ByScore
		var ok bool
		if sp.Score, ok = types.ParseScoreRange(args[minIdx], args[maxIdx]); !ok {
			return sp, false, errMinMaxNotFloat
		}
	case rangeLex:
		sp.By = types.ByLex
		var ok bool
		if sp.Lex, ok = types.ParseLexRange(args[minIdx], args[maxIdx]); !ok {
			return sp, false, errMinMaxNotLex
		}
	}
	return sp, withScores, nil
}

// zrangeBounded is the groupedIf of a range command that zrangeGeneric
// serves with by and dir (not ZRANGESTORE, a write): whether a call's
// arguments bound its walk to what a read walks under its key's lock,
// whatever the zset's size (types.ZRangeSpec.WalksAtMost). ZRANGE 0 9 and
// ZRANGEBYSCORE with a LIMIT are; ZRANGE 0 -1 is not. Arguments that do
// not parse are, since their error reply is as cheap as any.
func zrangeBounded(by rangeBy, dir rangeDir) func(args [][]byte) bool {
	return func(args [][]byte) bool {
		if len(args) < 4 {
			return true // the arity error
		}
		sp, _, err := parseZRange(args, 1, false, by, dir)
		return err != nil || sp.WalksAtMost(types.WalkLockedUpTo)
	}
}

// ZRANGE key start stop [BYSCORE|BYLEX] [REV] [LIMIT offset count] [WITHSCORES]
func cmdZRange(c *Ctx, args [][]byte) error {
	return zrangeGeneric(c, args, 1, false, rangeAuto, dirAuto)
}

// ZRANGESTORE dst src min max [BYSCORE|BYLEX] [REV] [LIMIT offset count]
func cmdZRangeStore(c *Ctx, args [][]byte) error {
	return zrangeGeneric(c, args, 2, true, rangeAuto, dirAuto)
}

// ZREVRANGE key start stop [WITHSCORES]
func cmdZRevRange(c *Ctx, args [][]byte) error {
	return zrangeGeneric(c, args, 1, false, rangeRank, dirReverse)
}

// ZRANGEBYSCORE key min max [WITHSCORES] [LIMIT offset count]
func cmdZRangeByScore(c *Ctx, args [][]byte) error {
	return zrangeGeneric(c, args, 1, false, rangeScore, dirForward)
}

// ZREVRANGEBYSCORE key max min [WITHSCORES] [LIMIT offset count]
func cmdZRevRangeByScore(c *Ctx, args [][]byte) error {
	return zrangeGeneric(c, args, 1, false, rangeScore, dirReverse)
}

// ZRANGEBYLEX key min max [LIMIT offset count]
func cmdZRangeByLex(c *Ctx, args [][]byte) error {
	return zrangeGeneric(c, args, 1, false, rangeLex, dirForward)
}

// ZREVRANGEBYLEX key max min [LIMIT offset count]
func cmdZRevRangeByLex(c *Ctx, args [][]byte) error {
	return zrangeGeneric(c, args, 1, false, rangeLex, dirReverse)
}

// ZRANK key member
func cmdZRank(c *Ctx, args [][]byte) error { return zrankGeneric(c, args, false) }

// ZREVRANK key member
func cmdZRevRank(c *Ctx, args [][]byte) error { return zrankGeneric(c, args, true) }

// zrankGeneric serves ZRANK and ZREVRANK as Redis 7.0 does: no options (the
// WITHSCORE of Redis 7.2 is an arity error), a nil reply for a missing member.
func zrankGeneric(c *Ctx, args [][]byte, rev bool) error {
	rank, _, ok, err := c.DB.ZRank(args[1], args[2], rev)
	switch {
	case err != nil:
		return err
	case !ok:
		c.Reply().Null()
	default:
		c.Reply().Int(rank)
	}
	return nil
}

// ZREM key member [member ...]
func cmdZRem(c *Ctx, args [][]byte) error {
	n, err := c.DB.ZRem(args[1], args[2:])
	return replyInt(c, n, err)
}

// zremRange removes the range sp from args[1] and replies the count.
func zremRange(c *Ctx, args [][]byte, sp types.ZRangeSpec) error {
	n, err := c.DB.ZRemRange(args[1], sp)
	return replyInt(c, n, err)
}

// ZREMRANGEBYRANK key start stop
func cmdZRemRangeByRank(c *Ctx, args [][]byte) error {
	start, stop, err := parseStartStop(args)
	if err != nil {
		return err
	}
	return zremRange(c, args, types.ZRangeSpec{By: types.ByRank, Start: start, Stop: stop})
}

// ZREMRANGEBYSCORE key min max
func cmdZRemRangeByScore(c *Ctx, args [][]byte) error {
	r, ok := types.ParseScoreRange(args[2], args[3])
	if !ok {
		return errMinMaxNotFloat
	}
	return zremRange(c, args, types.ZRangeSpec{By: types.ByScore, Score: r, Limit: -1})
}

// ZREMRANGEBYLEX key min max
func cmdZRemRangeByLex(c *Ctx, args [][]byte) error {
	r, ok := types.ParseLexRange(args[2], args[3])
	if !ok {
		return errMinMaxNotLex
	}
	return zremRange(c, args, types.ZRangeSpec{By: types.ByLex, Lex: r, Limit: -1})
}

// ZPOPMIN key [count]
func cmdZPopMin(c *Ctx, args [][]byte) error { return zpopGeneric(c, args, types.Lowest) }

// ZPOPMAX key [count]
func cmdZPopMax(c *Ctx, args [][]byte) error { return zpopGeneric(c, args, types.Highest) }

func zpopGeneric(c *Ctx, args [][]byte, end types.ScoreEnd) error {
	count := int64(1)
	if len(args) == 3 {
		n, ok := types.ParseInt(args[2])
		if !ok || n < 0 {
			return errPositiveNumber
		}
		count = n
	}
	_, elems, err := c.DB.ZPop(args[1:2], end, count)
	if err != nil {
		return err
	}
	shape := scoredFlat // Redis nests the pairs only when a count is given
	if len(args) == 3 {
		shape = scoredPairs
	}
	c.writeElems(elems, shape)
	return nil
}

// parseMPop parses the "numkeys key [key ...] MIN|MAX [COUNT count]" of
// ZMPOP and BZMPOP, which starts at args[numIdx].
func parseMPop(args [][]byte, numIdx int) (keys [][]byte, end types.ScoreEnd, count int64, err error) {
	numkeys, ok := types.ParseInt(args[numIdx])
	if !ok || numkeys < 1 {
		return nil, types.Lowest, 0, errNumkeysPositive
	}
	if numkeys >= int64(len(args)) {
		return nil, types.Lowest, 0, errSyntax
	}
	whereIdx := numIdx + int(numkeys) + 1
	if whereIdx >= len(args) {
		return nil, types.Lowest, 0, errSyntax
	}
	switch {
	case is(args[whereIdx], "MIN"):
		end = types.Lowest
	case is(args[whereIdx], "MAX"):
		end = types.Highest
	default:
		return nil, types.Lowest, 0, errSyntax
	}
	count = 0 // not given yet; it defaults to 1
	for j := whereIdx + 1; j < len(args); j++ {
		if count != 0 || !is(args[j], "COUNT") || j+1 >= len(args) {
			return nil, types.Lowest, 0, errSyntax
		}
		j++
		n, ok := types.ParseInt(args[j])
		if !ok || n < 1 {
			return nil, types.Lowest, 0, errCountPositive
		}
		count = n
	}
	return args[numIdx+1 : whereIdx], end, max(count, 1), nil
}

// writeMPop replies to ZMPOP and BZMPOP: [key, [[member, score], ...]], or
// a null array when no key had elements.
func (c *Ctx) writeMPop(key []byte, elems []types.ScoreMember) {
	r := c.Reply()
	if key == nil {
		r.NullArray()
		return
	}
	r.Array(2)
	r.Bulk(key)
	r.Array(len(elems))
	for _, e := range elems {
		r.Array(2)
		r.Bulk(e.Member)
		r.Double(e.Score)
	}
}

// ZMPOP numkeys key [key ...] MIN|MAX [COUNT count]
func cmdZMPop(c *Ctx, args [][]byte) error {
	keys, end, count, err := parseMPop(args, 1)
	if err != nil {
		return err
	}
	key, elems, err := c.DB.ZPop(keys, end, count)
	if err != nil {
		return err
	}
	c.writeMPop(key, elems)
	return nil
}

// ZRANDMEMBER key [count [WITHSCORES]]
func cmdZRandMember(c *Ctx, args [][]byte) error {
	if len(args) == 2 {
		elems, err := c.DB.ZRandMember(args[1], 1)
		if err != nil {
			return err
		}
		if len(elems) == 0 {
			c.Reply().Null()
		} else {
			c.Reply().Bulk(elems[0].Member)
		}
		return nil
	}
	count, err := parseRandCount(args[2])
	if err != nil {
		return err
	}
	withScores := false
	switch { // not a Shape (at most 4): Redis parses count before it checks the arity
	case len(args) > 4 || (len(args) == 4 && !is(args[3], "WITHSCORES")):
		return errSyntax
	case len(args) == 4:
		withScores = true
		if err := checkPairedCount(count); err != nil {
			return err
		}
	}
	elems, err := c.DB.ZRandMember(args[1], count)
	if err != nil {
		return err
	}
	c.writeElems(elems, shapeFor(withScores))
	return nil
}

// zsetOpGeneric serves ZUNION, ZINTER, ZDIFF, their STORE forms (dst !=
// nil) and ZINTERCARD (card). numkeys is args[numIdx]. Redis checks the
// input types before it parses WEIGHTS, AGGREGATE and LIMIT, so a bad option
// on a WRONGTYPE input answers WRONGTYPE.
func zsetOpGeneric(c *Ctx, args [][]byte, numIdx int, op types.SetOp, dst []byte, card bool) error {
	setnum, err := parseInt(args[numIdx])
	if err != nil {
		return err
	}
	if setnum < 1 {
		return errNoInputKeys(lower(args[0]))
	}
	if setnum > int64(len(args)-numIdx-1) {
		return errSyntax
	}
	keys := args[numIdx+1 : numIdx+1+int(setnum)]
	spec := types.ZSetOpSpec{Op: op, Keys: keys}
	withScores := false
	limit := int64(0)
	optErr := func() error {
		for j := numIdx + 1 + int(setnum); j < len(args); {
			remaining := len(args) - j
			switch {
			case op != types.OpDiff && !card && remaining >= len(keys)+1 && is(args[j], "WEIGHTS"):
				j++
				spec.Weights = make([]float64, len(keys))
				for i := range keys {
					w, ok := types.ParseScore(args[j])
					if !ok {
						return errWeightNotFloat
					}
					spec.Weights[i] = w
					j++
				}
			case op != types.OpDiff && !card && remaining >= 2 && is(args[j], "AGGREGATE"):
				switch {
				case is(args[j+1], "SUM"):
					spec.Agg = types.AggSum
				case is(args[j+1], "MIN"):
					spec.Agg = types.AggMin
				case is(args[j+1], "MAX"):
					spec.Agg = types.AggMax
				default:
					return errSyntax
				}
				j += 2
			case dst == nil && !card && is(args[j], "WITHSCORES"):
				withScores = true
				j++
			case card && remaining >= 2 && is(args[j], "LIMIT"):
				n, ok := types.ParseInt(args[j+1])
				if !ok || n < 0 {
					return errLimitNegative
				}
				limit = n
				j += 2
			default:
				return errSyntax
			}
		}
		return nil
	}()
	if optErr != nil {
		if err := c.DB.ZSetOpCheck(keys); err != nil {
			return err
		}
		return optErr
	}
	switch {
	case card:
		n, err := c.DB.ZInterCard(keys, limit)
		return replyInt(c, n, err)
	case dst != nil:
		n, err := c.DB.ZSetOpStore(dst, spec)
		return replyIntWaking(c, c.DB.Index(), dst, n, err)
	default:
		elems, err := c.DB.ZSetOp(spec)
		if err != nil {
			return err
		}
		c.writeElems(elems, shapeFor(withScores))
	}
	return nil
}

// ZUNION numkeys key [key ...] [WEIGHTS weight [weight ...]] [AGGREGATE SUM|MIN|MAX] [WITHSCORES]
func cmdZUnion(c *Ctx, args [][]byte) error {
	return zsetOpGeneric(c, args, 1, types.OpUnion, nil, false)
}

// ZINTER numkeys key [key ...] [WEIGHTS weight [weight ...]] [AGGREGATE SUM|MIN|MAX] [WITHSCORES]
func cmdZInter(c *Ctx, args [][]byte) error {
	return zsetOpGeneric(c, args, 1, types.OpInter, nil, false)
}

// ZDIFF numkeys key [key ...] [WITHSCORES]
func cmdZDiff(c *Ctx, args [][]byte) error {
	return zsetOpGeneric(c, args, 1, types.OpDiff, nil, false)
}

// ZUNIONSTORE destination numkeys key [key ...] [WEIGHTS ...] [AGGREGATE ...]
func cmdZUnionStore(c *Ctx, args [][]byte) error {
	return zsetOpGeneric(c, args, 2, types.OpUnion, args[1], false)
}

// ZINTERSTORE destination numkeys key [key ...] [WEIGHTS ...] [AGGREGATE ...]
func cmdZInterStore(c *Ctx, args [][]byte) error {
	return zsetOpGeneric(c, args, 2, types.OpInter, args[1], false)
}

// ZDIFFSTORE destination numkeys key [key ...]
func cmdZDiffStore(c *Ctx, args [][]byte) error {
	return zsetOpGeneric(c, args, 2, types.OpDiff, args[1], false)
}

// ZINTERCARD numkeys key [key ...] [LIMIT limit]
func cmdZInterCard(c *Ctx, args [][]byte) error {
	return zsetOpGeneric(c, args, 1, types.OpInter, nil, true)
}

// ZSCAN key cursor [MATCH pattern] [COUNT count]
func cmdZScan(c *Ctx, args [][]byte) error {
	cursor, err := parseCursor(args[2])
	if err != nil {
		return err
	}
	o, empty, err := keyScanOptions(args, c.DB.ZCard)
	if err != nil || empty {
		if empty {
			writeScanReply(c, 0, nil)
		}
		return err
	}
	next, elems, err := c.DB.ZScan(args[1], cursor, o.Match, o.Count)
	if err != nil {
		return err
	}
	c.Reply().Array(2)
	c.Reply().BulkString(strconv.FormatUint(next, 10))
	c.writeElems(elems, scoredText)
	return nil
}

// BZPOPMIN key [key ...] timeout
func cmdBZPopMin(c *Ctx, args [][]byte) error { return bzpopGeneric(c, args, types.Lowest) }

// BZPOPMAX key [key ...] timeout
func cmdBZPopMax(c *Ctx, args [][]byte) error { return bzpopGeneric(c, args, types.Highest) }

// bzpopGeneric pops one element from the first non-empty zset among the
// keys, waiting for one when there is none: [key, member, score], or the
// null array on timeout.
func bzpopGeneric(c *Ctx, args [][]byte, end types.ScoreEnd) error {
	timeout, err := parseTimeout(args[len(args)-1])
	if err != nil {
		return err
	}
	return c.Srv.blockOn(c, args[1:len(args)-1], timeout, "zset", func(keys [][]byte) (bool, error) {
		key, elems, err := c.DB.ZPop(keys, end, 1)
		if err != nil || key == nil {
			return false, err
		}
		c.Reply().Array(3)
		c.Reply().Bulk(key)
		c.Reply().Bulk(elems[0].Member)
		c.Reply().Double(elems[0].Score)
		return true, nil
	})
}

// BZMPOP timeout numkeys key [key ...] MIN|MAX [COUNT count]. As in Redis
// the timeout is checked after the other arguments.
func cmdBZMPop(c *Ctx, args [][]byte) error {
	keys, end, count, err := parseMPop(args, 2)
	if err != nil {
		return err
	}
	timeout, err := parseTimeout(args[1])
	if err != nil {
		return err
	}
	return c.Srv.blockOn(c, keys, timeout, "zset", func(keys [][]byte) (bool, error) {
		key, elems, err := c.DB.ZPop(keys, end, count)
		if err != nil || key == nil {
			return false, err
		}
		c.writeMPop(key, elems)
		return true, nil
	})
}

var zsetCommands = []Command{
	cmd("zadd", -4, Write|DenyOOM|Fast|Grouped, 1, 1, 1, cmdZAdd).keyFlags(KeyRW|KeyUpdate).
		doc("Add one or more members to a sorted set, or update its score if it already exists", "1.2.0", "sorted-set", "O(log(N)) for each item added, where N is the number of elements in the sorted set.", "key [NX|XX] [GT|LT] [CH] [INCR] score member [score member ...]"),
	cmd("zincrby", 4, Write|DenyOOM|Fast|Grouped, 1, 1, 1, cmdZIncrBy).keyFlags(KeyRW|KeyAccess|KeyUpdate).
		doc("Increment the score of a member in a sorted set", "1.2.0", "sorted-set", "O(log(N)) where N is the number of elements in the sorted set.", "key increment member"),
	cmd("zscore", 3, ReadOnly|Fast|Grouped, 1, 1, 1, cmdZScore).keyFlags(KeyRO|KeyAccess).
		doc("Get the score associated with the given member in a sorted set", "1.2.0", "sorted-set", "O(1)", "key member"),
	cmd("zmscore", -3, ReadOnly|Fast|Grouped, 1, 1, 1, cmdZMScore).keyFlags(KeyRO|KeyAccess).
		doc("Get the score associated with the given members in a sorted set", "6.2.0", "sorted-set", "O(N) where N is the number of members being requested.", "key member [member ...]"),
	cmd("zcard", 2, ReadOnly|Fast|Grouped, 1, 1, 1, cmdZCard).keyFlags(KeyRO).
		doc("Get the number of members in a sorted set", "1.2.0", "sorted-set", "O(1)", "key"),
	cmd("zcount", 4, ReadOnly|Fast, 1, 1, 1, cmdZCount).keyFlags(KeyRO|KeyAccess).
		doc("Count the members in a sorted set with scores within the given values", "2.0.0", "sorted-set", "O(log(N)) with N being the number of elements in the sorted set.", "key min max"),
	cmd("zlexcount", 4, ReadOnly|Fast, 1, 1, 1, cmdZLexCount).keyFlags(KeyRO|KeyAccess).
		doc("Count the number of members in a sorted set between a given lexicographical range", "2.8.9", "sorted-set", "O(log(N)) with N being the number of elements in the sorted set.", "key min max"),
	cmd("zrange", -4, ReadOnly, 1, 1, 1, cmdZRange).groupedIf(zrangeBounded(rangeAuto, dirAuto)).keyFlags(KeyRO|KeyAccess).
		doc("Return a range of members in a sorted set", "1.2.0", "sorted-set", "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements returned.", "key start stop [BYSCORE|BYLEX] [REV] [LIMIT offset count] [WITHSCORES]"),
	cmd("zrangestore", -5, Write|DenyOOM, 1, 2, 1, cmdZRangeStore).keyFlags(KeyOW|KeyUpdate, KeyRO|KeyAccess).
		doc("Store a range of members from sorted set into another key", "6.2.0", "sorted-set", "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements stored into the destination key.", "dst src min max [BYSCORE|BYLEX] [REV] [LIMIT offset count]"),
	cmd("zrevrange", -4, ReadOnly, 1, 1, 1, cmdZRevRange).groupedIf(zrangeBounded(rangeRank, dirReverse)).keyFlags(KeyRO|KeyAccess).
		doc("Return a range of members in a sorted set, by index, with scores ordered from high to low", "1.2.0", "sorted-set", "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements returned.", "key start stop [WITHSCORES]"),
	cmd("zrangebyscore", -4, ReadOnly, 1, 1, 1, cmdZRangeByScore).groupedIf(zrangeBounded(rangeScore, dirForward)).keyFlags(KeyRO|KeyAccess).
		doc("Return a range of members in a sorted set, by score", "1.0.5", "sorted-set", "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).", "key min max [WITHSCORES] [LIMIT offset count]"),
	cmd("zrevrangebyscore", -4, ReadOnly, 1, 1, 1, cmdZRevRangeByScore).groupedIf(zrangeBounded(rangeScore, dirReverse)).keyFlags(KeyRO|KeyAccess).
		doc("Return a range of members in a sorted set, by score, with scores ordered from high to low", "2.2.0", "sorted-set", "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).", "key max min [WITHSCORES] [LIMIT offset count]"),
	cmd("zrangebylex", -4, ReadOnly, 1, 1, 1, cmdZRangeByLex).groupedIf(zrangeBounded(rangeLex, dirForward)).keyFlags(KeyRO|KeyAccess).
		doc("Return a range of members in a sorted set, by lexicographical range", "2.8.9", "sorted-set", "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).", "key min max [LIMIT offset count]"),
	cmd("zrevrangebylex", -4, ReadOnly, 1, 1, 1, cmdZRevRangeByLex).groupedIf(zrangeBounded(rangeLex, dirReverse)).keyFlags(KeyRO|KeyAccess).
		doc("Return a range of members in a sorted set, by lexicographical range, ordered from higher to lower strings.", "2.8.9", "sorted-set", "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).", "key max min [LIMIT offset count]"),
	cmd("zrank", 3, ReadOnly|Fast, 1, 1, 1, cmdZRank).keyFlags(KeyRO|KeyAccess).
		doc("Determine the index of a member in a sorted set", "2.0.0", "sorted-set", "O(log(N))", "key member"),
	cmd("zrevrank", 3, ReadOnly|Fast, 1, 1, 1, cmdZRevRank).keyFlags(KeyRO|KeyAccess).
		doc("Determine the index of a member in a sorted set, with scores ordered from high to low", "2.0.0", "sorted-set", "O(log(N))", "key member"),
	cmd("zrem", -3, Write|Fast|Grouped, 1, 1, 1, cmdZRem).keyFlags(KeyRW|KeyDelete).
		doc("Remove one or more members from a sorted set", "1.2.0", "sorted-set", "O(M*log(N)) with N being the number of elements in the sorted set and M the number of elements to be removed.", "key member [member ...]"),
	cmd("zremrangebyrank", 4, Write, 1, 1, 1, cmdZRemRangeByRank).keyFlags(KeyRW|KeyDelete).
		doc("Remove all members in a sorted set within the given indexes", "2.0.0", "sorted-set", "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements removed by the operation.", "key start stop"),
	cmd("zremrangebyscore", 4, Write, 1, 1, 1, cmdZRemRangeByScore).keyFlags(KeyRW|KeyDelete).
		doc("Remove all members in a sorted set within the given scores", "1.2.0", "sorted-set", "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements removed by the operation.", "key min max"),
	cmd("zremrangebylex", 4, Write, 1, 1, 1, cmdZRemRangeByLex).keyFlags(KeyRW|KeyDelete).
		doc("Remove all members in a sorted set between the given lexicographical range", "2.8.9", "sorted-set", "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements removed by the operation.", "key min max"),
	cmd("zpopmin", -2, Write|Fast|Grouped, 1, 1, 1, cmdZPopMin).shaped(atMost(3, shapeSyntax)).keyFlags(KeyRW|KeyAccess|KeyDelete).
		doc("Remove and return members with the lowest scores in a sorted set", "5.0.0", "sorted-set", "O(log(N)*M) with N being the number of elements in the sorted set, and M being the number of elements popped.", "key [count]"),
	cmd("zpopmax", -2, Write|Fast|Grouped, 1, 1, 1, cmdZPopMax).shaped(atMost(3, shapeSyntax)).keyFlags(KeyRW|KeyAccess|KeyDelete).
		doc("Remove and return members with the highest scores in a sorted set", "5.0.0", "sorted-set", "O(log(N)*M) with N being the number of elements in the sorted set, and M being the number of elements popped.", "key [count]"),
	cmd("zmpop", -4, Write, 0, 0, 0, cmdZMPop).keysBy(numKeysAt(1)).keySpecs(numKeysSpec(1, KeyRW|KeyAccess|KeyDelete)).
		doc("Remove and return members with scores in a sorted set", "7.0.0", "sorted-set", "O(K) + O(M*log(N)) where K is the number of provided keys, N being the number of elements in the sorted set, and M being the number of elements popped.", "numkeys key [key ...] MIN|MAX [COUNT count]"),
	cmd("zrandmember", -2, ReadOnly, 1, 1, 1, cmdZRandMember).keyFlags(KeyRO|KeyAccess).tips("nondeterministic_output").
		doc("Get one or multiple random elements from a sorted set", "6.2.0", "sorted-set", "O(N) where N is the number of elements returned", "key [count [WITHSCORES]]"),
	cmd("zunion", -3, ReadOnly, 0, 0, 0, cmdZUnion).keysBy(numKeysAt(1)).keySpecs(numKeysSpec(1, KeyRO|KeyAccess)).
		doc("Add multiple sorted sets", "6.2.0", "sorted-set", "O(N)+O(M*log(M)) with N being the sum of the sizes of the input sorted sets, and M being the number of elements in the resulting sorted set.", "numkeys key [key ...] [WEIGHTS weight [weight ...]] [AGGREGATE SUM|MIN|MAX] [WITHSCORES]"),
	cmd("zinter", -3, ReadOnly, 0, 0, 0, cmdZInter).keysBy(numKeysAt(1)).keySpecs(numKeysSpec(1, KeyRO|KeyAccess)).
		doc("Intersect multiple sorted sets", "6.2.0", "sorted-set", "O(N*K)+O(M*log(M)) worst case with N being the smallest input sorted set, K being the number of input sorted sets and M being the number of elements in the resulting sorted set.", "numkeys key [key ...] [WEIGHTS weight [weight ...]] [AGGREGATE SUM|MIN|MAX] [WITHSCORES]"),
	cmd("zdiff", -3, ReadOnly, 0, 0, 0, cmdZDiff).keysBy(numKeysAt(1)).keySpecs(numKeysSpec(1, KeyRO|KeyAccess)).
		doc("Subtract multiple sorted sets", "6.2.0", "sorted-set", "O(L + (N-K)log(N)) worst case where L is the total number of elements in all the sets, N is the size of the first set, and K is the size of the result set.", "numkeys key [key ...] [WITHSCORES]"),
	cmd("zunionstore", -4, Write|DenyOOM, 1, 1, 1, cmdZUnionStore).keysBy(destThenNumKeys).keySpecs(keyAt(1, KeyOW|KeyUpdate), numKeysSpec(2, KeyRO|KeyAccess)).
		doc("Add multiple sorted sets and store the resulting sorted set in a new key", "2.0.0", "sorted-set", "O(N)+O(M log(M)) with N being the sum of the sizes of the input sorted sets, and M being the number of elements in the resulting sorted set.", "destination numkeys key [key ...] [WEIGHTS weight [weight ...]] [AGGREGATE SUM|MIN|MAX]"),
	cmd("zinterstore", -4, Write|DenyOOM, 1, 1, 1, cmdZInterStore).keysBy(destThenNumKeys).keySpecs(keyAt(1, KeyOW|KeyUpdate), numKeysSpec(2, KeyRO|KeyAccess)).
		doc("Intersect multiple sorted sets and store the resulting sorted set in a new key", "2.0.0", "sorted-set", "O(N*K)+O(M*log(M)) worst case with N being the smallest input sorted set, K being the number of input sorted sets and M being the number of elements in the resulting sorted set.", "destination numkeys key [key ...] [WEIGHTS weight [weight ...]] [AGGREGATE SUM|MIN|MAX]"),
	cmd("zdiffstore", -4, Write|DenyOOM, 1, 1, 1, cmdZDiffStore).keysBy(destThenNumKeys).keySpecs(keyAt(1, KeyOW|KeyUpdate), numKeysSpec(2, KeyRO|KeyAccess)).
		doc("Subtract multiple sorted sets and store the resulting sorted set in a new key", "6.2.0", "sorted-set", "O(L + (N-K)log(N)) worst case where L is the total number of elements in all the sets, N is the size of the first set, and K is the size of the result set.", "destination numkeys key [key ...]"),
	cmd("zintercard", -3, ReadOnly, 0, 0, 0, cmdZInterCard).keysBy(numKeysAt(1)).keySpecs(numKeysSpec(1, KeyRO|KeyAccess)).
		doc("Intersect multiple sorted sets and return the cardinality of the result", "7.0.0", "sorted-set", "O(N*K) worst case with N being the smallest input sorted set, K being the number of input sorted sets.", "numkeys key [key ...] [LIMIT limit]"),
	cmd("zscan", -3, ReadOnly, 1, 1, 1, cmdZScan).keyFlags(KeyRO|KeyAccess).tips("nondeterministic_output").
		doc("Incrementally iterate sorted sets elements and associated scores", "2.8.0", "sorted-set", "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection..", "key cursor [MATCH pattern] [COUNT count]"),
	cmd("bzpopmin", -3, Write|NoScript|Blocking|Fast, 1, -2, 1, cmdBZPopMin).keyFlags(KeyRW|KeyAccess|KeyDelete).
		doc("Remove and return the member with the lowest score from one or more sorted sets, or block until one is available", "5.0.0", "sorted-set", "O(log(N)) with N being the number of elements in the sorted set.", "key [key ...] timeout"),
	cmd("bzpopmax", -3, Write|NoScript|Blocking|Fast, 1, -2, 1, cmdBZPopMax).keyFlags(KeyRW|KeyAccess|KeyDelete).
		doc("Remove and return the member with the highest score from one or more sorted sets, or block until one is available", "5.0.0", "sorted-set", "O(log(N)) with N being the number of elements in the sorted set.", "key [key ...] timeout"),
	cmd("bzmpop", -5, Write|Blocking, 0, 0, 0, cmdBZMPop).keysBy(numKeysAt(2)).keySpecs(numKeysSpec(2, KeyRW|KeyAccess|KeyDelete)).
		doc("Remove and return members with scores in a sorted set or block until one is available", "7.0.0", "sorted-set", "O(K) + O(M*log(N)) where K is the number of provided keys, N being the number of elements in the sorted set, and M being the number of elements popped.", "timeout numkeys key [key ...] MIN|MAX [COUNT count]"),
}
