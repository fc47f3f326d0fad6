package server

import (
	"math"

	"github.com/shaledb/shale/server/types"
)

// parseRandCount parses the count of SRANDMEMBER, HRANDFIELD and
// ZRANDMEMBER, which Redis checks before anything else, the key included.
func parseRandCount(b []byte) (int64, error) {
	n, err := parseInt(b)
	if err != nil {
		return 0, err
	}
	if n == math.MinInt64 {
		return 0, errRandCountRange
	}
	return n, nil
}

// checkPairedCount refuses, as Redis does before it looks the key up, a
// count of HRANDFIELD WITHVALUES or ZRANDMEMBER WITHSCORES whose reply,
// twice as long as the count, would overflow a long.
func checkPairedCount(n int64) error {
	if n < -math.MaxInt64/2 || n > math.MaxInt64/2 {
		return errCountRange
	}
	return nil
}

// SADD key member [member ...]
func cmdSAdd(c *Ctx, args [][]byte) error {
	n, err := c.DB.SAdd(args[1], args[2:])
	return replyInt(c, n, err)
}

// SREM key member [member ...]
func cmdSRem(c *Ctx, args [][]byte) error {
	n, err := c.DB.SRem(args[1], args[2:])
	return replyInt(c, n, err)
}

// SCARD key
func cmdSCard(c *Ctx, args [][]byte) error {
	n, err := c.DB.SCard(args[1])
	return replyInt(c, n, err)
}

// SISMEMBER key member
func cmdSIsMember(c *Ctx, args [][]byte) error {
	ok, err := c.DB.SIsMember(args[1], args[2])
	return replyIntBool(c, ok, err)
}

// SMISMEMBER key member [member ...]
func cmdSMIsMember(c *Ctx, args [][]byte) error {
	found, err := c.DB.SMIsMember(args[1], args[2:])
	if err != nil {
		return err
	}
	c.Reply().Array(len(found))
	for _, f := range found {
		c.Reply().IntBool(f)
	}
	return nil
}

// SMEMBERS key
func cmdSMembers(c *Ctx, args [][]byte) error {
	items, err := c.DB.SMembers(args[1])
	return replyBulkSet(c, items, err)
}

// SPOP key [count]
func cmdSPop(c *Ctx, args [][]byte) error {
	if len(args) == 2 {
		items, err := c.DB.SPop(args[1], 1)
		return replyFirstOrNull(c, items, err)
	}
	// Redis answers the same text for a count that is not an integer.
	count, ok := types.ParseInt(args[2])
	if !ok || count < 0 {
		return errPositiveNumber
	}
	items, err := c.DB.SPop(args[1], count)
	return replyBulkSet(c, items, err)
}

// SRANDMEMBER key [count]
func cmdSRandMember(c *Ctx, args [][]byte) error {
	if len(args) == 2 {
		items, err := c.DB.SRandMember(args[1], 1)
		return replyFirstOrNull(c, items, err)
	}
	count, err := parseRandCount(args[2])
	if err != nil {
		return err
	}
	items, err := c.DB.SRandMember(args[1], count)
	return replyBulks(c, items, err)
}

// SMOVE source destination member
func cmdSMove(c *Ctx, args [][]byte) error {
	ok, err := c.DB.SMove(args[1], args[2], args[3])
	return replyIntBool(c, ok, err)
}

// SINTER key [key ...]
func cmdSInter(c *Ctx, args [][]byte) error {
	items, err := c.DB.SInter(args[1:])
	return replyBulkSet(c, items, err)
}

// SUNION key [key ...]
func cmdSUnion(c *Ctx, args [][]byte) error {
	items, err := c.DB.SUnion(args[1:])
	return replyBulkSet(c, items, err)
}

// SDIFF key [key ...]
func cmdSDiff(c *Ctx, args [][]byte) error {
	items, err := c.DB.SDiff(args[1:])
	return replyBulkSet(c, items, err)
}

