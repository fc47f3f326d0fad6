package server

import (
	"math"
	"math/big"
	"strings"
	"time"

	"github.com/shaledb/shale/server/types"
)

// pushCommand is LPUSH, RPUSH, LPUSHX and RPUSHX: key element [element ...].
func pushCommand(c *Ctx, args [][]byte, push func(key []byte, vals [][]byte) (int64, error)) error {
	n, err := push(args[1], args[2:])
	return replyIntWaking(c, c.DB.Index(), args[1], n, err)
}

// replyIntWaking replies n unless err is set, first waking the clients
// blocked on key in database db when n > 0: the write left elements in key
// (LPUSH, LINSERT, ZRANGESTORE, SORT ... STORE).
func replyIntWaking(c *Ctx, db int, key []byte, n int64, err error) error {
	if err != nil {
		return err
	}
	if n > 0 {
		c.signalKeyReady(db, key)
	}
	c.Reply().Int(n)
	return nil
}

// replyIntBoolWaking is replyIntWaking for a write that reports whether it
// wrote key (RENAMENX, MOVE, COPY): it replies ok as 1 or 0.
func replyIntBoolWaking(c *Ctx, db int, key []byte, ok bool, err error) error {
	if err != nil {
		return err
	}
	if ok {
		c.signalKeyReady(db, key)
	}
	c.Reply().IntBool(ok)
	return nil
}

func cmdLPush(c *Ctx, args [][]byte) error  { return pushCommand(c, args, c.DB.LPush) }
func cmdRPush(c *Ctx, args [][]byte) error  { return pushCommand(c, args, c.DB.RPush) }
func cmdLPushX(c *Ctx, args [][]byte) error { return pushCommand(c, args, c.DB.LPushX) }
func cmdRPushX(c *Ctx, args [][]byte) error { return pushCommand(c, args, c.DB.RPushX) }

// popCommand is LPOP and RPOP: key [count]. Without a count the reply is one
// element or nil; with one it is an array, or a null array when the key is
// missing.
func popCommand(c *Ctx, args [][]byte, end types.ListEnd) error {
	r := c.Reply()
	if len(args) == 2 {
		vals, ok, err := c.DB.LPop(args[1], 1, end)
		if err != nil {
			return err
		}
		if !ok {
			r.Null()
			return nil
		}
		r.Bulk(vals[0])
		return nil
	}
	count, err := parseInt(args[2])
	if err != nil || count < 0 {
		return errPositiveNumber
	}
	vals, ok, err := c.DB.LPop(args[1], count, end)
	if err != nil {
		return err
	}
	if !ok {
		r.NullArray()
		return nil
	}
	r.Bulks(vals)
	return nil
}

func cmdLPop(c *Ctx, args [][]byte) error { return popCommand(c, args, types.Left) }
func cmdRPop(c *Ctx, args [][]byte) error { return popCommand(c, args, types.Right) }

// LLEN key
func cmdLLen(c *Ctx, args [][]byte) error {
	n, err := c.DB.LLen(args[1])
	return replyInt(c, n, err)
}

// LRANGE key start stop
func cmdLRange(c *Ctx, args [][]byte) error {
	start, stop, err := parseStartStop(args)
	if err != nil {
		return err
	}
	items, err := c.DB.LRange(args[1], start, stop)
	return replyBulks(c, items, err)
}

// listIndexArg parses LINDEX's and LSET's index. Redis looks the key up
// first, so a bad index on a key of another type is WRONGTYPE, and on a
// missing key it is what the command does with a missing key (missing).
func listIndexArg(c *Ctx, key, arg []byte) (index int64, missing bool, err error) {
	index, perr := parseInt(arg)
	if perr == nil {
		return index, false, nil
	}
	n, err := c.DB.LLen(key)
	if err != nil {
		return 0, false, err
	}
	if n == 0 {
		return 0, true, nil
	}
	return 0, false, perr
}

