package tests

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// The one-key workload of hotkey_test.go: many clients send commands on
// one key per type, so that every command on a key contends for its lock
// and, in Shale, reads the queued writes of the one before it through the
// overlay (docs/WRITES.md). This file holds the commands, the clients that
// send them and the checks made as each reply arrives; hotkey_test.go holds
// the tests and the checks of the final state.

// The keys of the workload, one per type, and the hash field and sorted-set
// member that HINCRBY and ZINCRBY count on.
const (
	hotCtrKey    = "hot:ctr"
	hotHashKey   = "hot:h"
	hotListKey   = "hot:l"
	hotSetKey    = "hot:s"
	hotZSetKey   = "hot:z"
	hotStreamKey = "hot:x"
	hotBitsKey   = "hot:b"
	hotGeoKey    = "hot:g"
	hotField     = "f"
	hotMember    = "m"
)

// hotSeries is a count on one key that each write of the series raises by
// one and each read of it returns: the counter, the hash field, the list's
// length, the set's and the stream's sizes, the member's score, and the
// 32-bit field at the start of a bitmap.
type hotSeries int

const (
	seriesCtr hotSeries = iota
	seriesHashField
	seriesList
	seriesSet
	seriesZMember
	seriesStream
	seriesBits
	numHotSeries
	noSeries hotSeries = -1 // HSET, ZADD and GEOADD of new elements: no count is read
)

// hotKind is a command of the workload.
type hotKind int

const (
	hotIncr hotKind = iota
	hotHIncrBy
	hotHSet
	hotLPush
	hotRPush
	hotSAdd
	hotZIncrBy
	hotZAdd
	hotXAdd
	hotBitIncr
	hotGeoAdd
	hotGet
	hotHGet
	hotLLen
	hotSCard
	hotZScore
	hotXLen
	hotBitGet
	numHotKinds
)

// hotWriteKinds and hotReadKinds split hotKind at hotGet.
const (
	hotWriteKinds = int(hotGet)
	hotReadKinds  = int(numHotKinds - hotGet)
)

// hotKinds describes each kind: the series it raises or reads, and, for a
// write, whether its reply is the series' count after it (positional).
var hotKinds = [numHotKinds]struct {
	series     hotSeries
	read       bool
	positional bool
}{
	hotIncr:    {seriesCtr, false, true},
	hotHIncrBy: {seriesHashField, false, true},
	hotHSet:    {noSeries, false, false},
	hotLPush:   {seriesList, false, true},
	hotRPush:   {seriesList, false, true},
	hotSAdd:    {seriesSet, false, false},
	hotZIncrBy: {seriesZMember, false, true},
	hotZAdd:    {noSeries, false, false},
	hotXAdd:    {seriesStream, false, false},
	hotBitIncr: {seriesBits, false, true},
	hotGeoAdd:  {noSeries, false, false},
	hotGet:     {seriesCtr, true, false},
	hotHGet:    {seriesHashField, true, false},
	hotLLen:    {seriesList, true, false},
	hotSCard:   {seriesSet, true, false},
	hotZScore:  {seriesZMember, true, false},
	hotXLen:    {seriesStream, true, false},
	hotBitGet:  {seriesBits, true, false},
}

// hotOp is one command of the workload and what came back for it.
type hotOp struct {
	kind  hotKind
	value string // the unique field, element or member it writes; "" for counters and reads
	score int64  // ZADD's score, and GEOADD's longitude in millionths of a degree
	floor int64  // for a read: its series' acknowledged count when the command was sent

	reply any
	err   error
	acked bool     // the server answered (settle)
	n     int64    // the count its reply gives: after a positional write, or read
	id    streamID // XADD's reply
}

// args is the command line of op.
func (op *hotOp) args() []any {
	switch op.kind {
	case hotIncr:
		return []any{"INCR", hotCtrKey}
	case hotHIncrBy:
		return []any{"HINCRBY", hotHashKey, hotField, 1}
	case hotHSet:
		return []any{"HSET", hotHashKey, op.value, op.value}
	case hotLPush:
		return []any{"LPUSH", hotListKey, op.value}
	case hotRPush:
		return []any{"RPUSH", hotListKey, op.value}
	case hotSAdd:
		return []any{"SADD", hotSetKey, op.value}
	case hotZIncrBy:
		return []any{"ZINCRBY", hotZSetKey, 1, hotMember}
	case hotZAdd:
		return []any{"ZADD", hotZSetKey, op.score, op.value}
	case hotXAdd:
		return []any{"XADD", hotStreamKey, "*", "v", op.value}
	case hotBitIncr:
		return []any{"BITFIELD", hotBitsKey, "INCRBY", "u32", 0, 1}
	case hotGeoAdd:
		return []any{"GEOADD", hotGeoKey, float64(op.score) / 1e6, 45, op.value}
	case hotGet:
		return []any{"GET", hotCtrKey}
	case hotHGet:
		return []any{"HGET", hotHashKey, hotField}
	case hotLLen:
		return []any{"LLEN", hotListKey}
	case hotSCard:
		return []any{"SCARD", hotSetKey}
	case hotZScore:
		return []any{"ZSCORE", hotZSetKey, hotMember}
	case hotXLen:
		return []any{"XLEN", hotStreamKey}
	case hotBitGet:
		return []any{"BITFIELD_RO", hotBitsKey, "GET", "u32", 0}
	}
	panic(fmt.Sprintf("hotOp: unknown kind %d", op.kind))
}

