package server

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// redisLCS is Redis 7.0's lcsCommand transcribed with its full table of
// lengths, the reference lcsTrace's bits must agree with.
func redisLCS(a, b []byte, minLen int64) (seq []byte, ranges []lcsMatch) {
	alen, blen := len(a), len(b)
	tbl := make([]int, (alen+1)*(blen+1))
	at := func(i, j int) *int { return &tbl[j+i*(blen+1)] }
	for i := 0; i <= alen; i++ {
		for j := 0; j <= blen; j++ {
			switch {
			case i == 0 || j == 0:
				*at(i, j) = 0
			case a[i-1] == b[j-1]:
				*at(i, j) = *at(i-1, j-1) + 1
			default:
				*at(i, j) = max(*at(i-1, j), *at(i, j-1))
			}
		}
	}
	idx := *at(alen, blen)
	seq = make([]byte, idx)
	aStart, aEnd, bStart, bEnd := alen, 0, 0, 0
	i, j := alen, blen
	for i > 0 && j > 0 {
		emit := false
		if a[i-1] == b[j-1] {
			seq[idx-1] = a[i-1]
			if aStart == alen {
				aStart, aEnd, bStart, bEnd = i-1, i-1, j-1, j-1
			} else if aStart == i && bStart == j {
				aStart--
				bStart--
			} else {
				emit = true
			}
			if aStart == 0 || bStart == 0 {
				emit = true
			}
			idx--
			i--
			j--
		} else {
			if *at(i-1, j) > *at(i, j-1) {
				i--
			} else {
				j--
			}
			if aStart != alen {
				emit = true
			}
		}
		matchLen := int64(aEnd - aStart + 1)
		if emit {
			if minLen == 0 || matchLen >= minLen {
				ranges = append(ranges, lcsMatch{aStart, aEnd, bStart, bEnd})
			}
			aStart = alen
		}
	}
	return seq, ranges
}

func TestLCSAgainstRedisTable(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	gen := func() []byte {
		b := make([]byte, r.IntN(40))
		alpha := 1 + r.IntN(4)
		for i := range b {
			b[i] = 'a' + byte(r.IntN(alpha))
		}
		return b
	}
	for n := 0; n < 5000; n++ {
		a, b := gen(), gen()
		minLen := int64(r.IntN(4))
		wantSeq, wantRanges := redisLCS(a, b, minLen)
		seq, ranges := lcsTrace(a, b, minLen, true)
		if string(seq) != string(wantSeq) || !slices.Equal(ranges, wantRanges) {
			t.Fatalf("LCS %q %q MINMATCHLEN %d: got %q %v, want %q %v", a, b, minLen, seq, ranges, wantSeq, wantRanges)
		}
		if got := lcsLength(a, b); got != len(wantSeq) {
			t.Fatalf("LCS %q %q LEN: got %d, want %d", a, b, got, len(wantSeq))
		}
		if _, none := lcsTrace(a, b, minLen, false); none != nil {
			t.Fatalf("LCS %q %q without IDX listed ranges", a, b)
		}
	}
}

func TestLCSCheckSize(t *testing.T) {
	const limit = 512 << 20
	tests := []struct {
		name       string
		alen, blen int
		limit      int64
		want       error
	}{
		{"small", 10, 10, limit, nil},
		{"empty", 0, 0, limit, nil},
		{"at limit", 1<<13 - 1, 1<<14 - 1, limit, nil}, // 2^27 cells of 4 bytes
		{"past limit", 1 << 13, 1<<14 - 1, limit, errLCSProtoMaxBulkLen},
		{"small limit", 1000, 1000, 1 << 20, errLCSProtoMaxBulkLen},
		{"past Shale's cells", 1 << 16, 1<<15 + 1, 1 << 62, errLCSAlloc},
		{"too long", 1<<32 - 1, 0, 1 << 62, errLCSTooLong},
		{"bytes past 2^64", 1<<32 - 3, 1<<32 - 3, 1 << 62, errLCSAlloc},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := lcsCheckSize(tt.alen, tt.blen, tt.limit); got != tt.want {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func BenchmarkLCS(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	s := func(n int) []byte {
		out := make([]byte, n)
		for i := range out {
			out[i] = 'a' + byte(r.IntN(4))
		}
		return out
	}
	x, y := s(2000), s(2000)
	b.Run("idx", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			lcsTrace(x, y, 0, true)
		}
	})
	b.Run("len", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			lcsLength(x, y)
		}
	})
}
