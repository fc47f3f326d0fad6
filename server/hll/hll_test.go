package hll

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"testing"
)

// The goldens are what redis-server 7.0.15 left under a key (GET) after
// the same PFADDs and a PFCOUNT, and the count it replied.
const (
	// PFADD k x y z, no PFCOUNT: the cache stale.
	goldenXYZ = "48594c4c010000000000000000000080" + "61848058cd8845a08408"
	// PFADD k 0 1 ... 199; PFCOUNT k: 201.
	goldenSparse200 = "48594c4c01000000c900000000000000407388404690409784208c2a8c404a841c803380404790018440c680407e8016803b802b801c8c4041884091843b8016881084404d8007803680118041418c128038840798406a8404840880318840ed804059842080078040f480418380098040808817801c804040842b80178440778006942e8040aa800a8040ad80018c378833804076804046804052803180405f802c840580404a8001884054904083804054848040898040628440568414802280108c1e84409f980f8040588040948037802480404b8001804121803180328441628040ad94404390406580407990028c407e8040578040ac90038040758040cb881a840c8004802a8c258040db80048c0f8440bf84159440bb8c378c09880c84405c880d804056844045843a940b8c3a80407780318c28802d803c801c8029804072802e884196802a80404b88404b801a804150804052883e804095800d84405d8840c4841b881588408d804044804095842d800e90388440eb8037843788218440a580406d84407384405280407584298040da80078c108409804058800680406b8804a0407b8440cd84388c40fb80358422801d882184406f80168c0b801b844099802880404880404a942c801180258c12841c802188179040768840a680404a8c40b880158418883a8040d994408a80407b80404e804098"
	// PFADD k 0 1 ... 9999; PFCOUNT k: 9987. Dense: its SHA-256.
	goldenDense10000 = "6a92ca5ab849e1b88feadc5881cbe5549af2cb6e9b7f8670251061c602a2f846"
)

// addAll adds the decimal numbers [0, n) to a new value, one at a time.
func addAll(n int) []byte {
	v := New()
	for i := range n {
		v, _, _ = Add(v, []byte(strconv.Itoa(i)), DefaultSparseMaxBytes)
	}
	return v
}

func TestGolden(t *testing.T) {
	v := New()
	for _, e := range []string{"x", "y", "z"} {
		v, _, _ = Add(v, []byte(e), DefaultSparseMaxBytes)
	}
	Invalidate(v)
	if got := hex.EncodeToString(v); got != goldenXYZ {
		t.Errorf("x y z: %s, want %s", got, goldenXYZ)
	}
	for _, tc := range []struct {
		n    int
		card uint64
		want string
	}{{200, 201, goldenSparse200}, {10000, 9987, goldenDense10000}} {
		v := addAll(tc.n)
		Invalidate(v)
		card, wrote, err := Count(v)
		if err != nil || !wrote || card != tc.card {
			t.Errorf("n=%d: count %d, %v, %v; want %d", tc.n, card, wrote, err, tc.card)
		}
		got := hex.EncodeToString(v)
		if IsDense(v) {
			sum := sha256.Sum256(v)
			got = hex.EncodeToString(sum[:])
		}
		if got != tc.want {
			t.Errorf("n=%d: %s, want %s", tc.n, got, tc.want)
		}
		if c, wrote, _ := Count(v); c != card || wrote {
			t.Errorf("n=%d: the cached count %d (wrote %v)", tc.n, c, wrote)
		}
	}
}

// TestEmpty: Redis's empty value, and its count.
func TestEmpty(t *testing.T) {
	v := New()
	if got := hex.EncodeToString(v); got != "48594c4c010000000000000000000000"+"7fff" {
		t.Fatalf("empty: %s", got)
	}
	if c, _, err := Count(v); c != 0 || err != nil {
		t.Fatalf("empty count %d, %v", c, err)
	}
	if got := string(Decode(v)); got != "Z:16384" {
		t.Fatalf("decode: %q", got)
	}
}

