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

// Consumer groups (subkey/stream_group.go has the layout): a group, each
// of its consumers and each pending entry are records under the stream's
// uid, the group's record keeping the counts (pending entries, consumers)
// that XINFO and XPENDING's summary report, so that no command reads a
// whole pending list but XPENDING's IDLE filter, as in Redis. A group's
// other records carry its id (gid), so XGROUP DESTROY is one record and
// three range deletions, however big the group.

// The consumer groups' errors; the server words them per command, as Redis
// does.
var (
	// ErrNoGroup: the stream has no such consumer group.
	ErrNoGroup = errors.New("no such consumer group")
	// ErrBusyGroup: XGROUP CREATE of a group that exists.
	ErrBusyGroup = errors.New("consumer group name already exists")
)

// unknownEntriesRead is Redis's SCG_INVALID_ENTRIES_READ: a group whose
// entries-read counter is not known.
const unknownEntriesRead = -1

// streamGroup is a group as one command sees it.
type streamGroup struct {
	key  []byte // its record's key
	name []byte
	v    subkey.StreamGroupValue
}

func (g *streamGroup) lastID() StreamID { return StreamID{Ms: g.v.LastMs, Seq: g.v.LastSeq} }

func (g *streamGroup) setLastID(id StreamID) { g.v.LastMs, g.v.LastSeq = id.Ms, id.Seq }

func (g *streamGroup) save(b *store.Batch) { b.Put(store.CFSubkey, g.key, g.v.Append(nil)) }

// streamConsumer is a consumer as one command sees it.
type streamConsumer struct {
	key  []byte
	name []byte
	v    subkey.StreamConsumerValue
}

func (c *streamConsumer) save(b *store.Batch) { b.Put(store.CFSubkey, c.key, c.v.Append(nil)) }

// loadGroupStream loads key expecting a live stream: ErrNoSuchKey when
// there is none.
func (d *DB) loadGroupStream(ks *keyState, key []byte) error {
	if err := d.loadStream(ks, key); err != nil {
		return err
	}
	if !ks.live {
		return ErrNoSuchKey
	}
	return nil
}

// loadGroup reads the group name of the live stream ks: ErrNoGroup when
// it has none.
func (d *DB) loadGroup(ks *keyState, name []byte) (*streamGroup, error) {
	g := &streamGroup{key: subkey.AppendStreamGroupKey(nil, ks.m.UID, name), name: name}
	raw, ok, err := d.rd.Get(store.CFSubkey, g.key)
	switch {
	case err != nil:
		return nil, err
	case !ok:
		return nil, ErrNoGroup
	}
	if g.v, err = subkey.DecodeStreamGroupValue(raw); err != nil {
		return nil, fmt.Errorf("stream %q group %q: %w", ks.key, name, err)
	}
	return g, nil
}

// openGroup loads the stream key and its group name, locked by the caller.
func (d *DB) openGroup(ks *keyState, key, group []byte) (*streamGroup, error) {
	if err := d.loadGroupStream(ks, key); err != nil {
		return nil, err
	}
	return d.loadGroup(ks, group)
}

// loadConsumer reads the consumer name of g; ok is false when it has none.
func (d *DB) loadConsumer(ks *keyState, g *streamGroup, name []byte) (c *streamConsumer, ok bool, err error) {
	c = &streamConsumer{key: subkey.AppendStreamConsumerKey(nil, ks.m.UID, g.v.GID, name), name: name}
	raw, ok, err := d.rd.Get(store.CFSubkey, c.key)
	if err != nil || !ok {
		return c, false, err
	}
	if c.v, err = subkey.DecodeStreamConsumerValue(raw); err != nil {
		return c, false, fmt.Errorf("stream %q consumer %q: %w", ks.key, name, err)
	}
	return c, true, nil
}

// consumerFor loads the consumer name of g, seen now, or makes it (and
// counts it in g): Redis's streamLookupConsumer, then streamCreateConsumer.
// The caller saves both.
func (d *DB) consumerFor(ks *keyState, g *streamGroup, name []byte, now int64) (*streamConsumer, bool, error) {
	c, ok, err := d.loadConsumer(ks, g, name)
	if err != nil {
		return nil, false, err
	}
	c.v.SeenMs = now
	if ok {
		return c, false, nil
	}
	if c.v.CID, err = d.st.NewUID(); err != nil {
		return nil, false, err
	}
	g.v.Consumers++
	d.fact(KeyConsumerCreated, ks.key)
	return c, true, nil
}

// StreamGroupExists checks that key is a stream with the group: nil, or
// ErrNoSuchKey, ErrNoGroup or ErrWrongType.
func (d *DB) StreamGroupExists(key, group []byte) error {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	_, err := d.openGroup(ks, key, group)
	return err
}

// XGroupCreate is XGROUP CREATE: it makes the group at the ID that id
// returns given the stream's last ID (id runs once the key is found, as
// Redis reads the ID then), with entries-read entriesRead (-1: unknown).
// With mkstream a missing key becomes an empty stream; otherwise it is
// ErrNoSuchKey. ErrBusyGroup when the group exists.
func (d *DB) XGroupCreate(key, group []byte, mkstream bool, entriesRead int64, id func(last StreamID) (StreamID, error)) (created bool, err error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	if err := d.loadStream(ks, key); err != nil {
		return false, err
	}
	if !ks.live && !mkstream {
		return false, ErrNoSuchKey
	}
	var last StreamID
	if ks.live {
		last = ks.m.Stream.LastID
	}
	start, err := id(last)
	if err != nil {
		return false, err
	}
	if ks.live {
		if _, err := d.loadGroup(ks, group); err == nil {
			return false, ErrBusyGroup
		} else if !errors.Is(err, ErrNoGroup) {
			return false, err
		}
	}
	err = d.write(func(b *store.Batch) error {
		if !ks.live {
			if err := ks.create(b, metadata.TypeStream); err != nil {
				return err
			}
		}
		gid, err := d.st.NewUID()
		if err != nil {
			return err
		}
		g := &streamGroup{key: subkey.AppendStreamGroupKey(nil, ks.m.UID, group), name: group}
		g.v = subkey.StreamGroupValue{GID: gid, LastMs: start.Ms, LastSeq: start.Seq, EntriesRead: entriesRead}
		g.save(b)
		ks.m.Stream.Groups++
		ks.save(b)
		return nil
	})
	d.checkSize(key)
	return err == nil, err
}

