// Package hll is Redis 7.0's HyperLogLog, byte for byte: the value a PFADD
// leaves under a key is the string Redis would leave there, so PFCOUNT
// returns Redis's number and a value moved between Redis and Shale with
// GET and SET keeps working. It is a pure codec over []byte values (it
// imports nothing of ours); server/types stores the values as strings.
//
// Layout (src/hyperloglog.c of Redis 7.0), a 16-byte header then the
// registers:
//
//	| "HYLL" 4 | encoding 1 | unused 3 (zero) | card 8, little-endian | registers |
//
// card is the cached cardinality; its top bit set (card[7]&0x80) marks it
// stale. The 16384 registers of 6 bits hold, for the elements hashed to
// them, the longest run of zeros seen plus one. The dense encoding packs
// them least significant bit first into 12288 bytes (12304 with the
// header). The sparse encoding run-length codes them with three opcodes:
//
//	00xxxxxx           ZERO:  xxxxxx+1 (1..64) zero registers
//	01xxxxxx yyyyyyyy  XZERO: xxxxxxyyyyyyyy+1 (1..16384) zero registers
//	1vvvvvxx           VAL:   xx+1 (1..4) registers of value vvvvv+1 (1..32)
//
// A sparse value becomes dense when a register needs a value above 32 or
// when it would grow past hll-sparse-max-bytes; never the other way.
//
// Invariants: no function panics on any input; a value that fails Check
// is never read further; a sparse value whose opcodes do not cover exactly
// 16384 registers is ErrCorrupt wherever Redis says INVALIDOBJ.
//
// The byte past the end. Redis reads one byte past the end of a value where
// a corrupt one ends with an XZERO opcode cut in half. That byte is the
// zero that ends every sds string, but for one case: splitting that cut
// opcode grows the string by one byte less than the new opcodes take, and
// the last of them lands there, where the next element's update reads it.
// The functions here keep that byte in the slice's capacity, v[:len(v)+1],
// and read a zero when the capacity ends with the value; a caller passes a
// value it read with its capacity clipped (or a fresh copy, whose capacity
// Go zeroes). Across commands Redis keeps the byte in memory and Shale
// does not: only values already corrupt can differ there.
package hll

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
)

// Format constants of Redis 7.0's HyperLogLog; on-disk (and on the wire):
// frozen.
const (
	P              = 14                            // register index bits
	Q              = 64 - P                        // hash bits left for the run of zeros
	NumRegisters   = 1 << P                        // 16384
	RegisterBits   = 6                             // bits per dense register
	RegisterMax    = 1<<RegisterBits - 1           // 63
	HeaderSize     = 16                            // "HYLL", encoding, 3 unused, card
	DenseSize      = HeaderSize + NumRegisters*6/8 // 12304
	EncodingDense  = 0                             // registers packed 6 bits each
	EncodingSparse = 1                             // run-length opcodes
	maxEncoding    = EncodingSparse
	// DefaultSparseMaxBytes is Redis's hll-sparse-max-bytes default: the
	// size past which a sparse value turns dense.
	DefaultSparseMaxBytes = 3000

	seed = 0xadc83b19 // MurmurHash64A's seed in hllPatLen

	sparseValMaxValue = 32
	sparseValMaxLen   = 4
	sparseZeroMaxLen  = 64

	alphaInf = 0.721347520444481703680 // 0.5/ln(2)
)

var (
	// ErrNotHLL is a string that is not a HyperLogLog: Redis's "WRONGTYPE
	// Key is not a valid HyperLogLog string value."
	ErrNotHLL = errors.New("hll: not a valid HyperLogLog string value")
	// ErrCorrupt is a HyperLogLog whose registers cannot be read: Redis's
	// "INVALIDOBJ Corrupted HLL object detected".
	ErrCorrupt = errors.New("hll: corrupted HyperLogLog object")
)

