package types

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/shaledb/shale/server/geo"
)

// geoFill adds n random points in a 10-degree square around 10,40.
func geoFill(tb testing.TB, d *DB, key string, n int) {
	rng := rand.New(rand.NewPCG(1, 2))
	elems := make([]ScoreMember, 0, 1000)
	for i := range n {
		elems = append(elems, ScoreMember{fmt.Appendf(nil, "p%d", i), geo.Score(5+rng.Float64()*10, 35+rng.Float64()*10)})
		if len(elems) == cap(elems) || i == n-1 {
			if _, err := d.ZAdd([]byte(key), 0, elems); err != nil {
				tb.Fatal(err)
			}
			elems = elems[:0]
		}
	}
}

// TestGeoSearchMatchesScan checks that reading the nine cells finds what
// filtering every member would, for areas away from the cells' limits.
func TestGeoSearchMatchesScan(t *testing.T) {
	d, _ := newTestDB(t)
	geoFill(t, d, "g", 5000)
	all := must[[]ScoreMember](t)(d.ZRange([]byte("g"), ZRangeSpec{By: ByRank, Start: 0, Stop: -1}))
	rng := rand.New(rand.NewPCG(3, 4))
	for range 50 {
		shape := geo.Shape{Lon: 6 + rng.Float64()*8, Lat: 36 + rng.Float64()*8, Conv: 1000}
		if rng.IntN(2) == 0 {
			shape.Radius = rng.Float64() * 300
		} else {
			shape.Box, shape.Width, shape.Height = true, rng.Float64()*500, rng.Float64()*500
		}
		plan := func(bool, func([]byte) (float64, bool, error)) (geo.Shape, int, error) { return shape, 0, nil }
		points := must[[]GeoPoint](t)(d.GeoSearch([]byte("g"), plan))
		var got, want []string
		for _, p := range points {
			got = append(got, string(p.Member))
		}
		for _, e := range all {
			if _, _, _, ok := shape.Contains(e.Score); ok {
				want = append(want, string(e.Member))
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("%+v: search found %d points, a scan %d", shape, len(got), len(want))
		}
	}
}

// BenchmarkGeoSearch searches 10 and 100 km around points of a
// 100,000-point set: nine seeks and the scan of the cells' members.
func BenchmarkGeoSearch(b *testing.B) {
	d := benchDB(b)
	geoFill(b, d, "g", 100_000)
	if err := d.st.Flush(); err != nil {
		b.Fatal(err)
	}
	for _, km := range []float64{10, 100} {
		b.Run(fmt.Sprintf("km=%v", km), func(b *testing.B) {
			b.ReportAllocs()
			rng := rand.New(rand.NewPCG(5, 6))
			for b.Loop() {
				shape := geo.Shape{Lon: 6 + rng.Float64()*8, Lat: 36 + rng.Float64()*8, Radius: km, Conv: 1000}
				plan := func(bool, func([]byte) (float64, bool, error)) (geo.Shape, int, error) { return shape, 0, nil }
				if _, err := d.GeoSearch([]byte("g"), plan); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
