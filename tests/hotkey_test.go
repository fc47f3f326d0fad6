package tests

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Issue 22 §2 lets commands on one hot key proceed without waiting for the
// previous one's write to land (docs/WRITES.md): a group that sees another
// command waiting for its key's lock queues its batch and releases the
// lock early; the next command reads the queued records through the
// overlay; every reply leaves only once the write it carries, or read, has
// landed. TestHotKeyModel checks the replies and the final state of a
// one-key workload, TestHotKeyCrash its durability across SIGKILLs. The
// workload is in hotkey_load_test.go.

const (
	// hotWriters send hotOpsEach commands each, on one key per type; half
	// of them one command per round trip, half in pipelines of 8 to 16.
	hotWriters = 40
	hotOpsEach = 600
	// One in hotReadShare of a writer's commands reads a series; the
	// rest write.
	hotReadShare = 5
	// hotReaders only read, every series in turn, until the writers are
	// done: half one command per round trip, half all six in a pipeline.
	hotReaders = 6
	// hotRunTimeout bounds the run; a run takes a few seconds, and only a
	// hang (a lock never released, a reply never sent) comes near it.
	hotRunTimeout = 60 * time.Second
)

// hotPipelineOf returns the round-trip size of client i: 1 for even i, 8
// to 16 for odd.
func hotPipelineOf(i int, rng *rand.Rand) int {
	if i%2 == 0 {
		return 1
	}
	return 8 + rng.IntN(9)
}

// hotScript returns the commands of writer id: one in hotReadShare reads
// a series, the others write, every kind as often; each element written is
// unique to the writer and the command.
func hotScript(rng *rand.Rand, id, n int) []hotOp {
	ops := make([]hotOp, n)
	for i := range ops {
		kind := hotKind(rng.IntN(hotWriteKinds))
		if rng.IntN(hotReadShare) == 0 {
			kind = hotGet + hotKind(rng.IntN(hotReadKinds))
		}
		ops[i] = hotOp{kind: kind, value: fmt.Sprintf("c%d-%d", id, i), score: int64(i)}
	}
	return ops
}

// TestHotKeyModel runs hotWriters clients at once against each backend,
// all on one key per type (INCR; HINCRBY and HSET of new fields; LPUSH and
// RPUSH; SADD; ZINCRBY on one member and ZADD of new members; XADD *;
// BITFIELD INCRBY of one field; GEOADD of new members), with
// reads of every series mixed in and hotReaders more clients that only
// read. As replies arrive it checks that no read went down or below what
// acknowledged writes had reached when it was sent; at the end, that the
// replies are what some serial order of the commands gives (each series'
// positional replies are the permutation 1..N, each client's in its own
// order, each read between its own client's writes) and that the final
// state is the one those replies imply. On Shale, INFO must show that
// groups released their locks early, or the run did not test the overlay.
func TestHotKeyModel(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		seed := uint64(time.Now().UnixNano())
		t.Logf("seed %d", seed)
		rng := rand.New(rand.NewPCG(seed, 0x407))
		ctx, cancel := context.WithTimeout(context.Background(), hotRunTimeout)
		defer cancel()
		acks := &hotAcks{}
		writers := make([]*hotClient, hotWriters)
		for i := range writers {
			writers[i] = &hotClient{id: i, pipeline: hotPipelineOf(i, rng), rc: newClient(b.Addr, ""),
				ops: hotScript(rng, i, hotOpsEach)}
		}
		readers := make([]*hotClient, hotReaders)
		for i := range readers {
			readers[i] = &hotClient{id: hotWriters + i, pipeline: 1, rc: newClient(b.Addr, "")}
			if i%2 == 1 {
				readers[i].pipeline = hotReadKinds
			}
		}
		defer func() {
			for _, cl := range append(slices.Clone(writers), readers...) {
				cl.rc.Close()
			}
		}()

		start := time.Now()
		errs := make(chan error, hotWriters+hotReaders)
		stop := make(chan struct{})
		var writing, reading sync.WaitGroup
		for _, w := range writers {
			writing.Go(func() { errs <- w.runScript(ctx, acks) })
		}
		for _, r := range readers {
			reading.Go(func() { errs <- r.readUntil(ctx, stop, acks, allHotReads()) })
		}
		writing.Wait()
		elapsed := time.Since(start)
		close(stop)
		reading.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Error(err)
			}
		}
		if t.Failed() {
			return
		}
		t.Logf("%d commands from %d writers, with %d readers, in %v", hotWriters*hotOpsEach, hotWriters, hotReaders, elapsed.Round(time.Millisecond))
		for _, err := range checkHotReplies(writers) {
			t.Error(err)
		}
		checkHotState(t, ctx, c, writers)
		if b.isShale() {
			// Without contention no lock is released early and nothing
			// is read through the overlay: the run would test nothing
			// new.
			early := infoInt(t, c, "stats", "early_lock_releases")
			t.Logf("early_lock_releases: %d", early)
			if early == 0 {
				t.Errorf("INFO stats: early_lock_releases:0 after %d commands on one key per type: no lock was released early", hotWriters*hotOpsEach)
			}
		}
	})
}

