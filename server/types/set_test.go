package types

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
)

func setBS(ss ...string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

func setStrs(bb [][]byte) []string {
	out := make([]string, len(bb))
	for i, b := range bb {
		out[i] = string(b)
	}
	return out
}

// edges returns the profile sample of sorted members: the first and last 16.
func setEdges(members []string) [][]byte {
	n := min(profileEdge, len(members))
	return append(setBS(members[:n]...), setBS(members[len(members)-n:]...)...)
}

func setFormat(f string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(f, i)
	}
	sort.Strings(out)
	return out
}

func TestSeekProfile(t *testing.T) {
	for _, tc := range []struct {
		name    string
		members []string
		want    []string // the values of each position
	}{
		{"shared prefix, digits", setFormat("user:%06d", 5000), []string{
			"u", "s", "e", "r", ":", "0", "0", "01234", "0123456789", "0123456789", "0123456789"}},
		// Mixed lengths: the byte below and above each range, from the
		// shortest length on, so points fall between "119" and "12".
		{"decimal numbers", setFormat("%d", 10000), []string{
			"0123456789", "/0123456789:", "/0123456789:", "/0123456789:"}},
		// The sample's alphabet, within the range at the first position.
		{"hex", []string{"0a", "0f", "3c", "f0"}, []string{"03acf", "03acf"}},
		{"one member", []string{"abc"}, []string{"a", "b", "c"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := newSeekProfile(setEdges(tc.members))
			if !slices.Equal(setStrs(got.vals), tc.want) {
				t.Errorf("profile %q, want %q", setStrs(got.vals), tc.want)
			}
		})
	}

	// Binary members: every byte after the first differing position.
	r := rand.New(rand.NewPCG(1, 2))
	var bin []string
	for range 32 {
		b := make([]byte, 4)
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		bin = append(bin, string(b))
	}
	sort.Strings(bin)
	p := newSeekProfile(setBS(bin...))
	if len(p.vals) != 4 || len(p.vals[1]) != 256 || len(p.vals[3]) != 256 {
		t.Errorf("binary profile has %d positions of %d, %d values; want 4 with 256 after the first", len(p.vals), len(p.vals[1]), len(p.vals[3]))
	}
	if p.vals[0][0] != bin[0][0] || p.vals[0][len(p.vals[0])-1] != bin[31][0] {
		t.Errorf("binary profile's first position spans %x..%x, want the sample's %x..%x", p.vals[0][0], p.vals[0][len(p.vals[0])-1], bin[0][0], bin[31][0])
	}

	// At most profileVarying varying positions.
	long := []string{strings.Repeat("a", 40), strings.Repeat("b", 40)}
	if got := len(newSeekProfile(setBS(long...)).vals); got != profileVarying {
		t.Errorf("profile of 40-byte members has %d positions, want %d", got, profileVarying)
	}
}

// TestSeekProfileCDF checks cdf and catchment against a count over every
// point of small profiles.
func TestSeekProfileCDF(t *testing.T) {
	for _, p := range []seekProfile{
		{vals: setBS("ab", "/09:", "x")},
		{vals: setBS("0123", "5", "acd")},
		{vals: setBS("\x00\xff", "\x00\x01\x02")},
	} {
		var points []string
		var gen func(prefix string, i int)
		gen = func(prefix string, i int) {
			if i == len(p.vals) {
				points = append(points, prefix)
				return
			}
			for _, b := range p.vals[i] {
				gen(prefix+string([]byte{b}), i+1)
			}
		}
		gen("", 0)
		if got, want := p.pointProb(), 1/float64(len(points)); !setNear(got, want) {
			t.Errorf("%q: pointProb %g, want %g", setStrs(p.vals), got, want)
		}
		// Probe strings: every point, its prefixes and extensions, and
		// strings outside the profile.
		probes := []string{"", "\x00", "\xff", "\xff\xff\xff\xff", "a", "b/", "zz", "0", "3", "35d", "4"}
		for _, pt := range points {
			probes = append(probes, pt, pt[:1], pt[:len(pt)-1], pt+"\x00", pt+"z")
		}
		for _, s := range probes {
			n := 0
			for _, pt := range points {
				if pt <= s {
					n++
				}
			}
			if got, want := p.cdf([]byte(s)), float64(n)/float64(len(points)); !setNear(got, want) {
				t.Errorf("%q: cdf(%q) = %g, want %g", setStrs(p.vals), s, got, want)
			}
		}
		// catchment: the share of points in (pred, m], wrapping when pred >= m.
		for range 200 {
			a, b := probes[rand.IntN(len(probes))], probes[rand.IntN(len(probes))]
			n := 0
			for _, pt := range points {
				if (a < b && a < pt && pt <= b) || (a >= b && (pt > a || pt <= b)) {
					n++
				}
			}
			if got, want := p.catchment([]byte(a), []byte(b)), float64(n)/float64(len(points)); !setNear(got, want) {
				t.Errorf("%q: catchment(%q, %q) = %g, want %g", setStrs(p.vals), a, b, got, want)
			}
		}
	}
}

