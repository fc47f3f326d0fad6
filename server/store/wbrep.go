package store

import (
	"encoding/binary"
	"fmt"
)

// batchRep builds a RocksDB write batch in Go memory, in RocksDB's own
// serialized form (the one its WAL records), so that adding a write to a
// batch costs no cgo call, and the batches of concurrent commands can be
// joined by appending bytes before one DB.Write (see writeQueue).
//
// Layout (RocksDB db/write_batch.cc, stable across releases since it is
// the WAL format):
//
//	header:  sequence fixed64 LE (0 here; RocksDB sets it) · count fixed32 LE
//	records: tag u8 · [cf id varint32, when cf != 0] · key varstring · [value varstring]
//
// A varstring is a varint32 length and the bytes. The tags used here:
// RocksDB's ValueType values, on-disk, never renumbered.
type batchRep struct {
	buf   []byte
	count uint32
}

const (
	repHeader = 12

	tagDeletion         = 0x0 // key, default CF
	tagValue            = 0x1 // key, value, default CF
	tagMerge            = 0x2 // key, value, default CF
	tagLogData          = 0x3 // blob: in the log only, no sequence number
	tagCFDeletion       = 0x4 // cf, key
	tagCFValue          = 0x5 // cf, key, value
	tagCFMerge          = 0x6 // cf, key, value
	tagCFRangeDeletion  = 0xE // cf, begin, end
	tagRangeDeletion    = 0xF // begin, end, default CF
	defaultColumnFamily = 0
)

func (r *batchRep) start(tag, cfTag byte, cf uint32) {
	if len(r.buf) == 0 {
		r.buf = append(r.buf, make([]byte, repHeader)...)
	}
	if cf == defaultColumnFamily {
		r.buf = append(r.buf, tag)
	} else {
		r.buf = append(r.buf, cfTag)
		r.buf = binary.AppendUvarint(r.buf, uint64(cf))
	}
	r.count++
}

// varstring appends b as a varstring and returns where b's bytes start in
// r.buf.
func (r *batchRep) varstring(b []byte) int {
	r.buf = binary.AppendUvarint(r.buf, uint64(len(b)))
	at := len(r.buf)
	r.buf = append(r.buf, b...)
	return at
}

// put appends a Put record and returns where its key and value start in
// r.buf.
func (r *batchRep) put(cf uint32, key, val []byte) (keyAt, valAt int) {
	r.start(tagValue, tagCFValue, cf)
	keyAt = r.varstring(key)
	valAt = r.varstring(val)
	return keyAt, valAt
}

// delete appends a Delete record and returns where its key starts in r.buf.
func (r *batchRep) delete(cf uint32, key []byte) (keyAt int) {
	r.start(tagDeletion, tagCFDeletion, cf)
	return r.varstring(key)
}

func (r *batchRep) merge(cf uint32, key, val []byte) {
	r.start(tagMerge, tagCFMerge, cf)
	r.varstring(key)
	r.varstring(val)
}

func (r *batchRep) deleteRange(cf uint32, begin, end []byte) {
	r.start(tagRangeDeletion, tagCFRangeDeletion, cf)
	r.varstring(begin)
	r.varstring(end)
}

// records returns the records, without the header: what joins another
// batch's.
func (r *batchRep) records() []byte {
	if len(r.buf) == 0 {
		return nil
	}
	return r.buf[repHeader:]
}

// appendRecords adds another batch's records and count.
func (r *batchRep) appendRecords(recs []byte, count uint32) {
	if count == 0 {
		return
	}
	if len(r.buf) == 0 {
		r.buf = append(r.buf, make([]byte, repHeader)...)
	}
	r.buf = append(r.buf, recs...)
	r.count += count
}

// bytes returns the whole serialized batch, header included.
func (r *batchRep) bytes() []byte {
	if len(r.buf) == 0 {
		r.buf = append(r.buf, make([]byte, repHeader)...)
	}
	clear(r.buf[:8])
	binary.LittleEndian.PutUint32(r.buf[8:repHeader], r.count)
	return r.buf
}

// repMark is a point a batch can roll back to.
type repMark struct {
	size  int
	count uint32
}

func (r *batchRep) mark() repMark { return repMark{len(r.buf), r.count} }

func (r *batchRep) rollback(m repMark) { r.buf, r.count = r.buf[:m.size], m.count }

func (r *batchRep) reset() { r.buf, r.count = r.buf[:0], 0 }

// logData appends a log-data record: a blob RocksDB keeps in the write-ahead
// log and not in the tables. It takes no sequence number, so it is not
// counted.
func (r *batchRep) logData(blob []byte) {
	if len(r.buf) == 0 {
		r.buf = append(r.buf, make([]byte, repHeader)...)
	}
	r.buf = append(r.buf, tagLogData)
	r.varstring(blob)
}

// repRecord is one record of a serialized batch, as spans of it: key holds
// a log-data record's blob and a range deletion's begin, val its end.
type repRecord struct {
	tag      byte
	cf       uint32 // RocksDB's id
	key, val keySpan
}

// rangeDelete reports whether r deletes a range.
func (r repRecord) rangeDelete() bool {
	return r.tag == tagRangeDeletion || r.tag == tagCFRangeDeletion
}

// readRecord reads the record at rep[at:] and returns it and the offset
// after it; it fails on a record of a type Shale never writes.
func readRecord(rep []byte, at int) (repRecord, int, error) {
	r := repRecord{tag: rep[at], cf: defaultColumnFamily}
	p := at + 1
	switch r.tag {
	case tagCFDeletion, tagCFValue, tagCFMerge, tagCFRangeDeletion:
		id, n := binary.Uvarint(rep[p:])
		if n <= 0 || id > 1<<32-1 {
			return r, 0, errBadRep
		}
		r.cf, p = uint32(id), p+n
	case tagDeletion, tagValue, tagMerge, tagRangeDeletion, tagLogData:
	default:
		return r, 0, fmt.Errorf("%w: record type %#x", errBadRep, r.tag)
	}
	var ok bool
	if r.key, p, ok = readVarstring(rep, p); !ok {
		return r, 0, errBadRep
	}
	switch r.tag {
	case tagValue, tagMerge, tagCFValue, tagCFMerge, tagRangeDeletion, tagCFRangeDeletion:
		if r.val, p, ok = readVarstring(rep, p); !ok {
			return r, 0, errBadRep
		}
	}
	return r, p, nil
}

// readVarstring reads a varstring at rep[p:]: where its bytes lie, and
// the offset after it.
func readVarstring(rep []byte, p int) (keySpan, int, bool) {
	n, w := binary.Uvarint(rep[p:])
	if w <= 0 || uint64(len(rep)-p-w) < n {
		return keySpan{}, 0, false
	}
	return keySpan{at: p + w, n: int(n)}, p + w + int(n), true
}

// walkRep calls fn for each record of the serialized batch rep, in order.
func walkRep(rep []byte, fn func(repRecord) error) error {
	if len(rep) < repHeader {
		return errBadRep
	}
	for at := repHeader; at < len(rep); {
		r, next, err := readRecord(rep, at)
		if err != nil {
			return err
		}
		if err := fn(r); err != nil {
			return err
		}
		at = next
	}
	return nil
}