// XGroupSetID is XGROUP SETID: the group's last delivered ID becomes what
// id returns given the stream's last ID, and its entries-read
// entriesRead.
func (d *DB) XGroupSetID(key, group []byte, entriesRead int64, id func(last StreamID) (StreamID, error)) error {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	g, err := d.openGroup(ks, key, group)
	if err != nil {
		return err
	}
	start, err := id(ks.m.Stream.LastID)
	if err != nil {
		return err
	}
	g.setLastID(start)
	g.v.EntriesRead = entriesRead
	return d.write(func(b *store.Batch) error {
		g.save(b)
		return nil
	})
}

// XGroupDestroy is XGROUP DESTROY: whether the group was there. Its
// consumers and pending entries go with three range deletions.
func (d *DB) XGroupDestroy(key, group []byte) (bool, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	g, err := d.openGroup(ks, key, group)
	if errors.Is(err, ErrNoGroup) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	err = d.write(func(b *store.Batch) error {
		b.Delete(store.CFSubkey, g.key)
		for _, kind := range []subkey.StreamKind{subkey.StreamConsumer, subkey.StreamPending, subkey.StreamConsumerPending} {
			b.DeleteRange(store.CFSubkey, subkey.AppendStreamGroupPrefix(nil, ks.m.UID, kind, g.v.GID),
				subkey.AppendStreamGroupPrefix(nil, ks.m.UID, kind, g.v.GID+1))
		}
		ks.m.Stream.Groups--
		ks.save(b)
		return nil
	})
	d.checkSize(key)
	return err == nil, err
}

// XGroupCreateConsumer is XGROUP CREATECONSUMER: whether the consumer was
// made (false: it was there).
func (d *DB) XGroupCreateConsumer(key, group, consumer []byte) (bool, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	g, err := d.openGroup(ks, key, group)
	if err != nil {
		return false, err
	}
	c, created, err := d.consumerFor(ks, g, consumer, d.e.now())
	if err != nil || !created {
		return false, err
	}
	return true, d.write(func(b *store.Batch) error {
		c.save(b)
		g.save(b)
		return nil
	})
}

// XGroupDelConsumer is XGROUP DELCONSUMER: the number of pending entries
// the consumer held, which leave the group's pending list with it; ok is
// false when there was no such consumer.
func (d *DB) XGroupDelConsumer(key, group, consumer []byte) (pending int64, ok bool, err error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	g, err := d.openGroup(ks, key, group)
	if err != nil {
		return 0, false, err
	}
	c, ok, err := d.loadConsumer(ks, g, consumer)
	if err != nil || !ok {
		return 0, false, err
	}
	lower := subkey.AppendStreamConsumerPendingPrefix(nil, ks.m.UID, g.v.GID, c.v.CID)
	upper := subkey.AppendStreamConsumerPendingPrefix(nil, ks.m.UID, g.v.GID, c.v.CID+1)
	err = d.write(func(b *store.Batch) error {
		err := d.iterate(store.CFSubkey, lower, upper, false, func(k, _ []byte) (bool, error) {
			ms, seq, err := subkey.DecodeStreamConsumerPendingKey(k)
			if err != nil {
				return false, err
			}
			b.Delete(store.CFSubkey, subkey.AppendStreamPendingKey(nil, ks.m.UID, g.v.GID, ms, seq))
			pending++
			return true, nil
		})
		if err != nil {
			return err
		}
		b.DeleteRange(store.CFSubkey, lower, upper)
		b.Delete(store.CFSubkey, c.key)
		g.v.Pending -= uint64(pending)
		g.v.Consumers--
		g.save(b)
		return nil
	})
	return pending, true, err
}

// streamRangeHasTombstones is Redis 7.0's: whether an entry between start
// and the end of the stream may have been deleted (XDEL), which makes a
// group's entries-read counter unusable past it.
func streamRangeHasTombstones(m *metadata.Meta, start StreamID) bool {
	sm := &m.Stream
	if m.Size == 0 || sm.MaxDeletedID.IsZero() || sm.FirstID.Compare(sm.MaxDeletedID) > 0 {
		return false
	}
	return start.Compare(sm.MaxDeletedID) <= 0
}

// streamEstimateDistance is Redis 7.0's
// streamEstimateDistanceFromFirstEverEntry: the entries-read counter of
// id, or unknownEntriesRead.
func streamEstimateDistance(m *metadata.Meta, id StreamID) int64 {
	sm := &m.Stream
	if sm.EntriesAdded == 0 {
		return 0
	}
	if m.Size == 0 && id.Compare(sm.LastID) < 1 {
		return int64(sm.EntriesAdded)
	}
	switch c := id.Compare(sm.LastID); {
	case c == 0:
		return int64(sm.EntriesAdded)
	case c > 0:
		return unknownEntriesRead
	}
	cmpFirst := id.Compare(sm.FirstID)
	if sm.MaxDeletedID.IsZero() || sm.MaxDeletedID.Compare(sm.FirstID) < 0 {
		switch {
		case cmpFirst < 0:
			return int64(sm.EntriesAdded - m.Size)
		case cmpFirst == 0:
			return int64(sm.EntriesAdded - m.Size + 1)
		}
	}
	return unknownEntriesRead
}

