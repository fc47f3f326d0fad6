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

// A stream is a composite key: its header (length, last, first and max
// deleted IDs, entries added) is its Meta record, each entry a sub-key
// record under its uid, keyed by ID (subkey/stream.go), so that XADD is one
// small batch whatever the length, XRANGE one seek, and DEL, RENAME, MOVE
// and expiry O(1) as for the other types. Unlike the other collections an
// empty stream stays (Redis keeps it, with its last ID): keyState.save
// keeps a stream of size 0.

// StreamID is a stream entry's ID (metadata.StreamID).
type StreamID = metadata.StreamID

// MaxStreamID is the greatest ID, 18446744073709551615-18446744073709551615.
var MaxStreamID = StreamID{Ms: math.MaxUint64, Seq: math.MaxUint64}

// The stream commands' errors; the server maps them to Redis's texts.
var (
	// ErrStreamIDTooSmall: XADD's ID is not above the stream's last ID.
	ErrStreamIDTooSmall = errors.New("stream ID equal or smaller than the top item")
	// ErrStreamExhausted: the stream's last ID is the greatest there is.
	ErrStreamExhausted = errors.New("stream has exhausted the last possible ID")
	// ErrSetIDBelowTop: XSETID's ID is below the stream's last entry.
	ErrSetIDBelowTop = errors.New("XSETID ID smaller than the top item")
	// ErrSetIDEntriesAdded: XSETID's ENTRIESADDED is below the length.
	ErrSetIDEntriesAdded = errors.New("XSETID entries_added smaller than the length")
)

// StreamEntry is one entry: its ID and its fields and values, alternating.
type StreamEntry struct {
	ID    StreamID
	Items [][]byte
}

// TrimStrategy is how XADD and XTRIM trim a stream.
type TrimStrategy uint8

// The trimming strategies.
const (
	TrimNone   TrimStrategy = iota // no trimming
	TrimMaxLen                     // keep the newest MaxLen entries
	TrimMinID                      // drop the entries below MinID
)

// StreamTrim is XADD's and XTRIM's trimming.
type StreamTrim struct {
	Strategy TrimStrategy
	MaxLen   uint64   // TrimMaxLen
	MinID    StreamID // TrimMinID
	// Approx is "~": only whole nodes go, as Redis trims only whole macro
	// nodes of its radix tree; see streamNodeEntries.
	Approx bool
	// Limit caps the entries an approximate trim removes (0 = no cap).
	Limit int64
}

// streamNodeEntries is Redis's stream-node-max-entries default: the most
// entries one macro node holds. "~" trimming removes whole nodes only;
// Shale keeps no nodes, so it models them: the stream's entries, counted
// from the first ever added (EntriesAdded-Size is the first live entry's
// position), in runs of streamNodeEntries. That is Redis's layout for a
// stream filled by XADD with small entries and trimmed from its head, and
// what a user then sees (XADD MAXLEN ~ 1000 keeps 1000 to 1099 entries);
// Redis starts a node early for entries past stream-node-max-bytes, which
// the model ignores.
const streamNodeEntries = 100

// XAddArgs are XADD's options.
type XAddArgs struct {
	NoMkStream bool
	// ID is the explicit ID when IDGiven ("*" otherwise); with SeqGiven
	// false it is "ms-*" (ID.Ms given, the sequence chosen).
	ID                StreamID
	IDGiven, SeqGiven bool
	Trim              StreamTrim
}

// loadStream loads key expecting a stream, at the engine's clock.
func (d *DB) loadStream(ks *keyState, key []byte) error {
	return d.loadType(ks, key, metadata.TypeStream, d.e.now())
}

// entryKey is the sub-key of the entry id of the stream ks.
func (ks *keyState) entryKey(id StreamID) []byte {
	return subkey.AppendStreamEntryKey(nil, ks.m.UID, id.Ms, id.Seq)
}

// liveFrom is where a walk of the live stream ks's entries starts: its
// first entry's key, or lower when it is empty.
func (ks *keyState) liveFrom(lower []byte) []byte {
	if ks.m.Size == 0 {
		return lower
	}
	return ks.entryKey(ks.m.Stream.FirstID)
}

