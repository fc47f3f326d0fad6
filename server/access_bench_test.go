package server

import (
	"strconv"
	"testing"
	"time"
)

// BenchmarkAccessTouch is the access clock's cost on the hot path: what
// the dispatcher adds to a GET (one key) once it has run.
func BenchmarkAccessTouch(b *testing.B) {
	b.ReportAllocs()
	var a accessClock
	a.init(16)
	get := buildTable(allCommands())["get"]
	keys := make([][][]byte, 100_000)
	for i := range keys {
		keys[i] = [][]byte{[]byte("GET"), []byte("key:" + strconv.Itoa(i))}
	}
	b.ResetTimer()
	i := 0
	for b.Loop() {
		a.touchKeys(get, keys[i%len(keys)], 0, time.Duration(i)*time.Microsecond)
		i++
	}
}
