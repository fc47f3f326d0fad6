package server

import (
	"errors"
	"strings"

	"github.com/shaledb/shale/server/store"
	"github.com/shaledb/shale/server/types"
)

// replyError is an error whose text is already the exact RESP error text.
type replyError string

func (e replyError) Error() string { return string(e) }

const (
	errSyntax         replyError = "ERR syntax error"
	errNotInteger     replyError = "ERR value is not an integer or out of range"
	errNotFloat       replyError = "ERR value is not a valid float"
	errNoAuth         replyError = "NOAUTH Authentication required."
	errWrongPass      replyError = "WRONGPASS invalid username-password pair or user is disabled."
	errNoPassword     replyError = "ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?"
	errNoProto        replyError = "NOPROTO unsupported protocol version"
	errInvalidCursor  replyError = "ERR invalid cursor"
	errMaxClients     replyError = "ERR max number of clients reached"
	errOutOfRangeDB   replyError = "ERR DB index is out of range"
	errDebugDisabled  replyError = "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server."
	errPositiveNumber replyError = "ERR value is out of range, must be positive"
)

// errWrongArity is the reply for a command called with the wrong number of
// arguments; name is the command's (or "container|sub") lower-case name.
func errWrongArity(name string) replyError {
	return replyError("ERR wrong number of arguments for '" + name + "' command")
}

// errInvalidExpire is SET's and EXPIRE's reply for an unusable time.
func errInvalidExpire(cmd string) replyError {
	return replyError("ERR invalid expire time in '" + cmd + "' command")
}

// errUnknownSubcommand is a container command's reply for a bad subcommand.
func errUnknownSubcommand(sub, container string) replyError {
	return replyError("ERR unknown subcommand '" + truncate(sub, 128) + "'. Try " + strings.ToUpper(container) + " HELP.")
}

type errReply struct {
	err  error
	text string
}

// domainReplies maps the errors of server/types to Redis's texts.
var domainReplies = []errReply{
	{types.ErrWrongType, "WRONGTYPE Operation against a key holding the wrong kind of value"},
	{types.ErrNotInteger, "ERR value is not an integer or out of range"},
	{types.ErrNotFloat, "ERR value is not a valid float"},
	{types.ErrHashNotInteger, "ERR hash value is not an integer"},
	{types.ErrHashNotFloat, "ERR hash value is not a float"},
	{types.ErrOverflow, "ERR increment or decrement would overflow"},
	{types.ErrNaNOrInfinity, "ERR increment would produce NaN or Infinity"},
	{types.ErrNoSuchKey, "ERR no such key"},
	{types.ErrSameObject, "ERR source and destination objects are the same"},
	{types.ErrDBIndex, "ERR DB index is out of range"},
	{types.ErrStringTooLong, "ERR string exceeds maximum allowed size (proto-max-bulk-len)"},
	{types.ErrOffsetOutOfRange, "ERR offset is out of range"},
	{types.ErrSortScore, "ERR One or more scores can't be converted into double"},
	{types.ErrScoreNaN, "ERR resulting score is not a number (NaN)"},
	{types.ErrIndexOutOfRange, "ERR index out of range"},
	{types.ErrRandCount, string(errCountRange)},
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
