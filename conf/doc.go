// Package conf owns Shale's configuration: the Config type, its defaults and
// the TOML file that overrides them.
//
// Default returns the one and only set of defaults; nothing else in the tree
// hard-codes a default value. Load starts from Default, decodes a TOML file
// over it with github.com/BurntSushi/toml, rejects any key the file holds that
// Config does not know, and then runs Validate. shale.toml in this directory is
// the documented example: it lists every option with its default value, and a
// test checks that loading it yields exactly Default().
//
// Imports: the standard library and github.com/BurntSushi/toml only; conf
// imports no other Shale package and never logs.
//
// Invariants:
//   - Every error names the key it is about, as "section.key" (for example
//     "server.port" or "rocksdb.subkey.compression"), so that an operator can
//     find the line to fix.
//   - Validate reports every problem at once, joined with errors.Join.
//   - A zero CFOverride field (nil pointer or nil slice) inherits the
//     [rocksdb] value; RocksDB.Effective is the one place that merges them.
//   - Sizes are ByteSize (bytes) and intervals are Duration, so that a file can
//     say "64MiB" or "5m" and Go code still sees plain integers.
package conf
