package metadata

import "testing"

var (
	sinkBytes []byte
	sinkMeta  Meta
	sinkU16   uint16
	sinkErr   error
)

func BenchmarkMeta(b *testing.B) {
	metas := []struct {
		name string
		m    Meta
	}{
		{"type=string/len=16", Meta{Type: TypeString, ExpireMs: 1700000000000, Value: make([]byte, 16)}},
		{"type=hash", Meta{Type: TypeHash, UID: 1, Size: 2}},
		{"type=list", Meta{Type: TypeList, UID: 7, Size: 3, Head: 1 << 63, Tail: 1<<63 + 3}},
	}
	for _, bm := range metas {
		b.Run("op=encode/"+bm.name, func(b *testing.B) {
			dst := make([]byte, 0, 64)
			b.ReportAllocs()
			for b.Loop() {
				dst = bm.m.Append(dst[:0])
			}
			sinkBytes = dst
		})
		b.Run("op=decode/"+bm.name, func(b *testing.B) {
			enc := bm.m.Append(nil)
			b.ReportAllocs()
			for b.Loop() {
				sinkMeta, sinkErr = DecodeMeta(enc)
			}
		})
	}
}

func BenchmarkMetaKey(b *testing.B) {
	key := []byte("user:1000:profile")
	b.Run("op=encode", func(b *testing.B) {
		dst := make([]byte, 0, 64)
		b.ReportAllocs()
		for b.Loop() {
			dst = AppendMetaKey(dst[:0], 0, key)
		}
		sinkBytes = dst
	})
	b.Run("op=decode", func(b *testing.B) {
		mkey := AppendMetaKey(nil, 0, key)
		b.ReportAllocs()
		for b.Loop() {
			sinkU16, sinkBytes, sinkErr = DecodeMetaKey(mkey)
		}
	})
}

func BenchmarkSlot(b *testing.B) {
	for _, key := range []string{"user:1000:profile", "{user1000}.following"} {
		b.Run("key="+key, func(b *testing.B) {
			k := []byte(key)
			b.ReportAllocs()
			for b.Loop() {
				sinkU16 = Slot(k)
			}
		})
	}
}

func BenchmarkBook(b *testing.B) {
	bk := Book{Type: TypeHash, DB: 0, Key: []byte("user:1000:profile")}
	b.Run("op=encode", func(b *testing.B) {
		dst := make([]byte, 0, 64)
		b.ReportAllocs()
		for b.Loop() {
			dst = bk.Append(dst[:0])
		}
		sinkBytes = dst
	})
	b.Run("op=decode", func(b *testing.B) {
		enc := bk.Append(nil)
		var out Book
		b.ReportAllocs()
		for b.Loop() {
			out, sinkErr = DecodeBook(enc)
		}
		sinkBytes = out.Key
	})
}

func BenchmarkExpireKey(b *testing.B) {
	e := ExpireKey{ExpireMs: 1700000000000, DB: 0, Key: []byte("user:1000:profile")}
	b.Run("op=encode", func(b *testing.B) {
		dst := make([]byte, 0, 64)
		b.ReportAllocs()
		for b.Loop() {
			dst = e.Append(dst[:0])
		}
		sinkBytes = dst
	})
	b.Run("op=decode", func(b *testing.B) {
		enc := e.Append(nil)
		var out ExpireKey
		b.ReportAllocs()
		for b.Loop() {
			out, sinkErr = DecodeExpireKey(enc)
		}
		sinkBytes = out.Key
	})
}
