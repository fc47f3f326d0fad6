package types

import (
	"bytes"
	"cmp"
	"errors"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/shaledb/shale/metadata"
	"github.com/shaledb/shale/server/store"
	"github.com/shaledb/shale/subkey"
)

// Random members of a set (SRANDMEMBER, SPOP) and random fields of a hash
// (HRANDFIELD): both are the sub-keys of the key's uid, so one sampler
// serves them, and what follows says "set" and "member" for either.
//
// A set's members are the sub-keys of its uid, in byte order, with no index
// by rank, so an exactly uniform draw needs the whole set. Reading a million
// members to return five is what Shale avoids: for a small count on a big
// set it draws by random seeks instead.
//
// A draw builds a random byte string, the point, seeks to uid·point in the
// subkey CF and lands on the first member at or after it (wrapping around to
// the first member past the end). Points of uniform bytes would be useless:
// members such as "user:000123" share a prefix, and nearly every point would
// fall outside them. So points come from a profile of the set, built from its
// first and last members (newSeekProfile): the shared prefix is fixed, digits
// are drawn among digits, hex digits among hex digits, and each position
// stays within the range the sample spans there.
//
// Landing is still uneven: a member catches the points between the member
// before it and itself, and that share, its catchment V, varies. In the set
// "0".."9999", "538" catches every point "537x" while "1538" catches only
// itself. So each draw also seeks the member before the point and computes
// the landed member's catchment exactly from the profile, and the sampler
// resamples its draws with weights 1/V (sampling-importance-resampling): a
// member is landed on with probability V and kept with weight 1/V, so every
// member ends up with about the same chance. It draws 4 candidates per
// member returned, and at least minProbes. The result is close to uniform,
// not exact, as Redis's own SRANDMEMBER is not either (Redis picks a random
// bucket, then a random entry of the bucket's chain). TestDrawBySeeksSpread
// measures the relative spread of the members' chances: none to speak of for
// fixed-width ids and decimal numbers, about 0.2 for hex and binary members
// and for ids whose longest forms share a leading digit ("user:0" to
// "user:11999"), about 0.35 when one call draws many members from such sets.
//
// Two guards bound the cost and the damage:
//   - Seeks are used only when the draws are few next to the set's size
//     (seekSampling), and never for small sets.
//   - The sampler counts repeated landings. Resampling repairs members
//     landed on too often, but cannot repair members the points hardly
//     reach. When more than half of the landings repeat (maxRepeats), a few
//     members catch most points, as in a set made of clusters the profile
//     does not see ("admin:*" and "user:*"), and the command falls back to
//     reading the whole set and drawing uniformly.
//
// Members drawn by seeks are always distinct, also for a negative count
// (where repeats are allowed): with at most size/128 draws, uniform draws
// would repeat a member in at most about 1 draw in 256.

const (
	// seekSampleMinSize is the smallest set sampled by seeks; below it a
	// full read costs little, and small sets of mixed-length members are
	// where the resampling is least even.
	seekSampleMinSize = 4096
	// seekSampleRatio: seeks are used for k draws only when k*ratio <= size.
	// The sampler makes 4k draws of two seeks each, 8k seeks, against a
	// full read of size members in order.
	seekSampleRatio = 128
	// profileEdge is the number of members read at each end of the set to
	// build the profile.
	profileEdge = 16
	// profileVarying bounds the profile to this many varying positions: 16
	// random bytes already separate far more members than a set holds.
	profileVarying = 16
	// binaryAlphabet: a sample holding more different bytes than this is
	// taken for binary data, drawn over whole byte ranges rather than over
	// its alphabet (base64 has 64 symbols).
	binaryAlphabet = 96
	// minProbes is the fewest draws a sampling makes, so that even a single
	// SRANDMEMBER resamples among several candidates and can notice a heavy
	// bias through repeats.
	minProbes = 16
)

// seekSampling reports whether draws members of a set of size members are
// drawn by seeks rather than from a full read.
func seekSampling(size, draws uint64) bool {
	return size >= seekSampleMinSize && draws <= size/seekSampleRatio
}

// maxRepeats is how many repeated landings k draws may show before the
// sampler calls the set too clustered for seeks: half of them. (Uniform
// draws, 4 per member returned from at least 128 members each, repeat about
// k²/2n <= k/64 times.)
func maxRepeats(k uint64) uint64 {
	return k / 2
}

