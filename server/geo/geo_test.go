package geo

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// The golden values are real redis-server 7.0.15 replies.

func TestScoreAndDecode(t *testing.T) {
	tests := []struct {
		name                       string
		lon, lat                   float64
		score                      float64
		wantLon, wantLat, wantHash string
	}{
		{"Palermo", 13.361389, 38.115556, 3479099956230698, "13.36138933897018433", "38.11555639549629859", "sqc8b49rny0"},
		{"Catania", 15.087269, 37.502669, 3479447370796909, "15.08726745843887329", "37.50266842333162032", "sqdtr74hyu0"},
		{"origin", 0, 0, 3377699720527872, "0.00000268220901489", "0.00000126736058093", "s0000000000"},
		{"north-east corner", 180, 85.05112878, 13510798882111488, "180", "85.0511287799999991", "bp05b5048p0"},
		{"south-west corner", -180, -85.05112878, 0, "-179.99999731779098511", "-85.05112751263942528", "00bh0hbj200"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Score(tt.lon, tt.lat); got != tt.score {
				t.Errorf("Score = %.0f, want %.0f", got, tt.score)
			}
			lon, lat := DecodeScore(tt.score)
			if string(FormatCoord(lon)) != tt.wantLon || string(FormatCoord(lat)) != tt.wantLat {
				t.Errorf("DecodeScore = %s %s, want %s %s", FormatCoord(lon), FormatCoord(lat), tt.wantLon, tt.wantLat)
			}
			if got := string(GeohashString(tt.score)); got != tt.wantHash {
				t.Errorf("GeohashString = %s, want %s", got, tt.wantHash)
			}
		})
	}
}

// TestForeignScores decodes scores GEOADD never writes (ZADD can), as C's
// cast to uint64 on x86-64 turns them into hashes.
func TestForeignScores(t *testing.T) {
	tests := []struct {
		score            float64
		wantLon, wantLat string
	}{
		{-5, "180", "85.0511287799999991"},
		{1e20, "-179.99999731779098511", "-85.05112751263942528"},
		{math.Inf(1), "-179.99999731779098511", "-85.05112751263942528"},
		{math.Inf(-1), "180", "-85.05112751263942528"},
		{4503599627370496, "-179.99999731779098511", "85.0511287799999991"},
	}
	for _, tt := range tests {
		lon, lat := DecodeScore(tt.score)
		if string(FormatCoord(lon)) != tt.wantLon || string(FormatCoord(lat)) != tt.wantLat {
			t.Errorf("DecodeScore(%v) = %s %s, want %s %s", tt.score, FormatCoord(lon), FormatCoord(lat), tt.wantLon, tt.wantLat)
		}
	}
}

func TestDistance(t *testing.T) {
	tests := []struct {
		name   string
		s1, s2 float64
		conv   float64
		want   string
	}{
		{"Palermo-Catania", 3479099956230698, 3479447370796909, 1, "166274.1516"},
		{"km", 3479099956230698, 3479447370796909, 1000, "166.2742"},
		{"mi", 3479099956230698, 3479447370796909, 1609.34, "103.3182"},
		{"same point", 3479099956230698, 3479099956230698, 1, "0.0000"},
		// "%.4f" of the double would say ...6917: Redis rounds d*10000.
		{"fixed point", 3310534931280345, 286228443232069, 1, "3804926.6918"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lon1, lat1 := DecodeScore(tt.s1)
			lon2, lat2 := DecodeScore(tt.s2)
			if got := string(FormatDist(Distance(lon1, lat1, lon2, lat2) / tt.conv)); got != tt.want {
				t.Errorf("distance %s, want %s", got, tt.want)
			}
		})
	}
}

func TestFormat(t *testing.T) {
	for _, tt := range []struct {
		d         float64
		dist, crd string
	}{
		{0, "0.0000", "0"},
		{math.Copysign(0, -1), "0.0000", "0"},
		{1.5, "1.5000", "1.5"},
		{0.00005, "0.0000", "0.00005"},
		{0.00015, "0.0001", "0.00015"}, // 0.00015*10000 is 1.4999999999999998
		{-2.25, "-2.2500", "-2.25"},
		{123456.78901, "123456.7890", "123456.78900999999314081"},
	} {
		if got := string(FormatDist(tt.d)); got != tt.dist {
			t.Errorf("FormatDist(%v) = %s, want %s", tt.d, got, tt.dist)
		}
		if got := string(FormatCoord(tt.d)); got != tt.crd {
			t.Errorf("FormatCoord(%v) = %s, want %s", tt.d, got, tt.crd)
		}
	}
	if got := FormatPair(math.Inf(-1)) + "," + FormatPair(200); got != "-inf,200.000000" {
		t.Errorf("FormatPair: %s", got)
	}
}

