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
