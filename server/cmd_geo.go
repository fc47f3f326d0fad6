package server

import (
	"bytes"
	"math"
	"sort"

	"github.com/shaledb/shale/server/geo"
	"github.com/shaledb/shale/server/types"
)

// The geo commands keep points in sorted sets, a point's score its 52-bit
// geohash (server/geo); types.GeoSearch reads the cells around a search.
// The handlers parse the arguments in Redis's order, which interleaves
// reading the key (WRONGTYPE first, the centre member in the middle of the
// options) with the checks of the other arguments.

// parseLonLat reads a longitude and a latitude within GEOADD's limits.
func parseLonLat(lonArg, latArg []byte) (lon, lat float64, err error) {
	lon, err = parseScore(lonArg)
	if err != nil {
		return 0, 0, err
	}
	if lat, err = parseScore(latArg); err != nil {
		return 0, 0, err
	}
	if !geo.InRange(lon, lat) {
		return 0, 0, errGeoPair(lon, lat)
	}
	return lon, lat, nil
}

// parseUnit reads a unit: its size in meters.
func parseUnit(b []byte) (float64, error) {
	if conv := geo.Unit(b); conv != 0 {
		return conv, nil
	}
	return 0, errGeoUnit
}

// parseGeoNumber reads a radius, width or height: a float, else the
// reply notNum.
func parseGeoNumber(b []byte, notNum replyError) (float64, error) {
	f, ok := types.ParseScore(b)
	if !ok {
		return 0, notNum
	}
	return f, nil
}

// GEOADD key [NX|XX] [CH] longitude latitude member [longitude latitude member ...]
func cmdGeoAdd(c *Ctx, args [][]byte) error {
	flags, ch, i := zaddOptions(args, 0, true)
	triples := args[i:]
	// Redis hands the rest to ZADD, which refuses an empty list too.
	if len(triples) == 0 || len(triples)%3 != 0 || flags == types.ZAddNX|types.ZAddXX {
		return errSyntax
	}
	elems := make([]types.ScoreMember, len(triples)/3)
	for j := range elems {
		lon, lat, err := parseLonLat(triples[3*j], triples[3*j+1])
		if err != nil {
			return err
		}
		elems[j] = types.ScoreMember{Member: triples[3*j+2], Score: geo.Score(lon, lat)}
	}
	res, err := c.DB.ZAdd(args[1], flags, elems)
	if err != nil {
		return err
	}
	if res.Added > 0 {
		c.signalKeyReady(c.DB.Index(), args[1])
	}
	if ch {
		c.Reply().Int(res.Added + res.Updated)
	} else {
		c.Reply().Int(res.Added)
	}
	return nil
}

// GEODIST key member1 member2 [M|KM|FT|MI]. The unit is checked before
// the key, as in Redis.
func cmdGeoDist(c *Ctx, args [][]byte) error {
	conv := 1.0
	switch {
	case len(args) > 5:
		return errSyntax
	case len(args) == 5:
		var err error
		if conv, err = parseUnit(args[4]); err != nil {
			return err
		}
	}
	scores, found, err := c.DB.ZMScore(args[1], args[2:4])
	if err != nil {
		return err
	}
	if !found[0] || !found[1] {
		c.Reply().Null()
		return nil
	}
	lon1, lat1 := geo.DecodeScore(scores[0])
	lon2, lat2 := geo.DecodeScore(scores[1])
	c.Reply().Bulk(geo.FormatDist(geo.Distance(lon1, lat1, lon2, lat2) / conv))
	return nil
}

// GEOHASH key [member [member ...]]
func cmdGeoHash(c *Ctx, args [][]byte) error {
	scores, found, err := c.DB.ZMScore(args[1], args[2:])
	if err != nil {
		return err
	}
	r := c.Reply()
	r.Array(len(scores))
	for i, s := range scores {
		if !found[i] {
			r.Null()
			continue
		}
		r.Bulk(geo.GeohashString(s))
	}
	return nil
}