// seekProfile is the distribution points are drawn from: a point has
// len(vals) bytes, and byte i is drawn uniformly from vals[i] (sorted, not
// empty).
type seekProfile struct {
	vals [][]byte
}

// newSeekProfile builds the profile of a sample of members: the set's first
// and last ones.
//   - Up to the first position where the sample differs, the points keep
//     the sample's bytes: a shared prefix is fixed.
//   - At the first differing position, a byte is drawn within the range the
//     sample spans there, which is the set's true range: its first member
//     holds the smallest byte and its last member the largest.
//   - Later positions draw from the sample's alphabet: the bytes it holds
//     from the first differing position on (digits for numbers, hex digits
//     for hex ids). The first and last members say nothing about the range
//     of later positions in the middle of the set. A sample with more than
//     binaryAlphabet different bytes is binary data, drawn over every byte.
//   - When the sampled members differ in length, every varying position from
//     the shortest length on also gets the byte below and the byte above its
//     range, so that points fall between a member and a longer or shorter
//     neighbour with the same prefix: "11:" between "119" and "12", and
//     "1001/" between "1001" and "10010".
//
// The profile stops after profileVarying varying positions.
func newSeekProfile(members [][]byte) seekProfile {
	minLen, maxLen := math.MaxInt, 0
	for _, m := range members {
		minLen, maxLen = min(minLen, len(m)), max(maxLen, len(m))
	}
	var p seekProfile
	var alphabet [256]bool
	first := -1 // the first differing position
	binary := false
	varying := 0
	for i := 0; i < maxLen && varying < profileVarying; i++ {
		lo, hi := byte(0xff), byte(0)
		for _, m := range members {
			if i < len(m) {
				lo, hi = min(lo, m[i]), max(hi, m[i])
			}
		}
		if first < 0 && lo == hi && i < minLen {
			p.vals = append(p.vals, []byte{lo})
			continue
		}
		if first < 0 {
			first = i
			n := 0
			for _, m := range members {
				for _, b := range m[min(i, len(m)):] {
					if !alphabet[b] {
						alphabet[b] = true
						n++
					}
				}
			}
			binary = n > binaryAlphabet
		}
		if i > first {
			// The sample spans only part of the set's range here: the
			// first and last members tell nothing about the middle.
			lo, hi = 0, 0xff
		}
		var vals []byte
		ends := minLen < maxLen && i >= minLen
		for b := int(lo); b <= int(hi); b++ {
			if alphabet[b] || binary || (i == first && (b == int(lo) || b == int(hi))) {
				vals = append(vals, byte(b))
			}
		}
		if ends && vals[0] > 0 {
			vals = append([]byte{vals[0] - 1}, vals...)
		}
		if ends && vals[len(vals)-1] < 0xff {
			vals = append(vals, vals[len(vals)-1]+1)
		}
		p.vals = append(p.vals, vals)
		if len(vals) > 1 {
			varying++
		}
	}
	return p
}

// point appends a random point drawn from the profile to dst.
func (p seekProfile) point(r *rand.Rand, dst []byte) []byte {
	for _, vals := range p.vals {
		dst = append(dst, vals[r.IntN(len(vals))])
	}
	return dst
}

// pointProb is the probability of drawing any one point.
func (p seekProfile) pointProb() float64 {
	prob := 1.0
	for _, vals := range p.vals {
		prob /= float64(len(vals))
	}
	return prob
}

// cdf is the probability that a point is <= s in byte order.
func (p seekProfile) cdf(s []byte) float64 {
	below, equal := 0.0, 1.0 // P(point < s so far), P(point == s so far)
	for i, vals := range p.vals {
		if i == len(s) {
			return below // the point is longer than s, with s as its prefix
		}
		n, found := slices.BinarySearch(vals, s[i])
		below += equal * float64(n) / float64(len(vals))
		if !found {
			return below
		}
		equal /= float64(len(vals))
	}
	// The point equals s, or is a prefix of a longer s.
	return below + equal
}