// checkHotReplies checks that the writers' replies are those of one serial
// order of their commands.
func checkHotReplies(writers []*hotClient) []error {
	var errs []error
	// Each series' positional replies (INCR, HINCRBY, LPUSH and RPUSH
	// together, ZINCRBY) are 1..N once each. A duplicate: two commands
	// read the same count, a lost update (the second did not see the
	// first's queued write through the overlay). A gap: a reply for a
	// write that was not applied, or one applied twice.
	var positions [numHotSeries][]int64
	for _, w := range writers {
		for _, op := range w.ops {
			if k := hotKinds[op.kind]; k.positional {
				positions[k.series] = append(positions[k.series], op.n)
			}
		}
	}
	for s, ps := range positions {
		slices.Sort(ps)
		for i, p := range ps {
			if p != int64(i+1) {
				errs = append(errs, fmt.Errorf("%s: the %d replies sorted are not 1..%d: the %dth is %d", hotSeriesName[s], len(ps), len(ps), i+1, p))
				break
			}
		}
	}
	for _, w := range writers {
		if err := checkHotClientOrder(w); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// hotSeriesName names each series after its commands, for messages.
var hotSeriesName = [numHotSeries]string{
	seriesCtr:       "INCR " + hotCtrKey,
	seriesHashField: "HINCRBY " + hotHashKey + " " + hotField,
	seriesList:      "LPUSH and RPUSH " + hotListKey,
	seriesSet:       "SADD " + hotSetKey,
	seriesZMember:   "ZINCRBY " + hotZSetKey + " 1 " + hotMember,
	seriesStream:    "XADD " + hotStreamKey,
	seriesBits:      "BITFIELD " + hotBitsKey + " INCRBY u32 0 1",
}

// checkHotClientOrder checks that the server ran a client's commands in
// the order the client sent them: its positional replies and its XADD IDs
// increase, and each of its reads returns at least what its own earlier
// writes of the series made and less than what its next positional write
// replied. A read below its own writes did not see a write of its own
// connection (an earlier command of its pipeline group, read through the
// overlay); one at or above the next did see a later write.
func checkHotClientOrder(c *hotClient) error {
	var next [numHotSeries]int64 // the next positional reply, walking back
	upper := make([]int64, len(c.ops))
	for i := len(c.ops) - 1; i >= 0; i-- {
		op := &c.ops[i]
		switch k := hotKinds[op.kind]; {
		case k.read:
			upper[i] = next[k.series]
		case k.positional:
			next[k.series] = op.n
		}
	}
	var last, own [numHotSeries]int64 // the last positional reply; own writes so far
	var lastID streamID
	for i := range c.ops {
		op := &c.ops[i]
		k := hotKinds[op.kind]
		switch {
		case k.read:
			if lower := max(last[k.series], own[k.series]); op.n < lower {
				return fmt.Errorf("client %d, command %d: %v: below %d, which this client's own writes had made", c.id, i, op, lower)
			}
			if upper[i] > 0 && op.n >= upper[i] {
				return fmt.Errorf("client %d, command %d: %v: its next write of the series replied %d, so the read saw a later write", c.id, i, op, upper[i])
			}
		case k.positional:
			if op.n <= last[k.series] {
				return fmt.Errorf("client %d, command %d: %v: not above %d, the reply to its earlier command of the series", c.id, i, op, last[k.series])
			}
			last[k.series] = op.n
		case op.kind == hotXAdd:
			if !lastID.less(op.id) {
				return fmt.Errorf("client %d, command %d: %v: not above its earlier ID %v", c.id, i, op, lastID)
			}
			lastID = op.id
		}
		if !k.read && k.series != noSeries {
			own[k.series]++
		}
	}
	return nil
}

// checkHotState compares every key with the state the writers' replies
// imply. A difference is a write acknowledged but lost, applied twice, or
// applied with other content than its reply said.
func checkHotState(t *testing.T, ctx context.Context, c *redis.Client, writers []*hotClient) {
	t.Helper()
	var count [numHotKinds]int64
	hash := map[string]string{}
	set := map[string]bool{}
	zset := map[string]float64{}
	geo := map[string]bool{}
	stream := map[string]string{} // ID -> value
	type push struct {
		n     int64
		value string
		left  bool
	}
	var pushes []push
	for _, w := range writers {
		for _, op := range w.ops {
			count[op.kind]++
			switch op.kind {
			case hotHSet:
				hash[op.value] = op.value
			case hotSAdd:
				set[op.value] = true
			case hotZAdd:
				zset[op.value] = float64(op.score)
			case hotGeoAdd:
				geo[op.value] = true
			case hotXAdd:
				if _, dup := stream[op.id.String()]; dup {
					t.Errorf("two XADDs got ID %v", op.id)
				}
				stream[op.id.String()] = op.value
			case hotLPush, hotRPush:
				pushes = append(pushes, push{op.n, op.value, op.kind == hotLPush})
			}
		}
	}
	if count[hotHIncrBy] > 0 {
		hash[hotField] = strconv.FormatInt(count[hotHIncrBy], 10)
	}
	if count[hotZIncrBy] > 0 {
		zset[hotMember] = float64(count[hotZIncrBy])
	}
	// The pushes in the order of their replies (1..N, checked before)
	// build the list: each LPUSH puts its element first, each RPUSH last.
	slices.SortFunc(pushes, func(a, b push) int { return int(a.n - b.n) })
	var lefts, rights []string
	for _, p := range pushes {
		if p.left {
			lefts = append(lefts, p.value)
		} else {
			rights = append(rights, p.value)
		}
	}
	slices.Reverse(lefts)
	list := append(lefts, rights...)

	if got, err := c.Get(ctx, hotCtrKey).Int64(); err != nil || got != count[hotIncr] {
		t.Errorf("GET %s: got %d (%v), want %d, the number of INCRs", hotCtrKey, got, err, count[hotIncr])
	}
	if got, err := c.HLen(ctx, hotHashKey).Result(); err != nil || got != int64(len(hash)) {
		t.Errorf("HLEN %s: got %d (%v), want %d, the fields written plus %q", hotHashKey, got, err, len(hash), hotField)
	}
	gotHash, err := c.HGetAll(ctx, hotHashKey).Result()
	checkHotCollection(t, "HGETALL "+hotHashKey, err, gotHash, hash)
	gotList, err := c.LRange(ctx, hotListKey, 0, -1).Result()
	if err != nil || !slices.Equal(gotList, list) {
		t.Errorf("LRANGE %s 0 -1: %v; %s", hotListKey, err, firstListDifference(gotList, list))
	}
	if got, err := c.SCard(ctx, hotSetKey).Result(); err != nil || got != count[hotSAdd] {
		t.Errorf("SCARD %s: got %d (%v), want %d, the number of SADDs", hotSetKey, got, err, count[hotSAdd])
	}
	gotSet, err := c.SMembersMap(ctx, hotSetKey).Result()
	checkHotCollection(t, "SMEMBERS "+hotSetKey, err, mapValues(gotSet, func(struct{}) bool { return true }), set)
	gotZ, err := c.ZRangeWithScores(ctx, hotZSetKey, 0, -1).Result()
	zscores := map[string]float64{}
	for _, z := range gotZ {
		zscores[fmt.Sprint(z.Member)] = z.Score
	}
	checkHotCollection(t, "ZRANGE "+hotZSetKey+" 0 -1 WITHSCORES", err, zscores, zset)
	if got, err := c.XLen(ctx, hotStreamKey).Result(); err != nil || got != count[hotXAdd] {
		t.Errorf("XLEN %s: got %d (%v), want %d, the number of XADDs", hotStreamKey, got, err, count[hotXAdd])
	}
	if got, err := hotCount(c.Do(ctx, "BITFIELD_RO", hotBitsKey, "GET", "u32", 0).Result()); err != nil || got != count[hotBitIncr] {
		t.Errorf("BITFIELD_RO %s GET u32 0: got %d (%v), want %d, the number of BITFIELD INCRBYs", hotBitsKey, got, err, count[hotBitIncr])
	}
	gotGeo, err := c.ZRange(ctx, hotGeoKey, 0, -1).Result()
	geoGot := map[string]bool{}
	for _, m := range gotGeo {
		geoGot[m] = true
	}
	checkHotCollection(t, "ZRANGE "+hotGeoKey+" 0 -1", err, geoGot, geo)
	gotX, err := c.XRange(ctx, hotStreamKey, "-", "+").Result()
	entries := map[string]string{}
	for _, m := range gotX {
		entries[m.ID] = fmt.Sprint(m.Values)
	}
	checkHotCollection(t, "XRANGE "+hotStreamKey+" - +", err, entries,
		mapValues(stream, func(v string) string { return fmt.Sprint(map[string]any{"v": v}) }))
}

// checkHotCollection fails t when got differs from want, naming the first
// differing element.
func checkHotCollection[V comparable](t *testing.T, what string, err error, got, want map[string]V) {
	t.Helper()
	if err != nil {
		t.Errorf("%s: %v", what, err)
		return
	}
	if maps.Equal(got, want) {
		return
	}
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if g, ok := got[k]; !ok || g != want[k] {
			t.Errorf("%s: %d elements, want %d; %q: got %v (present: %v), want %v", what, len(got), len(want), k, g, ok, want[k])
			return
		}
	}
	for _, k := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: %d elements, want %d; %q was never written", what, len(got), len(want), k)
			return
		}
	}
}

