package server

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"syscall"

	"github.com/shaledb/shale/conf"
	"github.com/shaledb/shale/server/geo"
	"github.com/shaledb/shale/server/hll"
	"github.com/shaledb/shale/server/store"
	"github.com/shaledb/shale/server/types"
)

// The RESP error replies of every command, in one place: each text is
// written once, as Redis 7.0 words it, and the tests in tests/ pin them.
// Handlers return these values; the dispatcher writes them (errorText).
// The RESP guard's framing errors live with the guard (server/resp).

// replyError is an error whose text is already the exact RESP error text.
type replyError string

func (e replyError) Error() string { return string(e) }

// Argument parsing shared by many commands. errNotInteger and errNotFloat
// are also the texts of types.ErrNotInteger and types.ErrNotFloat.
const (
	errSyntax         replyError = "ERR syntax error"
	errNotInteger     replyError = "ERR value is not an integer or out of range"
	errNotFloat       replyError = "ERR value is not a valid float"
	errPositiveNumber replyError = "ERR value is out of range, must be positive"
	errInvalidCursor  replyError = "ERR invalid cursor"
	// errIntRange is Redis's reply for an integer argument it reads as a C
	// int (getIntFromObjectOrReply) that does not fit one.
	errIntRange        replyError = "ERR value is out of range, value must between -2147483648 and 2147483647"
	errNumkeysPositive replyError = "ERR numkeys should be greater than 0"
	errCountPositive   replyError = "ERR count should be greater than 0"
	errCountNegative   replyError = "ERR COUNT can't be negative"
	errLimitNegative   replyError = "ERR LIMIT can't be negative"
	errTimeoutNotFloat replyError = "ERR timeout is not a float or out of range"
	errTimeoutNegative replyError = "ERR timeout is negative"
)

// The replies for the count of SRANDMEMBER, HRANDFIELD and ZRANDMEMBER.
const (
	// errRandCountRange: Redis reads the count as a long in ±LONG_MAX.
	errRandCountRange replyError = "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"
	// errCountRange: a count whose reply Redis cannot build, with
	// WITHVALUES or WITHSCORES one whose doubled length would overflow.
	// types.ErrRandCount, Shale's own bound, answers it too.
	errCountRange replyError = "ERR value is out of range"
)

// errWrongArity is the reply for a command called with the wrong number of
// arguments; name is the command's (or "container|sub") lower-case name.
func errWrongArity(name string) replyError {
	return replyError("ERR wrong number of arguments for '" + name + "' command")
}

// errUnknownCommand is Redis's reply for a name not in the table, quoting
// up to 128 bytes of the arguments.
func errUnknownCommand(args [][]byte) replyError {
	var quoted []byte
	for _, a := range args[1:] {
		if len(quoted) >= 128 {
			break
		}
		quoted = append(quoted, '\'')
		quoted = append(quoted, truncate(string(a), 128-len(quoted)+1)...)
		quoted = append(quoted, '\'', ' ')
	}
	return replyError(fmt.Sprintf("ERR unknown command '%s', with args beginning with: %s", truncate(string(args[0]), 128), quoted))
}

// errUnknownSubcommand is a container command's reply for a bad subcommand.
func errUnknownSubcommand(sub, container string) replyError {
	return replyError("ERR unknown subcommand '" + truncate(sub, 128) + "'. Try " + strings.ToUpper(container) + " HELP.")
}

// errSubcommandSyntax is Redis's addReplySubcommandSyntaxError: the reply
// of a container command whose subcommand takes fewer arguments than the
// table's arity lets through (CLIENT PAUSE, SLOWLOG GET), or that does not
// exist (DEBUG).
func errSubcommandSyntax(args [][]byte) replyError {
	return replyError("ERR unknown subcommand or wrong number of arguments for '" + truncate(string(args[1]), 128) +
		"'. Try " + strings.ToUpper(string(args[0])) + " HELP.")
}

