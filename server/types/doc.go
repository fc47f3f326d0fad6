// Package types implements Redis's data types over server/store: strings,
// hashes and the keyspace commands (DEL, EXPIRE, RENAME, SCAN ...), plus the
// active expiry loop.
//
// It may import metadata, subkey and server/store; it knows nothing of RESP.
// Methods are named after the Redis command they implement and return typed
// errors (ErrWrongType ...) that the server maps to wire texts.
//
// Invariants:
//   - Every method locks the keys it touches for its whole duration and
//     writes exactly one store.Batch, so each command is atomic and isolated.
//   - Removing a key (DEL, overwrite, expiry, RENAME's destination) touches
//     only its metadata, bookkeeping and expiry-index records: O(1) whatever
//     its size. Its sub-keys are left to the compaction filters.
//   - A composite key never exists empty: removing its last element removes it.
//   - An expired key is absent to every command; writing to it creates a new
//     key with a new uid.
package types