// mapValues returns m with f applied to each value.
func mapValues[V, W any](m map[string]V, f func(V) W) map[string]W {
	out := make(map[string]W, len(m))
	for k, v := range m {
		out[k] = f(v)
	}
	return out
}

// firstListDifference describes where got first differs from want.
func firstListDifference(got, want []string) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("%d elements, want %d; index %d: got %q, want %q", len(got), len(want), i, got[i], want[i])
		}
	}
	return fmt.Sprintf("%d elements, want %d (one is a prefix of the other)", len(got), len(want))
}

const (
	// hotCrashRounds SIGKILLs, each once hotCrashMinAcks writes of the
	// round were acknowledged and up to hotCrashSpread later.
	hotCrashRounds  = 3
	hotCrashWriters = 16
	hotCrashReaders = 4
	hotCrashMinAcks = 300
	hotCrashSpread  = 150 * time.Millisecond
	// hotCrashBudget bounds the whole test.
	hotCrashBudget = 55 * time.Second
)

// hotCrashKinds are the writes of TestHotKeyCrash, and hotCrashReads its
// reads.
var (
	hotCrashKinds = []hotKind{hotIncr, hotLPush, hotHIncrBy}
	hotCrashReads = []hotKind{hotGet, hotLLen, hotHGet}
)

