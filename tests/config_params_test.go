package tests

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

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

// TestConfigReplicationParams: the replication parameters under Redis's
// names and slave-* aliases, their defaults, ranges and texts. About 1 s.
func TestConfigReplicationParams(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		const notInt = "argument couldn't be parsed into an integer"
		const notBool = "argument must be 'yes' or 'no'"
		const countRange = "argument must be between 0 and 2147483647 inclusive"
		const portRange = "argument must be between 0 and 65535 inclusive"
		const timeoutRange = "argument must be between 1 and 2147483647 inclusive"
		run(t, c, []step{
			{cmd("CONFIG", "GET", "replicaof", "slaveof", "masterauth", "masteruser"), pairs(map[string]string{
				"replicaof": "", "slaveof": "", "masterauth": "", "masteruser": ""})},
			{cmd("CONFIG", "GET", "*read-only", "*priority", "min-*", "repl-timeout"), pairs(map[string]string{
				"replica-read-only": "yes", "slave-read-only": "yes",
				"replica-priority": "100", "slave-priority": "100",
				"min-replicas-to-write": "0", "min-slaves-to-write": "0",
				"min-replicas-max-lag": "10", "min-slaves-max-lag": "10",
				"repl-timeout": "60"})},
			{cmd("CONFIG", "GET", "replica-announce-*", "slave-announce-*"), pairs(map[string]string{
				"replica-announce-ip": "", "slave-announce-ip": "",
				"replica-announce-port": "0", "slave-announce-port": "0"})},

			// REPLICAOF changes the primary, never CONFIG SET.
			{cmd("CONFIG", "SET", "replicaof", "127.0.0.1 6379"), configFailed("replicaof", "can't set immutable config")},
			{cmd("CONFIG", "SET", "slaveof", "127.0.0.1 6379"), configFailed("slaveof", "can't set immutable config")},

			{cmd("CONFIG", "SET", "replica-read-only", "maybe"), configFailed("replica-read-only", notBool)},
			{cmd("CONFIG", "SET", "slave-read-only", "true"), configFailed("slave-read-only", notBool)},
			{cmd("CONFIG", "SET", "replica-read-only", "YES"), ok},
			{cmd("CONFIG", "SET", "replica-announce-port", "-1"), configFailed("replica-announce-port", portRange)},
			{cmd("CONFIG", "SET", "slave-announce-port", "65536"), configFailed("slave-announce-port", portRange)},
			{cmd("CONFIG", "SET", "replica-announce-port", "abc"), configFailed("replica-announce-port", notInt)},
			{cmd("CONFIG", "SET", "replica-priority", "-1"), configFailed("replica-priority", countRange)},
			{cmd("CONFIG", "SET", "slave-priority", "2147483648"), configFailed("slave-priority", countRange)},
			{cmd("CONFIG", "SET", "min-replicas-to-write", "-1"), configFailed("min-replicas-to-write", countRange)},
			{cmd("CONFIG", "SET", "min-slaves-to-write", "+5"), configFailed("min-slaves-to-write", notInt)},
			{cmd("CONFIG", "SET", "min-slaves-to-write", "05"), configFailed("min-slaves-to-write", notInt)},
			{cmd("CONFIG", "SET", "min-replicas-max-lag", "2147483648"), configFailed("min-replicas-max-lag", countRange)},
			{cmd("CONFIG", "SET", "repl-timeout", "0"), configFailed("repl-timeout", timeoutRange)},
			{cmd("CONFIG", "SET", "repl-timeout", "-1"), configFailed("repl-timeout", timeoutRange)},
			{cmd("CONFIG", "SET", "repl-timeout", "2147483648"), configFailed("repl-timeout", timeoutRange)},
			{cmd("CONFIG", "SET", "repl-timeout", "soon"), configFailed("repl-timeout", notInt)},

			// The edges of each range; a name and its alias are one setting.
			{cmd("CONFIG", "SET", "slave-announce-port", "65535", "replica-announce-ip", "203.0.113.7"), ok},
			{cmd("CONFIG", "GET", "replica-announce-port", "slave-announce-ip"), pairs(map[string]string{
				"replica-announce-port": "65535", "slave-announce-ip": "203.0.113.7"})},
			{cmd("CONFIG", "SET", "replica-priority", "0", "min-slaves-to-write", "2147483647", "min-slaves-max-lag", "0"), ok},
			{cmd("CONFIG", "GET", "slave-priority", "min-replicas-*"), pairs(map[string]string{
				"slave-priority": "0", "min-replicas-to-write": "2147483647", "min-replicas-max-lag": "0"})},
			{cmd("CONFIG", "SET", "min-replicas-to-write", "0"), ok}, // or every write gets NOREPLICAS
			{cmd("CONFIG", "SET", "repl-timeout", "2147483647"), ok},
			{cmd("CONFIG", "GET", "repl-timeout"), []any{"repl-timeout", "2147483647"}},
			{cmd("CONFIG", "SET", "repl-timeout", "1"), ok},
			{cmd("CONFIG", "GET", "repl-timeout"), []any{"repl-timeout", "1"}},
			{cmd("CONFIG", "SET", "masterauth", "pass word", "masteruser", "repl"), ok},
			{cmd("CONFIG", "GET", "master*"), pairs(map[string]string{"masterauth": "pass word", "masteruser": "repl"})},
			{cmd("CONFIG", "SET", "masterauth", ""), ok},
			{cmd("CONFIG", "GET", "masterauth"), []any{"masterauth", ""}},
		})
		if !b.isShale() {
			return
		}
		// A Shale replica applies its primary's log as it is: it cannot
		// take writes of its own. Redis takes "no".
		run(t, c, []step{
			{cmd("CONFIG", "SET", "replica-read-only", "no"), errPrefix("ERR CONFIG SET failed (possibly related to argument 'replica-read-only') - Shale replicas are always read-only")},
			{cmd("CONFIG", "SET", "slave-read-only", "NO"), errPrefix("ERR CONFIG SET failed (possibly related to argument 'slave-read-only') - Shale replicas are always read-only")},
			{cmd("CONFIG", "GET", "replica-read-only"), []any{"replica-read-only", "yes"}},
			// Whole seconds as in Redis, or a duration of at least one.
			{cmd("CONFIG", "SET", "repl-timeout", "90s"), ok},
			{cmd("CONFIG", "GET", "repl-timeout"), []any{"repl-timeout", "90"}},
			{cmd("CONFIG", "SET", "repl-timeout", "500ms"), configFailed("repl-timeout", timeoutRange)},
			// The write-ahead log retention is read when the store opens.
			{cmd("CONFIG", "GET", "replication.wal_*"), pairs(map[string]string{
				"replication.wal_retention": "10m0s", "replication.wal_retention_bytes": "1073741824"})},
			{cmd("CONFIG", "SET", "replication.wal_retention", "1h"), configFailed("replication.wal_retention", "can't set immutable config")},
		})
	})
}