// New returns an empty HyperLogLog as Redis's createHLLObject makes it: a
// sparse value of one XZERO opcode covering all the registers.
func New() []byte {
	v := make([]byte, HeaderSize, HeaderSize+2)
	copy(v, "HYLL")
	v[4] = EncodingSparse
	return appendXZero(v, NumRegisters)
}

// Check reports ErrNotHLL unless v is a HyperLogLog by Redis's test
// (isHLLObjectOrReply): the header, a known encoding, and the exact size
// when dense. intEncoded says the string is one Redis would keep as an
// integer (an int-encoded string is never a HyperLogLog there).
func Check(v []byte) error {
	if len(v) < HeaderSize || string(v[:4]) != "HYLL" || v[4] > maxEncoding {
		return ErrNotHLL
	}
	if v[4] == EncodingDense && len(v) != DenseSize {
		return ErrNotHLL
	}
	return nil
}

// IsDense reports whether the checked value v is dense.
func IsDense(v []byte) bool { return v[4] == EncodingDense }

func invalidate(v []byte) { v[15] |= 0x80 }

// cached returns the cached cardinality, if valid.
func cached(v []byte) (uint64, bool) {
	if v[15]&0x80 != 0 {
		return 0, false
	}
	return binary.LittleEndian.Uint64(v[8:16]), true
}

// MurmurHash64A is Austin Appleby's hash as Redis has it, reading the
// 8-byte blocks little-endian.
func MurmurHash64A(key []byte, seed uint64) uint64 {
	const m = 0xc6a4a7935bd1e995
	const r = 47
	h := seed ^ (uint64(len(key)) * m)
	n := len(key) &^ 7
	for i := 0; i < n; i += 8 {
		k := binary.LittleEndian.Uint64(key[i:])
		k *= m
		k ^= k >> r
		k *= m
		h ^= k
		h *= m
	}
	tail := key[n:]
	if len(tail) > 0 {
		for i := len(tail) - 1; i >= 0; i-- {
			h ^= uint64(tail[i]) << (8 * i)
		}
		h *= m
	}
	h ^= h >> r
	h *= m
	h ^= h >> r
	return h
}

// patLen is hllPatLen: the register an element goes to and the length of
// the run of zeros (plus one) of the rest of its hash, 1..Q+1.
func patLen(elem []byte) (index int, count uint8) {
	h := MurmurHash64A(elem, seed)
	index = int(h & (NumRegisters - 1))
	h >>= P
	h |= 1 << Q // the loop ends, with count <= Q+1
	count = 1
	for bit := uint64(1); h&bit == 0; bit <<= 1 {
		count++
	}
	return index, count
}

// denseGet is HLL_DENSE_GET_REGISTER over the register bytes regs.
func denseGet(regs []byte, i int) uint8 {
	b := i * RegisterBits / 8
	fb := uint(i * RegisterBits & 7)
	b0 := uint(regs[b])
	var b1 uint
	if b+1 < len(regs) {
		b1 = uint(regs[b+1])
	}
	return uint8((b0>>fb | b1<<(8-fb)) & RegisterMax)
}

// denseSet is HLL_DENSE_SET_REGISTER.
func denseSet(regs []byte, i int, val uint8) {
	b := i * RegisterBits / 8
	fb := uint(i * RegisterBits & 7)
	v := uint(val)
	regs[b] &^= byte(RegisterMax << fb)
	regs[b] |= byte(v << fb)
	if b+1 < len(regs) {
		regs[b+1] &^= byte(RegisterMax >> (8 - fb))
		regs[b+1] |= byte(v >> (8 - fb))
	}
}

// denseMax is hllDenseSet: raise register i to count, reporting a change.
func denseMax(regs []byte, i int, count uint8) bool {
	if count > denseGet(regs, i) {
		denseSet(regs, i, count)
		return true
	}
	return false
}