func setNear(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }

// memSeek is a seekFunc over sorted members in memory.
func memSeek(members []string) seekFunc {
	return func(point []byte) ([]byte, []byte, error) {
		i := sort.SearchStrings(members, string(point))
		m, pred := members[0], members[len(members)-1]
		if i < len(members) {
			m = members[i]
		}
		if i > 0 {
			pred = members[i-1]
		}
		return []byte(pred), []byte(m), nil
	}
}

// TestDrawBySeeksSpread draws from sets of typical member shapes through an
// in-memory seek and checks that every draw is a distinct member and that
// the draws spread over the set. The measure is the relative standard
// deviation of the members' chances of being drawn, estimated from the
// chi-square of the counts (chi2/df = 1 + expected·cv²): 0 for uniform
// draws, 0.3 when a typical member's chance is 30% off the mean. Ten draws
// per member keep the estimate's noise (cv² ± sqrt(2/df)/expected) small
// beside the bounds, and each case has its own fixed seed. A clustered
// set must make the sampler give up, so that the command reads the whole
// set.
func TestDrawBySeeksSpread(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	hex, bin := make([]string, 4096), make([]string, 4096)
	for i := range hex {
		hex[i] = fmt.Sprintf("%016x", r.Uint64())
		b := make([]byte, 8)
		for j := range b {
			b[j] = byte(r.IntN(256))
		}
		bin[i] = string(b)
	}
	sort.Strings(hex)
	sort.Strings(bin)
	clusters := append(setFormat("admin:%d", 5000), setFormat("user:%d", 5000)...)
	for i, tc := range []struct {
		name    string
		members []string
		n       uint64  // members per draw
		maxCV   float64 // relative spread of the members' chances
	}{
		{"fixed-width ids", setFormat("user:%06d", 4096), 1, 0.15},
		{"fixed-width ids, 32 per draw", setFormat("user:%06d", 4096), 32, 0.15},
		{"decimal numbers", setFormat("%d", 5000), 1, 0.15},
		// 0..4999: the numbers from 5 on have no four-digit members, as
		// below, and 156 draws resample 39 picks less evenly than 16 one.
		{"decimal numbers, 39 per draw", setFormat("%d", 5000), 39, 0.35},
		// The longest ids all start with "1": the others catch about ten
		// times as many points each, more than 16 draws fully resample.
		{"ids of mixed lengths", setFormat("user:%d", 12000), 1, 0.35},
		{"hex", hex, 1, 0.3},
		{"binary", bin, 1, 0.3},
		{"binary, 32 per draw", bin, 32, 0.45},
	} {
		// A seed of its own per case: the draws do not depend on which
		// cases ran before (-run filters) and every run is the same.
		r := rand.New(rand.NewPCG(uint64(i)+1, 8))
		t.Run(tc.name, func(t *testing.T) {
			prof := newSeekProfile(setEdges(tc.members))
			seek := memSeek(tc.members)
			member := make(map[string]bool, len(tc.members))
			for _, m := range tc.members {
				member[m] = true
			}
			counts := make(map[string]int, len(tc.members))
			total, fails := 0, 0
			for total < 10*len(tc.members) {
				out, ok, err := drawBySeeks(r, prof, seek, tc.n)
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					fails++
					continue
				}
				if uint64(len(out)) != tc.n {
					t.Fatalf("drew %d members, want %d", len(out), tc.n)
				}
				seen := map[string]bool{}
				for _, m := range out {
					if !member[string(m)] || seen[string(m)] {
						t.Fatalf("draw %q: %q is not a member or repeats", setStrs(out), m)
					}
					seen[string(m)] = true
					counts[string(m)]++
					total++
				}
			}
			exp := float64(total) / float64(len(tc.members))
			var chi float64
			for _, m := range tc.members {
				d := float64(counts[m]) - exp
				chi += d * d / exp
			}
			chi /= float64(len(tc.members) - 1)
			cv := math.Sqrt(max(0, chi-1) / exp)
			t.Logf("%d members, %d per draw: %d fallbacks, %d of them drawn, chi2/df %.2f, spread %.2f",
				len(tc.members), tc.n, fails, len(counts), chi, cv)
			if fails > total/int(tc.n)/100 {
				t.Errorf("%d fallbacks to a full read", fails)
			}
			if cv > tc.maxCV {
				t.Errorf("spread %.2f, want at most %.2f", cv, tc.maxCV)
			}
		})
	}
	t.Run("clusters", func(t *testing.T) {
		r := rand.New(rand.NewPCG(100, 8))
		sort.Strings(clusters)
		prof := newSeekProfile(setEdges(clusters))
		fails := 0
		for range 200 {
			if _, ok, _ := drawBySeeks(r, prof, memSeek(clusters), 1); !ok {
				fails++
			}
		}
		if fails < 190 {
			t.Errorf("the sampler gave up on %d of 200 draws from two clusters, want nearly all", fails)
		}
	})
}