// lrangeBounded reports whether LRANGE's indexes bound its walk to what a
// read walks under its key's lock (types.DB.walkView): both counted from
// the same end, spanning at most WalkLockedUpTo elements. LRANGE 0 -1 of
// a big list is not bounded; indexes that do not parse are, since their
// error reply is as cheap as any.
func lrangeBounded(args [][]byte) bool {
	if len(args) != 4 {
		return true // its arity error
	}
	start, stop, err := parseStartStop(args)
	if err != nil {
		return true
	}
	return (start >= 0) == (stop >= 0) && stop-start < types.WalkLockedUpTo
}

// LINDEX key index
func cmdLIndex(c *Ctx, args [][]byte) error {
	index, missing, err := listIndexArg(c, args[1], args[2])
	if err != nil {
		return err
	}
	if missing {
		c.Reply().Null()
		return nil
	}
	v, ok, err := c.DB.LIndex(args[1], index)
	return replyBulkOrNull(c, v, ok, err)
}

// LSET key index element
func cmdLSet(c *Ctx, args [][]byte) error {
	index, missing, err := listIndexArg(c, args[1], args[2])
	if err != nil {
		return err
	}
	if missing {
		return types.ErrNoSuchKey
	}
	return replyOK(c, c.DB.LSet(args[1], index, args[3]))
}

// LINSERT key BEFORE|AFTER pivot element
func cmdLInsert(c *Ctx, args [][]byte) error {
	var place types.InsertPlace
	switch {
	case is(args[2], "BEFORE"):
		place = types.Before
	case is(args[2], "AFTER"):
		place = types.After
	default:
		return errSyntax
	}
	n, err := c.DB.LInsert(args[1], place, args[3], args[4])
	return replyIntWaking(c, c.DB.Index(), args[1], n, err)
}

// LREM key count element
func cmdLRem(c *Ctx, args [][]byte) error {
	count, err := parseInt(args[2])
	if err != nil {
		return err
	}
	n, err := c.DB.LRem(args[1], count, args[3])
	return replyInt(c, n, err)
}

// LTRIM key start stop
func cmdLTrim(c *Ctx, args [][]byte) error {
	start, stop, err := parseStartStop(args)
	if err != nil {
		return err
	}
	return replyOK(c, c.DB.LTrim(args[1], start, stop))
}

// LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len]
func cmdLPos(c *Ctx, args [][]byte) error {
	r := c.Reply()
	rank, count, maxlen := int64(1), int64(-1), int64(0)
	for i := 3; i < len(args); i += 2 {
		if i+1 >= len(args) {
			return errSyntax
		}
		switch {
		case is(args[i], "RANK"):
			n, err := parseInt(args[i+1])
			if err != nil {
				return err
			}
			if n == 0 {
				return errRankZero
			}
			rank = n
		case is(args[i], "COUNT"):
			n, err := parseInt(args[i+1])
			if err != nil || n < 0 {
				return errCountNegative
			}
			count = n
		case is(args[i], "MAXLEN"):
			n, err := parseInt(args[i+1])
			if err != nil || n < 0 {
				return errMaxlenNegative
			}
			maxlen = n
		default:
			return errSyntax
		}
	}
	want := count
	if count < 0 {
		want = 1 // no COUNT: the first match alone, not in an array
	}
	pos, err := c.DB.LPos(args[1], args[2], rank, want, maxlen)
	if err != nil {
		return err
	}
	if count < 0 {
		if len(pos) == 0 {
			r.Null()
		} else {
			r.Int(pos[0])
		}
		return nil
	}
	r.Array(len(pos))
	for _, p := range pos {
		r.Int(p)
	}
	return nil
}

// listEnd parses LEFT or RIGHT.
func listEnd(arg []byte) (types.ListEnd, error) {
	switch {
	case is(arg, "LEFT"):
		return types.Left, nil
	case is(arg, "RIGHT"):
		return types.Right, nil
	}
	return types.Left, errSyntax
}