// TestHotKeyCrash SIGKILLs Shale hotCrashRounds times while
// hotCrashWriters clients INCR one counter, LPUSH onto one list and
// HINCRBY one field, and hotCrashReaders clients read the three. After
// each restart on the same data directory: every acknowledged write is
// there (the counters are at least the highest INCR and HINCRBY reply;
// each acknowledged LPUSH's element sits where its reply put it), what
// landed of each client's pushes is the first ones it sent, in order, and
// nothing more than was sent; and every count a reader saw before the kill
// is still there: no client saw a write that was not yet durable.
func TestHotKeyCrash(t *testing.T) {
	t.Parallel()
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0xc4a5))
	deadline := time.Now().Add(hotCrashBudget)
	// The load's commands end with the test, even when it fails before
	// the kill.
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	p := startShale(t, shaleOpts{})
	acks := &hotAcks{}
	writers := make([]*hotClient, hotCrashWriters)
	for i := range writers {
		writers[i] = &hotClient{id: i, pipeline: hotPipelineOf(i, rng)}
	}
	readers := make([]*hotClient, hotCrashReaders)
	for i := range readers {
		readers[i] = &hotClient{id: hotCrashWriters + i, pipeline: 1}
		if i%2 == 1 {
			readers[i].pipeline = len(hotCrashReads)
		}
	}
	var last hotDurable // what the server held after the last restart
	var early int64
	for round := 1; round <= hotCrashRounds; round++ {
		wrong := make(chan error, hotCrashWriters+hotCrashReaders)
		var load sync.WaitGroup
		ackedBefore := acks.writes.Load()
		for _, w := range writers {
			w.rc, w.ops = newClient(p.Addr, ""), w.ops[:0]
			wrng := rand.New(rand.NewPCG(rng.Uint64(), uint64(w.id)))
			load.Go(func() { wrong <- w.writeUntilBroken(ctx, acks, wrng, round) })
		}
		for _, r := range readers {
			r.rc = newClient(p.Addr, "")
			load.Go(func() { wrong <- r.readUntil(ctx, nil, acks, hotCrashReads) })
		}
		pollUntil(t, time.Until(deadline), func() (bool, string) {
			n := acks.writes.Load() - ackedBefore
			return n >= hotCrashMinAcks, fmt.Sprintf("round %d: %d writes acknowledged, want %d before the kill", round, n, hotCrashMinAcks)
		})
		time.Sleep(time.Duration(rng.Int64N(int64(hotCrashSpread))))
		early += infoInt(t, p.Client, "stats", "early_lock_releases")
		p.Kill()
		load.Wait()
		close(wrong)
		for err := range wrong {
			if err != nil {
				t.Errorf("round %d: %v", round, err)
			}
		}
		for _, cl := range append(slices.Clone(writers), readers...) {
			cl.rc.Close()
		}
		if t.Failed() {
			return
		}
		// A fresh port: another test may have taken the old one.
		p = startShale(t, shaleOpts{Dir: p.Dir})
		now, err := readHotDurable(ctxT(t), p.Client)
		if err != nil {
			t.Fatalf("round %d, after the restart: %v", round, err)
		}
		sent, acked := 0, 0
		for _, w := range writers {
			sent += len(w.ops)
			for _, op := range w.ops {
				if op.acked {
					acked++
				}
			}
		}
		t.Logf("round %d: %d writes sent, %d acknowledged; after the restart: counter %d, field %d, list of %d",
			round, sent, acked, now.ctr, now.field, len(now.list))
		for _, err := range checkHotDurable(last, now, acks, writers, readers) {
			t.Errorf("round %d, after the restart: %v", round, err)
		}
		if t.Failed() {
			return
		}
		last = now
	}
	// Without contention no lock is released early and no reader reads
	// through the overlay: the rounds would test nothing new.
	t.Logf("early_lock_releases before the kills: %d", early)
	if early == 0 {
		t.Errorf("INFO stats: early_lock_releases:0 before every kill: no lock was released early")
	}
}

