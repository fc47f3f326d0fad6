package types

import (
	"bytes"
	"testing"
)

func TestValueArena(t *testing.T) {
	sized := func(n int, b byte) []byte { return bytes.Repeat([]byte{b}, n) }
	tests := []struct {
		name   string
		expect uint64
		vals   [][]byte
	}{
		{"empty values stay non-nil", 3, [][]byte{{}, {}, {}}},
		{"one size, expected count", 100, func() [][]byte {
			var vs [][]byte
			for i := range 100 {
				vs = append(vs, sized(3, byte(i)))
			}
			return vs
		}()},
		{"more than expected spills to new chunks", 1, func() [][]byte {
			var vs [][]byte
			for i := range 500 {
				vs = append(vs, sized(1+i%300, byte(i)))
			}
			return vs
		}()},
		{"unknown count", 0, [][]byte{sized(10, 'a'), sized(1000, 'b'), sized(5, 'c')}},
		{"big values get their own allocation", 4, [][]byte{sized(10, 'a'), sized(arenaOwnBytes, 'b'), sized(arenaMaxChunk+1, 'c'), sized(10, 'd')}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := valueArena{expect: tt.expect}
			src := make([]byte, 0, 1<<20) // one reused source buffer, as an iterator's batch is
			var got [][]byte
			for _, v := range tt.vals {
				src = append(src[:0], v...)
				got = append(got, a.copy(src))
			}
			for i, g := range got {
				if g == nil || !bytes.Equal(g, tt.vals[i]) || cap(g) != len(g) {
					t.Fatalf("value %d: got %d bytes (nil %v, cap %d), want %d", i, len(g), g == nil, cap(g), len(tt.vals[i]))
				}
			}
			// Appending to one copy must not change the next.
			if len(got) > 1 {
				_ = append(got[0], 'x')
				if !bytes.Equal(got[1], tt.vals[1]) {
					t.Fatal("appending to a copy wrote over the next one")
				}
			}
		})
	}
}

// TestValueArenaAllocations: copying values of one size, as many as
// expected, allocates one chunk.
func TestValueArenaAllocations(t *testing.T) {
	v := []byte("element")
	allocs := testing.AllocsPerRun(100, func() {
		a := valueArena{expect: 100}
		for range 100 {
			a.copy(v)
		}
	})
	if allocs != 1 {
		t.Fatalf("100 copies of one size allocated %v times, want 1", allocs)
	}
}