// entryBounds are the bounds of every entry of uid: [lower, upper).
func entryBounds(uid uint64) (lower, upper []byte) {
	return subkey.AppendStreamKindPrefix(nil, uid, subkey.StreamEntry),
		subkey.AppendStreamKindPrefix(nil, uid, subkey.StreamEntry+1)
}

// nextStreamID is the ID XADD gives its entry: after last, from the
// explicit or partial ID of a, or from the clock.
func nextStreamID(last StreamID, a XAddArgs, nowMs int64) (StreamID, error) {
	var id StreamID
	switch {
	case !a.IDGiven:
		if ms := uint64(nowMs); ms > last.Ms {
			return StreamID{Ms: ms}, nil
		}
		id = last
		if id.Seq == math.MaxUint64 {
			id.Ms, id.Seq = id.Ms+1, 0 // last is not MaxStreamID: the caller checked
		} else {
			id.Seq++
		}
		return id, nil
	case a.SeqGiven:
		id = a.ID
	case a.ID.Ms == last.Ms:
		if last.Seq == math.MaxUint64 {
			return id, ErrStreamIDTooSmall
		}
		id = StreamID{Ms: last.Ms, Seq: last.Seq + 1}
	default:
		id = StreamID{Ms: a.ID.Ms}
	}
	if id.Compare(last) <= 0 {
		return id, ErrStreamIDTooSmall
	}
	return id, nil
}

// XAdd is XADD: it adds an entry of items (fields and values alternating)
// to key, then trims as a.Trim says. added is false when NOMKSTREAM found
// no stream. trimmed is the number of entries the trim removed.
func (d *DB) XAdd(key []byte, a XAddArgs, items [][]byte) (id StreamID, added bool, trimmed int64, err error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	if err := d.loadStream(ks, key); err != nil {
		return id, false, 0, err
	}
	if !ks.live && a.NoMkStream {
		return id, false, 0, nil
	}
	var last StreamID // an expired stream's record is still in ks.m
	if ks.live {
		last = ks.m.Stream.LastID
	}
	if last == MaxStreamID {
		return id, false, 0, ErrStreamExhausted
	}
	if id, err = nextStreamID(last, a, d.e.now()); err != nil {
		return id, false, 0, err
	}
	err = d.write(func(b *store.Batch) error {
		if !ks.live {
			if err := ks.create(b, metadata.TypeStream); err != nil {
				return err
			}
		}
		sm := &ks.m.Stream
		ks.m.Size++
		sm.EntriesAdded++
		sm.LastID = id
		if ks.m.Size == 1 {
			sm.FirstID = id
		}
		// The trim reads the stored entries, and counts the new one as
		// their last: a group's reader could see it once put.
		var keepNew bool
		trimmed, keepNew, err = d.trimStream(b, ks, a.Trim, &id)
		if err != nil {
			return err
		}
		if keepNew {
			var buf [64]byte
			b.Put(store.CFSubkey, ks.entryKey(id), subkey.AppendStreamValue(buf[:0], items))
		}
		ks.save(b)
		return nil
	})
	if err == nil && trimmed > 0 {
		d.fact(KeyTrimmed, key)
	}
	d.checkSize(key)
	return id, err == nil, trimmed, err
}

// trimBatchDeletes is the most entries a trim removes with one delete
// each; a longer run goes with one range deletion, O(1) to write (a trim
// reads the keys of what it removes anyway, to count them and find where
// to cut). It is high on purpose: every range tombstone in a memtable
// costs each read of the CF that builds an iterator until it is flushed,
// so trims of the size "~" makes (whole nodes, at most its default LIMIT
// of 10000) keep to point deletes, and a range is for the big XTRIM.
const trimBatchDeletes = 10000