// catchment is the probability that a point lands on m when pred is the
// member before it: that it falls in (pred, m]. When pred >= m the interval
// wraps around (m is the first member and pred the last).
func (p seekProfile) catchment(pred, m []byte) float64 {
	if bytes.Compare(pred, m) < 0 {
		return p.cdf(m) - p.cdf(pred)
	}
	return p.cdf(m) + 1 - p.cdf(pred)
}

// seekFunc returns, for a point, the last member before it and the first
// member at or after it, each wrapping around the set's ends. The returned
// slices are the caller's.
type seekFunc func(point []byte) (pred, m []byte, err error)

// drawBySeeks draws n distinct members of a set through seek, with points
// from prof, and resamples them by catchment (see above). The set must hold
// many more than n members (seekSampling). ok is false when the set is too
// clustered for seeks, and the caller must draw from a full read. The result
// is in random order.
func drawBySeeks(r *rand.Rand, prof seekProfile, seek seekFunc, n uint64) (out [][]byte, ok bool, err error) {
	type cand struct {
		m      []byte
		weight float64 // sum of 1/catchment over the landings on m
	}
	probes := max(4*n, minProbes)
	floor := prof.pointProb()
	idx := make(map[string]int, probes)
	var cands []cand
	var point []byte
	var tries, repeats uint64
	for tries < probes || uint64(len(cands)) < n {
		if tries == 2*probes+16 {
			// Members the points cannot reach, or a run of bad luck.
			return nil, false, nil
		}
		tries++
		point = prof.point(r, point[:0])
		pred, m, err := seek(point)
		if err != nil {
			return nil, false, err
		}
		// The point itself lies in (pred, m], so the catchment is at least
		// the chance of drawing that point; the floor keeps the rounding of
		// a difference of two cdfs from going below it (or to zero).
		w := 1 / max(prof.catchment(pred, m), floor)
		if i, seen := idx[string(m)]; seen {
			cands[i].weight += w
			if repeats++; repeats > maxRepeats(max(tries, probes)) {
				return nil, false, nil
			}
			continue
		}
		idx[string(m)] = len(cands)
		cands = append(cands, cand{m, w})
	}
	// Weighted sampling without replacement (Efraimidis and Spirakis): keep
	// the n largest keys log(u)/weight, u uniform in (0, 1).
	keys := make([]float64, len(cands))
	order := make([]int, len(cands))
	for i, c := range cands {
		keys[i] = math.Log(1-r.Float64()) / c.weight
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(keys[b], keys[a]) })
	out = make([][]byte, n)
	for i := range out {
		out[i] = cands[order[i]].m
	}
	// The keys order the picks by weight; shuffle them for a random order.
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out, true, nil
}

// MaxRandCount bounds how many members SRANDMEMBER, HRANDFIELD and
// ZRANDMEMBER draw when members may repeat (a negative count): Shale builds
// the reply in memory, where Redis streams |count| elements, up to 2^63 of
// them.
const MaxRandCount = 1 << 24

// ErrRandCount is SRandMember's, HRandField's and ZRandMember's error for a
// negative count beyond MaxRandCount. They check it after loading the key,
// so that a missing key still answers an empty reply and a key of another
// type ErrWrongType, as in Redis, which looks the key up before it starts
// streaming.
var ErrRandCount = errors.New("random count out of range")

// randWalk is about how many records a draw of count members from size
// reads: at most the whole key, or |count| seeks.
func randWalk(count int64, size uint64) uint64 {
	if count < 0 {
		return uint64(-count)
	}
	return min(uint64(count), size)
}

// checkRandCount returns ErrRandCount for a negative count beyond
// MaxRandCount.
func checkRandCount(count int64) error {
	if count < -MaxRandCount {
		return ErrRandCount
	}
	return nil
}

// randView starts SRANDMEMBER's, HRANDFIELD's and ZRANDMEMBER's count form,
// under the key's lock that unlock (the caller's deferred one) releases: it
// loads key, of type t, into ks, checks count, and returns the view the draw
// reads (walkView) and the function to call when it is done. The view is
// nil when there is nothing to draw: an error, a missing key or a count of
// 0. A missing key or one of another type is answered before the count's
// range, as Redis does.
func (d *DB) randView(ks *keyState, key []byte, t metadata.Type, count int64, unlock *store.Unlock) (*DB, func(), error) {
	if err := d.loadType(ks, key, t, d.e.now()); err != nil || !ks.live || count == 0 {
		return nil, noUnlock, err
	}
	if err := checkRandCount(count); err != nil {
		return nil, noUnlock, err
	}
	v, done := d.walkView(randWalk(count, ks.m.Size), unlock)
	return v, done, nil
}