// groupLag is XINFO's lag of g: ok is false when it cannot be known.
func groupLag(m *metadata.Meta, g *subkey.StreamGroupValue) (lag int64, ok bool) {
	sm := &m.Stream
	last := StreamID{Ms: g.LastMs, Seq: g.LastSeq}
	switch {
	case sm.EntriesAdded == 0:
		return 0, true
	case g.EntriesRead != unknownEntriesRead && !streamRangeHasTombstones(m, last):
		return int64(sm.EntriesAdded) - g.EntriesRead, true
	}
	if read := streamEstimateDistance(m, last); read != unknownEntriesRead {
		return int64(sm.EntriesAdded) - read, true
	}
	return 0, false
}

// XReadGroup reads key for the consumer of group, as XREADGROUP: with
// history false, up to count (0 = all) entries never delivered to the
// group, which join the consumer's pending list unless noack; with
// history, up to count of the consumer's pending entries after the ID
// after (an entry since deleted has nil Items), delivered again. The
// consumer is made if missing, and seen now. ErrNoSuchKey, ErrNoGroup.
func (d *DB) XReadGroup(key, group, consumer []byte, history bool, after StreamID, count int64, noack bool) ([]StreamEntry, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	g, err := d.openGroup(ks, key, group)
	if err != nil {
		return nil, err
	}
	var entries []StreamEntry
	if !history {
		if entries, err = d.newEntries(ks, g, count); err != nil || len(entries) == 0 {
			// Redis 7.0 makes no consumer when it serves nothing.
			return nil, err
		}
	}
	now := d.e.now()
	c, created, err := d.consumerFor(ks, g, consumer, now)
	if err != nil {
		return nil, err
	}
	var pend []pendingWrite
	counts := consumerCounts{}
	if history {
		entries, pend, err = d.consumerHistory(ks, g, c, after, count, now)
	} else {
		pend, err = d.deliverNew(ks, g, c, entries, noack, now, counts)
	}
	if err != nil {
		return nil, err
	}
	err = d.writePending(ks, g, c, pend, counts, created || len(pend) > 0 || !history && len(entries) > 0)
	return entries, err
}

// writePending writes, in one batch, the pending-entry changes pend a
// command decided, the pending counts of the consumers they moved between,
// and the group's record when saveGroup.
func (d *DB) writePending(ks *keyState, g *streamGroup, c *streamConsumer, pend []pendingWrite, counts consumerCounts, saveGroup bool) error {
	return d.write(func(b *store.Batch) error {
		for _, p := range pend {
			p.apply(b)
		}
		if err := d.saveCounts(b, ks, g, c, counts); err != nil {
			return err
		}
		if saveGroup {
			g.save(b)
		}
		return nil
	})
}

// pendingWrite is a change to a pending entry one command decided.
type pendingWrite struct {
	key, val []byte   // the group's record: put, or deleted when val is nil
	del, put [][]byte // consumers' records to delete and to put
}

func (p pendingWrite) apply(b *store.Batch) {
	if p.val == nil {
		b.Delete(store.CFSubkey, p.key)
	} else {
		b.Put(store.CFSubkey, p.key, p.val)
	}
	for _, k := range p.del {
		b.Delete(store.CFSubkey, k)
	}
	for _, k := range p.put {
		b.Put(store.CFSubkey, k, nil)
	}
}

// newEntries reads XREADGROUP's ">": up to count entries (0 = all) after
// g's last delivered ID.
func (d *DB) newEntries(ks *keyState, g *streamGroup, count int64) ([]StreamEntry, error) {
	last := g.lastID()
	if last == MaxStreamID || ks.m.Size == 0 {
		return nil, nil
	}
	keep := store.Unlock(noUnlock) // the caller keeps the lock: it writes next
	return d.streamRange(ks, nextStreamIDAfter(last), MaxStreamID, count, false, &keep)
}

// deliverNew delivers entries, the next ones after g's last delivered ID,
// to c: they move g's last ID and its entries-read counter as Redis 7.0
// moves them, and unless noack join c's pending list.
func (d *DB) deliverNew(ks *keyState, g *streamGroup, c *streamConsumer, entries []StreamEntry, noack bool, now int64, counts consumerCounts) ([]pendingWrite, error) {
	for _, e := range entries {
		if g.v.EntriesRead != unknownEntriesRead && !streamRangeHasTombstones(&ks.m, e.ID) {
			g.v.EntriesRead++
		} else if ks.m.Stream.EntriesAdded != 0 {
			g.v.EntriesRead = streamEstimateDistance(&ks.m, e.ID)
		}
		g.setLastID(e.ID)
	}
	if noack {
		return nil, nil
	}
	// An entry already pending (XGROUP SETID moved the group back, or
	// XCLAIM FORCE claimed it) passes to c, delivered once, as in Redis.
	pending, err := d.pendingAmong(ks, g, entries)
	if err != nil {
		return nil, err
	}
	pend := make([]pendingWrite, 0, len(entries))
	for _, e := range entries {
		pk := subkey.AppendStreamPendingKey(nil, ks.m.UID, g.v.GID, e.ID.Ms, e.ID.Seq)
		p, err := d.reassign(ks, g, c, pk, e.ID, pending[e.ID], now, 1, counts)
		if err != nil {
			return nil, err
		}
		pend = append(pend, p)
	}
	return pend, nil
}

// nextStreamIDAfter is the ID right after id, which is not the greatest.
func nextStreamIDAfter(id StreamID) StreamID {
	if id.Seq == math.MaxUint64 {
		return StreamID{Ms: id.Ms + 1}
	}
	id.Seq++
	return id
}

