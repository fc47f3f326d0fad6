package types

import (
	"encoding/binary"
	"math"
	"math/bits"

	"github.com/shaledb/shale/server/store"
)

// Bitmaps are strings, as in Redis: bit 0 is the most significant bit of
// the first byte. A bit past the end of the value reads as 0, and a write
// past it grows the value with zero bytes. The callers (the command layer)
// bound every offset by proto-max-bulk-len before it gets here. A string
// a bit command makes longer than fragThreshold is stored in fragments
// (strfrag.go), so a write touches one fragment and a growth writes
// nothing but the fragments it sets.

// bitAt is the bit at offset of v: 0 past its end.
func bitAt(v []byte, offset uint64) bool {
	i := offset >> 3
	return i < uint64(len(v)) && v[i]&(0x80>>(offset&7)) != 0
}

// growZero returns v at least n bytes long, padded with zero bytes, in a
// copy: v aliases the key's loaded record.
func growZero(v []byte, n uint64) []byte {
	out := make([]byte, max(n, uint64(len(v))))
	copy(out, v)
	return out
}

// bitStore is a value's bits as SETBIT and BITFIELD read and change them:
// wholeBits, or fragBits (strfrag.go).
type bitStore interface {
	bit(off uint64) bool
	setBit(off uint64, on bool) // off within the value
}

// wholeBits is a value stored whole.
type wholeBits []byte

func (w wholeBits) bit(off uint64) bool { return bitAt(w, off) }

func (w wholeBits) setBit(off uint64, on bool) {
	mask := byte(0x80) >> (off & 7)
	if on {
		w[off>>3] |= mask
	} else {
		w[off>>3] &^= mask
	}
}

// bitWriter is how SETBIT and BITFIELD change the live string (or missing
// key) ks holds so that it is size bytes long: in fragments when it is
// fragmented or grows past fragThreshold, else whole; commit writes the
// result in b.
func (ks *keyState) bitWriter(exists bool, size uint64) (s bitStore, commit func(b *store.Batch) error) {
	expire := int64(0)
	var whole []byte
	if exists {
		expire = ks.m.ExpireMs
		whole = ks.m.Value
	}
	if (exists && ks.m.Frag) || size > fragThreshold {
		f := ks.startFrags(whole, size)
		return f, func(b *store.Batch) error { return f.flush(b, expire) }
	}
	nv := growZero(whole, size)
	return wholeBits(nv), func(b *store.Batch) error { return ks.setStringAs(b, nv, expire, true) } // changed in place: raw
}

// SetBit is SETBIT: it sets the bit at offset to on and returns the bit's
// old value. Nothing is written when the bit already held on and the value
// did not grow; otherwise the write notes KeyBitsSet (Redis's setbit event).
func (d *DB) SetBit(key []byte, offset uint64, on bool) (bool, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	if err := d.load(ks, key, d.e.now()); err != nil {
		return false, err
	}
	ok, err := ks.isString()
	if err != nil {
		return false, err
	}
	size := uint64(0)
	if ok {
		size = ks.stringLen()
	}
	need := offset>>3 + 1
	if ok && need <= size {
		// A bit already set to on writes nothing: read its byte alone, not
		// the value a writer would copy or convert.
		cur, err := ks.stringRange(offset>>3, 1)
		if err != nil {
			return false, err
		}
		if bitAt(cur, offset&7) == on {
			return on, nil
		}
	}
	s, commit := ks.bitWriter(ok, max(size, need))
	old := s.bit(offset)
	if err := bitsErr(s); err != nil {
		return false, err
	}
	s.setBit(offset, on)
	return old, d.write(func(b *store.Batch) error {
		if err := commit(b); err != nil {
			return err
		}
		d.fact(KeyBitsSet, ks.key)
		return nil
	})
}

