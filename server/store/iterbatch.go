package store

/*
#include <stdint.h>
#include <string.h>
#include "rocksdb/c.h"

static void shale_put_u32(char* p, uint32_t v) {
	p[0] = (char)v; p[1] = (char)(v >> 8); p[2] = (char)(v >> 16); p[3] = (char)(v >> 24);
}

// shale_fill is shale_iter_fill's result: the bytes used, the records
// copied, and, when not even the first record fit, its size. It is
// returned by value because Go memory passed to C for an out parameter
// escapes to the heap: that was an allocation per call.
typedef struct {
	size_t used;
	size_t need;
	int n;
} shale_fill;

// shale_iter_fill copies records into buf from the iterator's current one
// on, each as key length (u32 LE) · value length (u32 LE) · key · value,
// stepping back when reverse is set, until the iterator is done, max
// records are copied, or the next one does not fit in cap bytes.
static shale_fill shale_iter_fill(rocksdb_iterator_t* it, int reverse, char* buf, size_t cap, int max) {
	shale_fill r = {0, 0, 0};
	while (r.n < max && rocksdb_iter_valid(it)) {
		size_t klen, vlen;
		const char* k = rocksdb_iter_key(it, &klen);
		const char* v = rocksdb_iter_value(it, &vlen);
		size_t size = 8 + klen + vlen;
		if (size > cap - r.used) {
			if (r.n == 0) r.need = size;
			break;
		}
		shale_put_u32(buf + r.used, (uint32_t)klen);
		shale_put_u32(buf + r.used + 4, (uint32_t)vlen);
		memcpy(buf + r.used + 8, k, klen);
		memcpy(buf + r.used + 8 + klen, v, vlen);
		r.used += size;
		r.n++;
		if (reverse) rocksdb_iter_prev(it); else rocksdb_iter_next(it);
	}
	return r;
}
*/
import "C"

import (
	"encoding/binary"
	"sync"
	"unsafe"

	"github.com/linxGnu/grocksdb"
)

// iterBatches walks a RocksDB iterator a batch of records per cgo call.
// Walking it through grocksdb costs four cgo calls per record (Valid, Key,
// Value, Next) and two allocations; for LRANGE of 100 elements that was
// most of the command. Here one C call copies many records into a Go
// buffer.
//
// It reads grocksdb's Iterator's C handle through unsafe: Iterator is a
// struct whose only field is that handle, in the pinned grocksdb v1.7.15.
// TestIterateBatchesMatchGrocksdb walks the same data both ways, so a
// change of that layout fails it.
type iterBatches struct {
	it      *C.rocksdb_iterator_t
	reverse bool
	buf     []byte
	max     int // records per batch: starts small, since callers may stop early
}

const (
	iterFirstBatch = 16
	iterMaxBatch   = 1024
	iterBufBytes   = 16 << 10
)

// iterBufs keeps the batches' buffers: a short scan (LRANGE 0 99) would
// otherwise allocate one per command.
var iterBufs = sync.Pool{New: func() any { return new([iterBufBytes]byte) }}

func newIterBatches(it *grocksdb.Iterator, reverse bool) *iterBatches {
	pooled := iterBufs.Get().(*[iterBufBytes]byte)
	return &iterBatches{
		it:      *(**C.rocksdb_iterator_t)(unsafe.Pointer(it)),
		reverse: reverse,
		buf:     pooled[:],
		max:     iterFirstBatch,
	}
}

// release returns the buffer to the pool, unless a big record replaced it.
func (b *iterBatches) release() {
	if len(b.buf) == iterBufBytes {
		iterBufs.Put((*[iterBufBytes]byte)(b.buf))
	}
	b.buf = nil
}

// next returns the next batch of records, as laid out by shale_iter_fill,
// and how many it holds; 0 when the iterator is done (check its Err).
func (b *iterBatches) next() ([]byte, int) {
	for {
		rev := C.int(0)
		if b.reverse {
			rev = 1
		}
		r := C.shale_iter_fill(b.it, rev, (*C.char)(unsafe.Pointer(&b.buf[0])), C.size_t(len(b.buf)), C.int(b.max))
		if r.need > 0 {
			// One record bigger than the buffer: grow it to fit.
			b.buf = make([]byte, int(r.need))
			continue
		}
		b.max = min(2*b.max, iterMaxBatch)
		return b.buf[:r.used], int(r.n)
	}
}

// iterRecord splits the first record off a batch.
func iterRecord(batch []byte) (key, val, rest []byte) {
	kl := int(binary.LittleEndian.Uint32(batch))
	vl := int(binary.LittleEndian.Uint32(batch[4:]))
	batch = batch[8:]
	return batch[:kl], batch[kl : kl+vl], batch[kl+vl:]
}
