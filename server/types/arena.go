package types

// valueArena copies the values a walk of records returns into a few shared
// chunks, instead of one allocation per value: for LRANGE of 100 short
// elements the per-element copies were 100 of the command's 118
// allocations (BenchmarkLRange; 20 with the arena). A value it returns
// keeps its whole chunk alive, so it is for values that go to a reply or
// into a batch, not for values a caller keeps.
type valueArena struct {
	chunk []byte // the current chunk: values are appended up to its capacity
	// expect is how many values the walk is expected to copy, 0 when
	// unknown: the first chunk holds that many values of the first one's
	// size, so a walk of values of one size allocates one chunk.
	expect uint64
}

const (
	// arenaFirstChunk is the least size of the first chunk; each next one
	// doubles, up to arenaMaxChunk, so a short walk allocates little and a
	// long one a few chunks.
	arenaFirstChunk = 256
	arenaMaxChunk   = 64 << 10
	// arenaOwnBytes is the size from which a value gets an allocation of
	// its own rather than a chunk's space.
	arenaOwnBytes = arenaMaxChunk / 4
)

// copy returns a copy of v, non-nil even when v is empty (a nil element
// would reply as a null). The copy's capacity is its length, so appending
// to it never writes over the next value.
func (a *valueArena) copy(v []byte) []byte {
	n := len(v)
	switch {
	case n == 0:
		return []byte{} // no allocation: Go points every empty one at one address
	case n >= arenaOwnBytes:
		own := make([]byte, n) // not append: it rounds the capacity up
		copy(own, v)
		return own
	}
	if n > cap(a.chunk)-len(a.chunk) {
		size := 2 * cap(a.chunk)
		if a.chunk == nil {
			size = int(min(a.expect, arenaMaxChunk) * uint64(n))
		}
		size = min(max(size, arenaFirstChunk), arenaMaxChunk)
		a.chunk = make([]byte, 0, max(size, n))
	}
	at := len(a.chunk)
	a.chunk = append(a.chunk, v...)
	return a.chunk[at : at+n : at+n]
}
