package server

// cmdDoc is what COMMAND DOCS reports about a command: enough for
// redis-cli's help and hints.
type cmdDoc struct {
	summary string
	since   string // the Redis (or, for Shale's own commands, Shale) version that added it
	group   string // Redis's group: generic, string, hash, connection, server...
	args    string // the argument syntax redis-cli shows as a hint, e.g. "key field [field ...]"
}

// docs holds the docs of every command and subcommand in the table, keyed
// by name ("client|setname" for a subcommand). TestCommandTable checks that
// none is missing. Summaries follow Redis's. Each command family that keeps
// its docs beside its handlers adds its map here.
var docs = mergeDocs(foundationDocs, sortDocs, zsetDocs, setDocs, listDocs, opsDocs, observabilityDocs, objectDocs)

func mergeDocs(maps ...map[string]cmdDoc) map[string]cmdDoc {
	all := make(map[string]cmdDoc)
	for _, m := range maps {
		for name, d := range m {
			if _, dup := all[name]; dup {
				panic("server: docs for " + name + " given twice")
			}
			all[name] = d
		}
	}
	return all
}

// foundationDocs covers the connection, server, keyspace, string and hash
// commands.
var foundationDocs = map[string]cmdDoc{
	// connection
	"ping":           {"Ping the server", "1.0.0", "connection", "[message]"},
	"echo":           {"Echo the given string", "1.0.0", "connection", "message"},
	"quit":           {"Close the connection", "1.0.0", "connection", ""},
	"select":         {"Change the selected database for the current connection", "1.0.0", "connection", "index"},
	"auth":           {"Authenticate to the server", "1.0.0", "connection", "[username] password"},
	"hello":          {"Handshake with the server", "6.0.0", "connection", "[protover [AUTH username password] [SETNAME clientname]]"},
	"client":         {"A container for client connection commands", "2.4.0", "connection", ""},
	"client|setname": {"Set the current connection name", "2.6.9", "connection", "connection-name"},
	"client|getname": {"Get the current connection name", "2.6.9", "connection", ""},
	"client|id":      {"Returns the client ID for the current connection", "5.0.0", "connection", ""},
	"client|info":    {"Returns information about the current client connection.", "6.2.0", "connection", ""},
	"client|list":    {"Get the list of client connections", "2.4.0", "connection", "[TYPE NORMAL|MASTER|REPLICA|PUBSUB] [ID client-id [client-id ...]]"},
	"client|help":    {"Show helpful text about the different subcommands", "5.0.0", "connection", ""},

	// server
	"command":          {"Get array of command details", "2.8.13", "server", ""},
	"command|count":    {"Get total number of commands", "2.8.13", "server", ""},
	"command|info":     {"Get array of specific command details, or all when no argument is given.", "2.8.13", "server", "[command-name [command-name ...]]"},
	"command|docs":     {"Get array of specific command documentation", "7.0.0", "server", "[command-name [command-name ...]]"},
	"command|list":     {"Get an array of command names", "7.0.0", "server", "[FILTERBY MODULE module-name|ACLCAT category|PATTERN pattern]"},
	"command|getkeys":  {"Extract keys given a full Redis command", "2.8.13", "server", "command [arg [arg ...]]"},
	"command|help":     {"Show helpful text about the different subcommands", "5.0.0", "server", ""},
	"config":           {"A container for server configuration commands", "2.0.0", "server", ""},
	"config|get":       {"Get the values of configuration parameters", "2.0.0", "server", "parameter [parameter ...]"},
	"config|set":       {"Set configuration parameters to the given values", "2.0.0", "server", "parameter value [parameter value ...]"},
	"config|resetstat": {"Reset the stats returned by INFO", "2.0.0", "server", ""},
	"config|help":      {"Show helpful text about the different subcommands", "5.0.0", "server", ""},
	"info":             {"Get information and statistics about the server", "1.0.0", "server", "[section [section ...]]"},
	"dbsize":           {"Return the number of keys in the selected database", "1.0.0", "server", ""},
	"flushdb":          {"Remove all keys from the current database", "1.0.0", "server", "[ASYNC|SYNC]"},
	"flushall":         {"Remove all keys from all databases", "1.0.0", "server", "[ASYNC|SYNC]"},
	"time":             {"Return the current server time", "2.6.0", "server", ""},
	"shutdown":         {"Flush the data to disk and shut down the server", "1.0.0", "server", "[NOSAVE|SAVE] [NOW] [FORCE] [ABORT]"},
	"debug":            {"A container for debugging commands (needs server.enable_debug_command)", "1.0.0", "server", "subcommand [arg ...]"},
	"compact":          {"Compact the whole database now, reclaiming the space of removed keys", "0.1.0", "server", ""},

	// generic (keyspace)
	"del":         {"Delete a key", "1.0.0", "generic", "key [key ...]"},
	"unlink":      {"Delete a key asynchronously in another thread. Otherwise it is just as DEL, but non blocking.", "4.0.0", "generic", "key [key ...]"},
	"exists":      {"Determine if a key exists", "1.0.0", "generic", "key [key ...]"},
	"touch":       {"Alters the last access time of a key(s). Returns the number of existing keys specified.", "3.2.1", "generic", "key [key ...]"},
	"type":        {"Determine the type stored at key", "1.0.0", "generic", "key"},
	"expire":      {"Set a key's time to live in seconds", "1.0.0", "generic", "key seconds [NX|XX|GT|LT]"},
	"pexpire":     {"Set a key's time to live in milliseconds", "2.6.0", "generic", "key milliseconds [NX|XX|GT|LT]"},
	"expireat":    {"Set the expiration for a key as a UNIX timestamp", "1.2.0", "generic", "key unix-time-seconds [NX|XX|GT|LT]"},
	"pexpireat":   {"Set the expiration for a key as a UNIX timestamp specified in milliseconds", "2.6.0", "generic", "key unix-time-milliseconds [NX|XX|GT|LT]"},
	"ttl":         {"Get the time to live for a key in seconds", "1.0.0", "generic", "key"},
	"pttl":        {"Get the time to live for a key in milliseconds", "2.6.0", "generic", "key"},
	"expiretime":  {"Get the expiration Unix timestamp for a key", "7.0.0", "generic", "key"},
	"pexpiretime": {"Get the expiration Unix timestamp for a key in milliseconds", "7.0.0", "generic", "key"},
	"persist":     {"Remove the expiration from a key", "2.2.0", "generic", "key"},
	"rename":      {"Rename a key", "1.0.0", "generic", "key newkey"},
	"renamenx":    {"Rename a key, only if the new key does not exist", "1.0.0", "generic", "key newkey"},
	"move":        {"Move a key to another database", "1.0.0", "generic", "key db"},
	"copy":        {"Copy a key", "6.2.0", "generic", "source destination [DB destination-db] [REPLACE]"},
	"keys":        {"Find all keys matching the given pattern", "1.0.0", "generic", "pattern"},
	"scan":        {"Incrementally iterate the keys space", "2.8.0", "generic", "cursor [MATCH pattern] [COUNT count] [TYPE type]"},
	"randomkey":   {"Return a random key from the keyspace", "1.0.0", "generic", ""},
	"object":      {"A container for object introspection commands", "2.2.3", "generic", "subcommand [arg ...]"},

	// string
	"get":         {"Get the value of a key", "1.0.0", "string", "key"},
	"set":         {"Set the string value of a key", "1.0.0", "string", "key value [NX|XX] [GET] [EX seconds|PX milliseconds|EXAT unix-time-seconds|PXAT unix-time-milliseconds|KEEPTTL]"},
	"setnx":       {"Set the value of a key, only if the key does not exist", "1.0.0", "string", "key value"},
	"setex":       {"Set the value and expiration of a key", "2.0.0", "string", "key seconds value"},
	"psetex":      {"Set the value and expiration in milliseconds of a key", "2.6.0", "string", "key milliseconds value"},
	"mget":        {"Get the values of all the given keys", "1.0.0", "string", "key [key ...]"},
	"mset":        {"Set multiple keys to multiple values", "1.0.1", "string", "key value [key value ...]"},
	"msetnx":      {"Set multiple keys to multiple values, only if none of the keys exist", "1.0.1", "string", "key value [key value ...]"},
	"getset":      {"Set the string value of a key and return its old value", "1.0.0", "string", "key value"},
	"getdel":      {"Get the value of a key and delete the key", "6.2.0", "string", "key"},
	"getex":       {"Get the value of a key and optionally set its expiration", "6.2.0", "string", "key [EX seconds|PX milliseconds|EXAT unix-time-seconds|PXAT unix-time-milliseconds|PERSIST]"},
	"append":      {"Append a value to a key", "2.0.0", "string", "key value"},
	"strlen":      {"Get the length of the value stored in a key", "2.2.0", "string", "key"},
	"getrange":    {"Get a substring of the string stored at a key", "2.4.0", "string", "key start end"},
	"substr":      {"Get a substring of the string stored at a key", "1.0.0", "string", "key start end"},
	"setrange":    {"Overwrite part of a string at key starting at the specified offset", "2.2.0", "string", "key offset value"},
	"incr":        {"Increment the integer value of a key by one", "1.0.0", "string", "key"},
	"decr":        {"Decrement the integer value of a key by one", "1.0.0", "string", "key"},
	"incrby":      {"Increment the integer value of a key by the given amount", "1.0.0", "string", "key increment"},
	"decrby":      {"Decrement the integer value of a key by the given number", "1.0.0", "string", "key decrement"},
	"incrbyfloat": {"Increment the float value of a key by the given amount", "2.6.0", "string", "key increment"},

	// hash
	"hset":         {"Set the string value of a hash field", "2.0.0", "hash", "key field value [field value ...]"},
	"hmset":        {"Set multiple hash fields to multiple values", "2.0.0", "hash", "key field value [field value ...]"},
	"hsetnx":       {"Set the value of a hash field, only if the field does not exist", "2.0.0", "hash", "key field value"},
	"hget":         {"Get the value of a hash field", "2.0.0", "hash", "key field"},
	"hmget":        {"Get the values of all the given hash fields", "2.0.0", "hash", "key field [field ...]"},
	"hgetall":      {"Get all the fields and values in a hash", "2.0.0", "hash", "key"},
	"hkeys":        {"Get all the fields in a hash", "2.0.0", "hash", "key"},
	"hvals":        {"Get all the values in a hash", "2.0.0", "hash", "key"},
	"hdel":         {"Delete one or more hash fields", "2.0.0", "hash", "key field [field ...]"},
	"hlen":         {"Get the number of fields in a hash", "2.0.0", "hash", "key"},
	"hexists":      {"Determine if a hash field exists", "2.0.0", "hash", "key field"},
	"hstrlen":      {"Get the length of the value of a hash field", "3.2.0", "hash", "key field"},
	"hincrby":      {"Increment the integer value of a hash field by the given number", "2.0.0", "hash", "key field increment"},
	"hincrbyfloat": {"Increment the float value of a hash field by the given amount", "2.6.0", "hash", "key field increment"},
	"hrandfield":   {"Get one or multiple random fields from a hash", "6.2.0", "hash", "key [count [WITHVALUES]]"},
	"hscan":        {"Incrementally iterate hash fields and associated values", "2.8.0", "hash", "key cursor [MATCH pattern] [COUNT count]"},
}

// observabilityDocs covers SLOWLOG and MONITOR.
var observabilityDocs = map[string]cmdDoc{
	"slowlog":       {"A container for slow log commands", "2.2.12", "server", ""},
	"slowlog|get":   {"Get the slow log's entries", "2.2.12", "server", "[count]"},
	"slowlog|len":   {"Get the slow log's length", "2.2.12", "server", ""},
	"slowlog|reset": {"Clear all entries from the slow log", "2.2.12", "server", ""},
	"slowlog|help":  {"Show helpful text about the different subcommands", "6.2.0", "server", ""},
	"monitor":       {"Listen for all requests received by the server in real time", "1.0.0", "server", ""},
}