func (op *hotOp) String() string {
	return fmt.Sprintf("%s -> %s", fmtArgs(op.args()), fmtReply(op.reply, op.err))
}

// settle reads op's reply. op is acked when the server answered; the
// error is for an answer the command cannot give here (an error reply, a
// new element reported as old, a count that is not one). When the
// connection broke first, op is neither: it may or may not have run.
func (op *hotOp) settle() error {
	if op.err != nil && !errors.Is(op.err, redis.Nil) {
		if isReplyError(op.err) {
			return fmt.Errorf("%v: no command of this workload can fail", op)
		}
		return nil
	}
	op.acked = true
	switch op.kind {
	case hotHSet, hotSAdd, hotZAdd, hotGeoAdd:
		// Every field and member is unique: a reply of 0 means the
		// server thinks an earlier command wrote it.
		if op.err != nil || op.reply != int64(1) {
			return fmt.Errorf("%v: want 1, the element is new", op)
		}
	case hotXAdd:
		s, isStr := op.reply.(string)
		id, err := parseStreamID(s)
		if !isStr || err != nil {
			return fmt.Errorf("%v: want a stream ID", op)
		}
		op.id = id
	default:
		n, err := hotCount(op.reply, op.err)
		if err != nil {
			return fmt.Errorf("%v: %v", op, err)
		}
		if !hotKinds[op.kind].read && n < 1 {
			return fmt.Errorf("%v: a write that adds one leaves a count of at least 1", op)
		}
		op.n = n
	}
	return nil
}

// hotCount reads a count from a reply: an integer, a number in a bulk
// string (GET, HGET; ZSCORE and ZINCRBY's scores, which must be whole),
// BITFIELD's one field, or nil before the first write of a series.
func hotCount(reply any, err error) (int64, error) {
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	switch v := reply.(type) {
	case int64:
		return v, nil
	case []any:
		if len(v) == 1 {
			return hotCount(v[0], nil)
		}
	case string:
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			return n, nil
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return 0, fmt.Errorf("%q is not a whole count", v)
		}
		return int64(f), nil
	}
	return 0, fmt.Errorf("want a count")
}

// streamID is a parsed stream entry ID.
type streamID struct{ ms, seq uint64 }

func parseStreamID(s string) (streamID, error) {
	ms, seq, found := strings.Cut(s, "-")
	a, errMs := strconv.ParseUint(ms, 10, 64)
	b, errSeq := strconv.ParseUint(seq, 10, 64)
	if !found || errMs != nil || errSeq != nil {
		return streamID{}, fmt.Errorf("%q is not a stream ID", s)
	}
	return streamID{a, b}, nil
}

func (id streamID) less(o streamID) bool {
	return id.ms < o.ms || id.ms == o.ms && id.seq < o.seq
}

func (id streamID) String() string { return fmt.Sprintf("%d-%d", id.ms, id.seq) }

// hotAcks holds, per series, the count that acknowledged writes have
// reached: the highest reply of its positional writes, or the number of
// acknowledged SADDs and XADDs. Redis is linearizable on one key, so a read
// sent after those replies arrived must return at least that much.
type hotAcks struct {
	count  [numHotSeries]atomic.Int64
	writes atomic.Int64 // acknowledged writes of every kind
}

// note records an acknowledged write.
func (a *hotAcks) note(op *hotOp) {
	k := hotKinds[op.kind]
	if k.read {
		return
	}
	a.writes.Add(1)
	switch {
	case k.series == noSeries:
	case k.positional:
		c := &a.count[k.series]
		for {
			cur := c.Load()
			if op.n <= cur || c.CompareAndSwap(cur, op.n) {
				break
			}
		}
	default:
		a.count[k.series].Add(1)
	}
}

// hotClient is one connection of the workload.
type hotClient struct {
	id       int
	pipeline int // commands per round trip: 1, or a pipeline of several
	rc       *redis.Client
	ops      []hotOp             // what it sent, in order, with the replies
	seen     [numHotSeries]int64 // the last count each series' reads returned
}