// SINTERSTORE destination key [key ...]
func cmdSInterStore(c *Ctx, args [][]byte) error {
	n, err := c.DB.SInterStore(args[1], args[2:])
	return replyInt(c, n, err)
}

// SUNIONSTORE destination key [key ...]
func cmdSUnionStore(c *Ctx, args [][]byte) error {
	n, err := c.DB.SUnionStore(args[1], args[2:])
	return replyInt(c, n, err)
}

// SDIFFSTORE destination key [key ...]
func cmdSDiffStore(c *Ctx, args [][]byte) error {
	n, err := c.DB.SDiffStore(args[1], args[2:])
	return replyInt(c, n, err)
}

// SINTERCARD numkeys key [key ...] [LIMIT limit]. As in Redis, numkeys and
// the options are checked before the keys' types.
func cmdSInterCard(c *Ctx, args [][]byte) error {
	numkeys, ok := types.ParseInt(args[1])
	if !ok || numkeys < 1 {
		return errNumkeysPositive
	}
	if numkeys > int64(len(args)-2) {
		return errSIntercardArgs
	}
	var limit int64
	for i := 2 + int(numkeys); i < len(args); i++ {
		if !is(args[i], "LIMIT") || i+1 == len(args) {
			return errSyntax
		}
		i++
		if limit, ok = types.ParseInt(args[i]); !ok || limit < 0 {
			return errLimitNegative
		}
	}
	n, err := c.DB.SInterCard(args[2:2+numkeys], limit)
	return replyInt(c, n, err)
}

// SSCAN key cursor [MATCH pattern] [COUNT count]. Redis reads the cursor,
// then the key, then the options: a bad cursor is an error even on a missing
// key, a missing key answers an empty scan whatever the options, and a key
// of another type is WRONGTYPE before a bad option.
func cmdSScan(c *Ctx, args [][]byte) error {
	cursor, err := parseCursor(args[2])
	if err != nil {
		return err
	}
	o, empty, err := keyScanOptions(args, c.DB.SCard)
	if err != nil || empty {
		if empty {
			writeScanReply(c, 0, nil)
		}
		return err
	}
	next, items, err := c.DB.SScan(args[1], cursor, o.Match, o.Count)
	if err != nil {
		return err
	}
	writeScanReply(c, next, items)
	return nil
}