// TestPromotion: a sparse value turns dense past the size limit, and the
// dense form holds the same registers.
func TestPromotion(t *testing.T) {
	for _, limit := range []int{0, 20, 100, DefaultSparseMaxBytes} {
		v, ref := New(), New()
		for i := range 3000 {
			e := []byte(strconv.Itoa(i))
			var err error
			if v, _, err = Add(v, e, limit); err != nil {
				t.Fatal(err)
			}
			if !IsDense(v) && len(v) > max(limit, 18) {
				t.Fatalf("limit %d: sparse of %d bytes", limit, len(v))
			}
			ref, _, _ = Add(ref, e, 1<<30)
		}
		d, _, _ := ToDense(ref)
		if !IsDense(v) || !bytes.Equal(v[HeaderSize:], d[HeaderSize:]) {
			t.Fatalf("limit %d: registers differ from the sparse reference's", limit)
		}
	}
}

// TestMergeStore: the union of values equals the value of all their
// elements, and PFMERGE's Store writes it whatever the destination.
func TestMergeStore(t *testing.T) {
	a, b, all := New(), New(), New()
	for i := range 5000 {
		e := []byte("e" + strconv.Itoa(i))
		if i%2 == 0 {
			a, _, _ = Add(a, e, DefaultSparseMaxBytes)
		} else {
			b, _, _ = Add(b, e, 300)
		}
		all, _, _ = Add(all, e, DefaultSparseMaxBytes)
	}
	var r Registers
	if err := r.Merge(a); err != nil {
		t.Fatal(err)
	}
	if err := r.Merge(b); err != nil {
		t.Fatal(err)
	}
	Invalidate(all)
	want, _, _ := Count(all)
	if got := r.Count(); got != want {
		t.Fatalf("union count %d, want %d", got, want)
	}
	for _, dense := range []bool{false, true} {
		dst, err := r.Store(New(), dense, DefaultSparseMaxBytes)
		if err != nil {
			t.Fatal(err)
		}
		if got, _, _ := Count(dst); got != want {
			t.Fatalf("dense=%v: stored count %d, want %d", dense, got, want)
		}
	}
}

// TestSelfTest: PFSELFTEST passes.
func TestSelfTest(t *testing.T) {
	if err := SelfTest(); err != nil {
		t.Fatal(err)
	}
}

// FuzzValue feeds any bytes as a value to every function: none panics, a
// value that Check refuses is left alone, and one whose opcodes cover the
// registers exactly stays so after adds.
func FuzzValue(f *testing.F) {
	f.Add(New(), []byte("a"), uint16(3000))
	f.Add(addAll(200), []byte("b"), uint16(30))
	f.Add([]byte("HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x7f"), []byte("c"), uint16(3000))
	f.Add([]byte("HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x7f\xff\x83"), []byte("d"), uint16(3000))
	f.Fuzz(func(t *testing.T, v, elem []byte, limit uint16) {
		if Check(v) != nil {
			return
		}
		v = bytes.Clone(v)
		valid := IsDense(v) || walkSparse(v[HeaderSize:], func(int, int, uint8) bool { return true }) == NumRegisters
		var r Registers
		mergeErr := r.Merge(v)
		_ = r.Count()
		if !IsDense(v) {
			_ = Decode(v)
		}
		if _, _, err := ToDense(bytes.Clone(v)); (err == nil) != (mergeErr == nil) {
			t.Fatalf("ToDense %v, Merge %v", err, mergeErr)
		}
		_, _, _ = Count(bytes.Clone(v))
		for i := range 3 {
			var err error
			v, _, err = Add(v, append(elem, byte(i)), int(limit))
			if err != nil {
				if valid {
					t.Fatalf("add to a valid value: %v", err)
				}
				return
			}
			if Check(v) != nil {
				t.Fatalf("add made a value Check refuses: %x", v)
			}
		}
		if valid {
			if _, _, err := Count(v); err != nil {
				t.Fatalf("count of a valid value after adds: %v", err)
			}
		}
	})
}

func BenchmarkAdd(b *testing.B) {
	for _, n := range []int{100, 100000} {
		b.Run("elements="+strconv.Itoa(n), func(b *testing.B) {
			v := New()
			for i := range n {
				v, _, _ = Add(v, []byte(strconv.Itoa(i)), DefaultSparseMaxBytes)
			}
			e := []byte("element")
			b.ReportAllocs()
			for b.Loop() {
				v, _, _ = Add(v, e, DefaultSparseMaxBytes)
			}
		})
	}
}

func BenchmarkCount(b *testing.B) {
	v := New()
	for i := range 100000 {
		v, _, _ = Add(v, []byte(strconv.Itoa(i)), DefaultSparseMaxBytes)
	}
	b.ReportAllocs()
	for b.Loop() {
		Invalidate(v)
		_, _, _ = Count(v)
	}
}
