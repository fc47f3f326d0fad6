package main

import (
	"math/rand/v2"
	"strconv"
)

// The data set. At a size of N keys the harness loads N strings
// str:000000000 ... of stringBytes bytes each, and N/hashEvery hashes
// hash:000000000 ... of hashFields fields f00 ... f99, each of
// hashValueBytes bytes. Values are random bytes, so they do not compress:
// the disk figures are what incompressible data costs.
const (
	stringBytes    = 100
	hashEvery      = 10
	hashFields     = 100
	hashValueBytes = 8
	keyDigits      = 9 // zero-padded key numbers up to 999,999,999
)

func hashCount(keys int) int { return keys / hashEvery }

func appendStringKey(dst []byte, n int) []byte { return appendNumbered(dst, "str:", n) }
func appendHashKey(dst []byte, n int) []byte   { return appendNumbered(dst, "hash:", n) }

// appendField appends field f (0 ≤ f < hashFields) as two digits after "f".
func appendField(dst []byte, f int) []byte {
	return append(dst, 'f', byte('0'+f/10), byte('0'+f%10))
}

func appendNumbered(dst []byte, prefix string, n int) []byte {
	dst = append(dst, prefix...)
	var digits [20]byte
	d := strconv.AppendInt(digits[:0], int64(n), 10)
	for range keyDigits - len(d) {
		dst = append(dst, '0')
	}
	return append(dst, d...)
}

// values hands out random bytes: slices at random offsets of one random
// megabyte, so that making a value costs no allocation.
type values struct {
	pool []byte
}

func newValues(seed uint64) *values {
	r := rand.New(rand.NewPCG(seed, 0x5ca1e))
	pool := make([]byte, 1<<20+stringBytes)
	for i := range pool {
		pool[i] = byte(r.Uint32())
	}
	return &values{pool: pool}
}

func (v *values) Get(r *rand.Rand, n int) []byte {
	off := r.IntN(len(v.pool) - n)
	return v.pool[off : off+n]
}

// keyChooser picks key numbers in [0, n) for the load generator.
type keyChooser interface{ Next() int }

type uniformKeys struct {
	r *rand.Rand
	n int
}

func (u uniformKeys) Next() int { return u.r.IntN(u.n) }

// zipfKeys draws ranks from a Zipf distribution with exponent zipfS over
// [0, n) and scatters them over the key numbers with a bijection, so that
// the hot keys are not neighbors in the key order: neighbors would share
// RocksDB blocks and make the cache look better than real hot keys do.
type zipfKeys struct {
	z *rand.Zipf
	n uint64
}

// zipfS is the Zipf exponent: with s = 1.1 over a million keys, the hottest
// 1% of keys take about 80% of the requests and the hottest key alone 12%
// (100M keys: 1% take 90%, the hottest 11%), so SET and HSET also measure
// writes queueing on a hot key.
const zipfS = 1.1

// scatterMul is a prime above any key count the harness loads; coprime with
// n, rank × scatterMul mod n is a bijection of [0, n).
const scatterMul = 2654435761

func newZipfKeys(r *rand.Rand, n int) zipfKeys {
	return zipfKeys{z: rand.NewZipf(r, zipfS, 1, uint64(n-1)), n: uint64(n)}
}

func (z zipfKeys) Next() int { return int(z.z.Uint64() * scatterMul % z.n) }

func newChooser(dist string, r *rand.Rand, n int) keyChooser {
	if dist == "zipfian" {
		return newZipfKeys(r, n)
	}
	return uniformKeys{r: r, n: n}
}