// Connections: AUTH, HELLO, SELECT and the client limit. errOutOfRangeDB is
// also the text of types.ErrDBIndex.
const (
	errNoAuth          replyError = "NOAUTH Authentication required."
	errWrongPass       replyError = "WRONGPASS invalid username-password pair or user is disabled."
	errNoPassword      replyError = "ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?"
	errNoProto         replyError = "NOPROTO unsupported protocol version"
	errHelloNotInteger replyError = "ERR Protocol version is not an integer or out of range"
	errHelloNoAuth     replyError = "NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time"
	errMaxClients      replyError = "ERR max number of clients reached"
	errOutOfRangeDB    replyError = "ERR DB index is out of range"
)

// SWAPDB's: an index that is no C int, before the range is checked.
const (
	errSwapFirstDB  replyError = "ERR invalid first DB index"
	errSwapSecondDB replyError = "ERR invalid second DB index"
)

// errHelloOption is HELLO's reply for an option it does not know.
func errHelloOption(opt []byte) replyError {
	return replyError("ERR Syntax error in HELLO option '" + string(opt) + "'")
}

// CLIENT's errors, as Redis words them.
const (
	errBadClientName    replyError = "ERR Client names cannot contain spaces, newlines or special characters."
	errInvalidClientID  replyError = "ERR Invalid client ID"
	errNoSuchClient     replyError = "ERR No such client"
	errClientIDPositive replyError = "ERR client-id should be greater than 0"
	// CLIENT PAUSE's
	errPauseTimeoutNotInt replyError = "ERR timeout is not an integer or out of range"
	errPauseTimeoutRange  replyError = "ERR timeout is out of range"
	errPauseMode          replyError = "ERR CLIENT PAUSE mode must be WRITE or ALL"
)

// errUnknownClientType is CLIENT LIST's and CLIENT KILL's reply for a TYPE
// they do not know.
func errUnknownClientType(typ []byte) replyError {
	return replyError("ERR Unknown client type '" + string(typ) + "'")
}

// errNoSuchUser is CLIENT KILL USER's reply for a user other than default.
func errNoSuchUser(user []byte) replyError {
	return replyError("ERR No such user '" + string(user) + "'")
}

// errUnrecognizedOption is CLIENT SETINFO's reply for an attribute it does
// not know.
func errUnrecognizedOption(opt []byte) replyError {
	return replyError("ERR Unrecognized option '" + truncate(string(opt), 128) + "'")
}

// errBadClientInfo is CLIENT SETINFO's reply for a value with characters
// CLIENT LIST could not show; attr is the lower-case attribute name.
func errBadClientInfo(attr string) replyError {
	return replyError("ERR " + attr + " cannot contain spaces, newlines or special characters.")
}

// COMMAND GETKEYS's errors, in Redis's words.
const (
	errInvalidCommandSpecified replyError = "ERR Invalid command specified"
	errInvalidCommandArgCount  replyError = "ERR Invalid number of arguments specified for command"
	errInvalidCommandArgs      replyError = "ERR Invalid arguments specified for command"
	errCommandHasNoKeys        replyError = "ERR The command has no key arguments"
)

// LCS's errors. errLCSAlloc is Redis's reply when its table's allocation
// fails; Shale gives it past its own bound (lcsMaxCells).
const (
	errLCSNotStrings      replyError = "ERR The specified keys must contain string values"
	errLCSLenAndIdx       replyError = "ERR If you want both the length and indexes, please just use IDX."
	errLCSTooLong         replyError = "ERR String too long for LCS"
	errLCSProtoMaxBulkLen replyError = "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len"
	errLCSAlloc           replyError = "ERR Insufficient memory, failed allocating transient memory for LCS"
)

