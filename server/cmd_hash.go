package server

import (
	"strconv"

	"github.com/shaledb/shale/server/types"
)

// HSET key field value [field value ...]
func cmdHSet(c *Ctx, args [][]byte) error {
	n, err := c.DB.HSet(args[1], args[2:])
	return replyInt(c, n, err)
}

// HMSET key field value [field value ...]
func cmdHMSet(c *Ctx, args [][]byte) error {
	if _, err := c.DB.HSet(args[1], args[2:]); err != nil {
		return err
	}
	c.Reply().OK()
	return nil
}

// HSETNX key field value
func cmdHSetNX(c *Ctx, args [][]byte) error {
	ok, err := c.DB.HSetNX(args[1], args[2], args[3])
	return replyIntBool(c, ok, err)
}

// HGET key field
func cmdHGet(c *Ctx, args [][]byte) error {
	v, ok, err := c.DB.HGet(args[1], args[2])
	return replyBulkOrNull(c, v, ok, err)
}

// HMGET key field [field ...]
func cmdHMGet(c *Ctx, args [][]byte) error {
	vals, err := c.DB.HMGet(args[1], args[2:])
	return replyBulks(c, vals, err)
}

// HGETALL key
func cmdHGetAll(c *Ctx, args [][]byte) error {
	items, err := c.DB.HGetAll(args[1])
	if err != nil {
		return err
	}
	c.Reply().BulkMap(items)
	return nil
}

// HKEYS key
func cmdHKeys(c *Ctx, args [][]byte) error {
	items, err := c.DB.HKeys(args[1])
	return replyBulks(c, items, err)
}

// HVALS key
func cmdHVals(c *Ctx, args [][]byte) error {
	items, err := c.DB.HVals(args[1])
	return replyBulks(c, items, err)
}

// HDEL key field [field ...]
func cmdHDel(c *Ctx, args [][]byte) error {
	n, err := c.DB.HDel(args[1], args[2:])
	return replyInt(c, n, err)
}

// HLEN key
func cmdHLen(c *Ctx, args [][]byte) error {
	n, err := c.DB.HLen(args[1])
	return replyInt(c, n, err)
}

// HEXISTS key field
func cmdHExists(c *Ctx, args [][]byte) error {
	ok, err := c.DB.HExists(args[1], args[2])
	return replyIntBool(c, ok, err)
}

// HSTRLEN key field
func cmdHStrLen(c *Ctx, args [][]byte) error {
	n, err := c.DB.HStrLen(args[1], args[2])
	return replyInt(c, n, err)
}

// HINCRBY key field increment
func cmdHIncrBy(c *Ctx, args [][]byte) error {
	d, err := parseInt(args[3])
	if err != nil {
		return err
	}
	n, err := c.DB.HIncrBy(args[1], args[2], d)
	return replyInt(c, n, err)
}

// HINCRBYFLOAT key field increment
func cmdHIncrByFloat(c *Ctx, args [][]byte) error {
	incr, ok := types.ParseLongDouble(args[3])
	if !ok {
		return errNotFloat
	}
	if incr.IsInf() {
		return errIncrNaN
	}
	v, err := c.DB.HIncrByFloat(args[1], args[2], incr)
	if err != nil {
		return err
	}
	c.Reply().Bulk(v) // not a Double: Redis answers the long double's text, in RESP3 too
	return nil
}

// HRANDFIELD key [count [WITHVALUES]]
func cmdHRandField(c *Ctx, args [][]byte) error {
	if len(args) == 2 {
		items, err := c.DB.HRandField(args[1], 1, false)
		return replyFirstOrNull(c, items, err)
	}
	count, err := parseRandCount(args[2])
	if err != nil {
		return err
	}
	withValues := false
	switch { // not a Shape (at most 4): Redis parses count before it checks the arity
	case len(args) == 4 && is(args[3], "WITHVALUES"):
		withValues = true
		if err := checkPairedCount(count); err != nil {
			return err
		}
	case len(args) > 3:
		return errSyntax
	}
	items, err := c.DB.HRandField(args[1], count, withValues)
	if err != nil {
		return err
	}
	if withValues {
		c.Reply().BulkPairs(items)
	} else {
		c.Reply().Bulks(items)
	}
	return nil
}

// HSCAN key cursor [MATCH pattern] [COUNT count]
func cmdHScan(c *Ctx, args [][]byte) error {
	cursor, err := parseCursor(args[2])
	if err != nil {
		return err
	}
	o, empty, err := keyScanOptions(args, c.DB.HLen)
	if err != nil || empty {
		if empty {
			writeScanReply(c, 0, nil)
		}
		return err
	}
	next, items, err := c.DB.HScan(args[1], cursor, o.Match, o.Count)
	if err != nil {
		return err
	}
	writeScanReply(c, next, items)
	return nil
}

// writeScanReply is the two-element SCAN-family reply: cursor, items.
func writeScanReply(c *Ctx, next uint64, items [][]byte) {
	r := c.Reply()
	r.Array(2)
	r.BulkString(strconv.FormatUint(next, 10))
	r.Bulks(items)
}