// TestConfigReplicaOfFollowsReplicaof: CONFIG GET replicaof answers the
// primary REPLICAOF named, "host port", and "" after REPLICAOF NO ONE. The
// primary's port has no listener: the link state does not matter. About 1 s.
func TestConfigReplicaOfFollowsReplicaof(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		port := strconv.Itoa(freePort(t))
		run(t, c, []step{
			{cmd("REPLICAOF", "127.0.0.1", port), ok},
			{cmd("CONFIG", "GET", "replicaof"), []any{"replicaof", "127.0.0.1 " + port}},
			{cmd("SLAVEOF", "localhost", port), ok},
			{cmd("CONFIG", "GET", "slaveof"), []any{"slaveof", "localhost " + port}},
			{cmd("REPLICAOF", "NO", "ONE"), ok},
			{cmd("CONFIG", "GET", "replicaof", "slaveof"), pairs(map[string]string{"replicaof": "", "slaveof": ""})},
		})
	})
}

// TestConfigReplicationFile: the [replication] section of the config file
// sets the parameters, and replicaof makes a replica at start-up. About 1 s.
func TestConfigReplicationFile(t *testing.T) {
	portN := freePort(t) // no primary there: the link stays down
	port := strconv.Itoa(portN)
	p := startShale(t, shaleOpts{Config: "[replication]\nreplicaof = \"127.0.0.1 " + port + "\"\n" +
		"masterauth = \"s3cret\"\nreplica_priority = 7\nrepl_timeout = \"2m\"\nwal_retention = \"1s\"\nwal_retention_bytes = 0\n",
		Flags: []string{"--log-level", "info"}}) // the start-up line lists the config
	run(t, p.Client, []step{
		{cmd("CONFIG", "GET", "replicaof"), []any{"replicaof", "127.0.0.1 " + port}},
		{cmd("CONFIG", "GET", "masterauth", "slave-priority", "repl-timeout", "replication.wal_*"), pairs(map[string]string{
			"masterauth": "s3cret", "slave-priority": "7", "repl-timeout": "120",
			"replication.wal_retention": "1s", "replication.wal_retention_bytes": "0"})},
		{cmd("ROLE"), []any{"slave", "127.0.0.1", portN, anyString, anyInt}},
		{cmd("SET", "k", "v"), errText("READONLY You can't write against a read only replica.")},
	})
	if strings.Contains(p.Output(), "s3cret") {
		t.Errorf("the server's output shows masterauth:\n%s", p.Output())
	}
}