func TestNeighbors(t *testing.T) {
	h, _ := Encode(0.5, 0.5, 2)
	n := neighbors(h)
	centre := Decode(h)
	for i, c := range n[1:] {
		a := Decode(c)
		if a.Lon.Max-a.Lon.Min != centre.Lon.Max-centre.Lon.Min {
			t.Errorf("neighbor %d has another size", i+1)
		}
	}
	if e := Decode(n[cellEast]); e.Lon.Min != centre.Lon.Max || e.Lat != centre.Lat {
		t.Errorf("east neighbor %+v of %+v", e, centre)
	}
	if s := Decode(n[cellSouth]); s.Lat.Max != centre.Lat.Min || s.Lon != centre.Lon {
		t.Errorf("south neighbor %+v of %+v", s, centre)
	}
	// At the antimeridian the west neighbor wraps around.
	edge, _ := Encode(-179.9, 0, 4)
	if w := Decode(moveX(edge, -1)); w.Lon.Max != LonMax {
		t.Errorf("west of the antimeridian: %+v", w)
	}
}

// TestCellsCover checks that the cells of a search hold every point the
// shape contains, away from the poles and the antimeridian, where Redis's
// own cells are known to fall short.
func TestCellsCover(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		s := Shape{Lon: rng.Float64()*300 - 150, Lat: rng.Float64()*120 - 60, Conv: 1}
		if rng.IntN(2) == 0 {
			s.Radius = math.Pow(10, rng.Float64()*6)
		} else {
			s.Box, s.Width, s.Height = true, math.Pow(10, rng.Float64()*6), math.Pow(10, rng.Float64()*6)
		}
		cells := s.Cells()
		for range 50 {
			lon := s.Lon + (rng.Float64()-0.5)*20
			lat := s.Lat + (rng.Float64()-0.5)*20
			if !InRange(lon, lat) {
				continue
			}
			score := Score(lon, lat)
			if _, _, _, ok := s.Contains(score); !ok {
				continue
			}
			found := false
			for _, c := range cells {
				lo, hi := ScoreRange(c)
				if !c.IsZero() && score >= float64(lo) && score < float64(hi) {
					found = true
				}
			}
			if !found {
				t.Fatalf("%+v contains %v,%v, which no cell holds", s, lon, lat)
			}
		}
	}
}

func BenchmarkDistance(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Distance(13.361389, 38.115556, 15.087269, 37.502669)
	}
}

func BenchmarkCells(b *testing.B) {
	s := Shape{Lon: 15, Lat: 37, Radius: 200, Conv: 1000}
	b.ReportAllocs()
	for b.Loop() {
		s.Cells()
	}
}

// TestPartialSort checks what PartialSort promises: the elements lo..hi
// are those a full sort puts there, in order.
func TestPartialSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 500 {
		n := 1 + rng.IntN(120)
		keys := make([]int, n)
		for i := range keys {
			keys[i] = rng.IntN(n) // many ties
		}
		sorted := append([]int(nil), keys...)
		slices.Sort(sorted)
		hi := rng.IntN(n)
		PartialSort(n, func(i, j int) int { return cmp.Compare(keys[i], keys[j]) },
			func(i, j int) { keys[i], keys[j] = keys[j], keys[i] }, 0, hi)
		if !slices.Equal(keys[:hi+1], sorted[:hi+1]) {
			t.Fatalf("n %d hi %d: %v, want %v", n, hi, keys[:hi+1], sorted[:hi+1])
		}
	}
}

// FuzzGeo decodes any score and searches any shape around its point: no
// panic, coordinates within the limits, distances never negative.
func FuzzGeo(f *testing.F) {
	f.Add(3479099956230698.0, 200.0, 10.0, false)
	f.Add(-5.0, 1e300, 0.0, true)
	f.Add(math.Inf(1), math.Inf(1), math.Inf(1), true)
	f.Fuzz(func(t *testing.T, score, a, b float64, box bool) {
		lon, lat := DecodeScore(score)
		if !InRange(lon, lat) {
			t.Fatalf("score %v decodes to %v,%v", score, lon, lat)
		}
		if h := GeohashString(score); len(h) != 11 {
			t.Fatalf("geohash %q", h)
		}
		if math.IsNaN(a) || math.IsNaN(b) || a < 0 || b < 0 {
			return // the parsers refuse these
		}
		s := Shape{Lon: lon, Lat: lat, Box: box, Radius: a, Width: a, Height: b, Conv: 1}
		for _, c := range s.Cells() {
			ScoreRange(c)
		}
		if _, _, d, ok := s.Contains(Score(lon, lat)); ok && !(d >= 0) {
			t.Fatalf("distance %v", d)
		}
		FormatDist(a)
		FormatCoord(b)
	})
}