// GEOPOS key [member [member ...]]
func cmdGeoPos(c *Ctx, args [][]byte) error {
	scores, found, err := c.DB.ZMScore(args[1], args[2:])
	if err != nil {
		return err
	}
	r := c.Reply()
	r.Array(len(scores))
	for i, s := range scores {
		if !found[i] {
			r.NullArray()
			continue
		}
		lon, lat := geo.DecodeScore(s)
		r.Array(2)
		c.writeCoord(lon)
		c.writeCoord(lat)
	}
	return nil
}

// writeCoord replies a coordinate as Redis's addReplyHumanLongDouble: its
// text as a bulk string in RESP2, a double in RESP3.
func (c *Ctx) writeCoord(d float64) {
	r := c.Reply()
	if !r.resp3 {
		r.Bulk(geo.FormatCoord(d))
		return
	}
	b := append([]byte{','}, geo.FormatCoord(d)...)
	r.conn.WriteRaw(append(b, crlf...))
}

// geoMode says which command a search parses: Redis's georadiusGeneric
// flags.
type geoMode uint8

const (
	geoFromCoords  geoMode = 1 << iota // GEORADIUS: key longitude latitude radius unit
	geoFromMember                      // GEORADIUSBYMEMBER: key member radius unit
	geoNoStore                         // the _RO forms: no STORE or STOREDIST
	geoSearch                          // GEOSEARCH's FROM... and BY... options
	geoSearchStore                     // GEOSEARCHSTORE: destination first, STOREDIST a flag
)

// The orders a search can reply in.
const (
	geoUnsorted = iota
	geoAsc
	geoDesc
)

// geoQuery is a parsed search.
type geoQuery struct {
	shape                         geo.Shape
	withDist, withHash, withCoord bool
	any                           bool
	order                         int
	count                         int64 // 0: no limit
	store                         []byte
	storeDist                     bool
}