// consumerHistory is XREADGROUP with an ID: the consumer's pending
// entries after after, each delivered again now.
func (d *DB) consumerHistory(ks *keyState, g *streamGroup, c *streamConsumer, after StreamID, count int64, now int64) ([]StreamEntry, []pendingWrite, error) {
	if after == MaxStreamID {
		return []StreamEntry{}, nil, nil
	}
	start := nextStreamIDAfter(after)
	uid, gid := ks.m.UID, g.v.GID
	lower := subkey.AppendStreamConsumerPendingKey(nil, uid, gid, c.v.CID, start.Ms, start.Seq)
	upper := subkey.AppendStreamConsumerPendingPrefix(nil, uid, gid, c.v.CID+1)
	var ids []StreamID
	err := d.walkConsumerPending(ks, g, c, lower, upper, func(k, _ []byte) (bool, error) {
		ms, seq, err := subkey.DecodeStreamConsumerPendingKey(k)
		if err != nil {
			return false, err
		}
		ids = append(ids, StreamID{Ms: ms, Seq: seq})
		return count <= 0 || int64(len(ids)) < count, nil
	})
	if err != nil {
		return nil, nil, err
	}
	entries := make([]StreamEntry, 0, len(ids))
	var pend []pendingWrite
	for _, id := range ids {
		e, ok, err := d.streamEntry(ks, id)
		if err != nil {
			return nil, nil, err
		}
		entries = append(entries, e)
		if !ok {
			continue // Redis replies the ID with a null entry, and leaves the pending entry be
		}
		p, pv, err := d.pendingRecord(ks, g, id)
		if err != nil {
			return nil, nil, err
		}
		if pv == nil {
			continue
		}
		pv.DeliveryMs = now
		pv.Deliveries++
		pend = append(pend, pendingWrite{key: p, val: pv.Append(nil)})
	}
	return entries, pend, nil
}

// streamEntry reads the entry id of the live stream ks; ok is false when
// there is none (e.Items is then nil).
func (d *DB) streamEntry(ks *keyState, id StreamID) (e StreamEntry, ok bool, err error) {
	e.ID = id
	raw, ok, err := d.rd.Get(store.CFSubkey, ks.entryKey(id))
	if err != nil || !ok {
		return e, false, err
	}
	if e.Items, err = subkey.DecodeStreamValue(nil, raw); err != nil {
		return e, false, fmt.Errorf("stream %q entry %s: %w", ks.key, id, err)
	}
	return e, true, nil
}

// pendingRecord reads the pending entry id of g: its key, and its record
// (nil when the entry is not pending).
func (d *DB) pendingRecord(ks *keyState, g *streamGroup, id StreamID) ([]byte, *subkey.StreamPendingValue, error) {
	key := subkey.AppendStreamPendingKey(nil, ks.m.UID, g.v.GID, id.Ms, id.Seq)
	raw, ok, err := d.rd.Get(store.CFSubkey, key)
	if err != nil || !ok {
		return key, nil, err
	}
	v, err := subkey.DecodeStreamPendingValue(raw)
	if err != nil {
		return key, nil, fmt.Errorf("stream %q pending %s: %w", ks.key, id, err)
	}
	return key, &v, nil
}

// pendingAmong returns the pending records of g among entries, whose IDs
// ascend, by ID. The group's pending list is ordered by ID, so one walk
// from the first entry to the last finds them all: usually none, since
// new entries are pending only after XGROUP SETID or XCLAIM FORCE. A read
// per entry cost XREADGROUP a fifth of its CPU.
func (d *DB) pendingAmong(ks *keyState, g *streamGroup, entries []StreamEntry) (map[StreamID]*subkey.StreamPendingValue, error) {
	if len(entries) == 0 || g.v.Pending == 0 {
		return nil, nil
	}
	var found map[StreamID]*subkey.StreamPendingValue
	err := d.eachPending(ks, g, entries[0].ID, entries[len(entries)-1].ID, func(id StreamID, pv subkey.StreamPendingValue) bool {
		if found == nil {
			found = map[StreamID]*subkey.StreamPendingValue{}
		}
		pv.Consumer = bytes.Clone(pv.Consumer)
		found[id] = &pv
		return true
	})
	return found, err
}

// eachPending calls fn with each pending entry of g from start to end,
// both included, in ID order, until fn returns false. pv.Consumer is valid
// only during the call.
func (d *DB) eachPending(ks *keyState, g *streamGroup, start, end StreamID, fn func(id StreamID, pv subkey.StreamPendingValue) bool) error {
	lower := subkey.AppendStreamPendingKey(nil, ks.m.UID, g.v.GID, start.Ms, start.Seq)
	// The key right after end's: end may be the greatest ID.
	upper := append(subkey.AppendStreamPendingKey(nil, ks.m.UID, g.v.GID, end.Ms, end.Seq), 0)
	return d.walkPending(ks, g, lower, upper, false, func(k, val []byte) (bool, error) {
		ms, seq, err := subkey.DecodeStreamPendingKey(k)
		if err != nil {
			return false, err
		}
		pv, err := subkey.DecodeStreamPendingValue(val)
		if err != nil {
			return false, err
		}
		return fn(StreamID{Ms: ms, Seq: seq}, pv), nil
	})
}

// walkPending calls fn with each record of g's pending list in [lower,
// upper), in ID order or in reverse, until fn returns false or fails. The
// walk starts past the entries acknowledged at either end of the list (a
// worker's XAUTOCLAIM from 0-0, XPENDING's first entry): see edgedWalk.
func (d *DB) walkPending(ks *keyState, g *streamGroup, lower, upper []byte, rev bool, fn func(k, v []byte) (bool, error)) error {
	uid, gid := ks.m.UID, g.v.GID
	r := store.EdgeRange{CF: store.CFSubkey, Prefix: subkey.AppendStreamGroupPrefix(nil, uid, subkey.StreamPending, gid)}
	low := subkey.AppendStreamPendingKey(nil, uid, gid, 0, 1) // 0-1: no entry has ID 0-0
	high := subkey.AppendStreamGroupPrefix(nil, uid, subkey.StreamPending, gid+1)
	return d.edgedWalk(r, low, high, lower, upper, rev, fn)
}