func isZero(op byte) bool  { return op&0xc0 == 0 }
func isXZero(op byte) bool { return op&0xc0 == 0x40 }
func isVal(op byte) bool   { return op&0x80 != 0 }
func zeroLen(op byte) int  { return int(op&0x3f) + 1 }
func valValue(op byte) uint8 {
	return (op>>2)&0x1f + 1
}
func valLen(op byte) int { return int(op&3) + 1 }

// xzeroLen reads the XZERO opcode at p[i], its second byte perhaps the
// one past the end.
func xzeroLen(p []byte, i int) int {
	return (int(p[i]&0x3f)<<8 | int(byteAt(p, i+1))) + 1
}

// byteAt is p[i], or for i = len(p) the byte past the end (see the package
// doc).
func byteAt(p []byte, i int) byte {
	switch {
	case i < len(p):
		return p[i]
	case i == len(p) && cap(p) > len(p):
		return p[:i+1][i]
	}
	return 0
}

// setPast sets the byte past the end of v, growing its capacity for a
// byte that is not zero.
func setPast(v []byte, b byte) []byte {
	switch {
	case cap(v) > len(v):
		v[:len(v)+1][len(v)] = b
	case b != 0:
		v = append(v, b)[:len(v)]
	}
	return v
}

func valOp(val uint8, n int) byte { return byte(int(val-1)<<2|(n-1)) | 0x80 }
func appendZero(dst []byte, n int) []byte {
	return append(dst, byte(n-1))
}
func appendXZero(dst []byte, n int) []byte {
	return append(dst, byte((n-1)>>8)|0x40, byte((n-1)&0xff))
}

// walkSparse calls fn for each opcode of the sparse registers ops: the
// first register it covers, how many, and their value. It stops early when
// fn returns false, and returns the registers covered.
func walkSparse(ops []byte, fn func(first, n int, val uint8) bool) int {
	idx := 0
	for p := 0; p < len(ops); {
		var n, step int
		var val uint8
		switch op := ops[p]; {
		case isZero(op):
			n, step = zeroLen(op), 1
		case isXZero(op):
			n, step = xzeroLen(ops, p), 2
		default:
			n, step, val = valLen(op), 1, valValue(op)
		}
		if !fn(idx, n, val) {
			return idx
		}
		idx += n
		p += step
	}
	return idx
}

// toDense is hllSparseToDense: the dense form of the checked value v (v
// itself when dense), header and cached cardinality kept.
func toDense(v []byte) ([]byte, error) {
	if IsDense(v) {
		return v, nil
	}
	d := make([]byte, DenseSize)
	copy(d, v[:HeaderSize])
	d[4] = EncodingDense
	regs := d[HeaderSize:]
	overflow := false
	idx := walkSparse(v[HeaderSize:], func(first, n int, val uint8) bool {
		if val == 0 {
			return true
		}
		if first+n > NumRegisters {
			overflow = true
			return false
		}
		for i := first; i < first+n; i++ {
			denseSet(regs, i, val)
		}
		return true
	})
	if overflow || idx != NumRegisters {
		return nil, ErrCorrupt
	}
	return d, nil
}

// ToDense is PFDEBUG TODENSE: the dense form of the checked value v, and
// whether it was sparse.
func ToDense(v []byte) ([]byte, bool, error) {
	d, err := toDense(v)
	return d, err == nil && !IsDense(v), err
}