// moveEnds parses LMOVE's and BLMOVE's wherefrom and whereto, args[3] and
// args[4].
func moveEnds(args [][]byte) (from, to types.ListEnd, err error) {
	if from, err = listEnd(args[3]); err != nil {
		return from, to, err
	}
	to, err = listEnd(args[4])
	return from, to, err
}

// move is LMOVE's and its siblings' work: it moves one element and wakes
// the clients blocked on the destination. ok is false when src is missing.
func move(c *Ctx, src, dst []byte, from, to types.ListEnd) (val []byte, ok bool, err error) {
	val, ok, err = c.DB.LMove(src, dst, from, to)
	if err == nil && ok {
		c.signalKeyReady(c.DB.Index(), dst)
	}
	return val, ok, err
}

// LMOVE source destination LEFT|RIGHT LEFT|RIGHT
func cmdLMove(c *Ctx, args [][]byte) error {
	from, to, err := moveEnds(args)
	if err != nil {
		return err
	}
	v, ok, err := move(c, args[1], args[2], from, to)
	return replyBulkOrNull(c, v, ok, err)
}

// RPOPLPUSH source destination
func cmdRPopLPush(c *Ctx, args [][]byte) error {
	v, ok, err := move(c, args[1], args[2], types.Right, types.Left)
	return replyBulkOrNull(c, v, ok, err)
}

// lmpopArgs is LMPOP's (and BLMPOP's) numkeys key [key ...] LEFT|RIGHT
// [COUNT count], parsed from args in Redis's order: numkeys, then the end,
// then COUNT.
type lmpopArgs struct {
	keys  [][]byte
	end   types.ListEnd
	count int64
}

func parseLMPop(args [][]byte) (o lmpopArgs, err error) {
	numkeys, err := parseInt(args[0])
	if err != nil || numkeys < 1 {
		return o, errNumkeysPositive
	}
	if numkeys >= int64(len(args))-1 {
		return o, errSyntax
	}
	o.keys = args[1 : 1+numkeys]
	rest := args[1+numkeys:]
	if o.end, err = listEnd(rest[0]); err != nil {
		return o, err
	}
	o.count = -1
	for i := 1; i < len(rest); i++ {
		if o.count != -1 || !is(rest[i], "COUNT") || i+1 == len(rest) {
			return o, errSyntax
		}
		i++
		if o.count, err = parseInt(rest[i]); err != nil || o.count < 1 {
			return o, errCountPositive
		}
	}
	o.count = max(o.count, 1)
	return o, nil
}

// writeLMPop is the [key, [element ...]] reply of LMPOP and BLMPOP.
func writeLMPop(c *Ctx, key []byte, vals [][]byte) {
	r := c.Reply()
	r.Array(2)
	r.Bulk(key)
	r.Bulks(vals)
}

// LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count]
func cmdLMPop(c *Ctx, args [][]byte) error {
	o, err := parseLMPop(args[1:])
	if err != nil {
		return err
	}
	key, vals, err := c.DB.LMPop(o.keys, o.end, o.count)
	if err != nil {
		return err
	}
	if key == nil {
		c.Reply().NullArray()
		return nil
	}
	writeLMPop(c, key, vals)
	return nil
}

// maxTimeoutMs is the longest finite wait; Redis's limit is far beyond any
// real deadline, so a longer timeout waits forever, as 0 does.
const maxTimeoutMs = math.MaxInt64 / int64(time.Millisecond)

// minLongDoubleExp is the binary exponent (of a mantissa in [0.5, 1)) of
// the smallest x87 long double: 2^-16445, a subnormal.
const minLongDoubleExp = -16444

// isInfLiteral reports whether arg spells an infinity, as strtold reads it
// ("inf", "-Infinity"...), rather than a number too large to hold.
func isInfLiteral(arg []byte) bool {
	s := strings.ToLower(string(arg))
	s = strings.TrimLeft(s, "+-")
	return s == "inf" || s == "infinity"
}