// GetBit is GETBIT: 0 for a missing key or an offset past the value. It
// reads one byte: one fragment of a fragmented string.
func (d *DB) GetBit(key []byte, offset uint64) (bool, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	if err := d.load(ks, key, d.e.now()); err != nil {
		return false, err
	}
	if ok, err := ks.isString(); err != nil || !ok {
		return false, err
	}
	v, err := ks.stringRange(offset>>3, 1)
	return bitAt(v, offset&7), err
}

// BitRange is the optional range of BITCOUNT and BITPOS: Start and End are
// inclusive byte indexes, or bit indexes with Bits; negative ones count
// from the end.
type BitRange struct {
	Given    bool // a range was given: without, the whole value
	Start    int64
	End      int64
	EndGiven bool // BITPOS: End was given (without, the range runs to the end)
	Bits     bool // BIT: the indexes count bits, not bytes
}

// span resolves r on a value of n bytes, as Redis 7.0 does: the first and
// last bit of the range, and ok=false when it is empty.
func (r BitRange) span(n int64) (first, last int64, ok bool) {
	if !r.Given {
		return 0, n*8 - 1, n > 0
	}
	total := n
	if r.Bits {
		total = n * 8
	}
	start, end := r.Start, r.End
	if !r.EndGiven {
		end = total - 1
	}
	if start < 0 {
		start = max(total+start, 0)
	}
	if end < 0 {
		end = max(total+end, 0)
	}
	end = min(end, total-1)
	if start > end {
		return 0, 0, false
	}
	if r.Bits {
		return start, end, true
	}
	return start * 8, end*8 + 7, true
}

// BitCount is BITCOUNT: the set bits of the range. Redis 7.0 parses the
// range only once it found the key a string, so rangeOf does that here:
// its error is the command's, and a missing key counts 0 without it.
func (d *DB) BitCount(key []byte, rangeOf func() (BitRange, error)) (int64, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	if err := d.load(ks, key, d.e.now()); err != nil {
		return 0, err
	}
	if ok, err := ks.isString(); err != nil || !ok {
		return 0, err
	}
	r, err := rangeOf()
	if err != nil {
		return 0, err
	}
	if r.Given && r.Start < 0 && r.End < 0 && r.Start > r.End {
		return 0, nil // Redis 7.0's BITCOUNT (not its BITPOS) checks this before clamping
	}
	first, last, ok := r.span(int64(ks.stringLen()))
	if !ok {
		return 0, nil
	}
	fb, lb := uint64(first)>>3, uint64(last)>>3 // only the range's bytes are read
	n := 0
	err = ks.eachRange(fb, lb-fb+1, func(base uint64, chunk []byte, _ uint64) bool {
		if chunk != nil { // a run of zeros counts none
			lo, hi := max(uint64(first), base*8), min(uint64(last), (base+uint64(len(chunk)))*8-1)
			n += countBits(chunk, lo-base*8, hi-base*8)
		}
		return true
	})
	return int64(n), err
}

// countBits counts the set bits of v from bit first to bit last, inclusive,
// both within v.
func countBits(v []byte, first, last uint64) int {
	fb, lb := first>>3, last>>3
	head := byte(0xff) >> (first & 7)  // bits of byte fb at or after first
	tail := byte(0xff) << (7 - last&7) // bits of byte lb at or before last
	if fb == lb {
		return bits.OnesCount8(v[fb] & head & tail)
	}
	n := bits.OnesCount8(v[fb]&head) + bits.OnesCount8(v[lb]&tail)
	mid := v[fb+1 : lb]
	for len(mid) >= 8 { // a word at a time: BITCOUNT of a MiB is the common case
		n += bits.OnesCount64(binary.LittleEndian.Uint64(mid))
		mid = mid[8:]
	}
	for _, c := range mid {
		n += bits.OnesCount8(c)
	}
	return n
}