// The bitmap commands' errors (cmd_bitmap.go).
const (
	errBitOffset     replyError = "ERR bit offset is not an integer or out of range"
	errBitValue      replyError = "ERR bit is not an integer or out of range"
	errBitPosBit     replyError = "ERR The bit argument must be 1 or 0."
	errBitOpNot      replyError = "ERR BITOP NOT must be called with a single source key."
	errBitfieldType  replyError = "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is."
	errBitfieldOver  replyError = "ERR Invalid OVERFLOW type specified"
	errBitfieldROSet replyError = "ERR BITFIELD_RO only supports the GET subcommand"
)

// The HyperLogLog commands' errors (cmd_hll.go).
const (
	errPFDebugNoKey     replyError = "ERR The specified key does not exist"
	errPFDebugNotSparse replyError = "ERR HLL encoding is not sparse"
)

// errPFDebugSubcommand is PFDEBUG's reply for a subcommand it does not know.
func errPFDebugSubcommand(name []byte) replyError {
	return replyError("ERR Unknown PFDEBUG subcommand '" + sanitize(string(name)) + "'")
}

// CLIENT UNBLOCK's errors: errUnblockReason its own, errUnblocked the
// reply of the client it unblocks with ERROR.
const (
	errUnblockReason replyError = "ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR"
	errUnblocked     replyError = "UNBLOCKED client unblocked via CLIENT UNBLOCK"
)

// The keyspace commands' errors.
const (
	// errExpireFlags is Redis's reply for contradictory EXPIRE flags.
	errExpireFlags replyError = "ERR NX and XX, GT or LT options at the same time are not compatible"
	errExpireGTLT  replyError = "ERR GT and LT options at the same time are not compatible"
	// errNoLFU is OBJECT FREQ's reply on a key when no LFU maxmemory
	// policy is selected, which in Shale is always.
	errNoLFU replyError = "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust."
)

// errNoLatencySamples is LATENCY GRAPH's reply for an event it has no
// samples of.
func errNoLatencySamples(event []byte) replyError {
	return replyError("ERR No samples available for event '" + string(event) + "'")
}

// errInvalidExpire is SET's and EXPIRE's reply for an unusable time.
func errInvalidExpire(cmd string) replyError {
	return replyError("ERR invalid expire time in '" + cmd + "' command")
}

// errUnsupportedOption is EXPIRE's reply for an unknown flag. Redis quotes
// the flag whole, however long, through a C "%s": the text stops at a NUL
// byte, and trailing CRs and LFs are trimmed with the line's end (the
// dispatcher turns the others into spaces).
func errUnsupportedOption(opt []byte) replyError {
	if i := bytes.IndexByte(opt, 0); i >= 0 {
		opt = opt[:i]
	}
	return replyError("ERR Unsupported option " + strings.TrimRight(string(opt), "\r\n"))
}

// The string, hash, list and set commands' own errors.
const (
	errDecrementOverflow replyError = "ERR decrement would overflow"
	// errIncrNaN is HINCRBYFLOAT's reply for an infinite increment.
	errIncrNaN        replyError = "ERR value is NaN or Infinity"
	errRankZero       replyError = "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list"
	errMaxlenNegative replyError = "ERR MAXLEN can't be negative"
	errSIntercardArgs replyError = "ERR Number of keys can't be greater than number of args"
)

// The sorted-set commands' own errors.
const (
	errZAddXXNX        replyError = "ERR XX and NX options at the same time are not compatible"
	errZAddGTLTNX      replyError = "ERR GT, LT, and/or NX options at the same time are not compatible"
	errZAddIncrPair    replyError = "ERR INCR option supports a single increment-element pair"
	errMinMaxNotFloat  replyError = "ERR min or max is not a float"
	errMinMaxNotLex    replyError = "ERR min or max not valid string range item"
	errLimitNeedsBy    replyError = "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX"
	errWithScoresByLex replyError = "ERR syntax error, WITHSCORES not supported in combination with BYLEX"
	errWeightNotFloat  replyError = "ERR weight value is not a float"
)

