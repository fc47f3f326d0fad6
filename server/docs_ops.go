package server

// opsDocs covers backups, CONFIG REWRITE and the CLIENT subcommands of
// cmd_client.go.
var opsDocs = map[string]cmdDoc{
	"bgsave":          {"Asynchronously save the dataset to disk", "1.0.0", "server", "[SCHEDULE]"},
	"save":            {"Synchronously save the dataset to disk", "1.0.0", "server", ""},
	"lastsave":        {"Get the UNIX time stamp of the last successful save to disk", "1.0.0", "server", ""},
	"config|rewrite":  {"Rewrite the configuration file with the in memory configuration", "2.8.0", "server", ""},
	"client|kill":     {"Kill the connection of a client", "2.4.0", "connection", "ip:port|[ID client-id] [TYPE NORMAL|MASTER|SLAVE|REPLICA|PUBSUB] [USER username] [ADDR ip:port] [LADDR ip:port] [SKIPME yes/no]"},
	"client|pause":    {"Stop processing commands from clients for some time", "2.9.50", "connection", "timeout [WRITE|ALL]"},
	"client|unpause":  {"Resume processing of clients that were paused", "6.2.0", "connection", ""},
	"client|reply":    {"Instruct the server whether to reply to commands", "3.2.0", "connection", "ON|OFF|SKIP"},
	"client|no-evict": {"Set client eviction mode for the current connection", "7.0.0", "connection", "ON|OFF"},
	"client|setinfo":  {"Set client or connection specific info", "7.2.0", "connection", "LIB-NAME libname|LIB-VER libver"},
	"client|getredir": {"Get tracking notifications redirection client ID if any", "6.0.0", "connection", ""},
}