// BitPos is BITPOS: the first bit set to bit in the range, or -1. A clear
// bit is found past the value's end (at its length in bits) when no End
// was given, as Redis sees the value padded with zeros to the right.
// rangeOf parses the range once the key is found a string, as BitCount's.
func (d *DB) BitPos(key []byte, bit bool, rangeOf func() (BitRange, error)) (int64, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	if err := d.load(ks, key, d.e.now()); err != nil {
		return 0, err
	}
	ok, err := ks.isString()
	if err != nil || !ok {
		// A missing key is all zeros: its first clear bit is bit 0.
		if err == nil && !bit {
			return 0, nil
		}
		return -1, err
	}
	r, err := rangeOf()
	if err != nil {
		return 0, err
	}
	first, last, ok := r.span(int64(ks.stringLen()))
	if !ok {
		return -1, nil
	}
	pos := int64(-1)
	fb, lb := uint64(first)>>3, uint64(last)>>3 // only the range's bytes are read
	err = ks.eachRange(fb, lb-fb+1, func(base uint64, chunk []byte, zeros uint64) bool {
		b8 := int64(base) * 8
		lo, hi := max(first, b8), min(last, b8+int64(len(chunk))*8+int64(zeros)*8-1)
		if chunk == nil { // a run of zeros
			if !bit {
				pos = lo
			}
			return bit
		}
		if i := findBit(chunk, bit, lo-b8, hi-b8); i >= 0 {
			pos = i + b8
			return false
		}
		return true
	})
	if err != nil || pos >= 0 {
		return pos, err
	}
	if !bit && !r.EndGiven {
		return last + 1, nil
	}
	return -1, nil
}

// findBit is the first bit of v from first to last, inclusive, that is
// set to bit, or -1.
func findBit(v []byte, bit bool, first, last int64) int64 {
	skip := byte(0) // a byte with no bit of the wanted value
	if !bit {
		skip = 0xff
	}
	for i := first; i <= last; i++ {
		if i&7 == 0 && i+7 <= last && v[i>>3] == skip {
			i += 7
			continue
		}
		if bitAt(v, uint64(i)) == bit {
			return i
		}
	}
	return -1
}

// BitOperation is BITOP's operation.
type BitOperation uint8

// The BITOP operations.
const (
	BitAnd BitOperation = iota + 1
	BitOr
	BitXor
	BitNot // one source
)

// BitOp is BITOP: it stores op of the sources (missing ones are empty,
// shorter ones padded with zeros) in dest, without a TTL, and returns the
// result's length. An empty result deletes dest.
func (d *DB) BitOp(op BitOperation, dest []byte, srcs [][]byte) (int64, error) {
	unlock := d.lock(append([][]byte{dest}, srcs...)...)
	defer unlock()
	now := d.e.now()
	vals := make([][]byte, len(srcs))
	longest := 0
	for i, k := range srcs {
		ks := &keyState{}
		if err := d.load(ks, k, now); err != nil {
			return 0, err
		}
		v, _, err := ks.stringValue()
		if err != nil {
			return 0, err
		}
		vals[i] = v
		longest = max(longest, len(v))
	}
	out := make([]byte, longest)
	byteAt := func(v []byte, j int) byte {
		if j < len(v) {
			return v[j]
		}
		return 0
	}
	for j := range out {
		c := byteAt(vals[0], j)
		for _, v := range vals[1:] {
			switch op {
			case BitAnd:
				c &= byteAt(v, j)
			case BitOr:
				c |= byteAt(v, j)
			case BitXor:
				c ^= byteAt(v, j)
			}
		}
		if op == BitNot {
			c = ^c
		}
		out[j] = c
	}
	ks := &keyState{}
	if err := d.load(ks, dest, now); err != nil {
		return 0, err
	}
	if longest == 0 {
		if !ks.onDisk {
			return 0, nil
		}
		return 0, d.write(func(b *store.Batch) error { ks.remove(b); return nil })
	}
	return int64(longest), d.write(func(b *store.Batch) error {
		var err error
		if longest > fragThreshold {
			err = ks.storeFragmented(b, out, 0)
		} else {
			err = ks.setStringAs(b, out, 0, true) // Redis builds BITOP's result raw
		}
		if err != nil {
			return err
		}
		// As a collection's store (SINTERSTORE): a result was stored, so
		// the event is set even where it replaced a key of another type.
		d.fact(KeySaved, ks.key)
		return nil
	})
}