// parseTimeout parses a blocking command's timeout in seconds as Redis 7.0
// does: a long double, rounded up to whole milliseconds, 0 for ever. A
// value whose milliseconds do not fit a long long becomes negative in
// Redis's conversion on x86, so it is refused as negative too.
func parseTimeout(arg []byte) (time.Duration, error) {
	f, ok := types.ParseLongDouble(arg)
	if !ok || (f.IsInf() && !isInfLiteral(arg)) || (f.Sign() != 0 && !f.IsInf() && f.MantExp(nil) < minLongDoubleExp) {
		// strtold's overflow and underflow (ERANGE) are refused too.
		return 0, errTimeoutNotFloat
	}
	if f.IsInf() {
		return 0, errTimeoutNegative
	}
	ms := new(big.Float).SetPrec(64).Mul(f, big.NewFloat(1000))
	n, acc := ms.Int(nil)
	if acc == big.Below { // truncated towards zero from a positive value
		n.Add(n, big.NewInt(1))
	}
	if !n.IsInt64() || n.Sign() < 0 {
		return 0, errTimeoutNegative
	}
	if n.Int64() > maxTimeoutMs {
		return 0, nil
	}
	return time.Duration(n.Int64()) * time.Millisecond, nil
}

// bpopCommand is BLPOP and BRPOP: key [key ...] timeout.
func bpopCommand(c *Ctx, args [][]byte, end types.ListEnd) error {
	timeout, err := parseTimeout(args[len(args)-1])
	if err != nil {
		return err
	}
	keys := args[1 : len(args)-1]
	return c.Srv.blockOn(c, keys, timeout, "list", func(keys [][]byte) (bool, error) {
		key, vals, err := c.DB.LMPop(keys, end, 1)
		if err != nil || key == nil {
			return false, err
		}
		c.Reply().Bulks([][]byte{key, vals[0]})
		return true, nil
	})
}

func cmdBLPop(c *Ctx, args [][]byte) error { return bpopCommand(c, args, types.Left) }
func cmdBRPop(c *Ctx, args [][]byte) error { return bpopCommand(c, args, types.Right) }

// blmove is BLMOVE's and BRPOPLPUSH's wait on src.
func blmove(c *Ctx, src, dst []byte, from, to types.ListEnd, timeout time.Duration) error {
	return c.Srv.blockOn(c, [][]byte{src}, timeout, "list", func([][]byte) (bool, error) {
		v, ok, err := move(c, src, dst, from, to)
		if err != nil || !ok {
			return false, err
		}
		c.Reply().Bulk(v)
		return true, nil
	})
}

// BLMOVE source destination LEFT|RIGHT LEFT|RIGHT timeout
func cmdBLMove(c *Ctx, args [][]byte) error {
	from, to, err := moveEnds(args)
	if err != nil {
		return err
	}
	timeout, err := parseTimeout(args[5])
	if err != nil {
		return err
	}
	return blmove(c, args[1], args[2], from, to, timeout)
}

// BRPOPLPUSH source destination timeout
func cmdBRPopLPush(c *Ctx, args [][]byte) error {
	timeout, err := parseTimeout(args[3])
	if err != nil {
		return err
	}
	return blmove(c, args[1], args[2], types.Right, types.Left, timeout)
}

// BLMPOP timeout numkeys key [key ...] LEFT|RIGHT [COUNT count]
func cmdBLMPop(c *Ctx, args [][]byte) error {
	o, err := parseLMPop(args[2:])
	if err != nil {
		return err
	}
	timeout, err := parseTimeout(args[1])
	if err != nil {
		return err
	}
	return c.Srv.blockOn(c, o.keys, timeout, "list", func(keys [][]byte) (bool, error) {
		key, vals, err := c.DB.LMPop(keys, o.end, o.count)
		if err != nil || key == nil {
			return false, err
		}
		writeLMPop(c, key, vals)
		return true, nil
	})
}