// walkConsumerPending calls fn with each record of c's own pending list
// in [lower, upper), in ID order, until fn returns false or fails,
// starting past the entries acknowledged at its front (XREADGROUP from 0
// after the consumer's XACKs): see edgedWalk.
func (d *DB) walkConsumerPending(ks *keyState, g *streamGroup, c *streamConsumer, lower, upper []byte, fn func(k, v []byte) (bool, error)) error {
	uid, gid, cid := ks.m.UID, g.v.GID, c.v.CID
	r := store.EdgeRange{CF: store.CFSubkey, Prefix: subkey.AppendStreamConsumerPendingPrefix(nil, uid, gid, cid)}
	low := subkey.AppendStreamConsumerPendingKey(nil, uid, gid, cid, 0, 1) // 0-1: no entry has ID 0-0
	high := subkey.AppendStreamConsumerPendingPrefix(nil, uid, gid, cid+1)
	return d.edgedWalk(r, low, high, lower, upper, false, fn)
}

// consumerCounts applies the pending counts of consumers other than the
// command's that its changes moved: delta by consumer name.
type consumerCounts map[string]int64

// XAck is XACK: how many of ids were pending in group and are no more. A
// missing key or group acknowledges none.
func (d *DB) XAck(key, group []byte, ids []StreamID) (int64, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	g, err := d.openGroup(ks, key, group)
	if errors.Is(err, ErrNoSuchKey) || errors.Is(err, ErrNoGroup) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	counts := consumerCounts{}
	seen := make(map[StreamID]bool, len(ids))
	var gone [][]byte
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		pk, pv, err := d.pendingRecord(ks, g, id)
		if err != nil {
			return 0, err
		}
		if pv == nil {
			continue
		}
		gone = append(gone, pk, subkey.AppendStreamConsumerPendingKey(nil, ks.m.UID, g.v.GID, pv.CID, id.Ms, id.Seq))
		counts[string(pv.Consumer)]--
	}
	if len(gone) == 0 {
		return 0, nil
	}
	acked := int64(len(gone) / 2)
	g.v.Pending -= uint64(acked)
	err = d.write(func(b *store.Batch) error {
		for _, k := range gone {
			b.Delete(store.CFSubkey, k)
		}
		if err := d.saveCounts(b, ks, g, nil, counts); err != nil {
			return err
		}
		g.save(b)
		return nil
	})
	return acked, err
}

// saveCounts writes c, when not nil, and the other consumers whose
// pending counts counts changes (c's own change in counts applies to c).
func (d *DB) saveCounts(b *store.Batch, ks *keyState, g *streamGroup, c *streamConsumer, counts consumerCounts) error {
	if c != nil {
		c.v.Pending = uint64(int64(c.v.Pending) + counts[string(c.name)])
		delete(counts, string(c.name))
		c.save(b)
	}
	for name, delta := range counts {
		if delta == 0 {
			continue
		}
		c, ok, err := d.loadConsumer(ks, g, []byte(name))
		if err != nil {
			return err
		}
		if ok {
			c.v.Pending = uint64(int64(c.v.Pending) + delta)
			c.save(b)
		}
	}
	return nil
}

// PendingSummary is XPENDING's summary of a group.
type PendingSummary struct {
	Count       int64
	First, Last StreamID
	// Consumers are the consumers with pending entries, by name.
	Consumers []ConsumerPending
}

// ConsumerPending is a consumer and its count of pending entries.
type ConsumerPending struct {
	Name    []byte
	Pending int64
}

// XPendingSummary is XPENDING key group. ErrNoSuchKey, ErrNoGroup.
func (d *DB) XPendingSummary(key, group []byte) (s PendingSummary, err error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	g, err := d.openGroup(ks, key, group)
	if err != nil {
		return s, err
	}
	s.Count = int64(g.v.Pending)
	if s.Count == 0 {
		return s, nil
	}
	uid, gid := ks.m.UID, g.v.GID
	lower := subkey.AppendStreamGroupPrefix(nil, uid, subkey.StreamPending, gid)
	upper := subkey.AppendStreamGroupPrefix(nil, uid, subkey.StreamPending, gid+1)
	for _, rev := range []bool{false, true} {
		err := d.walkPending(ks, g, lower, upper, rev, func(k, _ []byte) (bool, error) {
			ms, seq, err := subkey.DecodeStreamPendingKey(k)
			if rev {
				s.Last = StreamID{Ms: ms, Seq: seq}
			} else {
				s.First = StreamID{Ms: ms, Seq: seq}
			}
			return false, err
		})
		if err != nil {
			return s, err
		}
	}
	err = d.eachConsumer(ks, g, func(name []byte, v subkey.StreamConsumerValue) {
		if v.Pending > 0 {
			s.Consumers = append(s.Consumers, ConsumerPending{Name: name, Pending: int64(v.Pending)})
		}
	})
	return s, err
}

// eachConsumer calls fn for each consumer of g, by name; name is fn's.
func (d *DB) eachConsumer(ks *keyState, g *streamGroup, fn func(name []byte, v subkey.StreamConsumerValue)) error {
	uid, gid := ks.m.UID, g.v.GID
	err := d.iterate(store.CFSubkey, subkey.AppendStreamGroupPrefix(nil, uid, subkey.StreamConsumer, gid),
		subkey.AppendStreamGroupPrefix(nil, uid, subkey.StreamConsumer, gid+1), false, func(k, val []byte) (bool, error) {
			name, err := subkey.DecodeStreamConsumerKey(k)
			if err != nil {
				return false, err
			}
			v, err := subkey.DecodeStreamConsumerValue(val)
			if err != nil {
				return false, err
			}
			fn(bytes.Clone(name), v)
			return true, nil
		})
	return err
}

// PendingEntry is one entry of XPENDING's extended form.
type PendingEntry struct {
	ID         StreamID
	Consumer   []byte
	IdleMs     int64
	Deliveries int64
}

