package types

import (
	"github.com/shaledb/shale/metadata"
	"github.com/shaledb/shale/subkey"
)

// recordOverhead is what RocksDB adds to each record's key and value: the
// 8-byte trailer (sequence number and kind) of its internal key.
const recordOverhead = 8

// MemoryUsage is MEMORY USAGE: an estimate of the bytes key's records take
// in RocksDB, keys and values as written (before compression, and without
// the index and filter blocks that cover them), each with recordOverhead.
// They are the metadata record, its expiry-index record if the key has a
// TTL, and for a hash, list, set or sorted set the bookkeeping record and
// one record per element (two for a sorted set: member and score). As
// Redis, it reads the first samples elements and extrapolates their
// average to the whole key; samples 0 reads every element. ok is false for
// a missing key.
func (d *DB) MemoryUsage(key []byte, samples int64) (n int64, ok bool, err error) {
	unlock := d.lock(key)
	defer func() { unlock() }()
	ks := &keyState{}
	if err := d.load(ks, key, d.e.now()); err != nil || !ks.live {
		return 0, false, err
	}
	m := ks.m
	n = int64(len(ks.mkey)+len(m.Append(nil))) + recordOverhead
	if m.ExpireMs != 0 {
		ek := metadata.ExpireKey{ExpireMs: m.ExpireMs, DB: ks.phys, Key: key}
		n += int64(len(ek.Append(nil))) + recordOverhead
	}
	if !m.OwnsUID() || m.Size == 0 {
		return n, true, nil
	}
	book := metadata.Book{Type: m.Type, DB: ks.phys, Key: key}
	n += int64(len(metadata.AppendBookKey(nil, m.UID))+len(book.Append(nil))) + recordOverhead
	if m.Frag {
		// Counted as if every fragment were written: a sparse bitmap's
		// missing ones cost nothing, but finding them would read it all.
		return n + int64(m.Size) + int64(fragCount(m.Size))*(int64(len(subkey.AppendFragKey(nil, 0, 0)))+recordOverhead), true, nil
	}
	want := m.Size
	if samples > 0 && uint64(samples) < want {
		want = uint64(samples)
	}
	v, done := d.walkView(want, &unlock)
	defer done()
	prefix := int64(len(subkey.AppendPrefix(nil, m.UID)))
	var read, bytes uint64
	err = v.iterSub(m.UID, func(sub, val []byte) bool {
		size := prefix + int64(len(sub)+len(val)) + recordOverhead
		if m.Type == metadata.TypeZSet {
			// The score record: | uid | score 8 | member |, no value.
			size += prefix + 8 + int64(len(sub)) + recordOverhead
		}
		bytes += uint64(size)
		read++
		return read < want
	})
	if err != nil || read == 0 {
		return n, true, err
	}
	// Redis's (double)elesize/samples*size, truncated.
	return n + int64(float64(bytes)/float64(read)*float64(m.Size)), true, nil
}