var listCommands = []Command{
	cmd("lpush", -3, Write|DenyOOM|Fast|Grouped, 1, 1, 1, cmdLPush).keyFlags(KeyRW|KeyInsert).
		doc("Prepend one or multiple elements to a list", "1.0.0", "list", "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.", "key element [element ...]"),
	cmd("rpush", -3, Write|DenyOOM|Fast|Grouped, 1, 1, 1, cmdRPush).keyFlags(KeyRW|KeyInsert).
		doc("Append one or multiple elements to a list", "1.0.0", "list", "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.", "key element [element ...]"),
	cmd("lpushx", -3, Write|DenyOOM|Fast|Grouped, 1, 1, 1, cmdLPushX).keyFlags(KeyRW|KeyInsert).
		doc("Prepend an element to a list, only if the list exists", "2.2.0", "list", "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.", "key element [element ...]"),
	cmd("rpushx", -3, Write|DenyOOM|Fast|Grouped, 1, 1, 1, cmdRPushX).keyFlags(KeyRW|KeyInsert).
		doc("Append an element to a list, only if the list exists", "2.2.0", "list", "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.", "key element [element ...]"),
	cmd("lpop", -2, Write|Fast|Grouped, 1, 1, 1, cmdLPop).shaped(atMost(3, shapeArity)).keyFlags(KeyRW|KeyAccess|KeyDelete).
		doc("Remove and get the first elements in a list", "1.0.0", "list", "O(N) where N is the number of elements returned", "key [count]"),
	cmd("rpop", -2, Write|Fast|Grouped, 1, 1, 1, cmdRPop).shaped(atMost(3, shapeArity)).keyFlags(KeyRW|KeyAccess|KeyDelete).
		doc("Remove and get the last elements in a list", "1.0.0", "list", "O(N) where N is the number of elements returned", "key [count]"),
	cmd("llen", 2, ReadOnly|Fast|Grouped, 1, 1, 1, cmdLLen).keyFlags(KeyRO).
		doc("Get the length of a list", "1.0.0", "list", "O(1)", "key"),
	cmd("lrange", 4, ReadOnly, 1, 1, 1, cmdLRange).groupedIf(lrangeBounded).keyFlags(KeyRO|KeyAccess).
		doc("Get a range of elements from a list", "1.0.0", "list", "O(S+N) where S is the distance of start offset from HEAD for small lists, from nearest end (HEAD or TAIL) for large lists; and N is the number of elements in the specified range.", "key start stop"),
	cmd("lindex", 3, ReadOnly|Grouped, 1, 1, 1, cmdLIndex).keyFlags(KeyRO|KeyAccess).
		doc("Get an element from a list by its index", "1.0.0", "list", "O(N) where N is the number of elements to traverse to get to the element at index. This makes asking for the first or the last element of the list O(1).", "key index"),
	cmd("lset", 4, Write|DenyOOM|Grouped, 1, 1, 1, cmdLSet).keyFlags(KeyRW|KeyUpdate).
		doc("Set the value of an element in a list by its index", "1.0.0", "list", "O(N) where N is the length of the list. Setting either the first or the last element of the list is O(1).", "key index element"),
	cmd("linsert", 5, Write|DenyOOM, 1, 1, 1, cmdLInsert).keyFlags(KeyRW|KeyInsert).
		doc("Insert an element before or after another element in a list", "2.2.0", "list", "O(N) where N is the number of elements to traverse before seeing the value pivot. This means that inserting somewhere on the left end on the list (head) can be considered O(1) and inserting somewhere on the right end (tail) is O(N).", "key BEFORE|AFTER pivot element"),
	cmd("lrem", 4, Write, 1, 1, 1, cmdLRem).keyFlags(KeyRW|KeyDelete).
		doc("Remove elements from a list", "1.0.0", "list", "O(N+M) where N is the length of the list and M is the number of elements removed.", "key count element"),
	cmd("ltrim", 4, Write|Grouped, 1, 1, 1, cmdLTrim).keyFlags(KeyRW|KeyDelete).
		doc("Trim a list to the specified range", "1.0.0", "list", "O(N) where N is the number of elements to be removed by the operation.", "key start stop"),
	cmd("lpos", -3, ReadOnly, 1, 1, 1, cmdLPos).keyFlags(KeyRO|KeyAccess).
		doc("Return the index of matching elements on a list", "6.0.6", "list", "O(N) where N is the number of elements in the list, for the average case. When searching for elements near the head or the tail of the list, or when the MAXLEN option is provided, the command may run in constant time.", "key element [RANK rank] [COUNT num-matches] [MAXLEN len]"),
	cmd("lmove", 5, Write|DenyOOM|Grouped, 1, 2, 1, cmdLMove).keyFlags(KeyRW|KeyAccess|KeyDelete, KeyRW|KeyInsert).
		doc("Pop an element from a list, push it to another list and return it", "6.2.0", "list", "O(1)", "source destination LEFT|RIGHT LEFT|RIGHT"),
	cmd("rpoplpush", 3, Write|DenyOOM|Grouped, 1, 2, 1, cmdRPopLPush).keyFlags(KeyRW|KeyAccess|KeyDelete, KeyRW|KeyInsert).
		doc("Remove the last element in a list, prepend it to another list and return it", "1.2.0", "list", "O(1)", "source destination"),
	cmd("lmpop", -4, Write, 0, 0, 0, cmdLMPop).keysBy(numKeysAt(1)).keySpecs(numKeysSpec(1, KeyRW|KeyAccess|KeyDelete)).
		doc("Pop elements from a list", "7.0.0", "list", "O(N+M) where N is the number of provided keys and M is the number of elements returned.", "numkeys key [key ...] LEFT|RIGHT [COUNT count]"),
	cmd("blpop", -3, Write|NoScript|Blocking, 1, -2, 1, cmdBLPop).keyFlags(KeyRW|KeyAccess|KeyDelete).
		doc("Remove and get the first element in a list, or block until one is available", "2.0.0", "list", "O(N) where N is the number of provided keys.", "key [key ...] timeout"),
	cmd("brpop", -3, Write|NoScript|Blocking, 1, -2, 1, cmdBRPop).keyFlags(KeyRW|KeyAccess|KeyDelete).
		doc("Remove and get the last element in a list, or block until one is available", "2.0.0", "list", "O(N) where N is the number of provided keys.", "key [key ...] timeout"),
	cmd("blmove", 6, Write|DenyOOM|NoScript|Blocking, 1, 2, 1, cmdBLMove).keyFlags(KeyRW|KeyAccess|KeyDelete, KeyRW|KeyInsert).
		doc("Pop an element from a list, push it to another list and return it; or block until one is available", "6.2.0", "list", "O(1)", "source destination LEFT|RIGHT LEFT|RIGHT timeout"),
	cmd("brpoplpush", 4, Write|DenyOOM|NoScript|Blocking, 1, 2, 1, cmdBRPopLPush).keyFlags(KeyRW|KeyAccess|KeyDelete, KeyRW|KeyInsert).
		doc("Pop an element from a list, push it to another list and return it; or block until one is available", "2.2.0", "list", "O(1)", "source destination timeout"),
	cmd("blmpop", -5, Write|Blocking, 0, 0, 0, cmdBLMPop).keysBy(numKeysAt(2)).keySpecs(numKeysSpec(2, KeyRW|KeyAccess|KeyDelete)).
		doc("Pop elements from a list, or block until one is available", "7.0.0", "list", "O(N+M) where N is the number of provided keys and M is the number of elements returned.", "timeout numkeys key [key ...] LEFT|RIGHT [COUNT count]"),
}
