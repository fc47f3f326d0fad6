package tests

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// The geo commands against both servers. The expectations are Redis
// 7.0.15's replies, digit for digit: coordinates are the centres of the
// stored cells, distances "%.4f".

func TestGeoAddPosHashDist(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{cmd("GEOADD", "g", 13.361389, 38.115556, "Palermo", 15.087269, 37.502669, "Catania"), 2},
			{cmd("GEOADD", "g", 13.361389, 38.115556, "Palermo"), 0},
			{cmd("ZSCORE", "g", "Palermo"), "3479099956230698"},
			{cmd("ZRANGE", "g", 0, -1), []any{"Palermo", "Catania"}},
			{cmd("TYPE", "g"), "zset"},
			{cmd("GEOPOS", "g", "Palermo", "nope", "Catania"), []any{
				[]any{"13.36138933897018433", "38.11555639549629859"},
				nil,
				[]any{"15.08726745843887329", "37.50266842333162032"},
			}},
			{cmd("GEOPOS", "nokey", "a"), []any{nil}},
			{cmd("GEOPOS", "g"), []any{}},
			{cmd("GEOHASH", "g", "Palermo", "nope", "Catania"), []any{"sqc8b49rny0", nil, "sqdtr74hyu0"}},
			{cmd("GEOHASH", "nokey", "a", "b"), []any{nil, nil}},
			{cmd("GEODIST", "g", "Palermo", "Catania"), "166274.1516"},
			{cmd("GEODIST", "g", "Palermo", "Catania", "km"), "166.2742"},
			{cmd("GEODIST", "g", "Palermo", "Catania", "MI"), "103.3182"},
			{cmd("GEODIST", "g", "Palermo", "Catania", "ft"), "545518.8700"},
			{cmd("GEODIST", "g", "Palermo", "Palermo"), "0.0000"},
			{cmd("GEODIST", "g", "Palermo", "nope"), isNil},
			{cmd("GEODIST", "nokey", "a", "b"), isNil},
			// The unit is checked before the key; extra arguments are a
			// syntax error.
			{cmd("GEODIST", "nokey", "a", "b", "cm"), errText("ERR unsupported unit provided. please use M, KM, FT, MI")},
			{cmd("GEODIST", "g", "a", "b", "km", "x"), errText("ERR syntax error")},

			// NX, XX, CH.
			{cmd("GEOADD", "g", "NX", 1, 1, "Palermo", 2, 2, "p2"), 1},
			{cmd("GEOPOS", "g", "Palermo"), []any{[]any{"13.36138933897018433", "38.11555639549629859"}}},
			{cmd("GEOADD", "g", "XX", "CH", 1, 1, "Palermo", 3, 3, "p3"), 1},
			{cmd("GEOPOS", "g", "Palermo", "p3"), []any{[]any{"0.99999994039535522", "0.99999945914297683"}, nil}},
			{cmd("GEOADD", "g", "ch", "nx", 1, 1, "Palermo", 4, 4, "p4"), 1},
			{cmd("GEOADD", "g", "CH", 1, 1, "Palermo"), 0},
			{cmd("GEOADD", "g", "XX", "NX", 1, 1, "a"), errText("ERR syntax error")},
			{cmd("GEOADD", "g", "CH", 1, 1), errText("ERR syntax error")},
			{cmd("GEOADD", "g", "CH", "CH", "CH"), errText("ERR syntax error")},
			{cmd("GEOADD", "g", 1, 1, "a", 2), errText("ERR syntax error")},
			{cmd("GEOADD", "g", "GT", 1, 1, "a"), errText("ERR syntax error")},

			// Coordinates: the limits, printed with C's %f.
			{cmd("GEOADD", "g", 200, 100, "x"), errText("ERR invalid longitude,latitude pair 200.000000,100.000000")},
			{cmd("GEOADD", "g", "inf", 0, "x"), errText("ERR invalid longitude,latitude pair inf,0.000000")},
			{cmd("GEOADD", "g", "-0", -91, "x"), errText("ERR invalid longitude,latitude pair -0.000000,-91.000000")},
			{cmd("GEOADD", "g", 0, 85.05112879, "x"), errText("ERR invalid longitude,latitude pair 0.000000,85.051129")},
			{cmd("GEOADD", "g", "abc", 0, "x"), errText("ERR value is not a valid float")},
			{cmd("GEOADD", "g", 0, "nan", "x"), errText("ERR value is not a valid float")},
			// An error in the second point adds nothing.
			{cmd("GEOADD", "g", 5, 5, "fine", 500, 5, "bad"), errPrefix("ERR invalid longitude")},
			{cmd("ZSCORE", "g", "fine"), isNil},
			{cmd("GEOADD", "edge", 180, 85.05112878, "ne", -180, -85.05112878, "sw", 0, 0, "o", "-0", "-0", "negzero"), 4},
			{cmd("GEOPOS", "edge", "ne", "sw", "o", "negzero"), []any{
				[]any{"180", "85.0511287799999991"},
				[]any{"-179.99999731779098511", "-85.05112751263942528"},
				[]any{"0.00000268220901489", "0.00000126736058093"},
				[]any{"0.00000268220901489", "0.00000126736058093"},
			}},
			{cmd("GEOHASH", "edge", "ne", "sw", "o"), []any{"bp05b5048p0", "00bh0hbj200", "s0000000000"}},

			// Scores GEOADD never writes still decode, as C casts them.
			{cmd("ZADD", "z", -5, "neg", 1e20, "big", "inf", "pinf", "-inf", "ninf", 4503599627370496, "top", 0, "zero"), 6},
			{cmd("GEOPOS", "z", "neg", "big", "pinf", "ninf", "top", "zero"), []any{
				[]any{"180", "85.0511287799999991"},
				[]any{"-179.99999731779098511", "-85.05112751263942528"},
				[]any{"-179.99999731779098511", "-85.05112751263942528"},
				[]any{"180", "-85.05112751263942528"},
				[]any{"-179.99999731779098511", "85.0511287799999991"},
				[]any{"-179.99999731779098511", "-85.05112751263942528"},
			}},
			// Distances are rounded from d*10000 as a double, as Redis's
			// fixedpoint_d2string does: "%.4f" would say 3804926.6917.
			{cmd("ZADD", "z2", 3310534931280345, "p", 286228443232069, "q"), 2},
			{cmd("GEODIST", "z2", "p", "q"), "3804926.6918"},
			{cmd("GEOSEARCH", "z2", "FROMMEMBER", "p", "BYRADIUS", 4000, "km", "WITHDIST", "DESC"), []any{[]any{"q", "3804.9267"}, []any{"p", "0.0000"}}},
			{cmd("GEOSEARCHSTORE", "d", "z2", "FROMMEMBER", "p", "BYRADIUS", 4000, "km", "STOREDIST"), 2},
			{cmd("ZSCORE", "d", "q"), "3804.9266917499999"},
			// On one meridian the distance is the arc between the latitudes.
			{cmd("GEOADD", "mer", 10, 10, "a", 10, -20.5, "b"), 2},
			{cmd("GEOSEARCHSTORE", "d", "mer", "FROMMEMBER", "a", "BYRADIUS", 4000, "km", "STOREDIST"), 2},
			{cmd("ZSCORE", "d", "b"), "3392.4022182071985"},
			{cmd("GEOHASH", "z", "neg", "top", "zero"), []any{"bp05b5048p0", "bp05b5048p0", "00bh0hbj200"}},
			{cmd("GEORADIUS", "z", 0, 0, 30000, "km", "WITHHASH", "COUNT", 2), []any{
				[]any{"zero", int64(0)},
			}},

			{cmd("SET", "s", "x"), ok},
			{cmd("GEOADD", "s", 1, 1, "a"), errPrefix("WRONGTYPE")},
			{cmd("GEOPOS", "s", "a"), errPrefix("WRONGTYPE")},
			{cmd("GEOHASH", "s", "a"), errPrefix("WRONGTYPE")},
			{cmd("GEODIST", "s", "a", "b"), errPrefix("WRONGTYPE")},
		})
	})
}