// trimStream trims the live stream ks in b as t says, and updates its
// size and first ID. pending, when not nil, is an entry being added: the
// last entry, not stored yet; keepNew reports whether it survives the trim.
// It reads only the entries it removes, and the first it keeps.
func (d *DB) trimStream(b *store.Batch, ks *keyState, t StreamTrim, pending *StreamID) (removed int64, keepNew bool, err error) {
	keepNew = pending != nil
	size := ks.m.Size // pending included
	if t.Strategy == TrimNone || size == 0 {
		return 0, keepNew, nil
	}
	stored := size
	if pending != nil {
		stored--
	}
	// The node model (streamNodeEntries): the position of the first live
	// entry, counted from the first ever added, and so the entries of the
	// first node.
	var pos uint64
	if ks.m.Stream.EntriesAdded > size {
		pos = ks.m.Stream.EntriesAdded - size
	}
	nodeLeft := streamNodeEntries - pos%streamNodeEntries
	// Cheap refusals first: XADD MAXLEN ~ n runs them on every call.
	switch {
	case t.Strategy == TrimMaxLen && size <= t.MaxLen:
		return 0, keepNew, nil
	case t.Strategy == TrimMaxLen && t.Approx && (size-min(nodeLeft, size) < t.MaxLen || t.Limit > 0 && min(nodeLeft, size) > uint64(t.Limit)):
		return 0, keepNew, nil // not even the first node may go
	case t.Strategy == TrimMinID && ks.m.Stream.FirstID.Compare(t.MinID) >= 0:
		return 0, keepNew, nil
	}
	var n uint64       // entries decided to go: the first n
	var nodeRun uint64 // entries of the current node seen, with Approx
	var stop bool      // nothing more goes
	// consider decides on the next entry, id, in ID order: whether it goes
	// or, with Approx, when it ends a node, whether the node goes.
	consider := func(id StreamID) {
		if !t.Approx {
			switch t.Strategy {
			case TrimMaxLen:
				stop = size-n <= t.MaxLen
			case TrimMinID:
				stop = id.Compare(t.MinID) >= 0
			}
			if !stop {
				n++
			}
			return
		}
		nodeRun++
		if nodeRun < nodeLeft && n+nodeRun < size {
			return // not the node's last entry
		}
		switch {
		case t.Limit > 0 && n+nodeRun > uint64(t.Limit):
			stop = true
		case t.Strategy == TrimMaxLen:
			stop = size-n-nodeRun < t.MaxLen
		case t.Strategy == TrimMinID:
			stop = id.Compare(t.MinID) >= 0
		}
		if !stop {
			n += nodeRun
			nodeRun, nodeLeft = 0, streamNodeEntries
		}
	}
	lower, upper := entryBounds(ks.m.UID)
	// The walk starts at the first live entry: the ones trimmed before
	// leave tombstones until compaction, which a walk from the start of
	// the range would step over one by one, every time.
	from := ks.liveFrom(lower)
	var seen uint64
	var firstKept, nodeFirst []byte // sub-keys: the first stored entry kept; the current node's first
	err = d.iterate(store.CFSubkey, from, upper, false, func(k, _ []byte) (bool, error) {
		_, ms, seq, err := subkey.DecodeStreamEntryKey(k)
		if err != nil {
			return false, err
		}
		if nodeRun == 0 {
			nodeFirst = append(nodeFirst[:0], k...)
		}
		seen++
		consider(StreamID{Ms: ms, Seq: seq})
		if stop {
			firstKept = nodeFirst
			if !t.Approx {
				firstKept = append([]byte(nil), k...)
			}
		}
		return !stop, nil
	})
	if err != nil {
		return 0, keepNew, fmt.Errorf("stream %q: %w", ks.key, err)
	}
	if !stop && seen != stored {
		return 0, keepNew, fmt.Errorf("stream %q: %d entries stored, size says %d: %w", ks.key, seen, stored, metadata.ErrCorrupt)
	}
	if pending != nil && !stop {
		if nodeRun == 0 {
			nodeFirst = nil // the pending entry starts a node: no stored entry of it stays
		}
		consider(*pending)
		keepNew = stop
		if stop && n < stored {
			// The node that stays began among the stored entries.
			firstKept = nodeFirst
		}
	}
	// The first n entries go: stored ones, and the pending one when n
	// reaches it.
	goStored := min(n, stored)
	switch {
	case goStored == 0:
	case goStored > trimBatchDeletes:
		end := upper
		if goStored < stored {
			end = firstKept
		}
		if bytes.Compare(end, lower) <= 0 {
			// A bug: a range the other way round fails the whole batch.
			return 0, keepNew, fmt.Errorf("stream %q: trim of %d entries found no entry to keep: %w", ks.key, goStored, metadata.ErrCorrupt)
		}
		b.DeleteRange(store.CFSubkey, lower, end)
	default:
		var k uint64
		err = d.rd.Iterate(store.CFSubkey, from, upper, false, func(key, _ []byte) bool {
			b.Delete(store.CFSubkey, key)
			k++
			return k < goStored
		})
		if err != nil {
			return 0, keepNew, err
		}
	}
	ks.m.Size -= n
	switch {
	case n == 0:
	case ks.m.Size == 0:
		ks.m.Stream.FirstID = StreamID{}
	case goStored < stored:
		_, ms, seq, _ := subkey.DecodeStreamEntryKey(firstKept)
		ks.m.Stream.FirstID = StreamID{Ms: ms, Seq: seq}
	default:
		ks.m.Stream.FirstID = *pending // every stored entry went, the new one stays
	}
	return int64(n), keepNew, nil
}