// errNoInputKeys is ZUNION's (and its siblings') reply for numkeys < 1.
func errNoInputKeys(cmd string) replyError {
	return replyError("ERR at least 1 input key is needed for '" + cmd + "' command")
}

// errSubscribedMode is Redis 7.0's refusal of a command, named as CLIENT
// LIST names it ("client|list"), from a RESP2 client in subscribed mode
// (pubsub.go).
func errSubscribedMode(name string) replyError {
	return replyError("ERR Can't execute '" + name + "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context")
}

// Scripting's errors (script.go).
const (
	errNoScript          replyError = "NOSCRIPT No matching script. Please use EVAL."
	errNegativeKeys      replyError = "ERR Number of keys can't be negative"
	errTooManyKeys       replyError = "ERR Number of keys can't be greater than number of args"
	errScriptFlushOption replyError = "ERR SCRIPT FLUSH only support SYNC|ASYNC option"
	errNotBusy           replyError = "NOTBUSY No scripts in execution right now."
	errInvalidShebang    replyError = "ERR Invalid script shebang"
	errScriptMemory      replyError = "ERR the script used more than 1 GiB of memory and was stopped; nothing it wrote was kept"
	errBusyScript        replyError = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."
	errUnkillable        replyError = "UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command."
)

// Functions' errors (function.go).
const (
	errBusyFunction        replyError = "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE."
	errFunctionNotFound    replyError = "ERR Function not found"
	errBadNumKeys          replyError = "ERR Bad number of keys provided"
	errFunctionWriteFlag   replyError = "ERR Can not execute a script with write flag using *_ro command."
	errLibraryNotFound     replyError = "ERR Library not found"
	errNoFunctions         replyError = "ERR No functions registered"
	errMissingLibMetadata  replyError = "ERR Missing library metadata"
	errInvalidLibMetadata  replyError = "ERR Invalid library metadata"
	errLibNameNotGiven     replyError = "ERR Library name was not given"
	errLibNameRepeated     replyError = "ERR Invalid metadata value, name argument was given multiple times"
	errLibraryName         replyError = "ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long"
	errLibNameArgMissing   replyError = "ERR library name argument was not given"
	errFunctionFlushOption replyError = "ERR FUNCTION FLUSH only supports SYNC|ASYNC option"
	errRestorePolicy       replyError = "ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE."
	errFunctionPayload     replyError = "ERR DUMP payload version or checksum are wrong"
	errNotAFunction        replyError = "ERR given type is not a function"
	errPreGAFunction       replyError = "ERR Pre-GA function format not supported"
	errFunctionsPayload    replyError = "ERR Failed loading library payload"
)

// Transactions' errors (multi.go).
const (
	errMultiNested         replyError = "ERR MULTI calls can not be nested"
	errExecWithoutMulti    replyError = "ERR EXEC without MULTI"
	errDiscardWithoutMulti replyError = "ERR DISCARD without MULTI"
	errWatchInMulti        replyError = "ERR WATCH inside MULTI is not allowed"
	errExecAbort           replyError = "EXECABORT Transaction discarded because of previous errors."
	errNotInMulti          replyError = "ERR Command not allowed inside a transaction"
	// errMonitorInExec is MONITOR's reply inside EXEC: Redis refuses it to
	// a client that may not block.
	errMonitorInExec replyError = "ERR MONITOR isn't allowed for DENY BLOCKING client"
)

// errNotifyClass is CONFIG SET notify-keyspace-events' refusal of a letter
// it does not know.
var errNotifyClass = errors.New("Invalid event class character. Use '" + conf.KeyspaceEventClasses + "'.")