func TestSeekSampling(t *testing.T) {
	for _, tc := range []struct {
		size, draws uint64
		want        bool
	}{
		{4095, 1, false},
		{4096, 1, true},
		{4096, 32, true},
		{4096, 33, false},
		{1 << 20, 8192, true},
		{1 << 20, 8193, false},
	} {
		if got := seekSampling(tc.size, tc.draws); got != tc.want {
			t.Errorf("seekSampling(%d, %d) = %v, want %v", tc.size, tc.draws, got, tc.want)
		}
	}
}

func TestPickDistinct(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 5, 10, 20} {
		all := setBS("a", "b", "c", "d", "e", "f", "g", "h", "i", "j")
		got := setStrs(pickDistinct(r, all, n))
		if len(got) != min(n, 10) {
			t.Fatalf("pickDistinct(%d) returned %d", n, len(got))
		}
		if len(slices.Compact(slices.Sorted(slices.Values(got)))) != len(got) {
			t.Fatalf("pickDistinct(%d) repeats: %q", n, got)
		}
	}
}

// TestSetSeeker checks the store's seekFunc against the in-memory one.
func TestSetSeeker(t *testing.T) {
	d, _ := newTestDB(t)
	members := setFormat("m%05d", 5000)
	fillSet(t, d, "s", members)
	fillSet(t, d, "after", []string{"zz"}) // a neighbour uid must not leak in
	ks := loadedSet(t, d, []byte("s"))
	seek := d.setSeeker(ks.m.UID, []byte(members[0]), []byte(members[len(members)-1]))
	ref := memSeek(members)
	for _, pt := range []string{"", "a", "m", "m00000", "m02500", "m025005", "m04999", "m05", "n", "\xff\xff"} {
		p1, m1, err := seek([]byte(pt))
		if err != nil {
			t.Fatal(err)
		}
		p2, m2, _ := ref([]byte(pt))
		if !bytes.Equal(p1, p2) || !bytes.Equal(m1, m2) {
			t.Errorf("seek(%q) = (%q, %q), want (%q, %q)", pt, p1, m1, p2, m2)
		}
	}
}

