// Package server owns the wire: the redcon listener, client state, the one
// declarative command table, argument parsing, replies, and the mapping of
// errors to Redis's reply texts. INFO, CONFIG and the other server commands
// live here too.
//
// It may import conf, server/store and server/types (never the codecs'
// callers' internals); it is the only package that knows RESP.
//
// Invariants:
//   - Handlers never check arity and never write errors: the dispatcher does
//     both, from the table and from the returned error.
//   - A handler either writes exactly one reply and returns nil, or writes
//     nothing and returns an error.
package server
