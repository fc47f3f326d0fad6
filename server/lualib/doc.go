// Package lualib owns the four C libraries Redis 7.0 embeds in its Lua
// interpreter that gopher-lua lacks, rewritten in Go to give the same
// bytes for the same inputs:
//
//   - bit: LuaBitOp 1.0.2 (bit.c), 32-bit operations on Lua numbers.
//   - struct: Roberto Ierusalimschy's struct library as patched in Redis
//     (deps/lua/src/lua_struct.c, with the CVE-2020-14147 bounds checks).
//   - cjson: lua-cjson 2.1.0 (deps/lua/src/lua_cjson.c), with its
//     configuration functions, cjson.new and the cjson.null sentinel.
//   - cmsgpack: lua-cmsgpack 0.4.0 (deps/lua/src/lua_cmsgpack.c).
//
// Open installs them as globals of one interpreter state. The package
// holds no server state and imports nothing of ours; it never touches the
// filesystem, the network or the OS.
//
// Invariants:
//   - Every error is a Lua error raised with the C library's exact text and,
//     as a C function's luaL_error does, without a "chunk:line:" prefix;
//     argument errors read "bad argument #n to 'name' (...)".
//   - Nothing panics on any input: decoders check every length before they
//     read, and no allocation is sized by a number taken from the input
//     before that number is bounded by the input's length.
//   - Where C relies on x86-64 behaviour (float to integer conversions out
//     of range, int overflow), the Go code spells that behaviour out
//     (conv.go) instead of leaving it to Go's implementation-defined
//     conversions.
//
// Limits follow Lua 5.1's: struct.unpack, cmsgpack.unpack and the
// decoders' nesting stop where the C code's lua_checkstack would
// (LUAI_MAXCSTACK, 8000 slots), with the same messages. The caller's
// gopher-lua registry must hold that many values (RegistrySize and
// RegistryMaxSize above 8000), or gopher-lua fails first with "registry
// overflow". encode and pack refuse output past 512 MiB ("not enough
// memory") where Redis would grow until its allocator aborts.
//
// Known differences from Redis, all forced by gopher-lua: the order of
// keys in encoded maps follows gopher-lua's table iteration order, not
// Lua 5.1's hash order; tostring(cjson.null) is "userdata: (nil)" as in
// Redis, but through a __tostring metamethod, so getmetatable(cjson.null)
// is false instead of nil; argument errors cannot tell a method call
// (cjson:decode(s)) from a plain one, so they never say "calling 'x' on
// bad self" and number arguments as written.
//
// Tests: golden_test.go holds scripts and the exact strings Redis 7.0.15
// returns for them; live_test.go re-checks the goldens, and random inputs,
// against a redis-server when one is installed (LUALIB_REGEN=1 rewrites
// the goldens from it).
package lualib
