package types

import (
	"github.com/shaledb/shale/metadata"
	"github.com/shaledb/shale/server/store"
	"github.com/shaledb/shale/subkey"
)

// Fragmented strings (docs/ENCODING.md, "Fragmented strings"). A string a
// bit command (SETBIT, BITFIELD, BITOP) makes longer than fragThreshold is
// stored in subkey.FragBytes fragments under a uid of its own, with a
// bookkeeping record as a collection's, and its length in its Meta record
// (Meta.Frag, Meta.Size): a SETBIT then reads and writes one fragment, a
// missing fragment reads as zeros (a fresh SETBIT at bit 2^32-1 writes one
// fragment, not 512 MiB), DEL and overwrites drop the bookkeeping record in
// O(1) and the compaction filters reclaim the fragments. Any other write
// (SET, APPEND, SETRANGE, INCR...) reads the value whole and stores it
// whole again; reads that need the whole value (GET) assemble it.

// fragThreshold is the length past which a bit command stores a string in
// fragments: one fragment. Below it a whole record is cheaper to rewrite
// than fragments are to seek.
const fragThreshold = subkey.FragBytes

// fragCount is how many fragment records a fragmented string of size bytes
// may have: what its removal leaves to the filters.
func fragCount(size uint64) uint64 { return (size + subkey.FragBytes - 1) / subkey.FragBytes }

// ownedRecords is how many sub-key records m's uid may own, which decides
// whether its removal queues a targeted compaction.
func ownedRecords(m metadata.Meta) uint64 {
	if m.Type == metadata.TypeString {
		return fragCount(m.Size)
	}
	return m.Size
}

// fragRange returns bytes [off, off+n) of the fragmented string ks holds,
// cut at its length; zeros where it has no fragment. It reads only the
// fragments of the range.
func (ks *keyState) fragRange(off, n uint64) ([]byte, error) {
	if off >= ks.m.Size || n == 0 {
		return []byte{}, nil
	}
	n = min(n, ks.m.Size-off)
	out := make([]byte, n)
	first, last := off/subkey.FragBytes, (off+n-1)/subkey.FragBytes
	lower := subkey.AppendFragKey(nil, ks.m.UID, first)
	upper := subkey.AppendFragKey(nil, ks.m.UID, last+1)
	var derr error
	err := ks.db.rd.Iterate(store.CFSubkey, lower, upper, false, func(k, v []byte) bool {
		_, idx, err := subkey.DecodeFragKey(k)
		if err != nil {
			derr = err
			return false
		}
		base := idx * subkey.FragBytes
		lo, hi := max(base, off), min(base+uint64(len(v)), off+n)
		if lo < hi {
			copy(out[lo-off:], v[lo-base:hi-base])
		}
		return true
	})
	if err == nil {
		err = derr
	}
	return out, err
}

// eachRange calls fn on the bytes [off, off+n) of the live string ks
// holds, cut at its length, in order, until fn returns false: chunk holds
// the bytes from base on, or is nil for a run of zeros bytes from base on
// (fragments with no record). It reads only the fragments of the range and
// allocates nothing per byte: a BITCOUNT of a sparse 512 MiB bitmap reads
// its few fragments.
func (ks *keyState) eachRange(off, n uint64, fn func(base uint64, chunk []byte, zeros uint64) bool) error {
	size := ks.stringLen()
	if off >= size || n == 0 {
		return nil
	}
	end := off + min(n, size-off)
	if !ks.m.Frag {
		fn(off, ks.m.Value[off:end], 0)
		return nil
	}
	lower := subkey.AppendFragKey(nil, ks.m.UID, off/subkey.FragBytes)
	upper := subkey.AppendFragKey(nil, ks.m.UID, (end-1)/subkey.FragBytes+1)
	next, more := off, true // the first byte not yet given to fn
	var derr error
	err := ks.db.rd.Iterate(store.CFSubkey, lower, upper, false, func(k, v []byte) bool {
		_, idx, err := subkey.DecodeFragKey(k)
		if err != nil {
			derr = err
			return false
		}
		base := idx * subkey.FragBytes
		lo, hi := max(base, off), min(base+uint64(len(v)), end)
		if lo >= hi {
			return true
		}
		if lo > next {
			if more = fn(next, nil, lo-next); !more {
				return false
			}
		}
		more = fn(lo, v[lo-base:hi-base], 0)
		next = hi
		return more
	})
	if err == nil {
		err = derr
	}
	if err == nil && more && next < end {
		fn(next, nil, end-next)
	}
	return err
}

// stringRange returns bytes [off, off+n) of the live string ks holds, cut
// at its length, reading only that range of a fragmented one.
func (ks *keyState) stringRange(off, n uint64) ([]byte, error) {
	if ks.m.Frag {
		return ks.fragRange(off, n)
	}
	v := ks.m.Value
	if off >= uint64(len(v)) {
		return []byte{}, nil
	}
	return v[off : off+min(n, uint64(len(v))-off)], nil
}

// stringLen is the length of the live string ks holds.
func (ks *keyState) stringLen() uint64 {
	if ks.m.Frag {
		return ks.m.Size
	}
	return uint64(len(ks.m.Value))
}