// exchange sends batch in one round trip (one command alone, or a
// pipeline), stores each reply in it and settles it. It checks each read
// against the counts acknowledged before it was sent and against the
// client's earlier reads of its series. broken is the error of the first
// command the server did not answer (the connection broke); wrong is a
// reply the workload cannot get.
func (c *hotClient) exchange(ctx context.Context, batch []hotOp, acks *hotAcks) (broken, wrong error) {
	for i := range batch {
		if k := hotKinds[batch[i].kind]; k.read {
			batch[i].floor = acks.count[k.series].Load()
		}
	}
	if len(batch) == 1 {
		cmd := c.rc.Do(ctx, batch[0].args()...)
		batch[0].reply, batch[0].err = cmd.Val(), cmd.Err()
	} else {
		pipe := c.rc.Pipeline()
		cmds := make([]*redis.Cmd, len(batch))
		for i := range batch {
			cmds[i] = pipe.Do(ctx, batch[i].args()...)
		}
		_, _ = pipe.Exec(ctx) // each command's reply is settled below
		for i, cmd := range cmds {
			batch[i].reply, batch[i].err = cmd.Val(), cmd.Err()
		}
	}
	for i := range batch {
		op := &batch[i]
		if err := op.settle(); err != nil {
			return nil, fmt.Errorf("client %d: %w", c.id, err)
		}
		if !op.acked {
			return fmt.Errorf("client %d: %s: %w", c.id, fmtArgs(op.args()), op.err), nil
		}
		acks.note(op)
		k := hotKinds[op.kind]
		if !k.read {
			continue
		}
		// A count that goes down: a read saw a queued write through the
		// overlay and a later one read the store before that write was
		// in it (its records left the overlay too soon, or the record
		// caches lagged), or the write was lost after it was read.
		if op.n < c.seen[k.series] {
			return nil, fmt.Errorf("client %d: %v: went down from %d, which this client read before", c.id, op, c.seen[k.series])
		}
		// A count below what was acknowledged: a reply left before its
		// write could be read by others (a stale read after the lock's
		// early release, or a reply sent before the write landed).
		if op.n < op.floor {
			return nil, fmt.Errorf("client %d: %v: below %d, which acknowledged writes had reached when it was sent", c.id, op, op.floor)
		}
		c.seen[k.series] = op.n
	}
	return nil, nil
}

// allHotReads returns one read of every series.
func allHotReads() []hotKind {
	var kinds []hotKind
	for k := hotGet; k < numHotKinds; k++ {
		kinds = append(kinds, k)
	}
	return kinds
}

// runScript sends c.ops, c.pipeline commands per round trip. The server
// must answer every one of them.
func (c *hotClient) runScript(ctx context.Context, acks *hotAcks) error {
	for start := 0; start < len(c.ops); start += c.pipeline {
		broken, wrong := c.exchange(ctx, c.ops[start:min(start+c.pipeline, len(c.ops))], acks)
		if wrong != nil {
			return wrong
		}
		if broken != nil {
			return broken
		}
	}
	return nil
}

// readUntil reads the series of kinds in turn, c.pipeline of them per
// round trip, until stop is closed or the connection breaks (when stop is
// nil, that is the end). exchange checks every read.
func (c *hotClient) readUntil(ctx context.Context, stop <-chan struct{}, acks *hotAcks, kinds []hotKind) error {
	for next := 0; ; {
		select {
		case <-stop:
			return nil
		default:
		}
		batch := make([]hotOp, c.pipeline)
		for i := range batch {
			batch[i].kind = kinds[next%len(kinds)]
			next++
		}
		broken, wrong := c.exchange(ctx, batch, acks)
		if wrong != nil {
			return wrong
		}
		if broken != nil {
			if stop == nil {
				return nil
			}
			return broken
		}
	}
}

// writeUntilBroken sends writes of hotCrashKinds, c.pipeline per round
// trip, until the connection breaks (the kill), and appends each to c.ops.
// Each pushed element names the round, the client and its place.
func (c *hotClient) writeUntilBroken(ctx context.Context, acks *hotAcks, rng *rand.Rand, round int) error {
	for {
		start := len(c.ops)
		for range c.pipeline {
			op := hotOp{kind: hotCrashKinds[rng.IntN(len(hotCrashKinds))]}
			if op.kind == hotLPush {
				op.value = fmt.Sprintf("r%d-c%d-%d", round, c.id, len(c.ops))
			}
			c.ops = append(c.ops, op)
		}
		broken, wrong := c.exchange(ctx, c.ops[start:], acks)
		if wrong != nil || broken != nil {
			return wrong
		}
	}
}