// The server commands' errors: SHUTDOWN, DEBUG, BGSAVE, MONITOR, SLOWLOG
// and CONFIG.
const (
	errNoShutdown     replyError = "ERR No shutdown in progress."
	errDebugDisabled  replyError = "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server."
	errSaveInProgress replyError = "ERR Background save already in progress"
	// errMonitorKeyspace is the reply to a command a monitor sends.
	errMonitorKeyspace replyError = "ERR Replica can't interact with the keyspace"
	errSlowlogCount    replyError = "ERR count should be greater than or equal to -1"
	errNoConfigFile    replyError = "ERR The server is running without a config file"
	// errRocksRejected is errConfigSet's reason when the store refuses the
	// new RocksDB options; the store logged why.
	errRocksRejected = "RocksDB rejected the new options (see the server log)"
)

// The geo commands' replies (cmd_geo.go).
const (
	errGeoUnit            replyError = "ERR unsupported unit provided. please use M, KM, FT, MI"
	errGeoRadius          replyError = "ERR need numeric radius"
	errGeoRadiusNeg       replyError = "ERR radius cannot be negative"
	errGeoWidth           replyError = "ERR need numeric width"
	errGeoHeight          replyError = "ERR need numeric height"
	errGeoBoxNeg          replyError = "ERR height or width cannot be negative"
	errGeoCount           replyError = "ERR COUNT must be > 0"
	errGeoMember          replyError = "ERR could not decode requested zset member"
	errGeoAny             replyError = "ERR the ANY argument requires COUNT argument"
	errGeoStoreWith       replyError = "ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD options"
	errGeoSearchStoreWith replyError = "ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD options"
)

// errGeoPair is GEOADD's and FROMLONLAT's reply to coordinates out of
// range, printed with C's "%f".
func errGeoPair(lon, lat float64) replyError {
	return replyError("ERR invalid longitude,latitude pair " + geo.FormatPair(lon) + "," + geo.FormatPair(lat))
}

// errGeoFrom and errGeoBy are GEOSEARCH's replies to a missing centre or
// area; name is the command's name as the client spelled it.
func errGeoFrom(name []byte) replyError {
	return replyError("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for " + string(name))
}

func errGeoBy(name []byte) replyError {
	return replyError("ERR exactly one of BYRADIUS and BYBOX can be specified for " + string(name))
}

// errUnknownCF is the reply for a column family name store does not know.
func errUnknownCF(name []byte) replyError {
	return replyError("ERR unknown column family '" + truncate(string(name), 128) + "'")
}

// errUnknownConfig is CONFIG SET's reply for a parameter it does not know.
func errUnknownConfig(name string) replyError {
	return replyError("ERR Unknown option or number of arguments for CONFIG SET - '" + truncate(name, 128) + "'")
}

// errConfigSet is CONFIG SET's reply for a value it refuses, for reason.
func errConfigSet(name, reason string) replyError {
	return replyError("ERR CONFIG SET failed (possibly related to argument '" + truncate(name, 128) + "') - " + reason)
}

// rewriteFailed is CONFIG REWRITE's reply to err, Redis's "Rewriting config
// file: <strerror>". An OS error gives the C library's text for its errno
// ("Permission denied"), without the path and the Go call it names. A file
// the editor refuses gives the editor's reason, which is about the file's
// text; any other failure gives EIO's text. The log has err in full.
func rewriteFailed(err error) replyError {
	const prefix = "ERR Rewriting config file: "
	var errno syscall.Errno
	var uneditable uneditableConfig
	switch {
	case errors.As(err, &errno):
		return replyError(prefix + strerror(errno))
	case errors.As(err, &uneditable):
		return replyError(prefix + sanitize(uneditable.Error()))
	}
	return replyError(prefix + strerror(syscall.EIO))
}

type errReply struct {
	err  error
	text string
}