// TestSetRandomOnStore draws from a big set on a real store, by seeks and
// by full reads, and pops from it.
func TestSetRandomOnStore(t *testing.T) {
	d, _ := newTestDB(t)
	members := setFormat("user:%d", 20000)
	fillSet(t, d, "s", members)
	fillSet(t, d, "c", append(setFormat("admin:%d", 3000), setFormat("user:%d", 3000)...))
	isMember := map[string]bool{}
	for _, m := range members {
		isMember[m] = true
	}
	key := []byte("s")
	check := func(name string, got [][]byte, n int, distinct bool) {
		t.Helper()
		if len(got) != n {
			t.Fatalf("%s: %d members, want %d", name, len(got), n)
		}
		seen := map[string]bool{}
		for _, m := range got {
			if !isMember[string(m)] || (distinct && seen[string(m)]) {
				t.Fatalf("%s: %q is not a member or repeats", name, m)
			}
			seen[string(m)] = true
		}
	}
	mr := must[[][]byte](t)
	seen := map[string]bool{}
	for range 300 {
		got := mr(d.SRandMember(key, 1))
		check("SRANDMEMBER 1", got, 1, true)
		seen[string(got[0])] = true
	}
	if len(seen) < 270 { // 300 uniform draws from 20000 give about 298
		t.Errorf("300 single draws gave %d different members", len(seen))
	}
	check("SRANDMEMBER 150", mr(d.SRandMember(key, 150)), 150, true) // by seeks
	check("SRANDMEMBER 5000", mr(d.SRandMember(key, 5000)), 5000, true)
	check("SRANDMEMBER -150", mr(d.SRandMember(key, -150)), 150, false)
	check("SRANDMEMBER -50000", mr(d.SRandMember(key, -50000)), 50000, false)
	check("SRANDMEMBER 30000", mr(d.SRandMember(key, 30000)), 20000, true)

	// A clustered set falls back to a full read and still draws right.
	for _, n := range []int64{1, 20, -20} {
		got := mr(d.SRandMember([]byte("c"), n))
		if len(got) != int(max(n, -n)) {
			t.Fatalf("SRANDMEMBER c %d returned %d members", n, len(got))
		}
	}

	popped := map[string]bool{}
	for _, n := range []int64{1, 100, 5000} {
		got := mr(d.SPop(key, n))
		check(fmt.Sprintf("SPOP %d", n), got, int(n), true)
		for _, m := range got {
			if popped[string(m)] {
				t.Fatalf("SPOP returned %q twice", m)
			}
			popped[string(m)] = true
			if ok, _ := d.SIsMember(key, m); ok {
				t.Fatalf("%q still a member after SPOP", m)
			}
		}
	}
	if got := must[int64](t)(d.SCard(key)); got != 20000-5101 {
		t.Fatalf("SCARD after popping 5101 = %d", got)
	}
	d.checkSize(key)
}

// TestSPopKeepsTTL: popping most of a set rewrites the rest under a new uid
// and keeps the key's expiry; popping everything removes the key.
func TestSPopKeepsTTL(t *testing.T) {
	d, clock := newTestDB(t)
	key := []byte("s")
	fillSet(t, d, "s", setFormat("m%d", 100))
	if ok, err := d.Expire(key, *clock+60_000, 0); err != nil || !ok {
		t.Fatal(ok, err)
	}
	uid := loadedSet(t, d, key).m.UID
	got := must[[][]byte](t)(d.SPop(key, 90))
	if len(got) != 90 {
		t.Fatalf("SPOP 90 returned %d", len(got))
	}
	ks := loadedSet(t, d, key)
	if ks.m.UID == uid || ks.m.Size != 10 || ks.m.ExpireMs != *clock+60_000 {
		t.Fatalf("after SPOP 90: uid %d (was %d), size %d, expire %d", ks.m.UID, uid, ks.m.Size, ks.m.ExpireMs)
	}
	if d.KeyCount() != 1 || d.ExpiresCount() != 1 {
		t.Fatalf("DBSIZE %d, expires %d; want 1, 1", d.KeyCount(), d.ExpiresCount())
	}
	rest := must[[][]byte](t)(d.SMembers(key))
	all := append(setStrs(got), setStrs(rest)...)
	if slices.Sort(all); !slices.Equal(all, setFormat("m%d", 100)) {
		t.Fatalf("popped and kept members do not make the set: %q", all)
	}
	d.checkSize(key)
	must[[][]byte](t)(d.SPop(key, 10))
	if d.KeyCount() != 0 || d.ExpiresCount() != 0 {
		t.Fatalf("after popping all: DBSIZE %d, expires %d", d.KeyCount(), d.ExpiresCount())
	}
}