// geoCities is a small index the search scripts share.
func geoCities() []any {
	return cmd("GEOADD", "g",
		13.361389, 38.115556, "Palermo", 15.087269, 37.502669, "Catania",
		12.758489, 38.788135, "edge1", 17.241510, 38.788135, "edge2",
		13.583333, 37.316667, "Agrigento", 12.496365, 41.902782, "Rome")
}

func TestGeoSearch(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{geoCities(), 6},
			// Unsorted: the order the cells were read in.
			{cmd("GEOSEARCH", "g", "FROMLONLAT", 15, 37, "BYRADIUS", 200, "km"), []any{"Agrigento", "Palermo", "Catania"}},
			{cmd("GEOSEARCH", "g", "FROMLONLAT", 15, 37, "BYRADIUS", 200, "km", "ASC"), []any{"Catania", "Agrigento", "Palermo"}},
			{cmd("GEOSEARCH", "g", "FROMLONLAT", 15, 37, "BYRADIUS", 200, "km", "DESC"), []any{"Palermo", "Agrigento", "Catania"}},
			{cmd("GEOSEARCH", "g", "FROMLONLAT", 15, 37, "BYRADIUS", 200, "km", "COUNT", 2), []any{"Catania", "Agrigento"}},
			{cmd("GEOSEARCH", "g", "FROMLONLAT", 15, 37, "BYRADIUS", 200, "km", "COUNT", 1, "ANY"), []any{"Agrigento"}},
			{cmd("GEOSEARCH", "g", "FROMLONLAT", 15, 37, "BYRADIUS", 200, "km", "COUNT", 1, "ANY", "DESC"), []any{"Agrigento"}},
			{cmd("GEOSEARCH", "g", "FROMLONLAT", 15, 37, "BYBOX", 400, 400, "km", "WITHCOORD", "WITHDIST", "WITHHASH", "ASC"), []any{
				[]any{"Catania", "56.4413", int64(3479447370796909), []any{"15.08726745843887329", "37.50266842333162032"}},
				[]any{"Agrigento", "130.4235", int64(3479030013248308), []any{"13.5833314061164856", "37.31666804993816555"}},
				[]any{"Palermo", "190.4424", int64(3479099956230698), []any{"13.36138933897018433", "38.11555639549629859"}},
				[]any{"edge2", "279.7403", int64(3481342659049484), []any{"17.24151045083999634", "38.78813451624225195"}},
				[]any{"edge1", "279.7405", int64(3479273021651468), []any{"12.7584877610206604", "38.78813451624225195"}},
			}},
			{cmd("GEOSEARCH", "g", "FROMMEMBER", "Palermo", "BYRADIUS", 300, "KM", "WITHDIST", "ASC"), []any{
				[]any{"Palermo", "0.0000"}, []any{"Agrigento", "90.9778"}, []any{"edge1", "91.4007"}, []any{"Catania", "166.2742"},
			}},
			{cmd("GEOSEARCH", "g", "FROMMEMBER", "Palermo", "BYBOX", 1000, 1000, "mi", "COUNT", 3, "DESC", "WITHDIST"), []any{
				[]any{"Rome", "265.7173"}, []any{"edge2", "215.0741"}, []any{"Catania", "103.3182"},
			}},
			{cmd("GEOSEARCH", "g", "FROMLONLAT", 0, 0, "BYRADIUS", 1, "m"), []any{}},
			{cmd("GEOSEARCH", "nokey", "FROMLONLAT", 0, 0, "BYRADIUS", 1, "m"), []any{}},
			{cmd("GEOSEARCH", "nokey", "FROMMEMBER", "x", "BYRADIUS", 1, "m"), []any{}},

			{cmd("GEORADIUS", "g", 15, 37, 200, "km", "WITHDIST", "WITHCOORD"), []any{
				[]any{"Agrigento", "130.4235", []any{"13.5833314061164856", "37.31666804993816555"}},
				[]any{"Palermo", "190.4424", []any{"13.36138933897018433", "38.11555639549629859"}},
				[]any{"Catania", "56.4413", []any{"15.08726745843887329", "37.50266842333162032"}},
			}},
			{cmd("GEORADIUS_RO", "g", 15, 37, 100, "km"), []any{"Catania"}},
			{cmd("GEORADIUSBYMEMBER", "g", "Palermo", 100, "km", "DESC"), []any{"edge1", "Agrigento", "Palermo"}},
			{cmd("GEORADIUSBYMEMBER_RO", "g", "Palermo", 100, "km", "WITHHASH", "COUNT", 1), []any{[]any{"Palermo", int64(3479099956230698)}}},
			{cmd("GEORADIUSBYMEMBER", "nokey", "x", "y", "z"), []any{}}, // no key: the radius is never read
			{cmd("GEORADIUS", "g", 15, 37, 0, "km"), []any{}},

			// Ties: with COUNT below the number found, Redis's partial
			// quicksort orders equal distances its own way.
			// A search reads the score ranges of the cells around its area,
			// never the whole set: "far" decodes 125 m from the centre (a
			// latitude bit past the 52 clamps it), but its score lies
			// outside every cell, so Redis does not find it, nor must Shale.
			{cmd("GEOADD", "pole", 0, 85.05, "near"), 1},
			{cmd("ZADD", "pole", 8256599316762628, "far"), 1},
			{cmd("GEODIST", "pole", "near", "far"), "125.5988"},
			{cmd("GEOSEARCH", "pole", "FROMLONLAT", 0, 85.05, "BYRADIUS", 10, "km"), []any{"near"}},
			{geoTies(), 45},
			{cmd("GEOADD", "t", 1.1, 1, "q"), 1},
			{cmd("GEOSEARCH", "t", "FROMLONLAT", 1, 1, "BYRADIUS", 100, "km", "COUNT", 4), []any{"p45", "p11", "p12", "p13"}},
			{cmd("GEOSEARCH", "t", "FROMLONLAT", 1, 1, "BYRADIUS", 100, "km", "COUNT", 4, "DESC"), []any{"q", "p11", "p12", "p13"}},
		})
	})
}