// XTrim is XTRIM: the number of entries removed.
func (d *DB) XTrim(key []byte, t StreamTrim) (int64, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	if err := d.loadStream(ks, key); err != nil || !ks.live {
		return 0, err
	}
	var n int64
	err := d.write(func(b *store.Batch) error {
		var err error
		if n, _, err = d.trimStream(b, ks, t, nil); err != nil || n == 0 {
			return err
		}
		ks.save(b)
		return nil
	})
	d.checkSize(key)
	return n, err
}

// XLen is XLEN.
func (d *DB) XLen(key []byte) (int64, error) { return d.card(key, metadata.TypeStream) }

// XDel is XDEL: it removes the entries of the IDs that parse returns that
// exist (repeats count once) and returns how many it removed. parse runs
// once the key is found a stream, as Redis reads XDEL's IDs only then. The
// stream stays, empty or not.
func (d *DB) XDel(key []byte, parse func() ([]StreamID, error)) (int64, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	if err := d.loadStream(ks, key); err != nil || !ks.live {
		return 0, err
	}
	ids, err := parse()
	if err != nil {
		return 0, err
	}
	seen := make(map[StreamID]bool, len(ids))
	var uniq []StreamID
	var skeys [][]byte
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			uniq = append(uniq, id)
			skeys = append(skeys, ks.entryKey(id))
		}
	}
	_, found, err := d.rd.MultiGet(store.CFSubkey, skeys)
	if err != nil {
		return 0, err
	}
	var removed int64
	firstGone := false
	sm := &ks.m.Stream
	for i, id := range uniq {
		if !found[i] {
			continue
		}
		removed++
		firstGone = firstGone || id == sm.FirstID
		if id.Compare(sm.MaxDeletedID) > 0 {
			sm.MaxDeletedID = id
		}
	}
	if removed == 0 {
		return 0, nil
	}
	ks.m.Size -= uint64(removed)
	switch {
	case ks.m.Size == 0:
		sm.FirstID = StreamID{}
	case firstGone:
		// The new first entry is the first stored one not removed.
		lower, upper := entryBounds(ks.m.UID)
		lower = ks.entryKey(sm.FirstID)
		err = d.iterate(store.CFSubkey, lower, upper, false, func(k, _ []byte) (bool, error) {
			_, ms, seq, err := subkey.DecodeStreamEntryKey(k)
			if err != nil {
				return false, err
			}
			id := StreamID{Ms: ms, Seq: seq}
			if seen[id] {
				return true, nil
			}
			sm.FirstID = id
			return false, nil
		})
		if err != nil {
			return 0, fmt.Errorf("xdel %q: %w", key, err)
		}
	}
	err = d.write(func(b *store.Batch) error {
		for i := range uniq {
			if found[i] {
				b.Delete(store.CFSubkey, skeys[i])
			}
		}
		ks.save(b)
		return nil
	})
	d.checkSize(key)
	return removed, err
}