// dropFrags gives up the fragments of the fragmented string ks holds, in
// b, before the key is stored whole: its bookkeeping record goes, so the
// filters reclaim them. No fact: the key lives on.
func (ks *keyState) dropFrags(b *store.Batch) {
	if !ks.m.Frag {
		return
	}
	b.Delete(store.CFBookkeeping, metadata.AppendBookKey(nil, ks.m.UID))
	if int64(fragCount(ks.m.Size)) >= ks.db.st.ReclaimMinElements() {
		b.Reclaim(ks.m.UID)
	}
	ks.m.Frag, ks.m.UID, ks.m.Size = false, 0, 0
}

// fragBits is a string's bytes as SETBIT and BITFIELD change them when it
// is, or becomes, fragmented: the fragments they touch, loaded on demand
// (from the store, or from the whole value being converted), and written
// back by flush.
type fragBits struct {
	ks        *keyState
	fromStore bool   // the key is a live fragmented string: fragments are read from the store
	whole     []byte // else the whole value being converted (nil: none)
	size      uint64 // the value's length, grown by the writes
	frags     map[uint64][]byte
	dirty     map[uint64]bool
	err       error // the first read error
}

// frag returns fragment idx, FragBytes long, loading it.
func (f *fragBits) frag(idx uint64) []byte {
	if p, ok := f.frags[idx]; ok {
		return p
	}
	p := make([]byte, subkey.FragBytes)
	base := idx * subkey.FragBytes
	switch {
	case f.fromStore:
		v, ok, err := f.ks.db.rd.Get(store.CFSubkey, subkey.AppendFragKey(nil, f.ks.m.UID, idx))
		if err != nil && f.err == nil {
			f.err = err
		}
		if ok {
			copy(p, v)
		}
	case base < uint64(len(f.whole)):
		copy(p, f.whole[base:])
	}
	f.frags[idx] = p
	return p
}

func (f *fragBits) bit(off uint64) bool {
	if off>>3 >= f.size {
		return false
	}
	return f.frag(off >> 3 / subkey.FragBytes)[off>>3%subkey.FragBytes]&(0x80>>(off&7)) != 0
}

func (f *fragBits) setBit(off uint64, on bool) {
	idx := off >> 3 / subkey.FragBytes
	p := f.frag(idx)
	mask := byte(0x80) >> (off & 7)
	if on {
		p[off>>3%subkey.FragBytes] |= mask
	} else {
		p[off>>3%subkey.FragBytes] &^= mask
	}
	f.dirty[idx] = true
}

// startFrags readies f to read or change the string ks holds as a
// fragmented string of size bytes: its fragments when it is a live
// fragmented string, else whole (its whole value; nil when missing), which
// is converted: every fragment of it is written (by flush).
func (ks *keyState) startFrags(whole []byte, size uint64) *fragBits {
	f := &fragBits{ks: ks, size: size, frags: map[uint64][]byte{}, dirty: map[uint64]bool{}}
	f.fromStore = ks.live && ks.m.Type == metadata.TypeString && ks.m.Frag
	if !f.fromStore {
		f.whole = whole
		for idx := uint64(0); idx < fragCount(uint64(len(whole))); idx++ {
			f.frag(idx)
			f.dirty[idx] = true
		}
	}
	return f
}

// flush stores f in b: the key (created when missing, converted when
// whole, with a fresh uid and its bookkeeping record then), its Meta
// record and the changed fragments; a fragment of zeros alone is deleted
// rather than written. expire is the key's TTL.
func (f *fragBits) flush(b *store.Batch, expire int64) error {
	ks := f.ks
	if f.err != nil {
		return f.err
	}
	if !ks.live || ks.m.Type != metadata.TypeString {
		if err := ks.create(b, metadata.TypeString); err != nil {
			return err
		}
	}
	if !ks.m.Frag {
		uid, err := ks.db.st.NewUID()
		if err != nil {
			return err
		}
		ks.m.Frag, ks.m.UID, ks.m.Value = true, uid, nil
		b.Put(store.CFBookkeeping, metadata.AppendBookKey(nil, uid),
			metadata.Book{Type: metadata.TypeString, DB: ks.phys, Key: ks.key}.Append(nil))
	}
	ks.m.Size, ks.m.ExpireMs = f.size, expire
	for idx := range f.dirty {
		p := f.frags[idx][:min(subkey.FragBytes, f.size-idx*subkey.FragBytes)]
		skey := subkey.AppendFragKey(nil, ks.m.UID, idx)
		if allZero(p) {
			b.Delete(store.CFSubkey, skey)
		} else {
			b.Put(store.CFSubkey, skey, p)
		}
	}
	ks.save(b)
	return nil
}

// allZero reports whether p holds only zero bytes.
func allZero(p []byte) bool {
	for _, c := range p {
		if c != 0 {
			return false
		}
	}
	return true
}

// storeFragmented stores val as the fragmented value of the key ks loaded
// (replacing any value), with expire: BITOP's result past fragThreshold.
func (ks *keyState) storeFragmented(b *store.Batch, val []byte, expire int64) error {
	if ks.live && ks.m.Type == metadata.TypeString {
		ks.dropFrags(b) // a fresh uid: the old fragments are garbage
	}
	if ks.m.Type == metadata.TypeString {
		ks.m.Value = nil
	}
	f := ks.startFrags(val, uint64(len(val)))
	return f.flush(b, expire)
}