// hotDurable is what the server holds of TestHotKeyCrash's keys.
type hotDurable struct {
	ctr, field int64
	list       []string
}

func readHotDurable(ctx context.Context, c *redis.Client) (hotDurable, error) {
	var d hotDurable
	ctr, err := c.Do(ctx, "GET", hotCtrKey).Result()
	if d.ctr, err = hotCount(ctr, err); err != nil {
		return d, fmt.Errorf("GET %s: %w", hotCtrKey, err)
	}
	field, err := c.Do(ctx, "HGET", hotHashKey, hotField).Result()
	if d.field, err = hotCount(field, err); err != nil {
		return d, fmt.Errorf("HGET %s %s: %w", hotHashKey, hotField, err)
	}
	if d.list, err = c.LRange(ctx, hotListKey, 0, -1).Result(); err != nil {
		return d, fmt.Errorf("LRANGE %s 0 -1: %w", hotListKey, err)
	}
	return d, nil
}

// checkHotDurable compares now, read after a restart, with last, read
// after the one before, and with what the round's writers sent and were
// acknowledged and its readers saw.
func checkHotDurable(last, now hotDurable, acks *hotAcks, writers, readers []*hotClient) []error {
	var errs []error
	var sent [numHotSeries]int64
	for _, w := range writers {
		for _, op := range w.ops {
			sent[hotKinds[op.kind].series]++
		}
	}
	counts := [numHotSeries]int64{seriesCtr: now.ctr, seriesHashField: now.field, seriesList: int64(len(now.list))}
	lasts := [numHotSeries]int64{seriesCtr: last.ctr, seriesHashField: last.field, seriesList: int64(len(last.list))}
	for _, s := range []hotSeries{seriesCtr, seriesHashField, seriesList} {
		// An acknowledged write lost in the crash.
		if acked := acks.count[s].Load(); counts[s] < acked {
			errs = append(errs, fmt.Errorf("%s: %d after the restart, but a reply said %d", hotSeriesName[s], counts[s], acked))
		}
		// A write applied twice (replayed), or one nobody sent.
		if counts[s] > lasts[s]+sent[s] {
			errs = append(errs, fmt.Errorf("%s: %d after the restart, more than the %d before the round plus the %d sent", hotSeriesName[s], counts[s], lasts[s], sent[s]))
		}
		// A reader saw a write that the crash then lost: its reply left
		// before the write was durable.
		for _, r := range readers {
			if r.seen[s] > counts[s] {
				errs = append(errs, fmt.Errorf("%s: %d after the restart, but client %d read %d before the kill", hotSeriesName[s], counts[s], r.id, r.seen[s]))
			}
		}
		// A reply at or below the count the round started from: the
		// restarted server did not count on from what it recovered.
		for _, w := range writers {
			for _, op := range w.ops {
				if op.acked && hotKinds[op.kind].series == s && op.n <= lasts[s] {
					errs = append(errs, fmt.Errorf("client %d: %v: not above %d, the count after the last restart", w.id, &op, lasts[s]))
					break
				}
			}
		}
	}
	return append(errs, checkHotList(last.list, now.list, writers)...)
}

