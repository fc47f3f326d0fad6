// Package types implements Redis's data types over server/store: strings,
// hashes, lists, sets, sorted sets and streams, SORT, and the keyspace
// commands (DEL, EXPIRE, RENAME, SCAN ...), plus the active expiry loop.
//
// Files follow the types: string.go, hash.go, list.go, set.go, zset*.go and
// stream*.go hold one type's commands each; keyspace.go and expire.go the commands that
// work on keys of any type; sample.go the random draws that SRANDMEMBER,
// SPOP and HRANDFIELD share; sort.go is SORT. engine.go holds the Engine
// and its databases, and keystate.go the keyState through which every
// command reads a key's metadata and writes it back. numbers.go and
// zset_parse.go read numbers as Redis does, glob.go matches Redis's
// patterns, and cursor.go keeps the SCAN family's cursors.
//
// It may import metadata, subkey and server/store; it knows nothing of RESP.
// Methods are named after the Redis command they implement and return typed
// errors (ErrWrongType ...) that the server maps to wire texts.
//
// Invariants:
//   - Every method locks the keys it touches and writes exactly one
//     store.Batch, so each command is atomic and isolated. A long read
//     walks a snapshot taken under the locks and lets them go (walkView).
//   - Removing a key (DEL, overwrite, expiry, RENAME's destination) touches
//     only its metadata, bookkeeping and expiry-index records: O(1) whatever
//     its size. Its sub-keys are left to the compaction filters.
//   - A composite key never exists empty: removing its last element removes it.
//   - An expired key is absent to every command; writing to it creates a new
//     key with a new uid.
//   - A DB is a logical database (SELECT's index); its records carry the
//     physical one that holds it (DB.phys, the store's map), which only
//     SWAPDB changes, under the world lock. Locks, write-log facts, SCAN
//     cursors and the server's keys name logical databases; records and
//     counters, physical ones.
package types