// domainReplies maps the errors of server/types to Redis's texts.
var domainReplies = []errReply{
	{store.ErrReadOnly, string(errReadOnlyReplica)},
	{types.ErrWrongType, "WRONGTYPE Operation against a key holding the wrong kind of value"},
	{types.ErrNotInteger, string(errNotInteger)},
	{types.ErrNotFloat, string(errNotFloat)},
	{types.ErrHashNotInteger, "ERR hash value is not an integer"},
	{types.ErrHashNotFloat, "ERR hash value is not a float"},
	{types.ErrOverflow, "ERR increment or decrement would overflow"},
	{types.ErrNaNOrInfinity, "ERR increment would produce NaN or Infinity"},
	{types.ErrNoSuchKey, "ERR no such key"},
	{types.ErrSameObject, "ERR source and destination objects are the same"},
	{types.ErrDBIndex, string(errOutOfRangeDB)},
	{types.ErrStringTooLong, "ERR string exceeds maximum allowed size (proto-max-bulk-len)"},
	{types.ErrOffsetOutOfRange, "ERR offset is out of range"},
	{types.ErrSortScore, "ERR One or more scores can't be converted into double"},
	{types.ErrScoreNaN, "ERR resulting score is not a number (NaN)"},
	{types.ErrIndexOutOfRange, "ERR index out of range"},
	{types.ErrRandCount, string(errCountRange)},
	// Streams (cmd_stream.go).
	{types.ErrStreamIDTooSmall, string(errXAddIDTooSmall)},
	{types.ErrStreamExhausted, "ERR The stream has exhausted the last possible ID, unable to add more items"},
	{types.ErrSetIDBelowTop, "ERR The ID specified in XSETID is smaller than the target stream top item"},
	{types.ErrSetIDEntriesAdded, "ERR The entries_added specified in XSETID is smaller than the target stream length"},
	// HyperLogLogs (cmd_hll.go).
	{hll.ErrNotHLL, "WRONGTYPE Key is not a valid HyperLogLog string value."},
	{hll.ErrCorrupt, "INVALIDOBJ Corrupted HLL object detected"},
}

// errorText maps err to the RESP error text. known is false for unexpected
// errors, which the dispatcher logs; the client then sees a generic text.
func errorText(err error) (text string, known bool) {
	var re replyError
	if errors.As(err, &re) {
		return string(re), true
	}
	if errors.Is(err, store.ErrWrite) {
		return diskWriteText(err), true
	}
	for _, d := range domainReplies {
		if errors.Is(err, d.err) {
			return d.text, true
		}
	}
	return string(errInternal), false
}

// errInternal is the reply to a command that failed for a reason of
// Shale's own: an unexpected error or a panic (panic.go).
const errInternal replyError = "ERR internal error"

// diskWriteText is the reply to a write the disk refused, after Redis's
// "MISCONF Errors writing to the AOF file: <strerror>": the MISCONF prefix
// tells clients that the server, not the command, is at fault.
func diskWriteText(err error) string {
	reason := "Input/output error"
	for _, r := range []string{"No space left on device", "Read-only file system", "Disk quota exceeded"} {
		if strings.Contains(err.Error(), r) {
			reason = r
			break
		}
	}
	return "MISCONF Errors writing to disk: " + reason + ". Writes are refused until the disk problem is fixed and the server restarted; reads still work. See the server log."
}

// sanitize replaces the characters that would break a RESP error line, as
// Redis does for texts that echo client input.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\r' || r == '\n' {
			return ' '
		}
		return r
	}, s)
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// Replication (replication.go).
const (
	errReadOnlyReplica  replyError = "READONLY You can't write against a read only replica."
	errNoReplicas       replyError = "NOREPLICAS Not enough good replicas to write."
	errLoading          replyError = "LOADING Redis is loading the dataset in memory"
	errNoMasterLink     replyError = "NOMASTERLINK Can't SYNC while not connected with my master"
	errInvalidPort      replyError = "ERR Invalid master port"
	errWaitOnReplica    replyError = "ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a replica is configured to be writable (which is not the default) writes to replicas are just local and are not propagated."
	errReplicaOfReplica replyError = "ERR Command is not valid when client is a replica."
)
