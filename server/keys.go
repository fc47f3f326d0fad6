package server

import "strings"

// keyFinder returns the positions of the keys in a call of a movable-keys
// command (args[0] is the command name), or nil when the arguments do not
// say where the keys are.
type keyFinder func(args [][]byte) []int

// movableKeys are the commands whose keys a fixed first/last/step range
// cannot describe; COMMAND INFO flags them movablekeys and COMMAND GETKEYS
// asks them where the keys are. Their table rows keep Redis's legacy range.
var movableKeys = map[string]keyFinder{
	"sintercard":  numKeysAt(1),
	"zunion":      numKeysAt(1),
	"zinter":      numKeysAt(1),
	"zdiff":       numKeysAt(1),
	"zintercard":  numKeysAt(1),
	"lmpop":       numKeysAt(1),
	"zmpop":       numKeysAt(1),
	"blmpop":      numKeysAt(2),
	"bzmpop":      numKeysAt(2),
	"zunionstore": destThenNumKeys,
	"zinterstore": destThenNumKeys,
	"zdiffstore":  destThenNumKeys,
	"sort":        sortKeys,
	"sort_ro":     sortKeys,
}

// numKeysAt finds "numkeys key [key ...]" with numkeys at index i.
func numKeysAt(i int) keyFinder {
	return func(args [][]byte) []int {
		if i >= len(args) {
			return nil
		}
		n := atoi(args[i])
		if n < 1 || n > len(args)-i-1 {
			return nil
		}
		keys := make([]int, n)
		for k := range keys {
			keys[k] = i + 1 + k
		}
		return keys
	}
}

// destThenNumKeys finds "destination numkeys key [key ...]".
func destThenNumKeys(args [][]byte) []int {
	keys := numKeysAt(2)(args)
	if keys == nil {
		return nil
	}
	return append([]int{1}, keys...)
}

// sortKeys finds SORT's key and its STORE destination (the last STORE
// wins), skipping the arguments of LIMIT, BY and GET as Redis does. The
// keys that BY and GET patterns read are not reported, as in Redis.
func sortKeys(args [][]byte) []int {
	keys := []int{1}
	store := 0
	for i := 2; i < len(args); i++ {
		switch strings.ToLower(string(args[i])) {
		case "limit":
			i += 2
		case "by", "get":
			i++
		case "store":
			if i+1 < len(args) {
				store = i + 1
			}
			i++
		}
	}
	if store > 0 {
		keys = append(keys, store)
	}
	return keys
}

// atoi is C's atoi, which Redis uses for numkeys here: leading spaces, a
// sign, then digits up to the first non-digit; anything else is 0.
func atoi(b []byte) int {
	i := 0
	for i < len(b) && (b[i] == ' ' || (b[i] >= '\t' && b[i] <= '\r')) {
		i++
	}
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	n := 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		n = n*10 + int(b[i]-'0')
		if n > 1<<31 {
			break // far beyond any argument count
		}
	}
	if neg {
		return -n
	}
	return n
}

// keyPositions returns the positions of the keys in args for cmd: from its
// key finder for movable-keys commands, else from its first/last/step range.
func keyPositions(cmd *Command, args [][]byte) []int {
	if find := movableKeys[cmd.Name]; find != nil {
		return find(args)
	}
	if cmd.FirstKey == 0 {
		return nil
	}
	last := cmd.LastKey
	if last < 0 {
		last += len(args)
	}
	var keys []int
	for i := cmd.FirstKey; i <= last && i < len(args); i += max(cmd.Step, 1) {
		keys = append(keys, i)
	}
	return keys
}

// COMMAND GETKEYS's errors, in Redis's words.
const (
	errInvalidCommandSpecified replyError = "ERR Invalid command specified"
	errInvalidCommandArgCount  replyError = "ERR Invalid number of arguments specified for command"
	errInvalidCommandArgs      replyError = "ERR Invalid arguments specified for command"
	errCommandHasNoKeys        replyError = "ERR The command has no key arguments"
)
