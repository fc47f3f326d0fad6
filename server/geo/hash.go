package geo

import (
	"math"
	"strconv"
)

// The limits of the coordinates GEOADD accepts (EPSG:900913): the
// latitudes past ±85.05112878 cannot be projected.
const (
	LonMin = -180.0
	LonMax = 180.0
	LatMin = -85.05112878
	LatMax = 85.05112878
)

// StepMax is the precision of a stored hash: 26 bits per coordinate, 52 in
// all, which a float64 score holds exactly.
const StepMax = 26

// Hash is a geohash of Step bits per coordinate: the latitude's bits in the
// even positions, the longitude's in the odd ones. The zero Hash is "no
// cell" (a neighbor a search skips).
type Hash struct {
	Bits uint64
	Step uint8
}

// IsZero reports whether h is the zero Hash.
func (h Hash) IsZero() bool { return h.Bits == 0 && h.Step == 0 }

// Range is an interval of degrees.
type Range struct{ Min, Max float64 }

// Area is the cell of a Hash.
type Area struct {
	Lon, Lat Range
}

// wgs84 are the ranges of stored hashes; standard is the -90..90 latitude
// range of the standard geohash that GEOHASH replies.
var (
	wgs84Lon, wgs84Lat = Range{LonMin, LonMax}, Range{LatMin, LatMax}
	standardLat        = Range{-90, 90}
)

// spread moves the 32 bits of v to the even positions of the result.
func spread(v uint32) uint64 {
	x := uint64(v)
	x = (x | x<<16) & 0x0000FFFF0000FFFF
	x = (x | x<<8) & 0x00FF00FF00FF00FF
	x = (x | x<<4) & 0x0F0F0F0F0F0F0F0F
	x = (x | x<<2) & 0x3333333333333333
	x = (x | x<<1) & 0x5555555555555555
	return x
}

// squeeze is the inverse of spread: the even bits of x, packed.
func squeeze(x uint64) uint32 {
	x &= 0x5555555555555555
	x = (x | x>>1) & 0x3333333333333333
	x = (x | x>>2) & 0x0F0F0F0F0F0F0F0F
	x = (x | x>>4) & 0x00FF00FF00FF00FF
	x = (x | x>>8) & 0x0000FFFF0000FFFF
	x = (x | x>>16) & 0x00000000FFFFFFFF
	return uint32(x)
}

// InRange reports whether lon, lat are coordinates GEOADD accepts.
func InRange(lon, lat float64) bool {
	return lon >= LonMin && lon <= LonMax && lat >= LatMin && lat <= LatMax
}

// encode is the hash of step bits of lon, lat within the given ranges;
// false when they lie outside the WGS84 limits or the ranges.
func encode(lonR, latR Range, lon, lat float64, step uint8) (Hash, bool) {
	if step == 0 || step > 32 || !InRange(lon, lat) ||
		lat < latR.Min || lat > latR.Max || lon < lonR.Min || lon > lonR.Max {
		return Hash{}, false
	}
	latOff := (lat - latR.Min) / (latR.Max - latR.Min)
	lonOff := (lon - lonR.Min) / (lonR.Max - lonR.Min)
	scale := float64(uint64(1) << step)
	latOff *= scale
	lonOff *= scale
	// C converts the offsets to uint32 by truncation; at the top of the
	// range (offset 2^step) the bit above the step spills over, as in Redis.
	return Hash{Bits: spread(uint32(uint64(latOff))) | spread(uint32(uint64(lonOff)))<<1, Step: step}, true
}

// Encode is the hash of step bits of a point within the WGS84 limits.
func Encode(lon, lat float64, step uint8) (Hash, bool) {
	return encode(wgs84Lon, wgs84Lat, lon, lat, step)
}

// decode is the cell of h within the given ranges.
func decode(lonR, latR Range, h Hash) Area {
	ilat := squeeze(h.Bits)
	ilon := squeeze(h.Bits >> 1)
	div := float64(uint64(1) << h.Step)
	latScale := latR.Max - latR.Min
	lonScale := lonR.Max - lonR.Min
	return Area{
		Lat: Range{latR.Min + (float64(ilat)/div)*latScale, latR.Min + (float64(uint64(ilat)+1)/div)*latScale},
		Lon: Range{lonR.Min + (float64(ilon)/div)*lonScale, lonR.Min + (float64(uint64(ilon)+1)/div)*lonScale},
	}
}

// Decode is the WGS84 cell of h.
func Decode(h Hash) Area { return decode(wgs84Lon, wgs84Lat, h) }

// Align52 is h's bits shifted to a 52-bit score: the first score of its cell.
func Align52(h Hash) uint64 { return h.Bits << (52 - 2*uint(h.Step)) }

// ScoreRange is the scores [min, max) of the members inside cell h.
func ScoreRange(h Hash) (min, max uint64) {
	min = Align52(h)
	h.Bits++
	return min, Align52(h)
}

// Score is the sorted-set score GEOADD stores for lon, lat (which must be
// InRange).
func Score(lon, lat float64) float64 {
	h, _ := Encode(lon, lat, StepMax)
	return float64(Align52(h))
}