// checkHotList checks the list after a restart: LPUSH only prepends, so
// the list before the round is its tail; its new head, read from the
// right, is the round's landed pushes in the order they ran. Each client's
// landed pushes are the first ones it sent, in order, at least all those
// acknowledged; each acknowledged push's element sits where its reply (the
// length after it) put it.
func checkHotList(last, now []string, writers []*hotClient) []error {
	if len(now) < len(last) || !slices.Equal(now[len(now)-len(last):], last) {
		return []error{fmt.Errorf("LRANGE %s: the %d elements of earlier rounds are no longer its tail (%d elements now)", hotListKey, len(last), len(now))}
	}
	var errs []error
	type place struct{ client, index int }
	sentAt := map[string]place{} // element -> its writer and its place among the writer's pushes
	pushed := make([][]string, len(writers))
	for i, w := range writers {
		for _, op := range w.ops {
			if op.kind == hotLPush {
				sentAt[op.value] = place{i, len(pushed[i])}
				pushed[i] = append(pushed[i], op.value)
			}
		}
	}
	landed := make([]int, len(writers)) // pushes of each writer found so far
	for i := len(now) - len(last) - 1; i >= 0; i-- {
		at, ok := sentAt[now[i]]
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("LRANGE %s: index %d holds %q, which no LPUSH of the round sent", hotListKey, i, now[i]))
		case at.index != landed[at.client]:
			// A push landed twice, or before an earlier one of its
			// client: the crash kept a write but lost one queued
			// before it.
			errs = append(errs, fmt.Errorf("LRANGE %s: index %d holds %q, push %d of client %d, but %d of its pushes landed before it",
				hotListKey, i, now[i], at.index, writers[at.client].id, landed[at.client]))
		default:
			landed[at.client]++
			continue
		}
		return errs
	}
	for _, w := range writers {
		for j, op := range w.ops {
			if op.kind != hotLPush || !op.acked {
				continue
			}
			if at := int64(len(now)) - op.n; at < 0 || now[at] != op.value {
				errs = append(errs, fmt.Errorf("client %d, command %d: %v: the list of %d holds something else at index %d",
					w.id, j, &op, len(now), at))
				break
			}
		}
	}
	return errs
}