// TestConfigRewriteReplicaOf: a replica stays a replica across a restart
// when CONFIG REWRITE ran after REPLICAOF (Sentinel relies on it), and a
// promoted one stays a primary. About 3 s: four server starts.
func TestConfigRewriteReplicaOf(t *testing.T) {
	primary := startShale(t, shaleOpts{})
	confPath := filepath.Join(t.TempDir(), "shale.toml")
	if err := os.WriteFile(confPath, []byte("# a replica\n[server]\ntimeout = \"0s\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	start := func() *serverProc { return startShale(t, shaleOpts{Dir: dir, Flags: []string{"--config", confPath}}) }
	primaryPort := strconv.Itoa(primary.Port)

	r := start()
	run(t, r.Client, []step{
		{cmd("REPLICAOF", "127.0.0.1", primaryPort), ok},
		{cmd("CONFIG", "REWRITE"), ok},
	})
	file, err := os.ReadFile(confPath)
	if err != nil {
		t.Fatal(err)
	}
	if want := "[replication]\nreplicaof = \"127.0.0.1 " + primaryPort + "\"\n"; !strings.Contains(string(file), want) {
		t.Errorf("rewritten file has no %q:\n%s", want, file)
	}
	r.Stop()

	r = start()
	run(t, r.Client, []step{
		{cmd("CONFIG", "GET", "replicaof"), []any{"replicaof", "127.0.0.1 " + primaryPort}},
		{cmd("ROLE"), []any{"slave", "127.0.0.1", primary.Port, anyString, anyInt}},
		{cmd("REPLICAOF", "NO", "ONE"), ok},
		{cmd("CONFIG", "REWRITE"), ok},
	})
	r.Stop()

	r = start()
	run(t, r.Client, []step{
		{cmd("CONFIG", "GET", "replicaof"), []any{"replicaof", ""}},
		{cmd("ROLE"), []any{"master", anyInt, []any{}}},
		{cmd("SET", "k", "v"), ok},
	})
}

// TestConfigReplicationRuntime: the replication parameters a CONFIG SET
// changes take effect on the running servers, as in Redis: masterauth lets
// a replica that the primary refused in, replica-announce-ip and -port are
// what the primary lists it under, and min-replicas-to-write counts the
// primary's good replicas. About 3 s per backend.
func TestConfigReplicationRuntime(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		const password = "pw"
		var primary *serverProc
		if b.isShale() {
			primary = startShale(t, shaleOpts{Config: "[server]\nrequirepass = \"" + password + "\"\n"})
		} else {
			primary = startRedis(t, "--requirepass", password)
		}
		pc := newClient(primary.Addr, password)
		defer pc.Close()

		run(t, c, []step{
			{cmd("CONFIG", "SET", "replica-announce-ip", "203.0.113.7", "slave-announce-port", "7777"), ok},
			{cmd("REPLICAOF", "127.0.0.1", primary.Port), ok},
		})
		// Without masterauth the primary refuses the replica: the link
		// stays down however long it retries.
		time.Sleep(1500 * time.Millisecond)
		if got := replInfo(t, c)["master_link_status"]; got != "down" {
			t.Fatalf("without masterauth: master_link_status:%s, want down", got)
		}
		run(t, c, []step{{cmd("CONFIG", "SET", "masterauth", password), ok}})
		waitLinkUp(t, b.Proc, replSyncTimeout)
		pollUntil(t, 10*time.Second, func() (bool, string) {
			slave0 := replInfo(t, pc)["slave0"]
			return strings.HasPrefix(slave0, "ip=203.0.113.7,port=7777,state=online,"), "slave0:" + slave0
		})

		// One good replica: 2 are too many, 1 is enough.
		run(t, pc, []step{
			{cmd("CONFIG", "SET", "min-replicas-to-write", "2"), ok},
			{cmd("SET", "k", "v"), errText("NOREPLICAS Not enough good replicas to write.")},
			{cmd("CONFIG", "SET", "min-slaves-to-write", "1"), ok},
			{cmd("SET", "k", "v"), ok},
			{cmd("CONFIG", "SET", "min-replicas-to-write", "0"), ok},
		})
	})
}

// TestConfigRewriteInTransaction: Sentinel reconfigures a server in one
// transaction (MULTI, REPLICAOF, CONFIG REWRITE, CLIENT KILL, EXEC), on a
// primary and on a replica alike; EXEC answers each command's reply, and
// a replica answers transactions of reads. Without a config file, CONFIG
// REWRITE's reply is an error inside EXEC's. About 1 s.
func TestConfigRewriteInTransaction(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		port := freePort(t) // no primary there: the link stays down
		noFile := errText("ERR The server is running without a config file")
		// Each transaction on a connection of its own: go-redis gives up
		// on a connection after some errors (READONLY among them).
		transaction := func(want []any, queued ...[]any) {
			t.Helper()
			conn := c.Conn()
			defer conn.Close()
			steps := []step{{cmd("MULTI"), ok}}
			for _, q := range queued {
				steps = append(steps, step{q, "QUEUED"})
			}
			run(t, conn, append(steps, step{cmd("EXEC"), want}))
		}
		transaction([]any{ok, noFile}, cmd("REPLICAOF", "127.0.0.1", port), cmd("CONFIG", "REWRITE"))
		run(t, c, []step{{cmd("ROLE"), []any{"slave", "127.0.0.1", port, anyString, anyInt}}})
		transaction([]any{nil, "PONG"}, cmd("GET", "k"), cmd("PING"))
		transaction([]any{ok, noFile}, cmd("REPLICAOF", "NO", "ONE"), cmd("CONFIG", "REWRITE"))
		run(t, c, []step{{cmd("ROLE"), []any{"master", anyInt, []any{}}}})
	})
}
