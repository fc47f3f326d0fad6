// Package geo is the arithmetic of Redis's geo commands, with no storage:
// the 52-bit interleaved geohash that GEOADD stores as a sorted-set score,
// its decoding to the centre of its cell, the nine cells that cover a
// search area, the haversine distance and the formatting of the numbers.
// Every operation is done in the order and the precision Redis 7.0 does it
// (src/geohash.c, geohash_helper.c, geo.c), so that scores, coordinates and
// distances equal Redis's bit for bit: the trigonometry calls the C
// library, as Redis does, because Go's math package may differ from it in
// the last bit.
//
// It imports nothing of ours.
package geo