// parseGeoQuery parses a search as georadiusGeneric does, after the key was
// read: live says whether it holds a sorted set, score looks up the centre
// member.
func parseGeoQuery(args [][]byte, mode geoMode, live bool, score func([]byte) (float64, bool, error)) (*geoQuery, error) {
	q := &geoQuery{}
	center := func(member []byte) error {
		s, ok, err := score(member)
		if err != nil {
			return err
		}
		if !ok {
			return errGeoMember
		}
		q.shape.Lon, q.shape.Lat = geo.DecodeScore(s)
		return nil
	}
	radius := func(num, unit []byte) (err error) {
		if q.shape.Radius, err = parseGeoNumber(num, errGeoRadius); err != nil {
			return err
		}
		if q.shape.Radius < 0 {
			return errGeoRadiusNeg
		}
		q.shape.Conv, err = parseUnit(unit)
		return err
	}
	var base int
	switch {
	case mode&geoFromCoords != 0:
		base = 6
		lon, lat, err := parseLonLat(args[2], args[3])
		if err != nil {
			return nil, err
		}
		q.shape.Lon, q.shape.Lat = lon, lat
		if err := radius(args[4], args[5]); err != nil {
			return nil, err
		}
	case mode&geoFromMember != 0:
		base = 5
		// Without a key Redis skips the centre and the radius: the reply
		// is empty whatever they are.
		if live {
			if err := center(args[2]); err != nil {
				return nil, err
			}
			if err := radius(args[3], args[4]); err != nil {
				return nil, err
			}
		}
	case mode&geoSearchStore != 0:
		base = 3
		q.store = args[1]
	default:
		base = 2
	}
	fromMember, fromLonLat, byRadius, byBox := false, false, false, false
	search := mode&geoSearch != 0
	canStore := mode&(geoNoStore|geoSearch) == 0
	for i := base; i < len(args); i++ {
		arg, left := args[i], len(args)-i-1 // left: the arguments after arg
		switch {
		case is(arg, "WITHDIST"):
			q.withDist = true
		case is(arg, "WITHHASH"):
			q.withHash = true
		case is(arg, "WITHCOORD"):
			q.withCoord = true
		case is(arg, "ANY"):
			q.any = true
		case is(arg, "ASC"):
			q.order = geoAsc
		case is(arg, "DESC"):
			q.order = geoDesc
		case is(arg, "COUNT") && left >= 1:
			n, ok := types.ParseInt(args[i+1])
			if !ok {
				return nil, errNotInteger
			}
			if n <= 0 {
				return nil, errGeoCount
			}
			q.count = n
			i++
		case (is(arg, "STORE") || is(arg, "STOREDIST")) && left >= 1 && canStore:
			q.store, q.storeDist = args[i+1], is(arg, "STOREDIST")
			i++
		case is(arg, "STOREDIST") && mode&geoSearchStore != 0:
			q.storeDist = true
		case is(arg, "FROMMEMBER") && left >= 1 && search && !fromLonLat:
			if live {
				if err := center(args[i+1]); err != nil {
					return nil, err
				}
			}
			fromMember = true
			i++
		case is(arg, "FROMLONLAT") && left >= 2 && search && !fromMember:
			lon, lat, err := parseLonLat(args[i+1], args[i+2])
			if err != nil {
				return nil, err
			}
			q.shape.Lon, q.shape.Lat = lon, lat
			fromLonLat = true
			i += 2
		case is(arg, "BYRADIUS") && left >= 2 && search && !byBox:
			if err := radius(args[i+1], args[i+2]); err != nil {
				return nil, err
			}
			q.shape.Box, byRadius = false, true
			i += 2
		case is(arg, "BYBOX") && left >= 3 && search && !byRadius:
			w, err := parseGeoNumber(args[i+1], errGeoWidth)
			if err != nil {
				return nil, err
			}
			h, err := parseGeoNumber(args[i+2], errGeoHeight)
			if err != nil {
				return nil, err
			}
			if h < 0 || w < 0 {
				return nil, errGeoBoxNeg
			}
			if q.shape.Conv, err = parseUnit(args[i+3]); err != nil {
				return nil, err
			}
			q.shape.Width, q.shape.Height, q.shape.Box, byBox = w, h, true, true
			i += 3
		default:
			return nil, errSyntax
		}
	}
	switch {
	case q.store != nil && (q.withDist || q.withHash || q.withCoord):
		if mode&geoSearchStore != 0 {
			return nil, errGeoSearchStoreWith
		}
		return nil, errGeoStoreWith
	case search && !fromMember && !fromLonLat:
		return nil, errGeoFrom(args[0])
	case search && !byRadius && !byBox:
		return nil, errGeoBy(args[0])
	case q.any && q.count == 0:
		return nil, errGeoAny
	}
	// COUNT picks the nearest points, unless ANY takes the first found.
	if q.count != 0 && q.order == geoUnsorted && !q.any {
		q.order = geoAsc
	}
	return q, nil
}

// limit is the number of points after which the search may stop.
func (q *geoQuery) limit() int {
	if q.any {
		return int(q.count)
	}
	return 0
}

// pick sorts points as the query asks and keeps COUNT of them. Sorting
// them all, Redis calls glibc's qsort, a merge sort: equal distances keep
// the order the search found them in. Keeping fewer, it calls its own
// pqsort, which geo.PartialSort ports, so that ties come out alike too.
func (q *geoQuery) pick(points []types.GeoPoint) []types.GeoPoint {
	keep := len(points)
	if q.count > 0 && int64(keep) > q.count {
		keep = int(q.count)
	}
	if q.order != geoUnsorted {
		less := func(i, j int) bool { return points[i].Dist < points[j].Dist }
		if q.order == geoDesc {
			less = func(i, j int) bool { return points[i].Dist > points[j].Dist }
		}
		if keep == len(points) {
			sort.SliceStable(points, less)
		} else {
			cmp := func(i, j int) int {
				switch {
				case less(i, j):
					return -1
				case less(j, i):
					return 1
				}
				return 0
			}
			swap := func(i, j int) { points[i], points[j] = points[j], points[i] }
			geo.PartialSort(len(points), cmp, swap, 0, keep-1)
		}
	}
	return points[:keep]
}