var hashCommands = []Command{
	cmd("hset", -4, Write|DenyOOM|Fast|Grouped, 1, 1, 1, cmdHSet).shaped(pairsFrom(2, shapeArity)).keyFlags(KeyRW|KeyUpdate).
		doc("Set the string value of a hash field", "2.0.0", "hash", "O(1) for each field/value pair added, so O(N) to add N field/value pairs when the command is called with multiple field/value pairs.", "key field value [field value ...]"),
	cmd("hmset", -4, Write|DenyOOM|Fast|Grouped, 1, 1, 1, cmdHMSet).shaped(pairsFrom(2, shapeArity)).keyFlags(KeyRW|KeyUpdate).
		doc("Set multiple hash fields to multiple values", "2.0.0", "hash", "O(N) where N is the number of fields being set.", "key field value [field value ...]"),
	cmd("hsetnx", 4, Write|DenyOOM|Fast|Grouped, 1, 1, 1, cmdHSetNX).keyFlags(KeyRW|KeyInsert).
		doc("Set the value of a hash field, only if the field does not exist", "2.0.0", "hash", "O(1)", "key field value"),
	cmd("hget", 3, ReadOnly|Fast|Grouped, 1, 1, 1, cmdHGet).keyFlags(KeyRO|KeyAccess).
		doc("Get the value of a hash field", "2.0.0", "hash", "O(1)", "key field"),
	cmd("hmget", -3, ReadOnly|Fast|Grouped, 1, 1, 1, cmdHMGet).keyFlags(KeyRO|KeyAccess).
		doc("Get the values of all the given hash fields", "2.0.0", "hash", "O(N) where N is the number of fields being requested.", "key field [field ...]"),
	cmd("hgetall", 2, ReadOnly, 1, 1, 1, cmdHGetAll).keyFlags(KeyRO|KeyAccess).tips("nondeterministic_output_order").
		doc("Get all the fields and values in a hash", "2.0.0", "hash", "O(N) where N is the size of the hash.", "key"),
	cmd("hkeys", 2, ReadOnly, 1, 1, 1, cmdHKeys).keyFlags(KeyRO|KeyAccess).tips("nondeterministic_output_order").
		doc("Get all the fields in a hash", "2.0.0", "hash", "O(N) where N is the size of the hash.", "key"),
	cmd("hvals", 2, ReadOnly, 1, 1, 1, cmdHVals).keyFlags(KeyRO|KeyAccess).tips("nondeterministic_output_order").
		doc("Get all the values in a hash", "2.0.0", "hash", "O(N) where N is the size of the hash.", "key"),
	cmd("hdel", -3, Write|Fast|Grouped, 1, 1, 1, cmdHDel).keyFlags(KeyRW|KeyDelete).
		doc("Delete one or more hash fields", "2.0.0", "hash", "O(N) where N is the number of fields to be removed.", "key field [field ...]"),
	cmd("hlen", 2, ReadOnly|Fast|Grouped, 1, 1, 1, cmdHLen).keyFlags(KeyRO).
		doc("Get the number of fields in a hash", "2.0.0", "hash", "O(1)", "key"),
	cmd("hexists", 3, ReadOnly|Fast|Grouped, 1, 1, 1, cmdHExists).keyFlags(KeyRO).
		doc("Determine if a hash field exists", "2.0.0", "hash", "O(1)", "key field"),
	cmd("hstrlen", 3, ReadOnly|Fast|Grouped, 1, 1, 1, cmdHStrLen).keyFlags(KeyRO).
		doc("Get the length of the value of a hash field", "3.2.0", "hash", "O(1)", "key field"),
	cmd("hincrby", 4, Write|DenyOOM|Fast|Grouped, 1, 1, 1, cmdHIncrBy).keyFlags(KeyRW|KeyAccess|KeyUpdate).
		doc("Increment the integer value of a hash field by the given number", "2.0.0", "hash", "O(1)", "key field increment"),
	cmd("hincrbyfloat", 4, Write|DenyOOM|Fast|Grouped, 1, 1, 1, cmdHIncrByFloat).keyFlags(KeyRW|KeyAccess|KeyUpdate).
		doc("Increment the float value of a hash field by the given amount", "2.6.0", "hash", "O(1)", "key field increment"),
	cmd("hrandfield", -2, ReadOnly, 1, 1, 1, cmdHRandField).keyFlags(KeyRO|KeyAccess).tips("nondeterministic_output").
		doc("Get one or multiple random fields from a hash", "6.2.0", "hash", "O(N) where N is the number of fields returned", "key [count [WITHVALUES]]"),
	cmd("hscan", -3, ReadOnly, 1, 1, 1, cmdHScan).keyFlags(KeyRO|KeyAccess).tips("nondeterministic_output").
		doc("Incrementally iterate hash fields and associated values", "2.8.0", "hash", "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection..", "key cursor [MATCH pattern] [COUNT count]"),
}