// XPendingRange is XPENDING's extended form: up to count pending entries
// of group from start to end, idle at least minIdle ms (0: any), of the
// consumer when not nil (a missing consumer has none).
func (d *DB) XPendingRange(key, group []byte, start, end StreamID, count, minIdle int64, consumer []byte) ([]PendingEntry, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	g, err := d.openGroup(ks, key, group)
	if err != nil {
		return nil, err
	}
	out := []PendingEntry{}
	if count <= 0 || start.Compare(end) > 0 {
		return out, nil
	}
	now := d.e.now()
	uid, gid := ks.m.UID, g.v.GID
	// take reports whether the entry id, pending as pv, is in the reply.
	take := func(id StreamID, pv subkey.StreamPendingValue) bool {
		idle := now - pv.DeliveryMs
		if minIdle != 0 && idle < minIdle {
			return true
		}
		out = append(out, PendingEntry{ID: id, Consumer: bytes.Clone(pv.Consumer), IdleMs: max(idle, 0), Deliveries: int64(pv.Deliveries)})
		return int64(len(out)) < count
	}
	if consumer == nil {
		err = d.eachPending(ks, g, start, end, take)
	} else {
		c, ok, cerr := d.loadConsumer(ks, g, consumer)
		if cerr != nil || !ok {
			return out, cerr
		}
		lower := subkey.AppendStreamConsumerPendingKey(nil, uid, gid, c.v.CID, start.Ms, start.Seq)
		upper := append(subkey.AppendStreamConsumerPendingKey(nil, uid, gid, c.v.CID, end.Ms, end.Seq), 0)
		err = d.walkConsumerPending(ks, g, c, lower, upper, func(k, _ []byte) (bool, error) {
			ms, seq, err := subkey.DecodeStreamConsumerPendingKey(k)
			if err != nil {
				return false, err
			}
			id := StreamID{Ms: ms, Seq: seq}
			_, pv, err := d.pendingRecord(ks, g, id)
			if err != nil || pv == nil {
				return err == nil, err
			}
			return take(id, *pv), nil
		})
	}
	return out, err
}

// ClaimArgs are XCLAIM's options.
type ClaimArgs struct {
	// Delivery says how DeliveryMs reads: ClaimNow (it is unused),
	// ClaimIdle (ms before now) or ClaimTime (unix ms).
	Delivery   ClaimDelivery
	DeliveryMs int64
	RetryCount int64 // -1: not given
	Force      bool
	JustID     bool
	LastID     StreamID // the group's last ID moves up to it
}

// ClaimDelivery is how XCLAIM was told the new delivery time.
type ClaimDelivery uint8

// The ways XCLAIM sets the delivery time.
const (
	ClaimNow  ClaimDelivery = iota // no IDLE or TIME
	ClaimIdle                      // IDLE ms
	ClaimTime                      // TIME unix-ms
)

// Claimed is one entry XCLAIM or XAUTOCLAIM claimed: with JUSTID only its
// ID; otherwise the entry, Found false when the stream lost it.
type Claimed struct {
	Entry StreamEntry
	Found bool
}

// XClaim is XCLAIM: it gives consumer the entries of ids pending in group
// for at least minIdle ms (0: any), or with Force any entry of the stream.
// Pending entries whose entry is gone leave the pending list.
func (d *DB) XClaim(key, group, consumer []byte, minIdle int64, ids []StreamID, a ClaimArgs) ([]Claimed, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	g, err := d.openGroup(ks, key, group)
	if err != nil {
		return nil, err
	}
	now := d.e.now()
	delivery := now
	switch a.Delivery {
	case ClaimIdle:
		delivery = now - a.DeliveryMs
	case ClaimTime:
		delivery = a.DeliveryMs
	}
	if delivery < 0 || delivery > now {
		delivery = now
	}
	groupChanged := false
	if a.LastID.Compare(g.lastID()) > 0 {
		g.setLastID(a.LastID)
		groupChanged = true
	}
	var c *streamConsumer
	created := false
	counts := consumerCounts{}
	var pend []pendingWrite
	out := []Claimed{}
	// changed holds the pending records this command changed (nil:
	// dropped), as a repeated ID must see them: the batch is not written
	// yet.
	changed := map[StreamID]*subkey.StreamPendingValue{}
	for _, id := range ids {
		pk, pv, err := d.pendingRecord(ks, g, id)
		if err != nil {
			return nil, err
		}
		if v, ok := changed[id]; ok {
			pv = v
		}
		e, found, err := d.streamEntry(ks, id)
		if err != nil {
			return nil, err
		}
		if !found {
			if pv != nil {
				pend = append(pend, d.dropPending(ks, g, pk, id, pv, counts))
				changed[id] = nil
				groupChanged = true
			}
			continue
		}
		var deliveries uint64
		switch {
		case pv == nil && !a.Force:
			continue
		case pv == nil:
			deliveries = 1 // Redis makes the entry pending, delivered once, then counts this claim
		default:
			if minIdle > 0 && now-pv.DeliveryMs < minIdle {
				continue
			}
			deliveries = pv.Deliveries
		}
		if c == nil {
			if c, created, err = d.consumerFor(ks, g, consumer, now); err != nil {
				return nil, err
			}
		}
		switch {
		case a.RetryCount >= 0:
			deliveries = uint64(a.RetryCount)
		case !a.JustID:
			deliveries++
		}
		p, err := d.reassign(ks, g, c, pk, id, pv, delivery, deliveries, counts)
		if err != nil {
			return nil, err
		}
		pend = append(pend, p)
		changed[id] = &subkey.StreamPendingValue{DeliveryMs: delivery, Deliveries: deliveries, CID: c.v.CID, Consumer: c.name}
		groupChanged = true
		if a.JustID {
			e.Items = nil
		}
		out = append(out, Claimed{Entry: e, Found: true})
	}
	if !groupChanged && !created && c == nil {
		return out, nil
	}
	err = d.writePending(ks, g, c, pend, counts, true)
	return out, err
}

