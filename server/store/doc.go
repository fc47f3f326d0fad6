// Package store owns Shale's RocksDB instance: opening it with its column
// families and options from conf, batches, reads and iterators, snapshots for
// the compaction filters, the UID allocator, striped key locks, the per-db key
// counters, the background reclaimer of big deletes, and what replication
// needs of RocksDB: the write-ahead log to read and apply, and a reinstall
// from a checkpoint (replication.go).
//
// It may import conf, compaction and the pure codecs (metadata, subkey);
// grocksdb stays inside this package: no Slice, iterator or options value
// escapes it. Everything it returns to callers is Go memory.
//
// Invariants:
//   - A uid is never handed out twice, across restarts and crashes: the
//     high-water mark is fsynced before any uid of a new block is used.
//   - Key counters change in the same WriteBatch as the keys they count.
//   - Records and counters name physical databases; the database map
//     (dbmap.go) turns the logical one a client selects into the physical
//     one, and changes only in a SWAPDB's batch, under the world lock.
//   - One command writes exactly one Batch.
//   - A replica's store (SetReadOnly) writes nothing but its primary's
//     batches (Apply), so its sequence numbers stay its primary's.
//   - Batches land in the order of their write-queue tickets, and the
//     overlay (overlay.go) holds the records of queued batches only: a
//     record leaves it once the caches have its batch. Only an early
//     group's commands read it, and their replies wait for what they read
//     to land; every other lock holder waits for its stripes' queued
//     writes to land before it reads (docs/WRITES.md).
//
// RocksDB knowledge stays here: the option names and values SetOptions
// takes (ApplyOptions), the properties that hold each figure INFO reports
// (MemoryStats, DBStats, CFStats), which block cache a column family uses,
// and which column families run which compaction filter (GCStats).
//
// Pinned internals: these depend on a dependency's private layout or
// undocumented output, so whoever upgrades grocksdb (v1.7.15) or
// librocksdb must check each; the named test fails when one changed.
//   - iterbatch.go reads the C handle out of grocksdb's Iterator through
//     unsafe: Iterator is a struct whose first and only field is that
//     handle (TestIterateBatchesMatchGrocksdb).
//   - wbrep.go writes RocksDB's WriteBatch serialization (the WAL record
//     format of db/write_batch.cc) in Go and hands the bytes to
//     grocksdb.WriteBatchFrom; the tags are RocksDB's ValueType numbers
//     (TestBatchRepGolden, TestBatchRepMatchesRocksDB).
//   - stalls.go parses the text of the "Stalls(count)" line of the
//     cfstats property and "Cumulative stall" of dbstats: grocksdb has no
//     map-property call to read them as numbers (TestParseWriteStalls,
//     TestWriteStallsFromRocksDB).
//
// server/doc.go lists the server package's own (redcon's Writer).
package store