// geoTies adds p10 to p54, all at one point.
func geoTies() []any {
	args := []any{"GEOADD", "t"}
	for i := 10; i <= 54; i++ {
		args = append(args, 1, 1, "p"+strconv.Itoa(i))
	}
	return args
}

func TestGeoSearchErrors(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		unit := errText("ERR unsupported unit provided. please use M, KM, FT, MI")
		run(t, c, []step{
			{geoCities(), 6},
			{cmd("SET", "s", "x"), ok},
			{cmd("GEOSEARCH", "g", "FROMLONLAT", 15, 37, "WITHDIST", "WITHCOORD"), errText("ERR exactly one of BYRADIUS and BYBOX can be specified for GEOSEARCH")},
			{cmd("geoSearch", "g", "BYRADIUS", 1, "km", "WITHDIST", "ASC"), errText("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for geoSearch")},
			{cmd("GEOSEARCH", "g", "FROMLONLAT", 15, 37, "FROMMEMBER", "Palermo", "BYRADIUS", 1, "km"), errText("ERR syntax error")},
			{cmd("GEOSEARCH", "g", "FROMLONLAT", 15, 37, "BYRADIUS", 1, "km", "BYBOX", 1, 1, "km"), errText("ERR syntax error")},
			{cmd("GEOSEARCH", "g", "FROMLONLAT", 15, 37, "BYRADIUS", 1, "km", "STORE", "x"), errText("ERR syntax error")},
			{cmd("GEOSEARCH", "g", "FROMLONLAT", 15, 37, "BYRADIUS", 1, "km", "STOREDIST"), errText("ERR syntax error")},
			{cmd("GEOSEARCH", "g", "FROMLONLAT", 15, 37, "BYRADIUS", 1, "km", "COUNT"), errText("ERR syntax error")},
			{cmd("GEOSEARCH", "g", "FROMLONLAT", 15, 37, "BYRADIUS", 1), errText("ERR syntax error")},
			{cmd("GEOSEARCH", "g", "FROMMEMBER", "nope", "BYRADIUS", 1, "km"), errText("ERR could not decode requested zset member")},
			// The centre member is read where it appears among the options.
			{cmd("GEOSEARCH", "g", "BYRADIUS", "x", "km", "FROMMEMBER", "nope"), errText("ERR need numeric radius")},
			{cmd("GEOSEARCH", "g", "FROMMEMBER", "nope", "BYRADIUS", "x", "km"), errText("ERR could not decode requested zset member")},
			{cmd("GEOSEARCH", "s", "FROMMEMBER", "nope", "BYRADIUS", "x", "km", "bad"), errPrefix("WRONGTYPE")},
			{cmd("GEOSEARCH", "g", "FROMLONLAT", 15, 37, "BYRADIUS", -1, "km"), errText("ERR radius cannot be negative")},
			{cmd("GEOSEARCH", "g", "FROMLONLAT", 15, 37, "BYRADIUS", 1, "kmx"), unit},
			{cmd("GEOSEARCH", "g", "FROMLONLAT", 15, 37, "BYBOX", "x", 1, "km"), errText("ERR need numeric width")},
			{cmd("GEOSEARCH", "g", "FROMLONLAT", 15, 37, "BYBOX", 1, "y", "km"), errText("ERR need numeric height")},
			{cmd("GEOSEARCH", "g", "FROMLONLAT", 15, 37, "BYBOX", 1, -1, "km"), errText("ERR height or width cannot be negative")},
			{cmd("GEOSEARCH", "g", "FROMLONLAT", 15, 37, "BYBOX", 1, 1, "yd"), unit},
			{cmd("GEOSEARCH", "g", "FROMLONLAT", 15, 95, "BYBOX", 1, 1, "km"), errText("ERR invalid longitude,latitude pair 15.000000,95.000000")},
			{cmd("GEOSEARCH", "g", "FROMLONLAT", 15, 37, "BYRADIUS", 1, "km", "COUNT", 0), errText("ERR COUNT must be > 0")},
			{cmd("GEOSEARCH", "g", "FROMLONLAT", 15, 37, "BYRADIUS", 1, "km", "COUNT", "x"), errText("ERR value is not an integer or out of range")},
			{cmd("GEOSEARCH", "g", "FROMLONLAT", 15, 37, "BYRADIUS", 1, "km", "ANY"), errText("ERR the ANY argument requires COUNT argument")},
			{cmd("GEOSEARCH", "nokey", "FROMLONLAT", 15, 37, "BYRADIUS", 1, "km", "ANY"), errText("ERR the ANY argument requires COUNT argument")},
			{cmd("GEOSEARCHSTORE", "d", "g", "FROMLONLAT", 15, 37, "BYRADIUS", 1, "km", "WITHDIST"), errText("ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD options")},
			{cmd("GEOSEARCHSTORE", "d", "g", "FROMLONLAT", 15, 37, "BYRADIUS", 1, "km", "STORE", "x"), errText("ERR syntax error")},
			{cmd("GEORADIUS", "g", 15, 37, 200, "km", "STORE", "x", "WITHHASH"), errText("ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD options")},
			{cmd("GEORADIUS", "g", 15, 37, 200, "km", "FROMMEMBER", "x"), errText("ERR syntax error")},
			{cmd("GEORADIUS_RO", "g", 15, 37, 200, "km", "STORE", "x"), errText("ERR syntax error")},
			{cmd("GEORADIUSBYMEMBER_RO", "g", "Palermo", 200, "km", "STOREDIST", "x"), errText("ERR syntax error")},
			{cmd("GEORADIUS", "g", 15, 37, "x", "km"), errText("ERR need numeric radius")},
			{cmd("GEORADIUS", "g", 215, 37, "x", "km"), errText("ERR invalid longitude,latitude pair 215.000000,37.000000")},
			{cmd("GEORADIUS", "s", 215, 37, "x", "km"), errPrefix("WRONGTYPE")},
			{cmd("GEORADIUSBYMEMBER", "g", "nope", "x", "km"), errText("ERR could not decode requested zset member")},
			{cmd("GEORADIUSBYMEMBER", "g", "Palermo", 1, "parsec"), unit},
			{cmd("GEORADIUSBYMEMBER", "nokey", "nope", "x", "km", "ANY"), errText("ERR the ANY argument requires COUNT argument")},
			{cmd("GEOSEARCH", "g", "FROMLONLAT", 15, 37, "BYRADIUS", 1, "km", "bogus"), errText("ERR syntax error")},
		})
	})
}