// TestSetOpsMatchReference runs SINTER, SUNION and SDIFF, both SDIFF
// algorithms included, on random sets against a map-based reference.
func TestSetOpsMatchReference(t *testing.T) {
	d, _ := newTestDB(t)
	r := rand.New(rand.NewPCG(5, 6))
	sizes := map[string]int{"tiny": 5, "small": 300, "mid": 2000, "big": 9000}
	ref := map[string]map[string]bool{}
	for name, n := range sizes {
		ref[name] = map[string]bool{}
		var ms []string
		for range n {
			m := fmt.Sprintf("%d", r.IntN(12000))
			ref[name][m] = true
			ms = append(ms, m)
		}
		fillSet(t, d, name, ms)
	}
	if _, err := d.Set([]byte("str"), []byte("v"), SetOptions{}); err != nil {
		t.Fatal(err)
	}
	refOp := func(op string, keys []string) []string {
		out := map[string]bool{}
		for m := range ref[keys[0]] {
			out[m] = true
		}
		if op == "union" {
			for _, k := range keys[1:] {
				for m := range ref[k] {
					out[m] = true
				}
			}
		}
		for _, k := range keys[1:] {
			for m := range out {
				switch {
				case op == "inter" && !ref[k][m], op == "diff" && ref[k][m]:
					delete(out, m)
				}
			}
		}
		return slices.Sorted(func(yield func(string) bool) {
			for m := range out {
				if !yield(m) {
					return
				}
			}
		})
	}
	ops := map[string]func([][]byte) ([][]byte, error){"inter": d.SInter, "union": d.SUnion, "diff": d.SDiff}
	for _, keys := range [][]string{
		{"tiny", "big"}, {"big", "tiny"}, {"big", "mid", "small"}, {"small", "big", "mid"},
		{"mid", "mid"}, {"big"}, {"mid", "nokey"}, {"nokey", "mid"}, {"big", "small", "tiny", "mid"},
	} {
		for name, op := range ops {
			got, err := op(setBS(keys...))
			if err != nil {
				t.Fatal(err)
			}
			if want := refOp(name, keys); !slices.Equal(setStrs(got), want) {
				t.Errorf("%s %v: %d members, want %d (sorted)", name, keys, len(got), len(want))
			}
		}
		n, err := d.SInterCard(setBS(keys...), 0)
		if want := len(refOp("inter", keys)); err != nil || n != int64(want) {
			t.Errorf("SINTERCARD %v = %d, %v; want %d", keys, n, err, want)
		}
		if want := len(refOp("inter", keys)); want > 3 {
			if n, _ := d.SInterCard(setBS(keys...), 3); n != 3 {
				t.Errorf("SINTERCARD %v LIMIT 3 = %d", keys, n)
			}
		}
	}
	for name, op := range ops {
		if _, err := op(setBS("big", "str")); err != ErrWrongType {
			t.Errorf("%s with a string source: %v, want ErrWrongType", name, err)
		}
	}

	// STORE onto a source, and the counters.
	before := d.KeyCount()
	n := must[int64](t)(d.SDiffStore([]byte("big"), setBS("big", "mid")))
	if want := len(refOp("diff", []string{"big", "mid"})); n != int64(want) {
		t.Fatalf("SDIFFSTORE big big mid = %d, want %d", n, want)
	}
	d.checkSize([]byte("big"))
	if must[int64](t)(d.SInterStore([]byte("str"), setBS("tiny", "nokey"))) != 0 || d.KeyCount() != before-1 {
		t.Fatalf("an empty SINTERSTORE onto a string: DBSIZE %d, want %d", d.KeyCount(), before-1)
	}
	if typ, _ := d.Type([]byte("str")); typ != "none" {
		t.Fatalf("TYPE str = %s after an empty SINTERSTORE", typ)
	}
}

func TestSetEncoding(t *testing.T) {
	d, _ := newTestDB(t)
	for _, tc := range []struct {
		members []string
		want    string
	}{
		{[]string{"1", "-2", "9223372036854775807"}, "intset"},
		{[]string{"1", "a"}, "hashtable"},
		{[]string{"01"}, "hashtable"},
		{[]string{"-0"}, "hashtable"},
		{[]string{"+1"}, "hashtable"},
		{setFormat("%d", 512), "intset"},
		{setFormat("%d", 513), "hashtable"},
	} {
		key := fmt.Sprintf("%v", tc.members[:min(3, len(tc.members))])
		fillSet(t, d, key, tc.members)
		got, ok, err := d.ObjectEncoding([]byte(key))
		if err != nil || !ok || got != tc.want {
			t.Errorf("OBJECT ENCODING of %d members %q...: %q, %v, %v; want %q", len(tc.members), key, got, ok, err, tc.want)
		}
	}
}

