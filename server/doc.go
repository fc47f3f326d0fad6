// Package server owns the wire: the redcon listener, client state, the one
// declarative command table, argument parsing, replies, and the mapping of
// errors to Redis's reply texts. INFO, CONFIG and the other server commands
// live here too, and what runs several commands as one: pipeline groups
// (pipeline.go), transactions (multi.go), scripts and functions (script.go,
// script_lua.go, function.go), with pub/sub (pubsub.go), keyspace
// notifications (notify.go), client-side caching (tracking.go) and
// replication (replication.go: a primary's links to its replicas, a
// replica's link to its primary).
//
// It may import conf, server/lualib, server/resp, server/store and
// server/types (never the codecs' callers' internals); with server/resp,
// which guards the request bytes before redcon parses them, it is the only
// package that knows RESP.
//
// Invariants:
//   - A command is its table row and its handler. Handlers never check
//     arity or argument shape and never write errors: the dispatcher does
//     both, from the row (arity, Shape, the subcommand it resolves) and from
//     the returned error.
//   - A handler either writes exactly one reply and returns nil, or writes
//     nothing and returns an error. (P|S)SUBSCRIBE and (P|S)UNSUBSCRIBE
//     are the exception Redis makes: one reply per channel.
//   - EXEC and scripts run their commands in one store group that holds
//     all their locks and writes one batch (Client.atomicRun is set
//     meanwhile): blocking commands try once, and blocked clients and
//     keyspace subscribers hear of the writes once the batch is written.
//   - Replies go through Reply (reply.go), which names their shape (Map,
//     Set, Double, ...) and encodes it for the client's protocol; nothing
//     else writes to the connection, save MONITOR's pre-encoded lines.
//     Pub/sub messages are encoded through Reply too, once per message,
//     and a publisher hands the bytes to each subscriber's connection
//     (pubsub.go), whole frames between whole replies. Client-tracking
//     invalidations are such frames too; those for a connection that runs
//     a command follow its reply (tracking.go).
//
// RocksDB stays behind server/store: outside its tests, this package names
// no RocksDB option or property; it reads the store's figures as typed
// values (MemoryStats, DBStats, CFStats, GCStats) and changes RocksDB's
// options with the store's ApplyOptions.
//
// Pinned internals: bufferedLen (output.go) reads the reply buffer's length
// out of redcon's Writer (v1.6.2) through unsafe, by mirroring its private
// fields in writerMirror; writerLayoutMatches compares the two layouts at
// start-up and falls back to Writer.Buffer when they differ, and
// TestBufferedLen fails then, so whoever upgrades redcon updates the
// mirror. server/store/doc.go lists the store's (grocksdb's Iterator, the
// WriteBatch encoding, the text of RocksDB's stall statistics).
package server
