package tests

import (
	"testing"

	"github.com/redis/go-redis/v9"
)

// Redis's encoding, persistence and eviction parameters in CONFIG GET and
// CONFIG SET: the values Redis takes and its texts for the others.

func configFailed(param, why string) errText {
	return errText("ERR CONFIG SET failed (possibly related to argument '" + param + "') - " + why)
}

func TestConfigEncodingParams(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		const notInt = "argument couldn't be parsed into an integer"
		const notMem = "argument must be a memory value"
		const sizeRange = "argument must be between 0 and 9223372036854775807 inclusive"
		const intRange = "argument must be between -2147483648 and 2147483647 inclusive"
		run(t, c, []step{
			{cmd("CONFIG", "SET", "hash-max-listpack-entries", "abc"), configFailed("hash-max-listpack-entries", notInt)},
			{cmd("CONFIG", "SET", "hash-max-listpack-entries", "-1"), configFailed("hash-max-listpack-entries", sizeRange)},
			{cmd("CONFIG", "SET", "hash-max-listpack-entries", "1kb"), configFailed("hash-max-listpack-entries", notInt)},
			{cmd("CONFIG", "SET", "hash-max-listpack-entries", "+1"), configFailed("hash-max-listpack-entries", notInt)},
			{cmd("CONFIG", "SET", "hash-max-listpack-entries", "01"), configFailed("hash-max-listpack-entries", notInt)},
			{cmd("CONFIG", "SET", "hash-max-listpack-entries", "9223372036854775808"), configFailed("hash-max-listpack-entries", notInt)},
			{cmd("CONFIG", "SET", "hash-max-ziplist-entries", "x"), configFailed("hash-max-ziplist-entries", notInt)},
			{cmd("CONFIG", "SET", "hash-max-listpack-value", "abc"), configFailed("hash-max-listpack-value", notMem)},
			{cmd("CONFIG", "SET", "hash-max-listpack-value", "-1"), configFailed("hash-max-listpack-value", notMem)},
			{cmd("CONFIG", "SET", "hash-max-listpack-value", "9223372036854775808"), configFailed("hash-max-listpack-value", sizeRange)},
			{cmd("CONFIG", "SET", "list-max-listpack-size", "abc"), configFailed("list-max-listpack-size", notInt)},
			{cmd("CONFIG", "SET", "list-max-listpack-size", "100000000000"), configFailed("list-max-listpack-size", intRange)},
			{cmd("CONFIG", "SET", "list-max-ziplist-size", "-2147483649"), configFailed("list-max-ziplist-size", intRange)},
			{cmd("CONFIG", "SET", "list-compress-depth", "-1"), configFailed("list-compress-depth", "argument must be between 0 and 2147483647 inclusive")},
			{cmd("CONFIG", "SET", "list-compress-depth", "1kb"), configFailed("list-compress-depth", notInt)},
			{cmd("CONFIG", "SET", "set-max-intset-entries", "abc"), configFailed("set-max-intset-entries", notInt)},
			{cmd("CONFIG", "SET", "set-max-intset-entries", "-1"), configFailed("set-max-intset-entries", sizeRange)},
			{cmd("CONFIG", "SET", "zset-max-listpack-entries", "x"), configFailed("zset-max-listpack-entries", notInt)},
			{cmd("CONFIG", "SET", "zset-max-ziplist-value", "x"), configFailed("zset-max-ziplist-value", notMem)},

			// Memory values take Redis's units; GET answers bytes. A name
			// and its alias are one setting.
			{cmd("CONFIG", "SET", "hash-max-listpack-value", "1kb", "zset-max-listpack-value", "2k"), ok},
			{cmd("CONFIG", "GET", "hash-max-ziplist-value"), []any{"hash-max-ziplist-value", "1024"}},
			{cmd("CONFIG", "GET", "zset-max-listpack-value"), []any{"zset-max-listpack-value", "2000"}},
			{cmd("CONFIG", "SET", "list-max-listpack-size", "-6", "list-compress-depth", "3"), ok},
			{cmd("CONFIG", "GET", "list-max-ziplist-size"), []any{"list-max-ziplist-size", "-6"}},
			// Both names in one CONFIG SET: Redis takes it, the last wins.
			{cmd("CONFIG", "SET", "hash-max-listpack-entries", "1", "hash-max-ziplist-entries", "2"), ok},
			{cmd("CONFIG", "GET", "hash-max-listpack-entries"), []any{"hash-max-listpack-entries", "2"}},
			// A pattern lists the names and the aliases.
			{cmd("CONFIG", "GET", "hash-max-*"), pairs(map[string]string{
				"hash-max-listpack-entries": "2", "hash-max-ziplist-entries": "2",
				"hash-max-listpack-value": "1024", "hash-max-ziplist-value": "1024"})},
			{cmd("CONFIG", "GET", "*ziplist*"), pairs(map[string]string{
				"hash-max-ziplist-entries": "2", "hash-max-ziplist-value": "1024",
				"zset-max-ziplist-entries": "128", "zset-max-ziplist-value": "2000",
				"list-max-ziplist-size": "-6"})},
		})
	})
}

