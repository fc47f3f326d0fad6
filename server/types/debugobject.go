package types

import (
	"encoding/binary"
	"math"
	"strconv"

	"github.com/shaledb/shale/metadata"
)

// DEBUG OBJECT's figures. Redis reports its in-memory object: the RDB
// length it would serialize to, and for a list the shape of its quicklist.
// Shale keeps neither, so it computes both from the elements as Redis 7.0
// would lay them out (rdb.c, listpack.c, intset.c, quicklist.c), without
// LZF compression: a listpack hash or zset, an intset and each quicklist
// node are one blob; a hashtable or skiplist is its elements one by one.
// For small values without compression the figure is Redis's exactly.

// ObjectInfo is DEBUG OBJECT's view of a key's value.
type ObjectInfo struct {
	UID   uint64 // the value's identity, where Redis shows its address; 0 for a string
	Value []byte // a string's value; nil for the other types
	// SerializedLength is the value's bytes in an RDB file, uncompressed.
	SerializedLength int64
	// Quicklist is, for a list, Redis 7.0's quicklist of its elements
	// under list-max-listpack-size; nil for the other types.
	Quicklist *QuicklistInfo
}

// QuicklistInfo is the shape of a list's quicklist.
type QuicklistInfo struct {
	Elements, Nodes int64
	Bytes           int64 // the nodes' listpacks, uncompressed
}

// DebugObject is DEBUG OBJECT: it reads every element of key, as Redis
// serializes them all. listFill is list-max-listpack-size, which shapes a
// list's quicklist. ok is false for a missing key.
func (d *DB) DebugObject(key []byte, listFill int) (info ObjectInfo, ok bool, err error) {
	unlock := d.lock(key)
	defer func() { unlock() }()
	ks := &keyState{}
	if err := d.load(ks, key, d.e.now()); err != nil || !ks.live {
		return info, false, err
	}
	if err := d.resolveEnc(ks); err != nil {
		return info, false, err
	}
	m := ks.m
	if !m.Type.Composite() {
		v, _, err := ks.stringValue() // a fragmented string's whole value
		info.Value = v
		info.SerializedLength = rdbStringLen(v)
		return info, err == nil, err
	}
	info.UID = m.UID
	var blob, elems int64 // a listpack's entries; the elements' RDB strings
	intWidth := int64(2)  // an intset's: its widest member's bytes
	ql := quicklistShape{fill: listFill}
	v, done := d.walkView(m.Size, &unlock)
	defer done()
	err = v.iterSub(m.UID, func(sub, val []byte) bool {
		switch m.Type {
		case metadata.TypeHash:
			blob += listpackEntryLen(sub) + listpackEntryLen(val)
			elems += rdbStringLen(sub) + rdbStringLen(val)
		case metadata.TypeSet:
			if n, ok := ParseInt(sub); ok {
				intWidth = max(intWidth, intsetWidth(n))
			}
			elems += rdbStringLen(sub)
		case metadata.TypeZSet:
			score := []byte(strconv.FormatFloat(zsetScore(val), 'g', 17, 64))
			blob += listpackEntryLen(sub) + listpackEntryLen(score)
			elems += rdbStringLen(sub) + 8 // the score, a binary double
		case metadata.TypeList:
			ql.add(val)
		}
		return true
	})
	switch {
	case m.Type == metadata.TypeList:
		info.Quicklist = &QuicklistInfo{Elements: int64(m.Size), Nodes: ql.nodes, Bytes: ql.bytes}
		info.SerializedLength = rdbLenLen(uint64(ql.nodes)) + ql.done()
	case m.Enc == metadata.EncListpack:
		info.SerializedLength = rdbBlobLen(listpackOverhead + blob)
	case m.Enc == metadata.EncIntset:
		info.SerializedLength = rdbBlobLen(8 + intWidth*int64(m.Size))
	default:
		info.SerializedLength = rdbLenLen(m.Size) + elems
	}
	return info, true, err
}

// zsetScore reads a sorted set's sub-key value, its member's score as
// IEEE 754 bits, big-endian; 0 if it is not 8 bytes (never, for a record
// the write path wrote).
func zsetScore(val []byte) float64 {
	if len(val) != 8 {
		return 0
	}
	return math.Float64frombits(binary.BigEndian.Uint64(val))
}

