// Package store owns Shale's RocksDB instance: opening it with its column
// families and options from conf, batches, reads and iterators, snapshots for
// the compaction filters, the UID allocator, striped key locks, the per-db key
// counters and the background reclaimer of big deletes.
//
// It may import conf, compaction and the pure codecs (metadata, subkey);
// grocksdb stays inside this package: no Slice, iterator or options value
// escapes it. Everything it returns to callers is Go memory.
//
// Invariants:
//   - A uid is never handed out twice, across restarts and crashes: the
//     high-water mark is fsynced before any uid of a new block is used.
//   - Key counters change in the same WriteBatch as the keys they count.
//   - One command writes exactly one Batch.
package store