func TestConfigPersistenceParams(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		run(t, c, []step{
			// What Redis refuses, both refuse with its text.
			{cmd("CONFIG", "SET", "appendfsync", "foo"), configFailed("appendfsync", "argument(s) must be one of the following: everysec, always, no")},
			{cmd("CONFIG", "SET", "maxmemory-policy", "bad"), configFailed("maxmemory-policy",
				"argument(s) must be one of the following: volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction")},
			{cmd("CONFIG", "SET", "appendonly", "maybe"), configFailed("appendonly", "argument must be 'yes' or 'no'")},
			{cmd("CONFIG", "SET", "appendonly", "true"), configFailed("appendonly", "argument must be 'yes' or 'no'")},
			{cmd("CONFIG", "SET", "activedefrag", "maybe"), configFailed("activedefrag", "argument must be 'yes' or 'no'")},
			{cmd("CONFIG", "SET", "lazyfree-lazy-eviction", "maybe"), configFailed("lazyfree-lazy-eviction", "argument must be 'yes' or 'no'")},
			{cmd("CONFIG", "SET", "lazyfree-lazy-user-flush", "1"), configFailed("lazyfree-lazy-user-flush", "argument must be 'yes' or 'no'")},
			{cmd("CONFIG", "SET", "save", "abc"), configFailed("save", "Invalid save parameters")},
			{cmd("CONFIG", "SET", "save", "1 2 3"), configFailed("save", "Invalid save parameters")},
			{cmd("CONFIG", "SET", "save", "-1 2"), configFailed("save", "Invalid save parameters")},
			{cmd("CONFIG", "SET", "save", " "), configFailed("save", "Invalid save parameters")},
			{cmd("CONFIG", "SET", "maxmemory", "lots"), configFailed("maxmemory", "argument must be a memory value")},
			// What Shale does, both take; enumerations in any case.
			{cmd("CONFIG", "SET", "maxmemory-policy", "NoEviction"), ok},
			{cmd("CONFIG", "GET", "maxmemory-policy"), []any{"maxmemory-policy", "noeviction"}},
			{cmd("CONFIG", "SET", "save", ""), ok},
			{cmd("CONFIG", "GET", "save"), []any{"save", ""}},
			{cmd("CONFIG", "GET", "activedefrag"), []any{"activedefrag", "no"}},
			{cmd("CONFIG", "SET", "activedefrag", "no"), ok},
			{cmd("CONFIG", "GET", "maxmemory"), []any{"maxmemory", "0"}},
			{cmd("CONFIG", "SET", "maxmemory", "0mb"), ok},
		})
		if !b.isShale() {
			return
		}
		// What Shale cannot honour, it refuses, saying why: it always
		// logs every write, never evicts, always frees in the background.
		run(t, c, []step{
			{cmd("CONFIG", "GET", "appendonly"), []any{"appendonly", "yes"}},
			{cmd("CONFIG", "SET", "appendonly", "yes"), ok},
			{cmd("CONFIG", "SET", "appendonly", "no"), errPrefix("ERR CONFIG SET failed (possibly related to argument 'appendonly') - Shale always logs every write")},
			{cmd("CONFIG", "GET", "appendfsync"), []any{"appendfsync", "no"}},
			{cmd("CONFIG", "SET", "appendfsync", "NO"), ok},
			{cmd("CONFIG", "SET", "appendfsync", "everysec"), errPrefix("ERR CONFIG SET failed (possibly related to argument 'appendfsync') - Shale has no once-a-second fsync")},
			{cmd("CONFIG", "SET", "appendfsync", "always"), errPrefix("ERR CONFIG SET failed (possibly related to argument 'appendfsync') - appendfsync is storage.sync_writes, read at start-up")},
			{cmd("CONFIG", "SET", "save", "3600 1"), errPrefix("ERR CONFIG SET failed (possibly related to argument 'save') - Shale takes no snapshots")},
			{cmd("CONFIG", "SET", "maxmemory-policy", "allkeys-lru"), errPrefix("ERR CONFIG SET failed (possibly related to argument 'maxmemory-policy') - Shale never evicts")},
			{cmd("CONFIG", "SET", "maxmemory", "100mb"), errPrefix("ERR CONFIG SET failed (possibly related to argument 'maxmemory') - Shale never evicts")},
			{cmd("CONFIG", "SET", "activedefrag", "yes"), errPrefix("ERR CONFIG SET failed (possibly related to argument 'activedefrag') - Shale has no allocator fragmentation")},
			{cmd("CONFIG", "GET", "lazyfree-*"), pairs(map[string]string{
				"lazyfree-lazy-eviction": "yes", "lazyfree-lazy-expire": "yes", "lazyfree-lazy-server-del": "yes",
				"lazyfree-lazy-user-del": "yes", "lazyfree-lazy-user-flush": "yes"})},
			{cmd("CONFIG", "SET", "lazyfree-lazy-user-del", "YES"), ok},
			{cmd("CONFIG", "SET", "lazyfree-lazy-user-del", "no"), errPrefix("ERR CONFIG SET failed (possibly related to argument 'lazyfree-lazy-user-del') - Shale always frees in the background")},
			// All or nothing: a refused value changes none of the others.
			{cmd("CONFIG", "SET", "hash-max-listpack-entries", "7", "maxmemory-policy", "allkeys-lru"), errPrefix("ERR CONFIG SET failed")},
			{cmd("CONFIG", "GET", "hash-max-listpack-entries"), []any{"hash-max-listpack-entries", "512"}},
		})
	})
}

// TestConfigEncodingFile: the [encoding] section of the config file sets
// the limits, and CONFIG GET shows them under Redis's names.
func TestConfigEncodingFile(t *testing.T) {
	p := startShale(t, shaleOpts{Config: "[encoding]\nhash_max_listpack_entries = 2\nzset_max_listpack_value = \"1KiB\"\n[storage]\nsync_writes = true\n"})
	run(t, p.Client, []step{
		{cmd("CONFIG", "GET", "hash-max-ziplist-entries"), []any{"hash-max-ziplist-entries", "2"}},
		{cmd("CONFIG", "GET", "zset-max-listpack-value"), []any{"zset-max-listpack-value", "1024"}},
		{cmd("CONFIG", "GET", "appendfsync"), []any{"appendfsync", "always"}},
		{cmd("HSET", "h", "a", 1, "b", 2, "c", 3), 3},
		enc("h", "hashtable"),
	})
}