// Overflow is BITFIELD's OVERFLOW behaviour for SET and INCRBY.
type Overflow uint8

// The OVERFLOW behaviours.
const (
	OverflowWrap Overflow = iota // wrap around, modulo 2^bits (the default)
	OverflowSat                  // saturate at the type's minimum or maximum
	OverflowFail                 // write nothing and reply null
)

// BitFieldKind is the kind of one BITFIELD operation.
type BitFieldKind uint8

// The BITFIELD operations.
const (
	BitFieldGet BitFieldKind = iota
	BitFieldSet
	BitFieldIncrBy
)

// BitFieldOp is one BITFIELD operation on the field of Bits bits (1 to 64
// signed, 1 to 63 unsigned) at bit Offset.
type BitFieldOp struct {
	Kind     BitFieldKind
	Signed   bool
	Bits     uint
	Offset   uint64
	Value    int64    // SET's value, INCRBY's increment
	Overflow Overflow // SET and INCRBY
}

// BitFieldResult is one operation's reply: Value, or null (Failed) for a
// SET or INCRBY that OVERFLOW FAIL refused.
type BitFieldResult struct {
	Value  int64
	Failed bool
}

// BitField is BITFIELD and BITFIELD_RO: it runs ops in order. With only
// GETs it reads the key (missing: zeros). Otherwise the value first grows
// to hold the highest field a SET or INCRBY names, even one OVERFLOW FAIL
// then refuses, as in Redis; the write notes KeyBitsSet (the setbit event)
// when an operation stored a field and it changed, or the value grew.
func (d *DB) BitField(key []byte, ops []BitFieldOp) ([]BitFieldResult, error) {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	if err := d.load(ks, key, d.e.now()); err != nil {
		return nil, err
	}
	existed, err := ks.isString()
	if err != nil {
		return nil, err
	}
	size := uint64(0)
	if existed {
		size = ks.stringLen()
	}
	need := uint64(0) // bytes the writes reach
	for _, op := range ops {
		if op.Kind != BitFieldGet {
			need = max(need, (op.Offset+uint64(op.Bits)-1)>>3+1)
		}
	}
	out := make([]BitFieldResult, len(ops))
	if need == 0 {
		var s bitStore = wholeBits(nil)
		switch {
		case existed && ks.m.Frag:
			s = ks.startFrags(nil, size) // reads the fragments the fields are in
		case existed:
			s = wholeBits(ks.m.Value)
		}
		for i, op := range ops {
			out[i].Value = getField(s, op)
		}
		return out, bitsErr(s)
	}
	grown := !existed || need > size
	s, commit := ks.bitWriter(existed, max(size, need))
	changed := false
	for i, op := range ops {
		if op.Kind == BitFieldGet {
			out[i].Value = getField(s, op)
			continue
		}
		old := getField(s, op)
		nw, reply, ok := op.apply(old)
		if !ok {
			out[i].Failed = true
			continue
		}
		out[i].Value = reply
		setField(s, op, nw)
		changed = changed || grown || nw != old
	}
	if err := bitsErr(s); err != nil || (!grown && !changed) {
		return out, err
	}
	return out, d.write(func(b *store.Batch) error {
		if err := commit(b); err != nil {
			return err
		}
		if changed {
			d.fact(KeyBitsSet, ks.key)
		}
		return nil
	})
}

// bitsErr is the first error reading s met: a fragment's read.
func bitsErr(s bitStore) error {
	if f, ok := s.(*fragBits); ok {
		return f.err
	}
	return nil
}

