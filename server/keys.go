package server

import (
	"math"
	"strings"

	"github.com/shaledb/shale/server/types"
)

// keyFinder returns the positions of the keys in a call of a movable-keys
// command (args[0] is the command name), or nil when the arguments do not
// say where the keys are.
type keyFinder func(args [][]byte) []int

// numKeysAt finds "numkeys key [key ...]" with numkeys at index i.
func numKeysAt(i int) keyFinder {
	return func(args [][]byte) []int {
		if i >= len(args) {
			return nil
		}
		if n, ok := specNumKeys(args[i]); ok && n <= len(args)-i-1 {
			return keyRange(i+1, n)
		}
		return atoiNumKeys(args, i)
	}
}

// destThenNumKeys finds "destination numkeys key [key ...]". Redis's key
// specs list the destination first; its fallback parser (see atoiNumKeys)
// lists it last.
func destThenNumKeys(args [][]byte) []int {
	if len(args) < 3 {
		return nil
	}
	if n, ok := specNumKeys(args[2]); ok && n <= len(args)-3 {
		return append([]int{1}, keyRange(3, n)...)
	}
	keys := atoiNumKeys(args, 2)
	if keys == nil {
		return nil
	}
	return append(keys, 1)
}

// specNumKeys reads numkeys as Redis's key specs do: a strict integer, not
// negative, then truncated to a C int (4294967298 is 2); ok is false when
// the specs give up and Redis falls back to the command's own parser.
func specNumKeys(b []byte) (n int, ok bool) {
	v, ok := types.ParseInt(b)
	if !ok || v < 0 {
		return 0, false
	}
	n = int(int32(v))
	return n, n >= 1
}

// atoiNumKeys is Redis's fallback parser (genericGetKeys): numkeys at index
// i read with C's atoi, its keys right after it, no keys when it is out of
// range.
func atoiNumKeys(args [][]byte, i int) []int {
	n := atoi(args[i])
	if n < 1 || n > len(args)-i-1 {
		return nil
	}
	return keyRange(i+1, n)
}

// keyRange returns the n positions from first on; n is already bounded by
// the number of arguments.
func keyRange(first, n int) []int {
	keys := make([]int, n)
	for k := range keys {
		keys[k] = first + k
	}
	return keys
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

// atoi is C's atoi as glibc has it, (int)strtol: leading spaces, a sign,
// then digits up to the first non-digit (none is 0); beyond int64 it
// saturates, and the result is truncated to 32 bits, so 4294967298 is 2.
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
	var n uint64 // the magnitude, at most 1<<63
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		d := uint64(b[i] - '0')
		if n > (1<<63-d)/10 {
			n = 1 << 63 // saturated: later digits change nothing
			break
		}
		n = n*10 + d
	}
	var v int64
	switch {
	case neg:
		v = int64(-n) // 1<<63 negates to math.MinInt64
	case n > math.MaxInt64:
		v = math.MaxInt64
	default:
		v = int64(n)
	}
	return int(int32(v))
}

// keyPositions returns the positions of the keys in args for cmd: from its
// key finder for movable-keys commands, else from its first/last/step range.
func keyPositions(cmd *Command, args [][]byte) []int {
	if find := cmd.Keys; find != nil {
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

// KeySpec is one of Redis 7's key specifications, as COMMAND INFO shows it:
// where the search for keys begins (BeginSearch), how the keys are found
// from there (FindKeys), and what the command does to them (Flags). Shale
// finds keys by the row's first/last/step range or key finder; key specs
// are what clients (cluster routing, ACL tools) read.
type KeySpec struct {
	Notes string // a remark Redis attaches ("RW and ACCESS due to the optional `GET` argument"); "" for none
	Flags KeyFlags
	Begin BeginSearch
	Find  FindKeys
}

// BeginSearch is where a key spec's search begins: at argument Index, or
// after Keyword (searched from StartFrom, backwards when negative); the
// zero BeginSearch is Redis's "unknown".
type BeginSearch struct {
	Index     int
	Keyword   string
	StartFrom int
}

// FindKeys finds the keys from where the search began: a range (LastKey
// relative to the begin index, or negative from the end; KeyStep apart; at
// most len/Limit of the rest when Limit > 0), or, with KeyNum, the key count
// at KeyNumIdx and the keys from FirstKey on, both relative to the begin
// index. KeyStep 0, the zero FindKeys, is Redis's "unknown".
type FindKeys struct {
	KeyNum                  bool
	LastKey, KeyStep, Limit int // range
	KeyNumIdx, FirstKey     int // keynum (and KeyStep)
}

// KeyFlags say what a command does with the keys of a key spec, as Redis 7
// names them (CMD_KEY_*).
type KeyFlags uint16

// Key spec flags, in the order COMMAND INFO lists them.
const (
	KeyRO            KeyFlags = 1 << iota // reads the key's value
	KeyRW                                 // reads and modifies it
	KeyOW                                 // overwrites it, whatever it held
	KeyRM                                 // deletes it
	KeyAccess                             // returns, copies or uses the user data
	KeyUpdate                             // updates data in place
	KeyInsert                             // adds data, never modifies or deletes
	KeyDelete                             // deletes data
	KeyNotKey                             // not a key, though in a key position
	KeyIncomplete                         // the spec may miss keys
	KeyVariableFlags                      // the flags depend on other arguments
)

var keyFlagNames = []string{"RO", "RW", "OW", "RM", "access", "update", "insert", "delete", "not_key", "incomplete", "variable_flags"}

// names lists the flags in Redis's order.
func (f KeyFlags) names() []string {
	var out []string
	for i, n := range keyFlagNames {
		if f&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// rangeKeySpecs splits the key range first..last (step apart) into one key
// spec per flag set: see Command.keyFlags.
func rangeKeySpecs(first, last, step int, flags []KeyFlags) []KeySpec {
	specs := make([]KeySpec, len(flags))
	for i, f := range flags {
		specs[i] = keyAt(first+i*step, f)
	}
	if len(specs) == 0 {
		return nil
	}
	rest := &specs[len(specs)-1].Find
	rest.KeyStep, rest.LastKey = step, last // a negative last counts from the end, as in the range
	if last >= 0 {
		rest.LastKey = last - specs[len(specs)-1].Begin.Index // relative to the begin index
	}
	return specs
}

// keyAt is the key spec of one key at index i.
func keyAt(i int, f KeyFlags) KeySpec {
	return KeySpec{Flags: f, Begin: BeginSearch{Index: i}, Find: FindKeys{KeyStep: 1}}
}

// numKeysSpec is the key spec of "numkeys key [key ...]" with numkeys at
// index i.
func numKeysSpec(i int, f KeyFlags) KeySpec {
	return KeySpec{Flags: f, Begin: BeginSearch{Index: i}, Find: FindKeys{KeyNum: true, FirstKey: 1, KeyStep: 1}}
}

// unknownKeys is the key spec of keys Redis cannot locate from the
// arguments' positions (SORT's BY, GET and STORE), with Redis's note.
func unknownKeys(f KeyFlags, notes string) KeySpec {
	return KeySpec{Notes: notes, Flags: f}
}

// noted adds Redis's note to a key spec.
func (k KeySpec) noted(notes string) KeySpec {
	k.Notes = notes
	return k
}