// geoStoreKey is the destination of a GEORADIUS or GEORADIUSBYMEMBER
// call, nil for none: the last STORE or STOREDIST key, found as Redis's
// georadiusGetKeys finds it, which is the one its parser stores in (the
// key specs, which COMMAND GETKEYS reads, name the first of each).
func geoStoreKey(args [][]byte) []byte {
	var dst []byte
	for i := 5; i+1 < len(args); i++ {
		if is(args[i], "STORE") || is(args[i], "STOREDIST") {
			dst = args[i+1]
			i++
		}
	}
	return dst
}

// specKeys is the key finder of a row whose key specs find every key (the
// keyword specs of GEORADIUS's STORE and STOREDIST): the keys in spec
// order, as Redis's COMMAND GETKEYS lists them from the specs.
func specKeys(specs []KeySpec) keyFinder {
	return func(args [][]byte) []int {
		var keys []int
		for _, k := range specs {
			first, last, step, ok := k.locate(args)
			if !ok {
				continue
			}
			for pos := first; pos <= last && pos < len(args); pos += step {
				keys = append(keys, pos)
			}
		}
		return keys
	}
}

// geoSearchGeneric serves every search command; src is the index of the
// source key.
func geoSearchGeneric(c *Ctx, args [][]byte, src int, mode geoMode) error {
	// The destination is known before the key is locked: GEOSEARCHSTORE's
	// first key, or GEORADIUS's STORE or STOREDIST key, which the parser
	// must then find too.
	var dst []byte
	switch {
	case mode&geoSearchStore != 0:
		dst = args[1]
	case mode&(geoNoStore|geoSearch) == 0:
		dst = geoStoreKey(args)
	}
	var q *geoQuery
	plan := func(live bool, score func([]byte) (float64, bool, error)) (geo.Shape, int, error) {
		var err error
		if q, err = parseGeoQuery(args, mode, live, score); err != nil {
			return geo.Shape{}, 0, err
		}
		if !bytes.Equal(q.store, dst) {
			return geo.Shape{}, 0, errInternal // geoStoreKey and the parser disagree: a bug
		}
		return q.shape, q.limit(), nil
	}
	if dst == nil {
		points, err := c.DB.GeoSearch(args[src], plan)
		if err != nil {
			return err
		}
		c.writeGeoPoints(q, q.pick(points))
		return nil
	}
	n, err := c.DB.GeoSearchStore(dst, args[src], plan, func(points []types.GeoPoint) []types.ScoreMember {
		points = q.pick(points)
		elems := make([]types.ScoreMember, len(points))
		for i, p := range points {
			elems[i] = types.ScoreMember{Member: p.Member, Score: p.Score}
			if q.storeDist {
				elems[i].Score = p.Dist / q.shape.Conv
			}
		}
		return elems
	})
	if err != nil {
		return err
	}
	c.Reply().Int(n)
	return nil
}

// writeGeoPoints replies the points of a search with the options asked.
func (c *Ctx) writeGeoPoints(q *geoQuery, points []types.GeoPoint) {
	r := c.Reply()
	r.Array(len(points))
	extra := 0
	for _, with := range []bool{q.withDist, q.withHash, q.withCoord} {
		if with {
			extra++
		}
	}
	for _, p := range points {
		if extra > 0 {
			r.Array(extra + 1)
		}
		r.Bulk(p.Member)
		if q.withDist {
			r.Bulk(geo.FormatDist(p.Dist / q.shape.Conv))
		}
		if q.withHash {
			r.Int(int64(geoHashBits(p.Score)))
		}
		if q.withCoord {
			r.Array(2)
			c.writeCoord(p.Lon)
			c.writeCoord(p.Lat)
		}
	}
}

// geoHashBits is WITHHASH's integer: the score as C's (long long) cast
// makes it; a score past the int64 range saturates.
func geoHashBits(s float64) int64 {
	if s >= math.MaxInt64 || s < math.MinInt64 || math.IsNaN(s) {
		return math.MinInt64
	}
	return int64(s)
}