// getField reads op's field of v, sign-extended when op.Signed (an unsigned
// field has at most 63 bits: it fits an int64). Bits past v read as 0.
func getField(v bitStore, op BitFieldOp) int64 {
	var u uint64
	for j := uint64(0); j < uint64(op.Bits); j++ {
		u <<= 1
		if v.bit(op.Offset + j) {
			u |= 1
		}
	}
	if op.Signed && op.Bits < 64 && u&(1<<(op.Bits-1)) != 0 {
		u |= math.MaxUint64 << op.Bits
	}
	return int64(u)
}

// setField writes the low op.Bits bits of val into op's field of v, which
// holds it.
func setField(v bitStore, op BitFieldOp, val int64) {
	for j := uint64(0); j < uint64(op.Bits); j++ {
		v.setBit(op.Offset+j, uint64(val)>>(uint64(op.Bits)-1-j)&1 != 0)
	}
}

// apply runs a SET or INCRBY on the field's old value: the value to store,
// the reply (SET: the old value; INCRBY: the new one) and ok=false when
// OVERFLOW FAIL refuses it.
func (op BitFieldOp) apply(old int64) (nw, reply int64, ok bool) {
	value, incr := op.Value, int64(0)
	if op.Kind == BitFieldIncrBy {
		value, incr = old, op.Value
	}
	var overflow bool
	if op.Signed {
		nw, overflow = signedField(value, incr, op.Bits, op.Overflow)
	} else {
		var u uint64
		u, overflow = unsignedField(uint64(value), incr, op.Bits, op.Overflow)
		nw = int64(u)
	}
	if overflow && op.Overflow == OverflowFail {
		return 0, 0, false
	}
	if op.Kind == BitFieldSet {
		return nw, old, true
	}
	return nw, nw, true
}

// unsignedField is value+incr in a field of bits unsigned bits, and whether
// it overflowed, as Redis's checkUnsignedBitfieldOverflow decides: wrapped
// modulo 2^bits or saturated by ov (FAIL's result is not used). A SET
// passes its value with incr 0: a negative value is a huge unsigned one.
func unsignedField(value uint64, incr int64, bits uint, ov Overflow) (uint64, bool) {
	maxv := uint64(1)<<bits - 1 // bits <= 63
	maxincr := int64(maxv - value)
	minincr := -int64(value)
	switch {
	case value > maxv || (incr > 0 && incr > maxincr):
		if ov == OverflowSat {
			return maxv, true
		}
	case incr < 0 && incr < minincr:
		if ov == OverflowSat {
			return 0, true
		}
	default:
		return value + uint64(incr), false
	}
	return (value + uint64(incr)) & maxv, true
}

// signedField is value+incr in a field of bits signed bits, and whether it
// overflowed, as Redis's checkSignedBitfieldOverflow decides (its int64
// arithmetic wraps, as Go's does).
func signedField(value, incr int64, bits uint, ov Overflow) (int64, bool) {
	maxv := int64(math.MaxInt64)
	if bits < 64 {
		maxv = int64(1)<<(bits-1) - 1
	}
	minv := -maxv - 1
	maxincr := int64(uint64(maxv) - uint64(value))
	minincr := minv - value
	switch {
	case value > maxv || (bits != 64 && incr > maxincr) || (value >= 0 && incr > 0 && incr > maxincr):
		if ov == OverflowSat {
			return maxv, true
		}
	case value < minv || (bits != 64 && incr < minincr) || (value < 0 && incr < 0 && incr < minincr):
		if ov == OverflowSat {
			return minv, true
		}
	default:
		return value + incr, false
	}
	c := uint64(value) + uint64(incr)
	if bits < 64 {
		if c&(1<<(bits-1)) != 0 {
			c |= math.MaxUint64 << bits
		} else {
			c &^= math.MaxUint64 << bits
		}
	}
	return int64(c), true
}