// XRange is XRANGE and XREVRANGE: the entries from start to end, both
// included, at most count of them (0 = all), in ID order or, with rev, in
// reverse. A missing key has none.
func (d *DB) XRange(key []byte, start, end StreamID, count int64, rev bool) ([]StreamEntry, error) {
	unlock := d.lock(key)
	defer func() { unlock() }()
	ks := &keyState{}
	if err := d.loadStream(ks, key); err != nil || !ks.live {
		return nil, err
	}
	return d.streamRange(ks, start, end, count, rev, &unlock)
}

// streamRange reads the entries of the live stream ks from start to end,
// included: at most count (0 = all), in reverse with rev. It reads through
// walkView, so a long range lets the key's lock go.
func (d *DB) streamRange(ks *keyState, start, end StreamID, count int64, rev bool, unlock *store.Unlock) ([]StreamEntry, error) {
	// Nothing lies before the first entry but tombstones of trimmed ones.
	if start.Compare(ks.m.Stream.FirstID) < 0 {
		start = ks.m.Stream.FirstID
	}
	if start.Compare(end) > 0 || ks.m.Size == 0 {
		return []StreamEntry{}, nil
	}
	records := ks.m.Size
	if count > 0 && uint64(count) < records {
		records = uint64(count)
	}
	v, done := d.walkView(records, unlock)
	defer done()
	lower := ks.entryKey(start)
	upper := append(ks.entryKey(end), 0) // the successor of end's key: end included
	out := make([]StreamEntry, 0, min(records, 1024))
	err := v.iterate(store.CFSubkey, lower, upper, rev, func(k, val []byte) (bool, error) {
		_, ms, seq, err := subkey.DecodeStreamEntryKey(k)
		if err != nil {
			return false, err
		}
		// One copy of the value, which the items alias: val is valid
		// only during the call.
		items, err := subkey.DecodeStreamValue(nil, bytes.Clone(val))
		if err != nil {
			return false, err
		}
		out = append(out, StreamEntry{ID: StreamID{Ms: ms, Seq: seq}, Items: items})
		return count <= 0 || int64(len(out)) < count, nil
	})
	if err != nil {
		return nil, fmt.Errorf("stream %q: %w", ks.key, err)
	}
	return out, nil
}

// StreamLastID is what XREAD's "$" reads: the stream's last ID, 0-0 for a
// missing key; ErrWrongType for another type.
func (d *DB) StreamLastID(key []byte) (StreamID, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	if err := d.loadStream(ks, key); err != nil || !ks.live {
		return StreamID{}, err
	}
	return ks.m.Stream.LastID, nil
}

// XReadStream is one stream's part of XREAD's reply.
type XReadStream struct {
	Key     []byte
	Entries []StreamEntry
}

// XRead is XREAD without BLOCK: for each key in turn, up to count entries
// (0 = all) after the ID of the same index. Keys that are missing or have
// nothing after their ID are left out; ErrWrongType for a key of another
// type.
func (d *DB) XRead(keys [][]byte, after []StreamID, count int64) ([]XReadStream, error) {
	var out []XReadStream
	for i, key := range keys {
		if after[i] == MaxStreamID {
			continue // nothing is after it
		}
		start := after[i]
		if start.Seq == math.MaxUint64 {
			start = StreamID{Ms: start.Ms + 1}
		} else {
			start.Seq++
		}
		entries, err := d.XRange(key, start, MaxStreamID, count, false)
		if err != nil {
			return nil, err
		}
		if len(entries) > 0 {
			out = append(out, XReadStream{Key: key, Entries: entries})
		}
	}
	return out, nil
}