// TestSetScanSharesCursors: SSCAN resumes after the last member examined,
// scoped to the set's uid.
func TestSetScanSharesCursors(t *testing.T) {
	d, _ := newTestDB(t)
	members := setFormat("m%04d", 1000)
	fillSet(t, d, "s", members)
	var got []string
	cursor := uint64(0)
	for calls := 0; ; calls++ {
		next, items, err := d.SScan([]byte("s"), cursor, nil, 7)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, setStrs(items)...)
		if cursor = next; cursor == 0 {
			break
		}
	}
	if !slices.Equal(got, members) {
		t.Fatalf("SSCAN returned %d members, want each of %d once, in order", len(got), len(members))
	}
	_, matched, err := d.SScan([]byte("s"), 0, []byte("m00?1"), 10000)
	if err != nil || !slices.Equal(setStrs(matched), []string{"m0001", "m0011", "m0021", "m0031", "m0041", "m0051", "m0061", "m0071", "m0081", "m0091"}) {
		t.Fatalf("SSCAN MATCH m00?1 = %q, %v", setStrs(matched), err)
	}
}

// TestSetCommandsKeepCountersExact: DBSIZE follows every way a set comes
// and goes.
func TestSetCommandsKeepCountersExact(t *testing.T) {
	d, _ := newTestDB(t)
	mi := must[int64](t)
	mb := must[bool](t)
	if mi(d.SAdd([]byte("a"), setBS("x", "y", "x"))) != 2 || d.KeyCount() != 1 {
		t.Fatalf("SADD: DBSIZE %d", d.KeyCount())
	}
	if !mb(d.SMove([]byte("a"), []byte("b"), []byte("x"))) || d.KeyCount() != 2 {
		t.Fatalf("SMOVE to a new key: DBSIZE %d", d.KeyCount())
	}
	if !mb(d.SMove([]byte("a"), []byte("b"), []byte("y"))) || d.KeyCount() != 1 {
		t.Fatalf("SMOVE of the last member: DBSIZE %d", d.KeyCount())
	}
	d.checkSize([]byte("b"))
	if mi(d.SRem([]byte("b"), setBS("x", "y"))) != 2 || d.KeyCount() != 0 {
		t.Fatalf("SREM of every member: DBSIZE %d", d.KeyCount())
	}
	if mi(d.SAdd([]byte("c"), setBS("1"))) != 1 || mi(d.SUnionStore([]byte("d"), setBS("c", "c"))) != 1 || d.KeyCount() != 2 {
		t.Fatalf("SUNIONSTORE: DBSIZE %d", d.KeyCount())
	}
	if _, err := d.SPop([]byte("d"), 1); err != nil || d.KeyCount() != 1 {
		t.Fatalf("SPOP of the last member: DBSIZE %d, %v", d.KeyCount(), err)
	}
}