// sparseSet is hllSparseSet: raise register index of the sparse v to
// count. It returns the new value (dense if it was promoted) and whether a
// register changed.
func sparseSet(v []byte, index int, count uint8, sparseMax int) ([]byte, bool, error) {
	if count > sparseValMaxValue {
		return promote(v, index, count)
	}
	const sparse = HeaderSize
	end := len(v)
	first, span, p, prev := 0, 0, sparse, -1
	for p < end {
		oplen := 1
		switch op := v[p]; {
		case isZero(op):
			span = zeroLen(op)
		case isVal(op):
			span = valLen(op)
		default:
			span = xzeroLen(v[:end], p)
			oplen = 2
		}
		if index <= first+span-1 {
			break
		}
		prev = p
		p += oplen
		first += span
	}
	if span == 0 || p >= end {
		return v, false, ErrCorrupt
	}
	op := v[p]
	var runlen int
	zero, xzero, val := false, false, false
	switch {
	case isZero(op):
		zero, runlen = true, zeroLen(op)
	case isXZero(op):
		xzero, runlen = true, xzeroLen(v[:end], p)
	default:
		val, runlen = true, valLen(op)
	}
	switch {
	case val && valValue(op) >= count:
		return v, false, nil // case A
	case val && runlen == 1, zero && runlen == 1: // cases B and C
		v[p] = valOp(count, 1)
	default: // case D: split the opcode
		var seq [5]byte
		n := seq[:0]
		last := first + span - 1
		if zero || xzero {
			if index != first {
				n = appendZeros(n, index-first)
			}
			n = append(n, valOp(count, 1))
			if index != last {
				n = appendZeros(n, last-index)
			}
		} else {
			cur := valValue(op)
			if index != first {
				n = append(n, valOp(cur, index-first))
			}
			n = append(n, valOp(count, 1))
			if index != last {
				n = append(n, valOp(cur, last-index))
			}
		}
		oldlen := 1
		if xzero {
			oldlen = 2
		}
		delta := len(n) - oldlen
		if delta > 0 && len(v)+delta > sparseMax {
			return promote(v, index, count)
		}
		// An XZERO cut in half at the very end has one byte here, not two:
		// Redis still grows the string by delta only, and the last byte
		// of the new sequence goes past the end (see the package doc).
		newLen := len(v) + delta
		v = slices.Replace(v, p, min(p+oldlen, len(v)), n...)
		past := byte(0)
		if len(v) > newLen {
			past = v[newLen]
		}
		v = setPast(v[:newLen], past)
	}
	// Step 4: merge adjacent VAL opcodes of the same value, scanning up to
	// five opcodes from the one before the change.
	end = len(v)
	p = sparse
	if prev >= 0 {
		p = prev
	}
	for scan := 5; p < end && scan > 0; scan-- {
		if isXZero(v[p]) {
			p += 2
			continue
		}
		if isZero(v[p]) {
			p++
			continue
		}
		if p+1 < end && isVal(v[p+1]) {
			v1, v2 := valValue(v[p]), valValue(v[p+1])
			if l := valLen(v[p]) + valLen(v[p+1]); v1 == v2 && l <= sparseValMaxLen {
				v[p+1] = valOp(v1, l)
				v = setPast(append(v[:p], v[p+1:]...), 0)
				end--
				continue // try to merge the merged value with its right
			}
		}
		p++
	}
	invalidate(v)
	return v, true, nil
}

// appendZeros appends a ZERO or, past its reach, an XZERO opcode.
func appendZeros(dst []byte, n int) []byte {
	if n > sparseZeroMaxLen {
		return appendXZero(dst, n)
	}
	return appendZero(dst, n)
}

// promote turns the sparse v dense and then sets the register; the change
// is certain, since the sparse value could not hold it.
func promote(v []byte, index int, count uint8) ([]byte, bool, error) {
	d, err := toDense(v)
	if err != nil {
		return v, false, ErrCorrupt
	}
	denseMax(d[HeaderSize:], index, count)
	return d, true, nil
}

// set raises register index of the checked value v to count.
func set(v []byte, index int, count uint8, sparseMax int) ([]byte, bool, error) {
	if IsDense(v) {
		return v, denseMax(v[HeaderSize:], index, count), nil
	}
	return sparseSet(v, index, count, sparseMax)
}