// XSetID is XSETID: it sets the stream's last ID and, when entriesAdded
// >= 0, its entries-added counter, and, when maxDeleted is not 0-0, its max
// deleted ID. ErrNoSuchKey for a missing key.
func (d *DB) XSetID(key []byte, id StreamID, entriesAdded int64, maxDeleted StreamID) error {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	if err := d.loadStream(ks, key); err != nil {
		return err
	}
	if !ks.live {
		return ErrNoSuchKey
	}
	// Redis 7.0 does not compare id with the max deleted ID it has (only
	// with the one given): XSETID may set a last ID below it.
	sm := &ks.m.Stream
	if ks.m.Size > 0 {
		last, ok, err := d.lastEntry(ks)
		if err != nil {
			return err
		}
		if ok && id.Compare(last.ID) < 0 {
			return ErrSetIDBelowTop
		}
		if entriesAdded >= 0 && ks.m.Size > uint64(entriesAdded) {
			return ErrSetIDEntriesAdded
		}
	}
	sm.LastID = id
	if entriesAdded >= 0 {
		sm.EntriesAdded = uint64(entriesAdded)
	}
	if !maxDeleted.IsZero() {
		sm.MaxDeletedID = maxDeleted
	}
	return d.write(func(b *store.Batch) error {
		if ks.unchanged() {
			// Redis notifies (and propagates) every XSETID, even one
			// that sets what is there: the write must not be empty.
			b.Put(store.CFMeta, ks.mkey, ks.m.Append(nil))
			return nil
		}
		ks.save(b)
		return nil
	})
}

// edgeEntry reads the first (last = false) or last entry of the live
// stream ks; ok is false when it has none.
func (d *DB) edgeEntry(ks *keyState, last bool) (e StreamEntry, ok bool, err error) {
	lower, upper := entryBounds(ks.m.UID)
	err = d.iterate(store.CFSubkey, ks.liveFrom(lower), upper, last, func(k, val []byte) (bool, error) {
		_, ms, seq, err := subkey.DecodeStreamEntryKey(k)
		if err != nil {
			return false, err
		}
		// One copy of the value, which the items alias: val is valid
		// only during the call.
		items, err := subkey.DecodeStreamValue(nil, bytes.Clone(val))
		if err != nil {
			return false, err
		}
		e, ok = StreamEntry{ID: StreamID{Ms: ms, Seq: seq}, Items: items}, true
		return false, nil
	})
	if err != nil {
		return e, false, fmt.Errorf("stream %q: %w", ks.key, err)
	}
	return e, ok, nil
}

// lastEntry reads the last entry of the live stream ks.
func (d *DB) lastEntry(ks *keyState) (StreamEntry, bool, error) { return d.edgeEntry(ks, true) }

// StreamInfo is what XINFO STREAM reports.
type StreamInfo struct {
	Length uint64
	// Nodes is the number of macro nodes Redis would hold the entries in,
	// by the model of streamNodeEntries (radix-tree-keys).
	Nodes  uint64
	Header metadata.StreamMeta
	// First and Last are the first and last entries (nil when empty);
	// without full.
	First, Last *StreamEntry
	// Entries are the first entries, with full.
	Entries []StreamEntry
}

// XInfoStream is XINFO STREAM: with full, the first count entries (0 =
// all) instead of the first and last. ok is false for a missing key.
func (d *DB) XInfoStream(key []byte, full bool, count int64) (info StreamInfo, ok bool, err error) {
	unlock := d.lock(key)
	defer func() { unlock() }()
	ks := &keyState{}
	if err := d.loadStream(ks, key); err != nil || !ks.live {
		return info, false, err
	}
	info.Length, info.Header = ks.m.Size, ks.m.Stream
	if size := ks.m.Size; size > 0 {
		var pos uint64
		if ks.m.Stream.EntriesAdded > size {
			pos = ks.m.Stream.EntriesAdded - size
		}
		info.Nodes = (pos+size-1)/streamNodeEntries - pos/streamNodeEntries + 1
	}
	if full {
		info.Entries, err = d.streamRange(ks, StreamID{}, MaxStreamID, count, false, &unlock)
		return info, true, err
	}
	for _, last := range []bool{false, true} {
		e, found, err := d.edgeEntry(ks, last)
		if err != nil {
			return info, true, err
		}
		if found {
			if last {
				info.Last = &e
			} else {
				info.First = &e
			}
		}
	}
	return info, true, nil
}