func TestGeoStore(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			{geoCities(), 6},
			{cmd("GEORADIUS", "g", 15, 37, 200, "km", "STORE", "d"), 3},
			{cmd("ZRANGE", "d", 0, -1, "WITHSCORES"), []any{"Agrigento", "3479030013248308", "Palermo", "3479099956230698", "Catania", "3479447370796909"}},
			{cmd("GEORADIUS", "g", 15, 37, 200, "km", "STOREDIST", "d", "COUNT", 2), 2},
			{cmd("ZRANGE", "d", 0, -1, "WITHSCORES"), []any{"Catania", "56.441257870158204", "Agrigento", "130.42348706714702"}},
			// The last STORE or STOREDIST wins.
			{cmd("GEORADIUSBYMEMBER", "g", "Palermo", 100, "km", "STORE", "d1", "STOREDIST", "d2"), 3},
			{cmd("EXISTS", "d1"), 0},
			{cmd("ZRANGE", "d2", 0, -1, "WITHSCORES"), []any{"Palermo", "0", "Agrigento", "90.977753537996037", "edge1", "91.400658605814272"}},
			{cmd("GEOSEARCHSTORE", "d3", "g", "FROMMEMBER", "Palermo", "BYBOX", 300, 300, "km", "STOREDIST", "DESC", "COUNT", 2), 2},
			{cmd("ZRANGE", "d3", 0, -1, "WITHSCORES"), []any{"Agrigento", "90.977753537996037", "edge1", "91.400658605814272"}},
			{cmd("GEOSEARCHSTORE", "d3", "g", "FROMMEMBER", "Palermo", "BYRADIUS", 10, "km"), 1},
			{cmd("ZRANGE", "d3", 0, -1, "WITHSCORES"), []any{"Palermo", "3479099956230698"}},
			// Nothing found, or no source: the destination is deleted,
			// whatever it held.
			{cmd("SET", "str", "v"), ok},
			{cmd("GEOSEARCHSTORE", "str", "g", "FROMLONLAT", 0, 0, "BYRADIUS", 1, "km"), 0},
			{cmd("EXISTS", "str"), 0},
			{cmd("GEORADIUS", "nokey", 0, 0, 1, "km", "STORE", "d3"), 0},
			{cmd("EXISTS", "d3"), 0},
			{cmd("SET", "str", "v"), ok},
			{cmd("GEOSEARCHSTORE", "str", "g", "FROMLONLAT", 15, 37, "BYRADIUS", 100, "km"), 1},
			{cmd("TYPE", "str"), "zset"},
			{cmd("COMMAND", "GETKEYS", "GEORADIUS", "g", 1, 1, 1, "km", "STOREDIST", "a", "STORE", "b"), []any{"g", "b", "a"}},
			{cmd("COMMAND", "GETKEYS", "GEORADIUSBYMEMBER", "g", "m", 1, "km", "STORE", "a", "STORE", "b"), []any{"g", "a"}},
		})
	})
}