var setCommands = []Command{
	cmd("sadd", -3, Write|DenyOOM|Fast|Grouped, 1, 1, 1, cmdSAdd).keyFlags(KeyRW|KeyInsert).
		doc("Add one or more members to a set", "1.0.0", "set", "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.", "key member [member ...]"),
	cmd("srem", -3, Write|Fast|Grouped, 1, 1, 1, cmdSRem).keyFlags(KeyRW|KeyDelete).
		doc("Remove one or more members from a set", "1.0.0", "set", "O(N) where N is the number of members to be removed.", "key member [member ...]"),
	cmd("scard", 2, ReadOnly|Fast|Grouped, 1, 1, 1, cmdSCard).keyFlags(KeyRO).
		doc("Get the number of members in a set", "1.0.0", "set", "O(1)", "key"),
	cmd("sismember", 3, ReadOnly|Fast|Grouped, 1, 1, 1, cmdSIsMember).keyFlags(KeyRO).
		doc("Determine if a given value is a member of a set", "1.0.0", "set", "O(1)", "key member"),
	cmd("smismember", -3, ReadOnly|Fast|Grouped, 1, 1, 1, cmdSMIsMember).keyFlags(KeyRO|KeyAccess).
		doc("Returns the membership associated with the given elements for a set", "6.2.0", "set", "O(N) where N is the number of elements being checked for membership", "key member [member ...]"),
	cmd("smembers", 2, ReadOnly, 1, 1, 1, cmdSMembers).keyFlags(KeyRO|KeyAccess).tips("nondeterministic_output_order").
		doc("Get all the members in a set", "1.0.0", "set", "O(N) where N is the set cardinality.", "key"),
	cmd("spop", -2, Write|Fast, 1, 1, 1, cmdSPop).shaped(atMost(3, shapeSyntax)).keyFlags(KeyRW|KeyAccess|KeyDelete).tips("nondeterministic_output").
		doc("Remove and return one or multiple random members from a set", "1.0.0", "set", "Without the count argument O(1), otherwise O(N) where N is the value of the passed count.", "key [count]"),
	cmd("srandmember", -2, ReadOnly, 1, 1, 1, cmdSRandMember).shaped(atMost(3, shapeSyntax)).keyFlags(KeyRO|KeyAccess).tips("nondeterministic_output").
		doc("Get one or multiple random members from a set", "1.0.0", "set", "Without the count argument O(1), otherwise O(N) where N is the absolute value of the passed count.", "key [count]"),
	cmd("smove", 4, Write|Fast|Grouped, 1, 2, 1, cmdSMove).keyFlags(KeyRW|KeyAccess|KeyDelete, KeyRW|KeyInsert).
		doc("Move a member from one set to another", "1.0.0", "set", "O(1)", "source destination member"),
	cmd("sinter", -2, ReadOnly, 1, -1, 1, cmdSInter).keyFlags(KeyRO|KeyAccess).tips("nondeterministic_output_order").
		doc("Intersect multiple sets", "1.0.0", "set", "O(N*M) worst case where N is the cardinality of the smallest set and M is the number of sets.", "key [key ...]"),
	cmd("sintercard", -3, ReadOnly, 0, 0, 0, cmdSInterCard).keysBy(numKeysAt(1)).keySpecs(numKeysSpec(1, KeyRO|KeyAccess)).
		doc("Intersect multiple sets and return the cardinality of the result", "7.0.0", "set", "O(N*M) worst case where N is the cardinality of the smallest set and M is the number of sets.", "numkeys key [key ...] [LIMIT limit]"),
	cmd("sinterstore", -3, Write|DenyOOM, 1, -1, 1, cmdSInterStore).keyFlags(KeyRW|KeyUpdate, KeyRO|KeyAccess).
		doc("Intersect multiple sets and store the resulting set in a key", "1.0.0", "set", "O(N*M) worst case where N is the cardinality of the smallest set and M is the number of sets.", "destination key [key ...]"),
	cmd("sunion", -2, ReadOnly, 1, -1, 1, cmdSUnion).keyFlags(KeyRO|KeyAccess).tips("nondeterministic_output_order").
		doc("Add multiple sets", "1.0.0", "set", "O(N) where N is the total number of elements in all given sets.", "key [key ...]"),
	cmd("sunionstore", -3, Write|DenyOOM, 1, -1, 1, cmdSUnionStore).keyFlags(KeyOW|KeyUpdate, KeyRO|KeyAccess).
		doc("Add multiple sets and store the resulting set in a key", "1.0.0", "set", "O(N) where N is the total number of elements in all given sets.", "destination key [key ...]"),
	cmd("sdiff", -2, ReadOnly, 1, -1, 1, cmdSDiff).keyFlags(KeyRO|KeyAccess).tips("nondeterministic_output_order").
		doc("Subtract multiple sets", "1.0.0", "set", "O(N) where N is the total number of elements in all given sets.", "key [key ...]"),
	cmd("sdiffstore", -3, Write|DenyOOM, 1, -1, 1, cmdSDiffStore).keyFlags(KeyOW|KeyUpdate, KeyRO|KeyAccess).
		doc("Subtract multiple sets and store the resulting set in a key", "1.0.0", "set", "O(N) where N is the total number of elements in all given sets.", "destination key [key ...]"),
	cmd("sscan", -3, ReadOnly, 1, 1, 1, cmdSScan).keyFlags(KeyRO|KeyAccess).tips("nondeterministic_output").
		doc("Incrementally iterate Set elements", "2.8.0", "set", "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection..", "key cursor [MATCH pattern] [COUNT count]"),
}
