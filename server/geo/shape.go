package geo

/*
#cgo LDFLAGS: -lm
#include <math.h>

// The haversine distance in meters between two points given in degrees,
// computed in C so that it equals Redis's to the last bit. On one meridian
// it is the arc between the latitudes, which Redis 7.0.15 computes
// directly, without the trigonometry.
static double geo_distance(double lon1, double lat1, double lon2, double lat2, double radius, double d2r) {
	double lon1r = lon1 * d2r, lon2r = lon2 * d2r;
	double v = sin((lon2r - lon1r) / 2);
	if (v == 0.0) return radius * fabs(lat2 * d2r - lat1 * d2r);
	double lat1r = lat1 * d2r, lat2r = lat2 * d2r;
	double u = sin((lat2r - lat1r) / 2);
	return 2.0 * radius * asin(sqrt(u * u + cos(lat1r) * cos(lat2r) * v * v));
}

static double geo_cos(double x) { return cos(x); }
*/
import "C"

// EarthRadius is the Earth's quadratic mean radius in meters that Redis
// measures distances with.
const EarthRadius = 6372797.560856

// mercatorMax bounds the step estimation.
const mercatorMax = 20037726.37

// degToRad is M_PI/180 rounded as C rounds it: a variable, so that Go does
// not fold it exactly at compile time.
var degToRad = func() float64 { pi := float64(3.14159265358979323846); return pi / 180 }()

// Distance is the haversine distance in meters between two points.
func Distance(lon1, lat1, lon2, lat2 float64) float64 {
	return float64(C.geo_distance(C.double(lon1), C.double(lat1), C.double(lon2), C.double(lat2), EarthRadius, C.double(degToRad)))
}

// Unit is a distance unit's size in meters; 0 for an unknown unit.
func Unit(name []byte) float64 {
	switch string(lowerASCII(name)) {
	case "m":
		return 1
	case "km":
		return 1000
	case "ft":
		return 0.3048
	case "mi":
		return 1609.34
	}
	return 0
}

func lowerASCII(b []byte) []byte {
	if len(b) > 2 {
		return nil
	}
	out := make([]byte, len(b))
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}

// Shape is a search area: a circle of Radius, or a Box of Width by Height,
// around Lon, Lat, its sizes in units of Conv meters.
type Shape struct {
	Lon, Lat              float64
	Box                   bool
	Radius, Width, Height float64
	Conv                  float64
}

// bounds are the shape's bounding box: min lon, min lat, max lon, max lat.
func (s *Shape) bounds() (minLon, minLat, maxLon, maxLat float64) {
	h, w := s.Radius, s.Radius
	if s.Box {
		h, w = s.Height/2, s.Width/2
	}
	h *= s.Conv
	w *= s.Conv
	latDelta := h / EarthRadius / degToRad
	top := w / EarthRadius / float64(C.geo_cos(C.double((s.Lat+latDelta)*degToRad))) / degToRad
	bottom := w / EarthRadius / float64(C.geo_cos(C.double((s.Lat-latDelta)*degToRad))) / degToRad
	// The box is wider at the edge nearer the equator.
	d := top
	if s.Lat < 0 {
		d = bottom
	}
	return s.Lon - d, s.Lat - latDelta, s.Lon + d, s.Lat + latDelta
}

// estimateSteps is the precision of cells about the size of the radius.
func estimateSteps(meters, lat float64) uint8 {
	if meters == 0 {
		return 26
	}
	step := 1
	for meters < mercatorMax {
		meters *= 2
		step++
	}
	step -= 2
	if lat > 66 || lat < -66 {
		step--
		if lat > 80 || lat < -80 {
			step--
		}
	}
	return uint8(min(max(step, 1), 26))
}

// Cells are the cells a search of s reads, in order: the cell of the
// centre and its eight neighbors, the zero Hash for a neighbor the area
// does not reach.
func (s *Shape) Cells() [9]Hash {
	minLon, minLat, maxLon, maxLat := s.bounds()
	radius := s.Radius
	if s.Box {
		radius = sqrtC((s.Width/2)*(s.Width/2) + (s.Height/2)*(s.Height/2))
	}
	radius *= s.Conv
	steps := estimateSteps(radius, s.Lat)
	h, _ := Encode(s.Lon, s.Lat, steps)
	cells := neighbors(h)
	// The estimate may be one step too fine where the area comes near an
	// edge of its cell: then the neighbors do not cover it.
	n, so, e, w := Decode(cells[cellNorth]), Decode(cells[cellSouth]), Decode(cells[cellEast]), Decode(cells[cellWest])
	if steps > 1 && (n.Lat.Max < maxLat || so.Lat.Min > minLat || e.Lon.Max < maxLon || w.Lon.Min > minLon) {
		steps--
		h, _ = Encode(s.Lon, s.Lat, steps)
		cells = neighbors(h)
	}
	area := Decode(h)
	if steps >= 2 {
		zero := func(idx ...int) {
			for _, i := range idx {
				cells[i] = Hash{}
			}
		}
		if area.Lat.Min < minLat {
			zero(cellSouth, cellSouthWest, cellSouthEast)
		}
		if area.Lat.Max > maxLat {
			zero(cellNorth, cellNorthEast, cellNorthWest)
		}
		if area.Lon.Min < minLon {
			zero(cellWest, cellSouthWest, cellNorthWest)
		}
		if area.Lon.Max > maxLon {
			zero(cellEast, cellSouthEast, cellNorthEast)
		}
	}
	return cells
}

func sqrtC(x float64) float64 { return float64(C.sqrt(C.double(x))) }

// Contains reports whether the point of score lies in s, with the point and
// its distance in meters from the centre.
func (s *Shape) Contains(score float64) (lon, lat, dist float64, ok bool) {
	lon, lat = DecodeScore(score)
	if !s.Box {
		dist = Distance(s.Lon, s.Lat, lon, lat)
		return lon, lat, dist, dist <= s.Radius*s.Conv
	}
	// The box's sides follow the meridians and the parallels.
	lonDist := Distance(lon, lat, s.Lon, lat)
	latDist := Distance(lon, lat, lon, s.Lat)
	if lonDist > s.Width*s.Conv/2 || latDist > s.Height*s.Conv/2 {
		return lon, lat, 0, false
	}
	return lon, lat, Distance(s.Lon, s.Lat, lon, lat), true
}
