package subkey

import "testing"

var (
	sinkBytes []byte
	sinkU64   uint64
	sinkF64   float64
	sinkErr   error
)

func BenchmarkKey(b *testing.B) {
	field := []byte("field:0001")
	b.Run("op=encode", func(b *testing.B) {
		dst := make([]byte, 0, 64)
		b.ReportAllocs()
		for b.Loop() {
			dst = AppendKey(dst[:0], 42, field)
		}
		sinkBytes = dst
	})
	b.Run("op=decode", func(b *testing.B) {
		skey := AppendKey(nil, 42, field)
		b.ReportAllocs()
		for b.Loop() {
			sinkU64, sinkBytes, sinkErr = DecodeKey(skey)
		}
	})
}

func BenchmarkListKey(b *testing.B) {
	b.Run("op=encode", func(b *testing.B) {
		dst := make([]byte, 0, 16)
		b.ReportAllocs()
		for b.Loop() {
			dst = AppendListKey(dst[:0], 42, ListStart)
		}
		sinkBytes = dst
	})
	b.Run("op=decode", func(b *testing.B) {
		k := AppendListKey(nil, 42, ListStart)
		b.ReportAllocs()
		for b.Loop() {
			sinkU64, sinkU64, sinkErr = DecodeListKey(k)
		}
	})
}

func BenchmarkScoreKey(b *testing.B) {
	member := []byte("member:0001")
	b.Run("op=encode", func(b *testing.B) {
		dst := make([]byte, 0, 64)
		b.ReportAllocs()
		for b.Loop() {
			dst = AppendScoreKey(dst[:0], 42, -1.5, member)
		}
		sinkBytes = dst
	})
	b.Run("op=decode", func(b *testing.B) {
		k := AppendScoreKey(nil, 42, -1.5, member)
		b.ReportAllocs()
		for b.Loop() {
			sinkU64, sinkF64, sinkBytes, sinkErr = DecodeScoreKey(k)
		}
	})
}

func BenchmarkZSetValue(b *testing.B) {
	b.Run("op=encode", func(b *testing.B) {
		dst := make([]byte, 0, 8)
		b.ReportAllocs()
		for b.Loop() {
			dst = AppendZSetValue(dst[:0], -1.5)
		}
		sinkBytes = dst
	})
	b.Run("op=decode", func(b *testing.B) {
		v := AppendZSetValue(nil, -1.5)
		b.ReportAllocs()
		for b.Loop() {
			sinkF64, sinkErr = DecodeZSetValue(v)
		}
	})
}