// TestRandCountBound checks the bound on a negative count of SRANDMEMBER,
// HRANDFIELD and ZRANDMEMBER: ErrRandCount on a live key of the right type,
// before any allocation sized by the count, and only after the key is
// loaded, so a missing key still answers empty and another type
// ErrWrongType, as in Redis.
func TestRandCountBound(t *testing.T) {
	d, _ := newTestDB(t)
	if _, err := d.SAdd([]byte("s"), [][]byte{[]byte("a")}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.HSet([]byte("h"), [][]byte{[]byte("f"), []byte("v")}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.ZAdd([]byte("z"), 0, []ScoreMember{{[]byte("m"), 1}}); err != nil {
		t.Fatal(err)
	}
	draws := map[string]func(key string, count int64) (int, error){
		"srandmember": func(key string, count int64) (int, error) {
			got, err := d.SRandMember([]byte(key), count)
			return len(got), err
		},
		"hrandfield": func(key string, count int64) (int, error) {
			got, err := d.HRandField([]byte(key), count, true)
			return len(got) / 2, err
		},
		"zrandmember": func(key string, count int64) (int, error) {
			got, err := d.ZRandMember([]byte(key), count)
			return len(got), err
		},
	}
	own := map[string]string{"srandmember": "s", "hrandfield": "h", "zrandmember": "z"}
	for name, draw := range draws {
		for _, tc := range []struct {
			key     string
			count   int64
			want    int
			wantErr error
		}{
			{own[name], -MaxRandCount - 1, 0, ErrRandCount},
			{own[name], math.MinInt64 + 1, 0, ErrRandCount},
			{own[name], -3, 3, nil},
			{own[name], math.MaxInt64, 1, nil},
			{"nokey", math.MinInt64 + 1, 0, nil},
			{map[string]string{"s": "h", "h": "z", "z": "s"}[own[name]], math.MinInt64 + 1, 0, ErrWrongType},
		} {
			t.Run(fmt.Sprintf("%s/%s/%d", name, tc.key, tc.count), func(t *testing.T) {
				n, err := draw(tc.key, tc.count)
				if !errors.Is(err, tc.wantErr) || n != tc.want {
					t.Fatalf("%d elements, err %v; want %d, %v", n, err, tc.want, tc.wantErr)
				}
			})
		}
	}
}

// TestSPopRewritesChurnedSet drains a set with SREM, SMOVE and SPOP: the
// pop that finds at least half as many members removed under the set's
// uid as members left rewrites those left under a new uid (churn.go), and
// no member is lost or popped twice.
func TestSPopRewritesChurnedSet(t *testing.T) {
	d, _ := newTestDB(t)
	key := []byte("s")
	members := setFormat("m%04d", 1000)
	fillSet(t, d, "s", members)
	gone := map[string]bool{}
	for _, m := range members[:290] {
		must[int64](t)(d.SRem(key, setBS(m)))
		gone[m] = true
	}
	for _, m := range members[290:300] {
		must[bool](t)(d.SMove(key, []byte("other"), []byte(m)))
		gone[m] = true
	}
	uid := loadedSet(t, d, key).m.UID
	var rewrites []int // the pops that rewrote the set
	for pop := 1; len(gone) < len(members); pop++ {
		got := must[[][]byte](t)(d.SPop(key, 1))
		if len(got) != 1 || gone[string(got[0])] {
			t.Fatalf("pop %d: %q (popped or removed before: %v)", pop, got, len(got) == 1 && gone[string(got[0])])
		}
		gone[string(got[0])] = true
		if len(gone) == len(members) {
			break
		}
		if now := loadedSet(t, d, key).m.UID; now != uid {
			rewrites = append(rewrites, pop)
			uid = now
		}
	}
	// 300 removed and 700 left: pop k+1 finds 300+k removed and 700-k
	// left, and rewrites once 2(300+k) >= 700-k, at k = 34, leaving 665.
	// Pop j after a rewrite finds j-1 removed: the next rewrites come at
	// j = 223 (442 left), 149 (293 left), and then, the count held back
	// by minChurnRewrite, at j = 129 twice (164 and 35 left).
	want := []int{35, 258, 407, 536, 665}
	if !slices.Equal(rewrites, want) {
		t.Fatalf("SPOP rewrote the set at pops %v, want %v", rewrites, want)
	}
}

// TestSRemRewritesChurnedSet removes a set's members one SREM at a time:
// the SREM after which at least half as many members were removed under
// the set's uid as are left rewrites those left under a new uid.
func TestSRemRewritesChurnedSet(t *testing.T) {
	d, _ := newTestDB(t)
	key := []byte("s")
	members := setFormat("m%04d", 1000)
	fillSet(t, d, "s", members)
	uid := loadedSet(t, d, key).m.UID
	var rewrites []int
	for i, m := range members {
		if n := must[int64](t)(d.SRem(key, setBS(m, "absent"))); n != 1 {
			t.Fatalf("SREM %s removed %d", m, n)
		}
		if i == len(members)-1 {
			break
		}
		ks := loadedSet(t, d, key)
		if ks.m.UID != uid {
			rewrites = append(rewrites, i+1)
			uid = ks.m.UID
			if got := setStrs(must[[][]byte](t)(d.SMembers(key))); !slices.Equal(got, members[i+1:]) || ks.m.Size != uint64(len(got)) {
				t.Fatalf("after the rewrite at SREM %d: %d members (size %d), want %d", i+1, len(got), ks.m.Size, len(members)-i-1)
			}
		}
	}
	// SREM k finds k-1 removed and 1001-k left, and rewrites once
	// 2k >= 1000-k, at k = 334 (666 left); then after 222 more (444
	// left), 148 (296 left), and 128 twice, minChurnRewrite's count.
	if want := []int{334, 556, 704, 832, 960}; !slices.Equal(rewrites, want) {
		t.Fatalf("SREM rewrote the set at %v, want %v", rewrites, want)
	}
	if d.KeyCount() != 0 {
		t.Fatalf("DBSIZE %d after removing every member", d.KeyCount())
	}
}