// intsetWidth is the bytes an intset needs per member to hold n.
func intsetWidth(n int64) int64 {
	switch {
	case n >= math.MinInt16 && n <= math.MaxInt16:
		return 2
	case n >= math.MinInt32 && n <= math.MaxInt32:
		return 4
	}
	return 8
}

// rdbBlobLen is the bytes of a blob of n bytes saved as an RDB string.
func rdbBlobLen(n int64) int64 { return rdbLenLen(uint64(n)) + n }

// rdbLenLen is the bytes of rdbSaveLen(n).
func rdbLenLen(n uint64) int64 {
	switch {
	case n < 1<<6:
		return 1
	case n < 1<<14:
		return 2
	case n <= 1<<32-1:
		return 5
	}
	return 9
}

// rdbStringLen is the bytes of rdbSaveRawString(s) without compression: an
// integer that fits 8, 16 or 32 bits in 2, 3 or 5 bytes, else the length
// and the bytes.
func rdbStringLen(s []byte) int64 {
	if len(s) <= 11 {
		if n, ok := ParseInt(s); ok {
			switch {
			case n >= -1<<7 && n < 1<<7:
				return 2
			case n >= -1<<15 && n < 1<<15:
				return 3
			case n >= -1<<31 && n < 1<<31:
				return 5
			}
		}
	}
	return rdbLenLen(uint64(len(s))) + int64(len(s))
}

// listpack's layout: a 6-byte header and a 1-byte end around the entries.
const listpackOverhead = 7

// listpackEntryLen is the bytes of one listpack entry holding s: an
// integer in the smallest of its integer encodings, else a string with a
// 1-, 2- or 5-byte header; then the back-length of both.
func listpackEntryLen(s []byte) int64 {
	var enc int64
	if n, ok := ParseInt(s); ok {
		switch {
		case n >= 0 && n <= 127:
			enc = 1
		case n >= -4096 && n <= 4095:
			enc = 2
		case n >= -1<<15 && n < 1<<15:
			enc = 3
		case n >= -1<<23 && n < 1<<23:
			enc = 4
		case n >= -1<<31 && n < 1<<31:
			enc = 5
		default:
			enc = 9
		}
	} else {
		switch l := int64(len(s)); {
		case l < 64:
			enc = 1 + l
		case l < 4096:
			enc = 2 + l
		default:
			enc = 5 + l
		}
	}
	return enc + listpackBacklenLen(enc)
}

// listpackBacklenLen is the bytes of an entry's back-length for an entry of
// l bytes before it (lpEncodeBacklen's bounds, exclusive past the first).
func listpackBacklenLen(l int64) int64 {
	switch {
	case l <= 127:
		return 1
	case l < 16383:
		return 2
	case l < 2097151:
		return 3
	case l < 268435455:
		return 4
	}
	return 5
}

// quicklistShape lays out a list's elements in quicklist nodes as Redis
// 7.0 fills them on RPUSH: a node takes elements while it stays within
// fill (> 0: that many elements, and at most 8 KiB; -1 to -5: 4 to 64 KiB
// of listpack).
type quicklistShape struct {
	fill                int
	nodes, bytes        int64 // the nodes so far and their listpacks' bytes
	nodeCount, nodeSize int64 // the last node's elements and bytes
	saved               int64 // the RDB bytes of the nodes before the last
}

func (q *quicklistShape) add(elem []byte) {
	e := listpackEntryLen(elem)
	if q.nodes == 0 || !q.fits(e) {
		q.done()
		q.nodes++
		q.bytes += listpackOverhead
		q.nodeCount, q.nodeSize = 0, listpackOverhead
	}
	q.nodeCount++
	q.nodeSize += e
	q.bytes += e
}

// done closes the last node, and returns the RDB bytes of all the nodes:
// each its container type and its listpack as a blob.
func (q *quicklistShape) done() int64 {
	if q.nodeSize > 0 {
		q.saved += 1 + rdbBlobLen(q.nodeSize)
		q.nodeSize = 0
	}
	return q.saved
}

// fits reports whether the last node takes one more entry of e bytes.
func (q *quicklistShape) fits(e int64) bool {
	size := q.nodeSize + e
	if q.fill >= 0 {
		return q.nodeCount < int64(max(q.fill, 1)) && size <= 8<<10
	}
	return size <= 4<<10<<min(-q.fill-1, 4)
}