// Add is hllAdd: add elem to the checked value v, which it may change in
// place. It returns the new value and whether a register changed (then the
// cached cardinality is stale, and PFADD replies 1). On ErrCorrupt the
// value returned holds what the adds before did, as Redis keeps them.
func Add(v, elem []byte, sparseMax int) ([]byte, bool, error) {
	index, count := patLen(elem)
	return set(v, index, count, sparseMax)
}

// Invalidate marks the cached cardinality of the checked value v stale.
func Invalidate(v []byte) { invalidate(v) }

// Count is PFCOUNT of one key: the cardinality of the checked value v,
// from its cache when valid. When it had to compute it, it stores it in
// the cache of v (in place) and reports wrote: the value changed.
func Count(v []byte) (card uint64, wrote bool, err error) {
	if c, ok := cached(v); ok {
		return c, false, nil
	}
	var histo [64]int
	if IsDense(v) {
		denseHisto(v[HeaderSize:], &histo)
	} else if walkSparse(v[HeaderSize:], func(_, n int, val uint8) bool {
		histo[val] += n
		return true
	}) != NumRegisters {
		return 0, false, ErrCorrupt
	}
	card = estimate(&histo)
	binary.LittleEndian.PutUint64(v[8:16], card)
	return card, true, nil
}

func denseHisto(regs []byte, histo *[64]int) {
	for i := 0; i < NumRegisters; i++ {
		histo[denseGet(regs, i)]++
	}
}

// Registers are the raw registers of a union, one byte each (Redis's
// HLL_RAW, internal only).
type Registers [NumRegisters]uint8

// Merge is hllMerge: raise each register of r to the one of the checked
// value v.
func (r *Registers) Merge(v []byte) error {
	if IsDense(v) {
		regs := v[HeaderSize:]
		for i := range r {
			if x := denseGet(regs, i); x > r[i] {
				r[i] = x
			}
		}
		return nil
	}
	overflow := false
	idx := walkSparse(v[HeaderSize:], func(first, n int, val uint8) bool {
		if val == 0 {
			return true
		}
		if first+n > NumRegisters {
			overflow = true
			return false
		}
		for i := first; i < first+n; i++ {
			r[i] = max(r[i], val)
		}
		return true
	})
	if overflow || idx != NumRegisters {
		return ErrCorrupt
	}
	return nil
}

// Count is the cardinality of the union r holds (PFCOUNT of several keys).
func (r *Registers) Count() uint64 {
	var histo [64]int
	for _, x := range r {
		histo[x&63]++
	}
	return estimate(&histo)
}

// Store is the end of PFMERGE: write the union r into the checked value v
// (dense first when dense), marking its cache stale.
func (r *Registers) Store(v []byte, dense bool, sparseMax int) ([]byte, error) {
	if dense {
		var err error
		if v, err = toDense(v); err != nil {
			return nil, err
		}
	}
	for i, x := range r {
		if x == 0 {
			continue
		}
		// Redis ignores this error: the sources, v among them, merged.
		v, _, _ = set(v, i, x, sparseMax)
	}
	invalidate(v)
	return v, nil
}

// estimate is the estimator of Redis 7.0's hllCount: Otmar Ertl's, "New
// cardinality estimation algorithms for HyperLogLog sketches"
// (arXiv:1702.01284), with Redis's operation order. The float64()
// conversions keep the compiler from fusing a multiply and an add, which
// Redis's x86-64 build never does.
func estimate(histo *[64]int) uint64 {
	const m = float64(NumRegisters)
	z := m * tau((m-float64(histo[Q+1]))/m)
	for j := Q; j >= 1; j-- {
		z += float64(histo[j])
		z *= 0.5
	}
	z += float64(m * sigma(float64(histo[0])/m))
	e := math.Round(alpha * m * m / z)
	if !(e < 1<<63) {
		// Registers above Q+1 (a forged dense value) can leave z zero:
		// llroundl of +Inf is LLONG_MIN on x86-64, which Redis caches
		// (its top bit marking the cache stale) and replies as negative.
		return 1 << 63
	}
	return uint64(e)
}