// TestGeoRandomized compares Shale with Redis on random points and random
// searches of every kind: member for member, digit for digit.
func TestGeoRandomized(t *testing.T) {
	t.Parallel()
	rds, sh := startRedis(t), startShale(t, shaleOpts{})
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("SHALE_GEO_SEED"); s != "" { // replays a failure
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("geo: seed %d (SHALE_GEO_SEED replays it)", seed)
	rng := rand.New(rand.NewPCG(seed, 0x9e0))
	ctx := context.Background()
	var last []any // the command before, for a ZRANGE's failure
	found := 0     // elements the searches replied, so that a run proves something
	do := func(args ...any) {
		t.Helper()
		a, errA := rds.Client.Do(ctx, args...).Result()
		if arr, ok := a.([]any); ok {
			found += len(arr)
		}
		b, errB := sh.Client.Do(ctx, args...).Result()
		if fmt.Sprint(errA) != fmt.Sprint(errB) || !reflect.DeepEqual(a, b) {
			t.Fatalf("seed %d: %v (after %v)\n%s", seed, args, last, geoDiff(a, b, errA, errB))
		}
		last = args
	}
	coord := func() (float64, float64) {
		switch rng.IntN(4) {
		case 0: // anywhere
			return rng.Float64()*360 - 180, rng.Float64()*170.1 - 85.05
		case 1: // near the poles
			return rng.Float64()*360 - 180, math.Copysign(80+rng.Float64()*5.05, rng.Float64()-0.5)
		case 2: // near the antimeridian
			return math.Copysign(179+rng.Float64(), rng.Float64()-0.5), rng.Float64()*100 - 50
		}
		return 13 + rng.Float64()*4, 36 + rng.Float64()*4 // a dense patch
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', rng.IntN(8)+1, 64) }
	const points = 3000
	for i := 0; i < points; i += 100 {
		args := []any{"GEOADD", "g"}
		for j := i; j < i+100; j++ {
			lon, lat := coord()
			args = append(args, f(lon), f(lat), "m"+strconv.Itoa(j))
		}
		do(args...)
	}
	// Members sharing a point tie in distance: COUNT's partial sort must
	// order them as Redis's pqsort does.
	shared := make([][2]string, 12)
	for i := range shared {
		lon, lat := 13+rng.Float64()*4, 36+rng.Float64()*4
		shared[i] = [2]string{f(lon), f(lat)}
	}
	args := []any{"GEOADD", "g"}
	for j := range 400 {
		p := shared[rng.IntN(len(shared))]
		args = append(args, p[0], p[1], "t"+strconv.Itoa(j))
	}
	do(args...)
	units := []string{"m", "km", "ft", "mi", "KM"}
	radius := func() string {
		switch rng.IntN(3) {
		case 0:
			return f(rng.Float64() * 1000)
		case 1:
			return f(rng.Float64() * 500000)
		}
		return f(rng.Float64() * 8000000)
	}
	opts := func(store bool) []any {
		var o []any
		if rng.IntN(2) == 0 {
			o = append(o, []string{"ASC", "DESC"}[rng.IntN(2)])
		}
		if rng.IntN(3) == 0 {
			o = append(o, "COUNT", rng.IntN(20)+1)
			if rng.IntN(3) == 0 {
				o = append(o, "ANY")
			}
		}
		if !store {
			for _, w := range []string{"WITHDIST", "WITHCOORD", "WITHHASH"} {
				if rng.IntN(2) == 0 {
					o = append(o, w)
				}
			}
		}
		return o
	}
	for q := 0; q < 300; q++ {
		lon, lat := coord()
		member := "m" + strconv.Itoa(rng.IntN(points))
		unit := units[rng.IntN(len(units))]
		var args []any
		switch rng.IntN(6) {
		case 0:
			args = append([]any{"GEORADIUS", "g", f(lon), f(lat), radius(), unit}, opts(false)...)
		case 1:
			args = append([]any{"GEORADIUSBYMEMBER_RO", "g", member, radius(), unit}, opts(false)...)
		case 2:
			args = append([]any{"GEOSEARCH", "g", "FROMLONLAT", f(lon), f(lat), "BYBOX", radius(), radius(), unit}, opts(false)...)
		case 3:
			args = append([]any{"GEOSEARCH", "g", "FROMMEMBER", member, "BYRADIUS", radius(), unit}, opts(false)...)
		case 4:
			if rng.IntN(2) == 0 {
				args = append([]any{"GEOSEARCHSTORE", "d", "g", "FROMMEMBER", member, "BYBOX", radius(), radius(), unit, "STOREDIST"}, opts(true)...)
			} else {
				args = append([]any{"GEORADIUS", "g", f(lon), f(lat), radius(), unit, "STORE", "d"}, opts(true)...)
			}
			do(args...)
			args = []any{"ZRANGE", "d", 0, -1, "WITHSCORES"}
		default:
			args = []any{"GEODIST", "g", member, "m" + strconv.Itoa(rng.IntN(points)), unit}
		}
		do(args...)
	}
	for i := 0; i < points; i += 500 {
		args := []any{"GEOPOS", "g"}
		hashes := []any{"GEOHASH", "g"}
		for j := i; j < i+500; j++ {
			args = append(args, "m"+strconv.Itoa(j))
			hashes = append(hashes, "m"+strconv.Itoa(j))
		}
		do(args...)
		do(hashes...)
	}
	do("ZRANGE", "g", 0, -1, "WITHSCORES")
	t.Logf("geo: %d elements compared", found)
}

// geoDiff describes where two replies differ: the first differing element
// of an array, with its neighbors, rather than the whole reply.
func geoDiff(a, b any, errA, errB error) string {
	x, okA := a.([]any)
	y, okB := b.([]any)
	if !okA || !okB || errA != nil || errB != nil {
		return fmt.Sprintf("redis: %v %v\nshale: %v %v", a, errA, b, errB)
	}
	i := 0
	for i < len(x) && i < len(y) && reflect.DeepEqual(x[i], y[i]) {
		i++
	}
	lo := max(i-4, 0)
	return fmt.Sprintf("lengths %d and %d, first difference at %d\nredis: %v\nshale: %v", len(x), len(y), i, x[lo:min(i+4, len(x))], y[lo:min(i+4, len(y))])
}

// TestGeoStoreWatch checks that a search's STORE breaks a WATCH of its
// destination, the last STORE key when there are several, as in Redis.
func TestGeoStoreWatch(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		ctx := ctxT(t)
		watcher := newConn(t, b.Addr)
		run(t, c, []step{{geoCities(), 6}})
		run(t, watcher, []step{{cmd("WATCH", "b"), ok}})
		run(t, c, []step{{cmd("GEORADIUS", "g", 15, 37, 200, "km", "STORE", "a", "STORE", "b"), 3}})
		run(t, watcher, []step{{cmd("MULTI"), ok}, {cmd("GET", "x"), "QUEUED"}})
		if got, err := watcher.Do(ctx, "EXEC").Result(); err != redis.Nil {
			t.Fatalf("EXEC after the watched key was stored: %v %v", got, err)
		}
	})
}