// GEORADIUS key longitude latitude radius M|KM|FT|MI [WITHCOORD] [WITHDIST] [WITHHASH] [COUNT count [ANY]] [ASC|DESC] [STORE key] [STOREDIST key]
func cmdGeoRadius(c *Ctx, args [][]byte) error {
	return geoSearchGeneric(c, args, 1, geoFromCoords)
}

// GEORADIUS_RO key longitude latitude radius M|KM|FT|MI [WITHCOORD] [WITHDIST] [WITHHASH] [COUNT count [ANY]] [ASC|DESC]
func cmdGeoRadiusRO(c *Ctx, args [][]byte) error {
	return geoSearchGeneric(c, args, 1, geoFromCoords|geoNoStore)
}

// GEORADIUSBYMEMBER key member radius M|KM|FT|MI [WITHCOORD] [WITHDIST] [WITHHASH] [COUNT count [ANY]] [ASC|DESC] [STORE key] [STOREDIST key]
func cmdGeoRadiusByMember(c *Ctx, args [][]byte) error {
	return geoSearchGeneric(c, args, 1, geoFromMember)
}

// GEORADIUSBYMEMBER_RO key member radius M|KM|FT|MI [WITHCOORD] [WITHDIST] [WITHHASH] [COUNT count [ANY]] [ASC|DESC]
func cmdGeoRadiusByMemberRO(c *Ctx, args [][]byte) error {
	return geoSearchGeneric(c, args, 1, geoFromMember|geoNoStore)
}

// GEOSEARCH key FROMMEMBER member|FROMLONLAT longitude latitude BYRADIUS radius unit|BYBOX width height unit [ASC|DESC] [COUNT count [ANY]] [WITHCOORD] [WITHDIST] [WITHHASH]
func cmdGeoSearch(c *Ctx, args [][]byte) error {
	return geoSearchGeneric(c, args, 1, geoSearch)
}

// GEOSEARCHSTORE destination source FROMMEMBER member|FROMLONLAT longitude latitude BYRADIUS radius unit|BYBOX width height unit [ASC|DESC] [COUNT count [ANY]] [STOREDIST]
func cmdGeoSearchStore(c *Ctx, args [][]byte) error {
	return geoSearchGeneric(c, args, 2, geoSearch|geoSearchStore)
}

// geoSpecs are the key specs of GEORADIUS and GEORADIUSBYMEMBER: the source,
// then the STORE and STOREDIST destinations found by keyword from the
// first option (at index from).
func geoSpecs(from int) []KeySpec {
	dst := func(kw string) KeySpec {
		return KeySpec{Flags: KeyOW | KeyUpdate, Begin: BeginSearch{Keyword: kw, StartFrom: from}, Find: FindKeys{KeyStep: 1}}
	}
	return []KeySpec{keyAt(1, KeyRO|KeyAccess), dst("STORE"), dst("STOREDIST")}
}

const (
	geoRadiusComplexity = "O(N+log(M)) where N is the number of elements inside the bounding box of the circular area delimited by center and radius and M is the number of items inside the index."
	geoSearchComplexity = "O(N+log(M)) where N is the number of elements in the grid-aligned bounding box area around the shape provided as the filter and M is the number of items inside the shape"
)