// scoreBits converts a score to the hash bits as C's (uint64_t) cast does
// on x86-64 (cvttsd2si): a score GEOADD did not write, such as a negative
// one from ZADD, still decodes to the same cell as in Redis.
func scoreBits(s float64) uint64 {
	const two63 = 1 << 63
	if s >= two63 {
		s -= two63
		if s >= two63 || math.IsInf(s, 0) {
			return 0 // 0x8000000000000000 with its top bit flipped
		}
		return uint64(int64(s)) ^ (1 << 63)
	}
	if math.IsNaN(s) || s < -two63 {
		return 1 << 63 // the "integer indefinite" value
	}
	return uint64(int64(s))
}

// centre is the middle of a cell, clamped to the WGS84 limits.
func centre(a Area) (lon, lat float64) {
	lon = (a.Lon.Min + a.Lon.Max) / 2
	lon = min(max(lon, LonMin), LonMax)
	lat = (a.Lat.Min + a.Lat.Max) / 2
	lat = min(max(lat, LatMin), LatMax)
	return lon, lat
}

// DecodeScore is the point a score stands for: the centre of its cell.
func DecodeScore(score float64) (lon, lat float64) {
	return centre(Decode(Hash{Bits: scoreBits(score), Step: StepMax}))
}

const base32 = "0123456789bcdefghjkmnpqrstuvwxyz"

// GeohashString is GEOHASH's 11-character standard geohash of a score:
// its point re-encoded with the -90..90 latitude range; the 11th
// character, past the 52 bits, is always '0'.
func GeohashString(score float64) []byte {
	lon, lat := DecodeScore(score)
	h, _ := encode(wgs84Lon, standardLat, lon, lat, StepMax)
	out := make([]byte, 11)
	for i := range 10 {
		out[i] = base32[(h.Bits>>(52-(uint(i)+1)*5))&0x1f]
	}
	out[10] = base32[0]
	return out
}

// moveX moves h one cell east (d > 0) or west (d < 0), wrapping around.
func moveX(h Hash, d int) Hash {
	x := h.Bits & 0xaaaaaaaaaaaaaaaa
	y := h.Bits & 0x5555555555555555
	zz := uint64(0x5555555555555555) >> (64 - 2*uint(h.Step))
	if d > 0 {
		x += zz + 1
	} else {
		x = (x | zz) - (zz + 1)
	}
	x &= 0xaaaaaaaaaaaaaaaa >> (64 - 2*uint(h.Step))
	h.Bits = x | y
	return h
}

// moveY moves h one cell north (d > 0) or south (d < 0).
func moveY(h Hash, d int) Hash {
	x := h.Bits & 0xaaaaaaaaaaaaaaaa
	y := h.Bits & 0x5555555555555555
	zz := uint64(0xaaaaaaaaaaaaaaaa) >> (64 - 2*uint(h.Step))
	if d > 0 {
		y += zz + 1
	} else {
		y = (y | zz) - (zz + 1)
	}
	y &= 0x5555555555555555 >> (64 - 2*uint(h.Step))
	h.Bits = x | y
	return h
}

// The indexes of Cells' nine cells, in the order a search reads them.
const (
	cellCentre = iota
	cellNorth
	cellSouth
	cellEast
	cellWest
	cellNorthEast
	cellNorthWest
	cellSouthEast
	cellSouthWest
)

// neighbors are h and its eight neighbors, in search order.
func neighbors(h Hash) [9]Hash {
	return [9]Hash{
		h,
		moveY(h, 1), moveY(h, -1), moveX(h, 1), moveX(h, -1),
		moveY(moveX(h, 1), 1), moveY(moveX(h, -1), 1),
		moveY(moveX(h, 1), -1), moveY(moveX(h, -1), -1),
	}
}

// FormatCoord is a coordinate as Redis replies it (addReplyHumanLongDouble):
// 17 decimals, trailing zeros and a bare point removed, "-0" as "0".
func FormatCoord(d float64) []byte {
	b := strconv.AppendFloat(nil, d, 'f', 17, 64)
	for b[len(b)-1] == '0' {
		b = b[:len(b)-1]
	}
	if b[len(b)-1] == '.' {
		b = b[:len(b)-1]
	}
	if string(b) == "-0" {
		b = b[1:]
	}
	return b
}

// FormatDist is a distance as Redis 7.0.15 replies it (fixedpoint_d2string
// with 4 digits): d*10000 rounded to an integer, half to even, as llrint
// does, then printed with the point put back. The product is rounded to a
// double first, so 3804926.6917499998 prints "3804926.6918" where "%.4f"
// would print "3804926.6917".
func FormatDist(d float64) []byte {
	if d == 0 {
		return []byte("0.0000")
	}
	v := math.RoundToEven(d * 10000)
	var neg bool
	var u uint64
	switch {
	case math.IsNaN(v) || v >= 1<<63 || v < -(1<<63):
		neg, u = true, 1<<63 // llrint's "integer indefinite", LLONG_MIN
	case v < 0:
		neg, u = true, uint64(-int64(v))
	default:
		u = uint64(v)
	}
	digits := strconv.AppendUint(nil, u, 10)
	for len(digits) < 5 {
		digits = append([]byte{'0'}, digits...)
	}
	var out []byte
	if neg {
		out = append(out, '-')
	}
	out = append(out, digits[:len(digits)-4]...)
	out = append(out, '.')
	return append(out, digits[len(digits)-4:]...)
}

// FormatPair is the text of an invalid pair in GEOADD's error: C's "%f".
func FormatPair(d float64) string {
	switch {
	case math.IsInf(d, 1):
		return "inf"
	case math.IsInf(d, -1):
		return "-inf"
	}
	return strconv.FormatFloat(d, 'f', 6, 64)
}