// newRand returns a generator for one command, seeded from the runtime's
// source (math/rand/v2's *Rand is not safe for concurrent use).
func newRand() *rand.Rand {
	return rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
}

// edgeMembers returns up to n members of uid from its start, or from its
// end when reverse is set, in iteration order.
func (d *DB) edgeMembers(uid uint64, n int, reverse bool) ([][]byte, error) {
	out := make([][]byte, 0, n)
	err := d.rd.Iterate(store.CFSubkey, subkey.AppendPrefix(nil, uid), subkey.AppendUpperBound(nil, uid), reverse,
		func(k, _ []byte) bool {
			out = append(out, append([]byte{}, k[8:]...))
			return len(out) < n
		})
	return out, err
}

// sampleBySeeks draws n distinct members of the live set ks by random seeks
// (see above). ok is false when the set looks too clustered for seeks; the
// caller then reads the whole set.
func (d *DB) sampleBySeeks(r *rand.Rand, ks *keyState, n uint64) ([][]byte, bool, error) {
	uid := ks.m.UID
	first, err := d.edgeMembers(uid, profileEdge, false)
	if err != nil || len(first) == 0 {
		return nil, false, err
	}
	last, err := d.edgeMembers(uid, profileEdge, true)
	if err != nil {
		return nil, false, err
	}
	prof := newSeekProfile(append(slices.Clone(first), last...))
	return drawBySeeks(r, prof, d.setSeeker(uid, first[0], last[0]), n)
}

// setSeeker is the seekFunc of the set with uid, whose first and last
// members are given: one forward seek for the member at or after the point,
// one backward seek for the member before it.
func (d *DB) setSeeker(uid uint64, first, last []byte) seekFunc {
	lower, upper := subkey.AppendPrefix(nil, uid), subkey.AppendUpperBound(nil, uid)
	var at []byte
	return func(point []byte) (pred, m []byte, err error) {
		at = subkey.AppendKey(at[:0], uid, point)
		err = d.rd.Iterate(store.CFSubkey, at, upper, false, func(k, _ []byte) bool {
			m = append([]byte{}, k[8:]...)
			return false
		})
		if err != nil {
			return nil, nil, err
		}
		err = d.rd.Iterate(store.CFSubkey, lower, at, true, func(k, _ []byte) bool {
			pred = append([]byte{}, k[8:]...)
			return false
		})
		if m == nil {
			m = first // past the last member: wrap around
		}
		if pred == nil {
			pred = last // before the first member: wrap around
		}
		return pred, m, err
	}
}

// drawKind says whether randomMembers may return a member more than once.
type drawKind uint8

const (
	distinctDraws    drawKind = iota // n distinct members: a positive count
	independentDraws                 // n independent draws: a negative count
)

// randomMembers draws n members of the live set ks: distinct ones (n below
// its size) or n independent draws, as kind says. It samples by seeks where
// that is cheaper and falls back to a full read.
func (d *DB) randomMembers(ks *keyState, n uint64, kind drawKind) ([][]byte, error) {
	r := newRand()
	if seekSampling(ks.m.Size, n) {
		out, ok, err := d.sampleBySeeks(r, ks, n)
		if err != nil || ok {
			return out, err
		}
	}
	all, err := d.setMembers(ks)
	if err != nil || len(all) == 0 {
		return nil, err
	}
	if kind == independentDraws {
		out := make([][]byte, n)
		for i := range out {
			out[i] = all[r.IntN(len(all))]
		}
		return out, nil
	}
	return pickDistinct(r, all, int(n)), nil
}

// pickDistinct moves n random elements of all to its front (a partial
// Fisher-Yates shuffle) and returns them.
func pickDistinct(r *rand.Rand, all [][]byte, n int) [][]byte {
	n = min(n, len(all))
	for i := range n {
		j := i + r.IntN(len(all)-i)
		all[i], all[j] = all[j], all[i]
	}
	return all[:n]
}