var geoCommands = []Command{
	cmd("geoadd", -5, Write|DenyOOM|Grouped, 1, 1, 1, cmdGeoAdd).keyFlags(KeyRW|KeyUpdate).
		doc("Add one or more geospatial items in the geospatial index represented using a sorted set", "3.2.0", "geo", "O(log(N)) for each item added, where N is the number of elements in the sorted set.", "key [NX|XX] [CH] longitude latitude member [longitude latitude member ...]"),
	cmd("geodist", -4, ReadOnly|Grouped, 1, 1, 1, cmdGeoDist).keyFlags(KeyRO|KeyAccess).
		doc("Returns the distance between two members of a geospatial index", "3.2.0", "geo", "O(log(N))", "key member1 member2 [M|KM|FT|MI]"),
	cmd("geohash", -2, ReadOnly|Grouped, 1, 1, 1, cmdGeoHash).keyFlags(KeyRO|KeyAccess).
		doc("Returns members of a geospatial index as standard geohash strings", "3.2.0", "geo", "O(log(N)) for each member requested, where N is the number of elements in the sorted set.", "key [member [member ...]]"),
	cmd("geopos", -2, ReadOnly|Grouped, 1, 1, 1, cmdGeoPos).keyFlags(KeyRO|KeyAccess).
		doc("Returns longitude and latitude of members of a geospatial index", "3.2.0", "geo", "O(N) where N is the number of members requested.", "key [member [member ...]]"),
	cmd("georadius", -6, Write|DenyOOM, 1, 1, 1, cmdGeoRadius).keysBy(specKeys(geoSpecs(6))).keySpecs(geoSpecs(6)...).
		doc("Query a sorted set representing a geospatial index to fetch members matching a given maximum distance from a point", "3.2.0", "geo", geoRadiusComplexity, "key longitude latitude radius M|KM|FT|MI [WITHCOORD] [WITHDIST] [WITHHASH] [COUNT count [ANY]] [ASC|DESC] [STORE key] [STOREDIST key]"),
	cmd("georadius_ro", -6, ReadOnly, 1, 1, 1, cmdGeoRadiusRO).keyFlags(KeyRO|KeyAccess).
		doc("A read-only variant for GEORADIUS", "3.2.10", "geo", geoRadiusComplexity, "key longitude latitude radius M|KM|FT|MI [WITHCOORD] [WITHDIST] [WITHHASH] [COUNT count [ANY]] [ASC|DESC]"),
	cmd("georadiusbymember", -5, Write|DenyOOM, 1, 1, 1, cmdGeoRadiusByMember).keysBy(specKeys(geoSpecs(5))).keySpecs(geoSpecs(5)...).
		doc("Query a sorted set representing a geospatial index to fetch members matching a given maximum distance from a member", "3.2.0", "geo", geoRadiusComplexity, "key member radius M|KM|FT|MI [WITHCOORD] [WITHDIST] [WITHHASH] [COUNT count [ANY]] [ASC|DESC] [STORE key] [STOREDIST key]"),
	cmd("georadiusbymember_ro", -5, ReadOnly, 1, 1, 1, cmdGeoRadiusByMemberRO).keyFlags(KeyRO|KeyAccess).
		doc("A read-only variant for GEORADIUSBYMEMBER", "3.2.10", "geo", geoRadiusComplexity, "key member radius M|KM|FT|MI [WITHCOORD] [WITHDIST] [WITHHASH] [COUNT count [ANY]] [ASC|DESC]"),
	cmd("geosearch", -7, ReadOnly, 1, 1, 1, cmdGeoSearch).keyFlags(KeyRO|KeyAccess).
		doc("Query a sorted set representing a geospatial index to fetch members inside an area of a box or a circle.", "6.2.0", "geo", geoSearchComplexity, "key FROMMEMBER member|FROMLONLAT longitude latitude BYRADIUS radius M|KM|FT|MI|BYBOX width height M|KM|FT|MI [ASC|DESC] [COUNT count [ANY]] [WITHCOORD] [WITHDIST] [WITHHASH]"),
	cmd("geosearchstore", -8, Write|DenyOOM, 1, 2, 1, cmdGeoSearchStore).keyFlags(KeyOW|KeyUpdate, KeyRO|KeyAccess).
		doc("Query a sorted set representing a geospatial index to fetch members inside an area of a box or a circle, and store the result in another key.", "6.2.0", "geo", geoSearchComplexity, "destination source FROMMEMBER member|FROMLONLAT longitude latitude BYRADIUS radius M|KM|FT|MI|BYBOX width height M|KM|FT|MI [ASC|DESC] [COUNT count [ANY]] [STOREDIST]"),
}
