package types

import (
	"github.com/shaledb/shale/server/geo"
)

// A geo set is a sorted set whose scores are 52-bit geohashes (package
// geo): GEOADD is ZADD of geo.Score, and every Z* command works on it.
// A search reads only the score ranges of the nine cells that cover its
// area, in Redis's order, so that its unsorted answer lists the members in
// the same order as Redis's.

// GeoPoint is a member a geo search found, with its score, the centre of
// its cell and its distance in meters from the centre of the search.
type GeoPoint struct {
	Member                []byte
	Score, Lon, Lat, Dist float64
}

// GeoPlan decides a search once its source key is loaded, under the key's
// lock: live says whether the key holds a sorted set, score looks a member
// up. It returns the area, the number of points after which the search
// may stop (ANY; 0: all of them), or the error to reply, which then
// changes nothing. Redis reads the key and the centre member in the middle
// of parsing the arguments, so the plan is where the parsing happens.
type GeoPlan func(live bool, score func(member []byte) (float64, bool, error)) (shape geo.Shape, limit int, err error)

// geoPlan loads key and runs plan; ks is live when the search has a set to
// read.
func (d *DB) geoPlan(ks *keyState, key []byte, plan GeoPlan) (geo.Shape, int, error) {
	if err := d.loadZSet(ks, key); err != nil {
		return geo.Shape{}, 0, err
	}
	score := func(m []byte) (float64, bool, error) {
		if !ks.live {
			return 0, false, nil
		}
		s, found, err := d.zscores(ks, [][]byte{m})
		if err != nil {
			return 0, false, err
		}
		return s[0], found[0], nil
	}
	return plan(ks.live, score)
}

// geoSearch reads the points of the live zset ks inside shape, cell by
// cell, stopping once it has limit of them (0: no limit).
func (d *DB) geoSearch(ks *keyState, shape *geo.Shape, limit int) ([]GeoPoint, error) {
	var out []GeoPoint
	cells := shape.Cells()
	last := 0 // the last cell read; the centre's 0 doubles as "none"
	for i, c := range cells {
		// Near the poles or with huge areas neighbors can repeat the cell
		// read just before; Redis skips those (but never compares with the
		// centre).
		if c.IsZero() || (last != 0 && c == cells[last]) {
			continue
		}
		if limit > 0 && len(out) >= limit {
			break
		}
		lo, hi := geo.ScoreRange(c)
		uid := ks.m.UID
		err := d.scoreIter(uid, scoreAt(uid, float64(lo)), scoreAt(uid, float64(hi)), false, func(m []byte, s float64) bool {
			if lon, lat, dist, ok := shape.Contains(s); ok {
				out = append(out, GeoPoint{append([]byte{}, m...), s, lon, lat, dist})
			}
			return limit <= 0 || len(out) < limit
		})
		if err != nil {
			return nil, err
		}
		last = i
	}
	return out, nil
}

// GeoSearch is the search of GEOSEARCH and GEORADIUS: the points of key
// inside the area plan decides, unsorted, in Redis's scan order. A missing
// key has none.
func (d *DB) GeoSearch(key []byte, plan GeoPlan) ([]GeoPoint, error) {
	unlock := d.lock(key)
	defer func() { unlock() }()
	ks := &keyState{}
	shape, limit, err := d.geoPlan(ks, key, plan)
	if err != nil || !ks.live {
		return nil, err
	}
	d, done := d.walkView(ks.m.Size, &unlock)
	defer done()
	return d.geoSearch(ks, &shape, limit)
}

// GeoSearchStore is GEOSEARCHSTORE and GEORADIUS ... STORE: it searches
// src as GeoSearch does, lets pick sort and trim the points into the
// elements to store, and replaces dst with them (removing dst when there
// are none, or when src is missing). It returns the number stored.
func (d *DB) GeoSearchStore(dst, src []byte, plan GeoPlan, pick func([]GeoPoint) []ScoreMember) (int64, error) {
	unlock := d.lock(dst, src)
	defer unlock()
	ks := &keyState{}
	shape, limit, err := d.geoPlan(ks, src, plan)
	if err != nil {
		return 0, err
	}
	var points []GeoPoint
	if ks.live {
		if points, err = d.geoSearch(ks, &shape, limit); err != nil {
			return 0, err
		}
	}
	return d.zstoreKey(dst, pick(points))
}