// dropPending removes the pending entry id (record pv under pk) of g, whose
// stream entry is gone.
func (d *DB) dropPending(ks *keyState, g *streamGroup, pk []byte, id StreamID, pv *subkey.StreamPendingValue, counts consumerCounts) pendingWrite {
	g.v.Pending--
	counts[string(pv.Consumer)]--
	return pendingWrite{key: pk, del: [][]byte{subkey.AppendStreamConsumerPendingKey(nil, ks.m.UID, g.v.GID, pv.CID, id.Ms, id.Seq)}}
}

// reassign makes the entry id of g pending for c (pv: its record, nil when
// it was not pending), delivered at delivery, deliveries times. A previous
// holder's count changes in counts.
func (d *DB) reassign(ks *keyState, g *streamGroup, c *streamConsumer, pk []byte, id StreamID, pv *subkey.StreamPendingValue, delivery int64, deliveries uint64, counts consumerCounts) (pendingWrite, error) {
	uid, gid := ks.m.UID, g.v.GID
	p := pendingWrite{key: pk}
	switch {
	case pv == nil:
		g.v.Pending++
		c.v.Pending++
		p.put = [][]byte{subkey.AppendStreamConsumerPendingKey(nil, uid, gid, c.v.CID, id.Ms, id.Seq)}
	case pv.CID != c.v.CID:
		counts[string(pv.Consumer)]--
		c.v.Pending++
		p.del = [][]byte{subkey.AppendStreamConsumerPendingKey(nil, uid, gid, pv.CID, id.Ms, id.Seq)}
		p.put = [][]byte{subkey.AppendStreamConsumerPendingKey(nil, uid, gid, c.v.CID, id.Ms, id.Seq)}
	}
	p.val = subkey.StreamPendingValue{DeliveryMs: delivery, Deliveries: deliveries, CID: c.v.CID, Consumer: c.name}.Append(nil)
	return p, nil
}

// autoClaimAttempts is Redis's attempts_factor: XAUTOCLAIM looks at no
// more than COUNT times this many pending entries.
const autoClaimAttempts = 10

// XAutoClaim is XAUTOCLAIM: from start, it gives consumer up to count
// pending entries of group idle at least minIdle ms, looking at no more
// than count*10, and drops the pending entries whose stream entry is gone
// (deleted, counted in count). next is where the next call starts, 0-0
// when the list was read to its end.
func (d *DB) XAutoClaim(key, group, consumer []byte, minIdle int64, start StreamID, count int64, justID bool) (next StreamID, claimed []Claimed, deleted []StreamID, err error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	g, err := d.openGroup(ks, key, group)
	if err != nil {
		return next, nil, nil, err
	}
	now := d.e.now()
	uid, gid := ks.m.UID, g.v.GID
	attempts := count * autoClaimAttempts
	var c *streamConsumer
	counts := consumerCounts{}
	var pend []pendingWrite
	claimed = []Claimed{}
	deleted = []StreamID{}
	lower := subkey.AppendStreamPendingKey(nil, uid, gid, start.Ms, start.Seq)
	upper := subkey.AppendStreamGroupPrefix(nil, uid, subkey.StreamPending, gid+1)
	err = d.walkPending(ks, g, lower, upper, false, func(k, val []byte) (bool, error) {
		ms, seq, err := subkey.DecodeStreamPendingKey(k)
		if err != nil {
			return false, err
		}
		id := StreamID{Ms: ms, Seq: seq}
		if attempts == 0 || count == 0 {
			next = id
			return false, nil
		}
		attempts--
		pv, err := subkey.DecodeStreamPendingValue(bytes.Clone(val))
		if err != nil {
			return false, err
		}
		pk := bytes.Clone(k)
		e, found, err := d.streamEntry(ks, id)
		if err != nil {
			return false, err
		}
		if !found {
			pend = append(pend, d.dropPending(ks, g, pk, id, &pv, counts))
			deleted = append(deleted, id)
			count--
			return true, nil
		}
		if minIdle > 0 && now-pv.DeliveryMs < minIdle {
			return true, nil
		}
		if c == nil {
			if c, _, err = d.consumerFor(ks, g, consumer, now); err != nil {
				return false, err
			}
		}
		deliveries := pv.Deliveries
		if !justID {
			deliveries++
		}
		p, err := d.reassign(ks, g, c, pk, id, &pv, now, deliveries, counts)
		if err != nil {
			return false, err
		}
		pend = append(pend, p)
		if justID {
			e.Items = nil
		}
		claimed = append(claimed, Claimed{Entry: e, Found: true})
		count--
		return true, nil
	})
	if err != nil || len(pend) == 0 && c == nil {
		return next, claimed, deleted, err
	}
	err = d.writePending(ks, g, c, pend, counts, true)
	return next, claimed, deleted, err
}

// GroupInfo is one group of XINFO GROUPS.
type GroupInfo struct {
	Name               []byte
	Consumers, Pending int64
	LastID             StreamID
	EntriesRead        int64 // -1: unknown (nil)
	Lag                int64
	LagKnown           bool
}

// XInfoGroups is XINFO GROUPS: the stream's groups, by name.
func (d *DB) XInfoGroups(key []byte) ([]GroupInfo, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	if err := d.loadGroupStream(ks, key); err != nil {
		return nil, err
	}
	out := []GroupInfo{}
	lower := subkey.AppendStreamKindPrefix(nil, ks.m.UID, subkey.StreamGroup)
	upper := subkey.AppendStreamKindPrefix(nil, ks.m.UID, subkey.StreamGroup+1)
	err := d.iterate(store.CFSubkey, lower, upper, false, func(k, val []byte) (bool, error) {
		name, err := subkey.DecodeStreamGroupKey(k)
		if err != nil {
			return false, err
		}
		v, err := subkey.DecodeStreamGroupValue(val)
		if err != nil {
			return false, err
		}
		lag, ok := groupLag(&ks.m, &v)
		out = append(out, GroupInfo{Name: bytes.Clone(name), Consumers: int64(v.Consumers), Pending: int64(v.Pending),
			LastID: StreamID{Ms: v.LastMs, Seq: v.LastSeq}, EntriesRead: v.EntriesRead, Lag: lag, LagKnown: ok})
		return true, nil
	})
	return out, err
}

