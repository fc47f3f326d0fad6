// Package compaction owns Shale's RocksDB compaction filters: the garbage
// collector that reclaims the sub-keys, scores and bookkeeping records of
// composite keys that were deleted, overwritten or expired in O(1).
//
// It may import metadata and subkey (pure codecs), grocksdb and zerolog;
// never server/... . It reads the database through the View interface that
// server/store implements and publishes after Open.
//
// Invariants:
//   - A record is dropped only when its owner is provably dead: bookkeeping
//     has no record for its uid, or the metadata record that bookkeeping
//     names is missing, holds another uid or type, or is expired (not on a
//     replica, which waits for its primary's deletion). Both are read from
//     one snapshot, so a concurrent RENAME cannot fake a death.
//   - On any error or doubt the record is kept: a leak wastes disk, a wrong
//     drop loses data.
//   - Dead verdicts are cached for good: a uid is never reused, so death is
//     permanent (GC.Forget drops them when a replica's records are replaced
//     by another history's, whose uids are its own). Life is not: an alive
//     verdict is remembered only until the store reports a write that may
//     have killed an owner (GC.NoteDeaths).
//   - Filters are called concurrently by RocksDB's background threads on one
//     shared instance; all state is atomic or mutex-guarded.
//   - Key and value slices point into C memory valid only during Filter; the
//     filter never keeps them and never returns a changed value.
package compaction