// TestHotKeyChecks feeds the checks of the two tests above replies and
// states that a bug would produce, so that a lax check cannot let one
// through; and correct ones, so that a strict one cannot fail a good run.
func TestHotKeyChecks(t *testing.T) {
	op := func(kind hotKind, n int64) hotOp { return hotOp{kind: kind, n: n, acked: true} }
	push := func(value string, n int64, acked bool) hotOp {
		return hotOp{kind: hotLPush, value: value, n: n, acked: acked}
	}
	xadd := func(ms uint64) hotOp { return hotOp{kind: hotXAdd, id: streamID{ms, 0}, acked: true} }
	client := func(id int, ops ...hotOp) *hotClient { return &hotClient{id: id, ops: ops} }

	replies := []struct {
		name    string
		writers []*hotClient
		want    string // a part of the first error; "" for none
	}{
		{"interleaved", []*hotClient{
			client(0, op(hotIncr, 1), op(hotGet, 2), op(hotIncr, 3), xadd(1), xadd(2)),
			client(1, op(hotGet, 0), op(hotIncr, 2), op(hotGet, 3), xadd(3)),
		}, ""},
		{"lost update", []*hotClient{client(0, op(hotIncr, 1)), client(1, op(hotIncr, 1))}, "the 2th is 1"},
		{"write not applied", []*hotClient{client(0, op(hotIncr, 1), op(hotIncr, 3))}, "the 2th is 3"},
		{"out of order", []*hotClient{client(0, op(hotIncr, 2), op(hotIncr, 1))}, "not above 2"},
		{"own write not read", []*hotClient{client(0, op(hotLPush, 1), op(hotLLen, 0))}, "below 1"},
		{"own set write not read", []*hotClient{client(0, op(hotSAdd, 0), op(hotSCard, 0))}, "below 1"},
		{"later write read", []*hotClient{client(0, op(hotZScore, 1), op(hotZIncrBy, 1))}, "saw a later write"},
		{"stream IDs out of order", []*hotClient{client(0, xadd(2), xadd(2))}, "not above its earlier ID"},
	}
	for _, tc := range replies {
		checkFirstError(t, "checkHotReplies: "+tc.name, checkHotReplies(tc.writers), tc.want)
	}

	// The list after a restart; the writers pushed a0 and a1 (acknowledged,
	// lengths 2 and 3) and a2 (in flight), b0 (in flight).
	writers := []*hotClient{
		client(0, push("a0", 2, true), push("a1", 3, true), push("a2", 0, false)),
		client(1, push("b0", 0, false)),
	}
	lists := []struct {
		name string
		now  []string
		want string
	}{
		{"acknowledged landed", []string{"a1", "a0", "old"}, ""},
		{"in flight landed too", []string{"b0", "a2", "a1", "a0", "old"}, ""},
		{"acknowledged lost", []string{"a0", "old"}, "holds something else"},
		{"landed before an earlier one", []string{"a2", "a0", "old"}, "1 of its pushes landed before it"},
		{"landed twice", []string{"a1", "a0", "a0", "old"}, "but 1 of its pushes landed before it"},
		{"never sent", []string{"zz", "a1", "a0", "old"}, "which no LPUSH of the round sent"},
		{"earlier round lost", []string{"a1", "a0"}, "no longer its tail"},
	}
	for _, tc := range lists {
		checkFirstError(t, "checkHotList: "+tc.name, checkHotList([]string{"old"}, tc.now, writers), tc.want)
	}

	// The counter after a restart: 10 before the round, 3 INCRs sent, the
	// highest reply 12, a reader saw 12.
	durables := []struct {
		name string
		ctr  int64
		seen int64
		want string
	}{
		{"acknowledged landed", 12, 12, ""},
		{"in flight landed too", 13, 12, ""},
		{"acknowledged lost", 11, 11, "but a reply said 12"},
		{"read before durable", 12, 13, "client 7 read 13 before the kill"},
		{"applied twice", 14, 12, "more than the 10 before the round plus the 3 sent"},
	}
	for _, tc := range durables {
		acks := &hotAcks{}
		incrs := []hotOp{op(hotIncr, 11), op(hotIncr, 12), {kind: hotIncr}}
		for i := range incrs {
			if incrs[i].acked {
				acks.note(&incrs[i])
			}
		}
		reader := &hotClient{id: 7}
		reader.seen[seriesCtr] = tc.seen
		last := hotDurable{ctr: 10}
		now := hotDurable{ctr: tc.ctr}
		checkFirstError(t, "checkHotDurable: "+tc.name, checkHotDurable(last, now, acks, []*hotClient{client(0, incrs...)}, []*hotClient{reader}), tc.want)
	}
}

// checkFirstError fails t unless errs is empty when want is, or its first
// error contains want.
func checkFirstError(t *testing.T, name string, errs []error, want string) {
	t.Helper()
	switch {
	case want == "" && len(errs) > 0:
		t.Errorf("%s: unexpected error: %v", name, errs[0])
	case want != "" && len(errs) == 0:
		t.Errorf("%s: no error, want one with %q", name, want)
	case want != "" && !strings.Contains(errs[0].Error(), want):
		t.Errorf("%s: first error %q, want one with %q", name, errs[0], want)
	}
}