// alpha is a variable so that alpha*m*m rounds as Redis's double
// arithmetic does, not as an exact constant expression.
var alpha = alphaInf

func sigma(x float64) float64 {
	if x == 1 {
		return math.Inf(1)
	}
	y, z := 1.0, x
	for {
		x *= x
		zp := z
		z += float64(x * y)
		y += y
		if zp == z {
			return z
		}
	}
}

func tau(x float64) float64 {
	if x == 0 || x == 1 {
		return 0
	}
	y, z := 1.0, 1-x
	for {
		x = math.Sqrt(x)
		zp := z
		y *= 0.5
		d := 1 - x
		z -= float64(float64(d*d) * y)
		if zp == z {
			return z / 3
		}
	}
}

// Decode is PFDEBUG DECODE of the checked sparse value v: its opcodes as
// "z:len", "Z:len" and "v:value,len", space-separated.
func Decode(v []byte) []byte {
	var out []byte
	walkSparseOps(v[HeaderSize:], func(op byte, n int, val uint8) {
		if len(out) > 0 {
			out = append(out, ' ')
		}
		switch {
		case isZero(op):
			out = strconv.AppendInt(append(out, "z:"...), int64(n), 10)
		case isXZero(op):
			out = strconv.AppendInt(append(out, "Z:"...), int64(n), 10)
		default:
			out = strconv.AppendInt(append(out, "v:"...), int64(val), 10)
			out = strconv.AppendInt(append(out, ','), int64(n), 10)
		}
	})
	return out
}

// walkSparseOps calls fn for every opcode of ops, whatever they cover.
func walkSparseOps(ops []byte, fn func(op byte, n int, val uint8)) {
	for p := 0; p < len(ops); {
		switch op := ops[p]; {
		case isZero(op):
			fn(op, zeroLen(op), 0)
			p++
		case isXZero(op):
			fn(op, xzeroLen(ops, p), 0)
			p += 2
		default:
			fn(op, valLen(op), valValue(op))
			p++
		}
	}
}

// DenseRegisters are the registers of the checked dense value v, in order
// (PFDEBUG GETREG).
func DenseRegisters(v []byte) []uint8 {
	out := make([]uint8, NumRegisters)
	for i := range out {
		out[i] = denseGet(v[HeaderSize:], i)
	}
	return out
}

// SelfTest is PFSELFTEST: the dense register access and the estimator's
// error, checked as Redis's pfselftest checks them (with fewer elements).
// Its error is the text after Redis's TESTFAILED.
func SelfTest() error {
	regs := make([]byte, NumRegisters*RegisterBits/8)
	want := make([]uint8, NumRegisters)
	x := uint64(0x9e3779b97f4a7c15)
	for round := 0; round < 10; round++ {
		for i := range want {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			want[i] = uint8(x) & RegisterMax
			denseSet(regs, i, want[i])
		}
		for i, w := range want {
			if denseGet(regs, i) != w {
				return fmt.Errorf("Register error at %d", i)
			}
		}
	}
	v, err := toDense(New())
	if err != nil {
		return err
	}
	relerr := 1.04 / math.Sqrt(NumRegisters)
	var elem [8]byte
	for n := uint64(1); n <= 100000; n++ {
		binary.LittleEndian.PutUint64(elem[:], n)
		v, _, _ = Add(v, elem[:], DefaultSparseMaxBytes)
		if n%1000 != 0 {
			continue
		}
		invalidate(v)
		card, _, _ := Count(v)
		maxerr := relerr * 5 * float64(n) // 5 standard deviations, as Redis
		if n < 10 {
			maxerr = 1
		}
		if abserr := math.Abs(float64(card) - float64(n)); abserr > maxerr {
			return fmt.Errorf("Too big error. card:%d abserr:%f", card, abserr)
		}
	}
	return nil
}