// ConsumerInfo is one consumer of XINFO CONSUMERS.
type ConsumerInfo struct {
	Name    []byte
	Pending int64
	IdleMs  int64
}

// XInfoConsumers is XINFO CONSUMERS: the group's consumers, by name.
func (d *DB) XInfoConsumers(key, group []byte) ([]ConsumerInfo, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	g, err := d.openGroup(ks, key, group)
	if err != nil {
		return nil, err
	}
	now := d.e.now()
	out := []ConsumerInfo{}
	err = d.eachConsumer(ks, g, func(name []byte, v subkey.StreamConsumerValue) {
		out = append(out, ConsumerInfo{Name: name, Pending: int64(v.Pending), IdleMs: max(now-v.SeenMs, 0)})
	})
	return out, err
}

// streamType is the stream's metadata type, for files that import no
// metadata.
const streamType = metadata.TypeStream

// FullPending is a pending entry as XINFO STREAM FULL shows it.
type FullPending struct {
	ID         StreamID
	Consumer   []byte // in a group's list; nil in a consumer's
	DeliveryMs int64
	Deliveries int64
}

// FullConsumer is a consumer as XINFO STREAM FULL shows it.
type FullConsumer struct {
	Name    []byte
	SeenMs  int64
	Pending int64
	Entries []FullPending // its first pending entries
}

// FullGroup is a group as XINFO STREAM FULL shows it.
type FullGroup struct {
	GroupInfo
	Entries   []FullPending // its first pending entries
	Consumers []FullConsumer
}

// XInfoGroupsFull is the groups part of XINFO STREAM FULL: each group
// with its first count pending entries (0: all) and its consumers, each
// with its first count pending entries. A missing key has none.
func (d *DB) XInfoGroupsFull(key []byte, count int64) ([]FullGroup, error) {
	groups, err := d.XInfoGroups(key)
	if errors.Is(err, ErrNoSuchKey) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	if err := d.loadGroupStream(ks, key); err != nil {
		return nil, err
	}
	out := make([]FullGroup, 0, len(groups))
	for _, gi := range groups {
		g, err := d.loadGroup(ks, gi.Name)
		if errors.Is(err, ErrNoGroup) {
			continue // destroyed in between
		}
		if err != nil {
			return nil, err
		}
		fg := FullGroup{GroupInfo: gi}
		uid, gid := ks.m.UID, g.v.GID
		fg.Entries, err = d.fullPending(subkey.AppendStreamGroupPrefix(nil, uid, subkey.StreamPending, gid),
			subkey.AppendStreamGroupPrefix(nil, uid, subkey.StreamPending, gid+1), count, func(k []byte) (StreamID, error) {
				ms, seq, err := subkey.DecodeStreamPendingKey(k)
				return StreamID{Ms: ms, Seq: seq}, err
			}, nil)
		if err != nil {
			return nil, err
		}
		var cs []FullConsumer
		err = d.eachConsumer(ks, g, func(name []byte, v subkey.StreamConsumerValue) {
			cs = append(cs, FullConsumer{Name: name, SeenMs: v.SeenMs, Pending: int64(v.Pending)})
		})
		if err != nil {
			return nil, err
		}
		for i := range cs {
			c, ok, err := d.loadConsumer(ks, g, cs[i].Name)
			if err != nil || !ok {
				return nil, err
			}
			lower := subkey.AppendStreamConsumerPendingPrefix(nil, uid, gid, c.v.CID)
			upper := subkey.AppendStreamConsumerPendingPrefix(nil, uid, gid, c.v.CID+1)
			cs[i].Entries, err = d.fullPending(lower, upper, count, func(k []byte) (StreamID, error) {
				ms, seq, err := subkey.DecodeStreamConsumerPendingKey(k)
				return StreamID{Ms: ms, Seq: seq}, err
			}, func(id StreamID) (*subkey.StreamPendingValue, error) {
				_, pv, err := d.pendingRecord(ks, g, id)
				return pv, err
			})
			if err != nil {
				return nil, err
			}
		}
		fg.Consumers = cs
		out = append(out, fg)
	}
	return out, nil
}

// fullPending reads up to count (0: all) pending records in [lower,
// upper): a group's, whose values they hold, or, with lookup, a
// consumer's, whose values lookup reads.
func (d *DB) fullPending(lower, upper []byte, count int64, id func(k []byte) (StreamID, error), lookup func(StreamID) (*subkey.StreamPendingValue, error)) ([]FullPending, error) {
	out := []FullPending{}
	err := d.iterate(store.CFSubkey, lower, upper, false, func(k, val []byte) (bool, error) {
		pid, err := id(k)
		if err != nil {
			return false, err
		}
		var pv *subkey.StreamPendingValue
		if lookup != nil {
			if pv, err = lookup(pid); err != nil || pv == nil {
				return err == nil, err
			}
		} else {
			v, err := subkey.DecodeStreamPendingValue(val)
			if err != nil {
				return false, err
			}
			pv = &v
		}
		fp := FullPending{ID: pid, DeliveryMs: pv.DeliveryMs, Deliveries: int64(pv.Deliveries)}
		if lookup == nil {
			fp.Consumer = bytes.Clone(pv.Consumer)
		}
		out = append(out, fp)
		return count <= 0 || int64(len(out)) < count, nil
	})
	return out, err
}
